//! When the first search is not enough: where its best path struggles (slips that shift
//! the cells, moves that fit their cells badly, a strained stretch), a **rescue** searches
//! those stretches again, wider and with more slips tried, and an **escalation** wider still
//! where the rescue found a likelier game that still struggles. Each keeps the likelier game.

use super::scorer::Caches;
use super::{run_search, Edge, Lattice, SearchInputs, StepKind};
use crate::decode::{CellEvidence, DecoderConfig};

/// Searches again where a first search's best path struggled (`first`'s
/// [`Lattice::troubled_cells`]), as [`search_around`] does; `None` when too little struggled
/// for a second search to pay.
pub(super) fn rescue<E: CellEvidence>(
    first: &mut Lattice,
    inputs: SearchInputs<'_, E>,
) -> Option<Lattice> {
    let (cells, config) = (inputs.cells, inputs.config);
    let mut troubled = first.troubled_cells(cells, config);
    let strained = first.strained_cells(cells, config);
    // A slip or two is what players make; the first search explains those as well as a
    // second would. Four troubled cells are where a rescue starts to pay for its time
    // (decode-bench, medium noise: from three, +0.06 points for 40% more median time).
    // Or two slips of the kind that shift the cells (a skipped move, a junk cell, a swapped
    // pair): a cascade's wrong world often needs two and fits the rest (decode-bench medium,
    // seeds 1-5: +0.09, 0, 0, +0.17, 0 points, median time unchanged).
    let worth_it = troubled.len() >= config.rescue_min_troubled.max(1)
        || first.best_path_shifts() >= config.rescue_min_slips.max(1)
        || first.slip_beside_misfit(cells, config)
        || !strained.is_empty();
    if !worth_it {
        return None;
    }
    troubled.extend(strained);
    troubled.sort_unstable();
    troubled.dedup();
    search_around(&troubled, inputs, &mut first.scored)
}

/// The search again with the layers of each `troubled` cell, the `config.rescue_back` cells
/// before it and the `config.rescue_ahead` after it keeping `config.rescue_beam_width`
/// positions within `config.rescue_margin` nats, and more of their nodes trying slips. A
/// reading that a later cell proves wrong often scores well for many cells, and a plain beam
/// fills up with its variants. `scored`: what a search of the same cells scored, taken only
/// when the search runs. `None` when `troubled` is empty or the width is 0.
pub(super) fn search_around<E: CellEvidence>(
    troubled: &[usize],
    inputs: SearchInputs<'_, E>,
    scored: &mut Caches,
) -> Option<Lattice> {
    let (cells, config) = (inputs.cells, inputs.config);
    if troubled.is_empty() || config.rescue_beam_width == 0 {
        return None;
    }
    let mut widened = vec![false; cells.len()];
    for &t in troubled {
        let from = t.saturating_sub(config.rescue_back);
        let to = (t + config.rescue_ahead + 1).min(cells.len());
        widened[from..to].iter_mut().for_each(|w| *w = true);
    }
    bridge_short_gaps(&mut widened, config.rescue_bridge);
    run_search(inputs, None, None, &widened, Some(std::mem::take(scored)))
}

/// Marks the runs of at most `longest` unmarked cells between two marked ones. A true game
/// the first search lost at a slip must outlast, between two troubled stretches, the crowd
/// of worlds that explained the slip more cheaply, until the later stretch proves it; a
/// 40-wide beam there drops it.
fn bridge_short_gaps(marked: &mut [bool], longest: usize) {
    let mut last_marked: Option<usize> = None;
    for cell in 0..marked.len() {
        if !marked[cell] {
            continue;
        }
        if let Some(last) = last_marked {
            if cell - last - 1 <= longest {
                marked[last + 1..cell].iter_mut().for_each(|m| *m = true);
            }
        }
        last_marked = Some(cell);
    }
}

/// A move fitting its cell better than this many nats (per reading) strains no stretch: a
/// way of writing that the style gives a share of its weight costs less (castling with
/// letters, one of two equal ways: 0.7 nats), and a run of such cells is how the player
/// writes, not a wrong world.
pub(super) const STRAIN_FROM: f32 = 2.0;

/// The cells that fit worse than perfectly (`fits[c] < 0`) within any run of `window` cells
/// (the whole game if shorter) whose fits sum to less than `-nats`, in order.
fn strained_stretches(fits: &[f32], window: usize, nats: f32) -> Vec<usize> {
    let mut strained = vec![false; fits.len()];
    for (start, stretch) in fits.windows(window.clamp(1, fits.len().max(1))).enumerate() {
        if stretch.iter().sum::<f32>() < -nats {
            strained[start..start + stretch.len()]
                .iter_mut()
                .for_each(|s| *s = true);
        }
    }
    (0..fits.len())
        .filter(|&c| strained[c] && fits[c] < 0.0)
        .collect()
}

/// `first`, or the lattice of a second search around the cells where its best path struggled
/// ([`rescue`]) when that finds a likelier game, then [`escalated`]: the lattice the decoder
/// reads its game from.
pub(crate) fn rescued<E: CellEvidence>(first: Lattice, inputs: SearchInputs<'_, E>) -> Lattice {
    escalated(rescued_once(first, inputs), inputs)
}

/// What a rescue ([`rescued_once`]) leaves: the likelier of the first search's lattice and
/// the rescue's, and whether the rescue found the likelier game.
pub(crate) struct Rescued {
    pub(crate) lattice: Lattice,
    pub(crate) found_likelier: bool,
}

/// `first`, or the lattice of a second search around the cells where its best path struggled
/// ([`rescue`]) when that finds a likelier game.
pub(crate) fn rescued_once<E: CellEvidence>(
    first: Lattice,
    inputs: SearchInputs<'_, E>,
) -> Rescued {
    let mut first = first;
    let second = rescue(&mut first, inputs);
    let first_best = first.best_score();
    let lattice = likelier(first, second);
    Rescued {
        found_likelier: lattice.best_score() > first_best,
        lattice,
    }
}

/// `again`, a search of the same cells after `best` (which handed it its scores), when it
/// finds a likelier game; otherwise `best` with what `again` scored.
fn likelier(best: Lattice, again: Option<Lattice>) -> Lattice {
    match again {
        Some(again) if again.best_score() > best.best_score() => again,
        Some(again) => Lattice {
            scored: again.scored,
            ..best
        },
        None => best,
    }
}

/// The rescued lattice, or that of a third, wider search (`rescue_escalation_width`) around
/// the cells where its game still struggles, in at least `rescue_escalation_troubled` of them
/// or with `rescue_escalation_slips` slips that shift the cells, when that finds a likelier
/// game. Only where the rescue itself found a likelier game than the first search, or its
/// game still needs `rescue_escalation_unrescued_slips` such slips: where a
/// search 1,024 wide finds nothing a 40-wide one missed, the cells are hard to read rather
/// than the true game pruned, and one 4,096 wide never found more either (32 such searches
/// on 24 generated sheets of seeds 99-102: the same game every time), unless that game still
/// skips moves to line up with the cells, as a wrong world the rescue kept too does.
/// The third search runs `rescue_escalation_first_width` wide first, when that is set, and
/// `rescue_escalation_width` wide only when the first found a likelier game.
pub(crate) fn escalated<E: CellEvidence>(rescued: Rescued, inputs: SearchInputs<'_, E>) -> Lattice {
    let (cells, config) = (inputs.cells, inputs.config);
    let Rescued {
        lattice: best,
        found_likelier,
    } = rescued;
    let shifts = best.best_path_shifts();
    let unrescued_slips = config.rescue_escalation_unrescued_slips > 0
        && shifts >= config.rescue_escalation_unrescued_slips;
    if !found_likelier && !unrescued_slips {
        return best;
    }
    let troubled = best.troubled_cells(cells, config);
    let needs_slips = unrescued_slips
        || (config.rescue_escalation_slips > 0 && shifts >= config.rescue_escalation_slips);
    let escalate = config.rescue_escalation_troubled > 0
        && config.rescue_escalation_width > config.rescue_beam_width
        && (troubled.len() >= config.rescue_escalation_troubled || needs_slips);
    if !escalate {
        return best;
    }
    let mut best = best;
    // Most sheets that escalate were hard to read rather than their game pruned, and a
    // narrower first step tells many of them apart for a fraction of the time; but not every
    // one (see `DecoderConfig::for_handwriting`, where it is off).
    let first_width = config.rescue_escalation_first_width;
    let first_step = (first_width > config.rescue_beam_width
        && first_width < config.rescue_escalation_width)
        .then_some(first_width);
    for width in first_step
        .into_iter()
        .chain([config.rescue_escalation_width])
    {
        let wider = DecoderConfig {
            rescue_beam_width: width,
            ..config.clone()
        };
        let before = best.best_score();
        let again = search_around(&troubled, inputs.with_config(&wider), &mut best.scored);
        best = likelier(best, again);
        if best.best_score() <= before {
            break;
        }
    }
    best
}

impl Lattice {
    /// Cells where the best path struggled: a slip explains them (a skipped move, a junk
    /// cell, two cells swapped) or the move read there fits them worse than
    /// `config.flag_fit_below`.
    pub fn troubled_cells<E: CellEvidence>(
        &self,
        cells: &[E],
        config: &DecoderConfig,
    ) -> Vec<usize> {
        let mut troubled = Vec::new();
        for (edge, read) in self.best_path_cells() {
            let (next_cell, dst_cell) = (read.start, read.end);
            let slip = edge.is_slip()
                || dst_cell > next_cell + edge.steps.iter().filter(|s| s.cell.is_some()).count();
            let misfit = edge
                .steps
                .iter()
                .any(|s| config.misfits(s.fit, s.cell.map_or(1, |c| cells[c as usize].readings())));
            if slip || misfit {
                troubled.extend(next_cell..dst_cell.max(next_cell + 1));
            }
        }
        troubled.dedup();
        troubled
    }

    /// The best path's edges, each with the cells it reads: from the cells read before it to
    /// those read after it.
    fn best_path_cells(&self) -> impl Iterator<Item = (&Edge, std::ops::Range<usize>)> + '_ {
        let mut read = 0usize;
        self.best_path().into_iter().map(move |e| {
            let edge = &self.edges[e as usize];
            let before = read;
            read = self.nodes[edge.dst as usize].cell as usize;
            (edge, before..read)
        })
    }

    /// Whether the best path has a slip that shifts the cells within
    /// `config.rescue_slip_misfit_within` cells of a move that misfits its cell (see
    /// [`DecoderConfig::misfits`]).
    pub fn slip_beside_misfit<E: CellEvidence>(&self, cells: &[E], config: &DecoderConfig) -> bool {
        let within = config.rescue_slip_misfit_within;
        if within == 0 {
            return false;
        }
        let mut slips = Vec::new();
        let mut misfits = Vec::new();
        for (edge, read) in self.best_path_cells() {
            if edge.is_slip() {
                slips.push(read.start);
            }
            for step in edge.steps.iter() {
                if let Some(cell) = step.cell {
                    let readings = cells[cell as usize].readings();
                    if step.kind == StepKind::Written && config.misfits(step.fit, readings) {
                        misfits.push(cell as usize);
                    }
                }
            }
        }
        slips
            .iter()
            .any(|&s| misfits.iter().any(|&m| s.abs_diff(m) <= within))
    }

    /// The cells of every stretch of `config.rescue_strain_cells` cells whose moves on the
    /// best path fit them worse than `config.rescue_strain_nats` together, each cell counted
    /// from [`STRAIN_FROM`] nats and at most as far as a misfit (`config.flag_fit_below`: a
    /// misfit is troubled anyway), in order (see [`strained_stretches`]); none when
    /// `rescue_strain_nats` is 0.
    pub fn strained_cells<E: CellEvidence>(
        &self,
        cells: &[E],
        config: &DecoderConfig,
    ) -> Vec<usize> {
        if config.rescue_strain_nats <= 0.0 {
            return Vec::new();
        }
        let fits: Vec<f32> = self
            .best_path_fits(cells.len())
            .into_iter()
            .zip(cells)
            .map(|(fit, cell)| {
                let readings = cell.readings() as f32;
                if fit > -STRAIN_FROM * readings {
                    0.0
                } else {
                    fit.max(config.flag_fit_below * readings)
                }
            })
            .collect();
        strained_stretches(&fits, config.rescue_strain_cells, config.rescue_strain_nats)
    }

    /// How well the best path's moves fit each of the `cells` cells (log-likelihood, the sum
    /// of the moves written in it; 0 for a cell no move is written in).
    pub(super) fn best_path_fits(&self, cells: usize) -> Vec<f32> {
        let mut fits = vec![0.0f32; cells];
        for e in self.best_path() {
            for step in self.edges[e as usize].steps.iter() {
                if let Some(fit) = step.cell.and_then(|c| fits.get_mut(c as usize)) {
                    *fit += step.fit;
                }
            }
        }
        fits
    }

    /// Slips on the best path of the kinds that shift the cells (skipped moves, junk cells,
    /// swapped pairs), counted by plies.
    pub fn best_path_shifts(&self) -> usize {
        self.best_path()
            .iter()
            .map(|&e| self.edges[e as usize].slips())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_gaps_between_rescue_stretches_are_bridged_and_long_ones_are_not() {
        let marks = |text: &str| text.chars().map(|c| c == '#').collect::<Vec<bool>>();
        let mut widened = marks("..##...#....#..#.");
        bridge_short_gaps(&mut widened, 3);
        assert_eq!(widened, marks("..######....####."));
        let mut untouched = marks("..##...#....#..#.");
        bridge_short_gaps(&mut untouched, 0);
        assert_eq!(untouched, marks("..##...#....#..#."));
        let mut empty: Vec<bool> = Vec::new();
        bridge_short_gaps(&mut empty, 5);
        assert!(empty.is_empty());
    }

    #[test]
    fn cells_fitting_badly_together_are_strained_and_scattered_ones_are_not() {
        let fits = [
            0.0, -5.0, 0.0, -4.0, -5.0, 0.0, -3.0, 0.0, 0.0, 0.0, -5.0, 0.0,
        ];
        // Cells 1-4 cost 14 nats, cells 3-6 12, cells 1-6 17.
        assert_eq!(strained_stretches(&fits, 4, 13.0), vec![1, 3, 4]);
        assert_eq!(strained_stretches(&fits, 6, 13.0), vec![1, 3, 4, 6]);
        assert_eq!(strained_stretches(&fits, 8, 16.0), vec![1, 3, 4, 6, 10]);
        assert!(strained_stretches(&fits, 4, 14.0).is_empty());
        assert!(strained_stretches(&fits, 1, 5.0).is_empty());
        assert_eq!(strained_stretches(&fits, 1, 4.5), vec![1, 4, 10]);
        // A window longer than the game is the whole game.
        assert_eq!(strained_stretches(&fits, 20, 21.0), vec![1, 3, 4, 6, 10]);
        assert!(strained_stretches(&fits, 20, 22.0).is_empty());
        assert!(strained_stretches(&[], 4, 1.0).is_empty());
    }
}
