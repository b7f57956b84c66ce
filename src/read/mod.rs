//! The whole pipeline for one game: the pages of a scoresheet ([`Sheet`]s) through the page
//! stage, the cell reader and the decoder to the legal game, keeping for every move the cell it
//! was read from.

use std::fmt;

use image::{GrayImage, Rgb, RgbImage};
use serde_json::{json, Value};
use shakmaty::{Color, Position};

pub use crate::decode::WhichSheet;
use crate::decode::{
    decode_remembering, likelier_again, mark_doubtful_stretches, mark_sheets_differ,
    mark_written_alike, CellEvidence, CopiesAligned, DecodedMove, DecoderConfig, Game,
    LanguageChoice, OnBothSheets, PriorMemo, TypedCell,
};
use crate::notation::{looks_descriptive, names_algebraic_square, Language, Notation};
use crate::page::crop::reading_crops;
use crate::page::overlay::{draw_overlay, mark_cells};
use crate::page::{
    find_cells, find_cells_turned, Cell, Cells, PageFile, PageOptions, Quad, Sheet, TORN_JPEG,
};
use crate::recognize::{read_crops, CtcCell, Reader, DEFAULT_EVIDENCE_SCALE};
use crate::report::html::{review_html, ReviewCell, ReviewPage};
use crate::report::{to_json_with_note, to_pgn_with_note, PgnTags};
use crate::start::StartPosition;

pub mod chess960;
mod copies;
pub mod writer;

use copies::{fuse_copies, SheetsApart};

/// The first plies of a game, whose flags say whether it began where it was decoded from.
pub const OPENING_PLIES: usize = 12;

/// A game decoded from the usual start with at least this many of its first
/// [`OPENING_PLIES`] moves flagged, half of them or more read from cells the reader read with
/// some confidence ([`OPENING_SURE_READING`]), is noted as perhaps begun elsewhere: what was
/// written there is no legal game from the usual start ([`doubted_start`]). The flags are
/// counted once the doubtful stretches are marked: a Chess960 game read from the usual start
/// often explains its first cells by cheap slips, few of them flagged alone. Read as folders
/// (no starts), the generated sets of seeds 100 and 104 note 1 of their 114 games from the
/// usual start, 5 of 10 Chess960 games and 6 of 8 set-position games (counting before the
/// stretches, and only in cells read with some confidence: 0, 2 and 3), and seeds 101 and 103,
/// not looked at to choose the rule, 0 of 111, 8 of 14 and 7 of 7 (before: 0, 6 and 6).
/// The blurred German sample (78 of its 80 moves flagged, every reading under 0.07) is not
/// noted. From 3 flags, the earlier count noted 22 of 40 such games of seeds 99-102 but also 3
/// of 224 from the usual start: a false alarm misleads more than a missing note.
pub const OPENING_DOUBT_FLAGS: usize = 4;

/// A game read without a start whose first [`OPENING_PLIES`] moves include this many flagged,
/// counted as for [`OPENING_DOUBT_FLAGS`] but fewer than those, is screened for a Chess960
/// start ([`chess960::chess960_start_from_writing`]): half the Chess960 games read from the
/// usual start have two or three, their openings explained by cheap slips, and 9 of 225
/// games from the usual start (seeds 100, 101, 103 and 104, read as folders).
pub const OPENING_UNEASY_FLAGS: usize = 2;

/// A game read without a start with at least this share of its moves flagged is screened for
/// a Chess960 start too, however its opening reads: a Chess960 game whose first moves are
/// pawn moves and a knight's that the usual start allows as well reads its opening there
/// with one flag or none, and its later moves badly (four such games of seeds 100 and 101,
/// 10 to 22 of their 60-84 moves flagged, each found from its own start).
pub const UNEASY_FLAGGED_SHARE: f32 = 0.125;

/// The probability of a cell's best reading from which the reader read it with some
/// confidence: a hand the reader can hardly read (a blurred photo of long algebraic in a
/// script font, every reading under 0.07) fits no start well, and a later page's flagged
/// moves count against it only in cells read so ([`later_page_openings`]).
pub const OPENING_SURE_READING: f32 = 0.1;

/// The median cell height, in image pixels, under which a page is noted as photographed or
/// scanned too small ([`GameRead::small_cell_notes`]). Of 616 generated sheets (every
/// language and form, made at 62, 75, 100, 120 and 150 dpi) read end to end, those whose
/// cells are 30 pixels high or more read 98.5-98.9% of their plies right, 27-30 pixels
/// 97.6%, 18-27 pixels 92-94% and under 18 pixels 75%.
pub const SMALL_CELL_HEIGHT: f32 = 27.0;

/// The outline of a flagged move's cell in [`GameRead::overlays`].
const FLAGGED: Rgb<u8> = Rgb([220, 20, 20]);

/// What the decoder is told about a game besides its pages.
#[derive(Clone)]
pub struct ReadOptions {
    pub start: StartPosition,
    pub language: LanguageChoice,
    pub page: PageOptions,
    pub decoder: DecoderConfig,
    /// Weight of the reader's evidence against the decoder's prior ([`CtcCell::with_scale`]).
    pub evidence_scale: f32,
    /// Learn how the reader misreads this writer from the moves decoded surely, and decode
    /// again through those confusions ([`writer::learn`]), in rounds while the game changes
    /// ([`writer::adapt_in_rounds`]); with the other player's copy, each writer's apart.
    pub adapt_to_writer: bool,
    /// The notation the sheets are written in, or how to tell it.
    pub notation: NotationChoice,
    /// `start` is the usual start because no start was given (a folder of sheets, `read`
    /// without `--start-fen` or `--chess960`): where the game's first moves put the usual
    /// start in doubt ([`GameRead::start_doubt`]), or [`OPENING_UNEASY_FLAGS`] of them or
    /// [`UNEASY_FLAGGED_SHARE`] of all its moves are flagged (a cheap screen first), the
    /// Chess960 starts are tried ([`chess960::chess960_start_from_writing`]) and the game read
    /// from one that explains the writing far better ([`GameRead::start_found`]).
    pub search_chess960_start: bool,
}

/// The notation of a game's sheets, as the user gives it or as it is told from them.
#[derive(Clone, Copy)]
pub enum NotationChoice {
    /// Algebraic: every sheet is read with the reader [`read_game`] is given.
    Algebraic,
    /// English descriptive: the reader [`read_game`] is given is one trained on it
    /// ([`Reader::descriptive`]), and the game is decoded in English unless told otherwise.
    Descriptive,
    /// Told from the own sheet's first page by this reader of English descriptive notation
    /// ([`reads_as_descriptive`]): a sheet that reads as descriptive is read with it
    /// throughout (the other player's copy too) and decoded in English unless told otherwise;
    /// any other with the reader [`read_game`] is given.
    Detect(&'static Reader),
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            start: StartPosition::standard(),
            language: LanguageChoice::Auto,
            page: PageOptions::default(),
            decoder: DecoderConfig::for_handwriting(),
            evidence_scale: DEFAULT_EVIDENCE_SCALE,
            adapt_to_writer: true,
            notation: NotationChoice::Algebraic,
            search_chess960_start: false,
        }
    }
}

/// A page could not be read: the file and the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError(pub String);

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReadError {}

/// One move cell of the game, in ply order across the pages, with what the reader saw in it.
#[derive(Debug, Clone)]
pub struct GameCell {
    /// Index of the page (0 = the first sheet given).
    pub page: usize,
    /// The cell as the page stage found it (its ply is the page's own).
    pub cell: Cell,
    /// What the reader read and its probability: once [`read_game`] has decoded the game, the
    /// likeliest text in the piece letters of the cell's sheet ([`CtcCell::text_in`]); before
    /// that, the best path. Empty for a cell without ink.
    pub text: String,
    pub text_confidence: f32,
    /// The same ply's cell on the other player's copy (`read --copy`), when both sheets
    /// wrote the ply.
    pub copy: Option<Box<GameCell>>,
}

impl GameCell {
    /// Ply `ply` of page `page` where the page stage found no cell: no place on the page, no
    /// ink, nothing read.
    fn missing(page: usize, ply: u32) -> GameCell {
        GameCell {
            page,
            cell: Cell {
                ply,
                quad: [[0.0; 2]; 4],
                bbox: [0.0; 4],
                ink: false,
                ink_share: 0.0,
                overrun: 0.0,
            },
            text: String::new(),
            text_confidence: 0.0,
            copy: None,
        }
    }

    /// Which sheet the cell is on, in a game whose own sheet has `own_pages` pages.
    fn sheet(&self, own_pages: usize) -> WhichSheet {
        if self.page < own_pages {
            WhichSheet::Own
        } else {
            WhichSheet::Copy
        }
    }
}

/// The evidence of one ply: a cell read by the model, a blank (no ink, or no cell found at
/// that ply), or the same ply on both players' sheets.
pub enum CellReading {
    Read(CtcCell),
    Blank(TypedCell),
    /// Both copies' evidence for one ply: independent readings of the same move, so their
    /// likelihoods multiply; each copy's part is floored at its own junk price, so a scrawl on
    /// one sheet leaves the decision to the other.
    BothCopies(Box<CellReading>, Box<CellReading>),
}

impl CellReading {
    /// The same reading, with none of its scores kept yet.
    fn unscored(&self) -> CellReading {
        match self {
            CellReading::Read(cell) => CellReading::Read(cell.unscored()),
            CellReading::Blank(blank) => CellReading::Blank(blank.clone()),
            CellReading::BothCopies(own, copy) => {
                CellReading::BothCopies(Box::new(own.unscored()), Box::new(copy.unscored()))
            }
        }
    }
}

/// A ply's readings on both sheets, as the decoder weighs them ([`OnBothSheets`]).
fn on_both<'a>(own: &'a CellReading, copy: &'a CellReading) -> OnBothSheets<'a> {
    OnBothSheets { own, copy }
}

impl CellEvidence for CellReading {
    fn log_likelihood(&self, body: &[char], mark: &str, needed: f32) -> f32 {
        match self {
            CellReading::Read(c) => c.log_likelihood(body, mark, needed),
            CellReading::Blank(c) => c.log_likelihood(body, mark, needed),
            CellReading::BothCopies(own, copy) => {
                on_both(own, copy).log_likelihood(body, mark, needed)
            }
        }
    }

    fn unreadable_log_likelihood(&self) -> f32 {
        match self {
            CellReading::Read(c) => c.unreadable_log_likelihood(),
            CellReading::Blank(c) => c.unreadable_log_likelihood(),
            CellReading::BothCopies(own, copy) => on_both(own, copy).unreadable_log_likelihood(),
        }
    }

    fn copies(&self) -> Option<(&dyn CellEvidence, &dyn CellEvidence)> {
        match self {
            CellReading::BothCopies(own, copy) => Some((own.as_ref(), copy.as_ref())),
            _ => None,
        }
    }

    fn readings(&self) -> usize {
        match self {
            CellReading::BothCopies(own, copy) => on_both(own, copy).readings(),
            _ => 1,
        }
    }

    fn is_illegible(&self) -> bool {
        match self {
            CellReading::Read(c) => c.is_illegible(),
            CellReading::Blank(_) => true,
            CellReading::BothCopies(own, copy) => on_both(own, copy).is_illegible(),
        }
    }

    /// The game's own sheet's text, or the copy's where the own cell is blank.
    fn text(&self) -> &str {
        match self {
            CellReading::Read(c) => c.text(),
            CellReading::Blank(c) => c.text(),
            CellReading::BothCopies(own, copy) => on_both(own, copy).text(),
        }
    }

    /// A cell read on one sheet only: a blank one's reading is noise, and a fused one's
    /// text says which sheet it was taken from.
    fn first_characters(&self) -> Option<Vec<(char, f32)>> {
        match self {
            CellReading::Read(c) => c.first_characters(),
            CellReading::Blank(_) | CellReading::BothCopies(..) => None,
        }
    }

    fn draw_offer(&self) -> bool {
        match self {
            CellReading::Read(c) => c.draw_offer(),
            CellReading::Blank(_) => false,
            CellReading::BothCopies(own, copy) => on_both(own, copy).draw_offer(),
        }
    }
}

/// A game read from its pages.
pub struct GameRead {
    pub game: Game,
    /// The cells found on each page of the game's own sheet (none on a page of a sheet set
    /// aside, see [`GameRead::set_aside`]).
    pub pages: Vec<Cells>,
    /// The cells found on each page of the other player's copy (numbered after `pages`).
    pub copy_pages: Vec<Cells>,
    /// Every move cell in game order; [`crate::decode::DecodedMove::cell`] indexes this. With
    /// a copy, the own sheet's cells, and the copy's where only the copy wrote a ply.
    pub cells: Vec<GameCell>,
    /// What the decoder was given, entry for entry with `cells` (both copies fused; taken
    /// through the writer's confusions where the sheet was decoded again, see [`writer`]).
    pub evidence: Vec<CellReading>,
    /// One player's sheet that could not be read while the other's could: the game is then
    /// read from the other sheet alone, and this says which sheet was left out and why.
    pub set_aside: Option<SetAside>,
    /// The pages (of either sheet) whose JPEG file ends before its image does
    /// ([`Sheet::torn`]): moves on the missing part could not be read.
    pub torn_pages: Vec<String>,
    /// How many of the first [`OPENING_PLIES`] moves of a game decoded from the usual start
    /// were flagged in cells read with some confidence, when so many ([`OPENING_DOUBT_FLAGS`])
    /// that the game may have begun elsewhere ([`GameRead::start_note`]).
    pub start_doubt: Option<usize>,
    /// The number of the Chess960 start the game was read from, when no start was given and
    /// its first moves read far better from there than from the usual start
    /// ([`ReadOptions::search_chess960_start`], [`GameRead::start_found_note`]).
    pub start_found: Option<u32>,
    /// Every page after the first of a sheet (the own sheet's, then the copy's), with how
    /// many of its first moves fit the game poorly, counted as [`GameRead::start_doubt`]
    /// counts them ([`later_page_openings`]); those with many may not continue the page
    /// before them ([`GameRead::continuation_doubts`]).
    pub later_pages: Vec<LaterPageOpening>,
    /// The notation the game was read in: as told ([`ReadOptions::notation`]) or as the
    /// sheet showed it.
    pub notation: Notation,
}

/// A page after the first of a sheet, and how its first moves fit the game
/// ([`GameRead::later_pages`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaterPageOpening {
    /// The page's name, as [`Cells::source`].
    pub page: String,
    /// How many of the first [`OPENING_PLIES`] moves read from the page are flagged where the
    /// reader was fairly sure of the writing ([`OPENING_SURE_READING`]).
    pub flagged: usize,
}

impl LaterPageOpening {
    /// Whether so many of the page's first moves are doubtful ([`OPENING_DOUBT_FLAGS`]) that
    /// it may not continue the page before it.
    pub fn is_doubtful(&self) -> bool {
        self.flagged >= OPENING_DOUBT_FLAGS
    }
}

/// One of a game's two sheets that could not be read ([`GameRead::set_aside`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    pub sheet: WhichSheet,
    /// What went wrong, naming the page's file.
    pub error: ReadError,
}

impl SetAside {
    /// A sentence for the user: which sheet, why, and what the game was read from instead.
    pub fn note(&self) -> String {
        let (left_out, read_from) = match self.sheet {
            WhichSheet::Copy => ("the other player's copy", "its own sheet"),
            WhichSheet::Own => ("the game's own sheet", "the other player's copy"),
        };
        format!(
            "{left_out} could not be read ({}); the game is read from {read_from} alone",
            self.error
        )
    }
}

/// Reads one game from the pages of its scoresheet, in order: a second page continues after
/// every cell of the first. `copy` holds the other player's sheet of the same game (its pages
/// in order, or none): both copies' readings of a ply are evidence for the same move. When one
/// of the two sheets cannot be read (no grid found on a page), the game is read from the other
/// alone and [`GameRead::set_aside`] says so; errors (both sheets, or the only one, unreadable)
/// name the page's file and the cause.
///
/// In order: the sheets' cells are read and their notation settled ([`read_sheets`]), the
/// readings gathered, fused where both sheets were read ([`gather_readings`]), the game
/// decoded, decoded again where the copies were lined up along a sheet that went astray
/// ([`realigned_game`]) and in rounds of writer adaptation ([`adapt_to_writer`]), and its
/// moves and cells made ready for review.
pub fn read_game(
    sheets: &[Sheet],
    copy: &[Sheet],
    reader: &Reader,
    options: &ReadOptions,
) -> Result<GameRead, ReadError> {
    let (own_read, copy_read, notation) = read_sheets(sheets, copy, reader, options);
    let (options, mut decoder) = settled_for(notation, options);
    let options = &options;
    // Every decode of the game expands mostly the same positions.
    let priors = PriorMemo::default();
    let Gathered {
        pages,
        copy_pages,
        mut cells,
        mut evidence,
        set_aside,
        apart,
    } = gather_readings(sheets, own_read, copy_read, options, &priors)?;
    if let Some((_, aligned)) = &apart {
        decoder.copy_language = aligned.copy_language;
    }
    let mut game = decode_remembering(
        &evidence,
        &options.start,
        options.language,
        &decoder,
        &priors,
    );
    if let Some((sheets_apart, aligned)) = apart {
        let again = realigned_game(sheets_apart, &aligned, &game, options, &decoder, &priors);
        if let Some(again) = again {
            (cells, evidence, game) = again;
        }
    }
    // The language stays the one found: the game is decoded again in it, if at all.
    let copy_language = decoder.copy_language.unwrap_or(game.language);
    let (usual_score, usual_language) = (game.score, game.language);
    let own_pages = sheets.len();
    let sheets_read: Vec<WhichSheet> = cells.iter().map(|c| c.sheet(own_pages)).collect();
    let finishing = Finishing {
        cells: &cells,
        sheets_read: &sheets_read,
        pages: (&pages, &copy_pages),
        copy_language,
        decoder: &decoder,
        priors: &priors,
    };
    let mut finished = finishing.finish(game, evidence, options);
    let mut start_found = None;
    let uneasy = |game: &Game| {
        opening_flags(game, &cells).is_some_and(|f| f >= OPENING_UNEASY_FLAGS)
            || flagged_share(game) >= UNEASY_FLAGGED_SHARE
    };
    if options.search_chess960_start && options.start.is_standard() && uneasy(&finished.game) {
        let as_read = finished.as_read.as_ref().unwrap_or(&finished.evidence);
        let found = chess960::chess960_start_from_writing(
            as_read,
            (usual_score, usual_language),
            &decoder,
            &priors,
            finished.start_doubt.is_none(),
        );
        if let Some(found) = found {
            let from_found = ReadOptions {
                start: found.start,
                ..options.clone()
            };
            let readings = as_read.iter().map(CellReading::unscored).collect();
            let again = finishing.finish(found.game, readings, &from_found);
            // A start is found where its game, adapted to its writer, reads the opening as
            // the writing says it (before adaptation, four or more of the first moves of seed
            // 100's Esperanto sheet 00044 are flagged, none after). A game from a set position
            // fits no Chess960 start, though one may fit it far better than the usual start
            // does (seed 100's Swedish sheet, by 18 nats, two of its first moves flagged).
            if opening_flags(&again.game, &cells).is_none_or(|f| f < OPENING_UNEASY_FLAGS) {
                (finished, start_found) = (again, Some(found.number));
            }
        }
    }
    let Finished {
        game,
        evidence,
        as_read,
        start_doubt,
        later_pages,
    } = finished;
    let as_read = as_read.as_ref().unwrap_or(&evidence);
    for (cell, reading) in cells.iter_mut().zip(as_read) {
        let language = match cell.sheet(own_pages) {
            WhichSheet::Own => game.language,
            WhichSheet::Copy => copy_language,
        };
        read_in_letters(cell, reading, language, copy_language);
    }
    let torn_pages = torn_pages(sheets, copy, set_aside.as_ref());
    Ok(GameRead {
        game,
        pages,
        copy_pages,
        cells,
        evidence,
        set_aside,
        torn_pages,
        start_doubt,
        start_found,
        later_pages,
        notation,
    })
}

/// What every reading of a game ends with: its cells, and how they were decoded.
struct Finishing<'a> {
    cells: &'a [GameCell],
    sheets_read: &'a [WhichSheet],
    /// The own sheet's pages and the copy's.
    pages: (&'a [Cells], &'a [Cells]),
    copy_language: &'static Language,
    decoder: &'a DecoderConfig,
    priors: &'a PriorMemo,
}

/// A game decoded, adapted to its writer and marked for review.
struct Finished {
    game: Game,
    /// What the last decoding read: the writer's adapted readings, or the reader's own.
    evidence: Vec<CellReading>,
    /// The reader's own readings, when the game was decoded again from adapted ones.
    as_read: Option<Vec<CellReading>>,
    start_doubt: Option<usize>,
    later_pages: Vec<LaterPageOpening>,
}

impl Finishing<'_> {
    /// `game`, decoded from `evidence` as `options` say, decoded again through its writer's
    /// confusions when `options` ask for it ([`adapt_to_writer`]), then marked for review.
    fn finish(&self, game: Game, evidence: Vec<CellReading>, options: &ReadOptions) -> Finished {
        let (mut game, mut evidence, mut as_read) = (game, evidence, None);
        if options.adapt_to_writer {
            let rounds = WriterRounds {
                sheets_read: self.sheets_read,
                copy_language: self.copy_language,
                options,
                decoder: self.decoder,
                priors: self.priors,
            };
            (game, as_read) = adapt_to_writer(game, &mut evidence, &rounds);
        }
        let (start_doubt, later_pages) = mark_for_review(
            &mut game,
            self.cells,
            &evidence,
            self.decoder,
            self.pages,
            &options.start,
        );
        Finished {
            game,
            evidence,
            as_read,
            start_doubt,
            later_pages,
        }
    }
}

/// The options and decoder settings a game written in `notation` is read with: descriptive
/// notation is English's alone, and its searches escalate less wide.
fn settled_for(notation: Notation, options: &ReadOptions) -> (ReadOptions, DecoderConfig) {
    let english = Language::by_code("en").expect("English is a known language");
    let options = ReadOptions {
        language: match (notation, options.language) {
            (Notation::Descriptive, LanguageChoice::Auto) => LanguageChoice::Fixed(english),
            (_, language) => language,
        },
        ..options.clone()
    };
    let mut decoder = options.decoder.clone();
    if notation == Notation::Descriptive {
        decoder.rescue_escalation_width = decoder
            .rescue_escalation_width
            .min(DESCRIPTIVE_ESCALATION_WIDTH);
    }
    (options, decoder)
}

/// Marks and flags the decoded game's moves for review, and returns the doubts about its
/// start ([`doubted_start`]) and later pages ([`later_page_openings`]). The later pages'
/// doubts are counted after the copies' and look-alikes' marks and before the flags for
/// faint, doubtful and small readings, the start's after the faint and doubtful ones too (a
/// game read from the wrong start often flags its opening as a doubtful stretch); the small
/// pages' flags come last: a page photographed small has many moves under the bar, and as
/// stretches they would flag the sure ones around them too, and its start is no more in
/// doubt for that.
fn mark_for_review(
    game: &mut Game,
    cells: &[GameCell],
    evidence: &[CellReading],
    decoder: &DecoderConfig,
    (pages, copy_pages): (&[Cells], &[Cells]),
    start: &StartPosition,
) -> (Option<usize>, Vec<LaterPageOpening>) {
    mark_sheets_differ(game, evidence, decoder);
    mark_written_alike(game, evidence, decoder);
    let later_pages = later_page_openings(game, cells, pages, copy_pages);
    flag_faint_readings(game, cells);
    mark_doubtful_stretches(game, decoder);
    let start_doubt = doubted_start(game, cells, start);
    let small_page: Vec<bool> = pages
        .iter()
        .chain(copy_pages)
        .map(|page| small_cell_height(page).is_some())
        .collect();
    flag_small_cell_readings(game, cells, &small_page);
    (start_doubt, later_pages)
}

/// Reads the cells of the game's own sheet and of the other player's copy (`None` without
/// one), and settles the game's notation: as [`ReadOptions::notation`] tells, or as the
/// sheets show it. One game, one notation: the copy is read as the own sheet was, and tells
/// its own only when the own sheet could not be read.
fn read_sheets(
    sheets: &[Sheet],
    copy: &[Sheet],
    reader: &Reader,
    options: &ReadOptions,
) -> (SheetRead, Option<SheetRead>, Notation) {
    let detect = match options.notation {
        NotationChoice::Detect(descriptive) => Some(descriptive),
        NotationChoice::Algebraic | NotationChoice::Descriptive => None,
    };
    let own_read = read_pages(sheets, 0, reader, detect, options);
    let (copy_reader, copy_detect) = match &own_read {
        Ok((_, read_with)) => (read_with.reader, None),
        Err(_) => (reader, detect),
    };
    let copy_read = (!copy.is_empty())
        .then(|| read_pages(copy, sheets.len(), copy_reader, copy_detect, options));
    let notation = match options.notation {
        NotationChoice::Descriptive => Notation::Descriptive,
        NotationChoice::Algebraic | NotationChoice::Detect(_) => own_read
            .as_ref()
            .ok()
            .or(copy_read.as_ref().and_then(|read| read.as_ref().ok()))
            .map_or(Notation::Algebraic, |(_, read_with)| read_with.notation),
    };
    let own_read = own_read.map(|(read, _)| read);
    let copy_read = copy_read.map(|read| read.map(|(read, _)| read));
    (own_read, copy_read, notation)
}

/// What a game is decoded from: the pages and cells of the sheets that could be read, their
/// readings fused where both were, and the sheet set aside when one could not be.
struct Gathered {
    pages: Vec<Cells>,
    copy_pages: Vec<Cells>,
    cells: Vec<GameCell>,
    evidence: Vec<CellReading>,
    set_aside: Option<SetAside>,
    /// Both sheets apart, and how they were fused, when the game is read from both.
    apart: Option<(SheetsApart, CopiesAligned)>,
}

/// Gathers what the game is decoded from out of the own sheet's pages (`sheets`) as read and
/// the copy's, if any; an error when no sheet could be read.
fn gather_readings(
    sheets: &[Sheet],
    own_read: SheetRead,
    copy_read: Option<SheetRead>,
    options: &ReadOptions,
    priors: &PriorMemo,
) -> Result<Gathered, ReadError> {
    let alone = |pages, copy_pages, cells, evidence, set_aside| Gathered {
        pages,
        copy_pages,
        cells,
        evidence,
        set_aside,
        apart: None,
    };
    match (own_read, copy_read) {
        (Ok((pages, cells, evidence)), None) => Ok(alone(pages, Vec::new(), cells, evidence, None)),
        (
            Ok((pages, own_cells, own_evidence)),
            Some(Ok((copy_pages, copy_cells, copy_evidence))),
        ) => {
            let sheets = SheetsApart::new(&own_cells, &own_evidence, &copy_cells, &copy_evidence);
            let (cells, evidence, aligned) = fuse_copies(
                own_cells,
                own_evidence,
                copy_cells,
                copy_evidence,
                options,
                priors,
            );
            Ok(Gathered {
                pages,
                copy_pages,
                cells,
                evidence,
                set_aside: None,
                apart: Some((sheets, aligned)),
            })
        }
        (Ok((pages, cells, evidence)), Some(Err(error))) => {
            let set_aside = SetAside {
                sheet: WhichSheet::Copy,
                error,
            };
            Ok(alone(pages, Vec::new(), cells, evidence, Some(set_aside)))
        }
        (Err(error), Some(Ok((copy_pages, cells, evidence)))) => {
            // The copy's cells keep their page numbers after the own sheet's, which stay in
            // the page list without cells so the review and overlays still show them.
            let pages = sheets.iter().map(unread_page).collect();
            let set_aside = SetAside {
                sheet: WhichSheet::Own,
                error,
            };
            Ok(alone(pages, copy_pages, cells, evidence, Some(set_aside)))
        }
        (Err(error), None) => Err(error),
        (Err(own), Some(Err(theirs))) => Err(ReadError(format!(
            "{own}; the other player's copy cannot be read either: {theirs}"
        ))),
    }
}

/// The sheets were lined up along the game of the sheet decoded more surely alone; the game
/// read from both may show that sheet went astray, and the cells lined up along it meet their
/// own plies. Then the cells lined up again, their evidence and the game decoded from it, if
/// that game is the likelier.
fn realigned_game(
    sheets: SheetsApart,
    aligned: &CopiesAligned,
    game: &Game,
    options: &ReadOptions,
    decoder: &DecoderConfig,
    priors: &PriorMemo,
) -> Option<(Vec<GameCell>, Vec<CellReading>, Game)> {
    let realigned = sheets.realigned(game, aligned, &options.start, decoder)?;
    let again = likelier_again(
        game,
        &realigned.evidence,
        realigned.handicap,
        &options.start,
        decoder,
        priors,
    )?;
    Some((realigned.cells, realigned.evidence, again))
}

/// What rounds of writer adaptation read with: which sheet each cell is on, the copy's
/// language, and the settings of the game's first decoding.
struct WriterRounds<'a> {
    sheets_read: &'a [WhichSheet],
    copy_language: &'static Language,
    options: &'a ReadOptions,
    decoder: &'a DecoderConfig,
    priors: &'a PriorMemo,
}

/// Decodes `game` again in rounds of writer adaptation ([`writer::adapt_in_rounds`]). Where
/// the last game was decoded from adapted readings, `evidence` becomes those, each move's
/// `written` is its cell's reading as the reader made it, and those readings are returned,
/// for the report.
fn adapt_to_writer(
    game: Game,
    evidence: &mut Vec<CellReading>,
    rounds: &WriterRounds,
) -> (Game, Option<Vec<CellReading>>) {
    let WriterRounds {
        sheets_read,
        copy_language,
        options,
        decoder,
        priors,
    } = *rounds;
    let round_decoder = writer::round_config(decoder);
    let (mut game, adapted) = writer::adapt_in_rounds(
        game,
        |game| writer::learn(game, evidence, sheets_read, copy_language),
        |learnt, before| {
            let adapted = learnt.taken_through(evidence, sheets_read, options.evidence_scale);
            // The new readings can lead this round's search astray from a game that a wider
            // search found the round before: the likelier game is kept.
            let start = &options.start;
            writer::round_game(&adapted, before, start, &round_decoder, decoder, priors)
                .map(|game| (game, adapted))
        },
        writer::MAX_ROUNDS,
    );
    let Some(adapted) = adapted else {
        return (game, None);
    };
    let original = std::mem::replace(evidence, adapted);
    for decoded in &mut game.moves {
        if let Some(reading) = decoded.cell.and_then(|c| original.get(c)) {
            decoded.written = Some(reading.text().to_string());
        }
    }
    (game, Some(original))
}

/// The names of the pages found torn, of the sheets read (a sheet set aside was not read at
/// all: its error already says why).
fn torn_pages(sheets: &[Sheet], copy: &[Sheet], set_aside: Option<&SetAside>) -> Vec<String> {
    let left_out = set_aside.map(|a| a.sheet);
    let own_read = if left_out == Some(WhichSheet::Own) {
        &[]
    } else {
        sheets
    };
    let copy_read = if left_out == Some(WhichSheet::Copy) {
        &[]
    } else {
        copy
    };
    own_read
        .iter()
        .chain(copy_read)
        .filter(|sheet| sheet.torn)
        .map(|sheet| sheet.name.clone())
        .collect()
}

/// How many of `game`'s first [`OPENING_PLIES`] moves are flagged, when the game was decoded
/// from the usual start, that is enough ([`OPENING_DOUBT_FLAGS`]) to doubt it began there,
/// and the reader read at least half of those moves' cells with some confidence
/// ([`OPENING_SURE_READING`], as [`GameRead::cells`] hold them before the game is decoded: the
/// best paths'). A Chess960 game or one from a set position, read as if from the usual start,
/// explains its first cells by misreadings and slips; a hand the reader can hardly read fits
/// no start well, and says nothing of it.
fn doubted_start(game: &Game, cells: &[GameCell], start: &StartPosition) -> Option<usize> {
    if !start.is_standard() {
        return None;
    }
    opening_flags(game, cells).filter(|&flagged| flagged >= OPENING_DOUBT_FLAGS)
}

/// The share of `game`'s moves flagged for review (0 for a game of no moves).
fn flagged_share(game: &Game) -> f32 {
    game.flagged().count() as f32 / game.moves.len().max(1) as f32
}

/// How many of `game`'s first [`OPENING_PLIES`] moves are flagged, where the reader read at
/// least half of those moves' cells with some confidence ([`OPENING_SURE_READING`]).
fn opening_flags(game: &Game, cells: &[GameCell]) -> Option<usize> {
    let opening = &game.moves[..game.moves.len().min(OPENING_PLIES)];
    let read_surely = |m: &&DecodedMove| {
        m.cell
            .and_then(|c| cells.get(c))
            .is_some_and(|c| c.text_confidence >= OPENING_SURE_READING)
    };
    let legible = opening.iter().filter(read_surely).count();
    let flagged = opening.iter().filter(|m| m.flagged).count();
    (legible * 2 >= OPENING_PLIES).then_some(flagged)
}

/// Each page after the first of the own sheet (`pages`) or of the copy (`copy_pages`, numbered
/// after them), with how many of its first [`OPENING_PLIES`] moves (those `game` read from a
/// cell on it) are flagged where the reader was fairly sure of the writing. A page of another
/// game, or the other player's copy, given as the next page of a sheet reads with many: what
/// is clearly written there is no legal continuation.
fn later_page_openings(
    game: &Game,
    cells: &[GameCell],
    pages: &[Cells],
    copy_pages: &[Cells],
) -> Vec<LaterPageOpening> {
    let first_pages = [0, pages.len()];
    let page_count = pages.len() + copy_pages.len();
    let (mut read_on, mut flagged_on) = (vec![0; page_count], vec![0; page_count]);
    for m in &game.moves {
        let Some(cell) = m.cell.and_then(|c| cells.get(c)) else {
            continue;
        };
        for cell in std::iter::once(cell).chain(cell.copy.as_deref()) {
            if read_on
                .get(cell.page)
                .is_some_and(|&read| read < OPENING_PLIES)
            {
                read_on[cell.page] += 1;
                let sure = cell.text_confidence >= OPENING_SURE_READING;
                flagged_on[cell.page] += usize::from(m.flagged && sure);
            }
        }
    }
    pages
        .iter()
        .chain(copy_pages)
        .enumerate()
        .filter(|(page, _)| !first_pages.contains(page))
        .map(|(page, cells)| LaterPageOpening {
            page: cells.source.clone(),
            flagged: flagged_on[page],
        })
        .collect()
}

/// A sentence for the user about a page of [`GameRead::torn_pages`].
pub fn torn_page_note(page: &str) -> String {
    format!("{page}: {TORN_JPEG}; moves on the missing part of the page could not be read")
}

/// A game read from image files ([`read_game_files`]), with the sheets it was read from.
pub struct FilesRead {
    pub sheets: Vec<Sheet>,
    /// The other player's copy; empty when none was given or it could not be opened.
    pub copy: Vec<Sheet>,
    pub read: GameRead,
}

/// Opens the pages of a game's own sheet and of the other player's copy (`copy`, possibly
/// none; every page of a multi-page TIFF or PDF file, in order, or the page named) and reads
/// the game ([`read_game`]). The own sheet's files must open; a copy whose
/// file cannot be opened (torn, missing, not an image) is set aside as one whose grid cannot
/// be found is, so that the game is still read from the own sheet.
pub fn read_game_files(
    pages: &[PageFile],
    copy: &[PageFile],
    reader: &Reader,
    options: &ReadOptions,
) -> Result<FilesRead, ReadError> {
    let open = |files: &[PageFile]| -> Result<Vec<Sheet>, ReadError> {
        let mut sheets = Vec::new();
        for file in files {
            sheets.extend(file.open().map_err(|e| ReadError(e.to_string()))?);
        }
        Ok(sheets)
    };
    let sheets = open(pages)?;
    let (copy, unopened) = match open(copy) {
        Ok(copy) => (copy, None),
        Err(error) => (
            Vec::new(),
            Some(SetAside {
                sheet: WhichSheet::Copy,
                error,
            }),
        ),
    };
    let mut read = read_game(&sheets, &copy, reader, options)?;
    if unopened.is_some() {
        read.set_aside = unopened;
    }
    Ok(FilesRead { sheets, copy, read })
}

/// A page of a sheet set aside: the whole image, no cells found.
fn unread_page(sheet: &Sheet) -> Cells {
    let (width, height) = (sheet.image.width(), sheet.image.height());
    let (w, h) = (width as f32, height as f32);
    Cells {
        source: sheet.name.clone(),
        image_width: width,
        image_height: height,
        page_quad: [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]],
        blocks: Vec::new(),
        cells: Vec::new(),
        turned_degrees: 0.0,
    }
}

/// The widest escalation (`DecoderConfig::rescue_escalation_width`) for a descriptive sheet.
/// Its reader reads about two cells in three exactly, and a piece-and-file reading (`N-B3`)
/// means many moves: searched wider, the decoder finds more wrong games likelier than the
/// true one than it finds true games pruned. Generated descriptive sheets (seed 7, 24
/// sheets): 76.18% of plies right at 4,096, 65.36% at 16,384, the width of algebraic sheets.
pub const DESCRIPTIVE_ESCALATION_WIDTH: usize = 4096;

/// Inked cells of a first page read by the descriptive reader to tell its notation
/// ([`reads_as_descriptive`]), and how many at a time: on an algebraic page the first few
/// name squares algebraically and decide.
const NOTATION_SAMPLE: usize = 24;
const NOTATION_CHUNK: usize = 8;
/// A page reads as descriptive with at least this many of its sample's cells descriptive.
const MIN_DESCRIPTIVE_CELLS: usize = 3;

/// Whether the cells `found` on `sheet` (whose grey image is `grey`) are written in English
/// descriptive notation. A sample of the inked cells ([`NOTATION_SAMPLE`]) is read by
/// `descriptive`, a reader trained on both notations: on a descriptive page at least a
/// quarter of them read as descriptive ([`looks_descriptive`]), and at most a third as many
/// name a square algebraically ([`names_algebraic_square`]), which descriptive never writes.
/// The algebraic reader cannot tell: it reads `P-Q4` as `R-a4`.
pub fn reads_as_descriptive(
    descriptive: &Reader,
    sheet: &Sheet,
    grey: &GrayImage,
    found: &Cells,
) -> Result<bool, ReadError> {
    let sample = inked_sample(found, NOTATION_SAMPLE);
    let whole = sample.len();
    let verdict = |descriptive_cells, algebraic_cells| {
        sample_is_descriptive(descriptive_cells, algebraic_cells, whole)
    };
    let (mut descriptive_cells, mut algebraic_cells) = (0, 0);
    for (chunk_index, chunk) in sample.chunks(NOTATION_CHUNK).enumerate() {
        // Once the cells left could not make the page descriptive even all read so, it is not.
        let unread = whole - chunk_index * NOTATION_CHUNK;
        if !verdict(descriptive_cells + unread, algebraic_cells) {
            return Ok(false);
        }
        let quads: Vec<Quad> = chunk.iter().map(|&i| found.cells[i].quad).collect();
        for reading in read_quads(descriptive, sheet, grey, &quads)? {
            let text: Vec<char> = reading.text().chars().collect();
            descriptive_cells += usize::from(looks_descriptive(&text));
            algebraic_cells += usize::from(names_algebraic_square(&text));
        }
    }
    Ok(verdict(descriptive_cells, algebraic_cells))
}

/// Whether a sample of `whole` cells read by the descriptive reader is of a descriptive page:
/// `descriptive_cells` of them read as descriptive, `algebraic_cells` name a square
/// algebraically. Of 24 generated descriptive sheets (every layout and hand) the least
/// descriptive sample read 11 of 21 cells descriptive and none algebraic; of 264 generated
/// algebraic sheets in every language and the 12 real-dev scans, the most descriptive-looking
/// (a Russian writer of long algebraic) 8 of 20 descriptive and 10 algebraic.
fn sample_is_descriptive(descriptive_cells: usize, algebraic_cells: usize, whole: usize) -> bool {
    descriptive_cells >= MIN_DESCRIPTIVE_CELLS
        && descriptive_cells * 4 >= whole
        && algebraic_cells * 3 <= descriptive_cells
}

/// Inked cells read both ways up to tell whether a page stands on its head.
const ORIENTATION_SAMPLE: usize = 24;
/// The sample's cells turned over are read this many at a time, until they decide.
const ORIENTATION_CHUNK: usize = 8;
/// How much surer (mean best-path probability, 0 to 1) the reader must be of the sampled
/// cells turned over than as found to take the page for upside down. Generated and real-dev
/// sheets read 0.47-0.85 the right way up and 0.15-0.29 upside down.
const UPSIDE_DOWN_MARGIN: f32 = 0.2;

/// Which of a page's cells [`upright_cells`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellsToRead {
    /// Every cell found, as `scoresheet cells --read` shows them.
    Every,
    /// The cells up to the last ply the page stage found ink in, as the last page of a game
    /// is read: past it the game has ended and no reading counts (`holds_writing`), and
    /// the reader, most of a page's time, would read a third of a long form's empty boxes.
    ThroughLastInk,
}

impl CellsToRead {
    /// The last ply of `cells` inside the game as read this way (`None`: no cell holds ink).
    fn last_ply(self, cells: &Cells) -> Option<u32> {
        match self {
            CellsToRead::Every => Some(u32::MAX),
            CellsToRead::ThroughLastInk => cells.last_written_ply(),
        }
    }
}

/// The cells of `sheet` ([`find_cells`]) the right way up, each with its reading (`None` for a
/// cell `which` leaves unread). A table of moves looks much the same upside down, and a page
/// photographed so (or scanned the wrong way round) would be read as a game of nonsense: a
/// sample of its inked cells is read turned over too, and where the reader is far surer of
/// them that way the page is found again in the image turned a half turn.
pub fn upright_cells(
    reader: &Reader,
    sheet: &Sheet,
    options: &PageOptions,
    which: CellsToRead,
) -> Result<(Cells, Vec<Option<CtcCell>>), ReadError> {
    // One grey image for every crop read here (`reading_crops` works on grey).
    upright_cells_in(reader, sheet, &sheet.grey(), options, which)
}

/// The crops of `quads` on `grey` (the page `sheet`, named in errors) read by `reader`.
fn read_quads(
    reader: &Reader,
    sheet: &Sheet,
    grey: &GrayImage,
    quads: &[Quad],
) -> Result<Vec<CtcCell>, ReadError> {
    let (width, height) = reader.input_size();
    read_crops(reader, &reading_crops(grey, quads, width, height))
        .map_err(|e| ReadError(format!("{}: {e}", sheet.name)))
}

/// Each cell of `cells` (found on `sheet`, whose grey image is `grey`) read by `reader`, `None`
/// where `which` leaves it unread.
fn read_found_cells(
    reader: &Reader,
    sheet: &Sheet,
    grey: &GrayImage,
    cells: &Cells,
    which: CellsToRead,
) -> Result<Vec<Option<CtcCell>>, ReadError> {
    let last_ply = which.last_ply(cells).unwrap_or(0);
    let wanted = |cell: &Cell| cell.ply <= last_ply;
    // Each cell in its own box, then the cells whose writing runs over the border in a
    // window reaching as far, all in one batch.
    let own = cells.cells.iter().filter(|c| wanted(c)).map(|c| c.quad);
    let overruns: Vec<Option<Quad>> = cells
        .cells
        .iter()
        .map(|c| if wanted(c) { c.overrun_quad() } else { None })
        .collect();
    let quads: Vec<Quad> = own.chain(overruns.iter().flatten().copied()).collect();
    let mut readings = read_quads(reader, sheet, grey, &quads)?.into_iter();
    let mut own_readings: Vec<Option<CtcCell>> = cells
        .cells
        .iter()
        .map(|c| if wanted(c) { readings.next() } else { None })
        .collect();
    for (overrun, reading) in overruns.iter().zip(&mut own_readings) {
        if overrun.is_some() {
            let widened = readings.next();
            if let (Some(own), Some(widened)) = (reading.take(), widened) {
                *reading = Some(own.with_overrun(widened));
            }
        }
    }
    Ok(own_readings)
}

/// A sample of at most `size` of the inked cells of `found`, spread over the page.
fn inked_sample(found: &Cells, size: usize) -> Vec<usize> {
    let inked: Vec<usize> = (0..found.cells.len())
        .filter(|&i| found.cells[i].ink)
        .collect();
    inked
        .iter()
        .step_by(inked.len().div_ceil(size).max(1))
        .copied()
        .collect()
}

/// [`upright_cells`] with the page's grey image at hand.
fn upright_cells_in(
    reader: &Reader,
    sheet: &Sheet,
    grey: &GrayImage,
    options: &PageOptions,
    which: CellsToRead,
) -> Result<(Cells, Vec<Option<CtcCell>>), ReadError> {
    let found = find_cells(sheet, options).map_err(|e| ReadError(e.to_string()))?;
    let read = |quads: &[Quad]| read_quads(reader, sheet, grey, quads);
    let read_cells = |cells: &Cells| read_found_cells(reader, sheet, grey, cells, which);
    let readings = read_cells(&found)?;
    let sample = inked_sample(&found, ORIENTATION_SAMPLE);
    if sample.is_empty() {
        return Ok((found, readings));
    }
    // Inked cells are always read.
    let as_found = sample
        .iter()
        .filter_map(|&i| readings[i].as_ref())
        .map(|r| r.text_confidence())
        .sum::<f32>()
        / sample.len() as f32;
    // The same cells seen turned over: each quad's corners taken from the opposite ones.
    let turned_over: Vec<Quad> = sample
        .iter()
        .map(|&i| {
            let [a, b, c, d] = found.cells[i].quad;
            [c, d, a, b]
        })
        .collect();
    // Read a few at a time: once the cells left could not lift the mean to the bar even read
    // with certainty (a probability of 1), the page stands as found. A page the right way up
    // reads 0.15-0.29 turned over, so the first few decide, and one read with a mean above
    // 0.8 needs none read.
    let bar = as_found + UPSIDE_DOWN_MARGIN;
    let whole = turned_over.len() as f32;
    let mut turned_sum = 0f32;
    for (chunk_index, chunk) in turned_over.chunks(ORIENTATION_CHUNK).enumerate() {
        let unread = turned_over.len() - chunk_index * ORIENTATION_CHUNK;
        // A little below the bar, as the sums may round apart.
        if (turned_sum + unread as f32) / whole < bar - 1e-4 {
            return Ok((found, readings));
        }
        for reading in read(chunk)? {
            turned_sum += reading.text_confidence();
        }
    }
    if turned_sum / whole < bar {
        return Ok((found, readings));
    }
    // The page is upside down: its first move is at the bottom of the image, so the table
    // is found again, not just its cells turned. Where it is not found that way up, the
    // table found stands: its reading, however poor, is flagged move by move.
    let Ok(upright) = find_cells_turned(sheet, options, found.turned_degrees + 180.0) else {
        return Ok((found, readings));
    };
    let readings = read_cells(&upright)?;
    Ok((upright, readings))
}

type PagesRead = (Vec<Cells>, Vec<GameCell>, Vec<CellReading>);

/// One sheet's pages read, or why they could not be.
type SheetRead = Result<PagesRead, ReadError>;

/// Whether a cell is read as written: the page stage found ink in it, or the reader read
/// something there and the page has ink further on (`last_inked_ply`: the last cell the page
/// stage found ink in, `None` for none). A faint pencil can fall under the page stage's ink
/// bar where the reader still reads the move (a Norwegian pencil sheet: 53 of 80 written cells
/// called empty); past the last inked cell the reader's guesses at empty boxes would be read
/// as moves after the game's end.
fn holds_writing(cell: &Cell, read: &str, last_inked_ply: Option<u32>) -> bool {
    cell.ink || (!read.is_empty() && last_inked_ply.is_some_and(|last| cell.ply < last))
}

/// A move read only from faint cells goes unflagged from this confidence on.
///
/// The decoder's confidence is that of the move itself since the twenty-ninth session, and a
/// faint pencil's moves it is all but sure of are right: flagging every one of them put 62 of
/// a Norwegian pencil sheet's 80 moves (79 right) before the arbiter. Generated sheets, seeds
/// 99–102 (`recognize-bench --no-real --sheets /tmp/sN --sheet-limit 66`), every faint move
/// flagged → only those under 0.999 → none: flagged 6.4 / 6.9 / 6.5 / 6.1% → 5.1 / 6.2 / 5.8 /
/// 5.8% → 4.9 / 6.1 / 5.7 / 5.6%, unflagged right 99.49 / 99.59 / 99.59 / 99.37% → 99.48 /
/// 99.44 / 99.60 / 99.38% → 99.48 / 99.40 / 99.60 / 99.35%; real-dev has no faint cell.
const FAINT_SURE: f32 = 0.999;

/// Flags for review the moves read only from cells the page stage found almost empty (see
/// [`holds_writing`]; with the other player's copy, both of its cells) unless the decoder is
/// all but sure of them ([`FAINT_SURE`]): a faint pencil is read less surely than its
/// posteriors say (on generated sheets, when every such move was flagged, 6.7 → 8.0% of moves
/// flagged, unflagged moves right 97.7 → 98.0%).
fn flag_faint_readings(game: &mut Game, cells: &[GameCell]) {
    let faint = |c: &GameCell| !c.cell.ink && !c.text.is_empty();
    for m in &mut game.moves {
        let cell = m.cell.and_then(|c| cells.get(c));
        if m.confidence < FAINT_SURE
            && cell.is_some_and(|c| faint(c) && c.copy.as_deref().is_none_or(faint))
        {
            m.flagged = true;
        }
    }
}

/// The median height of `page`'s cells ([`Cells::median_cell_height`]) when it is under
/// [`SMALL_CELL_HEIGHT`]: a page photographed from afar or scanned at a low resolution.
fn small_cell_height(page: &Cells) -> Option<f32> {
    page.median_cell_height()
        .filter(|&height| height < SMALL_CELL_HEIGHT)
}

/// A move read only from pages whose cells are under [`SMALL_CELL_HEIGHT`] pixels high goes
/// unflagged from this confidence on.
///
/// Such pages are read worse than their confidences say: on the generated sheets made at 62,
/// 75, 100 and 120 dpi whose cells are that small (6,631 plies, 86.6% right), flagging the
/// moves under 0.9 / 0.95 / 0.97 / 0.99 as well took the moves flagged from 19.3% to 21.3 /
/// 23.2 / 25.1 / 28.9% and the wrong ones left unflagged from 290 to 258 / 221 / 197 / 166:
/// at 0.95 a quarter of the moves it flags are wrong, as of the decoder's own flags, where
/// a French sample read all right (19-pixel cells) gains 10 flags (7 to 17 of 80 moves) and
/// at 0.99 gains 25.
const SMALL_CELLS_SURE: f32 = 0.95;

/// Flags for review the moves read only from cells on pages photographed or scanned small
/// (`small_page`, by [`GameCell::page`]; with the other player's copy, both of its cells)
/// unless the decoder is sure of them ([`SMALL_CELLS_SURE`]).
fn flag_small_cell_readings(game: &mut Game, cells: &[GameCell], small_page: &[bool]) {
    let small = |c: &GameCell| small_page.get(c.page).copied().unwrap_or(false);
    for m in &mut game.moves {
        let cell = m.cell.and_then(|c| cells.get(c));
        if m.confidence < SMALL_CELLS_SURE
            && cell.is_some_and(|c| small(c) && c.copy.as_deref().is_none_or(small))
        {
            m.flagged = true;
        }
    }
}

/// Re-reads a written cell in the piece letters of its sheet (`own`; `copy` for the other
/// player's cell of the same ply) once decoding has found them: the reader knows every
/// language's letters, and where a hand is unclear it may read a letter of another script
/// (`Фxf6` for `Qxf6` on an English sheet), which no player of the sheet wrote.
fn read_in_letters(cell: &mut GameCell, reading: &CellReading, own: &Language, copy: &Language) {
    match reading {
        CellReading::Read(read) if !cell.text.is_empty() => {
            (cell.text, cell.text_confidence) = read.text_in(own);
        }
        CellReading::BothCopies(mine, theirs) => {
            read_in_letters(cell, mine, own, copy);
            if let Some(copy_cell) = cell.copy.as_deref_mut() {
                read_in_letters(copy_cell, theirs, copy, copy);
            }
        }
        _ => {}
    }
}

/// The cells of one sheet's pages in game order, with their evidence; `first_page` numbers
/// the pages. Read by `reader`, or, where `detect` is a reader of descriptive notation and
/// the first page reads as descriptive ([`reads_as_descriptive`]), by that one; with the
/// notation read in.
fn read_pages<'r>(
    sheets: &[Sheet],
    first_page: usize,
    reader: &'r Reader,
    detect: Option<&'r Reader>,
    options: &ReadOptions,
) -> Result<(PagesRead, SheetsReadWith<'r>), ReadError> {
    let mut pages = Vec::with_capacity(sheets.len());
    let mut in_order = CellsInOrder::default();
    let mut read_with = SheetsReadWith {
        reader,
        notation: Notation::Algebraic,
    };
    for (index, sheet) in sheets.iter().enumerate() {
        let page = first_page + index;
        // Every cell of a page before the last is inside the game.
        let which = if index + 1 < sheets.len() {
            CellsToRead::Every
        } else {
            CellsToRead::ThroughLastInk
        };
        let grey = sheet.grey();
        let (found, mut readings) =
            upright_cells_in(read_with.reader, sheet, &grey, &options.page, which)?;
        if let (0, Some(descriptive)) = (index, detect) {
            if reads_as_descriptive(descriptive, sheet, &grey, &found)? {
                readings = read_found_cells(descriptive, sheet, &grey, &found, which)?;
                read_with = SheetsReadWith {
                    reader: descriptive,
                    notation: Notation::Descriptive,
                };
            }
        }
        let mut by_ply: Vec<(Cell, Option<CtcCell>)> =
            found.cells.iter().cloned().zip(readings).collect();
        by_ply.sort_by_key(|(cell, _)| cell.ply);
        let last_inked_ply = which.last_ply(&found);
        let mut expected_ply = 1;
        // Where Black moves first, the first row's White cell holds no move (it is left empty or
        // dotted): the game begins in the cell beside it.
        if index == 0 && options.start.position.turn() == Color::Black {
            by_ply.retain(|(cell, _)| cell.ply != 1);
            expected_ply = 2;
        }
        for (cell, reading) in by_ply {
            for missing in expected_ply..cell.ply {
                in_order.push_missing(page, missing);
            }
            expected_ply = cell.ply + 1;
            in_order.push_found(
                (page, cell),
                reading,
                last_inked_ply,
                options.evidence_scale,
            );
        }
        pages.push(found);
    }
    let CellsInOrder { cells, evidence } = in_order;
    Ok(((pages, cells, evidence), read_with))
}

/// A game's cells and their evidence as its pages are read, ply after ply.
#[derive(Default)]
struct CellsInOrder {
    cells: Vec<GameCell>,
    evidence: Vec<CellReading>,
}

impl CellsInOrder {
    /// A ply of page `page` the page stage found no cell for: a blank, so that later plies
    /// keep their place.
    fn push_missing(&mut self, page: usize, ply: u32) {
        self.evidence.push(CellReading::Blank(TypedCell::new("")));
        self.cells.push(GameCell::missing(page, ply));
    }

    /// A cell found on page `page` and what was read there (`None`: not read), its evidence
    /// weighed by `evidence_scale`. A cell left unread is a blank, and so is one without ink
    /// of its own unless something was read in it before the game's last inked cell
    /// ([`holds_writing`]).
    fn push_found(
        &mut self,
        (page, cell): (usize, Cell),
        reading: Option<CtcCell>,
        last_inked_ply: Option<u32>,
        evidence_scale: f32,
    ) {
        let written =
            reading.filter(|reading| holds_writing(&cell, reading.text(), last_inked_ply));
        let (text, text_confidence) = match &written {
            Some(reading) => (reading.text().to_string(), reading.text_confidence()),
            None => (String::new(), 0.0),
        };
        self.evidence.push(match written {
            Some(reading) => CellReading::Read(reading.with_scale(evidence_scale)),
            None => CellReading::Blank(TypedCell::new("")),
        });
        self.cells.push(GameCell {
            page,
            cell,
            text,
            text_confidence,
            copy: None,
        });
    }
}

/// The reader a sheet's cells were read with, and the notation it reads.
#[derive(Clone, Copy)]
struct SheetsReadWith<'r> {
    reader: &'r Reader,
    notation: Notation,
}

impl GameRead {
    /// A sentence for the user when the game may not have begun from the usual start
    /// ([`GameRead::start_doubt`]).
    pub fn start_note(&self) -> Option<String> {
        self.start_doubt.map(|flagged| {
            format!(
                "{flagged} of the first {OPENING_PLIES} moves read from the usual start are \
                 doubtful: if the game began elsewhere (Chess960, a set position), read it \
                 again with its start (--start-fen or --chess960; start= or chess960= in a \
                 batch manifest); if this sheet goes on from an earlier one, read the sheets \
                 together, in order (read PAGE1 PAGE2; one manifest line)"
            )
        })
    }

    /// A sentence for the user when the game was read from a Chess960 start found from the
    /// writing ([`GameRead::start_found`]).
    pub fn start_found_note(&self) -> Option<String> {
        self.start_found.map(|number| {
            format!(
                "no start was given and the first moves read as if from another start: read \
                 from Chess960 start {number} ({}), whose game fits the writing far better \
                 than any from the usual start; if the game began elsewhere, read it again \
                 with its start (--start-fen or --chess960, 518 for the usual one; start= or \
                 chess960= in a batch manifest)",
                self.game.start.fen()
            )
        })
    }

    /// The later pages ([`GameRead::later_pages`]) whose first moves fit the game so poorly
    /// that they may not continue the page before them.
    pub fn continuation_doubts(&self) -> impl Iterator<Item = &LaterPageOpening> {
        self.later_pages.iter().filter(|page| page.is_doubtful())
    }

    /// A sentence for the user about each page of [`GameRead::continuation_doubts`].
    pub fn continuation_notes(&self) -> Vec<String> {
        self.continuation_doubts()
            .map(|LaterPageOpening { page, flagged }| {
                format!(
                    "{page}: {flagged} of the first {OPENING_PLIES} moves read from this page \
                     are doubtful: if it does not continue the page before it (another game's \
                     sheet, or the other player's copy), read it as a game of its own or with \
                     --copy"
                )
            })
            .collect()
    }

    /// The pages (of either sheet) on which cells were found but none shows writing: a blank
    /// form (a spare sheet or the back of one, scanned with the rest) or writing too faint
    /// for the page stage to see. Their cells are not read, so a game of such pages alone
    /// has no moves.
    pub fn blank_pages(&self) -> Vec<&str> {
        self.pages
            .iter()
            .chain(&self.copy_pages)
            .filter(|page| !page.cells.is_empty() && page.cells.iter().all(|cell| !cell.ink))
            .map(|page| page.source.as_str())
            .collect()
    }

    /// A sentence for the user about each of [`GameRead::blank_pages`].
    pub fn blank_page_notes(&self) -> Vec<String> {
        self.blank_pages()
            .into_iter()
            .map(|page| {
                format!(
                    "{page}: none of its move cells shows writing: a blank sheet, or writing \
                     too faint to see (a darker scan or photo of it reads better)"
                )
            })
            .collect()
    }

    /// The notes written before the first move of the PGN: a sheet set aside, a doubtful
    /// start, a page that may not continue the game, a page without writing.
    fn pgn_note(&self) -> Option<String> {
        let notes: Vec<String> = self
            .set_aside
            .as_ref()
            .map(SetAside::note)
            .into_iter()
            .chain(self.start_found_note())
            .chain(self.start_note())
            .chain(self.continuation_notes())
            .chain(self.blank_page_notes())
            .collect();
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    /// A sentence for the user when the game was read in descriptive notation: the moves are
    /// reported in algebraic SAN, so a reader of the PGN should know how the sheet wrote them.
    pub fn notation_note(&self) -> Option<String> {
        (self.notation == Notation::Descriptive).then(|| {
            "the sheet is written in English descriptive notation (P-K4, N-KB3); it was read \
             with the reader of descriptive notation and the moves are given in algebraic"
                .to_string()
        })
    }

    /// A sentence for the user about each page that had to be turned to stand upright
    /// ([`Cells::turned_degrees`]): a scan fed the wrong way round, or a photo without its
    /// orientation.
    pub fn turned_page_notes(&self) -> Vec<String> {
        self.pages
            .iter()
            .chain(&self.copy_pages)
            .filter(|page| page.turned_degrees != 0.0)
            .map(|page| {
                format!(
                    "{}: the page was read turned {:.0} degrees clockwise, to stand upright",
                    page.source, page.turned_degrees
                )
            })
            .collect()
    }

    /// A sentence for the user about each page whose cells are under [`SMALL_CELL_HEIGHT`]
    /// pixels high (their median, [`Cells::median_cell_height`]): a page photographed from
    /// afar or scanned at a low resolution, whose moves the reader misreads much more often.
    pub fn small_cell_notes(&self) -> Vec<String> {
        self.pages
            .iter()
            .chain(&self.copy_pages)
            .filter_map(|page| {
                let height = small_cell_height(page)?;
                Some(format!(
                    "{}: the cells are only about {height:.0} pixels high, and cells under \
                     {SMALL_CELL_HEIGHT:.0} pixels are misread several times as often as \
                     larger ones; a photo or scan with the page larger reads better",
                    page.source
                ))
            })
            .collect()
    }

    /// The HTML review page ([`crate::report::html`]); `sheets` and `copy` are the pages this
    /// game was read from, as given to [`read_game`] (a ply only the copy wrote shows there).
    pub fn review_html(&self, sheets: &[Sheet], copy: &[Sheet], tags: &PgnTags) -> String {
        fn review_cell(c: &GameCell) -> ReviewCell {
            ReviewCell {
                page: c.page,
                // Writing run over the border is shown whole, as it was read.
                quad: c.cell.overrun_quad().unwrap_or(c.cell.quad),
                read: c.text.clone(),
                read_confidence: c.text_confidence,
                copy: c.copy.as_deref().map(|copy| Box::new(review_cell(copy))),
            }
        }
        let cells: Vec<ReviewCell> = self.cells.iter().map(review_cell).collect();
        let pages: Vec<ReviewPage> = sheets
            .iter()
            .chain(copy)
            .map(|s| ReviewPage {
                name: &s.name,
                image: &s.image,
            })
            .collect();
        let torn = self.torn_pages.iter().map(|page| torn_page_note(page));
        let notes: Vec<String> = self
            .set_aside
            .iter()
            .map(SetAside::note)
            .chain(self.start_found_note())
            .chain(self.start_note())
            .chain(self.continuation_notes())
            .chain(self.blank_page_notes())
            .chain(torn)
            .chain(self.turned_page_notes())
            .chain(self.small_cell_notes())
            .chain(self.notation_note())
            .collect();
        review_html(&self.game, &cells, &pages, tags, &notes)
    }

    /// Each page of the game's own sheet (`sheets` as given to [`read_game`]) with the page
    /// stage's overlay ([`draw_overlay`]: the page, every cell and its ply) and the cells of
    /// the moves flagged for review outlined again in thick red.
    pub fn overlays(&self, sheets: &[Sheet]) -> Vec<RgbImage> {
        sheets
            .iter()
            .zip(&self.pages)
            .enumerate()
            .map(|(page, (sheet, cells))| {
                let mut image = draw_overlay(sheet, cells);
                let flagged: Vec<Quad> = self
                    .game
                    .moves
                    .iter()
                    .filter(|m| m.flagged)
                    .filter_map(|m| m.cell.and_then(|i| self.cells.get(i)))
                    // Plies the page stage found no cell for have an empty box: nothing to draw.
                    .filter(|c| c.page == page && c.cell.bbox[2] > 0.0)
                    .map(|c| c.cell.quad)
                    .collect();
                mark_cells(&mut image, &flagged, FLAGGED);
                image
            })
            .collect()
    }

    /// The decode JSON contract, plus for every move its cell (`page`, `quad` in that page's
    /// pixels) and what the reader saw there (`read`, `read_confidence`), the same for the
    /// other player's copy of the ply when both sheets wrote it (`copy`), `pages` (each
    /// page's file: the own sheet's, then the copy's), `set_aside` (`null`, or the sheet
    /// left out, `"own"` or `"copy"`, and its `error`), `torn_pages` (the files of pages
    /// cut short, see [`GameRead::torn_pages`]), `blank_pages` (the files of pages without
    /// writing, see [`GameRead::blank_pages`]) and `pages_turned_upright_degrees` (for each
    /// page, how far clockwise it was turned to read it, see [`Cells::turned_degrees`]),
    /// `pages_cell_height_px` (for each page, its cells' median height, `null` without
    /// cells, see [`GameRead::small_cell_notes`]) and `notation` (`"algebraic"` or
    /// `"descriptive"`, see [`GameRead::notation`]).
    pub fn to_json(&self, tags: &PgnTags) -> Value {
        fn describe(entry: &mut Value, cell: &GameCell) {
            entry["page"] = json!(cell.page);
            entry["quad"] = json!(cell
                .cell
                .quad
                .map(|[x, y]| [(x * 10.0).round() / 10.0, (y * 10.0).round() / 10.0]));
            entry["read"] = json!(cell.text);
            entry["read_confidence"] =
                json!((cell.text_confidence as f64 * 1000.0).round() / 1000.0);
        }
        let note = self.pgn_note();
        let mut json = to_json_with_note(&self.game, tags, note.as_deref());
        if let Some(Value::Array(moves)) = json.get_mut("moves") {
            for (entry, m) in moves.iter_mut().zip(&self.game.moves) {
                let Some(cell) = m.cell.and_then(|i| self.cells.get(i)) else {
                    continue;
                };
                describe(entry, cell);
                if let Some(copy) = &cell.copy {
                    entry["copy"] = json!({});
                    describe(&mut entry["copy"], copy);
                }
            }
        }
        json["pages"] = json!(self
            .pages
            .iter()
            .chain(&self.copy_pages)
            .map(|p| p.source.clone())
            .collect::<Vec<_>>());
        json["set_aside"] = match &self.set_aside {
            Some(set_aside) => json!({
                "sheet": set_aside.sheet.name(),
                "error": set_aside.error.to_string(),
            }),
            None => Value::Null,
        };
        json["torn_pages"] = json!(self.torn_pages);
        json["blank_pages"] = json!(self.blank_pages());
        json["start_doubt"] = json!(self.start_note());
        json["start_found"] = json!(self.start_found_note());
        json["continuation_doubts"] = json!(self.continuation_notes());
        json["pages_turned_upright_degrees"] = json!(self
            .pages
            .iter()
            .chain(&self.copy_pages)
            .map(|p| (f64::from(p.turned_degrees) * 10.0).round() / 10.0)
            .collect::<Vec<_>>());
        json["pages_cell_height_px"] = json!(self
            .pages
            .iter()
            .chain(&self.copy_pages)
            .map(|p| p
                .median_cell_height()
                .map(|h| (f64::from(h) * 10.0).round() / 10.0))
            .collect::<Vec<_>>());
        json["notation"] = json!(self.notation.name());
        json
    }

    /// The game as PGN ([`to_pgn_with_note`]), noting a sheet set aside or a doubtful start
    /// before the first move.
    pub fn to_pgn(&self, tags: &PgnTags) -> String {
        let note = self.pgn_note();
        to_pgn_with_note(&self.game, tags, note.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::decode::decode;
    use crate::recognize::evidence::tests::read_as;
    use crate::recognize::{Charset, Posteriors};

    #[test]
    fn a_page_is_descriptive_where_its_sample_reads_so_and_names_few_squares() {
        // The least descriptive of the generated descriptive sheets.
        assert!(sample_is_descriptive(11, 0, 21));
        // A descriptive reader's slips into algebraic squares on a few cells.
        assert!(sample_is_descriptive(12, 4, 24));
        // A Russian writer of long algebraic, `Kf3xd4` half read as `KB8-Q6`.
        assert!(!sample_is_descriptive(8, 10, 20));
        // Too few cells say descriptive, or too few to tell.
        assert!(!sample_is_descriptive(5, 0, 24));
        assert!(!sample_is_descriptive(2, 0, 4));
        assert!(!sample_is_descriptive(0, 0, 0));
    }

    #[test]
    fn a_faint_cell_the_reader_reads_is_written_inside_the_game_only() {
        let cell = |ply: u32, ink: bool| Cell {
            ply,
            quad: [[0.0; 2]; 4],
            bbox: [0.0; 4],
            ink,
            ink_share: if ink { 0.05 } else { 0.004 },
            overrun: 0.0,
        };
        // The page stage's ink verdict stands, read or not.
        assert!(holds_writing(&cell(7, true), "Nf3", Some(40)));
        assert!(holds_writing(&cell(7, true), "", Some(40)));
        // Too faint for the page stage, but read, before the last inked cell.
        assert!(holds_writing(&cell(7, false), "Nf3", Some(40)));
        // Nothing read: a blank.
        assert!(!holds_writing(&cell(7, false), "", Some(40)));
        // After the last inked cell, or on a page without ink, a reading is a guess.
        assert!(!holds_writing(&cell(41, false), "e4", Some(40)));
        assert!(!holds_writing(&cell(40, false), "e4", Some(40)));
        assert!(!holds_writing(&cell(3, false), "e4", None));
    }

    #[test]
    fn a_move_read_from_a_faint_cell_is_flagged_unless_all_but_sure() {
        let read = reader();
        let texts = ["e4", "e5", "Nf3", "Nc6"];
        let evidence: Vec<CellReading> = texts.iter().map(|t| read(t)).collect();
        let decoded = decode_from_start(&evidence);
        assert!(decoded.moves.iter().all(|m| !m.flagged));
        let mut game = decoded.clone();
        let mut cells = game_cells(&texts, 0);
        // The page stage called the third cell empty; the reader read it.
        cells[2].cell.ink = false;
        game.moves[2].confidence = 0.99;
        flag_faint_readings(&mut game, &cells);
        let flagged: Vec<bool> = game.moves.iter().map(|m| m.flagged).collect();
        assert_eq!(flagged, [false, false, true, false]);
        assert_eq!(game.moves[2].san, "Nf3");
        // A faint move the decoder is all but sure of stands unflagged.
        let mut sure = decoded.clone();
        sure.moves[2].confidence = FAINT_SURE;
        flag_faint_readings(&mut sure, &cells);
        assert!(sure.moves.iter().all(|m| !m.flagged));
        // Where the other player's copy shows the move in ink, it is sure.
        let mut game = decoded;
        game.moves[2].confidence = 0.99;
        cells[2].copy = Some(Box::new(game_cell(1, 3, "Nf3")));
        flag_faint_readings(&mut game, &cells);
        assert!(game.moves.iter().all(|m| !m.flagged));
    }

    #[test]
    fn a_move_read_from_a_page_photographed_small_is_flagged_unless_sure() {
        let read = reader();
        let texts = ["e4", "e5", "Nf3", "Nc6"];
        let evidence: Vec<CellReading> = texts.iter().map(|t| read(t)).collect();
        let mut decoded = decode_from_start(&evidence);
        assert!(decoded.moves.iter().all(|m| !m.flagged));
        decoded.moves[1].confidence = SMALL_CELLS_SURE - 0.01;
        decoded.moves[2].confidence = SMALL_CELLS_SURE - 0.05;
        decoded.moves[3].confidence = SMALL_CELLS_SURE;
        let mut cells = game_cells(&texts, 0);
        let flagged_on = |small_page: &[bool], cells: &[GameCell]| -> Vec<bool> {
            let mut game = decoded.clone();
            flag_small_cell_readings(&mut game, cells, small_page);
            game.moves.iter().map(|m| m.flagged).collect()
        };
        // A page read well: nothing more to review.
        assert_eq!(flagged_on(&[false], &cells), [false; 4]);
        // A page photographed small: the moves under SMALL_CELLS_SURE.
        assert_eq!(flagged_on(&[true], &cells), [false, true, true, false]);
        // Where the other player's copy (page 1) was photographed well, it vouches for them.
        cells[2].copy = Some(Box::new(game_cell(1, 3, "Nf3")));
        assert_eq!(
            flagged_on(&[true, false], &cells),
            [false, true, false, false]
        );
        assert_eq!(
            flagged_on(&[true, true], &cells),
            [false, true, true, false]
        );
    }

    /// The moves of the copy tests' game.
    const EXCHANGE_RUY_LOPEZ: [&str; 14] = [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "O-O", "Qd6", "d4", "exd4", "Nxd4",
        "c5",
    ];

    /// Reads a text as a model sure of it at 0.8, in English and German letters.
    fn reader() -> impl Fn(&str) -> CellReading {
        let chars: Vec<char> = "abcdefgh12345678KQRBNDSLTxO-+#=".chars().collect();
        let charset = Arc::new(Charset::new(&chars).unwrap());
        move |t: &str| CellReading::Read(CtcCell::new(read_as(&charset, t, 0.8)))
    }

    /// The game `cells` read as, from the usual start in any language, as the decoder reads
    /// typed text.
    fn decode_from_start(cells: &[CellReading]) -> Game {
        decode(
            cells,
            &StartPosition::standard(),
            LanguageChoice::Auto,
            &DecoderConfig::default(),
        )
    }

    fn decode_cells(cells: &[CellReading]) -> Vec<String> {
        let game = decode_from_start(cells);
        game.moves.into_iter().map(|m| m.san).collect()
    }

    #[test]
    fn a_chess960_game_read_from_the_usual_start_is_doubted_and_from_its_own_it_is_not() {
        let read = reader();
        let english = LanguageChoice::Fixed(Language::by_code("en").unwrap());
        let config = DecoderConfig::for_handwriting();
        let usual = StartPosition::standard();
        // Chess960 start 0, bbqnnrkr: the bishops of a1 and a8 take on the long diagonals.
        let own = StartPosition::chess960(0).unwrap();
        let moves = [
            "b3", "b6", "Bxg7", "Bxg2", "Bxf8", "Kxf8", "Kxg2", "Nc6", "Ne3", "Nf6", "c4", "e5",
        ];
        let evidence: Vec<CellReading> = moves.iter().map(|m| read(m)).collect();
        let cells_read_as = |confidence: f32| -> Vec<GameCell> {
            let cell = |(i, m): (usize, &&str)| GameCell {
                text_confidence: confidence,
                ..game_cell(0, i as u32 + 1, m)
            };
            moves.iter().enumerate().map(cell).collect()
        };
        let (sure, unsure) = (cells_read_as(0.8), cells_read_as(0.05));
        let from_own = decode(&evidence, &own, english, &config);
        let sans: Vec<&str> = from_own.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, moves);
        assert_eq!(doubted_start(&from_own, &sure, &own), None);
        let from_usual = decode(&evidence, &usual, english, &config);
        let doubt = doubted_start(&from_usual, &sure, &usual);
        assert!(
            doubt.is_some_and(|flagged| flagged >= OPENING_DOUBT_FLAGS),
            "{doubt:?}"
        );
        // A hand the reader could hardly read fits no start: it says nothing of the start.
        assert_eq!(doubted_start(&from_usual, &unsure, &usual), None);
        // Half the opening's moves read from cells read with some confidence are enough.
        let opening_cells: Vec<usize> = from_usual
            .moves
            .iter()
            .take(OPENING_PLIES)
            .filter_map(|m| m.cell)
            .collect();
        let read_surely_in = |count: usize| -> Vec<GameCell> {
            let mut cells = unsure.clone();
            for &c in opening_cells.iter().take(count) {
                cells[c] = sure[c].clone();
            }
            cells
        };
        let half = read_surely_in(OPENING_PLIES / 2);
        assert_eq!(doubted_start(&from_usual, &half, &usual), doubt);
        let fewer = read_surely_in(OPENING_PLIES / 2 - 1);
        assert_eq!(doubted_start(&from_usual, &fewer, &usual), None);
        // A game from the usual start is not doubted.
        let ruy: Vec<CellReading> = EXCHANGE_RUY_LOPEZ.iter().map(|m| read(m)).collect();
        let ruy_cells: Vec<GameCell> = EXCHANGE_RUY_LOPEZ
            .iter()
            .enumerate()
            .map(|(i, m)| game_cell(0, i as u32 + 1, m))
            .collect();
        let game = decode(&ruy, &usual, english, &config);
        assert_eq!(doubted_start(&game, &ruy_cells, &usual), None);
    }

    #[test]
    fn a_later_page_counts_its_first_moves_flagged_where_surely_read() {
        let read = reader();
        // 14 moves: 2 on the own sheet's first page, the rest on its second; the copy's
        // second page holds the last 13, each beside the own sheet's cell.
        let evidence: Vec<CellReading> = EXCHANGE_RUY_LOPEZ.iter().map(|m| read(m)).collect();
        let mut game = decode_from_start(&evidence);
        let mut cells: Vec<GameCell> = EXCHANGE_RUY_LOPEZ
            .iter()
            .enumerate()
            .map(|(i, m)| game_cell(usize::from(i >= 2), i as u32 + 1, m))
            .collect();
        for (i, cell) in cells.iter_mut().enumerate().skip(1) {
            cell.copy = Some(Box::new(game_cell(3, i as u32 + 1, EXCHANGE_RUY_LOPEZ[i])));
        }
        let page = |name: &str| Cells {
            source: name.into(),
            ..unread_page(&Sheet::from_image(
                name,
                image::DynamicImage::new_luma8(8, 8),
            ))
        };
        let (pages, copy_pages) = (
            [page("own-1"), page("own-2")],
            [page("copy-1"), page("copy-2")],
        );
        let openings = |game: &Game, cells: &[GameCell]| -> Vec<(String, usize)> {
            later_page_openings(game, cells, &pages, &copy_pages)
                .into_iter()
                .map(|p| (p.page, p.flagged))
                .collect()
        };
        let counted = |own: usize, copy: usize| {
            vec![("own-2".to_string(), own), ("copy-2".to_string(), copy)]
        };
        assert_eq!(openings(&game, &cells), counted(0, 0));

        // Five flagged moves on the own second page, whose twelve moves are plies 3-14; the
        // last, ply 14, is the copy's thirteenth, past its first twelve (plies 2-13).
        for ply in [3, 5, 8, 13, 14] {
            game.moves[ply - 1].flagged = true;
        }
        assert_eq!(openings(&game, &cells), counted(5, 4));
        // A cell the reader could hardly read does not count against its page.
        cells[2].text_confidence = OPENING_SURE_READING / 2.0;
        cells[2].copy.as_mut().unwrap().text_confidence = OPENING_SURE_READING / 2.0;
        assert_eq!(openings(&game, &cells), counted(4, 3));
        // The first pages are never counted; at OPENING_DOUBT_FLAGS a page is doubtful.
        let doubtful = |flagged| {
            LaterPageOpening {
                page: "p".into(),
                flagged,
            }
            .is_doubtful()
        };
        assert!(!doubtful(OPENING_DOUBT_FLAGS - 1) && doubtful(OPENING_DOUBT_FLAGS));
    }

    #[test]
    fn cells_are_reported_in_the_letters_of_the_language_decoded() {
        let chars: Vec<char> = "abcdefgh12345678KQRBNDSLTxO-+#=".chars().collect();
        let charset = Arc::new(Charset::new(&chars).unwrap());
        // The queen of "Qd6" reads a little more like a German D (0.5) than a Q (0.4).
        let frame = |choices: &[(char, f32)]| -> Vec<f32> {
            let rest = (1.0 - choices.iter().map(|c| c.1).sum::<f32>()) / chars.len() as f32;
            (0..charset.classes())
                .map(|class| {
                    let c = charset.char(class);
                    choices
                        .iter()
                        .find(|(want, _)| Some(*want) == c)
                        .map_or(rest, |(_, p)| *p)
                        .ln()
                })
                .collect()
        };
        let blank: Vec<f32> = (0..charset.classes())
            .map(|class| {
                if class == 0 {
                    0.9f32
                } else {
                    0.1 / chars.len() as f32
                }
                .ln()
            })
            .collect();
        let mut logs = blank.clone();
        for choices in [&[('D', 0.5), ('Q', 0.4)][..], &[('d', 0.9)], &[('6', 0.9)]] {
            logs.extend(frame(choices));
            logs.extend(frame(choices));
            logs.extend(&blank);
        }
        let queen = CtcCell::new(Posteriors::new(Arc::clone(&charset), logs).unwrap());
        assert_eq!(queen.text(), "Dd6");

        let read = reader();
        let mut evidence: Vec<CellReading> = EXCHANGE_RUY_LOPEZ.iter().map(|t| read(t)).collect();
        evidence[9] = CellReading::Read(queen);
        let mut texts = EXCHANGE_RUY_LOPEZ.to_vec();
        texts[9] = "Dd6";
        let mut cells = game_cells(&texts, 0);
        let game = decode_from_start(&evidence);
        assert_eq!(game.language.code, "en");
        for (cell, reading) in cells.iter_mut().zip(&evidence) {
            read_in_letters(cell, reading, game.language, game.language);
        }
        let reported: Vec<&str> = cells.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(reported, EXCHANGE_RUY_LOPEZ);
        // Its confidence is the reported text's, below the raw reading's.
        let CellReading::Read(queen) = &evidence[9] else {
            unreachable!("set above")
        };
        let reported_likelihood = queen.posteriors().log_likelihood(&['Q', 'd', '6']).exp();
        assert!((cells[9].text_confidence - reported_likelihood).abs() < 1e-6);
        assert!(cells[9].text_confidence < queen.text_confidence());
        // Read as German, the same cell keeps its D.
        let german = Language::by_code("de").unwrap();
        read_in_letters(&mut cells[9], &evidence[9], german, german);
        assert_eq!(cells[9].text, "Dd6");
    }

    /// Cells of `page` holding `texts`, one per ply from the first.
    fn game_cells(texts: &[&str], page: usize) -> Vec<GameCell> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| game_cell(page, i as u32 + 1, t))
            .collect()
    }

    /// `truth` with cell `at` reading `text` instead.
    fn with_cell<'a>(truth: &[&'a str], at: usize, text: &'a str) -> Vec<&'a str> {
        let mut cells = truth.to_vec();
        cells[at] = text;
        cells
    }

    #[test]
    fn the_other_copy_decides_where_one_sheet_is_unreadable() {
        let read = reader();
        let truth = ["e4", "e5", "Nf3", "d6", "h3", "Nf6", "Nc3", "Be7"];
        // The own sheet's fifth cell is blank (or unreadable); the copy misreads another.
        let own = with_cell(&truth, 4, "");
        let copy = with_cell(&truth, 2, "Nf8");
        let alone: Vec<CellReading> = own.iter().map(|t| read(t)).collect();
        assert_ne!(
            decode_cells(&alone)[4],
            "h3",
            "the prior alone guesses another move"
        );
        let fused: Vec<CellReading> = own
            .iter()
            .zip(&copy)
            .map(|(a, b)| CellReading::BothCopies(Box::new(read(a)), Box::new(read(b))))
            .collect();
        assert_eq!(decode_cells(&fused), truth);
        // Both readable: the likelihoods multiply; one blank: the other alone counts.
        let both = CellReading::BothCopies(Box::new(read("e4")), Box::new(read("e4")));
        let single = read("e4");
        let e4: Vec<char> = "e4".chars().collect();
        let (fused_ll, single_ll) = (
            both.log_likelihood(&e4, "", f32::NEG_INFINITY),
            single.log_likelihood(&e4, "", f32::NEG_INFINITY),
        );
        assert!(
            (fused_ll - 2.0 * single_ll).abs() < 1e-3,
            "{fused_ll} vs {single_ll}"
        );
        let half = CellReading::BothCopies(Box::new(read("")), Box::new(read("e4")));
        assert_eq!(half.log_likelihood(&e4, "", f32::NEG_INFINITY), single_ll);
        assert_eq!(half.text(), "e4");
        assert!(!half.is_illegible());
        let none = CellReading::BothCopies(Box::new(read("")), Box::new(read("")));
        assert!(none.is_illegible());
    }

    fn game_cell(page: usize, ply: u32, text: &str) -> GameCell {
        let mut cell = GameCell::missing(page, ply);
        cell.cell.ink = !text.is_empty();
        cell.text = text.to_string();
        cell.text_confidence = 1.0;
        cell
    }

    #[test]
    fn a_move_one_player_skipped_does_not_shift_the_other_copy() {
        let read = reader();
        let truth = EXCHANGE_RUY_LOPEZ;
        // The own sheet's tenth cell is blank: the prior alone guesses the main line's 5...f6.
        let own = with_cell(&truth, 9, "");
        let alone: Vec<CellReading> = own.iter().map(|t| read(t)).collect();
        assert_ne!(
            decode_cells(&alone)[9],
            "Qd6",
            "the own sheet alone cannot tell"
        );
        // The other player never wrote 2...Nc6: every later cell of the copy is one ply early.
        let copy: Vec<&str> = truth
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != 3)
            .map(|(_, t)| *t)
            .collect();
        let zipped: Vec<CellReading> = own
            .iter()
            .zip(&copy)
            .map(|(a, b)| CellReading::BothCopies(Box::new(read(a)), Box::new(read(b))))
            .collect();
        assert_ne!(
            decode_cells(&zipped),
            truth,
            "ply for ply the copies disagree"
        );

        let (cells, evidence, _) = fuse_copies(
            game_cells(&own, 0),
            own.iter().map(|t| read(t)).collect(),
            game_cells(&copy, 1),
            copy.iter().map(|t| read(t)).collect(),
            &ReadOptions::default(),
            &PriorMemo::default(),
        );
        assert_eq!(cells.len(), evidence.len());
        assert_eq!(decode_cells(&evidence), truth);
        // Every ply keeps the own sheet's cell, and the blank one is fused with the copy's.
        assert!(cells.iter().all(|c| c.page == 0));
        assert_eq!(evidence[9].text(), "Qd6");
        assert!(matches!(evidence[9], CellReading::BothCopies(..)));
    }

    #[test]
    fn each_copy_is_read_in_its_own_writers_habits() {
        let read = reader();
        let truth = EXCHANGE_RUY_LOPEZ;
        // One player writes short algebraic, the other long.
        let long = [
            "e2-e4", "e7-e5", "Ng1-f3", "Nb8-c6", "Bf1-b5", "a7-a6", "Bb5xc6", "d7xc6", "O-O",
            "Qd8-d6", "d2-d4", "e5xd4", "Nf3xd4", "c6-c5",
        ];
        let fused: Vec<CellReading> = truth
            .iter()
            .zip(&long)
            .map(|(own, copy)| CellReading::BothCopies(Box::new(read(own)), Box::new(read(copy))))
            .collect();
        let game = decode_from_start(&fused);
        let sans: Vec<&str> = game.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, truth);
        let doubted: Vec<&str> = game
            .moves
            .iter()
            .filter(|m| m.flagged)
            .map(|m| m.san.as_str())
            .collect();
        assert!(doubted.is_empty(), "both copies agree, yet {doubted:?}");
    }

    #[test]
    fn a_copy_in_other_piece_letters_is_read_in_its_own() {
        let read = reader();
        let truth = EXCHANGE_RUY_LOPEZ;
        // The own sheet, in English, has a blank tenth cell; the other player writes German.
        let own = with_cell(&truth, 9, "");
        let german = [
            "e4", "e5", "Sf3", "Sc6", "Lb5", "a6", "Lxc6", "dxc6", "O-O", "Dd6", "d4", "exd4",
            "Sxd4", "c5",
        ];
        let (_, evidence, aligned) = fuse_copies(
            game_cells(&own, 0),
            own.iter().map(|t| read(t)).collect(),
            game_cells(&german, 1),
            german.iter().map(|t| read(t)).collect(),
            &ReadOptions::default(),
            &PriorMemo::default(),
        );
        let copy_language = aligned
            .copy_language
            .expect("the copy is read as surely as the sheet");
        assert_eq!(copy_language.code, "de");
        let english = LanguageChoice::Fixed(Language::by_code("en").unwrap());
        let decoded = |config: &DecoderConfig| -> Vec<String> {
            decode(&evidence, &StartPosition::standard(), english, config)
                .moves
                .into_iter()
                .map(|m| m.san)
                .collect()
        };
        assert_ne!(
            decoded(&DecoderConfig::default()),
            truth,
            "read in English letters, the German Dd6 says nothing"
        );
        let in_german = DecoderConfig {
            copy_language: Some(copy_language),
            ..DecoderConfig::default()
        };
        assert_eq!(decoded(&in_german), truth);
    }
}
