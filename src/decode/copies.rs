//! Both players' scoresheets of one game as one evidence sequence: each sheet decoded alone
//! tells which ply each of its cells holds ([`align_copies`]), and the two sheets' cells of a
//! ply are read together ([`OnBothSheets`]). `read --copy` fuses two scanned sheets so;
//! [`fuse_copies`] fuses any two sequences of evidence, such as two typed transcripts.

use std::cmp::Ordering;

use shakmaty::Move;

use super::{
    decode_along, decode_remembering, mark_doubtful_stretches, mark_sheets_differ,
    mark_written_alike, CellEvidence, DecoderConfig, Game, LanguageChoice, PriorMemo,
};
use crate::notation::Language;
use crate::start::StartPosition;

/// One of the two scoresheets of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhichSheet {
    /// The sheet the game is read from (`read PAGE...`, `decode TRANSCRIPT`).
    Own,
    /// The other player's copy (`read --copy PAGE...`, `decode --copy TRANSCRIPT`).
    Copy,
}

impl WhichSheet {
    /// Its name in the JSON: `"own"` or `"copy"`.
    pub fn name(self) -> &'static str {
        match self {
            WhichSheet::Own => "own",
            WhichSheet::Copy => "copy",
        }
    }
}

/// A ply read from both players' sheets where one sheet, read alone, reads as another legal
/// move than the one chosen: the two records disagree, and only the game around the ply
/// decided between them, which an arbiter should see (FIDE Laws art. 8.1: each player's
/// record is evidence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetsDiffer {
    /// The sheet that reads otherwise.
    pub sheet: WhichSheet,
    /// The move it reads as, in standard English SAN.
    pub san: String,
}

/// How much better (nats) a sheet alone must fit another legal move than the chosen one for
/// the ply to count as [`SheetsDiffer`]: more than a dropped capture or check mark, less
/// than a written wrong square (5.0 nats and more in the typed channel).
pub const SHEETS_DIFFER_NATS: f32 = 3.0;

/// One ply's cells on both players' sheets, as evidence: independent readings of the same
/// move, so their likelihoods multiply; each sheet's part is floored at its own junk price, so
/// a scrawl on one sheet leaves the decision to the other. A blank or illegible cell on one
/// sheet leaves the other's alone.
#[derive(Clone, Copy)]
pub struct OnBothSheets<'a> {
    pub own: &'a dyn CellEvidence,
    pub copy: &'a dyn CellEvidence,
}

impl<'a> OnBothSheets<'a> {
    pub fn log_likelihood(&self, body: &[char], mark: &str, needed: f32) -> f32 {
        match (self.own.is_illegible(), self.copy.is_illegible()) {
            (false, true) => self.own.log_likelihood(body, mark, needed),
            (true, false) => self.copy.log_likelihood(body, mark, f32::NEG_INFINITY),
            _ => {
                let part = |c: &dyn CellEvidence| {
                    c.log_likelihood(body, mark, f32::NEG_INFINITY)
                        .max(c.unreadable_log_likelihood())
                };
                part(self.own) + part(self.copy)
            }
        }
    }

    pub fn unreadable_log_likelihood(&self) -> f32 {
        match (self.own.is_illegible(), self.copy.is_illegible()) {
            (false, true) => self.own.unreadable_log_likelihood(),
            (true, false) => self.copy.unreadable_log_likelihood(),
            _ => self.own.unreadable_log_likelihood() + self.copy.unreadable_log_likelihood(),
        }
    }

    pub fn readings(&self) -> usize {
        match (self.own.is_illegible(), self.copy.is_illegible()) {
            (false, true) | (true, false) => 1,
            _ => self.own.readings() + self.copy.readings(),
        }
    }

    pub fn is_illegible(&self) -> bool {
        self.own.is_illegible() && self.copy.is_illegible()
    }

    /// The own sheet's text, or the copy's where the own cell is blank.
    pub fn text(self) -> &'a str {
        if self.own.is_illegible() {
            self.copy.text()
        } else {
            self.own.text()
        }
    }

    pub fn draw_offer(&self) -> bool {
        self.own.draw_offer() || self.copy.draw_offer()
    }
}

/// One entry of two sheets' fused evidence ([`fuse_copies`]): a cell of one sheet, or the
/// same ply's cells on both.
pub enum FusedCell<E> {
    One(E),
    Both(E, E),
}

impl<E: CellEvidence> FusedCell<E> {
    /// `one` of the single sheet's cell, or `both` of the two read together.
    fn either<'a, T>(
        &'a self,
        one: impl FnOnce(&'a E) -> T,
        both: impl FnOnce(OnBothSheets<'a>) -> T,
    ) -> T {
        match self {
            FusedCell::One(cell) => one(cell),
            FusedCell::Both(own, copy) => both(OnBothSheets { own, copy }),
        }
    }
}

impl<E: CellEvidence> CellEvidence for FusedCell<E> {
    fn log_likelihood(&self, body: &[char], mark: &str, needed: f32) -> f32 {
        self.either(
            |cell| cell.log_likelihood(body, mark, needed),
            |both| both.log_likelihood(body, mark, needed),
        )
    }

    fn factored(&self) -> Option<&dyn super::evidence::FactoredEvidence> {
        self.either(|cell| cell.factored(), |_| None)
    }

    fn unreadable_log_likelihood(&self) -> f32 {
        self.either(
            |cell| cell.unreadable_log_likelihood(),
            |both| both.unreadable_log_likelihood(),
        )
    }

    fn is_illegible(&self) -> bool {
        self.either(|cell| cell.is_illegible(), |both| both.is_illegible())
    }

    fn text(&self) -> &str {
        self.either(|cell| cell.text(), |both| both.text())
    }

    fn draw_offer(&self) -> bool {
        self.either(|cell| cell.draw_offer(), |both| both.draw_offer())
    }

    fn readings(&self) -> usize {
        self.either(|cell| cell.readings(), |both| both.readings())
    }

    fn copies(&self) -> Option<(&dyn CellEvidence, &dyn CellEvidence)> {
        match self {
            FusedCell::One(_) => None,
            FusedCell::Both(own, copy) => Some((own, copy)),
        }
    }
}

/// Where one entry of two sheets' fused evidence comes from: a cell of the own sheet, of the
/// copy, or both (indices into each sheet's cells).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Own(usize),
    Copy(usize),
    Both(usize, usize),
}

/// How two sheets' cells line up ([`align_copies`]).
#[derive(Debug, Clone)]
pub struct CopiesAligned {
    /// The fused sequence in ply order; every cell of either sheet appears at most once.
    pub order: Vec<Source>,
    /// The piece letters the copy is written in, when they may not be the game's (see
    /// [`DecoderConfig::copy_language`]).
    pub copy_language: Option<&'static Language>,
    /// The games the own sheet's and the copy's cells were lined up with.
    along: [Vec<Move>; 2],
}

impl CopiesAligned {
    /// Whether both sheets' cells were lined up with `game`'s moves: lined up along it again
    /// ([`align_along`]), they would stay as they are.
    pub fn lined_up_along(&self, game: &Game) -> bool {
        let moves = game.played_moves();
        self.along.iter().all(|along| *along == moves)
    }
}

/// The plies of one sheet's cells as decoding that sheet alone aligns them: `plies[i]` is the
/// ply read from cell `i` (`None`: a junk cell or one past the game), and `moves` the number of
/// plies in that sheet's game.
struct Alignment {
    plies: Vec<Option<usize>>,
    moves: usize,
}

impl Alignment {
    fn of(game: &Game, cells: usize) -> Alignment {
        let mut plies = vec![None; cells];
        for m in &game.moves {
            if let Some(slot) = m.cell.and_then(|c| plies.get_mut(c)) {
                *slot = Some(m.ply);
            }
        }
        Alignment {
            plies,
            moves: game.moves.len(),
        }
    }

    /// The cell each ply up to `last_ply` was read from (index 0 unused).
    fn cell_of_ply(&self, last_ply: usize) -> Vec<Option<usize>> {
        let mut cells = vec![None; last_ply + 1];
        for (cell, ply) in self.plies.iter().enumerate() {
            if let Some(slot) = ply.and_then(|p| cells.get_mut(p)) {
                slot.get_or_insert(cell);
            }
        }
        cells
    }
}

/// Lines up both players' sheets of one game by ply: each sheet is decoded alone first, which
/// tells what ply each of its cells holds despite its own slips (a move one player skipped,
/// two cells swapped, a crossed-out cell). A ply only one sheet wrote keeps that sheet's cell;
/// cells neither decoding read a move from keep their place in the own sheet's order.
/// `adjust_own` and `adjust_copy` see each sheet's decoding before it is trusted (the page
/// reader flags moves read from faint pencil there).
#[allow(clippy::too_many_arguments)]
pub fn align_copies<E: CellEvidence>(
    own: &[E],
    copy: &[E],
    start: &StartPosition,
    language: LanguageChoice,
    config: &DecoderConfig,
    priors: &PriorMemo,
    adjust_own: impl Fn(&mut Game) + Sync,
    adjust_copy: impl Fn(&mut Game) + Sync,
) -> CopiesAligned {
    let alone = |evidence: &[E], adjust: &(dyn Fn(&mut Game) + Sync)| {
        let mut game = decode_remembering(evidence, start, language, config, priors);
        adjust(&mut game);
        game
    };
    let (own_game, copy_game) =
        rayon::join(|| alone(own, &adjust_own), || alone(copy, &adjust_copy));
    // A decoding that goes astray (a cascade after a player's skipped moves) would pair its
    // cells with the wrong plies: the sheet whose decoding doubts more of its moves is aligned
    // to the other's game instead, by the decoder's slips.
    let doubt = |game: &Game| game.flagged().count() as f32 / game.moves.len().max(1) as f32;
    let along = |evidence: &[E], written_in: &'static Language, leader: &Game| {
        decode_along(evidence, start, written_in, &leader.played_moves(), config)
    };
    // Players of one game may write in different piece letters, but a doubtful decoding may
    // also have guessed its sheet's letters wrong: the copy's own letters are trusted when its
    // decoding is the surer one, else it is read in the letters of the game found.
    let copy_doubt = doubt(&copy_game).total_cmp(&doubt(&own_game));
    let copy_language = copy_doubt.is_le().then_some(copy_game.language);
    let (own_game, copy_game) = match copy_doubt {
        Ordering::Greater => {
            let aligned = along(copy, own_game.language, &own_game).unwrap_or(copy_game);
            (own_game, aligned)
        }
        Ordering::Less => {
            let aligned = along(own, own_game.language, &copy_game).unwrap_or(own_game);
            (aligned, copy_game)
        }
        Ordering::Equal => (own_game, copy_game),
    };
    let order = order_by_ply(&own_game, own.len(), &copy_game, copy.len());
    CopiesAligned {
        order,
        copy_language,
        along: [own_game.played_moves(), copy_game.played_moves()],
    }
}

/// Both sheets' cells lined up along `game`, the game their fused evidence decodes to: each
/// sheet aligned with it by the decoder's slips (the copy in `copy_language`, or the game's
/// letters), the order of their cells by ply as [`align_copies`] makes it. The sheet that
/// leads the first alignment may have gone astray where the fused game did not (a copy read
/// `B:c5` for the queen's `V:c5` led a Hungarian pair into a world of two moves nobody
/// wrote): lined up along the better game, the cells meet their own plies. `None` when a
/// sheet cannot be aligned with `game`.
pub fn align_along<E: CellEvidence>(
    own: &[E],
    copy: &[E],
    start: &StartPosition,
    game: &Game,
    copy_language: Option<&'static Language>,
    config: &DecoderConfig,
) -> Option<Vec<Source>> {
    let moves = game.played_moves();
    let (own_game, copy_game) = rayon::join(
        || decode_along(own, start, game.language, &moves, config),
        || {
            let written_in = copy_language.unwrap_or(game.language);
            decode_along(copy, start, written_in, &moves, config)
        },
    );
    Some(order_by_ply(&own_game?, own.len(), &copy_game?, copy.len()))
}

/// The fused order of two sheets' cells (`own_cells` and `copy_cells` of them) by the plies
/// each sheet's decoding reads them as. A ply only one sheet wrote keeps that sheet's cell;
/// own cells no ply claimed keep their place in the own sheet's order.
fn order_by_ply(
    own_game: &Game,
    own_cells: usize,
    copy_game: &Game,
    copy_cells: usize,
) -> Vec<Source> {
    let own_plies = Alignment::of(own_game, own_cells);
    let copy_plies = Alignment::of(copy_game, copy_cells);
    let last_ply = own_plies.moves.max(copy_plies.moves);
    let (own_at_ply, copy_at_ply) = (
        own_plies.cell_of_ply(last_ply),
        copy_plies.cell_of_ply(last_ply),
    );
    let mut order = Vec::with_capacity(own_cells);
    let mut next_own = 0;
    // Own cells before `until` that no ply claimed go in as they are, in sheet order.
    let mut unclaimed_before = |until: usize, order: &mut Vec<Source>| {
        while next_own < until {
            if own_plies.plies[next_own].is_none() {
                order.push(Source::Own(next_own));
            }
            next_own += 1;
        }
    };
    for ply in 1..=last_ply {
        match (own_at_ply[ply], copy_at_ply[ply]) {
            (Some(i), Some(j)) => {
                unclaimed_before(i, &mut order);
                order.push(Source::Both(i, j));
            }
            (Some(i), None) => {
                unclaimed_before(i, &mut order);
                order.push(Source::Own(i));
            }
            (None, Some(j)) => order.push(Source::Copy(j)),
            (None, None) => {}
        }
    }
    unclaimed_before(own_cells, &mut order);
    order
}

/// Both players' sheets (`own`, `copy`: each sheet's evidence in its own cell order) as one
/// evidence sequence in ply order ([`align_copies`]), with where each entry comes from, and
/// `config` with the copy's piece letters where they may differ from the game's.
pub fn fuse_copies<E: CellEvidence>(
    own: Vec<E>,
    copy: Vec<E>,
    start: &StartPosition,
    language: LanguageChoice,
    config: &DecoderConfig,
    priors: &PriorMemo,
) -> (Vec<FusedCell<E>>, CopiesAligned, DecoderConfig) {
    let aligned = align_copies(&own, &copy, start, language, config, priors, |_| {}, |_| {});
    let fused = fused_in_order(&aligned.order, own, copy);
    let config = DecoderConfig {
        copy_language: aligned.copy_language,
        ..config.clone()
    };
    (fused, aligned, config)
}

/// Both sheets' evidence as one sequence in `order` (every cell index in it at most once).
pub(crate) fn fused_in_order<E>(order: &[Source], own: Vec<E>, copy: Vec<E>) -> Vec<FusedCell<E>> {
    let mut own: Vec<Option<E>> = own.into_iter().map(Some).collect();
    let mut copy: Vec<Option<E>> = copy.into_iter().map(Some).collect();
    order
        .iter()
        .filter_map(|&source| match source {
            Source::Own(i) => Some(FusedCell::One(own[i].take()?)),
            Source::Copy(j) => Some(FusedCell::One(copy[j].take()?)),
            Source::Both(i, j) => Some(FusedCell::Both(own[i].take()?, copy[j].take()?)),
        })
        .collect()
}

/// The game decoded again, in `game`'s letters, from both sheets fused anew (`refused`: lined
/// up again along `game`, [`align_along`]), when that reads a likelier game than `game`.
/// `handicap` ([`left_out_handicap`]) is added to the new game's score: the two fusions may
/// leave out different cells, and a cell left out costs nothing.
pub(crate) fn likelier_again<E: CellEvidence>(
    game: &Game,
    refused: &[E],
    handicap: f32,
    start: &StartPosition,
    config: &DecoderConfig,
    priors: &PriorMemo,
) -> Option<Game> {
    let in_game_letters = LanguageChoice::Fixed(game.language);
    let again = decode_remembering(refused, start, in_game_letters, config, priors);
    (again.score + handicap > game.score).then_some(again)
}

/// What fusing both sheets in `refused` order leaves out beyond what `first` order does (copy
/// cells no ply claims), each cell left out priced as the search prices a junk cell, so that
/// games decoded from the two fusions score on the same cells. Negative where `refused` leaves
/// out more.
pub(crate) fn left_out_handicap<E: CellEvidence>(
    first: &[Source],
    refused: &[Source],
    own: &[E],
    copy: &[E],
    config: &DecoderConfig,
) -> f32 {
    left_out_cost(refused, own, copy, config) - left_out_cost(first, own, copy, config)
}

/// The cells of either sheet that `order` leaves out, priced as junk cells (a negative
/// log-score, 0 when it leaves none out).
fn left_out_cost<E: CellEvidence>(
    order: &[Source],
    own: &[E],
    copy: &[E],
    config: &DecoderConfig,
) -> f32 {
    let mut own_in = vec![false; own.len()];
    let mut copy_in = vec![false; copy.len()];
    let take = |taken: &mut [bool], index: usize| {
        if let Some(slot) = taken.get_mut(index) {
            *slot = true;
        }
    };
    for &source in order {
        match source {
            Source::Own(i) => take(&mut own_in, i),
            Source::Copy(j) => take(&mut copy_in, j),
            Source::Both(i, j) => {
                take(&mut own_in, i);
                take(&mut copy_in, j);
            }
        }
    }
    own.iter()
        .zip(own_in)
        .chain(copy.iter().zip(copy_in))
        .filter(|(_, taken)| !taken)
        .map(|(cell, _)| config.slips.junk_cell + cell.unreadable_log_likelihood())
        .sum()
}

/// Both players' sheets of one game decoded together ([`fuse_copies`], then
/// [`decode_remembering`]), lined up again along the game found when that decodes to a likelier
/// game ([`align_along`]), with the plies where one sheet reads as another legal move flagged
/// ([`mark_sheets_differ`]).
pub fn decode_both_sheets<E: CellEvidence + Clone>(
    own: Vec<E>,
    copy: Vec<E>,
    start: &StartPosition,
    language: LanguageChoice,
    config: &DecoderConfig,
    priors: &PriorMemo,
) -> Game {
    let (own_apart, copy_apart) = (own.clone(), copy.clone());
    let (mut fused, aligned, fused_config) =
        fuse_copies(own, copy, start, language, config, priors);
    let mut game = decode_remembering(&fused, start, language, &fused_config, priors);
    if !aligned.lined_up_along(&game) {
        let copy_language = fused_config.copy_language;
        let realigned = align_along(
            &own_apart,
            &copy_apart,
            start,
            &game,
            copy_language,
            &fused_config,
        )
        .filter(|realigned| *realigned != aligned.order);
        if let Some(realigned) = realigned {
            let handicap = left_out_handicap(
                &aligned.order,
                &realigned,
                &own_apart,
                &copy_apart,
                &fused_config,
            );
            let refused = fused_in_order(&realigned, own_apart, copy_apart);
            let again = likelier_again(&game, &refused, handicap, start, &fused_config, priors);
            if let Some(again) = again {
                (fused, game) = (refused, again);
            }
        }
    }
    mark_sheets_differ(&mut game, &fused, &fused_config);
    mark_written_alike(&mut game, &fused, &fused_config);
    mark_doubtful_stretches(&mut game, &fused_config);
    game
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{decode, TypedCell};

    fn typed(cells: &[&str]) -> Vec<TypedCell> {
        cells.iter().map(|t| TypedCell::new(t)).collect()
    }

    /// The usual start, English letters, the typed defaults.
    fn standard_english() -> (StartPosition, LanguageChoice, DecoderConfig) {
        let english = LanguageChoice::Fixed(Language::by_code("en").unwrap());
        (StartPosition::standard(), english, DecoderConfig::default())
    }

    fn sans(game: &Game) -> Vec<&str> {
        game.moves.iter().map(|m| m.san.as_str()).collect()
    }

    #[test]
    fn a_fusion_that_leaves_out_a_copy_cell_is_handicapped_by_that_cell_read_as_junk() {
        let own = typed(&["e4", "e5"]);
        let copy = typed(&["e4", "e5", "Nf3"]);
        let config = DecoderConfig::default();
        let every_cell = [Source::Both(0, 0), Source::Both(1, 1), Source::Copy(2)];
        let one_left_out = [Source::Both(0, 0), Source::Own(1), Source::Copy(2)];
        let as_junk = config.slips.junk_cell + copy[1].unreadable_log_likelihood();
        assert!(as_junk < -5.0, "{as_junk}");
        let handicap = |first: &[Source], refused: &[Source]| {
            left_out_handicap(first, refused, &own, &copy, &config)
        };
        assert!((handicap(&every_cell, &one_left_out) - as_junk).abs() < 1e-4);
        assert!((handicap(&one_left_out, &every_cell) + as_junk).abs() < 1e-4);
        assert_eq!(handicap(&every_cell, &every_cell), 0.0);
    }

    #[test]
    fn two_sheets_that_record_different_legal_moves_leave_the_ply_in_doubt() {
        let (start, english, config) = standard_english();
        // 3.Bb5 on the own sheet, 3.Bc4 on the copy: both legal, and nothing later tells them
        // apart. The own sheet alone is sure of its `Bb5`; with the copy, both moves stay
        // open (the move prior leans to one), the other among the alternatives.
        let own = typed(&["e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6", "d3", "Be7"]);
        let copy = typed(&["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "d3", "Be7"]);
        let alone = decode(&own, &start, english, &config);
        assert_eq!(sans(&alone)[4], "Bb5");
        assert!(alone.moves[4].confidence > 0.99, "{:?}", alone.moves[4]);
        let (fused, aligned, fused_config) =
            fuse_copies(own, copy, &start, english, &config, &PriorMemo::default());
        assert_eq!(aligned.order.len(), 8);
        assert!(aligned.order.iter().all(|s| matches!(s, Source::Both(..))));
        let game = decode(&fused, &start, english, &fused_config);
        let ply = &game.moves[4];
        assert!(ply.confidence < 0.97, "{ply:?}");
        let mut read: Vec<&str> = ply.alternatives.iter().map(|a| a.san.as_str()).collect();
        read.push(&ply.san);
        assert!(read.contains(&"Bb5") && read.contains(&"Bc4"), "{ply:?}");
        assert_eq!(
            [&sans(&game)[..4], &sans(&game)[5..]].concat(),
            ["e4", "e5", "Nf3", "Nc6", "Nf6", "d3", "Be7"]
        );
    }

    #[test]
    fn a_move_one_player_skipped_is_read_from_the_other() {
        let (start, english, config) = standard_english();
        // The own sheet's player skipped 2...Nc6; its cells after it are a ply early.
        let own = typed(&["e4", "e5", "Nf3", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"]);
        let copy = typed(&[
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7",
        ]);
        let (fused, aligned, fused_config) =
            fuse_copies(own, copy, &start, english, &config, &PriorMemo::default());
        assert!(
            aligned.order.contains(&Source::Copy(3)),
            "{:?}",
            aligned.order
        );
        let game = decode(&fused, &start, english, &fused_config);
        assert_eq!(
            sans(&game),
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"]
        );
        assert!(!game.moves[3].flagged, "{:?}", game.moves[3]);
    }

    #[test]
    fn lined_up_along_a_game_each_sheets_cells_meet_their_plies() {
        let (start, english, config) = standard_english();
        // The own sheet's player skipped 2...Nc6 and wrote 5.O-O and 5...Be7 in swapped
        // cells; the copy's player crossed out a cell after 3.Bb5 and wrote on.
        let own = typed(&["e4", "e5", "Nf3", "Bb5", "a6", "Ba4", "Nf6", "Be7", "O-O"]);
        let copy = typed(&[
            "e4", "e5", "Nf3", "Nc6", "Bb5", "xxxx", "a6", "Ba4", "Nf6", "O-O", "Be7",
        ]);
        let truth = [
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7",
        ];
        let game = decode(&typed(&truth), &start, english, &config);
        assert_eq!(sans(&game), truth);
        let order = align_along(&own, &copy, &start, &game, None, &config).unwrap();
        use Source::{Both, Copy};
        let lined_up = [
            Both(0, 0),
            Both(1, 1),
            Both(2, 2),
            Copy(3),
            Both(3, 4),
            Both(4, 6),
            Both(5, 7),
            Both(6, 8),
            Both(8, 9),
            Both(7, 10),
        ];
        assert_eq!(order, lined_up);
    }

    #[test]
    fn a_pair_first_lined_up_along_a_wrong_game_is_lined_up_again_along_the_game_of_both() {
        // The first 30 moves of game 173 of masters.pgn.gz, each sheet written by the typed
        // benchmark's generator at heavy noise (`synth::transcript`, `Rng::new(173_000)`):
        // skipped moves, swapped and illegible cells on both sheets.
        let truth = [
            "d4", "e6", "e4", "d5", "Nc3", "Nf6", "Bg5", "Bb4", "Bd3", "c5", "e5", "h6", "Bd2",
            "cxd4", "Nb5", "Bxd2+", "Qxd2", "Nfd7", "Nd6+", "Kf8", "Qf4", "f6", "exf6", "gxf6",
            "Nxc8", "e5", "Qf3", "e4", "Bxe4", "dxe4",
        ];
        let own = typed(&[
            "d4", "e6", "e4", "d5", "Nc3", "Nf6", "Bg5", "Bd3", "Bb4", "c5", "e5+", "h5", "Bd2",
            "c:d4", "Nb5", "B:d2+", "Q:d2", "Nc7", "Nd6+", "Kf8", "", "f6", "e:f6", "g;f6", "e5",
            "Qf3", "e4", "B:e5", "d:e4+",
        ]);
        let copy = typed(&[
            "d4", "e6", "e4+", "a5", "Nc3", "Nfs", "Bg5", "Bb4", "?", "B5", "e5", "h6", "Bd2",
            "cd5", "Nb5", "B:d2", "Q:d2", "N5d7", "Nd6", "f8", "Qf4", "e:f6", "g:f6", "N:c8",
            "bc5", "Qf3", "e4", "B:e4", "d:e3",
        ]);
        let (start, english, config) = standard_english();
        let priors = PriorMemo::default();
        let (fused, aligned, fused_config) =
            fuse_copies(own.clone(), copy.clone(), &start, english, &config, &priors);
        let first = decode_remembering(&fused, &start, english, &fused_config, &priors);
        assert!(!aligned.lined_up_along(&first));
        assert_ne!(sans(&first), truth);
        let game = decode_both_sheets(own, copy, &start, english, &config, &priors);
        assert_eq!(sans(&game), truth);
    }

    #[test]
    fn a_ply_where_one_sheet_reads_as_another_legal_move_is_flagged() {
        let (start, english, config) = standard_english();
        // The copy's 3.Bc4 is a legal move, disproved by 4.Bxc6 (only a bishop on b5 takes
        // there); its 2...Nc5 is a slip no legal move reads as.
        let own = typed(&["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6"]);
        let copy = typed(&["e4", "e5", "Nf3", "Nc5", "Bc4", "a6", "Bxc6", "dxc6"]);
        let game = decode_both_sheets(own, copy, &start, english, &config, &PriorMemo::default());
        assert_eq!(
            sans(&game),
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6"]
        );
        let bb5 = &game.moves[4];
        assert!(bb5.confidence > 0.9, "{bb5:?}");
        assert!(bb5.flagged, "{bb5:?}");
        let differ = SheetsDiffer {
            sheet: WhichSheet::Copy,
            san: "Bc4".into(),
        };
        assert_eq!(bb5.sheets_differ, Some(differ));
        let nc6 = &game.moves[3];
        assert_eq!(nc6.written_copy.as_deref(), Some("Nc5"));
        assert_eq!(nc6.sheets_differ, None, "{nc6:?}");
        assert!(!nc6.flagged, "{nc6:?}");
        let agreed = game.moves.iter().filter(|m| m.ply != 5);
        assert!(agreed.clone().all(|m| m.sheets_differ.is_none()));
        assert!(agreed.clone().all(|m| !m.flagged), "{:?}", game.moves);
    }
}
