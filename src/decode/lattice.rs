//! The beam search over legal games for one fixed language, kept as a lattice so that
//! forward–backward gives every move's posterior.
//!
//! States are (cells read, position, plies played); states that agree are merged, so the beam
//! holds distinct explanations of the same cells. Layers are indexed by cells read, so that
//! hypotheses compete only with others that explained the same evidence.

use rustc_hash::FxHashMap as HashMap;
use shakmaty::{zobrist::Zobrist64, Chess, EnPassantMode, Move, Position, Square};

use super::evidence::CellEvidence;
use super::DecoderConfig;
use crate::notation::{for_each_form, Check, Language, MoveFacts};

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
}

#[derive(Debug, Clone)]
pub(crate) struct Edge {
    pub src: u32,
    pub dst: u32,
    pub weight: f32,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub pos: Chess,
    pub ply: u32,
    pub cell: u32,
    last_to: Option<Square>,
    pub best: f32,
    pub best_in: Option<u32>,
    pub incoming: Vec<u32>,
}

/// A legal move of a node's position, with what decides its score.
struct Child {
    m: Move,
    facts: MoveFacts,
    pos: Chess,
    log_prior: f32,
}

struct Candidate {
    pos: Chess,
    ply: u32,
    last_to: Option<Square>,
    best: f32,
    best_in: usize,
    incoming: Vec<(u32, f32, Vec<Step>)>,
}

/// The searched lattice: nodes in topological order (by layer), edges between kept nodes.
pub(crate) struct Lattice {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Nodes that read every cell.
    pub finals: Vec<u32>,
}

type FormList = Vec<(Vec<char>, f32)>;

/// Scores legal moves against cells for one language, caching by move facts.
struct Scorer<'a, E: CellEvidence> {
    cells: &'a [E],
    lang: &'a Language,
    config: &'a DecoderConfig,
    forms: HashMap<MoveFacts, FormList>,
    scores: Vec<HashMap<MoveFacts, f32>>,
}

impl<'a, E: CellEvidence> Scorer<'a, E> {
    fn new(cells: &'a [E], lang: &'a Language, config: &'a DecoderConfig) -> Self {
        Scorer {
            cells,
            lang,
            config,
            forms: HashMap::default(),
            scores: (0..cells.len()).map(|_| HashMap::default()).collect(),
        }
    }

    /// Log-likelihood of cell `cell` given that it holds the move with `facts`: the best of the
    /// move's written forms, or the cell's unreadable floor if that is likelier.
    fn score(&mut self, cell: usize, facts: &MoveFacts) -> f32 {
        if let Some(&s) = self.scores[cell].get(facts) {
            return s;
        }
        let evidence = &self.cells[cell];
        let s = if evidence.is_illegible() {
            0.0
        } else {
            let (lang, style) = (self.lang, &self.config.style);
            let forms = self.forms.entry(*facts).or_insert_with(|| {
                let mut list: FormList = Vec::new();
                for_each_form(facts, lang, style, &mut |text, w| {
                    list.push((text.chars().collect(), w));
                });
                list.sort_by(|a, b| b.1.total_cmp(&a.1));
                list
            });
            let floor = evidence.unreadable_log_likelihood();
            let mut best = floor;
            for (chars, weight) in forms.iter() {
                if *weight <= best {
                    break;
                }
                let s = weight + evidence.log_likelihood(chars);
                if s > best {
                    best = s;
                }
            }
            best
        };
        self.scores[cell].insert(*facts, s);
        s
    }
}

fn position_key(pos: &Chess, ply: u32) -> (u64, u32) {
    (pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0, ply)
}

fn children(pos: &Chess, last_to: Option<Square>, config: &DecoderConfig) -> Vec<Child> {
    let legal = pos.legal_moves();
    let mut out: Vec<Child> = legal
        .iter()
        .map(|&m| {
            let mut next = pos.clone();
            next.play_unchecked(m);
            let check = Check::of(&next);
            Child {
                m,
                facts: MoveFacts::new(m, &legal, check),
                pos: next,
                log_prior: 0.0,
            }
        })
        .collect();
    let facts: Vec<MoveFacts> = out.iter().map(|c| c.facts).collect();
    let mut priors = Vec::with_capacity(facts.len());
    config.prior.log_probs(&facts, last_to, &mut priors);
    for (child, p) in out.iter_mut().zip(priors) {
        child.log_prior = p * config.prior_weight;
    }
    out
}

/// Runs the beam over `cells` from `start` in `lang`.
pub(crate) fn search<E: CellEvidence>(
    cells: &[E],
    start: &Chess,
    lang: &Language,
    config: &DecoderConfig,
) -> Lattice {
    let n = cells.len();
    let mut scorer = Scorer::new(cells, lang, config);
    let mut lattice = Lattice {
        nodes: Vec::new(),
        edges: Vec::new(),
        finals: Vec::new(),
    };
    lattice.nodes.push(Node {
        pos: start.clone(),
        ply: 0,
        cell: 0,
        last_to: None,
        best: 0.0,
        best_in: None,
        incoming: Vec::new(),
    });
    let mut pending: Vec<HashMap<(u64, u32), Candidate>> =
        (0..=n).map(|_| HashMap::default()).collect();
    let mut pending_best = vec![f32::NEG_INFINITY; n + 1];
    let mut layer: Vec<u32> = vec![0];

    for cell in 0..=n {
        if cell > 0 {
            layer = admit(
                &mut lattice,
                std::mem::take(&mut pending[cell]),
                cell as u32,
                config,
            );
        }
        if cell == n {
            lattice.finals = layer.clone();
            break;
        }
        if layer.is_empty() {
            continue;
        }
        for (rank, &node_id) in layer.iter().enumerate() {
            let node = &lattice.nodes[node_id as usize];
            let base = node.best;
            let kids = children(&node.pos, node.last_to, config);
            let mut scored: Vec<(f32, usize)> = kids
                .iter()
                .enumerate()
                .map(|(i, kid)| (kid.log_prior + scorer.score(cell, &kid.facts), i))
                .collect();
            let best_here = kids
                .iter()
                .zip(&scored)
                .map(|(kid, (w, _))| w - kid.log_prior)
                .fold(f32::NEG_INFINITY, f32::max);
            scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
            for &(w, i) in scored.iter().take(config.moves_per_node) {
                let kid = &kids[i];
                let steps = vec![Step {
                    m: kid.m,
                    cell: Some(cell as u32),
                    kind: StepKind::Written,
                }];
                offer(
                    &mut pending,
                    &mut pending_best,
                    config,
                    cell + 1,
                    node_id,
                    base,
                    w,
                    steps,
                    &kid.pos,
                    node.ply + 1,
                    kid.m,
                );
            }
            let needs_repair = best_here < config.repair_below && rank < config.repair_from_best;
            if !needs_repair {
                continue;
            }
            repair(
                &mut scorer,
                &mut pending,
                &mut pending_best,
                config,
                node_id,
                node,
                &kids,
                cell,
                n,
            );
        }
    }
    if lattice.finals.is_empty() {
        // Nothing explains every cell (e.g. more cells than the game has moves): end where the
        // deepest hypotheses end, leaving the rest of the cells unmatched.
        if let Some(deepest) = lattice.nodes.iter().map(|n| n.cell).max() {
            lattice.finals = (0..lattice.nodes.len() as u32)
                .filter(|&i| lattice.nodes[i as usize].cell == deepest)
                .collect();
        }
    }
    lattice
}

#[allow(clippy::too_many_arguments)]
fn repair<E: CellEvidence>(
    scorer: &mut Scorer<'_, E>,
    pending: &mut [HashMap<(u64, u32), Candidate>],
    pending_best: &mut [f32],
    config: &DecoderConfig,
    node_id: u32,
    node: &Node,
    kids: &[Child],
    cell: usize,
    n: usize,
) {
    let base = node.best;
    let slips = &config.slips;
    // The player skipped one move: it was played, the cell holds the move after it.
    for skipped in kids {
        for kid in children(&skipped.pos, Some(skipped.m.to()), config) {
            let w = slips.skipped_move
                + skipped.log_prior
                + kid.log_prior
                + scorer.score(cell, &kid.facts);
            let steps = vec![
                Step {
                    m: skipped.m,
                    cell: None,
                    kind: StepKind::Skipped,
                },
                Step {
                    m: kid.m,
                    cell: Some(cell as u32),
                    kind: StepKind::Written,
                },
            ];
            offer(
                pending,
                pending_best,
                config,
                cell + 1,
                node_id,
                base,
                w,
                steps,
                &kid.pos,
                node.ply + 2,
                kid.m,
            );
        }
    }
    // A whole row skipped: two moves played unwritten, among the likeliest by the prior.
    let mut likely: Vec<&Child> = kids.iter().collect();
    likely.sort_by(|a, b| b.log_prior.total_cmp(&a.log_prior));
    for first in likely.iter().take(config.row_skip_candidates) {
        let mut seconds = children(&first.pos, Some(first.m.to()), config);
        seconds.sort_by(|a, b| b.log_prior.total_cmp(&a.log_prior));
        for second in seconds.iter().take(config.row_skip_candidates) {
            for kid in children(&second.pos, Some(second.m.to()), config) {
                let w = slips.skipped_row
                    + first.log_prior
                    + second.log_prior
                    + kid.log_prior
                    + scorer.score(cell, &kid.facts);
                let steps = vec![
                    Step {
                        m: first.m,
                        cell: None,
                        kind: StepKind::Skipped,
                    },
                    Step {
                        m: second.m,
                        cell: None,
                        kind: StepKind::Skipped,
                    },
                    Step {
                        m: kid.m,
                        cell: Some(cell as u32),
                        kind: StepKind::Written,
                    },
                ];
                offer(
                    pending,
                    pending_best,
                    config,
                    cell + 1,
                    node_id,
                    base,
                    w,
                    steps,
                    &kid.pos,
                    node.ply + 3,
                    kid.m,
                );
            }
        }
    }
    if cell + 1 >= n {
        return;
    }
    // This cell holds no move; the move is in the next one.
    for kid in kids {
        let w = slips.junk_cell + kid.log_prior + scorer.score(cell + 1, &kid.facts);
        let steps = vec![Step {
            m: kid.m,
            cell: Some(cell as u32 + 1),
            kind: StepKind::AfterJunkCell,
        }];
        offer(
            pending,
            pending_best,
            config,
            cell + 2,
            node_id,
            base,
            w,
            steps,
            &kid.pos,
            node.ply + 1,
            kid.m,
        );
    }
    // This cell and the next were written in swapped order.
    let mut by_next: Vec<(f32, &Child)> = kids
        .iter()
        .map(|k| (scorer.score(cell + 1, &k.facts), k))
        .collect();
    by_next.sort_by(|a, b| b.0.total_cmp(&a.0));
    for &(first_score, first) in by_next.iter().take(config.swap_candidates) {
        for kid in children(&first.pos, Some(first.m.to()), config) {
            let w = slips.swapped_cells
                + first.log_prior
                + first_score
                + kid.log_prior
                + scorer.score(cell, &kid.facts);
            let steps = vec![
                Step {
                    m: first.m,
                    cell: Some(cell as u32 + 1),
                    kind: StepKind::Swapped,
                },
                Step {
                    m: kid.m,
                    cell: Some(cell as u32),
                    kind: StepKind::Swapped,
                },
            ];
            offer(
                pending,
                pending_best,
                config,
                cell + 2,
                node_id,
                base,
                w,
                steps,
                &kid.pos,
                node.ply + 2,
                kid.m,
            );
        }
    }
}

/// Proposes reaching `pos` at layer `cell` from `src` with edge weight `w`.
#[allow(clippy::too_many_arguments)]
fn offer(
    pending: &mut [HashMap<(u64, u32), Candidate>],
    pending_best: &mut [f32],
    config: &DecoderConfig,
    cell: usize,
    src: u32,
    base: f32,
    w: f32,
    steps: Vec<Step>,
    pos: &Chess,
    ply: u32,
    last: Move,
) {
    let score = base + w;
    if score < pending_best[cell] - config.beam_margin {
        return;
    }
    pending_best[cell] = pending_best[cell].max(score);
    let key = position_key(pos, ply);
    let entry = pending[cell].entry(key).or_insert_with(|| Candidate {
        pos: pos.clone(),
        ply,
        last_to: Some(last.to()),
        best: f32::NEG_INFINITY,
        best_in: 0,
        incoming: Vec::new(),
    });
    if score > entry.best {
        entry.best = score;
        entry.best_in = entry.incoming.len();
    }
    entry.incoming.push((src, w, steps));
}

/// Keeps the best candidates of a layer as nodes, with their edges.
fn admit(
    lattice: &mut Lattice,
    candidates: HashMap<(u64, u32), Candidate>,
    cell: u32,
    config: &DecoderConfig,
) -> Vec<u32> {
    let mut list: Vec<Candidate> = candidates.into_values().collect();
    list.sort_by(|a, b| b.best.total_cmp(&a.best));
    let top = list.first().map_or(f32::NEG_INFINITY, |c| c.best);
    list.truncate(config.beam_width);
    list.retain(|c| c.best >= top - config.beam_margin);
    let mut ids = Vec::with_capacity(list.len());
    for cand in list {
        let id = lattice.nodes.len() as u32;
        let mut incoming = Vec::with_capacity(cand.incoming.len());
        let mut best_in = None;
        for (i, (src, weight, steps)) in cand.incoming.into_iter().enumerate() {
            let edge_id = lattice.edges.len() as u32;
            lattice.edges.push(Edge {
                src,
                dst: id,
                weight,
                steps,
            });
            incoming.push(edge_id);
            if i == cand.best_in {
                best_in = Some(edge_id);
            }
        }
        lattice.nodes.push(Node {
            pos: cand.pos,
            ply: cand.ply,
            cell,
            last_to: cand.last_to,
            best: cand.best,
            best_in,
            incoming,
        });
        ids.push(id);
    }
    ids
}

impl Lattice {
    /// Forward and backward log-masses of every node with edge weights scaled by
    /// `temperature`, and the log of the total mass of complete paths.
    pub fn forward_backward(&self, temperature: f32) -> (Vec<f32>, Vec<f32>, f32) {
        let count = self.nodes.len();
        let mut alpha = vec![f32::NEG_INFINITY; count];
        if count == 0 {
            return (alpha, Vec::new(), f32::NEG_INFINITY);
        }
        alpha[0] = 0.0;
        for id in 1..count {
            let mut acc = f32::NEG_INFINITY;
            for &e in &self.nodes[id].incoming {
                let edge = &self.edges[e as usize];
                acc = log_add(acc, alpha[edge.src as usize] + temperature * edge.weight);
            }
            alpha[id] = acc;
        }
        let mut beta = vec![f32::NEG_INFINITY; count];
        for &f in &self.finals {
            beta[f as usize] = 0.0;
        }
        for id in (0..count).rev() {
            if beta[id] == f32::NEG_INFINITY {
                continue;
            }
            for &e in &self.nodes[id].incoming {
                let edge = &self.edges[e as usize];
                let src = edge.src as usize;
                beta[src] = log_add(beta[src], beta[id] + temperature * edge.weight);
            }
        }
        let total = self
            .finals
            .iter()
            .fold(f32::NEG_INFINITY, |acc, &f| log_add(acc, alpha[f as usize]));
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

    /// The score of the best complete path.
    pub fn best_score(&self) -> f32 {
        self.finals
            .iter()
            .map(|&f| self.nodes[f as usize].best)
            .fold(f32::NEG_INFINITY, f32::max)
    }
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
