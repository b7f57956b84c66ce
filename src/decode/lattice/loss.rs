//! Where a search lost a known game, for the benchmarks: the search restricted to that game
//! ([`forced_search`]), its score ([`line_score`]), and the first layer that dropped it
//! ([`search_loss`]).

use shakmaty::{Chess, Move};

use super::{rescued, run_search, zobrist, Lattice, Node, PriorMemo, SearchInputs, StepKind};
use crate::decode::{CellEvidence, DecoderConfig};
use crate::notation::Language;

/// The search restricted to the known game `moves`, repairing at every node: the best ways
/// the decoder's slips can align that game with the cells.
pub(crate) fn forced_search<E: CellEvidence>(
    inputs: SearchInputs<'_, E>,
    moves: &[Move],
) -> Option<Lattice> {
    // Every node repairs (not only the best few), wherever the game's move fits its cell
    // worse than `repair_below`: an infinite bar would also call every cell one that fits no
    // move of either side, where a skipped move is never tried.
    let thorough = DecoderConfig {
        beam_margin: 1e6,
        repair_from_best: usize::MAX,
        skip_lookback: 3,
        ..inputs.config.clone()
    };
    run_search(inputs.with_config(&thorough), None, Some(moves), &[], None)
}

/// The best score the search can give the known game `moves` on these cells, aligned with
/// them by any of its slips ([`forced_search`]). A decoded path scoring below it is a search
/// error; one scoring above it, a model error. `None` when the game does not reach the end of
/// the cells.
pub(crate) fn line_score<E: CellEvidence>(
    cells: &[E],
    start: &Chess,
    lang: &Language,
    moves: &[Move],
    config: &DecoderConfig,
) -> Option<f32> {
    let priors = PriorMemo::default();
    let inputs = SearchInputs::new(cells, start, lang, config, &priors);
    let lattice = forced_search(inputs, moves)?;
    let reads_all = lattice
        .finals
        .first()
        .is_some_and(|&f| lattice.nodes[f as usize].cell as usize == cells.len());
    reads_all.then(|| lattice.best_score())
}

/// Where the search lost a known game: the first layer whose kept nodes do not include the
/// best alignment of the game there.
#[derive(Debug, Clone)]
pub struct SearchLoss {
    /// Cells read at that layer.
    pub cell: usize,
    /// Kept nodes of the layer scoring better than the game's alignment.
    pub rank: usize,
    /// Nodes the layer kept.
    pub kept: usize,
    /// How far the alignment's score is behind the layer's best, in nats.
    pub behind: f32,
    /// How the alignment's last edge explains its cells.
    pub steps: Vec<StepKind>,
}

/// Runs the search, and the search restricted to the known game `moves`, and reports the first
/// layer where the first dropped the second's best alignment (`None` if it never did).
pub(crate) fn search_loss<E: CellEvidence>(
    cells: &[E],
    start: &Chess,
    lang: &Language,
    moves: &[Move],
    config: &DecoderConfig,
) -> Option<SearchLoss> {
    let priors = PriorMemo::default();
    let inputs = SearchInputs::new(cells, start, lang, config, &priors);
    let first = run_search(inputs, None, None, &[], None)?;
    let searched = rescued(first, inputs);
    let forced = forced_search(inputs, moves)?;
    for cell in 1..=cells.len() {
        let layer: Vec<&Node> = searched
            .nodes
            .iter()
            .filter(|n| n.cell as usize == cell)
            .collect();
        let truth = forced
            .nodes
            .iter()
            .filter(|n| n.cell as usize == cell)
            .max_by(|a, b| a.best.total_cmp(&b.best))?;
        let key = zobrist(&truth.pos);
        if layer
            .iter()
            .any(|n| n.ply == truth.ply && zobrist(&n.pos) == key)
        {
            continue;
        }
        let best = layer
            .iter()
            .map(|n| n.best)
            .fold(f32::NEG_INFINITY, f32::max);
        return Some(SearchLoss {
            cell,
            rank: layer.iter().filter(|n| n.best > truth.best).count(),
            kept: layer.len(),
            behind: best - truth.best,
            steps: truth
                .best_in
                .map(|e| {
                    forced.edges[e as usize]
                        .steps
                        .iter()
                        .map(|s| s.kind)
                        .collect()
                })
                .unwrap_or_default(),
        });
    }
    None
}
