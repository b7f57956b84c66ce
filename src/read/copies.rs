//! Both players' scoresheets of one game as one evidence sequence ([`fuse_copies`]): the two
//! sheets are lined up by ply as [`align_copies`] finds, and the two readings of a ply are
//! fused.

use super::{flag_faint_readings, CellReading, GameCell, ReadOptions};
use crate::decode::{align_copies, PriorMemo, Source};
use crate::notation::Language;

/// Both players' sheets as one evidence sequence in ply order ([`align_copies`]: each sheet
/// decoded alone first, its moves read from faint pencil flagged as the reader of that sheet
/// would see them), the two readings of a ply fused ([`CellReading::BothCopies`]). Returns the
/// cells and the evidence, entry for entry, and the piece letters the copy is written in when
/// they may not be the game's (see [`DecoderConfig::copy_language`](crate::decode::DecoderConfig::copy_language)).
pub(super) fn fuse_copies(
    own_cells: Vec<GameCell>,
    own: Vec<CellReading>,
    copy_cells: Vec<GameCell>,
    copy: Vec<CellReading>,
    options: &ReadOptions,
    priors: &PriorMemo,
) -> (Vec<GameCell>, Vec<CellReading>, Option<&'static Language>) {
    let aligned = align_copies(
        &own,
        &copy,
        &options.start,
        options.language,
        &options.decoder,
        priors,
        |game| flag_faint_readings(game, &own_cells),
        |game| flag_faint_readings(game, &copy_cells),
    );
    // Every cell index appears in the order at most once.
    let mut own: Vec<Option<CellReading>> = own.into_iter().map(Some).collect();
    let mut copy: Vec<Option<CellReading>> = copy.into_iter().map(Some).collect();
    let (cells, evidence) = aligned
        .order
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
    (cells, evidence, aligned.copy_language)
}
