//! Both players' scoresheets of one game as one evidence sequence ([`fuse_copies`]): the two
//! sheets are lined up by ply as [`align_copies`] finds, and the two readings of a ply are
//! fused.

use super::{flag_faint_readings, CellReading, GameCell, ReadOptions};
use crate::decode::{
    align_along, align_copies, fused_in_order as fused_cells_in_order, left_out_handicap,
    CopiesAligned, DecoderConfig, FusedCell, Game, PriorMemo, Source,
};
use crate::start::StartPosition;

/// Both players' sheets as one evidence sequence in ply order ([`align_copies`]: each sheet
/// decoded alone first, its moves read from faint pencil flagged as the reader of that sheet
/// would see them), the two readings of a ply fused ([`CellReading::BothCopies`]). Returns the
/// cells and the evidence, entry for entry, and how the sheets were lined up.
pub(super) fn fuse_copies(
    own_cells: Vec<GameCell>,
    own: Vec<CellReading>,
    copy_cells: Vec<GameCell>,
    copy: Vec<CellReading>,
    options: &ReadOptions,
    priors: &PriorMemo,
) -> (Vec<GameCell>, Vec<CellReading>, CopiesAligned) {
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
    let (cells, evidence) = fused_in_order(&aligned.order, own_cells, own, copy_cells, copy);
    (cells, evidence, aligned)
}

/// Both sheets' cells and readings as one sequence in `order` (every cell index in it at most
/// once, [`crate::decode::fused_in_order`]); the two readings of a ply fused
/// ([`CellReading::BothCopies`]).
pub(super) fn fused_in_order(
    order: &[Source],
    own_cells: Vec<GameCell>,
    own: Vec<CellReading>,
    copy_cells: Vec<GameCell>,
    copy: Vec<CellReading>,
) -> (Vec<GameCell>, Vec<CellReading>) {
    let own = own_cells.into_iter().zip(own).collect();
    let copy = copy_cells.into_iter().zip(copy).collect();
    fused_cells_in_order(order, own, copy)
        .into_iter()
        .map(|fused| match fused {
            FusedCell::One(cell_read) => cell_read,
            FusedCell::Both((own_cell, mine), (copy_cell, theirs)) => {
                let cell = GameCell {
                    copy: Some(Box::new(copy_cell)),
                    ..own_cell
                };
                (
                    cell,
                    CellReading::BothCopies(Box::new(mine), Box::new(theirs)),
                )
            }
        })
        .unzip()
}

/// Both sheets' cells and readings kept apart from their fusion (each reading as read, its
/// scores not kept): to line them up again along the game their fusion decodes to
/// ([`SheetsApart::realigned`]).
pub(super) struct SheetsApart {
    own_cells: Vec<GameCell>,
    own: Vec<CellReading>,
    copy_cells: Vec<GameCell>,
    copy: Vec<CellReading>,
}

impl SheetsApart {
    pub(super) fn new(
        own_cells: &[GameCell],
        own: &[CellReading],
        copy_cells: &[GameCell],
        copy: &[CellReading],
    ) -> SheetsApart {
        SheetsApart {
            own_cells: own_cells.to_vec(),
            own: own.iter().map(CellReading::unscored).collect(),
            copy_cells: copy_cells.to_vec(),
            copy: copy.iter().map(CellReading::unscored).collect(),
        }
    }

    /// The cells and evidence fused in the order that lines both sheets up along `game`
    /// ([`align_along`]; the copy in `config`'s copy letters), with the handicap of a game
    /// decoded from them against `game` ([`left_out_handicap`]); `None` where that is the
    /// order they were fused in (`fused`) or a sheet cannot be aligned with `game`.
    pub(super) fn realigned(
        self,
        game: &Game,
        fused: &CopiesAligned,
        start: &StartPosition,
        config: &DecoderConfig,
    ) -> Option<Realigned> {
        if fused.lined_up_along(game) {
            return None;
        }
        let copy_language = config.copy_language;
        let order = align_along(&self.own, &self.copy, start, game, copy_language, config)?;
        if order == fused.order {
            return None;
        }
        let handicap = left_out_handicap(&fused.order, &order, &self.own, &self.copy, config);
        let (cells, evidence) =
            fused_in_order(&order, self.own_cells, self.own, self.copy_cells, self.copy);
        Some(Realigned {
            cells,
            evidence,
            handicap,
        })
    }
}

/// Both sheets fused anew, lined up along the game their first fusion decoded to
/// ([`SheetsApart::realigned`]).
pub(super) struct Realigned {
    pub(super) cells: Vec<GameCell>,
    pub(super) evidence: Vec<CellReading>,
    /// Added to the score of a game decoded from `evidence` to compare it with the first
    /// fusion's ([`left_out_handicap`]).
    pub(super) handicap: f32,
}
