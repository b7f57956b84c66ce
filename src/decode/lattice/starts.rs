//! The same cells searched from many starts, to tell which start the writing was played from.

use rayon::prelude::*;
use shakmaty::Chess;

use super::scorer::Caches;
use super::{run_search, PriorMemo, SearchInputs};
use crate::decode::{CellEvidence, DecoderConfig};
use crate::notation::Language;

/// Starts one rayon task searches in turn, sharing what it scores: a move's fit to a cell is
/// the same from any start, and most of an opening's moves (pawns, and pieces from the
/// squares the starts share) are offered from every start.
const STARTS_PER_TASK: usize = 24;

/// The likeliest game's score of a search of `cells` in `lang` with `config` from each of
/// `starts`, in order (negative infinity where no game reads to the end). Each task keeps its
/// own memo of move priors, dropped when it ends: the starts share few positions.
pub(crate) fn best_scores_from<E: CellEvidence>(
    starts: &[Chess],
    cells: &[E],
    lang: &Language,
    config: &DecoderConfig,
) -> Vec<f32> {
    starts
        .par_chunks(STARTS_PER_TASK)
        .flat_map_iter(|task| {
            let priors = PriorMemo::default();
            let mut scored: Option<Caches> = None;
            task.iter()
                .map(|start| {
                    let inputs = SearchInputs::new(cells, start, lang, config, &priors);
                    match run_search(inputs, None, None, &[], scored.take()) {
                        Some(mut lattice) => {
                            scored = Some(std::mem::take(&mut lattice.scored));
                            lattice.best_score()
                        }
                        None => f32::NEG_INFINITY,
                    }
                })
                .collect::<Vec<f32>>()
        })
        .collect()
}
