//! Writer adaptation: the reader was trained on other hands, and a writer's own habits (a
//! seven crossed like a four, a `c` that curls like an `e`) are misread the same way all over
//! their sheet. The moves the decoder is sure of show how: a frame read as `4` where the
//! decoded move says `7` was written. Those confusions, counted over the sheet, let the
//! reading of every cell be taken as the writer meant it, and the sheet is decoded again.
//!
//! On the generated sheets of seeds 99 and 100 this took the moves read right from 97.77% and
//! 97.69% to 98.06% and 97.79%, and the flagged moves from 8.0% and 7.3% to 6.3% and 6.4%;
//! the real-dev sheets read the same moves with fewer flags (5.4% → 5.1%). Read with the other
//! player's copy, each writer is learnt apart (pairs of seed 99: 99.77 → 99.90%, flagged 2.2
//! → 1.0%; seed 100: 98.97 → 99.01%, flagged 2.1 → 1.4%).
//!
//! A game mended by one round shows the writer's habits better, so the rounds go on while they
//! change the game, [`MAX_ROUNDS`] at most ([`adapt_in_rounds`]): on 2026-12-01 the generated
//! sheets of seeds 99-102 read 98.39 / 98.15 / 98.22 / 97.54% of plies right against 97.87 /
//! 98.19 / 98.22 / 97.45% with one round, for 4-20% more time a sheet.
//!
//! A round's search can miss the game the round before decoded, found by a wider search
//! (an escalation) than the new readings call for: a German sheet's second round scored its
//! game 90 nats below the first round's game on the second round's own readings, and the third
//! made 73 of 101 plies right. Such a round keeps the game before and ends the rounds: that
//! sheet 99 of 101. With 4,096-wide escalations it decides 4 sheets of seeds 99-102 (seeds
//! 100 / 101 98.38 / 98.10 → 98.40 / 98.19%, 99 and 102 the same).

use std::sync::Arc;

use shakmaty::Position;

use super::{CellReading, WhichSheet};
use crate::decode::{
    decode_remembering, line_score, CellEvidence, DecoderConfig, Game, LanguageChoice, PriorMemo,
};
use crate::notation::{for_each_form, Check, Language, MoveFacts, Style};
use crate::recognize::CtcCell;
use crate::start::StartPosition;

/// Moves at least this sure teach the writer's confusions.
pub const SURE_CONFIDENCE: f32 = 0.95;
/// A character the reader misread at least this many times on the sheet is adapted.
pub const MIN_MISREADINGS: f64 = 2.0;
/// Readings of a character as itself counted before the sheet's own: the weight of the
/// reader's word against a few surely decoded cells.
pub const PRIOR_READINGS: f64 = 3.0;
/// A first decoding with fewer flagged moves than this is kept as it is: it has little left to
/// mend, and decoding again costs nearly as much as the first time.
pub const MIN_FLAGGED: usize = 3;

/// Rounds of adaptation at most: each learns the writer's confusions from the game the round
/// before decoded, and decodes again. A game mended in one round shows more of the writer's
/// habits to the next; the rounds stop as soon as one decodes the same moves as the round
/// before (on most sheets, the first) or learns what it learnt.
pub const MAX_ROUNDS: usize = 3;
/// A round's game scoring this many nats below the round before's game, both on the round's
/// readings, is a game the search missed rather than the writer's habits mending it.
pub const SEARCH_MISS_NATS: f32 = 0.1;
/// The widest escalation of a round's search (`DecoderConfig::rescue_escalation_width`): the
/// first decoding searches 16,384 wide to find a hard hand's game at all, and a round that
/// misses the game before keeps it ([`SEARCH_MISS_NATS`]), so a round need not search as
/// wide. On the generated sheets of seeds 99-102 rounds at 4,096 read the same plies as at
/// 16,384 but one (a German sheet 99 -> 98 of 101), in a mean 1.26 / 0.83 / 0.84 / 1.60 s a
/// sheet against 1.69 / 1.02 / 0.86 / 2.25 s (a Greek sheet 54 -> 30 s); real-dev the same.
pub const ROUND_ESCALATION_WIDTH: usize = 4096;

/// For each class the reader can output, the classes this writer means by it, with
/// P(meant | read); an empty list where the writer's character reads as itself.
pub type Confusions = Vec<Vec<(usize, f64)>>;

/// What the sheet's writers are learnt to mean by what the reader read: the own sheet's
/// writer's confusions and the other player's copy's.
#[derive(Debug, Clone, PartialEq)]
pub struct Learnt {
    pub own: Option<Confusions>,
    pub copy: Option<Confusions>,
}

/// Each writer's confusions learnt from `game` (decoded from `evidence`). `sheets[i]` says
/// whose sheet entry `i` was read from (an entry fused from both players' copies holds a cell
/// of each); the copy's writer is learnt apart from the own sheet's, in the piece letters
/// `copy_language`, since two hands are misread in two ways. `None` when the game has fewer
/// than [`MIN_FLAGGED`] flagged moves or no writer misread a character [`MIN_MISREADINGS`]
/// times.
pub fn learn(
    game: &Game,
    evidence: &[CellReading],
    sheets: &[WhichSheet],
    copy_language: &'static Language,
) -> Option<Learnt> {
    if game.flagged().count() < MIN_FLAGGED {
        return None;
    }
    let learnt = |writer: WhichSheet, language| {
        confusions(game, language, |entry| {
            let sheet = *sheets.get(entry)?;
            writers_cell(evidence.get(entry)?, sheet, writer)
        })
    };
    let own = learnt(WhichSheet::Own, game.language);
    let copy = learnt(WhichSheet::Copy, copy_language);
    if own.is_none() && copy.is_none() {
        return None;
    }
    Some(Learnt { own, copy })
}

impl Learnt {
    /// The sheet's readings (`evidence`, read from `sheets` as [`learn`] says) each taken
    /// through its writer's confusions, each cell's evidence weighted by `evidence_scale` as
    /// before: the evidence to decode the sheet again from.
    pub fn taken_through(
        &self,
        evidence: &[CellReading],
        sheets: &[WhichSheet],
        evidence_scale: f32,
    ) -> Vec<CellReading> {
        let confusions_of = |sheet| match sheet {
            WhichSheet::Own => self.own.as_ref(),
            WhichSheet::Copy => self.copy.as_ref(),
        };
        evidence
            .iter()
            .zip(sheets)
            .map(|(reading, &sheet)| taken_through(reading, sheet, &confusions_of, evidence_scale))
            .collect()
    }
}

/// The settings of a round's search: `config`'s, its escalation at most
/// [`ROUND_ESCALATION_WIDTH`] wide, since the game before guards it ([`round_game`]).
pub fn round_config(config: &DecoderConfig) -> DecoderConfig {
    DecoderConfig {
        rescue_escalation_width: config.rescue_escalation_width.min(ROUND_ESCALATION_WIDTH),
        ..config.clone()
    }
}

/// A round's game: the sheet decoded from the readings taken through the writer's confusions
/// (`adapted`), in the letters of the game the round before decoded (`before`), with
/// `round_config` (made by [`round_config`]). `None` where the round's search missed:
/// `before`, scored on the same readings with `config` (the first decoding's), beats the
/// round's game by more than [`SEARCH_MISS_NATS`], and is kept.
pub fn round_game(
    adapted: &[CellReading],
    before: &Game,
    start: &StartPosition,
    round_config: &DecoderConfig,
    config: &DecoderConfig,
    priors: &PriorMemo,
) -> Option<Game> {
    let in_game_letters = LanguageChoice::Fixed(before.language);
    let game = decode_remembering(adapted, start, in_game_letters, round_config, priors);
    let before_score = line_score(
        adapted,
        start,
        before.language,
        &before.played_moves(),
        config,
    );
    let search_missed = before_score.is_some_and(|score| score > game.score + SEARCH_MISS_NATS);
    (!search_missed).then_some(game)
}

/// Writer adaptation in rounds, from `first`, the game decoded from the readings as read:
/// `learn` learns the writer's confusions from a game (`None`: nothing to learn, as [`learn`]
/// says), `decode_through` decodes the readings taken through them and gives them with the
/// game, or `None` when its search found no game as likely on them as the game of the round
/// before (given to it), which is then kept. At most `max_rounds` rounds, fewer when a round
/// decodes the same moves as the one before, learns what the one before did (the same
/// readings would decode the same game) or keeps the game before. Returns the last game kept
/// and the readings it was decoded from (`None`: `first` is kept).
pub fn adapt_in_rounds<L: PartialEq, R>(
    first: Game,
    mut learn: impl FnMut(&Game) -> Option<L>,
    mut decode_through: impl FnMut(&L, &Game) -> Option<(Game, R)>,
    max_rounds: usize,
) -> (Game, Option<R>) {
    let mut game = first;
    let mut adapted = None;
    let mut last_learnt: Option<L> = None;
    for _ in 0..max_rounds {
        let Some(learnt) = learn(&game) else {
            break;
        };
        if last_learnt.as_ref() == Some(&learnt) {
            break;
        }
        let Some((next, readings)) = decode_through(&learnt, &game) else {
            break;
        };
        let settled = same_moves(&next, &game);
        game = next;
        adapted = Some(readings);
        last_learnt = Some(learnt);
        if settled {
            break;
        }
    }
    (game, adapted)
}

/// Whether two games play the same moves (their confidences and flags may differ).
fn same_moves(a: &Game, b: &Game) -> bool {
    a.moves.len() == b.moves.len() && a.moves.iter().zip(&b.moves).all(|(x, y)| x.uci == y.uci)
}

/// The cell of `writer` in an evidence entry read from `sheet` (a fused entry holds both).
fn writers_cell(reading: &CellReading, sheet: WhichSheet, writer: WhichSheet) -> Option<&CtcCell> {
    match (reading, writer) {
        (CellReading::Read(cell), _) if sheet == writer => Some(cell),
        (CellReading::BothCopies(own, _), WhichSheet::Own) => writers_cell(own, writer, writer),
        (CellReading::BothCopies(_, copy), WhichSheet::Copy) => writers_cell(copy, writer, writer),
        _ => None,
    }
}

/// One evidence entry read from `sheet` with each cell taken through its writer's confusions
/// (a writer without any is read as before).
fn taken_through<'a>(
    reading: &CellReading,
    sheet: WhichSheet,
    confusions_of: &impl Fn(WhichSheet) -> Option<&'a Confusions>,
    evidence_scale: f32,
) -> CellReading {
    match reading {
        CellReading::Read(cell) => {
            // `through` refuses only malformed confusions; the cell as read is the fallback.
            let meant = confusions_of(sheet).and_then(|c| cell.through(c).ok());
            let meant = meant.unwrap_or_else(|| cell.unscored());
            CellReading::Read(meant.with_scale(evidence_scale))
        }
        CellReading::Blank(blank) => CellReading::Blank(blank.clone()),
        CellReading::BothCopies(own, copy) => CellReading::BothCopies(
            Box::new(taken_through(
                own,
                WhichSheet::Own,
                confusions_of,
                evidence_scale,
            )),
            Box::new(taken_through(
                copy,
                WhichSheet::Copy,
                confusions_of,
                evidence_scale,
            )),
        ),
    }
}

/// One writer's confusions, from the moves of `game` decoded at least [`SURE_CONFIDENCE`]
/// sure whose evidence entry holds a cell of theirs (`cell_of(entry)`): each such cell's best
/// path aligned with the written form, in `language`'s piece letters, of its move that the
/// cell scores best; `None` if no character was misread [`MIN_MISREADINGS`] times.
pub fn confusions<'a>(
    game: &Game,
    language: &'static Language,
    cell_of: impl Fn(usize) -> Option<&'a CtcCell>,
) -> Option<Confusions> {
    let charset = game
        .moves
        .iter()
        .filter_map(|m| m.cell)
        .find_map(&cell_of)
        .map(|cell| Arc::clone(&cell.posteriors().charset))?;
    let classes = charset.classes();
    // counts[read][meant]
    let mut counts = vec![vec![0f64; classes]; classes];
    let style = Style::default();
    let mut position = game.start.position.clone();
    for (decoded, played) in game.moves.iter().zip(game.played_moves()) {
        let cell = decoded
            .cell
            .filter(|_| decoded.confidence >= SURE_CONFIDENCE)
            .and_then(&cell_of);
        if let Some(reading) = cell {
            let check = Check::after(&position, played);
            let facts = MoveFacts::new(played, &position.legal_moves(), position.turn(), check);
            let mut written = (f32::NEG_INFINITY, String::new());
            let mut chars = Vec::with_capacity(16);
            for_each_form(&facts, language, &style, &mut |text, weight| {
                chars.clear();
                chars.extend(text.chars());
                let score = weight + reading.posteriors().log_likelihood(&chars);
                if score > written.0 {
                    written = (score, text.to_string());
                }
            });
            for (read, meant) in aligned_characters(reading.text(), &written.1) {
                if let (Some(read), Some(meant)) = (charset.class(read), charset.class(meant)) {
                    counts[read][meant] += 1.0;
                }
            }
        }
        position.play_unchecked(played);
    }
    let mut confusions = vec![Vec::new(); classes];
    let mut any = false;
    // Class 0 is the CTC blank: a character read as nothing stays a deletion, not a confusion.
    for read in 1..classes {
        let total: f64 = counts[read].iter().sum();
        if total - counts[read][read] < MIN_MISREADINGS {
            continue;
        }
        any = true;
        confusions[read] = (0..classes)
            .filter(|&meant| counts[read][meant] > 0.0 || meant == read)
            .map(|meant| {
                let prior = if meant == read { PRIOR_READINGS } else { 0.0 };
                (
                    meant,
                    (counts[read][meant] + prior) / (total + PRIOR_READINGS),
                )
            })
            .collect();
    }
    any.then_some(confusions)
}

/// The characters of `read` and `meant` that a least-edits alignment pairs (equal or
/// substituted), in order; characters only one of them has are left out.
pub fn aligned_characters(read: &str, meant: &str) -> Vec<(char, char)> {
    let (a, b): (Vec<char>, Vec<char>) = (read.chars().collect(), meant.chars().collect());
    let (n, m) = (a.len(), b.len());
    let mut edits = vec![vec![0usize; m + 1]; n + 1];
    for i in 0..=n {
        for j in 0..=m {
            edits[i][j] = match (i, j) {
                (0, _) => j,
                (_, 0) => i,
                _ => (edits[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]))
                    .min(edits[i - 1][j] + 1)
                    .min(edits[i][j - 1] + 1),
            };
        }
    }
    let (mut i, mut j, mut pairs) = (n, m, Vec::new());
    while i > 0 && j > 0 {
        if edits[i][j] == edits[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]) {
            pairs.push((a[i - 1], b[j - 1]));
            (i, j) = (i - 1, j - 1);
        } else if edits[i][j] == edits[i - 1][j] + 1 {
            i -= 1;
        } else {
            j -= 1;
        }
    }
    pairs.reverse();
    pairs
}

#[cfg(test)]
mod tests {
    use shakmaty::san::San;
    use shakmaty::uci::UciMove;
    use shakmaty::{CastlingMode, Chess};

    use super::*;
    use crate::decode::{DecodedMove, EndState, StepKind};
    use crate::notation::Language;
    use crate::recognize::evidence::tests::read_as;
    use crate::recognize::Charset;
    use crate::start::StartPosition;

    /// A game decoded for sure from one cell per move, `flagged` of them flagged anyway.
    fn sure_game(sans: &[&str], flagged: usize) -> Game {
        let mut position = Chess::default();
        let moves = sans
            .iter()
            .enumerate()
            .map(|(i, san)| {
                let played = san.parse::<San>().unwrap().to_move(&position).unwrap();
                let uci = UciMove::from_move(played, CastlingMode::Standard).to_string();
                position.play_unchecked(played);
                DecodedMove {
                    ply: i + 1,
                    san: san.to_string(),
                    uci,
                    cell: Some(i),
                    written: None,
                    confidence: 1.0,
                    alternatives: Vec::new(),
                    flagged: i < flagged,
                    written_fits: true,
                    written_copy: None,
                    sheets_differ: None,
                    written_alike: None,
                    in_doubtful_stretch: false,
                    kind: StepKind::Written,
                    draw_offer: false,
                }
            })
            .collect();
        Game {
            start: StartPosition::standard(),
            language: Language::by_code("en").unwrap(),
            moves,
            end: EndState::Ongoing,
            result: "*".into(),
            unused_cells: Vec::new(),
            score: 0.0,
            opening: None,
        }
    }

    fn charset() -> Arc<Charset> {
        let chars: Vec<char> = "abcdefgh12345678KQRBNx-+".chars().collect();
        Arc::new(Charset::new(&chars).unwrap())
    }

    /// A writer whose `c` the reader takes for an `e`, in four of the six cells it reads an `e`.
    fn c_read_as_e(flagged: usize) -> (Game, Vec<CellReading>, Arc<Charset>) {
        let charset = charset();
        let game = sure_game(&["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3"], flagged);
        let read = ["e4", "e5", "Nf3", "Ne6", "Be4", "Be5", "e3"];
        let evidence = read
            .iter()
            .map(|text| CellReading::Read(CtcCell::new(read_as(&charset, text, 0.8))))
            .collect();
        (game, evidence, charset)
    }

    fn english() -> &'static Language {
        Language::by_code("en").unwrap()
    }

    /// The confusions of a one-sheet game's writer.
    fn sheets_confusions(game: &Game, evidence: &[CellReading]) -> Option<Confusions> {
        confusions(game, english(), |entry| match evidence.get(entry)? {
            CellReading::Read(cell) => Some(cell),
            _ => None,
        })
    }

    /// The readings taken through the confusions learnt from `game`, if any ([`learn`],
    /// [`Learnt::taken_through`]).
    fn adapt(
        game: &Game,
        evidence: &[CellReading],
        sheets: &[WhichSheet],
        copy_language: &'static Language,
        evidence_scale: f32,
    ) -> Option<Vec<CellReading>> {
        let learnt = learn(game, evidence, sheets, copy_language)?;
        Some(learnt.taken_through(evidence, sheets, evidence_scale))
    }

    /// [`adapt`] for one sheet, no copy.
    fn adapt_sheet(game: &Game, evidence: &[CellReading]) -> Option<Vec<CellReading>> {
        let sheets = vec![WhichSheet::Own; evidence.len()];
        adapt(game, evidence, &sheets, english(), 1.0)
    }

    fn score(reading: &CellReading, text: &str) -> f32 {
        let chars: Vec<char> = text.chars().collect();
        reading.log_likelihood(&chars, "", f32::NEG_INFINITY)
    }

    /// Runs [`adapt_in_rounds`] from the game `games[0]`, each round decoding the next game
    /// of `games` (the last one again once they run out); `learnt[i]` is what the `i`th call
    /// of `learn` learns (`None`: nothing; past the list, something new each time). Returns
    /// the rounds decoded and the last game's moves.
    fn rounds_over(
        games: &[&[&str]],
        learnt: &[Option<usize>],
        max_rounds: usize,
    ) -> (usize, usize) {
        let mut calls = 0;
        let mut decoded = 0;
        let (last, readings) = adapt_in_rounds(
            sure_game(games[0], 0),
            |_| {
                calls += 1;
                learnt.get(calls - 1).copied().unwrap_or(Some(100 + calls))
            },
            |&learnt: &usize, _| {
                decoded += 1;
                Some((sure_game(games[decoded.min(games.len() - 1)], 0), learnt))
            },
            max_rounds,
        );
        assert_eq!(readings.is_some(), decoded > 0);
        (decoded, last.moves.len())
    }

    #[test]
    fn rounds_of_adaptation_stop_once_the_game_settles() {
        let a: &[&str] = &["e4", "e5"];
        let b: &[&str] = &["e4", "e5", "Nf3"];
        let c: &[&str] = &["d4", "d5", "c4"];
        let b_but_one: &[&str] = &["e4", "e5", "Nc3"];
        // The first round decodes the same game: done.
        assert_eq!(rounds_over(&[a, a], &[], 3), (1, 2));
        // Each round mends the game: as many rounds as allowed.
        assert_eq!(rounds_over(&[a, b, c, a], &[], 3), (3, 2));
        // The second round decodes what the first did: two rounds.
        assert_eq!(rounds_over(&[a, b, b, c], &[], 3), (2, 3));
        // Moves alike but one: not settled.
        assert_eq!(rounds_over(&[b, b_but_one, b_but_one], &[], 5), (2, 3));
        // Nothing to learn from the first game: no round, the first game kept.
        assert_eq!(rounds_over(&[a, b], &[None], 3), (0, 2));
        // Nothing more to learn after a round: that round's game kept.
        assert_eq!(rounds_over(&[a, b, c], &[Some(1), None], 3), (1, 3));
        // The changed game teaches what the round before learnt: not decoded again.
        assert_eq!(rounds_over(&[a, b, c], &[Some(1), Some(1)], 3), (1, 3));
        assert_eq!(
            rounds_over(&[a, b, c, a], &[Some(1), Some(2), Some(2)], 3),
            (2, 3)
        );
        assert_eq!(rounds_over(&[a, b], &[], 0), (0, 2));
    }

    #[test]
    fn a_round_whose_search_missed_the_game_before_keeps_it_and_stops() {
        let a: &[&str] = &["e4", "e5"];
        let b: &[&str] = &["e4", "e5", "Nf3"];
        let mut learnt = 0;
        let mut rounds = 0;
        let (kept, readings) = adapt_in_rounds(
            sure_game(a, 0),
            |_| {
                learnt += 1;
                Some(learnt)
            },
            |&round: &usize, before| {
                rounds += 1;
                match round {
                    1 => Some((sure_game(b, 0), "first round's readings")),
                    _ => {
                        assert_eq!(before.moves.len(), b.len(), "given the game before");
                        None
                    }
                }
            },
            MAX_ROUNDS,
        );
        assert_eq!(rounds, 2);
        assert_eq!(kept.moves.len(), b.len());
        assert_eq!(readings, Some("first round's readings"));
    }

    #[test]
    fn alignment_pairs_equal_and_substituted_characters_only() {
        let pairs = |read, meant| aligned_characters(read, meant);
        assert_eq!(
            pairs("Rg4+", "Rg7+"),
            [('R', 'R'), ('g', 'g'), ('4', '7'), ('+', '+')]
        );
        assert_eq!(pairs("xe5", "dxe5"), [('x', 'x'), ('e', 'e'), ('5', '5')]);
        assert_eq!(
            pairs("Bexe5", "Bxe5"),
            [('B', 'B'), ('x', 'x'), ('e', 'e'), ('5', '5')]
        );
        assert!(pairs("", "e4").is_empty());
    }

    #[test]
    fn a_character_misread_across_the_sheet_is_learnt_with_the_readers_word_counted() {
        let (game, evidence, charset) = c_read_as_e(0);
        let confusions = sheets_confusions(&game, &evidence).expect("e was misread four times");
        let [c, e] = ['c', 'e'].map(|ch| charset.class(ch).unwrap());
        // Read `e` six times: meant `c` four times and `e` twice, plus the prior readings.
        let total = 6.0 + PRIOR_READINGS;
        let mut learnt = confusions[e].clone();
        learnt.sort_by_key(|&(class, _)| class);
        let mut expected = vec![(c, 4.0 / total), (e, (2.0 + PRIOR_READINGS) / total)];
        expected.sort_by_key(|&(class, _)| class);
        assert_eq!(learnt.len(), 2);
        for ((class, p), (want_class, want_p)) in learnt.iter().zip(&expected) {
            assert_eq!(class, want_class);
            assert!((p - want_p).abs() < 1e-9, "{p} vs {want_p}");
        }
        // Every other character reads as itself.
        let adapted = (1..charset.classes()).filter(|&r| !confusions[r].is_empty());
        assert_eq!(adapted.collect::<Vec<_>>(), [e]);
    }

    #[test]
    fn a_sure_game_or_a_writer_read_right_is_not_decoded_again() {
        let (game, evidence, _) = c_read_as_e(MIN_FLAGGED - 1);
        assert!(adapt_sheet(&game, &evidence).is_none());
        let charset = charset();
        let game = sure_game(&["e4", "e5", "Nf3"], MIN_FLAGGED);
        let evidence: Vec<CellReading> = ["e4", "e5", "Nf3"]
            .iter()
            .map(|text| CellReading::Read(CtcCell::new(read_as(&charset, text, 0.8))))
            .collect();
        assert!(sheets_confusions(&game, &evidence).is_none());
        assert!(adapt_sheet(&game, &evidence).is_none());
    }

    #[test]
    fn adapted_cells_favour_what_the_writer_meant() {
        let (game, evidence, _) = c_read_as_e(MIN_FLAGGED);
        let adapted = adapt_sheet(&game, &evidence).expect("enough flagged moves to mend");
        // The cell read `Ne6`: Nc6 gains, and the writer's `e` still counts as an `e`.
        assert!(score(&adapted[3], "Nc6") > score(&evidence[3], "Nc6") + 1.0);
        assert!(score(&adapted[3], "Ne6") > score(&adapted[3], "Nc6"));
        // Cells without an `e` are read as before.
        assert!((score(&adapted[2], "Nf3") - score(&evidence[2], "Nf3")).abs() < 1e-4);
    }

    #[test]
    fn each_players_copy_is_adapted_to_its_own_writer() {
        let charset = charset();
        let game = sure_game(&["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3"], MIN_FLAGGED);
        // The own sheet's writer curls `c` into an `e`; the copy's writer is read right, but
        // did not write the last move, where only the own sheet's cell is evidence.
        let own_read = ["e4", "e5", "Nf3", "Ne6", "Be4", "Be5", "e3"];
        let copy_read = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", ""];
        let read = |text: &str| CellReading::Read(CtcCell::new(read_as(&charset, text, 0.8)));
        let evidence: Vec<CellReading> = own_read
            .iter()
            .zip(copy_read)
            .map(|(own, copy)| match copy {
                "" => read(own),
                _ => CellReading::BothCopies(Box::new(read(own)), Box::new(read(copy))),
            })
            .collect();
        let sheets = vec![WhichSheet::Own; evidence.len()];
        let adapted =
            adapt(&game, &evidence, &sheets, english(), 1.0).expect("the own writer misreads");
        let (
            CellReading::BothCopies(own_before, copy_before),
            CellReading::BothCopies(own_after, copy_after),
        ) = (&evidence[3], &adapted[3])
        else {
            panic!("a fused entry stays fused");
        };
        assert!(score(own_after, "Nc6") > score(own_before, "Nc6") + 1.0);
        // The copy's writer taught no confusion: its cell is read as before.
        for text in ["Nc6", "Ne6"] {
            assert!((score(copy_after, text) - score(copy_before, text)).abs() < 1e-4);
        }
        // A ply only the own sheet wrote is adapted as the own writer's.
        assert!(score(&adapted[6], "c3") > score(&evidence[6], "c3") + 1.0);
        // The same lone cell taken as the copy writer's, who misread one `c` only there.
        let copy_sheets = vec![WhichSheet::Copy; evidence.len()];
        let copy_writer = adapt(&game, &evidence, &copy_sheets, english(), 1.0)
            .expect("the fused own cells still teach the own writer");
        assert!(
            (score(&copy_writer[6], "c3") - score(&evidence[6], "c3")).abs() < 1e-4,
            "a lone cell of the copy's writer, whose one misreading teaches nothing"
        );
    }
}
