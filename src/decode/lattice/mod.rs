//! The beam search over legal games for one fixed language, kept as a lattice so that
//! forward–backward gives every move's posterior.
//!
//! States are (cells read, position, plies played); states that agree are merged, so the beam
//! holds distinct explanations of the same cells. Layers are indexed by cells read, so that
//! hypotheses compete only with others that explained the same evidence.

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use shakmaty::{zobrist::Zobrist64, Chess, EnPassantMode, Move, MoveList, Position, Square};
use std::collections::hash_map::Entry;
use std::sync::Arc;

use super::copies::{WhichSheet, SHEETS_DIFFER_NATS};
use super::evidence::CellEvidence;
use super::DecoderConfig;
use crate::notation::{legal_moves_with_facts, Check, Language, MoveFacts, Rivals};

/// What one search reads and with what: the cells in ply order, the position before the
/// first, the language of their piece letters, the settings and the memo of move priors. The
/// first search, its rescue and its escalation read the same; an escalation changes only the
/// settings ([`SearchInputs::with_config`]).
pub(crate) struct SearchInputs<'a, E: CellEvidence> {
    pub(crate) cells: &'a [E],
    pub(crate) start: &'a Chess,
    pub(crate) lang: &'a Language,
    pub(crate) config: &'a DecoderConfig,
    pub(crate) priors: &'a PriorMemo,
}

// By hand: derived, they would ask `E: Copy` of the cells behind the reference.
impl<E: CellEvidence> Clone for SearchInputs<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: CellEvidence> Copy for SearchInputs<'_, E> {}

impl<'a, E: CellEvidence> SearchInputs<'a, E> {
    pub(crate) fn new(
        cells: &'a [E],
        start: &'a Chess,
        lang: &'a Language,
        config: &'a DecoderConfig,
        priors: &'a PriorMemo,
    ) -> SearchInputs<'a, E> {
        SearchInputs {
            cells,
            start,
            lang,
            config,
            priors,
        }
    }

    /// The same inputs searched with other settings.
    pub(crate) fn with_config<'b>(self, config: &'b DecoderConfig) -> SearchInputs<'b, E>
    where
        'a: 'b,
    {
        SearchInputs { config, ..self }
    }
}

mod keep;
mod loss;
mod priors;
mod rescue;
mod scorer;
mod slips;
mod starts;

use priors::set_priors;
pub use priors::PriorMemo;
use scorer::{Caches, Scorer};

use keep::{admit, AlignmentRanks};
pub use loss::SearchLoss;
pub(crate) use loss::{forced_search, line_score, search_loss};
pub(crate) use rescue::{escalated, rescued, rescued_once, Rescued};
pub(crate) use starts::best_scores_from;

/// How a move on a path relates to the cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// Written in its own cell.
    Written,
    /// Played but not written: the player skipped it.
    Skipped,
    /// Written in the cell after one that holds no move (crossed out, a scrawl).
    AfterJunkCell,
    /// Written in the next cell, and the next move written in this one.
    Swapped,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Step {
    pub m: Move,
    pub cell: Option<u32>,
    pub kind: StepKind,
    /// How well the move fits its cell (log-likelihood; 0 for a perfect fit or no cell).
    pub fit: f32,
}

/// The moves of an edge: up to two inline (a move written in its cell, after a skipped move
/// or a swapped cell), so that offering a candidate allocates nothing, and the rarer longer
/// chain (a skipped row; a blank cell's move reconsidered, with the moves replayed after it:
/// [`Search::reconsider_blank`]) shared on the heap. Two, not four: a hard sheet's layer takes
/// hundreds of thousands of offers and its lattice millions of edges, and their 40 bytes
/// fewer each read seed 104's German sheet 8% faster.
#[derive(Debug, Clone)]
pub(crate) enum Steps {
    Inline([Option<Step>; INLINE_STEPS]),
    Chain(Arc<[Step]>),
}

/// How many steps an edge holds without allocating.
const INLINE_STEPS: usize = 2;

impl Steps {
    fn of(steps: &[Step]) -> Steps {
        if steps.len() > INLINE_STEPS {
            return Steps::Chain(steps.into());
        }
        let mut items = [None; INLINE_STEPS];
        for (slot, step) in items.iter_mut().zip(steps) {
            *slot = Some(*step);
        }
        Steps::Inline(items)
    }

    /// The inline steps (`None` past the last) and the heap chain; one of them is empty.
    fn parts(&self) -> (&[Option<Step>], &[Step]) {
        match self {
            Steps::Inline(items) => (items, &[]),
            Steps::Chain(chain) => (&[], chain),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Step> {
        let (inline, chain) = self.parts();
        inline.iter().map_while(Option::as_ref).chain(chain.iter())
    }

    pub fn len(&self) -> usize {
        self.iter().count()
    }

    fn first(&self) -> Option<&Step> {
        self.iter().next()
    }

    fn set_last_fit(&mut self, fit: f32) {
        match self {
            Steps::Inline(items) => {
                if let Some(last) = items.iter_mut().rev().find_map(Option::as_mut) {
                    last.fit = fit;
                }
            }
            Steps::Chain(chain) => {
                let mut steps = chain.to_vec();
                if let Some(last) = steps.last_mut() {
                    last.fit = fit;
                }
                *chain = steps.into();
            }
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Edge {
    pub src: u32,
    pub dst: u32,
    pub weight: f32,
    pub steps: Steps,
}

impl Edge {
    /// Whether the edge explains its cells by a slip that shifts them against the plies (a
    /// skipped move or row, a junk cell, a swapped pair) rather than by moves written in turn.
    fn is_slip(&self) -> bool {
        self.slips() > 0
    }

    /// The plies the edge explains by such a slip (two moves skipped at once are two).
    fn slips(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.kind != StepKind::Written)
            .count()
    }
}

/// Generations back of the ancestors a node remembers: 1, 2, 4, … 32 (skip pointers).
const LINEAGE_DEPTHS: usize = 6;

#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub pos: Chess,
    /// The zobrist key of `pos`.
    key: u64,
    pub ply: u32,
    pub cell: u32,
    last_to: Option<Square>,
    pub best: f32,
    pub best_in: Option<u32>,
    /// The node's edges: admitted together, so numbered in one run.
    pub incoming: std::ops::Range<u32>,
    /// `lineage[j]`: the ancestor 2^j edges back along the best path (the root when shorter).
    lineage: [u32; LINEAGE_DEPTHS],
}

/// A legal move of a node's position, with what decides its score. Its facts leave check
/// [`Check::Unknown`] until the move is [settled](settle).
struct Child {
    m: Move,
    facts: MoveFacts,
    log_prior: f32,
}

/// A move played out: the position after it, its full facts and the position's key.
struct Settled {
    pos: Chess,
    facts: MoveFacts,
    key: u64,
}

/// Plays `kid` from `pos`, whose key is `key`.
fn settle(pos: &Chess, key: u64, kid: &Child) -> Settled {
    let next = after(pos, kid.m);
    let facts = MoveFacts {
        check: Check::of(&next),
        ..kid.facts
    };
    let key = key_after(pos, key, kid.m, &next);
    Settled {
        pos: next,
        facts,
        key,
    }
}

/// The full facts of `kid` from `pos` (whose key is `key`) and the key of the position it
/// leads to, without playing it where that position is not needed: most moves offered to a
/// layer never become a node, and copying a position to play them out cost more than their
/// check and key.
fn settle_facts(pos: &Chess, key: u64, kid: &Child) -> (MoveFacts, u64) {
    if !Check::gives(pos, kid.m) {
        if let Some(next) = pos.update_zobrist_hash(Zobrist64(key), kid.m, EnPassantMode::Legal) {
            let facts = MoveFacts {
                check: Check::None,
                ..kid.facts
            };
            return (facts, next.0);
        }
    }
    let settled = settle(pos, key, kid);
    (settled.facts, settled.key)
}

/// A position reachable at some layer, not yet admitted: it keeps no board, which is replayed
/// from its best edge only if it is admitted. Its edges are threaded through its shard's
/// [`Offered`] list, from `first` to `last` in the order they were offered; `best_src` is the
/// source of the best one (`best_in`).
struct Candidate {
    ply: u32,
    best: f32,
    best_in: u32,
    best_src: u32,
    first: u32,
    last: u32,
}

/// An edge offered to a layer: from node `src`, of weight `weight`; `next`: the same
/// candidate's next edge, or [`NO_EDGE`].
struct Offered {
    src: u32,
    weight: f32,
    steps: Steps,
    next: u32,
}

/// The end of a candidate's edges in its shard's [`Offered`] list.
const NO_EDGE: u32 = u32::MAX;

/// How many shards, by key, a layer's candidates are kept in: the offers of a layer's tasks
/// are taken into them side by side. A power of two.
const PENDING_SHARDS: usize = 16;

/// The shard of the candidate with zobrist `key`: the key's top bits.
fn shard_of(key: u64) -> usize {
    (key >> (u64::BITS - PENDING_SHARDS.trailing_zeros())) as usize
}

/// The candidates of one shard of a layer and every edge offered to them. Most candidates are
/// never admitted, and a hard sheet's layer takes hundreds of thousands of offers: one list
/// for all of a shard's edges saves an allocation per candidate and keeps the map's entries
/// small.
#[derive(Default)]
struct PendingShard {
    candidates: HashMap<(u64, u32), Candidate>,
    offered: Vec<Offered>,
}

impl PendingShard {
    /// Takes the edge from node `src`, of weight `w` and `score` in all, to the position `key`
    /// after `ply` plies, as its candidate's last edge.
    fn take(&mut self, src: u32, w: f32, score: f32, steps: Steps, key: u64, ply: u32) {
        let index = self.offered.len() as u32;
        self.offered.push(Offered {
            src,
            weight: w,
            steps,
            next: NO_EDGE,
        });
        match self.candidates.entry((key, ply)) {
            Entry::Occupied(mut occupied) => {
                let candidate = occupied.get_mut();
                self.offered[candidate.last as usize].next = index;
                candidate.last = index;
                if score > candidate.best {
                    candidate.best = score;
                    candidate.best_in = index;
                    candidate.best_src = src;
                }
            }
            Entry::Vacant(vacant) => {
                vacant.insert(Candidate {
                    ply,
                    // As `score > best` from minus infinity would: a NaN never leads.
                    best: score.max(f32::NEG_INFINITY),
                    best_in: index,
                    best_src: src,
                    first: index,
                    last: index,
                });
            }
        }
    }
}

/// The candidates of one layer, in [`PENDING_SHARDS`] shards by key.
struct PendingLayer {
    shards: Vec<PendingShard>,
}

impl PendingLayer {
    /// Every candidate with its key (zobrist key, plies played), in no particular order.
    fn candidates(&self) -> impl Iterator<Item = (&(u64, u32), &Candidate)> {
        self.shards.iter().flat_map(|shard| shard.candidates.iter())
    }

    /// The edge `index` of the shard of key `key`.
    fn offered(&self, key: u64, index: u32) -> &Offered {
        &self.shards[shard_of(key)].offered[index as usize]
    }

    /// The edges of `candidate` (of key `key`), in the order they were offered, with their
    /// indices in its shard.
    fn edges_of<'l>(
        &'l self,
        key: u64,
        candidate: &Candidate,
    ) -> impl Iterator<Item = (u32, &'l Offered)> {
        let offered = &self.shards[shard_of(key)].offered;
        let mut at = candidate.first;
        std::iter::from_fn(move || {
            let index = at;
            let edge = offered.get(index as usize)?;
            at = edge.next;
            Some((index, edge))
        })
    }
}

/// The searched lattice: nodes in topological order (by layer), edges between kept nodes.
pub(crate) struct Lattice {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Nodes that read every cell.
    pub finals: Vec<u32>,
    /// What the search scored, for a search again of the same cells in the same language and
    /// habits (a rescue): a move's score is a function of its cell and its facts alone.
    scored: Caches,
}

/// What a task (a piece of a layer's extension or slip work) offered, in order, and scored.
struct Worked {
    offers: Vec<Offer>,
    caches: Caches,
}

/// A node of a layer whose cell may hold a slip: `rank` in the layer; `fits_nothing`: no move
/// fits the cell better than random writing; `junk_cell`: try the cell as holding no move;
/// `repair`: try the other slips.
struct SlipWork {
    rank: usize,
    best_fit: f32,
    fits_nothing: bool,
    junk_cell: bool,
    repair: bool,
}

/// How many pieces a layer's slip work is cut in per thread: more balance the threads' loads,
/// fewer share more of what each piece scores.
const SLIP_CHUNKS_PER_THREAD: usize = 4;

/// How many of a layer's `items` of slip work one piece takes.
fn slip_piece_len(items: usize) -> usize {
    items
        .div_ceil(rayon::current_num_threads() * SLIP_CHUNKS_PER_THREAD)
        .max(1)
}

/// How many of a layer's best nodes are extended one after another before the rest are
/// extended side by side: their moves set the bound that prunes the others'. A beam of 64
/// (a sheet's first search) stays within them.
const EXTENDED_FIRST: usize = 96;

/// How many of a layer's `nodes` after its first [`EXTENDED_FIRST`] one task extends.
fn extend_piece_len(nodes: usize) -> usize {
    nodes
        .div_ceil(rayon::current_num_threads() * SLIP_CHUNKS_PER_THREAD)
        .max(32)
}

/// Fewer buffered offers than this are taken one by one (as all are with one thread): sharing
/// them out costs more.
const OFFERS_TAKEN_ALONE: usize = 4096;

/// How many nodes' moves one rayon task generates.
const NODES_PER_TASK: usize = 4;

fn zobrist(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The key of `next`, the position `m` leads to from `pos` (whose key is `key`).
fn key_after(pos: &Chess, key: u64, m: Move, next: &Chess) -> u64 {
    pos.update_zobrist_hash(Zobrist64(key), m, EnPassantMode::Legal)
        .map_or_else(|| zobrist(next), |k| k.0)
}

fn after(pos: &Chess, m: Move) -> Chess {
    let mut next = pos.clone();
    next.play_unchecked(m);
    next
}

/// The legal moves of `pos` (with its zobrist key) with their facts and priors.
fn children(
    (pos, key): (&Chess, u64),
    last_to: Option<Square>,
    config: &DecoderConfig,
    priors: &PriorMemo,
) -> Vec<Child> {
    let (legal, mut kids) = unpriced_children(pos);
    set_priors((pos, key), &legal, last_to, config, priors, &mut kids);
    kids
}

/// The legal moves of `pos`, and each of them with its facts, its prior left at 0 (see
/// [`set_priors`]).
fn unpriced_children(pos: &Chess) -> (MoveList, Vec<Child>) {
    let legal = pos.legal_moves();
    let rivals = Rivals::of(&legal, pos.turn());
    let kids = legal
        .iter()
        .map(|&m| Child {
            m,
            facts: MoveFacts::with_rivals(m, &legal, &rivals, Check::Unknown),
            log_prior: 0.0,
        })
        .collect();
    (legal, kids)
}

/// The layers of candidates not yet admitted, by cells read.
struct Pending {
    /// Each shard's layers: `shards[shard][cell]`.
    shards: Vec<Vec<PendingShard>>,
    best: Vec<f32>,
    /// How far behind its layer's best a candidate may be, per layer.
    margins: Vec<f32>,
    /// In a task: the offers taken, in order, for the search to offer to its own layers.
    buffered: Option<Vec<Offer>>,
}

/// A proposal to reach the position with zobrist `key` after `ply` plies at layer `cell`, from
/// node `src` (whose score is `base`) by an edge of weight `w` made of `steps`.
struct Offer {
    cell: usize,
    src: u32,
    base: f32,
    w: f32,
    steps: Steps,
    key: u64,
    ply: u32,
}

impl Pending {
    fn new(margins: Vec<f32>) -> Pending {
        Pending {
            shards: (0..PENDING_SHARDS)
                .map(|_| margins.iter().map(|_| PendingShard::default()).collect())
                .collect(),
            best: vec![f32::NEG_INFINITY; margins.len()],
            margins,
            buffered: None,
        }
    }

    /// A task's pending offers: it prunes with the layers' best scores so far (a task's
    /// offers only raise them) and keeps its offers for [`Pending::take_buffered`].
    fn buffer(&self) -> Pending {
        Pending {
            shards: Vec::new(),
            best: self.best.clone(),
            margins: self.margins.clone(),
            buffered: Some(Vec::new()),
        }
    }

    /// Offers what tasks buffered, task after task, each in its order. Which offers enter is
    /// settled in that order, as offering them one by one would; each shard then takes its
    /// own, in the same order, side by side with the others.
    fn take_buffered(&mut self, offers: Vec<Vec<Offer>>) {
        let few = offers.iter().map(Vec::len).sum::<usize>() < OFFERS_TAKEN_ALONE;
        if few || rayon::current_num_threads() == 1 {
            for offer in offers.into_iter().flatten() {
                self.offer_steps(offer);
            }
            return;
        }
        // Whether an offer enters depends only on its layer's best before it: the best of the
        // offers before it, since one that is refused never leads. So each task's bests to
        // start from are worked out first, and the tasks' offers are then judged side by side.
        let layers = self.best.len();
        let task_bests: Vec<Vec<f32>> = offers
            .par_iter()
            .map(|task_offers| {
                let mut best = vec![f32::NEG_INFINITY; layers];
                for offer in task_offers {
                    best[offer.cell] = best[offer.cell].max(offer.base + offer.w);
                }
                best
            })
            .collect();
        let mut starts = Vec::with_capacity(offers.len());
        for task_best in &task_bests {
            starts.push(self.best.clone());
            for (best, &task) in self.best.iter_mut().zip(task_best) {
                *best = best.max(task);
            }
        }
        let margins = &self.margins;
        // Per task, per shard: the offers that enter.
        let entering: Vec<Vec<Vec<u32>>> = offers
            .par_iter()
            .zip(starts)
            .map(|(task_offers, mut best)| {
                let mut by_shard = vec![Vec::new(); PENDING_SHARDS];
                for (index, offer) in task_offers.iter().enumerate() {
                    let score = offer.base + offer.w;
                    if score < best[offer.cell] - margins[offer.cell] {
                        continue;
                    }
                    best[offer.cell] = best[offer.cell].max(score);
                    by_shard[shard_of(offer.key)].push(index as u32);
                }
                by_shard
            })
            .collect();
        let (offers, entering) = (&offers, &entering);
        self.shards
            .par_iter_mut()
            .enumerate()
            .for_each(|(shard, layers)| {
                for (task_offers, task_entering) in offers.iter().zip(entering) {
                    for &index in &task_entering[shard] {
                        let offer = &task_offers[index as usize];
                        layers[offer.cell].take(
                            offer.src,
                            offer.w,
                            offer.base + offer.w,
                            offer.steps.clone(),
                            offer.key,
                            offer.ply,
                        );
                    }
                }
            });
    }

    /// Whether `offer` is within its layer's margin of the best so far; raises the best.
    fn admits(&mut self, offer: &Offer) -> bool {
        let score = offer.base + offer.w;
        if score < self.best[offer.cell] - self.margins[offer.cell] {
            return false;
        }
        self.best[offer.cell] = self.best[offer.cell].max(score);
        true
    }

    /// The candidates of layer `cell`, taken out of the pending layers.
    fn take_layer(&mut self, cell: usize) -> PendingLayer {
        PendingLayer {
            shards: self
                .shards
                .iter_mut()
                .map(|layers| std::mem::take(&mut layers[cell]))
                .collect(),
        }
    }

    /// Whether a candidate scoring `score` could still enter layer `cell`.
    fn may_enter(&self, cell: usize, score: f32) -> bool {
        score >= self.best[cell] - self.margins[cell]
    }

    /// Proposes reaching the position with zobrist `key` after `ply` plies at layer `cell`, from
    /// node `src` (whose score is `base`) by an edge of weight `w`.
    #[allow(clippy::too_many_arguments)]
    fn offer(
        &mut self,
        cell: usize,
        src: u32,
        base: f32,
        w: f32,
        steps: &[Step],
        key: u64,
        ply: u32,
    ) {
        self.offer_steps(Offer {
            cell,
            src,
            base,
            w,
            steps: Steps::of(steps),
            key,
            ply,
        });
    }

    /// Takes `offer` if it is within its layer's margin of the best so far: into its layer, or
    /// into a task's buffer.
    fn offer_steps(&mut self, offer: Offer) {
        if !self.admits(&offer) {
            return;
        }
        if let Some(buffered) = &mut self.buffered {
            buffered.push(offer);
            return;
        }
        let score = offer.base + offer.w;
        self.shards[shard_of(offer.key)][offer.cell].take(
            offer.src,
            offer.w,
            score,
            offer.steps,
            offer.key,
            offer.ply,
        );
    }
}

/// What one search needs at hand.
struct Search<'a, E: CellEvidence> {
    scorer: Scorer<'a, E>,
    pending: Pending,
    config: &'a DecoderConfig,
    priors: &'a PriorMemo,
    cells: usize,
    /// When set, the only move allowed at ply `i` is `line[i]`: the search then finds the best
    /// way the decoder's slips can align a known game with the cells.
    line: Option<&'a [Move]>,
    /// `widened[c]`: the layer after cell `c` is searched as a rescue searches.
    widened: &'a [bool],
}

/// Runs the beam over the cells from the start in the language of `inputs`. With `rival`, the best score at each
/// layer of another reading of the same cells, the search gives up (`None`) once its own best
/// falls `config.language_abandon` nats behind: that reading explains the cells far better.
pub(crate) fn search<E: CellEvidence>(
    inputs: SearchInputs<'_, E>,
    rival: Option<&[f32]>,
) -> Option<Lattice> {
    run_search(inputs, rival, None, &[], None)
}

/// The search itself. `widened[c]`: the layer after cell `c` is searched as
/// [`rescue::search_around`] says; `scored`: what a search of the same cells in the same
/// language and habits scored.
///
/// Layer by layer: admit the candidates that reached the layer ([`Search::layer_bounds`]
/// says how many), extend its nodes by the moves that fit the next cell
/// ([`Search::extend_layer`]), then try slips where the nodes fit it poorly
/// ([`Search::slip_work`], [`Search::work_slips`]) and, where a slip says a move was left out
/// a cell or two earlier, from the nodes' ancestors ([`Search::skip_from_ancestors`]).
fn run_search<E: CellEvidence>(
    inputs: SearchInputs<'_, E>,
    rival: Option<&[f32]>,
    line: Option<&[Move]>,
    widened: &[bool],
    scored: Option<Caches>,
) -> Option<Lattice> {
    let own_priors;
    let priors = if inputs.priors.serves(inputs.config) {
        inputs.priors
    } else {
        own_priors = PriorMemo::default();
        &own_priors
    };
    let n = inputs.cells.len();
    let mut search = Search::new(&inputs, priors, line, widened, scored);
    let mut lattice = Lattice {
        nodes: vec![Node::start(inputs.start)],
        edges: Vec::new(),
        finals: Vec::new(),
        scored: Caches::default(),
    };
    let mut layer: Vec<u32> = vec![0];
    // Cells no move fits better than random writing: the prior alone ranks what follows, so the
    // next layer keeps more hypotheses until a readable cell decides between them.
    let mut uninformative = vec![false; n];
    for cell in 1..=n {
        search.expand_layer(&lattice, &layer, cell - 1, &mut uninformative);
        layer = search.admit_layer(&mut lattice, cell, &uninformative);
        let best = layer
            .first()
            .map_or(f32::NEG_INFINITY, |&id| lattice.nodes[id as usize].best);
        if rival.is_some_and(|r| best < r[cell] - inputs.config.language_abandon) {
            return None;
        }
    }
    lattice.finals = layer;
    if lattice.finals.is_empty() {
        lattice.finals = lattice.deepest_nodes();
    }
    lattice.scored = search.scorer.into_caches();
    Some(lattice)
}

impl<'a, E: CellEvidence> Search<'a, E> {
    /// A search of the cells of `inputs` with `priors` (the memo of `inputs`, or one of its
    /// own where that serves another prior), starting from the scores of `scored` where it
    /// holds the same cells' (see [`run_search`]).
    fn new(
        inputs: &SearchInputs<'a, E>,
        priors: &'a PriorMemo,
        line: Option<&'a [Move]>,
        widened: &'a [bool],
        scored: Option<Caches>,
    ) -> Search<'a, E> {
        let cells = inputs.cells;
        let config = inputs.config;
        let mut scorer = Scorer::new(cells, inputs.lang, config);
        if let Some(scored) = scored.filter(|s| s.scores.len() == cells.len()) {
            scorer.caches = scored;
        }
        let margins = (0..=cells.len())
            .map(|layer| layer_margin(config, widened, layer))
            .collect();
        Search {
            scorer,
            pending: Pending::new(margins),
            config,
            priors,
            cells: cells.len(),
            line,
            widened,
        }
    }

    /// Every move from the nodes of `layer` (those that have read `cell` cells) and how it
    /// fits cell `cell`, slips included, offered to the layers ahead (`pending`). Marks the
    /// cells found `uninformative` on the way.
    fn expand_layer(
        &mut self,
        lattice: &Lattice,
        layer: &[u32],
        cell: usize,
        uninformative: &mut [bool],
    ) {
        // Every node's moves and how each fits this cell: the bulk of a layer's work, and
        // independent from node to node, so it runs side by side before the nodes are
        // extended in rank order.
        let layer_kids: Vec<Vec<Child>> = layer
            .par_iter()
            .with_min_len(NODES_PER_TASK)
            .map(|&id| {
                let node = &lattice.nodes[id as usize];
                self.children((&node.pos, node.key), node.last_to, node.ply)
            })
            .collect();
        self.scorer
            .prescore(cell, layer_kids.iter().flatten().map(|kid| &kid.facts));
        let nodes = LayerNodes {
            lattice,
            ids: layer,
            kids: &layer_kids,
            cell,
        };
        let best_fits = self.extend_layer(&nodes);
        let slip_work = self.slip_work(&nodes, best_fits, uninformative);
        let skipped_before = self.work_slips(&nodes, &slip_work, uninformative);
        self.skip_from_ancestors(&nodes, skipped_before);
    }

    /// The nodes that enter layer `cell` (`cell` ≥ 1) of `lattice` from those offered to it,
    /// best first.
    fn admit_layer(
        &mut self,
        lattice: &mut Lattice,
        cell: usize,
        uninformative: &[bool],
    ) -> Vec<u32> {
        let bounds = self.layer_bounds(cell, uninformative);
        admit(
            lattice,
            self.pending.take_layer(cell),
            cell as u32,
            (bounds.width, bounds.alignment_quota),
            bounds.margin,
            self.config,
        )
    }
}

/// How a layer is admitted: how many nodes it keeps, how many of them are kept per alignment
/// (plies played minus cells read) whatever their rank, and how far behind its best a node
/// may be.
struct LayerBounds {
    width: usize,
    alignment_quota: usize,
    margin: f32,
}

/// A layer's nodes as the search extends them to the next cell: their ids in rank order,
/// each one's moves (`kids[rank]`), and the cell they read next.
struct LayerNodes<'l> {
    lattice: &'l Lattice,
    ids: &'l [u32],
    kids: &'l [Vec<Child>],
    cell: usize,
}

impl LayerNodes<'_> {
    /// The node of rank `rank`, with its id.
    fn node(&self, rank: usize) -> (u32, &Node) {
        let id = self.ids[rank];
        (id, &self.lattice.nodes[id as usize])
    }
}

impl Lattice {
    /// The nodes that read the most cells: where a search ends when nothing explains every
    /// cell (more cells than the game has moves, say), leaving the rest of the cells unmatched.
    fn deepest_nodes(&self) -> Vec<u32> {
        let Some(deepest) = self.nodes.iter().map(|n| n.cell).max() else {
            return Vec::new();
        };
        (0..self.nodes.len() as u32)
            .filter(|&i| self.nodes[i as usize].cell == deepest)
            .collect()
    }
}

/// Whether the layer after cell `cell` is searched as a rescue searches.
fn widened_at(widened: &[bool], cell: usize) -> bool {
    widened.get(cell).copied().unwrap_or(false)
}

/// How far behind its layer's best a candidate may enter layer `layer` (after `layer` cells).
fn layer_margin(config: &DecoderConfig, widened: &[bool], layer: usize) -> f32 {
    if layer > 0 && widened_at(widened, layer - 1) {
        config.rescue_margin.max(config.beam_margin)
    } else {
        config.beam_margin
    }
}

impl<E: CellEvidence> Search<'_, E> {
    /// Whether the layer after cell `cell` is searched as a rescue searches.
    fn is_widened(&self, cell: usize) -> bool {
        widened_at(self.widened, cell)
    }

    /// How layer `cell` (after `cell` cells, `cell` ≥ 1) is admitted, given the cells read so
    /// far that no move fits better than random writing (`uninformative`).
    fn layer_bounds(&self, cell: usize, uninformative: &[bool]) -> LayerBounds {
        let config = self.config;
        let cells = self.scorer.cells;
        let recent = cell.saturating_sub(config.wide_beam_cells)..cell;
        // An illegible cell's move shows only when a later move needs it: keep its
        // alternatives longer.
        let recent_illegible = cell.saturating_sub(config.wide_beam_cells_illegible)..cell;
        // Unread cells in a row multiply the moves that may have been played (two blank
        // cells leave some 900 pairs per position), so the width grows with the longest
        // such run.
        let mut unread = 0;
        let mut run = 0;
        for c in recent.start.min(recent_illegible.start)..cell {
            let unread_cell = (recent.contains(&c) && uninformative[c])
                || (recent_illegible.contains(&c) && cells[c].is_illegible());
            run = if unread_cell { run + 1 } else { 0 };
            unread = unread.max(run);
        }
        let mut width = if unread > 0 {
            (config.wide_beam_width * unread.min(config.wide_beam_unread_cap))
                .max(config.beam_width)
        } else {
            config.beam_width
        };
        if cell <= config.opening_cells {
            width = width.max(config.opening_beam_width);
        }
        let mut margin = config.beam_margin;
        let mut alignment_quota = 0;
        if self.is_widened(cell - 1) {
            width = width.max(config.rescue_beam_width);
            margin = margin.max(config.rescue_margin);
            alignment_quota = config.rescue_alignment_quota;
        }
        LayerBounds {
            width,
            alignment_quota,
            margin,
        }
    }

    /// Offers the moves of every node of the layer, in rank order, and returns how well each
    /// node's best move fits the cell (`None` where the game is over).
    ///
    /// The layer's bound grows as the best nodes' moves come and prunes the moves of the rest
    /// before they are played out. On a wide layer the rest are extended side by side by tasks
    /// that prune with the bound the best nodes set, and their offers are taken in rank order:
    /// the layer then holds what offering them one by one leaves, since an offer a task's
    /// looser bound lets through is refused when it is taken.
    fn extend_layer(&mut self, nodes: &LayerNodes) -> Vec<Option<f32>> {
        let cell = nodes.cell;
        // With one thread the tasks would only loosen the bound.
        let head = if rayon::current_num_threads() > 1 {
            nodes.ids.len().min(EXTENDED_FIRST)
        } else {
            nodes.ids.len()
        };
        let mut best_fits: Vec<Option<f32>> = Vec::with_capacity(nodes.ids.len());
        for rank in 0..head {
            let (node_id, node) = nodes.node(rank);
            best_fits.push(self.extend_or_end(node_id, node, &nodes.kids[rank], cell));
        }
        let rest: Vec<usize> = (head..nodes.ids.len()).collect();
        let worked: Vec<(Worked, Vec<Option<f32>>)> = rest
            .par_chunks(extend_piece_len(rest.len()))
            .map(|ranks| {
                let mut task = self.task();
                let fits = ranks
                    .iter()
                    .map(|&rank| {
                        let (node_id, node) = nodes.node(rank);
                        task.extend_or_end(node_id, node, &nodes.kids[rank], cell)
                    })
                    .collect();
                (task.into_worked(), fits)
            })
            .collect();
        let (works, fits): (Vec<Worked>, Vec<Vec<Option<f32>>>) = worked.into_iter().unzip();
        self.take_worked(works);
        best_fits.extend(fits.into_iter().flatten());
        best_fits
    }

    /// The nodes whose cell may hold a slip, given how well each node's best move fits it
    /// (`best_fits`, by rank). Marks the cell `uninformative` when no move of the best node
    /// fits it better than random writing and the node is not repaired.
    fn slip_work(
        &self,
        nodes: &LayerNodes,
        best_fits: Vec<Option<f32>>,
        uninformative: &mut [bool],
    ) -> Vec<SlipWork> {
        let (config, cell) = (self.config, nodes.cell);
        let cells = self.scorer.cells;
        let repair_from_best = if self.is_widened(cell) {
            config.repair_from_best.max(config.rescue_repair_from_best)
        } else {
            config.repair_from_best
        };
        // A rescue also repairs the best nodes of every alignment (plies played minus cells
        // read): after a skipped move, the true world trails a crowd of worlds that explained
        // the cells without it, and its nodes rank far below `repair_from_best`.
        let (repair_below, repairs_per_alignment) = if self.is_widened(cell) {
            (
                config.rescue_repair_below,
                config.rescue_repairs_per_alignment,
            )
        } else {
            (config.repair_below, 0)
        };
        let mut alignment_ranks = AlignmentRanks::default();
        let mut slip_work = Vec::new();
        for (rank, best_fit) in best_fits.into_iter().enumerate() {
            let (_, node) = nodes.node(rank);
            // Only a rescue's layers rank by alignment: the first search skips the bookkeeping.
            let alignment_rank = if repairs_per_alignment > 0 {
                alignment_ranks.next(node.ply, cell)
            } else {
                usize::MAX
            };
            // No move: the game is over, and `extend_or_end` offered the rest of the sheet.
            let Some(best_fit) = best_fit else {
                continue;
            };
            let may_repair = rank < repair_from_best || alignment_rank < repairs_per_alignment;
            let fits_nothing = best_fit <= cells[cell].unreadable_log_likelihood() + 1.0;
            let repair = may_repair && best_fit < repair_below;
            if rank == 0 && !repair {
                uninformative[cell] = fits_nothing;
            }
            // An illegible cell may hold no move at all (crossed out, a blank box).
            let junk_cell = may_repair && cells[cell].is_illegible();
            if repair || junk_cell {
                slip_work.push(SlipWork {
                    rank,
                    best_fit,
                    fits_nothing,
                    junk_cell,
                    repair,
                });
            }
        }
        slip_work
    }

    /// Offers the slips that may explain the cell of each node of `slip_work`, and returns the
    /// nodes (rank, id) where a move may have been left out before: the cell fits a move of
    /// the opponent's. Marks the cell `uninformative` when the best node's cell fits nobody's
    /// move.
    ///
    /// The slips are worked out node by node side by side, then offered in rank order. Which
    /// offers a layer keeps does not depend on their order (`admit` keeps what is within its
    /// margin of the best), so the game found is the one of slips worked out one after another.
    fn work_slips(
        &mut self,
        nodes: &LayerNodes,
        slip_work: &[SlipWork],
        uninformative: &mut [bool],
    ) -> Vec<(usize, u32)> {
        let cell = nodes.cell;
        let worked: Vec<(Worked, Vec<(usize, bool)>)> = slip_work
            .par_chunks(slip_piece_len(slip_work.len()))
            .map(|works| {
                let mut task = self.task();
                let mut repaired = Vec::new();
                for work in works {
                    let (node_id, node) = nodes.node(work.rank);
                    let kids = &nodes.kids[work.rank];
                    if work.junk_cell {
                        task.junk_cell(node_id, node, kids, cell);
                    }
                    if !work.repair {
                        continue;
                    }
                    // A cell that fits none of our moves but one of the opponent's says a move
                    // was skipped; one that fits nobody's is a scrawl, where skips explain
                    // nothing.
                    let fits_nothing = work.fits_nothing
                        && task.best_opponent_fit(&node.pos, cell) < self.config.repair_below;
                    task.repair(node_id, node, kids, cell, !fits_nothing);
                    task.reconsider_blank(nodes.lattice, node, cell, work.best_fit);
                    repaired.push((work.rank, fits_nothing));
                }
                (task.into_worked(), repaired)
            })
            .collect();
        let (works, repaired): (Vec<Worked>, Vec<Vec<(usize, bool)>>) = worked.into_iter().unzip();
        self.take_worked(works);
        let mut skipped_before = Vec::new();
        for (rank, fits_nothing) in repaired.into_iter().flatten() {
            if rank == 0 {
                uninformative[cell] = fits_nothing;
            }
            if !fits_nothing {
                skipped_before.push((rank, nodes.ids[rank]));
            }
        }
        skipped_before
    }

    /// A move skipped a cell or two earlier shows only now, when the cells after a
    /// coincidental match fit nothing: re-explains them from the ancestors of the nodes
    /// `skipped_before` (rank, id), as far back as their best paths read one move a cell.
    fn skip_from_ancestors(&mut self, nodes: &LayerNodes, skipped_before: Vec<(usize, u32)>) {
        let (config, cell, lattice) = (self.config, nodes.cell, nodes.lattice);
        let written_alone = |e: &Edge| {
            e.steps.len() == 1 && e.steps.first().is_some_and(|s| s.kind == StepKind::Written)
        };
        // A rescue's best nodes look further back: the move after the one left out may be a
        // legal move for the other side too, and fit the cell of the move left out.
        let lookback = |rank: usize| {
            if self.is_widened(cell) && rank < config.rescue_skip_lookback_nodes {
                config.skip_lookback.max(config.rescue_skip_lookback)
            } else {
                config.skip_lookback
            }
        };
        let mut repaired_ancestors: rustc_hash::FxHashSet<u32> = Default::default();
        let mut ancestors: Vec<(u32, usize)> = Vec::new();
        for (rank, node_id) in skipped_before {
            let mut at = node_id;
            for depth in 1..=lookback(rank).min(cell) {
                let Some(edge) = lattice.nodes[at as usize]
                    .best_in
                    .map(|e| &lattice.edges[e as usize])
                else {
                    break;
                };
                if !written_alone(edge) {
                    break;
                }
                at = edge.src;
                if repaired_ancestors.insert(at) {
                    ancestors.push((at, depth));
                }
            }
        }
        let worked: Vec<Worked> = ancestors
            .par_chunks(slip_piece_len(ancestors.len()))
            .map(|works| {
                let mut task = self.task();
                for &(at, depth) in works {
                    let ancestor = &lattice.nodes[at as usize];
                    task.skip_before(at, ancestor, cell - depth, cell);
                    if depth == 1 {
                        // Or the cell before held the later move of a swapped pair, which fit
                        // there by chance.
                        let kids = task.children(
                            (&ancestor.pos, ancestor.key),
                            ancestor.last_to,
                            ancestor.ply,
                        );
                        task.swapped_pair(at, ancestor, &kids, cell - 1);
                    }
                }
                task.into_worked()
            })
            .collect();
        self.take_worked(worked);
    }
}

/// The step of move `m` read from `cell`, its fit still to be scored.
fn written(m: Move, cell: usize, kind: StepKind) -> Step {
    Step {
        m,
        cell: Some(cell as u32),
        kind,
        fit: 0.0,
    }
}

impl<'a, E: CellEvidence> Search<'a, E> {
    /// A search for one piece of a layer's work (extending nodes, or their slips): it scores
    /// with this search's caches and prunes with its bounds, and buffers its offers
    /// ([`Search::into_worked`]).
    fn task<'b>(&'b self) -> Search<'b, E>
    where
        'a: 'b,
    {
        Search {
            scorer: self.scorer.child(),
            pending: self.pending.buffer(),
            config: self.config,
            priors: self.priors,
            cells: self.cells,
            line: self.line,
            widened: self.widened,
        }
    }

    /// A task's offers, in the order made, and what it scored.
    fn into_worked(self) -> Worked {
        Worked {
            offers: self.pending.buffered.unwrap_or_default(),
            caches: self.scorer.into_caches(),
        }
    }

    /// Keeps what tasks scored and offers what they offered, in the order of the tasks.
    fn take_worked(&mut self, works: Vec<Worked>) {
        let mut offers = Vec::with_capacity(works.len());
        for work in works {
            self.scorer.caches.absorb(work.caches);
            offers.push(work.offers);
        }
        self.pending.take_buffered(offers);
    }

    /// The moves of `pos` (with its zobrist key), reached after `ply` plies, that the search
    /// may play.
    fn children(&self, pos: (&Chess, u64), last_to: Option<Square>, ply: u32) -> Vec<Child> {
        let mut kids = children(pos, last_to, self.config, self.priors);
        self.keep_line(&mut kids, ply);
        kids
    }

    /// Keeps of `kids`, moves after `ply` plies, those the search may play.
    fn keep_line(&self, kids: &mut Vec<Child>, ply: u32) {
        if let Some(line) = self.line {
            let allowed = line.get(ply as usize);
            kids.retain(|k| Some(&k.m) == allowed);
        }
    }

    /// [`Search::children`], or none when no move of `pos` read from `cell` could enter
    /// `layer` by an edge from a node of score `base` whose other terms weigh `chain`: priors
    /// and fits are at most 0, and most slips explain nothing, so the moves' priors, the
    /// dearest part of a position's moves, are worked out only when one of them may count.
    #[allow(clippy::too_many_arguments)]
    fn children_that_may_enter(
        &mut self,
        (pos, key): (&Chess, u64),
        last_to: Option<Square>,
        ply: u32,
        layer: usize,
        base: f32,
        chain: f32,
        cell: usize,
    ) -> Vec<Child> {
        if self.config.prior_weight < 0.0 {
            return self.children((pos, key), last_to, ply);
        }
        let (legal, mut kids) = unpriced_children(pos);
        let line = self.line.map(|line| line.get(ply as usize));
        let may_enter = kids.iter().any(|kid| {
            line.is_none_or(|allowed| Some(&kid.m) == allowed)
                && self
                    .pending
                    .may_enter(layer, base + chain + self.scorer.score(cell, &kid.facts))
        });
        if !may_enter {
            return Vec::new();
        }
        set_priors(
            (pos, key),
            &legal,
            last_to,
            self.config,
            self.priors,
            &mut kids,
        );
        self.keep_line(&mut kids, ply);
        kids
    }

    /// Offers `kid`, a move from `pos` read from cell `fit_cell`, reaching layer `layer` by an
    /// edge from `src` whose other terms weigh `rest`. Plays the move only if its optimistic
    /// score can make the layer.
    #[allow(clippy::too_many_arguments)]
    fn offer_move(
        &mut self,
        layer: usize,
        src: u32,
        base: f32,
        rest: f32,
        (pos, key): (&Chess, u64),
        kid: &Child,
        fit_cell: usize,
        steps: &[Step],
        ply: u32,
    ) {
        let optimistic = rest + self.scorer.score(fit_cell, &kid.facts);
        if !self.pending.may_enter(layer, base + optimistic) {
            return;
        }
        let (facts, next_key) = settle_facts(pos, key, kid);
        let fit = self.scorer.score(fit_cell, &facts);
        let mut steps = Steps::of(steps);
        steps.set_last_fit(fit);
        self.pending.offer_steps(Offer {
            cell: layer,
            src,
            base,
            w: rest + fit,
            steps,
            key: next_key,
            ply,
        });
    }

    /// Offers the moves of `node` that fit `cell` best and returns how well the best one fits;
    /// where `node` has no move (mate or stalemate), offers the rest of the sheet as no moves
    /// and returns `None`.
    fn extend_or_end(
        &mut self,
        node_id: u32,
        node: &Node,
        kids: &[Child],
        cell: usize,
    ) -> Option<f32> {
        if !kids.is_empty() {
            return Some(self.extend(node_id, node, kids, cell));
        }
        let cells = self.scorer.cells;
        let rest: f32 = cells[cell..]
            .iter()
            .map(|c| self.config.slips.junk_cell + c.unreadable_log_likelihood())
            .sum();
        self.pending.offer(
            self.cells,
            node_id,
            node.best,
            rest,
            &[],
            node.key,
            node.ply,
        );
        None
    }

    /// Offers the moves of `node` that fit `cell` best; returns how well the best one fits.
    fn extend(&mut self, node_id: u32, node: &Node, kids: &[Child], cell: usize) -> f32 {
        let mut scored: Vec<(f32, f32, usize)> = kids
            .iter()
            .enumerate()
            .map(|(i, kid)| {
                let fit = self.scorer.score(cell, &kid.facts);
                (kid.log_prior + fit, fit, i)
            })
            .collect();
        let best_fit = scored.iter().map(|s| s.1).fold(f32::NEG_INFINITY, f32::max);
        scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        let node_best = scored.first().map_or(f32::NEG_INFINITY, |s| s.0);
        for (rank, &(w, _, i)) in scored.iter().enumerate() {
            if rank >= self.config.moves_per_node && w < node_best - self.config.node_margin {
                break;
            }
            // The layer's bar only rises, and the moves left score no better than this one.
            if !self.pending.may_enter(cell + 1, node.best + w) {
                break;
            }
            let kid = &kids[i];
            let step = Step {
                m: kid.m,
                cell: Some(cell as u32),
                kind: StepKind::Written,
                fit: 0.0,
            };
            self.offer_move(
                cell + 1,
                node_id,
                node.best,
                kid.log_prior,
                (&node.pos, node.key),
                kid,
                cell,
                &[step],
                node.ply + 1,
            );
        }
        best_fit
    }

    /// How well the best move of the side not to move in `pos` fits `cell`.
    fn best_opponent_fit(&mut self, pos: &Chess, cell: usize) -> f32 {
        let Ok(swapped) = pos.clone().swap_turn() else {
            return f32::NEG_INFINITY;
        };
        children(
            (&swapped, zobrist(&swapped)),
            None,
            self.config,
            self.priors,
        )
        .iter()
        .map(|k| self.scorer.score(cell, &k.facts))
        .fold(f32::NEG_INFINITY, f32::max)
    }

    /// The `keep` moves of `kids` (from `pos`) that fit `cell` best, played out, with their
    /// settled fits.
    fn best_fits<'k>(
        &mut self,
        (pos, key): (&Chess, u64),
        kids: &'k [Child],
        cell: usize,
        keep: usize,
    ) -> Vec<(f32, &'k Child, Chess, u64)> {
        if keep == 0 {
            return Vec::new();
        }
        let mut ranked: Vec<(f32, usize)> = kids
            .iter()
            .enumerate()
            .map(|(i, k)| (self.scorer.score(cell, &k.facts), i))
            .collect();
        // Best first, equal fits in move order; only the first `keep` are wanted.
        let order = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if ranked.len() > keep {
            ranked.select_nth_unstable_by(keep - 1, order);
            ranked.truncate(keep);
        }
        ranked.sort_unstable_by(order);
        ranked
            .into_iter()
            .map(|(_, i)| {
                let kid = &kids[i];
                let settled = settle(pos, key, kid);
                let fit = self.scorer.score(cell, &settled.facts);
                (fit, kid, settled.pos, settled.key)
            })
            .collect()
    }
}

impl Node {
    /// The node a search starts from: `start` before any cell is read.
    fn start(start: &Chess) -> Node {
        Node {
            pos: start.clone(),
            key: zobrist(start),
            ply: 0,
            cell: 0,
            last_to: None,
            best: 0.0,
            best_in: None,
            incoming: 0..0,
            lineage: [0; LINEAGE_DEPTHS],
        }
    }
}

impl Lattice {
    /// Forward and backward log-masses of every node with edge weights scaled by
    /// `temperature`, and the log of the total mass of complete paths. In f64: a long game sums
    /// thousands of log-weights, and f32 would lose the posterior's last digits.
    pub fn forward_backward(&self, temperature: f32) -> (Vec<f64>, Vec<f64>, f64) {
        let t = temperature as f64;
        let count = self.nodes.len();
        let mut alpha = vec![f64::NEG_INFINITY; count];
        if count == 0 {
            return (alpha, Vec::new(), f64::NEG_INFINITY);
        }
        alpha[0] = 0.0;
        for id in 1..count {
            let mut acc = f64::NEG_INFINITY;
            for e in self.nodes[id].incoming.clone() {
                let edge = &self.edges[e as usize];
                acc = log_add64(acc, alpha[edge.src as usize] + t * edge.weight as f64);
            }
            alpha[id] = acc;
        }
        let mut beta = vec![f64::NEG_INFINITY; count];
        for &f in &self.finals {
            beta[f as usize] = 0.0;
        }
        for id in (0..count).rev() {
            if beta[id] == f64::NEG_INFINITY {
                continue;
            }
            for e in self.nodes[id].incoming.clone() {
                let edge = &self.edges[e as usize];
                let src = edge.src as usize;
                beta[src] = log_add64(beta[src], beta[id] + t * edge.weight as f64);
            }
        }
        let total = self.finals.iter().fold(f64::NEG_INFINITY, |acc, &f| {
            log_add64(acc, alpha[f as usize])
        });
        (alpha, beta, total)
    }

    /// The best complete path, as edges from the start.
    pub fn best_path(&self) -> Vec<u32> {
        let Some(&end) = self.finals.iter().max_by(|&&a, &&b| {
            self.nodes[a as usize]
                .best
                .total_cmp(&self.nodes[b as usize].best)
        }) else {
            return Vec::new();
        };
        let mut path = Vec::new();
        let mut at = end;
        while let Some(e) = self.nodes[at as usize].best_in {
            path.push(e);
            at = self.edges[e as usize].src;
        }
        path.reverse();
        path
    }

    /// The best score of each layer (cells read, `0..=cells`); minus infinity where the
    /// search kept nothing.
    pub fn layer_bests(&self, cells: usize) -> Vec<f32> {
        let mut bests = vec![f32::NEG_INFINITY; cells + 1];
        for node in &self.nodes {
            if let Some(best) = bests.get_mut(node.cell as usize) {
                *best = best.max(node.best);
            }
        }
        bests
    }

    /// The score of the best complete path.
    pub fn best_score(&self) -> f32 {
        self.finals
            .iter()
            .map(|&f| self.nodes[f as usize].best)
            .fold(f32::NEG_INFINITY, f32::max)
    }
}

fn log_add64(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// For each ply of `plies` (the position before it, the move chosen, its cell) whose cell
/// fuses both players' sheets: the sheet that, read alone, fits another legal move better
/// than the chosen one by more than [`SHEETS_DIFFER_NATS`] while reading as that move (within
/// as many nats: a dropped mark, not a wrong square), and the likeliest such move; `None` where both sheets read as the chosen move, or
/// nearly, or the cell is one sheet's alone.
pub(crate) fn sheets_reading_otherwise<E: CellEvidence>(
    cells: &[E],
    lang: &Language,
    config: &DecoderConfig,
    plies: &[(Chess, Move, usize)],
) -> Vec<Option<(WhichSheet, Move)>> {
    let mut scorer = Scorer::new(cells, lang, config);
    plies
        .iter()
        .map(|(pos, chosen, cell)| {
            cells.get(*cell)?.copies()?;
            let legal = legal_moves_with_facts(pos);
            let (_, chosen_facts) = legal.iter().find(|(m, _)| m == chosen)?;
            let chosen_fits = scorer.sheet_scores(*cell, chosen_facts)?;
            let mut likeliest: Option<(f32, WhichSheet, Move)> = None;
            for (m, facts) in legal.iter().filter(|(m, _)| m != chosen) {
                let fits = scorer.sheet_scores(*cell, facts)?;
                let sheets = [WhichSheet::Own, WhichSheet::Copy];
                for ((sheet, fit), chosen_fit) in sheets.into_iter().zip(fits).zip(chosen_fits) {
                    let lead = fit - chosen_fit;
                    if lead > SHEETS_DIFFER_NATS
                        && fit > -SHEETS_DIFFER_NATS
                        && likeliest.as_ref().is_none_or(|l| lead > l.0)
                    {
                        likeliest = Some((lead, sheet, *m));
                    }
                }
            }
            likeliest.map(|(_, sheet, m)| (sheet, m))
        })
        .collect()
}

/// For each ply of `plies` (the position before it, the move chosen, its cell): another legal
/// move of the same piece to the same square (and the same promotion) that the cell fits
/// within `config.flag_written_alike_within` nats of the chosen one, the likeliest such; `None`
/// where the cell tells the chosen move from every such rival, or where there is none.
pub(crate) fn rivals_written_alike<E: CellEvidence>(
    cells: &[E],
    lang: &Language,
    config: &DecoderConfig,
    plies: &[(Chess, Move, usize)],
) -> Vec<Option<Move>> {
    let mut scorer = Scorer::new(cells, lang, config);
    plies
        .iter()
        .map(|(pos, chosen, cell)| {
            if cells.get(*cell)?.is_illegible() {
                return None;
            }
            let to = chosen.to();
            let is_rival = |m: &Move| {
                m != chosen
                    && !m.is_castle()
                    && m.role() == chosen.role()
                    && m.to() == to
                    && m.promotion() == chosen.promotion()
            };
            // Most moves have no rival: their facts are not worked out.
            if !pos.legal_moves().iter().any(is_rival) {
                return None;
            }
            let legal = legal_moves_with_facts(pos);
            let (_, chosen_facts) = legal.iter().find(|(m, _)| m == chosen)?;
            let chosen_fit = scorer.score(*cell, chosen_facts);
            legal
                .iter()
                .filter(|(m, _)| is_rival(m))
                .map(|(m, facts)| (scorer.score(*cell, facts), *m))
                .filter(|(fit, _)| *fit >= chosen_fit - config.flag_written_alike_within)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, m)| m)
        })
        .collect()
}

pub(crate) fn log_add(a: f32, b: f32) -> f32 {
    if a == f32::NEG_INFINITY {
        return b;
    }
    if b == f32::NEG_INFINITY {
        return a;
    }
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::rescue::{rescue, search_around, STRAIN_FROM};
    use super::*;
    use crate::decode::TypedCell;
    use crate::recognize::evidence::tests::read_as;
    use crate::recognize::{Charset, CtcCell};

    fn cells_read_as(texts: &[&str]) -> Vec<CtcCell> {
        let chars: Vec<char> = "abcdefgh12345678KQRBNxO-+#=".chars().collect();
        let charset = Arc::new(Charset::new(&chars).unwrap());
        texts
            .iter()
            .map(|t| CtcCell::new(read_as(&charset, t, 0.6)))
            .collect()
    }

    #[test]
    fn a_long_chain_of_steps_reads_back_in_order_and_costs_an_edge_no_more_room() {
        // Every offer and edge carries its steps: the heap form for the rare long chain must
        // not make the inline form larger.
        assert_eq!(
            std::mem::size_of::<Steps>(),
            std::mem::size_of::<[Option<Step>; INLINE_STEPS]>()
        );
        let pos = Chess::default();
        let steps: Vec<Step> = pos
            .legal_moves()
            .iter()
            .take(7)
            .enumerate()
            .map(|(i, &m)| written(m, i, StepKind::Written))
            .collect();
        for len in [0, 1, 4, 5, 7] {
            let mut kept = Steps::of(&steps[..len]);
            assert_eq!(kept.len(), len);
            let moves: Vec<Move> = kept.iter().map(|s| s.m).collect();
            let wanted: Vec<Move> = steps[..len].iter().map(|s| s.m).collect();
            assert_eq!(moves, wanted);
            kept.set_last_fit(-2.5);
            if len > 0 {
                assert_eq!(kept.iter().last().map(|s| s.fit), Some(-2.5));
                assert_eq!(kept.first().map(|s| s.m), Some(steps[0].m));
            }
        }
    }

    /// The default settings with no rule left to start a rescue, for a test to turn one on.
    fn no_rescue_rule() -> DecoderConfig {
        DecoderConfig {
            rescue_min_troubled: 100,
            rescue_min_slips: 100,
            rescue_strain_nats: 0.0,
            rescue_slip_misfit_within: 0,
            ..DecoderConfig::default()
        }
    }

    /// The first ten moves of the Ruy Lopez's closed line as written, but for the plies
    /// `unwritten` (0-based).
    fn ruy_lopez_without(unwritten: &[usize]) -> Vec<&'static str> {
        [
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3",
            "d6", "c3", "O-O", "h3", "Nb8", "d4", "Nbd7",
        ]
        .into_iter()
        .enumerate()
        .filter(|(ply, _)| !unwritten.contains(ply))
        .map(|(_, text)| text)
        .collect()
    }

    #[test]
    fn a_skipped_move_beside_a_misfit_starts_a_rescue_and_one_far_from_it_does_not() {
        let lang = Language::by_code("en").unwrap();
        let config = DecoderConfig {
            rescue_slip_misfit_within: 4,
            ..no_rescue_rule()
        };
        let priors = PriorMemo::default();
        let start = Chess::default();
        // The Ruy Lopez with White's fourth move (Ba4) not written down, and one move written
        // as something no legal move resembles: beside the gap, then far after it.
        let ruy = |scrawl_at: usize| -> Vec<TypedCell> {
            let mut texts = ruy_lopez_without(&[6]);
            texts[scrawl_at] = "Zq9z";
            texts.iter().map(|t| TypedCell::new(t)).collect()
        };
        let path_of = |cells: &[TypedCell]| {
            let lattice = search(
                SearchInputs::new(cells, &start, lang, &config, &priors),
                None,
            )
            .unwrap();
            let kinds: Vec<StepKind> = lattice
                .best_path()
                .iter()
                .flat_map(|&e| lattice.edges[e as usize].steps.iter().map(|s| s.kind))
                .collect();
            (lattice, kinds)
        };
        let near = ruy(8);
        let (mut lattice, kinds) = path_of(&near);
        assert_eq!(lattice.best_path_shifts(), 1, "{kinds:?}");
        assert!(lattice.slip_beside_misfit(&near, &config));
        let off = DecoderConfig {
            rescue_slip_misfit_within: 0,
            ..config.clone()
        };
        assert!(!lattice.slip_beside_misfit(&near, &off));
        assert!(rescue(
            &mut lattice,
            SearchInputs::new(&near, &start, lang, &off, &priors)
        )
        .is_none());
        assert!(rescue(
            &mut lattice,
            SearchInputs::new(&near, &start, lang, &config, &priors)
        )
        .is_some());
        let far = ruy(16);
        let (lattice, kinds) = path_of(&far);
        assert_eq!(lattice.best_path_shifts(), 1, "{kinds:?}");
        assert!(!lattice.slip_beside_misfit(&far, &config));
    }

    /// What escalating the Ruy Lopez with White's fourth move (Ba4) and Black's eighth (O-O)
    /// not written shows: the rescue's game is the true one, found no likelier than the
    /// first search's, and skips two moves to line up with the cells.
    struct RuyLopezEscalation {
        rescued_found_likelier: bool,
        rescued_shifts: usize,
        rescued_score: f32,
        score: f32,
        /// How many moves' fits the searches scored, the escalation's included.
        scored: usize,
    }

    /// Settings that escalate: a rescue 64 wide, and a third search 1,024 wide where the
    /// rescued game still needs two slips that shift the cells.
    fn escalating_config() -> DecoderConfig {
        DecoderConfig {
            rescue_beam_width: 64,
            rescue_escalation_troubled: 100,
            rescue_escalation_width: 1024,
            rescue_escalation_first_width: 0,
            rescue_escalation_slips: 0,
            rescue_escalation_unrescued_slips: 2,
            ..DecoderConfig::default()
        }
    }

    fn escalate_ruy_lopez(config: &DecoderConfig) -> RuyLopezEscalation {
        let lang = Language::by_code("en").unwrap();
        let cells: Vec<TypedCell> = ruy_lopez_without(&[6, 15])
            .iter()
            .map(|t| TypedCell::new(t))
            .collect();
        let priors = PriorMemo::default();
        let start = Chess::default();
        let first = search(
            SearchInputs::new(&cells, &start, lang, config, &priors),
            None,
        )
        .unwrap();
        let rescued = rescued_once(
            first,
            SearchInputs::new(&cells, &start, lang, config, &priors),
        );
        let rescued_found_likelier = rescued.found_likelier;
        let rescued_shifts = rescued.lattice.best_path_shifts();
        let rescued_score = rescued.lattice.best_score();
        let lattice = escalated(
            rescued,
            SearchInputs::new(&cells, &start, lang, config, &priors),
        );
        RuyLopezEscalation {
            rescued_found_likelier,
            rescued_shifts,
            rescued_score,
            score: lattice.best_score(),
            scored: lattice.scored.scores.iter().map(|s| s.len()).sum(),
        }
    }

    #[test]
    fn a_rescued_game_still_needing_two_slips_is_searched_wider_even_if_nothing_likelier_was_found()
    {
        let config = escalating_config();
        let never = DecoderConfig {
            rescue_escalation_unrescued_slips: 0,
            ..config.clone()
        };
        let escalation = escalate_ruy_lopez(&config);
        let before = escalate_ruy_lopez(&never);
        for run in [&escalation, &before] {
            assert!(!run.rescued_found_likelier);
            assert_eq!(run.rescued_shifts, 2);
        }
        assert_eq!(escalation.score, before.score);
        assert!(
            escalation.scored > before.scored,
            "{} -> {}",
            before.scored,
            escalation.scored
        );
    }

    #[test]
    fn the_widest_search_runs_only_where_a_narrower_one_found_a_likelier_game() {
        let config = escalating_config();
        let staged = DecoderConfig {
            rescue_escalation_first_width: 128,
            ..config.clone()
        };
        let widest = escalate_ruy_lopez(&config);
        let in_steps = escalate_ruy_lopez(&staged);
        // No wider search finds a likelier game than the rescue's.
        for run in [&widest, &in_steps] {
            assert_eq!(run.score, run.rescued_score);
        }
        assert!(
            in_steps.scored < widest.scored,
            "{} scored in steps, {} straight to the widest",
            in_steps.scored,
            widest.scored
        );
    }

    #[test]
    fn a_cascade_of_cheap_wrong_squares_strains_its_stretch_alone() {
        let lang = Language::by_code("en").unwrap();
        // Too few misfits and slips for a rescue by their count.
        let config = DecoderConfig {
            rescue_strain_nats: 12.0,
            rescue_strain_cells: 6,
            ..no_rescue_rule()
        };
        // The Berlin defence with three of its last moves written on wrong squares.
        let texts = [
            "e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6", "O-O", "Nxe4", "d4", "Nd7", "Bxc7", "dxc6",
            "dxe5", "Nf4",
        ];
        let cells: Vec<TypedCell> = texts.iter().map(|t| TypedCell::new(t)).collect();
        let priors = PriorMemo::default();
        let start = Chess::default();
        let mut lattice = search(
            SearchInputs::new(&cells, &start, lang, &config, &priors),
            None,
        )
        .unwrap();
        let fits = lattice.best_path_fits(cells.len());
        // Each wrong square costs 5 nats; castling written with letters, one of two equal
        // ways, costs ln 2 and strains nothing.
        let costly: Vec<usize> = (0..cells.len()).filter(|&c| fits[c] <= -5.0).collect();
        assert_eq!(costly, vec![9, 10, 13]);
        assert!(fits[6] < 0.0 && fits[6] > -STRAIN_FROM);
        assert_eq!(lattice.strained_cells(&cells, &config), vec![9, 10, 13]);
        let loose = DecoderConfig {
            rescue_strain_nats: 15.0,
            ..config.clone()
        };
        assert!(lattice.strained_cells(&cells, &loose).is_empty());
        let short = DecoderConfig {
            rescue_strain_cells: 4,
            ..config.clone()
        };
        assert!(lattice.strained_cells(&cells, &short).is_empty());
        // Cells 6-10 cost 10.7 nats, but the castling's part is not strain.
        let five = DecoderConfig {
            rescue_strain_nats: 10.5,
            rescue_strain_cells: 5,
            ..config.clone()
        };
        assert_eq!(lattice.strained_cells(&cells, &five), vec![9, 10, 13]);
        let off = DecoderConfig {
            rescue_strain_nats: 0.0,
            ..config.clone()
        };
        assert!(lattice.strained_cells(&cells, &off).is_empty());
        assert!(rescue(
            &mut lattice,
            SearchInputs::new(&cells, &start, lang, &off, &priors)
        )
        .is_none());
        let rescued = rescue(
            &mut lattice,
            SearchInputs::new(&cells, &start, lang, &config, &priors),
        )
        .unwrap();
        assert!(rescued.nodes.len() > lattice.nodes.len());
    }

    /// Every node of a lattice (its key, cell and score) and every edge (its ends and weight).
    type Shape = (Vec<(u64, u32, u32)>, Vec<(u32, u32, u32)>);

    fn shape(lattice: &Lattice) -> Shape {
        let nodes = lattice
            .nodes
            .iter()
            .map(|n| (n.key, n.cell, n.best.to_bits()));
        let edges = lattice
            .edges
            .iter()
            .map(|e| (e.src, e.dst, e.weight.to_bits()));
        (nodes.collect(), edges.collect())
    }

    #[test]
    fn a_search_again_from_what_the_first_one_scored_finds_what_a_fresh_one_finds() {
        let lang = Language::by_code("en").unwrap();
        let config = DecoderConfig::for_handwriting();
        // The Berlin defence, with Bb5 read as Bb4 and Nd6 as Nd8.
        let texts = [
            "e4", "e5", "Nf3", "Nc6", "Bb4", "Nf6", "O-O", "Nxe4", "d4", "Nd8", "Bxc6", "dxc6",
            "dxe5", "Nf5",
        ];
        let (cells, fresh_cells) = (cells_read_as(&texts), cells_read_as(&texts));
        let start = Chess::default();
        let priors = PriorMemo::default();
        let mut first = search(
            SearchInputs::new(&cells, &start, lang, &config, &priors),
            None,
        )
        .unwrap();
        let mut scored = std::mem::take(&mut first.scored);
        assert!(scored.scores.iter().all(|cell| !cell.is_empty()));
        let wide = DecoderConfig {
            rescue_beam_width: 256,
            ..config.clone()
        };
        let troubled = [4, 9];
        let again = search_around(
            &troubled,
            SearchInputs::new(&cells, &start, lang, &wide, &priors),
            &mut scored,
        )
        .unwrap();
        let mut fresh = Caches::default();
        let afresh = search_around(
            &troubled,
            SearchInputs::new(&fresh_cells, &start, lang, &wide, &PriorMemo::default()),
            &mut fresh,
        )
        .unwrap();
        assert!(again.nodes.len() > first.nodes.len());
        assert_eq!(shape(&again), shape(&afresh));
    }

    #[test]
    fn priors_recalled_from_another_search_are_those_worked_out_afresh() {
        let config = DecoderConfig::for_handwriting();
        // The Berlin defence read in German after English: mostly the same positions.
        let texts = [
            "e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6", "O-O", "Nxe4", "d4", "Nd6", "Bxc6", "dxc6",
        ];
        let (cells, fresh_cells) = (cells_read_as(&texts), cells_read_as(&texts));
        let start = Chess::default();
        let shared = PriorMemo::default();
        let english = Language::by_code("en").unwrap();
        let german = Language::by_code("de").unwrap();
        search(
            SearchInputs::new(&cells, &start, english, &config, &shared),
            None,
        )
        .unwrap();
        let recalled = search(
            SearchInputs::new(&cells, &start, german, &config, &shared),
            None,
        )
        .unwrap();
        let afresh = search(
            SearchInputs::new(&fresh_cells, &start, german, &config, &PriorMemo::default()),
            None,
        )
        .unwrap();
        assert_eq!(shape(&recalled), shape(&afresh));
        // Position by position: the priors recalled, those worked out, bit for bit; the
        // same position after another last move (a recapture counts), or past the book's
        // moves, has its own.
        let priors_of = |pos: &Chess, last: Option<Square>, memo: &PriorMemo| -> Vec<u32> {
            children((pos, zobrist(pos)), last, &config, memo)
                .iter()
                .map(|k| k.log_prior.to_bits())
                .collect()
        };
        let play = |pos: &mut Chess, san: &str| {
            let m = san.parse::<shakmaty::san::San>().unwrap();
            let m = m.to_move(pos).unwrap();
            pos.play_unchecked(m);
            m.to()
        };
        let mut pos = Chess::default();
        let mut last_to = None;
        for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6", "O-O"] {
            for last in [last_to, Some(Square::C6)] {
                let fresh = priors_of(&pos, last, &PriorMemo::default());
                assert_eq!(priors_of(&pos, last, &shared), fresh, "before {san}");
            }
            last_to = Some(play(&mut pos, san));
        }
        // After 3...Nf6 White may take on c6: a recapture there would weigh otherwise.
        let mut berlin = Chess::default();
        for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6"] {
            play(&mut berlin, san);
        }
        assert_ne!(
            priors_of(&berlin, Some(Square::F6), &PriorMemo::default()),
            priors_of(&berlin, Some(Square::C6), &PriorMemo::default())
        );
        let late: Chess = shakmaty::fen::Fen::from_ascii(
            b"r1bqkb1r/pppp1ppp/2n2n2/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 40",
        )
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
        assert_eq!(zobrist(&late), zobrist(&berlin));
        assert_ne!(
            PriorMemo::key((&late, zobrist(&late)), Some(Square::F6)),
            PriorMemo::key((&berlin, zobrist(&berlin)), Some(Square::F6))
        );
    }

    #[test]
    fn moves_scored_side_by_side_score_as_when_scored_one_by_one() {
        let lang = Language::by_code("en").unwrap();
        let config = DecoderConfig::for_handwriting();
        // Misread cells and check marks right and wrong: the scores come from the CTC and
        // the slip channel, each mark weighed by what the move does.
        let texts = ["e4", "f6+", "d1", "g5", "Qh5+"];
        let (parallel_cells, serial_cells) = (cells_read_as(&texts), cells_read_as(&texts));
        let mut side_by_side = Scorer::new(&parallel_cells, lang, &config);
        let mut one_by_one = Scorer::new(&serial_cells, lang, &config);
        let mut pos = Chess::default();
        for (cell, san) in ["e4", "f6", "d4", "g5", "Qh5#"].into_iter().enumerate() {
            let kids = children((&pos, zobrist(&pos)), None, &config, &PriorMemo::default());
            side_by_side.prescore(cell, kids.iter().map(|k| &k.facts));
            let distinct: rustc_hash::FxHashSet<u32> = kids.iter().map(|k| k.facts.key()).collect();
            assert_eq!(side_by_side.caches.scores[cell].len(), distinct.len());
            for kid in &kids {
                let settled = settle(&pos, zobrist(&pos), kid);
                for facts in [kid.facts, settled.facts] {
                    let (a, b) = (
                        side_by_side.score(cell, &facts),
                        one_by_one.score(cell, &facts),
                    );
                    assert_eq!(a.to_bits(), b.to_bits(), "{san}: {facts:?}");
                }
            }
            let m: shakmaty::san::San = san.parse().unwrap();
            pos.play_unchecked(m.to_move(&pos).unwrap());
        }
    }

    #[test]
    fn a_task_scores_as_its_search_and_hands_its_scores_back() {
        let lang = Language::by_code("en").unwrap();
        let config = DecoderConfig::for_handwriting();
        let cells = cells_read_as(&["e4", "Nf6", "Bc4"]);
        let mut parent = Scorer::new(&cells, lang, &config);
        let mut alone = Scorer::new(&cells, lang, &config);
        let pos = Chess::default();
        let kids = children((&pos, zobrist(&pos)), None, &config, &PriorMemo::default());
        parent.prescore(0, kids.iter().map(|k| &k.facts));
        let mut child = parent.child();
        for cell in 0..cells.len() {
            for kid in &kids {
                let facts = settle(&pos, zobrist(&pos), kid).facts;
                let (a, b) = (child.score(cell, &facts), alone.score(cell, &facts));
                assert_eq!(a.to_bits(), b.to_bits(), "cell {cell}: {facts:?}");
            }
        }
        // The child kept only what its parent had not scored: cell 0's moves were prescored
        // without check marks, and the settled facts of every cell were new.
        let caches = child.into_caches();
        assert!(caches.scores.iter().all(|c| !c.is_empty()));
        parent.caches.absorb(caches);
        for cell in 0..cells.len() {
            for kid in &kids {
                let key = settle(&pos, zobrist(&pos), kid).facts.key();
                assert!(parent.caches.scores[cell].contains_key(&key));
            }
        }
    }
}
