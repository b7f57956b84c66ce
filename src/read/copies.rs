//! Both players' scoresheets of one game as one evidence sequence ([`fuse_copies`]): each
//! sheet decoded alone tells which ply each of its cells holds, and the two readings of a ply
//! are fused.

use std::cmp::Ordering;

use super::{flag_faint_readings, CellReading, GameCell, ReadOptions};
use crate::decode::{decode_along, decode_remembering, Game, PriorMemo};
use crate::notation::Language;

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

/// Where one entry of the fused evidence comes from: cells of the own sheet, of the copy, or
/// both.
enum Source {
    Own(usize),
    Copy(usize),
    Both(usize, usize),
}

/// Both players' sheets as one evidence sequence in ply order: each sheet is decoded alone
/// first, which tells what ply each of its cells holds despite its own slips (a move one
/// player skipped, two cells swapped, a crossed-out cell), and the two readings of a ply are
/// fused ([`CellReading::BothCopies`]). A ply only one sheet wrote keeps that sheet's cell;
/// cells neither decoding read a move from keep their place in the own sheet's order. Returns
/// the cells and the evidence, entry for entry, and the piece letters the copy is written in
/// when they may not be the game's (see [`DecoderConfig::copy_language`](crate::decode::DecoderConfig::copy_language)).
pub(super) fn fuse_copies(
    own_cells: Vec<GameCell>,
    own: Vec<CellReading>,
    copy_cells: Vec<GameCell>,
    copy: Vec<CellReading>,
    options: &ReadOptions,
    priors: &PriorMemo,
) -> (Vec<GameCell>, Vec<CellReading>, Option<&'static Language>) {
    // Flagged as the reader of the sheet alone would see it, faint cells included: a faint
    // pencil is doubted as much as its flags say.
    let alone = |evidence: &[CellReading], cells: &[GameCell]| {
        let mut game = decode_remembering(
            evidence,
            &options.start,
            options.language,
            &options.decoder,
            priors,
        );
        flag_faint_readings(&mut game, cells);
        game
    };
    let (own_game, copy_game) =
        rayon::join(|| alone(&own, &own_cells), || alone(&copy, &copy_cells));
    // A decoding that goes astray (a cascade after a player's skipped moves) would pair its
    // cells with the wrong plies: the sheet whose decoding doubts more of its moves is aligned
    // to the other's game instead, by the decoder's slips.
    let doubt = |game: &Game| game.flagged().count() as f32 / game.moves.len().max(1) as f32;
    let along = |evidence: &[CellReading], written_in: &'static Language, leader: &Game| {
        decode_along(
            evidence,
            &options.start,
            written_in,
            &leader.played_moves(),
            &options.decoder,
        )
    };
    // Players of one game may write in different piece letters, but a doubtful decoding may
    // also have guessed its sheet's letters wrong: the copy's own letters are trusted when its
    // decoding is the surer one, else it is read in the letters of the game found.
    let copy_doubt = doubt(&copy_game).total_cmp(&doubt(&own_game));
    let copy_language = copy_doubt.is_le().then_some(copy_game.language);
    let (own_game, copy_game) = match copy_doubt {
        Ordering::Greater => {
            let aligned = along(&copy, own_game.language, &own_game).unwrap_or(copy_game);
            (own_game, aligned)
        }
        Ordering::Less => {
            let aligned = along(&own, own_game.language, &copy_game).unwrap_or(own_game);
            (aligned, copy_game)
        }
        Ordering::Equal => (own_game, copy_game),
    };
    let own_plies = Alignment::of(&own_game, own.len());
    let copy_plies = Alignment::of(&copy_game, copy.len());
    let last_ply = own_plies.moves.max(copy_plies.moves);
    let (own_at_ply, copy_at_ply) = (
        own_plies.cell_of_ply(last_ply),
        copy_plies.cell_of_ply(last_ply),
    );

    let mut order = Vec::with_capacity(own.len());
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
    unclaimed_before(own.len(), &mut order);

    // Every cell index appears in `order` at most once.
    let mut own: Vec<Option<CellReading>> = own.into_iter().map(Some).collect();
    let mut copy: Vec<Option<CellReading>> = copy.into_iter().map(Some).collect();
    let (cells, evidence) = order
        .into_iter()
        .filter_map(|source| match source {
            Source::Own(i) => Some((own_cells[i].clone(), own[i].take()?)),
            Source::Copy(j) => Some((copy_cells[j].clone(), copy[j].take()?)),
            Source::Both(i, j) => {
                let (mine, theirs) = (own[i].take()?, copy[j].take()?);
                let cell = GameCell {
                    copy: Some(Box::new(copy_cells[j].clone())),
                    ..own_cells[i].clone()
                };
                Some((
                    cell,
                    CellReading::BothCopies(Box::new(mine), Box::new(theirs)),
                ))
            }
        })
        .unzip();
    (cells, evidence, copy_language)
}
