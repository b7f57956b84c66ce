//! From what each cell of a scoresheet says to the legal game most consistent with it.
//!
//! [`decode`] runs a beam search over legal games (`lattice`): every legal move in every
//! kept position is scored by its written forms ([`crate::notation`]) against the cell's
//! [`CellEvidence`], plus a [`MovePrior`]; hypotheses may also explain a cell as a slip (a move
//! the player skipped, a junk cell, two cells swapped). Forward–backward over the searched
//! lattice turns the scores into each move's posterior, its confidence.

mod book;
mod calibration;
mod channel;
mod config;
mod copies;
mod evidence;
mod lattice;
mod prior;
mod transcript;
mod tree;

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;

use shakmaty::{san::SanPlus, uci::UciMove, Chess, Outcome, Position};

pub use book::{Opening, OpeningBook};
pub use calibration::{Calibration, CalibrationBin, CALIBRATION_BINS};
pub use channel::{Channel, ChannelCosts};
pub use config::{DecoderConfig, SlipCosts};
pub use copies::{
    align_along, align_copies, decode_both_sheets, fuse_copies, CopiesAligned, FusedCell,
    OnBothSheets, SheetsDiffer, Source, WhichSheet, SHEETS_DIFFER_NATS,
};
pub(crate) use copies::{fused_in_order, left_out_handicap, likelier_again};
pub use evidence::{CellEvidence, TypedCell, MISWRITTEN_CELL_LOG_PROB, RANDOM_CHAR_LOG_LIKELIHOOD};
pub use lattice::{PriorMemo, SearchLoss, StepKind};
pub use prior::{
    fit_prior, mean_log_likelihood, MovePrior, ATTACK_FEATURES,
    FEATURE_NAMES as PRIOR_FEATURE_NAMES,
};
pub use transcript::{Transcript, TranscriptError};
pub use tree::{OpeningTree, TREE_MIN_GAMES, TREE_MIN_MOVE, TREE_PLIES};

use crate::notation::{distinct_languages, looks_descriptive, Language, Style};
use crate::start::StartPosition;
use lattice::{Lattice, SearchInputs, Step};

/// No chess position has more legal moves than this.
const MAX_LEGAL_MOVES: usize = 218;

/// Which language the sheet is written in.
#[derive(Debug, Clone, Copy)]
pub enum LanguageChoice {
    /// Decided by the evidence among every language [`crate::notation`] knows.
    Auto,
    Fixed(&'static Language),
}

/// Another reading of a ply, with its posterior.
#[derive(Debug, Clone, PartialEq)]
pub struct Alternative {
    pub san: String,
    pub confidence: f32,
    /// Where the move starts, when its SAN is the chosen move's own (another piece of the
    /// same kind going to the same square in another reading of the game, so `Rc8` is both).
    pub from: Option<String>,
}

impl Alternative {
    /// The SAN, with the starting square where it alone would read as the chosen move:
    /// `Rc8 from f8`.
    pub fn label(&self) -> String {
        match &self.from {
            Some(from) => format!("{} from {from}", self.san),
            None => self.san.clone(),
        }
    }
}

/// One move of the decoded game.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedMove {
    /// 1 for White's first move from the start position.
    pub ply: usize,
    /// Standard English SAN.
    pub san: String,
    pub uci: String,
    /// Index of the cell the move was read from; `None` if the player did not write it.
    pub cell: Option<usize>,
    /// The cell's text as read.
    pub written: Option<String>,
    /// Posterior probability that this is the move played at this ply.
    pub confidence: f32,
    pub alternatives: Vec<Alternative>,
    /// Needs an arbiter's look: low confidence, a slip, an unreadable cell, or a cell that
    /// does not read as the move (`written_fits`).
    pub flagged: bool,
    /// What was read in the move's cell fits the move (a log-likelihood of at least
    /// `DecoderConfig::flag_fit_below` a reading); false where the player wrote another move
    /// than the one played, or the cell was misread. True for a move the player did not write.
    pub written_fits: bool,
    /// What the other player's sheet shows in the same ply's cell, where the cell fuses both
    /// players' sheets (`read --copy`, `decode --copy`); `written` is then the own sheet's.
    pub written_copy: Option<String>,
    /// Where the move was read from both players' sheets and one of them reads as another
    /// legal move: that sheet and move (the move is then flagged).
    pub sheets_differ: Option<SheetsDiffer>,
    /// Another legal move of the same piece to the same square that the cell reads as just as
    /// well (`Td1` where both rooks may go) and after which the rest of the game can still be
    /// played, in standard English SAN: the record does not say which piece moved (the move is
    /// then flagged; see [`mark_written_alike`]).
    pub written_alike: Option<String>,
    /// Most moves around this one are flagged (see [`mark_doubtful_stretches`]): the game may
    /// have taken a wrong turn there, and this move with it (the move is then flagged).
    pub in_doubtful_stretch: bool,
    pub kind: StepKind,
    /// The player wrote `(=)` with this move.
    pub draw_offer: bool,
}

/// How the decoded game ends on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndState {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    /// The game goes on from the final position (resigned, agreed drawn, or unfinished).
    Ongoing,
}

/// The legal game most consistent with a scoresheet.
#[derive(Debug, Clone)]
pub struct Game {
    pub start: StartPosition,
    pub language: &'static Language,
    pub moves: Vec<DecodedMove>,
    pub end: EndState,
    /// `1-0`, `0-1`, `1/2-1/2` when the board decides it, else `*`.
    pub result: String,
    /// Cells no move was read from (junk cells, or cells beyond the last legal move).
    pub unused_cells: Vec<usize>,
    /// Log-score of the chosen game (nats), comparable between decodes of the same cells.
    pub score: f32,
    /// The named opening the game follows (standard starts only).
    pub opening: Option<Opening>,
}

impl Game {
    /// Moves a reviewer should look at.
    pub fn flagged(&self) -> impl Iterator<Item = &DecodedMove> {
        self.moves.iter().filter(|m| m.flagged)
    }

    /// The moves, replayed from the start position.
    pub fn played_moves(&self) -> Vec<shakmaty::Move> {
        let mut position = self.start.position.clone();
        let mut moves = Vec::with_capacity(self.moves.len());
        for m in &self.moves {
            let Some(played) = m
                .uci
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(&position).ok())
            else {
                break;
            };
            position.play_unchecked(played);
            moves.push(played);
        }
        moves
    }
}

/// Decodes cells (in ply order) into the likeliest legal game from `start`.
pub fn decode<E: CellEvidence>(
    cells: &[E],
    start: &StartPosition,
    language: LanguageChoice,
    config: &DecoderConfig,
) -> Game {
    let mut game = decode_remembering(cells, start, language, config, &PriorMemo::default());
    mark_written_alike(&mut game, cells, config);
    mark_doubtful_stretches(&mut game, config);
    game
}

/// [`decode`], finding the move priors of positions already expanded in `priors` and keeping
/// those it works out there: the decodings of one game (again after writer adaptation, or
/// the other player's copy) expand mostly the same positions. The game found is the same as
/// [`decode`]'s, without the review step [`decode`] ends with ([`mark_written_alike`]: its
/// callers flag once they have the game they keep); the memo grows by a few megabytes a game.
pub fn decode_remembering<E: CellEvidence>(
    cells: &[E],
    start: &StartPosition,
    language: LanguageChoice,
    config: &DecoderConfig,
    priors: &PriorMemo,
) -> Game {
    let (cells, adapted) = adapted_to(cells, config);
    let config = &adapted;
    let lang = match language {
        LanguageChoice::Fixed(lang) => lang,
        LanguageChoice::Auto => return decode_any_language(cells, start, config, priors),
    };
    let inputs = SearchInputs::new(cells, &start.position, lang, config, priors);
    let lattice = lattice::search(inputs, None).expect("a search without a rival runs to the end");
    let lattice = lattice::rescued(lattice, inputs);
    game_from_lattice(&lattice, cells, start, lang, config)
}

/// How well the first `cells_read` of `cells` read from each of `starts` in `lang`: the score
/// (log-likelihood) of the likeliest game a search with `config` finds from each, in order,
/// without the rescues [`decode`] adds; negative infinity where no game reads to the end. The
/// writer's habits are those all of `cells` show, as [`decode`] takes them. For telling which
/// start a game was played from: the starts are searched side by side, a few dozen of them
/// sharing what they score.
pub fn scores_from_starts<E: CellEvidence>(
    cells: &[E],
    cells_read: usize,
    starts: &[Chess],
    lang: &Language,
    config: &DecoderConfig,
) -> Vec<f32> {
    let (cells, adapted) = adapted_to(cells, config);
    let read = &cells[..cells_read.min(cells.len())];
    lattice::best_scores_from(starts, read, lang, &adapted)
}

/// Sharpens `base` to the habits a sheet's cells show: a writer keeps to one capture mark, one
/// castling digit or letter, short or long algebraic. Habits seen in at least three cells with
/// no sign of the alternative become the expected form; the alternatives stay possible.
pub fn style_of_sheet<E: CellEvidence>(cells: &[E], base: &Style) -> Style {
    style_of_texts(cells.iter().map(|c| c.text()), base)
}

/// [`style_of_sheet`] from the texts read in a sheet's cells.
fn style_of_texts<'t>(read: impl Iterator<Item = &'t str>, base: &Style) -> Style {
    let texts: Vec<Vec<char>> = read
        .map(|text| text.chars().filter(|c| !c.is_whitespace()).collect())
        .collect();
    let count = |pred: &dyn Fn(&[char]) -> bool| texts.iter().filter(|t| pred(t)).count();
    let colons = count(&|t| t.contains(&':'));
    let crosses = count(&|t| t.contains(&'x') || t.contains(&'×'));
    let is_square = |a: char, b: char| ('a'..='h').contains(&a) && ('1'..='8').contains(&b);
    let long = count(&|t| {
        t.windows(4)
            .any(|w| is_square(w[0], w[1]) && is_square(w[2], w[3]))
            || t.windows(5).any(|w| {
                is_square(w[0], w[1]) && matches!(w[2], '-' | 'x' | ':') && is_square(w[3], w[4])
            })
    });
    let zeros = count(&|t| t.starts_with(&['0', '-', '0']));
    let letters = count(&|t| t.starts_with(&['O', '-', 'O']));
    let check_ch = count(&|t| t.ends_with(&['c', 'h']));
    let checks = count(&|t| t.ends_with(&['+'])) + check_ch;
    let descriptive = count(&|t| looks_descriptive(t));
    let knights_kt = count(&|t| t.windows(2).any(|w| w == ['K', 't']));
    let mut style = base.clone();
    let settled = |seen: usize, against: usize| seen >= 3 && against == 0;
    let usual = (0.9f32).ln();
    let rare = (0.02f32).ln();
    if settled(colons, crosses) {
        style.capture_colon = usual;
    } else if settled(crosses, colons) {
        style.capture_colon = rare;
    }
    if settled(long, 0) && long * 2 > texts.len() {
        style.long_dash = usual;
        style.long_plain = (0.3f32).ln();
    } else if long == 0 && texts.len() >= 10 {
        style.long_dash = rare;
        style.long_plain = rare;
    }
    if settled(zeros, letters) {
        style.castle_digit_zero = usual;
        style.castle_letter_o = rare;
    } else if settled(letters, zeros) {
        style.castle_letter_o = usual;
        style.castle_digit_zero = rare;
    }
    // Descriptive habits (`RxR`, `axB`, `Rxh+`): a writer who names the piece taken, or the
    // file alone, does it capture after capture, and captures are a fifth of the cells.
    let is_file = |c: char| ('a'..='h').contains(&c);
    let named_taken = count(&|t| {
        t.len() >= 3 && (t[0].is_uppercase() || is_file(t[0])) && t[1] == 'x' && t[2].is_uppercase()
    });
    let file_only = count(&|t| {
        let body = t
            .strip_suffix(&['+'])
            .or_else(|| t.strip_suffix(&['#']))
            .unwrap_or(t);
        body.len() == 3 && body[0].is_uppercase() && body[1] == 'x' && is_file(body[2])
    });
    if named_taken >= 2 {
        style.capture_piece_named = (0.3f32).ln();
    }
    if file_only >= 2 {
        style.capture_file_only = (0.1f32).ln();
    }
    if descriptive >= 3 && descriptive * 4 >= texts.len() {
        // `P-K4`, `N-KB3`: an English or American sheet from before algebraic notation.
        style.descriptive = 0.0;
        style.check_ch = if check_ch > 0 { usual } else { rare };
        if knights_kt >= 2 {
            // A writer of `Kt` writes it for every knight, in its squares' names too.
            style.descriptive_kt = 0.0;
        }
    } else if check_ch >= 2 {
        style.check_ch = (0.5f32).ln();
    }
    if checks == 0 && texts.len() >= 30 {
        // A writer who never marks a check.
        style.check_marked = (0.2f32).ln();
        style.check_unmarked = (0.8f32).ln();
        style.mate_unmarked = (0.4f32).ln();
    }
    style
}

fn trim_trailing_blanks<E: CellEvidence>(cells: &[E]) -> &[E] {
    let keep = cells
        .iter()
        .rposition(|c| !(c.is_illegible() && c.text().trim().is_empty()))
        .map_or(0, |i| i + 1);
    &cells[..keep]
}

/// Shortlists languages by the piece letters the cells begin with, then decodes the finalists
/// in full and keeps the best-scoring game.
fn decode_any_language<E: CellEvidence>(
    cells: &[E],
    start: &StartPosition,
    config: &DecoderConfig,
    priors: &PriorMemo,
) -> Game {
    let finalists = finalist_languages(cells, config);
    let inputs = |lang| SearchInputs::new(cells, &start.position, lang, config, priors);
    let mut decoded: Vec<(Lattice, &'static Language)> = Vec::new();
    let mut rival: Option<(f32, Vec<f32>)> = None;
    for lang in finalists {
        let layers = rival.as_ref().map(|(_, layers)| layers.as_slice());
        let Some(lattice) = lattice::search(inputs(lang), layers) else {
            continue;
        };
        let score = lattice.best_score();
        if rival.as_ref().is_none_or(|(best, _)| score > *best) {
            rival = Some((score, lattice.layer_bests(cells.len())));
        }
        decoded.push((lattice, lang));
    }
    // The leader after the first search, then every finalist close behind it: a rescue can
    // turn the order (an Armenian sheet read first as Finnish, 7 nats ahead, ends 6 behind).
    decoded.sort_by(|a, b| b.0.best_score().total_cmp(&a.0.best_score()));
    let first_best = decoded
        .first()
        .map_or(f32::NEG_INFINITY, |(l, _)| l.best_score());
    let close = decoded
        .iter()
        .take_while(|(l, _)| l.best_score() >= first_best - config.rescue_finalists_within)
        .count()
        .max(1);
    decoded.truncate(close);
    // Rescues are the slow part of a hard sheet: the finalists' rescues run side by side.
    let mut rescued: Vec<(lattice::Rescued, &'static Language)> = decoded
        .into_par_iter()
        .map(|(lattice, lang)| (lattice::rescued_once(lattice, inputs(lang)), lang))
        .collect();
    // The widest search only for the finalists still close to the best rescued reading: it
    // takes seconds on a hard sheet, and on the generated sets none further behind ever won
    // by it (the same moves on seeds 99-102; an Estonian sheet 19 -> 14 s).
    let rescued_best = rescued
        .iter()
        .map(|(r, _)| r.lattice.best_score())
        .fold(f32::NEG_INFINITY, f32::max);
    let within = config.rescue_finalists_within.max(0.0);
    rescued.retain(|(r, _)| r.lattice.best_score() >= rescued_best - within);
    let rescued: Vec<(Lattice, &'static Language)> = rescued
        .into_par_iter()
        .map(|(rescued, lang)| (lattice::escalated(rescued, inputs(lang)), lang))
        .collect();
    // The first of the best (the leader after the first search on a tie).
    let (lattice, lang) = rescued
        .into_iter()
        .reduce(|best, next| {
            if next.0.best_score() > best.0.best_score() {
                next
            } else {
                best
            }
        })
        .expect("the first language is decoded to the end");
    game_from_lattice(&lattice, cells, start, lang, config)
}

/// The languages decoded in full: the best `config.language_finalists` by their piece letters
/// within `config.language_margin` nats of the first, and the language of another script's
/// letters if the cells have some.
fn finalist_languages<E: CellEvidence>(
    cells: &[E],
    config: &DecoderConfig,
) -> Vec<&'static Language> {
    let ranked = rank_languages_by_letters(cells);
    let leader = ranked.first().map_or(0.0, |r| r.0);
    let mut finalists: Vec<&'static Language> = ranked
        .iter()
        .take(config.language_finalists.max(1))
        .enumerate()
        .take_while(|&(i, &(letter_score, _))| {
            i == 0 || letter_score >= leader - config.language_margin
        })
        .map(|(_, &(_, lang))| lang)
        .collect();
    if let Some(lang) = language_of_foreign_letters(cells) {
        if !finalists.iter().any(|f| f.same_letters(lang)) {
            finalists.push(lang);
        }
    }
    finalists
}

/// Folds letters that are drawn alike (Latin, Cyrillic and Greek capitals, and a letter with
/// its diacritic, which a hasty hand or the reader drops: Esperanto's knight Ĉ is read `C`
/// more often than not) to one shape.
fn letter_shape(c: char) -> char {
    match c {
        'Ĉ' => 'C',
        'Ş' => 'S',
        'Ž' => 'Z',
        'К' | 'к' | 'Κ' => 'K',
        'С' | 'с' => 'C',
        'Т' | 'т' | 'Τ' => 'T',
        'Р' | 'р' | 'Ρ' => 'P',
        'Н' | 'Η' => 'H',
        'В' | 'Β' => 'B',
        'А' | 'Α' => 'A',
        'О' | 'Ο' => 'O',
        'Е' | 'Ε' => 'E',
        'Ι' => 'I',
        'Ζ' => 'Z',
        other => other,
    }
}

/// The first character read in each cell that has one.
fn first_letters<E: CellEvidence>(cells: &[E]) -> impl Iterator<Item = char> + '_ {
    cells.iter().filter_map(|c| c.text().trim().chars().next())
}

/// The shapes ([`letter_shape`]) that `lang`'s piece letters begin with.
fn letter_shapes(lang: &Language) -> Vec<char> {
    lang.letters
        .iter()
        .flat_map(|v| v.iter().filter_map(|l| l.chars().next()))
        .map(letter_shape)
        .collect()
}

/// The language whose own script's letters (Armenian, Greek or Cyrillic, not drawn like a
/// Latin capital) begin the most cells, if at least two. Such a letter is hard evidence: the
/// reader writes it only where it saw it. Armenian piece letters are mostly read as Latin
/// look-alikes, so an Armenian sheet ranks low by its letters and needs this way into the final.
fn language_of_foreign_letters<E: CellEvidence>(cells: &[E]) -> Option<&'static Language> {
    let foreign: Vec<char> = first_letters(cells)
        .map(letter_shape)
        .filter(|c| c.is_alphabetic() && !c.is_ascii())
        .collect();
    distinct_languages()
        .into_iter()
        .map(|lang| {
            let shapes = letter_shapes(lang);
            let votes = foreign.iter().filter(|c| shapes.contains(c)).count();
            (votes, lang)
        })
        .filter(|&(votes, _)| votes >= 2)
        // On a tie the table's first language, as in the shortlist.
        .fold(
            None,
            |best: Option<(usize, &'static Language)>, (votes, lang)| match best {
                Some((most, _)) if most >= votes => best,
                _ => Some((votes, lang)),
            },
        )
        .map(|(_, lang)| lang)
}

/// How much likelier a capital is to begin a cell where the language writes it as a piece
/// letter than over all languages: a fifth of the piece moves (about half the cells) against
/// about one cell in sixty.
const OWN_CAPITAL_WEIGHT: f32 = 6.0;
/// The same for a capital the language does not write, a misreading: 5% of the capitals read
/// spread over some thirty others, against 95% over the language's five letters.
const MISREAD_CAPITAL_WEIGHT: f32 = OWN_CAPITAL_WEIGHT * (0.05 / 30.0) / (0.95 / 5.0);

/// Languages ordered by how well their piece letters explain the capitals that cells begin
/// with (a log-likelihood ratio: each piece letter of a language is about equally common,
/// other capitals are misreadings, and whatever else begins a cell says nothing of the
/// language). A cell read by the model counts every capital it may begin with by its
/// probability ([`CellEvidence::first_characters`]), so a letter the reader ranks second
/// still speaks for its language; a typed cell counts its first character. Ties keep the
/// table's order, so English leads when no cell has a piece letter.
pub fn rank_languages_by_letters<E: CellEvidence>(cells: &[E]) -> Vec<(f32, &'static Language)> {
    let leads: Vec<Vec<(char, f32)>> = cells.iter().filter_map(capitals_first).collect();
    let mut ranked: Vec<(f32, &'static Language)> = distinct_languages()
        .into_iter()
        .map(|lang| {
            let shapes = letter_shapes(lang);
            let score: f32 = leads
                .iter()
                .map(|capitals| {
                    let (weighted, mass) =
                        capitals
                            .iter()
                            .fold((0.0, 0.0), |(weighted, mass), &(shape, p)| {
                                let weight = if shapes.contains(&shape) {
                                    OWN_CAPITAL_WEIGHT
                                } else {
                                    MISREAD_CAPITAL_WEIGHT
                                };
                                (weighted + p * weight, mass + p)
                            });
                    (weighted + (1.0 - mass).max(0.0)).ln()
                })
                .sum();
            (score, lang)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    ranked
}

/// The capitals (as [`letter_shape`]s; a Latin `O` left out: it begins castling everywhere)
/// that `cell` may begin with, each with its probability; `None` where it surely begins with
/// none.
fn capitals_first<E: CellEvidence>(cell: &E) -> Option<Vec<(char, f32)>> {
    let is_lead = |c: char| c.is_uppercase() && c != 'O';
    let capitals: Vec<(char, f32)> = match cell.first_characters() {
        Some(first) => {
            let mut by_shape: Vec<(char, f32)> = Vec::new();
            for (c, p) in first.into_iter().filter(|&(c, p)| is_lead(c) && p > 0.0) {
                let shape = letter_shape(c);
                match by_shape.iter_mut().find(|(s, _)| *s == shape) {
                    Some((_, total)) => *total += p,
                    None => by_shape.push((shape, p)),
                }
            }
            by_shape
        }
        None => {
            let first = cell.text().trim().chars().next().filter(|&c| is_lead(c))?;
            vec![(letter_shape(first), 1.0)]
        }
    };
    (!capitals.is_empty()).then_some(capitals)
}

fn game_from_lattice<E: CellEvidence>(
    lattice: &Lattice,
    cells: &[E],
    start: &StartPosition,
    lang: &'static Language,
    config: &DecoderConfig,
) -> Game {
    let best_path = lattice.best_path();
    let steps: Vec<&Step> = best_path
        .iter()
        .flat_map(|&e| lattice.edges[e as usize].steps.iter())
        .collect();
    let chosen: Vec<shakmaty::Move> = steps.iter().map(|step| step.m).collect();
    let posteriors = PlyPosteriors::of(lattice, start, &chosen, config.temperature);
    let mut pos: Chess = start.position.clone();
    let mut moves = Vec::with_capacity(steps.len());
    let mut used = vec![false; cells.len()];
    for (ply, step) in steps.into_iter().enumerate() {
        let uci = UciMove::from_move(step.m, start.castling_mode).to_string();
        pos.play_unchecked(step.m);
        let san = posteriors.chosen_san[ply].clone();
        let confidence = posteriors.chosen[ply].clamp(0.0, 1.0);
        let alternatives = posteriors.alternatives(ply);
        let cell = step.cell.map(|c| c as usize);
        if let Some(c) = cell {
            used[c] = true;
        }
        let evidence = cell.map(|c| &cells[c]);
        let unreadable = evidence.is_some_and(|ev| ev.is_illegible());
        let written_fits = evidence.is_none_or(|ev| !config.misfits(step.fit, ev.readings()));
        moves.push(DecodedMove {
            ply: ply + 1,
            san,
            uci,
            cell,
            written: evidence.map(|ev| ev.text().to_string()),
            confidence,
            alternatives,
            flagged: confidence < config.flag_below
                || step.kind != StepKind::Written
                || unreadable
                || !written_fits,
            written_fits,
            sheets_differ: None,
            written_alike: None,
            in_doubtful_stretch: false,
            written_copy: evidence
                .and_then(|ev| ev.copies())
                .map(|(_, copy)| copy.text().to_string()),
            kind: step.kind,
            draw_offer: evidence.is_some_and(|ev| ev.draw_offer()),
        });
    }
    let (end, result) = end_state(&pos);
    let opening = start
        .is_standard()
        .then(|| OpeningBook::shipped().opening_of(&chosen).cloned())
        .flatten();
    Game {
        opening,
        start: start.clone(),
        language: lang,
        moves,
        end,
        result,
        unused_cells: (0..cells.len()).filter(|&c| !used[c]).collect(),
        score: lattice.best_score(),
    }
}

/// The lattice's posterior at each ply of the chosen game: the mass of the chosen move, for
/// its confidence, and of each SAN of the other moves, for the alternatives.
///
/// One SAN may be two moves (a queen that took on f2 from d2 in one reading and from e2 in
/// another), and a move is only as sure as where its piece stood; one move may be two SANs
/// (`Bg4` and `Bxg4+` where the worlds differ on g4), and is counted once. Another move written
/// as the chosen one (the same SAN from another square) is kept apart by its starting square,
/// or the chosen move would look surer than its confidence says.
struct PlyPosteriors {
    /// The chosen moves in SAN, by ply.
    chosen_san: Vec<String>,
    /// The mass of the chosen move, by ply.
    chosen: Vec<f32>,
    /// By ply, the mass of every other move by its SAN and, where that is the chosen move's
    /// SAN, its starting square.
    others: Vec<HashMap<(String, Option<String>), f32>>,
}

impl PlyPosteriors {
    /// The posteriors of the moves `chosen` from `start`, by forward–backward over `lattice`
    /// with its weights scaled by `temperature`; edges of mass 1e-5 or less are left out.
    fn of(
        lattice: &Lattice,
        start: &StartPosition,
        chosen: &[shakmaty::Move],
        temperature: f32,
    ) -> PlyPosteriors {
        let (alpha, beta, total) = lattice.forward_backward(temperature);
        let chosen_san: Vec<String> = {
            let mut pos: Chess = start.position.clone();
            chosen
                .iter()
                .map(|&m| SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string())
                .collect()
        };
        let mut others: Vec<HashMap<(String, Option<String>), f32>> = Vec::new();
        let mut chosen_mass = vec![0.0f32; chosen.len()];
        for edge in &lattice.edges {
            let (a, b) = (alpha[edge.src as usize], beta[edge.dst as usize]);
            if a == f64::NEG_INFINITY || b == f64::NEG_INFINITY {
                continue;
            }
            let p = (a + temperature as f64 * edge.weight as f64 + b - total).exp() as f32;
            if p.is_nan() || p <= 1e-5 {
                continue;
            }
            let src = &lattice.nodes[edge.src as usize];
            let mut pos = src.pos.clone();
            for (j, step) in edge.steps.iter().enumerate() {
                let ply = src.ply as usize + j;
                if others.len() <= ply {
                    others.resize_with(ply + 1, HashMap::default);
                }
                let san = SanPlus::from_move_and_play_unchecked(&mut pos, step.m).to_string();
                if chosen.get(ply).is_some_and(|&m| same_squares(m, step.m)) {
                    chosen_mass[ply] += p;
                } else {
                    let from = (chosen_san.get(ply) == Some(&san))
                        .then(|| step.m.from().map(|sq| sq.to_string()))
                        .flatten();
                    *others[ply].entry((san, from)).or_insert(0.0) += p;
                }
            }
        }
        PlyPosteriors {
            chosen_san,
            chosen: chosen_mass,
            others,
        }
    }

    /// The four likeliest other moves at `ply` of mass 0.001 or more, likeliest first (equal
    /// ones by SAN).
    fn alternatives(&self, ply: usize) -> Vec<Alternative> {
        let san = &self.chosen_san[ply];
        let mut alternatives: Vec<Alternative> = self
            .others
            .get(ply)
            .map(|m| {
                m.iter()
                    .filter(|((s, from), &p)| (s != san || from.is_some()) && p >= 0.001)
                    .map(|((s, from), &p)| Alternative {
                        san: s.clone(),
                        confidence: p.min(1.0),
                        from: from.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        alternatives.sort_by(|a, b| {
            b.confidence
                .total_cmp(&a.confidence)
                .then(a.san.cmp(&b.san))
        });
        alternatives.truncate(4);
        alternatives
    }
}

/// Whether `rest` (moves by their squares) can be played one after another from `before`
/// after `first`.
fn game_goes_on_after(before: &Chess, first: shakmaty::Move, rest: &[shakmaty::Move]) -> bool {
    let mut pos = before.clone();
    pos.play_unchecked(first);
    for &next in rest {
        let Some(found) = pos
            .legal_moves()
            .into_iter()
            .find(|&m| same_squares(m, next))
        else {
            return false;
        };
        pos.play_unchecked(found);
    }
    true
}

/// Whether two moves, perhaps played in different positions, are the same move as UCI writes
/// it: a queen that takes on f2 from d2 is one move whether it takes a pawn or a knight there.
fn same_squares(a: shakmaty::Move, b: shakmaty::Move) -> bool {
    (a.from(), a.to(), a.promotion()) == (b.from(), b.to(), b.promotion())
}

fn end_state(pos: &Chess) -> (EndState, String) {
    let end = if pos.is_checkmate() {
        EndState::Checkmate
    } else if pos.is_stalemate() {
        EndState::Stalemate
    } else if pos.is_insufficient_material() {
        EndState::InsufficientMaterial
    } else {
        EndState::Ongoing
    };
    let result = match pos.outcome() {
        Outcome::Known(known) => known.to_string(),
        Outcome::Unknown => "*".to_string(),
    };
    (end, result)
}

/// The best score the decoder can give the known game `moves` (from `start`, written in
/// `lang`) on these cells, aligned with them by any of its slips (see [`decode`]'s
/// [`Game::score`]): a decoded game scoring below it is a search error, above it a model
/// error. `None` when the game cannot explain every cell.
pub fn line_score<E: CellEvidence>(
    cells: &[E],
    start: &StartPosition,
    lang: &Language,
    moves: &[shakmaty::Move],
    config: &DecoderConfig,
) -> Option<f32> {
    let (cells, adapted) = adapted_to(cells, config);
    lattice::line_score(cells, &start.position, lang, moves, &adapted)
}

/// The known game `moves` (from `start`, written in `lang`) read on these cells: the best
/// way the decoder's slips align it with them (a move the player skipped, two swapped cells,
/// a crossed-out cell), as a [`Game`] whose moves carry their cells. `None` when the game
/// cannot explain every cell.
pub fn decode_along<E: CellEvidence>(
    cells: &[E],
    start: &StartPosition,
    lang: &'static Language,
    moves: &[shakmaty::Move],
    config: &DecoderConfig,
) -> Option<Game> {
    let (cells, adapted) = adapted_to(cells, config);
    let priors = PriorMemo::default();
    let inputs = SearchInputs::new(cells, &start.position, lang, &adapted, &priors);
    let lattice = lattice::forced_search(inputs, moves)?;
    let reads_all = lattice
        .finals
        .first()
        .is_some_and(|&f| lattice.nodes[f as usize].cell as usize == cells.len());
    reads_all.then(|| game_from_lattice(&lattice, cells, start, lang, &adapted))
}

/// The moves of `game` that a review step looks at: those `cell_of` gives a cell, by index,
/// each with the position it was played from, the move and that cell; `None` where the moves
/// do not replay from the game's start.
#[allow(clippy::type_complexity)]
fn moves_reviewed(
    game: &Game,
    cell_of: impl Fn(&DecodedMove) -> Option<usize>,
) -> Option<(Vec<usize>, Vec<(Chess, shakmaty::Move, usize)>)> {
    let played = game.played_moves();
    if played.len() != game.moves.len() {
        return None;
    }
    let mut pos: Chess = game.start.position.clone();
    let reviewed = game
        .moves
        .iter()
        .zip(played)
        .enumerate()
        .filter_map(|(index, (decoded, m))| {
            let before = pos.clone();
            pos.play_unchecked(m);
            Some((index, (before, m, cell_of(decoded)?)))
        })
        .unzip();
    Some(reviewed)
}

/// Flags the moves of `game` (decoded from `cells` with `config`) read from both players'
/// sheets where one sheet, read alone, reads as another legal move ([`SheetsDiffer`]): the
/// game around the ply decided between the two records, and an arbiter should see that it
/// had to. A review step after decoding, not part of it: writer adaptation
/// ([`crate::read`]) weighs only the decoder's own doubts.
pub fn mark_sheets_differ<E: CellEvidence>(game: &mut Game, cells: &[E], config: &DecoderConfig) {
    let (cells, adapted) = adapted_to(cells, config);
    let fused_cell = |decoded: &DecodedMove| {
        decoded
            .cell
            .filter(|&c| cells.get(c).is_some_and(|e| e.copies().is_some()))
    };
    let Some((fused_moves, fused)) = moves_reviewed(game, fused_cell) else {
        return;
    };
    let found = lattice::sheets_reading_otherwise(cells, game.language, &adapted, &fused);
    for ((index, (before, _, _)), differs) in fused_moves.into_iter().zip(&fused).zip(found) {
        if let Some((sheet, m)) = differs {
            let san = SanPlus::from_move(before.clone(), m).to_string();
            let decoded = &mut game.moves[index];
            decoded.sheets_differ = Some(SheetsDiffer { sheet, san });
            decoded.flagged = true;
        }
    }
}

/// Flags the moves of `game` (decoded from `cells` with `config`) whose cell reads as well as
/// another legal move of the same piece to the same square, after which the rest of the game
/// can still be played ([`DecodedMove::written_alike`]): `Td1` where both rooks may go says
/// nothing of which one went, and where no later move says it either, the move prior chose,
/// or the search kept one of the two worlds only (a German sheet of the generated set of seed
/// 104 read `Rfd1` for `Rad1` at confidence 1.00). An arbiter should see that. A review step
/// after decoding, as [`mark_sheets_differ`] is: writer adaptation and the alignment of two
/// copies weigh only the decoder's own doubts.
pub fn mark_written_alike<E: CellEvidence>(game: &mut Game, cells: &[E], config: &DecoderConfig) {
    if config.flag_written_alike_within < 0.0 {
        return;
    }
    let (cells, adapted) = adapted_to(cells, config);
    let written_cell =
        |decoded: &DecodedMove| decoded.cell.filter(|_| decoded.kind == StepKind::Written);
    let Some((written_moves, written)) = moves_reviewed(game, written_cell) else {
        return;
    };
    let played = game.played_moves();
    let found = lattice::rivals_written_alike(cells, game.language, &adapted, &written);
    for ((index, (before, _, _)), rival) in written_moves.into_iter().zip(&written).zip(found) {
        // Where the rest of the game cannot be played after the rival (the other rook moves
        // later from where it stood), the game itself says which piece moved.
        let rival = rival.filter(|&rival| game_goes_on_after(before, rival, &played[index + 1..]));
        if let Some(rival) = rival {
            let decoded = &mut game.moves[index];
            decoded.written_alike = Some(SanPlus::from_move(before.clone(), rival).to_string());
            decoded.flagged = true;
        }
    }
}

/// Flags each move with at least `config.flag_stretch_flagged` flagged moves among the
/// `config.flag_stretch_plies` plies on either side of it (counting the flags before this
/// step), and marks it [`DecodedMove::in_doubtful_stretch`]. Where the sheet hardly fits the
/// game, the game may have taken a wrong turn that later moves made up for with slips and
/// misreadings, and a beam that kept only that world is sure of moves it has no rival for.
/// On real writing such flags are where doubt is: of the HCS games whose two players' sheets
/// were both transcribed, each sheet decoded alone, these flags fall on a ply where the other
/// sheet decodes differently (so one of the two is wrong) 57% of the time, where the
/// decoder's other flags do 35% and unflagged moves 7% (`decode-bench --hcs-slips`). A review
/// step after decoding, as
/// [`mark_written_alike`] is.
pub fn mark_doubtful_stretches(game: &mut Game, config: &DecoderConfig) {
    if config.flag_stretch_flagged == 0 {
        return;
    }
    let flagged: Vec<bool> = game.moves.iter().map(|m| m.flagged).collect();
    let reach = config.flag_stretch_plies;
    for (index, decoded) in game.moves.iter_mut().enumerate() {
        if flagged[index] {
            continue;
        }
        let around = index.saturating_sub(reach)..(index + reach + 1).min(flagged.len());
        let flagged_around = around.filter(|&j| j != index && flagged[j]).count();
        if flagged_around >= config.flag_stretch_flagged {
            decoded.in_doubtful_stretch = true;
            decoded.flagged = true;
        }
    }
}

/// Where the search for `lang` dropped the best alignment of the known game `moves` (see
/// [`line_score`]), for tuning the search; `None` if it kept it to the end.
pub fn search_loss<E: CellEvidence>(
    cells: &[E],
    start: &StartPosition,
    lang: &Language,
    moves: &[shakmaty::Move],
    config: &DecoderConfig,
) -> Option<SearchLoss> {
    let (cells, adapted) = adapted_to(cells, config);
    lattice::search_loss(cells, &start.position, lang, moves, &adapted)
}

/// The cells a decode reads (trailing blanks dropped) and `config` with its style sharpened
/// to their habits, as [`decode`] sees them.
fn adapted_to<'c, E: CellEvidence>(
    cells: &'c [E],
    config: &DecoderConfig,
) -> (&'c [E], DecoderConfig) {
    let cells = trim_trailing_blanks(cells);
    let own_texts = cells
        .iter()
        .map(|c| c.copies().map_or(c.text(), |(own, _)| own.text()));
    let copy_texts: Vec<&str> = cells
        .iter()
        .filter_map(|c| c.copies().map(|(_, copy)| copy.text()))
        .collect();
    let copy_base = config.copy_style.as_ref().unwrap_or(&config.style);
    let adapted = DecoderConfig {
        style: style_of_texts(own_texts, &config.style),
        copy_style: (!copy_texts.is_empty())
            .then(|| style_of_texts(copy_texts.into_iter(), copy_base)),
        ..config.clone()
    };
    (cells, adapted)
}

/// The moves of a line from the standard start, given in UCI (for the stages' tests).
#[cfg(test)]
fn uci_line(ucis: &[&str]) -> Vec<shakmaty::Move> {
    use shakmaty::{uci::UciMove, Chess, Position};
    let mut pos = Chess::default();
    ucis.iter()
        .map(|u| {
            let m = u.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            m
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_move_written_as_the_chosen_one_is_an_alternative_from_its_square() {
        // Black's first move is illegible: the rook may stand anywhere on the back rank when
        // Black writes `Rc8`, which reads as that rook's move from wherever it stands.
        let start = StartPosition::from_fen("3r2k1/8/8/8/8/8/8/6K1 b - - 0 1").unwrap();
        let cells: Vec<TypedCell> = ["?", "Kg2", "Rc8", "Kf3", "Kg7"]
            .iter()
            .map(|t| TypedCell::new(t))
            .collect();
        let english = LanguageChoice::Fixed(Language::by_code("en").unwrap());
        let game = decode(&cells, &start, english, &DecoderConfig::default());
        let rc8 = &game.moves[2];
        assert_eq!(rc8.san, "Rc8");
        let elsewhere: Vec<&Alternative> =
            rc8.alternatives.iter().filter(|a| a.san == "Rc8").collect();
        assert!(!elsewhere.is_empty(), "{rc8:?}");
        let chosen_from = &rc8.uci[..2];
        for a in &elsewhere {
            let from = a.from.as_deref().expect("a starting square");
            assert_ne!(from, chosen_from);
            assert_eq!(a.label(), format!("Rc8 from {from}"));
        }
        // The chosen move and the others written as it hold most of the ply's mass.
        let shown: f32 = rc8.confidence + elsewhere.iter().map(|a| a.confidence).sum::<f32>();
        assert!(shown > 0.8, "{rc8:?}");
    }

    #[test]
    fn the_start_a_game_was_played_from_reads_its_cells_best() {
        // Chess960 start 0 (BBQNNRKR): the bishops in the corners take at once, which no
        // bishop of the usual start can.
        let written = [
            "b3", "b6", "Bxg7", "Bxg2", "Bxh8", "Bxh1", "Nc3", "Nc6", "Nf3", "Nf6",
        ];
        let cells: Vec<TypedCell> = written.iter().map(|t| TypedCell::new(t)).collect();
        let starts: Vec<StartPosition> = [0, 1, 518, 959]
            .iter()
            .map(|&n| StartPosition::chess960(n).unwrap())
            .collect();
        assert!(
            starts[0].fen().starts_with("bbqnnrkr/"),
            "{}",
            starts[0].fen()
        );
        let positions: Vec<Chess> = starts.iter().map(|s| s.position.clone()).collect();
        let english = Language::by_code("en").unwrap();
        let config = DecoderConfig::default();
        let scores = scores_from_starts(&cells, cells.len(), &positions, english, &config);
        assert_eq!(scores.len(), 4);
        let game = decode(&cells, &starts[0], LanguageChoice::Fixed(english), &config);
        assert_eq!(
            scores[0], game.score,
            "the narrow search finds the game decode finds"
        );
        for (other, score) in scores.iter().enumerate().skip(1) {
            assert!(*score < scores[0] - 10.0, "start {other}: {scores:?}");
        }
        // The first four cells (pawns, then the corner bishops taking) tell start 0 from the
        // usual start and from 959 (RKRNNQBB), not from start 1 (BQNBNRKR), whose bishops
        // stand on a1 and a8 too: the rest of the game does. Reading no cell tells nothing.
        let opening = scores_from_starts(&cells, 4, &positions, english, &config);
        assert!((opening[0] - opening[1]).abs() < 1.0, "{opening:?}");
        assert!(
            opening[2] < opening[0] - 5.0 && opening[3] < opening[0] - 5.0,
            "{opening:?}"
        );
        let nothing = scores_from_starts(&cells, 0, &positions, english, &config);
        assert!(nothing.iter().all(|&s| s == 0.0), "{nothing:?}");
    }

    #[test]
    fn a_sheet_in_descriptive_notation_turns_its_forms_on_and_algebraic_never_does() {
        let base = Style::default();
        let descriptive = [
            "P-K4", "P-K4", "N-KB3", "Kt-QB3", "B-N5", "P-QR3", "BxN", "QPxB", "O-O", "P-B3",
            "P-Q4ch",
        ];
        let style = style_of_texts(descriptive.into_iter(), &base);
        assert_eq!(style.descriptive, 0.0);
        assert!(style.check_ch > (0.1f32).ln());
        assert!(style.descriptive_kt < 0.0, "one Kt is not a habit");
        let kt = descriptive.map(|t| if t == "N-KB3" { "Kt-KB3" } else { t });
        assert_eq!(style_of_texts(kt.into_iter(), &base).descriptive_kt, 0.0);
        let algebraic = [
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "BxN", "dxc6", "O-O", "f6", "d4", "Bg4",
            "Ng1-f3", "Qd1-d3", "RxR", "Rxa8+", "0-0-0", "e8=Q",
        ];
        let style = style_of_texts(algebraic.into_iter(), &base);
        assert_eq!(style.descriptive, f32::NEG_INFINITY);
        assert_eq!(style.check_ch, f32::NEG_INFINITY);
        for text in algebraic {
            let chars: Vec<char> = text.chars().collect();
            assert!(!looks_descriptive(&chars), "{text}");
        }
    }

    #[test]
    fn settings_are_set_by_name_and_unknown_names_refused() {
        let mut config = DecoderConfig::default();
        config.set("beam_width", 7.9).unwrap();
        config.set("skipped_move", -3.0).unwrap();
        config.set("temperature", 0.5).unwrap();
        config.set("prior_attack_scale", 0.5).unwrap();
        config.set("rescue_escalation_troubled", 5.0).unwrap();
        assert_eq!(config.beam_width, 7);
        assert_eq!(config.rescue_escalation_troubled, 5);
        let fitted = MovePrior::default().weights;
        for (i, (&scaled, &weight)) in config.prior.weights.iter().zip(&fitted).enumerate() {
            let expected = if ATTACK_FEATURES.contains(&i) {
                weight * 0.5
            } else {
                weight
            };
            assert_eq!(scaled, expected, "{}", PRIOR_FEATURE_NAMES[i]);
        }
        assert_eq!(config.slips.skipped_move, -3.0);
        assert_eq!(config.temperature, 0.5);
        let error = config.set("beam_wdth", 1.0).unwrap_err();
        assert!(error.contains("beam_wdth"), "{error}");
    }

    #[test]
    fn a_known_game_is_aligned_with_cells_that_skip_a_move() {
        let start = StartPosition::standard();
        let english = Language::by_code("en").unwrap();
        let mut position = start.position.clone();
        let moves: Vec<shakmaty::Move> = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"]
            .iter()
            .map(|san| {
                let m = san
                    .parse::<shakmaty::san::San>()
                    .unwrap()
                    .to_move(&position)
                    .unwrap();
                position.play_unchecked(m);
                m
            })
            .collect();
        // The player never wrote 2...Nc6.
        let cells: Vec<TypedCell> = ["e4", "e5", "Nf3", "Bb5", "a6", "Ba4"]
            .iter()
            .map(|t| TypedCell::new(t))
            .collect();
        let game =
            decode_along(&cells, &start, english, &moves, &DecoderConfig::default()).unwrap();
        let read: Vec<(&str, Option<usize>)> = game
            .moves
            .iter()
            .map(|m| (m.san.as_str(), m.cell))
            .collect();
        assert_eq!(
            read,
            [
                ("e4", Some(0)),
                ("e5", Some(1)),
                ("Nf3", Some(2)),
                ("Nc6", None),
                ("Bb5", Some(3)),
                ("a6", Some(4)),
                ("Ba4", Some(5))
            ]
        );
        assert_eq!(game.moves[3].kind, StepKind::Skipped);
        // The same score as a free decoding, which finds this game too.
        let free = decode(
            &cells,
            &start,
            LanguageChoice::Fixed(english),
            &DecoderConfig::default(),
        );
        assert_eq!(free.moves.len(), 7);
        assert!(
            (free.score - game.score).abs() < 1e-3,
            "{} {}",
            free.score,
            game.score
        );
    }

    #[test]
    fn a_move_is_only_as_sure_as_where_its_piece_stood() {
        // 2. is illegible: Qh5 and Qf3 both let the queen take on f7, and 3. Qxf7+ reads the
        // same either way. Its SAN is certain; the move (h5f7 or f3f7) is not.
        let cells: Vec<TypedCell> = ["e4", "e5", "?", "Nc6", "Qxf7+"]
            .iter()
            .map(|t| TypedCell::new(t))
            .collect();
        let english = Language::by_code("en").unwrap();
        let game = decode(
            &cells,
            &StartPosition::standard(),
            LanguageChoice::Fixed(english),
            &DecoderConfig::default(),
        );
        let sans: Vec<&str> = game.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans.len(), 5, "{sans:?}");
        assert!(["Qh5", "Qf3"].contains(&sans[2]), "{sans:?}");
        assert_eq!(sans[4], "Qxf7+");
        let (queen_out, capture) = (&game.moves[2], &game.moves[4]);
        let other = if sans[2] == "Qh5" { "Qf3" } else { "Qh5" };
        let other_share = queen_out
            .alternatives
            .iter()
            .find(|a| a.san == other)
            .map_or(0.0, |a| a.confidence);
        assert!(other_share > 0.01, "{:?}", queen_out.alternatives);
        assert!(
            capture.confidence < 1.0 - other_share + 0.01,
            "{} {other_share}",
            capture.confidence
        );
        assert!(
            (capture.confidence - queen_out.confidence).abs() < 0.02,
            "{} {}",
            capture.confidence,
            queen_out.confidence
        );
        // The same capture from the other square is an alternative by that square.
        let from_elsewhere: Vec<&Alternative> = capture
            .alternatives
            .iter()
            .filter(|a| a.san == "Qxf7+")
            .collect();
        assert_eq!(from_elsewhere.len(), 1, "{:?}", capture.alternatives);
        let queen_from = &queen_out.uci[2..];
        assert_eq!(
            from_elsewhere[0].from.as_deref(),
            Some(if queen_from == "h5" { "f3" } else { "h5" })
        );
        assert!((from_elsewhere[0].confidence - other_share).abs() < 0.02);
    }

    #[test]
    fn a_language_far_behind_its_rival_is_given_up_and_an_unrivalled_one_never() {
        let texts = [
            "e4", "e5", "Sf3", "Sc6", "Lb5", "a6", "La4", "Sf6", "O-O", "Le7", "Te1", "b5", "Lb3",
            "d6", "c3", "O-O", "h3", "Sb8",
        ];
        let cells: Vec<TypedCell> = texts.iter().map(|t| TypedCell::new(t)).collect();
        let start = Chess::default();
        let config = DecoderConfig::default();
        let german = Language::by_code("de").unwrap();
        let english = Language::by_code("en").unwrap();
        let priors = PriorMemo::default();
        let inputs = |lang| SearchInputs::new(&cells, &start, lang, &config, &priors);
        let read = lattice::search(inputs(german), None).unwrap();
        let layers = read.layer_bests(cells.len());
        assert!(layers.iter().all(|b| b.is_finite()), "{layers:?}");
        // English letters misread every knight and bishop: far behind German at once.
        let rival = Some(layers.as_slice());
        assert!(lattice::search(inputs(english), rival).is_none());
        assert!(lattice::search(inputs(german), rival).is_some());
    }

    #[test]
    fn letters_of_a_script_only_some_languages_use_bring_their_language_to_the_final() {
        let armenian = ["d4", "Ձf6", "c4", "e6", "Cf3", "d5", "Փd3", "Nbd7"];
        let cells: Vec<TypedCell> = armenian.iter().map(|t| TypedCell::new(t)).collect();
        assert_eq!(
            language_of_foreign_letters(&cells).map(|l| l.code),
            Some("hy")
        );
        // One stray letter of another script is a misreading, not a language.
        let stray = ["d4", "Nf6", "c4", "e6", "Nf3", "d5", "Փd3", "Nbd7"];
        let cells: Vec<TypedCell> = stray.iter().map(|t| TypedCell::new(t)).collect();
        assert_eq!(language_of_foreign_letters(&cells), None);
        // Latin capitals and Cyrillic look-alikes of them are no script of their own.
        let russian = ["e4", "e5", "Кf3", "Кc6", "Сb5", "a6", "Фe2", "Фg5", "Лd1"];
        let cells: Vec<TypedCell> = russian.iter().map(|t| TypedCell::new(t)).collect();
        let found = language_of_foreign_letters(&cells).map(|l| l.code);
        assert!(matches!(found, Some("ru")), "{found:?}");
    }

    #[test]
    fn a_hand_whose_letters_are_misread_keeps_its_language_in_the_final() {
        // The reader's best paths on a generated Slovak sheet (K D V S J) in a validation
        // font: its knights (J) read as `S` or `b`, its queen (D) as `S`, its king as `W`, so
        // Polish (K H W G S) explains the letters best and Slovak ranked far behind.
        let texts = [
            "e4", "e5", "b3", "Sc6", "Sb5", "a6", "Sa4", "b6", "-+", "b5", "Sb3", "Sc5", "a4",
            "Ob8", "a:b5", "ab5", "c3", "d6", "d4", "Sb6", "Sa3", "Sg4", ":b5", "0-0", "S:e1",
            "S:b3", "gb3", "Sc5", "Wc2", "e:d4", ":d4", "Sb6", "Se3", "Sa5", "Sd5", "S:e1", "S:c6",
            "d5", "S:c1", "Saa5", "e5", "S:b5", "Oc5", "b4", "Sb4", "S:b4", ":d5", "O6d8", "S-:d+",
            "f-:d8", "8-c2", "Sb6+", "Se4", "g6", "Sc3", "c6", "3-d6", "-a8", "de3", "Sd4", "Wg2",
            "O:ad1", "Sb3", "S:g5+", "Wa3", "Sb5+", "Kg2", "", "K1c3",
        ];
        let cells: Vec<TypedCell> = texts.iter().map(|t| TypedCell::new(t)).collect();
        let slovak = Language::by_code("sk").unwrap();
        let has_slovak = |config: &DecoderConfig| {
            finalist_languages(&cells, config)
                .iter()
                .any(|lang| lang.same_letters(slovak))
        };
        assert!(has_slovak(&DecoderConfig::for_handwriting()));
        // Typed text's letters are what was written: three close finalists are enough there.
        assert!(!has_slovak(&DecoderConfig::default()));
    }

    #[test]
    fn an_esperanto_sheet_whose_knights_lost_their_hat_ranks_esperanto_first() {
        // Esperanto: R D T K Ĉ. The reader often drops the circumflex, as hasty hands do;
        // without it the knights' `C` looked French or Ukrainian and Esperanto ranked seventh.
        let texts = [
            "e4", "c5", "Cf3", "d6", "d4", "cxd4", "Cxd4", "Ĉf6", "Cc3", "a6", "Ke3", "e6", "Dd2",
            "Cbd7", "Kb5", "Te8", "Rb1",
        ];
        let cells: Vec<TypedCell> = texts.iter().map(|t| TypedCell::new(t)).collect();
        let ranked: Vec<&str> = rank_languages_by_letters(&cells)
            .iter()
            .map(|(_, lang)| lang.code)
            .collect();
        assert_eq!(ranked[0], "eo", "{ranked:?}");
        // Hungarian's K V B F H explains few of these letters.
        let hungarian = ranked.iter().position(|&c| c == "hu").unwrap();
        assert!(hungarian > 3, "{ranked:?}");
    }
}
