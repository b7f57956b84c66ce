//! Which of a layer's candidates become its nodes ([`admit`]): the best, then the oldest
//! lineages and every alignment's best, so that a world that fell behind on a misread cell
//! or a skipped move survives until later cells vindicate it.

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use shakmaty::{Chess, Position, Square};

use super::{
    Candidate, Edge, Lattice, Node, Offered, PendingLayer, LINEAGE_DEPTHS, NODES_PER_TASK,
};
use crate::decode::DecoderConfig;

/// Counts, over a layer's nodes or candidates taken best first, how many of the same alignment
/// (plies played minus cells read) came before.
#[derive(Default)]
pub(super) struct AlignmentRanks(HashMap<i64, usize>);

/// The alignment of a node at `ply` after `cell` cells: plies played minus cells read.
pub(super) fn alignment_of(ply: u32, cell: usize) -> i64 {
    ply as i64 - cell as i64
}

impl AlignmentRanks {
    /// The rank of a node at `ply` after `cell` cells among those of its alignment seen so far.
    pub(super) fn next(&mut self, ply: u32, cell: usize) -> usize {
        let seen = self.0.entry(alignment_of(ply, cell)).or_insert(0);
        *seen += 1;
        *seen - 1
    }

    /// How many of alignment `alignment` ([`alignment_of`]) were counted.
    fn seen(&self, alignment: i64) -> usize {
        self.0.get(&alignment).copied().unwrap_or(0)
    }
}

/// The order a layer's candidates are ranked in: best first, equal scores by key, so that
/// the beam does not depend on the map's order.
fn rank_order(a: &RankedCandidate, b: &RankedCandidate) -> std::cmp::Ordering {
    b.1.best.total_cmp(&a.1.best).then(a.0.cmp(b.0))
}

/// The nodes `cand` descends from, its best edge's source first, back [`LINEAGE_DEPTHS`]
/// layers.
fn lineage_of(lattice: &Lattice, cand: &Candidate) -> [u32; LINEAGE_DEPTHS] {
    let mut lineage = [cand.best_src; LINEAGE_DEPTHS];
    for j in 1..LINEAGE_DEPTHS {
        lineage[j] = lattice.nodes[lineage[j - 1] as usize].lineage[j - 1];
    }
    lineage
}

/// What [`KeepRule::verdict`] says of a candidate.
#[derive(Debug, PartialEq)]
enum Verdict {
    Keep,
    Pass,
    /// Pass it and every candidate after it.
    Stop,
}

/// Which of a layer's candidates, taken in rank order, [`admit`] keeps: the `width` best;
/// then the first `config.lineage_extras` of a lineage not seen yet (from depth
/// `config.lineage_from`); and the first `alignment_quota` of each alignment.
struct KeepRule<'a> {
    config: &'a DecoderConfig,
    cell: usize,
    width: usize,
    alignment_quota: usize,
    seen: rustc_hash::FxHashSet<(usize, u32)>,
    extras: usize,
    alignment_ranks: AlignmentRanks,
}

impl<'a> KeepRule<'a> {
    pub(super) fn new(
        cell: usize,
        (width, alignment_quota): (usize, usize),
        config: &'a DecoderConfig,
    ) -> Self {
        KeepRule {
            config,
            cell,
            width,
            alignment_quota,
            seen: Default::default(),
            extras: 0,
            alignment_ranks: AlignmentRanks::default(),
        }
    }

    /// The verdict on the candidate of rank `rank` (every better one was judged before it),
    /// `ply` plies played, descending from `lineage`.
    fn verdict(&mut self, rank: usize, ply: u32, lineage: &[u32; LINEAGE_DEPTHS]) -> Verdict {
        let mut new_lineage = false;
        for (j, ancestor) in lineage.iter().enumerate().skip(self.config.lineage_from) {
            new_lineage |= self.seen.insert((j, *ancestor));
        }
        let alignment_rank = if self.alignment_quota > 0 {
            self.alignment_ranks.next(ply, self.cell)
        } else {
            usize::MAX
        };
        if rank < self.width {
            Verdict::Keep
        } else if new_lineage && !self.extras_taken() {
            self.extras += 1;
            Verdict::Keep
        } else if alignment_rank < self.alignment_quota {
            Verdict::Keep
        } else if self.extras_taken() && self.alignment_quota == 0 {
            Verdict::Stop
        } else {
            Verdict::Pass
        }
    }

    /// Whether every lineage extra is taken.
    fn extras_taken(&self) -> bool {
        self.extras >= self.config.lineage_extras
    }
}

/// How many candidates' lineages one rayon task looks up.
const LINEAGES_PER_TASK: usize = 256;

/// A candidate of a layer and its map key (zobrist key, plies played).
type RankedCandidate<'c> = (&'c (u64, u32), &'c Candidate);

/// Which of a layer's candidates within its margin (`ranked`, in any order) [`admit`] keeps,
/// best first, with their lineages: the `width` best, then, best first, the first
/// `config.lineage_extras` of a lineage not seen yet and the first `alignment_quota` of each
/// alignment. A wide rescue's layer holds tens of thousands of candidates and keeps a few
/// thousand: they are put in order a slice at a time, as far as the lineages need, and past
/// that each alignment's best are picked from the rest without ordering it.
fn kept_in_rank_order<'c>(
    lattice: &Lattice,
    ranked: &mut [RankedCandidate<'c>],
    cell: u32,
    (width, alignment_quota): (usize, usize),
    config: &DecoderConfig,
) -> Vec<(u64, &'c Candidate, [u32; LINEAGE_DEPTHS])> {
    let mut kept: Vec<(u64, &Candidate, [u32; LINEAGE_DEPTHS])> =
        Vec::with_capacity(width + config.lineage_extras);
    let mut rule = KeepRule::new(cell as usize, (width, alignment_quota), config);
    let mut sorted = 0;
    let mut slice = width + 4 * config.lineage_extras + 64;
    while sorted < ranked.len() {
        let end = (sorted + slice).min(ranked.len());
        let whole = ranked.len();
        let rest = &mut ranked[sorted..];
        if end < whole {
            rest.select_nth_unstable_by(end - sorted - 1, rank_order);
        }
        // Candidates' keys are distinct, so the order is total and a parallel sort gives the
        // order a sequential one does.
        rest[..end - sorted].par_sort_unstable_by(rank_order);
        // Each lineage walks ancestors scattered over the lattice: they are looked up side by
        // side, and judged in rank order.
        let lineages: Vec<[u32; LINEAGE_DEPTHS]> = ranked[sorted..end]
            .par_iter()
            .with_min_len(LINEAGES_PER_TASK)
            .map(|&(_, cand)| lineage_of(lattice, cand))
            .collect();
        for ((rank, &(&(key, ply), cand)), lineage) in
            (sorted..end).zip(&ranked[sorted..end]).zip(lineages)
        {
            match rule.verdict(rank, ply, &lineage) {
                Verdict::Keep => kept.push((key, cand, lineage)),
                Verdict::Pass => {}
                Verdict::Stop => return kept,
            }
        }
        sorted = end;
        slice *= 2;
        if sorted >= width && rule.extras_taken() && alignment_quota > 0 {
            break;
        }
    }
    // Past the width with every lineage extra taken, a candidate is kept only as one of its
    // alignment's first `alignment_quota`: the order within each alignment is all that counts.
    let mut by_alignment: HashMap<i64, Vec<RankedCandidate>> = HashMap::default();
    for &(id, cand) in &ranked[sorted..] {
        by_alignment
            .entry(alignment_of(cand.ply, cell as usize))
            .or_default()
            .push((id, cand));
    }
    let mut picked: Vec<RankedCandidate> = Vec::new();
    for (alignment, mut group) in by_alignment {
        let wanted = alignment_quota.saturating_sub(rule.alignment_ranks.seen(alignment));
        if group.len() > wanted && wanted > 0 {
            group.select_nth_unstable_by(wanted - 1, rank_order);
        }
        group.truncate(wanted);
        picked.append(&mut group);
    }
    picked.sort_unstable_by(rank_order);
    kept.extend(
        picked
            .into_iter()
            .map(|(&(key, _), cand)| (key, cand, lineage_of(lattice, cand))),
    );
    kept
}

/// Keeps the best candidates of a layer as nodes, with their edges, replaying each kept
/// candidate's position from its best edge. Besides the `width` best, the best candidate of
/// each lineage that branched off 8, 16 or 32 edges back is kept (up to `lineage_extras`), so
/// that a world which fell behind on a misread cell long ago survives until later cells can
/// vindicate it; and the best `alignment_quota` of each alignment (plies played minus cells
/// read), so that a world that skipped a move survives the crowd of worlds that did not.
pub(super) fn admit(
    lattice: &mut Lattice,
    pending: PendingLayer,
    cell: u32,
    (width, alignment_quota): (usize, usize),
    margin: f32,
    config: &DecoderConfig,
) -> Vec<u32> {
    // Only candidates within the margin are ever kept: they alone are ranked.
    let top = pending
        .candidates()
        .map(|(_, c)| c.best)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut ranked: Vec<RankedCandidate> = pending
        .candidates()
        .filter(|(_, c)| c.best >= top - margin)
        .collect();
    let kept = kept_in_rank_order(lattice, &mut ranked, cell, (width, alignment_quota), config);
    // Each kept candidate's board and edges, side by side; the nodes and edges are then
    // numbered in rank order.
    let nodes = &lattice.nodes;
    let built: Vec<Built> = kept
        .par_iter()
        .with_min_len(NODES_PER_TASK)
        .map(|&(key, cand, _)| Built::of(&pending, nodes, (key, cand), top - margin))
        .collect();
    append_layer(lattice, kept, built, cell)
}

/// A kept candidate before it is numbered as a node: its board, where its last move went,
/// its edges within the layer's margin in the order offered, and which of them is its best.
struct Built<'p> {
    pos: Chess,
    last_to: Option<Square>,
    edges: Vec<&'p Offered>,
    best_at: Option<u32>,
}

impl<'p> Built<'p> {
    /// The candidate `cand` of key `key`: its board replayed from its best edge, and its
    /// edges that reach `floor` (the layer's margin below its best) and its best edge.
    fn of(
        pending: &'p PendingLayer,
        nodes: &[Node],
        (key, cand): (u64, &Candidate),
        floor: f32,
    ) -> Built<'p> {
        let best_edge = pending.offered(key, cand.best_in);
        let mut pos = nodes[best_edge.src as usize].pos.clone();
        let mut last_to = None;
        for step in best_edge.steps.iter() {
            pos.play_unchecked(step.m);
            last_to = Some(step.m.to());
        }
        // An edge the layer's margin excludes is dropped, wherever it was offered in the
        // layer's work: which of them a running bound happened to let in depends on the
        // order of the offers, and they carry no mass worth a float.
        let mut best_at = None;
        let mut edges = Vec::new();
        for (index, edge) in pending.edges_of(key, cand) {
            let score = nodes[edge.src as usize].best + edge.weight;
            if index == cand.best_in {
                best_at = Some(edges.len() as u32);
            } else if score < floor {
                continue;
            }
            edges.push(edge);
        }
        Built {
            pos,
            last_to,
            edges,
            best_at,
        }
    }
}

/// Appends the kept candidates of layer `cell` (in rank order, with their lineages) to
/// `lattice` as nodes, with their `built` boards and edges; returns the new nodes' ids. Nodes
/// and edges are numbered in rank order, a node's edges in the order offered; each node's
/// first edge is known beforehand, so both are built side by side.
fn append_layer(
    lattice: &mut Lattice,
    kept: Vec<(u64, &Candidate, [u32; LINEAGE_DEPTHS])>,
    built: Vec<Built>,
    cell: u32,
) -> Vec<u32> {
    let first_node = lattice.nodes.len() as u32;
    let first_edges: Vec<u32> = built
        .iter()
        .scan(lattice.edges.len() as u32, |next, built| {
            let first = *next;
            *next += built.edges.len() as u32;
            Some(first)
        })
        .collect();
    lattice.edges.par_extend(
        built
            .par_iter()
            .with_min_len(NODES_PER_TASK)
            .enumerate()
            .flat_map_iter(|(rank, built)| {
                built.edges.iter().map(move |edge| Edge {
                    src: edge.src,
                    dst: first_node + rank as u32,
                    weight: edge.weight,
                    steps: edge.steps.clone(),
                })
            }),
    );
    lattice.nodes.par_extend(
        kept.into_par_iter()
            .zip(built)
            .zip(first_edges)
            .with_min_len(NODES_PER_TASK)
            .map(|(((key, cand, lineage), built), first_edge)| {
                let best_in = built.best_at.map(|at| first_edge + at);
                Node {
                    pos: built.pos,
                    key,
                    ply: cand.ply,
                    cell,
                    last_to: built.last_to,
                    best: cand.best,
                    best_in,
                    incoming: first_edge..first_edge + built.edges.len() as u32,
                    lineage,
                }
            }),
    );
    (first_node..lattice.nodes.len() as u32).collect()
}

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Move, Position};

    use super::*;
    use crate::decode::lattice::{
        after, written, zobrist, Caches, Candidate, Lattice, Node, Pending, StepKind,
        LINEAGE_DEPTHS,
    };

    /// The nodes and edges `admit` makes of `offers` (from the start position, each a move,
    /// its edge weight and whether it was skipped), offered in the order given.
    fn admitted(offers: &[(Move, f32, StepKind)]) -> Vec<(u64, u32, u32, Vec<u32>)> {
        let config = DecoderConfig::default();
        let mut lattice = Lattice {
            nodes: vec![Node {
                best: -1.0,
                ..Node::start(&Chess::default())
            }],
            edges: Vec::new(),
            finals: Vec::new(),
            scored: Caches::default(),
        };
        let margin = 5.0;
        let mut pending = Pending::new(vec![margin; 2]);
        for &(m, w, kind) in offers {
            let step = written(m, 0, kind);
            let key = zobrist(&after(&Chess::default(), m));
            pending.offer(1, 0, -1.0, w, &[step], key, 1);
        }
        let layer = pending.take_layer(1);
        let ids = admit(&mut lattice, layer, 1, (100, 0), margin, &config);
        let mut nodes: Vec<(u64, u32, u32, Vec<u32>)> = ids
            .iter()
            .map(|&id| {
                let node = &lattice.nodes[id as usize];
                let mut weights: Vec<u32> = node
                    .incoming
                    .clone()
                    .map(|e| lattice.edges[e as usize].weight.to_bits())
                    .collect();
                weights.sort_unstable();
                (zobrist(&node.pos), node.best.to_bits(), id, weights)
            })
            .collect();
        // Node ids are the admission order, which ranks by score then key: compare them too.
        nodes.sort_by_key(|n| n.2);
        nodes
    }

    #[test]
    fn a_layer_keeps_the_same_nodes_and_edges_whatever_the_order_of_its_offers() {
        let start = Chess::default();
        let moves: Vec<Move> = start.legal_moves().into_iter().collect();
        // Every move three times (written, and twice after a junk cell), at weights from 0 down
        // to -10.4: the margin of 5 cuts some edges into kept nodes, and two nodes whole. Pairs
        // of moves tie.
        let mut offers: Vec<(Move, f32, StepKind)> = Vec::new();
        for (i, &m) in moves.iter().enumerate() {
            let best = -0.6 * (i / 2) as f32;
            offers.push((m, best, StepKind::Written));
            offers.push((m, best - 3.0 - (i % 3) as f32, StepKind::AfterJunkCell));
            offers.push((m, best - 0.5 - (i % 4) as f32, StepKind::AfterJunkCell));
        }
        let forward = admitted(&offers);
        offers.reverse();
        let backward = admitted(&offers);
        offers.sort_by_key(|o| (o.0.to() as u8, o.2 as u8));
        let shuffled = admitted(&offers);
        assert!(
            forward.len() > 5 && forward.len() < moves.len(),
            "{}",
            forward.len()
        );
        assert!(forward.iter().any(|n| n.3.len() == 1) && forward.iter().any(|n| n.3.len() > 1));
        assert_eq!(forward, backward);
        assert_eq!(forward, shuffled);
    }
    /// What [`kept_in_rank_order`] keeps, worked out the plain way: every candidate ranked,
    /// then judged in order.
    fn kept_by_full_ranking<'c>(
        lattice: &Lattice,
        ranked: &[RankedCandidate<'c>],
        cell: u32,
        (width, alignment_quota): (usize, usize),
        config: &DecoderConfig,
    ) -> Vec<(u64, u32, u32)> {
        let mut ranked = ranked.to_vec();
        ranked.sort_unstable_by(rank_order);
        let mut rule = KeepRule::new(cell as usize, (width, alignment_quota), config);
        let mut kept = Vec::new();
        for (rank, (&(key, ply), cand)) in ranked.into_iter().enumerate() {
            let lineage = lineage_of(lattice, cand);
            match rule.verdict(rank, ply, &lineage) {
                Verdict::Keep => kept.push((key, ply, lineage[0])),
                Verdict::Pass => {}
                Verdict::Stop => break,
            }
        }
        kept
    }

    #[test]
    fn a_layer_keeps_what_ranking_every_candidate_would_keep() {
        // A small xorshift: the layers are random but the same from run to run.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = move |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        let node = |lineage: [u32; LINEAGE_DEPTHS]| Node {
            lineage,
            ..Node::start(&Chess::default())
        };
        let cell = 20u32;
        let mut compared = 0;
        for &count in &[7usize, 60, 900, 6000] {
            for &(width, extras, quota) in &[
                (5, 0, 0),
                (40, 16, 0),
                (40, 3, 16),
                (200, 16, 2),
                (1024, 16, 16),
                (4096, 0, 16),
            ] {
                // Ancestors shared by few or many: lineages new and old.
                let lattice = Lattice {
                    nodes: (0..300)
                        .map(|_| {
                            let mut lineage = [0; LINEAGE_DEPTHS];
                            for (j, l) in lineage.iter_mut().enumerate() {
                                *l = random(4 + 40 * j as u64) as u32;
                            }
                            node(lineage)
                        })
                        .collect(),
                    edges: Vec::new(),
                    finals: Vec::new(),
                    scored: Caches::default(),
                };
                let mut candidates = Vec::new();
                for _ in 0..count {
                    // Scores on a coarse grid, so that many tie and the keys decide.
                    let best = -(random(200) as f32) * 0.25;
                    let ply = cell + random(5) as u32 - 2;
                    let key = random(u64::MAX);
                    candidates.push((
                        (key, ply),
                        Candidate {
                            ply,
                            best,
                            best_in: 0,
                            best_src: random(300) as u32,
                            first: 0,
                            last: 0,
                        },
                    ));
                }
                let config = DecoderConfig {
                    lineage_extras: extras,
                    ..DecoderConfig::default()
                };
                let mut ranked: Vec<(&(u64, u32), &Candidate)> =
                    candidates.iter().map(|(id, c)| (id, c)).collect();
                let expected =
                    kept_by_full_ranking(&lattice, &ranked, cell, (width, quota), &config);
                let kept: Vec<(u64, u32, u32)> =
                    kept_in_rank_order(&lattice, &mut ranked, cell, (width, quota), &config)
                        .into_iter()
                        .map(|(key, cand, lineage)| (key, cand.ply, lineage[0]))
                        .collect();
                assert_eq!(kept, expected, "{count} candidates, {width} wide");
                compared += kept.len();
            }
        }
        assert!(compared > 5_000, "{compared}");
    }
}
