//! A whole scoresheet: the printed form, the game written into it by one player in their
//! language and style (with the slips players make), then scanned or photographed; and the
//! truth behind it.

use ab_glyph::{Font, FontArc, PxScale, ScaleFont};
use image::{Rgb, RgbImage};
use imageproc::drawing::{draw_filled_rect_mut, draw_text_mut, text_size};
use imageproc::rect::Rect;
use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Move, Position};

use super::camera::{self, Capture, Shot};
use super::hand::{cross_out, pen_width, scrawl, write_text, Hand, Scripts, TextBox};
use super::ink::InkLayer;
use super::layout::{column_titles, Block, Layout, MoveCell};
use super::rng::Rng;
use super::transcript::{notation_slip, sample_form, wrong_square, Writer};
use crate::decode::MovePrior;
use crate::games::PgnGame;
use crate::notation::{legal_moves_with_facts, san_in, Language, MoveFacts};
use crate::start::StartPosition;

/// The game a sheet records, from its start.
#[derive(Debug, Clone)]
pub struct SheetGame {
    pub start: StartPosition,
    pub moves: Vec<Move>,
    pub tags: Vec<(String, String)>,
    pub start_kind: StartKind,
}

/// Where a sheet's game starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartKind {
    Standard,
    Chess960,
    /// A position from the middle of a real game, given as a FEN.
    Fen,
    /// The rest of a game an earlier sheet began ([`SheetGame::continued_after`]).
    Continued,
}

impl StartKind {
    /// The name the truth JSON gives it (`start_kind`).
    pub fn name(self) -> &'static str {
        match self {
            StartKind::Standard => "standard",
            StartKind::Chess960 => "chess960",
            StartKind::Fen => "fen",
            StartKind::Continued => "continued",
        }
    }
}

impl SheetGame {
    /// The rest of the game after its first `played` moves, as the game's next sheet records
    /// it; `None` when nothing is left.
    pub fn continued_after(&self, played: usize) -> Option<SheetGame> {
        let rest = self.moves.get(played..).filter(|rest| !rest.is_empty())?;
        let mut position = self.start.position.clone();
        for &m in &self.moves[..played] {
            position.play_unchecked(m);
        }
        Some(SheetGame {
            start: StartPosition {
                position,
                castling_mode: self.start.castling_mode,
            },
            moves: rest.to_vec(),
            tags: self.tags.clone(),
            start_kind: StartKind::Continued,
        })
    }

    /// Whether the sheet goes on from an earlier sheet's last cell: its first cell holds the
    /// next move whoever is to play (no `...` cell for White's move already written).
    fn continues_a_sheet(&self) -> bool {
        self.start_kind == StartKind::Continued
    }

    fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty() && !v.contains('?'))
    }
}

/// Picks the game for a sheet: mostly a real game from the standard start; sometimes the rest
/// of a real game from a position in its middle (a FEN start, as on a game's second sheet); and
/// sometimes a Chess960 game, made up move by move with the move prior because no real Chess960
/// games are at hand.
pub fn pick_game(games: &[PgnGame], rng: &mut Rng) -> Option<SheetGame> {
    let game = games.get(rng.below(games.len()))?;
    let roll = rng.unit();
    if roll < 0.06 {
        let n = rng.below(960) as u32;
        let start = StartPosition::chess960(n).ok()?;
        let moves = prior_game(&start.position, 30 + rng.below(70), rng);
        return Some(SheetGame {
            start,
            moves,
            tags: game.tags.clone(),
            start_kind: StartKind::Chess960,
        });
    }
    if roll < 0.12 && game.moves.len() >= 40 {
        let cut = 10 + rng.below(game.moves.len() - 30);
        let mut pos = Chess::default();
        for &m in &game.moves[..cut] {
            pos.play_unchecked(m);
        }
        let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
        let start = StartPosition::from_fen(&fen).ok()?;
        return Some(SheetGame {
            start,
            moves: game.moves[cut..].to_vec(),
            tags: game.tags.clone(),
            start_kind: StartKind::Fen,
        });
    }
    Some(SheetGame {
        start: StartPosition::standard(),
        moves: game.moves.clone(),
        tags: game.tags.clone(),
        start_kind: StartKind::Standard,
    })
}

/// A game of up to `plies` moves drawn from the move prior (plausible, not strong), for starts
/// no game collection covers.
pub fn prior_game(start: &Chess, plies: usize, rng: &mut Rng) -> Vec<Move> {
    let prior = MovePrior::default();
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut last_to = None;
    let mut log_probs = Vec::new();
    while moves.len() < plies {
        let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
        if legal.is_empty() || pos.is_insufficient_material() {
            break;
        }
        prior.log_probs(&pos, &legal, last_to, &mut log_probs);
        let weights: Vec<f64> = log_probs.iter().map(|l| (*l as f64).exp()).collect();
        let m = legal[rng.weighted(&weights)];
        last_to = Some(m.to());
        pos.play_unchecked(m);
        moves.push(m);
    }
    moves
}

/// One cell of the truth file.
#[derive(Debug, Clone, Serialize)]
pub struct CellTruth {
    /// The cell's place on the sheet: 1 = White's first move cell.
    pub ply: u32,
    /// Corners in the final image: top-left, top-right, bottom-right, bottom-left.
    pub quad: [[f32; 2]; 4],
    /// `[x, y, w, h]` around the quad.
    pub bbox: [f32; 4],
    /// What can be read in the cell (a crossed-out attempt and a scrawl are not text).
    pub text: String,
    /// Whether anything is written in the cell.
    pub ink: bool,
    /// Which move of `moves_san` (0-based) the cell records, if any.
    pub move_index: Option<usize>,
    /// What the player did here: `"slip"`, `"wrong_square"`, `"crossed_out"`, `"illegible"`,
    /// `"spill"`, `"draw_offer"`, `"after_skip"`.
    pub effects: Vec<&'static str>,
}

/// The truth behind a generated sheet (a contract: see the README).
#[derive(Debug, Clone, Serialize)]
pub struct SheetTruth {
    pub id: String,
    pub image: String,
    pub language: String,
    pub layout: String,
    /// The writer's notation habits.
    pub style: String,
    pub start_fen: String,
    pub start_kind: String,
    /// The game written on the sheet (standard English SAN), truncated to the sheet.
    pub moves_san: Vec<String>,
    /// What the player wrote for each move of `moves_san` ("" when skipped or illegible).
    pub written: Vec<String>,
    pub image_size: [u32; 2],
    /// The page's corners in the image.
    pub page_quad: [[f32; 2]; 4],
    pub cells: Vec<CellTruth>,
    pub flags: SheetFlags,
    /// The sheet's place among its game's sheets when it is not the first: its `start_fen` is
    /// the position after the sheets before, its cells are numbered from 1 on this sheet.
    #[serde(skip_serializing_if = "is_first_page")]
    pub page: u32,
    /// The truth file of the game's next sheet, which goes on from this sheet's last cell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page: Option<String>,
}

fn is_first_page(page: &u32) -> bool {
    *page <= 1
}

/// Which player and camera effects were applied.
#[derive(Debug, Clone, Serialize)]
pub struct SheetFlags {
    pub capture: String,
    pub camera: Vec<String>,
    pub hand: String,
    pub ink: [u8; 3],
    pub skipped_moves: Vec<usize>,
    pub crossed_out: usize,
    pub illegible: usize,
    pub slips: usize,
    pub draw_offer: Option<usize>,
}

/// What goes into one cell.
#[derive(Debug, Clone, Default)]
pub(crate) struct Entry {
    pub text: String,
    pub crossed: Option<String>,
    pub scrawl: bool,
    pub spill: bool,
    pub move_index: Option<usize>,
    pub effects: Vec<&'static str>,
}

/// How often a player slips, per move; one player is more careful than another.
struct Habits {
    notation_slip: f32,
    wrong_square: f32,
    crossed_out: f32,
    illegible: f32,
    skipped: f32,
    spill: f32,
}

impl Habits {
    fn random(rng: &mut Rng) -> Habits {
        let care = 0.3 + rng.unit() as f32 * 1.4;
        Habits {
            notation_slip: 0.03 * care,
            wrong_square: 0.012 * care,
            crossed_out: 0.02 * care,
            illegible: 0.01 * care,
            skipped: 0.003 * care,
            spill: 0.04 * care,
        }
    }
}

/// Plans the cells: what the player writes where, with their slips.
pub(crate) fn plan_entries(
    game: &SheetGame,
    lang: &Language,
    writer: &Writer,
    capacity: usize,
    rng: &mut Rng,
) -> (Vec<Entry>, Vec<String>, Vec<usize>) {
    let habits = Habits::random(rng);
    let mut entries: Vec<Entry> = Vec::new();
    if game.start.position.turn().is_black() && !game.continues_a_sheet() {
        entries.push(Entry {
            text: if rng.chance(0.5) {
                "...".into()
            } else {
                String::new()
            },
            ..Entry::default()
        });
    }
    let mut written = Vec::new();
    let mut skipped = Vec::new();
    let mut pos = game.start.position.clone();
    let draw_offer_at = rng
        .chance(0.15)
        .then(|| 10 + rng.below(game.moves.len().max(11) - 10));
    let mut after_skip = false;
    for (i, &m) in game.moves.iter().enumerate() {
        if entries.len() >= capacity {
            break;
        }
        let Some(facts) = legal_moves_with_facts(&pos)
            .into_iter()
            .find(|(legal, _)| *legal == m)
            .map(|(_, f)| f)
        else {
            break;
        };
        pos.play_unchecked(m);
        // A skipped move leaves no cell: the next move is written where it belonged.
        if i > 0 && rng.chance(habits.skipped) {
            written.push(String::new());
            skipped.push(i);
            after_skip = true;
            continue;
        }
        let mut entry = Entry {
            move_index: Some(i),
            ..Entry::default()
        };
        if after_skip {
            entry.effects.push("after_skip");
            after_skip = false;
        }
        if rng.chance(habits.illegible) {
            entry.scrawl = true;
            entry.effects.push("illegible");
            written.push(String::new());
            entries.push(entry);
            continue;
        }
        let text = move_as_written(
            &mut entry,
            (&facts, lang, writer),
            &habits,
            draw_offer_at == Some(i),
            rng,
        );
        written.push(text.clone());
        entry.text = text;
        entries.push(entry);
    }
    (entries, written, skipped)
}

/// What a player with `habits` writes for a move (`facts`, in `lang` and the `writer`'s
/// style): a form of it, or a slip, a wrong square, with the draw offer when `draw_offer`;
/// the entry is marked crossed out or spilling as the habits fall, its effects noted.
fn move_as_written(
    entry: &mut Entry,
    (facts, lang, writer): (&MoveFacts, &Language, &Writer),
    habits: &Habits,
    draw_offer: bool,
    rng: &mut Rng,
) -> String {
    let mut text = if rng.chance(habits.notation_slip) {
        entry.effects.push("slip");
        notation_slip(facts, lang, &writer.style, rng)
    } else {
        sample_form(facts, lang, &writer.style, rng)
    };
    if rng.chance(habits.wrong_square) {
        let wrong = wrong_square(&text, rng);
        if wrong != text {
            text = wrong;
            entry.effects.push("wrong_square");
        }
    }
    if rng.chance(habits.crossed_out) {
        entry.crossed = Some(wrong_square(&text, rng));
        entry.effects.push("crossed_out");
    }
    if draw_offer {
        text.push_str(if rng.chance(0.8) { "(=)" } else { "=" });
        entry.effects.push("draw_offer");
    }
    entry.spill = rng.chance(habits.spill);
    if entry.spill {
        entry.effects.push("spill");
    }
    text
}

/// Paper, not quite white.
fn paper_colour(rng: &mut Rng) -> [f32; 3] {
    let base = 238.0 + rng.unit() as f32 * 16.0;
    let warm = rng.unit() as f32 * 10.0;
    [base, base - warm * 0.3, base - warm]
}

struct Printer<'a> {
    page: RgbImage,
    px_per_mm: f32,
    ink: Rgb<u8>,
    font: &'a FontArc,
    bold: &'a FontArc,
    /// Capital height per unit of font scale, of `font` and `bold`.
    cap_per_scale: [f32; 2],
}

fn cap_per_scale(font: &FontArc) -> f32 {
    font.outline_glyph(font.glyph_id('H').with_scale(100.0))
        .map(|g| -g.px_bounds().min.y / 100.0)
        .unwrap_or(0.7)
}

impl Printer<'_> {
    /// A block of the move table: its frame and rulings (`line` mm thick), the number
    /// column shaded with `shade` where the form does, the columns' titles (the form's own
    /// or `lang`'s) and the move numbers.
    fn block(&mut self, block: &Block, lang: &Language, shade: Rgb<u8>, line: f32) {
        let [x, y, w, h] = block.rect_mm;
        let total: f32 = block.columns.iter().sum();
        let widths = block.columns.map(|c| w * c / total);
        let row_h = (h - block.title_row_mm) / block.rows as f32;
        if block.shade_numbers {
            self.fill([x, y, w, block.title_row_mm], shade);
            self.fill([x, y, widths[0], h], shade);
        }
        self.frame(block.rect_mm, line * 1.6);
        self.hline(x, y + block.title_row_mm, w, line * 1.3);
        for row in 1..block.rows {
            self.hline(x, y + block.title_row_mm + row as f32 * row_h, w, line);
        }
        self.vline(x + widths[0], y, h, line);
        self.vline(x + widths[0] + widths[1], y, h, line);
        let [white, black] = match &block.column_titles {
            Some([white, black]) => [white.clone(), black.clone()],
            None => column_titles(lang.code).map(String::from),
        };
        let title_size = (block.title_row_mm * 0.42).min(2.6);
        let title_y = y + block.title_row_mm / 2.0 + title_size / 2.0;
        self.text(
            &white,
            x + widths[0] + widths[1] / 2.0,
            title_y,
            title_size,
            true,
            0.5,
        );
        self.text(
            &black,
            x + widths[0] + widths[1] + widths[2] / 2.0,
            title_y,
            title_size,
            true,
            0.5,
        );
        let number_size = (row_h * 0.36).min(2.8);
        for row in 0..block.rows {
            let baseline = y + block.title_row_mm + (row as f32 + 0.5) * row_h + number_size / 2.0;
            let number = (block.first_move + row).to_string();
            self.text(
                &number,
                x + widths[0] / 2.0,
                baseline,
                number_size,
                true,
                0.5,
            );
        }
    }

    fn px(&self, mm: f32) -> f32 {
        mm * self.px_per_mm
    }

    fn fill(&mut self, rect_mm: [f32; 4], colour: Rgb<u8>) {
        let [x, y, w, h] = rect_mm.map(|v| self.px(v));
        let rect = Rect::at(x.round() as i32, y.round() as i32)
            .of_size(w.round().max(1.0) as u32, h.round().max(1.0) as u32);
        draw_filled_rect_mut(&mut self.page, rect, colour);
    }

    fn hline(&mut self, x: f32, y: f32, length: f32, thickness: f32) {
        let ink = self.ink;
        let t = self.px(thickness).max(1.0);
        let rect = Rect::at(
            self.px(x).round() as i32,
            (self.px(y) - t / 2.0).round() as i32,
        )
        .of_size(self.px(length).round().max(1.0) as u32, t.round() as u32);
        draw_filled_rect_mut(&mut self.page, rect, ink);
    }

    fn vline(&mut self, x: f32, y: f32, length: f32, thickness: f32) {
        let ink = self.ink;
        let t = self.px(thickness).max(1.0);
        let rect = Rect::at(
            (self.px(x) - t / 2.0).round() as i32,
            self.px(y).round() as i32,
        )
        .of_size(t.round() as u32, self.px(length).round().max(1.0) as u32);
        draw_filled_rect_mut(&mut self.page, rect, ink);
    }

    fn frame(&mut self, rect_mm: [f32; 4], thickness: f32) {
        let [x, y, w, h] = rect_mm;
        self.hline(x, y, w, thickness);
        self.hline(x, y + h, w, thickness);
        self.vline(x, y, h, thickness);
        self.vline(x + w, y, h, thickness);
    }

    /// Prints `text` with capital height `size_mm`, baseline at `y_mm`; `anchor` in 0 (left),
    /// 0.5 (centre), 1 (right) of the text's width from `x_mm`.
    fn text(&mut self, text: &str, x_mm: f32, y_mm: f32, size_mm: f32, bold: bool, anchor: f32) {
        let font = if bold { self.bold } else { self.font };
        let scale = PxScale::from(self.px(size_mm) / self.cap_per_scale[bold as usize]);
        let ascent = font.as_scaled(scale).ascent();
        let (width, _) = text_size(scale, font, text);
        let x = self.px(x_mm) - anchor * width as f32;
        let y = self.px(y_mm) - ascent;
        let ink = self.ink;
        draw_text_mut(
            &mut self.page,
            ink,
            x.round() as i32,
            y.round() as i32,
            scale,
            font,
            text,
        );
    }
}

/// Renders one sheet. `capture` None picks scan or photo at random.
pub struct SheetRequest<'a> {
    pub id: String,
    pub game: &'a SheetGame,
    pub language: &'static Language,
    pub layout: &'a Layout,
    pub seed: u64,
    /// Page resolution before the camera, dots per inch.
    pub dpi: f32,
    pub capture: Option<Capture>,
    /// The writer writes English descriptive notation (`P-K4`, `N-KB3`) instead of algebraic.
    pub descriptive: bool,
    /// The sheet's place among its game's sheets, 1 for the first. A later sheet is a fresh
    /// form of the same layout whose printed move numbers go on from the sheets before, in
    /// the same writer's hand and habits (drawn from `seed` as on the first sheet; the rest
    /// afresh), and `game` is what is left of the game ([`SheetGame::continued_after`]).
    pub page: u32,
}

/// A rendered sheet: the image, the JPEG quality to save it with, and its truth.
pub struct RenderedSheet {
    pub image: RgbImage,
    pub jpeg_quality: u8,
    pub truth: SheetTruth,
}

/// Renders the sheet and its truth; fails only if the camera geometry degenerates.
pub fn render_sheet(scripts: &Scripts, request: &SheetRequest) -> Result<RenderedSheet, String> {
    let mut rng = Rng::new(request.seed);
    let layout = request.layout;
    let lang = request.language;
    let writer = Writer::drawn(request.descriptive, &mut rng);
    let hand = Hand::random(scripts, &mut rng);
    let later_pages = request.page.saturating_sub(1);
    if later_pages > 0 {
        rng = Rng::new(request.seed ^ u64::from(request.page).wrapping_mul(0x2545_F491_4F6C_DD1D));
    }
    let (entries, written, skipped) =
        plan_entries(request.game, lang, &writer, layout.capacity(), &mut rng);
    let recorded = written.len();

    let px_per_mm = request.dpi / 25.4;
    let mut page = blank_form(scripts, request, px_per_mm, &mut rng);
    // The player's writing: header, then the moves.
    let hand_on_page = HandOnPage {
        scripts,
        hand: &hand,
        px_per_mm,
    };
    write_header(&mut page, &hand_on_page, layout, request.game, &mut rng);
    let cells = layout.move_cells();
    let MovesWritten {
        crossed_out,
        illegible,
        slips,
        draw_offer,
    } = write_moves(&mut page, &hand_on_page, &cells, &entries, &mut rng);

    let (capture, shot) = captured(&page, request.capture, &mut rng)?;

    let cell_truths = cell_truths(&cells, &entries, &shot, px_per_mm);

    let image_size = [shot.image.width(), shot.image.height()];
    let truth = SheetTruth {
        id: request.id.clone(),
        image: format!("{}.jpg", request.id),
        language: lang.code.to_string(),
        layout: layout.name.clone(),
        style: writer.description.clone(),
        start_fen: request.game.start.fen(),
        start_kind: request.game.start_kind.name().to_string(),
        moves_san: english_san(request.game, recorded),
        written,
        image_size,
        page_quad: shot.page_quad,
        cells: cell_truths,
        flags: SheetFlags {
            capture: capture.name().to_string(),
            camera: shot.effects.clone(),
            hand: hand_description(&hand, scripts),
            ink: hand.ink,
            skipped_moves: skipped,
            crossed_out,
            illegible,
            slips,
            draw_offer,
        },
        page: request.page,
        next_page: None,
    };
    Ok(RenderedSheet {
        image: shot.image,
        jpeg_quality: shot.jpeg_quality,
        truth,
    })
}

/// The sheet's form as printed, before anyone writes on it: a first sheet's as laid out, a
/// later one's with its rows numbered on; the paper's colour and the print's grey drawn from
/// `rng`.
fn blank_form(
    scripts: &Scripts,
    request: &SheetRequest,
    px_per_mm: f32,
    rng: &mut Rng,
) -> RgbImage {
    let paper = paper_colour(rng);
    let print_grey = 30.0 + rng.unit() as f32 * 50.0;
    let later_pages = request.page.saturating_sub(1);
    let numbered_on = match later_pages {
        0 => std::borrow::Cow::Borrowed(request.layout),
        _ => std::borrow::Cow::Owned(request.layout.numbered_on(later_pages)),
    };
    let form = PrintedForm {
        layout: &numbered_on,
        lang: request.language,
        px_per_mm,
        paper,
        print_grey,
    };
    print_form(scripts, &form)
}

/// The written page scanned or photographed, as `capture` asks or (`None`) either at even
/// odds.
fn captured(
    page: &RgbImage,
    capture: Option<Capture>,
    rng: &mut Rng,
) -> Result<(Capture, Shot), String> {
    let capture = capture.unwrap_or(if rng.chance(0.5) {
        Capture::Scan
    } else {
        Capture::Photo
    });
    let shot = match capture {
        Capture::Scan => camera::scan(page, rng),
        Capture::Photo => camera::photograph(page, rng),
    }
    .ok_or("the camera's view of the page degenerated")?;
    Ok((capture, shot))
}

/// The first `recorded` moves of `game` in English SAN, for the truth file.
fn english_san(game: &SheetGame, recorded: usize) -> Vec<String> {
    let mut position = game.start.position.clone();
    let english = Language::by_code("en").expect("English is a language");
    game.moves[..recorded]
        .iter()
        .map(|&m| {
            let san = san_in(&position, m, english);
            position.play_unchecked(m);
            san
        })
        .collect()
}

/// What the writer's letters were made of, for the truth file's flags.
fn hand_description(hand: &Hand, scripts: &Scripts) -> String {
    match hand.source {
        super::hand::LetterSource::Glyphs { .. } => "real glyphs".to_string(),
        super::hand::LetterSource::Font(i) => format!("font {}", scripts.fonts[i].name),
    }
}

/// What a sheet's printed form looks like: its layout and language (the columns' titles),
/// its scale, the paper's colour and the grey of the print.
struct PrintedForm<'a> {
    layout: &'a Layout,
    lang: &'a Language,
    px_per_mm: f32,
    paper: [f32; 3],
    print_grey: f32,
}

/// The blank form: its printed texts, the header's fields and the move blocks with their
/// rulings, titles and move numbers.
fn print_form(scripts: &Scripts, form: &PrintedForm) -> RgbImage {
    let PrintedForm {
        layout,
        lang,
        px_per_mm,
        paper,
        print_grey,
    } = *form;
    let (pw, ph) = (
        (layout.page_mm[0] * px_per_mm).round() as u32,
        (layout.page_mm[1] * px_per_mm).round() as u32,
    );
    let mut printer = Printer {
        page: RgbImage::from_pixel(pw, ph, camera::paper_pixel(paper)),
        px_per_mm,
        ink: Rgb([print_grey as u8; 3]),
        font: &scripts.printed,
        bold: &scripts.printed_bold,
        cap_per_scale: [
            cap_per_scale(&scripts.printed),
            cap_per_scale(&scripts.printed_bold),
        ],
    };
    let shade = Rgb(paper.map(|c| (c * 0.86) as u8));
    let line = layout.line_mm;
    for text in &layout.texts {
        let anchor = match text.anchor.as_str() {
            "centre" | "center" => 0.5,
            "right" => 1.0,
            _ => 0.0,
        };
        printer.text(
            &text.text,
            text.at_mm[0],
            text.at_mm[1],
            text.size_mm,
            text.bold,
            anchor,
        );
    }
    for field in &layout.fields {
        printer.frame(field.rect_mm, line);
        let [x, y, _, h] = field.rect_mm;
        let size = (h * 0.28).min(2.4);
        printer.text(&field.label, x + 1.2, y + size + 1.0, size, false, 0.0);
    }
    for block in &layout.blocks {
        printer.block(block, lang, shade, line);
    }
    printer.page
}

/// A player's hand on a page of `px_per_mm` pixels a millimetre.
struct HandOnPage<'a> {
    scripts: &'a Scripts,
    hand: &'a Hand,
    px_per_mm: f32,
}

/// Writes the game's tags (names, date...) into the header's fields, leaving a quarter of
/// them blank, as players do.
fn write_header(
    page: &mut RgbImage,
    hand_on_page: &HandOnPage,
    layout: &Layout,
    game: &SheetGame,
    rng: &mut Rng,
) {
    let HandOnPage {
        scripts,
        hand,
        px_per_mm,
    } = *hand_on_page;
    for field in &layout.fields {
        let Some(value) = field.tag.as_deref().and_then(|t| game.tag(t)) else {
            continue;
        };
        if rng.chance(0.25) {
            continue;
        }
        let value: String = value.chars().take(28).collect();
        let [x, y, w, h] = field.rect_mm.map(|v| v * px_per_mm);
        // Names and dates go beside the printed label, a little smaller than moves.
        let label_room = w * 0.22;
        let area = TextBox {
            x: x + label_room,
            y: y + h * 0.3,
            width: w - label_room,
            height: h * 0.62,
        };
        let mut layer = InkLayer::new(
            x as i64,
            (y - h * 0.3) as i64,
            w as usize + 2,
            (h * 1.6) as usize,
        );
        write_text(&mut layer, scripts, hand, &value, area, false, rng);
        layer.lay_on(page, hand.ink, hand.opacity);
    }
}

/// How the moves were written: cells crossed out and scrawled, moves written with a slip, and
/// the move a draw was offered with.
struct MovesWritten {
    crossed_out: usize,
    illegible: usize,
    slips: usize,
    draw_offer: Option<usize>,
}

/// Writes every planned entry in its move cell.
fn write_moves(
    page: &mut RgbImage,
    hand_on_page: &HandOnPage,
    cells: &[MoveCell],
    entries: &[Entry],
    rng: &mut Rng,
) -> MovesWritten {
    let HandOnPage {
        scripts,
        hand,
        px_per_mm,
    } = *hand_on_page;
    let pen = |cap: f32| pen_width(hand, cap);
    let mut crossed_out = 0;
    let mut illegible = 0;
    let mut slips = 0;
    let mut draw_offer = None;
    for (cell, entry) in cells.iter().zip(entries) {
        let [x, y, w, h] = cell.rect_mm.map(|v| v * px_per_mm);
        let area = TextBox {
            x,
            y,
            width: w,
            height: h,
        };
        let mut layer = InkLayer::new(
            (x - w * 0.3) as i64,
            (y - h * 0.6) as i64,
            (w * 1.6) as usize,
            (h * 2.2) as usize,
        );
        let cap = h * hand.size;
        if entry.scrawl {
            scrawl(&mut layer, area, pen(cap), rng);
            illegible += 1;
        } else if let Some(crossed) = &entry.crossed {
            // The wrong move struck out on the left, the right one written after it.
            let first = TextBox {
                width: w * 0.5,
                ..area
            };
            if let Some(ink) = write_text(&mut layer, scripts, hand, crossed, first, false, rng) {
                cross_out(&mut layer, ink, pen(cap), rng);
            }
            let second = TextBox {
                x: x + w * 0.5,
                width: w * 0.5,
                ..area
            };
            write_text(&mut layer, scripts, hand, &entry.text, second, false, rng);
            crossed_out += 1;
        } else if !entry.text.is_empty() {
            write_text(
                &mut layer,
                scripts,
                hand,
                &entry.text,
                area,
                entry.spill,
                rng,
            );
        }
        if entry
            .effects
            .iter()
            .any(|e| *e == "slip" || *e == "wrong_square")
        {
            slips += 1;
        }
        if entry.effects.contains(&"draw_offer") {
            draw_offer = entry.move_index;
        }
        layer.lay_on(page, hand.ink, hand.opacity);
    }
    MovesWritten {
        crossed_out,
        illegible,
        slips,
        draw_offer,
    }
}

/// Each move cell's truth: its ply, its corners and bounding box in the image `shot` made,
/// what was written in it and how.
fn cell_truths(
    cells: &[MoveCell],
    entries: &[Entry],
    shot: &Shot,
    px_per_mm: f32,
) -> Vec<CellTruth> {
    cells
        .iter()
        .enumerate()
        .map(|(i, cell)| {
            let [x, y, w, h] = cell.rect_mm.map(|v| v * px_per_mm);
            let quad = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
                .map(|(px, py)| camera::to_image(shot, px, py));
            let (lo_x, hi_x) = min_max(quad.iter().map(|p| p[0]));
            let (lo_y, hi_y) = min_max(quad.iter().map(|p| p[1]));
            let entry = entries.get(i);
            CellTruth {
                ply: cell.ply,
                quad,
                bbox: [lo_x, lo_y, hi_x - lo_x, hi_y - lo_y],
                text: entry
                    .filter(|e| !e.scrawl)
                    .map(|e| e.text.clone())
                    .unwrap_or_default(),
                ink: entry.is_some_and(|e| e.scrawl || !e.text.is_empty()),
                move_index: entry.and_then(|e| e.move_index),
                effects: entry.map(|e| e.effects.clone()).unwrap_or_default(),
            }
        })
        .collect()
}

fn min_max(values: impl Iterator<Item = f32>) -> (f32, f32) {
    values.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}
