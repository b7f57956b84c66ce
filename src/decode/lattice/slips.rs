//! The slips a search tries where a node's moves fit its cell badly: a move or a row the
//! player skipped, a cell holding no move, two cells written in swapped order, and a blank
//! cell's move reconsidered once a later cell needs another.

use shakmaty::{Chess, Move, Position, Square};

use super::{
    after, key_after, settle, unpriced_children, written, Child, Lattice, Node, Search, Step,
    StepKind,
};
use crate::decode::CellEvidence;

/// How much better (nats) a move must fit a badly fitting cell, once a blank cell's move is
/// changed, for the chain to be played out ([`Search::reconsider_blank`]).
const BLANK_GAIN: f32 = 1.0;

impl<'a, E: CellEvidence> Search<'a, E> {
    /// The slips that may explain a cell no legal move fits: a skipped move or row, a junk cell,
    /// two cells swapped.
    pub(super) fn repair(
        &mut self,
        node_id: u32,
        node: &Node,
        kids: &[Child],
        cell: usize,
        try_skips: bool,
    ) {
        let config = self.config;
        let slips = &config.slips;
        let base = node.best;
        let skipped = |m: Move| Step {
            m,
            cell: None,
            kind: StepKind::Skipped,
            fit: 0.0,
        };
        if try_skips {
            // The player skipped one move: it was played, the cell holds the move after it.
            for first in kids {
                // Fits and priors are at most 0: a chain that cannot make the layer with
                // perfect fits is not played out.
                let chain = slips.skipped_move + first.log_prior;
                if !self.pending.may_enter(cell + 1, base + chain) {
                    continue;
                }
                let first_pos = after(&node.pos, first.m);
                let first_key = key_after(&node.pos, node.key, first.m, &first_pos);
                self.offer_replies(
                    node_id,
                    node,
                    cell + 1,
                    chain,
                    (&first_pos, first_key),
                    &[skipped(first.m)],
                    (cell, StepKind::Written),
                );
            }
            // A whole row skipped: two moves played unwritten, among the likeliest by the prior.
            let mut likely: Vec<&Child> = kids.iter().collect();
            likely.sort_by(|a, b| b.log_prior.total_cmp(&a.log_prior));
            for first in likely.iter().take(config.row_skip_candidates) {
                if !self
                    .pending
                    .may_enter(cell + 1, base + slips.skipped_row + first.log_prior)
                {
                    continue;
                }
                let first_pos = after(&node.pos, first.m);
                let first_key = key_after(&node.pos, node.key, first.m, &first_pos);
                let mut seconds =
                    self.children((&first_pos, first_key), Some(first.m.to()), node.ply + 1);
                seconds.sort_by(|a, b| b.log_prior.total_cmp(&a.log_prior));
                for second in seconds.iter().take(config.row_skip_candidates) {
                    let chain = slips.skipped_row + first.log_prior + second.log_prior;
                    if !self.pending.may_enter(cell + 1, base + chain) {
                        continue;
                    }
                    let second_pos = after(&first_pos, second.m);
                    let second_key = key_after(&first_pos, first_key, second.m, &second_pos);
                    self.offer_replies(
                        node_id,
                        node,
                        cell + 1,
                        chain,
                        (&second_pos, second_key),
                        &[skipped(first.m), skipped(second.m)],
                        (cell, StepKind::Written),
                    );
                }
            }
        }
        if cell + 1 >= self.cells {
            return;
        }
        if !self.scorer.cells[cell].is_illegible() {
            self.junk_cell(node_id, node, kids, cell);
        }
        self.swapped_pair(node_id, node, kids, cell);
    }

    /// Cells `cell` and `cell + 1` were written in swapped order: the move of `cell + 1` was
    /// played first.
    pub(super) fn swapped_pair(&mut self, node_id: u32, node: &Node, kids: &[Child], cell: usize) {
        if cell + 1 >= self.cells {
            return;
        }
        let config = self.config;
        let slips = &config.slips;
        let base = node.best;
        let by_next = self.best_fits(
            (&node.pos, node.key),
            kids,
            cell + 1,
            config.swap_candidates,
        );
        for (first_fit, first, first_pos, first_key) in by_next {
            let chain = slips.swapped_cells + first.log_prior + first_fit;
            if !self.pending.may_enter(cell + 2, base + chain) {
                continue;
            }
            let first_step = Step {
                fit: first_fit,
                ..written(first.m, cell + 1, StepKind::Swapped)
            };
            self.offer_replies(
                node_id,
                node,
                cell + 2,
                chain,
                (&first_pos, first_key),
                &[first_step],
                (cell, StepKind::Swapped),
            );
        }
    }

    /// This cell holds no move; the move is in the next one.
    pub(super) fn junk_cell(&mut self, node_id: u32, node: &Node, kids: &[Child], cell: usize) {
        if cell + 1 >= self.cells {
            return;
        }
        let junk =
            self.config.slips.junk_cell + self.scorer.cells[cell].unreadable_log_likelihood();
        for kid in kids {
            let steps = [Step {
                m: kid.m,
                cell: Some(cell as u32 + 1),
                kind: StepKind::AfterJunkCell,
                fit: 0.0,
            }];
            self.offer_move(
                cell + 2,
                node_id,
                node.best,
                junk + kid.log_prior,
                (&node.pos, node.key),
                kid,
                cell + 1,
                &steps,
                node.ply + 1,
            );
        }
    }

    /// Offers to `layer` each reply from `pos` (reached from `node` by the moves of `prefix`,
    /// which cost `chain` nats together) that may enter it: the chain `prefix`, then the reply
    /// written in `cell` as `kind`.
    #[allow(clippy::too_many_arguments)]
    fn offer_replies(
        &mut self,
        node_id: u32,
        node: &Node,
        layer: usize,
        chain: f32,
        (pos, key): (&Chess, u64),
        prefix: &[Step],
        (cell, kind): (usize, StepKind),
    ) {
        let Some(last) = prefix.last() else {
            return;
        };
        let ply = node.ply + prefix.len() as u32;
        let replies = self.children_that_may_enter(
            (pos, key),
            Some(last.m.to()),
            ply,
            layer,
            node.best,
            chain,
            cell,
        );
        // At most two moves before the reply: room for the chain without allocating per reply.
        debug_assert!(prefix.len() < 3);
        let mut steps = [*last; 3];
        steps[..prefix.len()].copy_from_slice(prefix);
        let steps = &mut steps[..=prefix.len()];
        for kid in replies {
            steps[prefix.len()] = written(kid.m, cell, kind);
            self.offer_move(
                layer,
                node_id,
                node.best,
                chain + kid.log_prior,
                (pos, key),
                &kid,
                cell,
                steps,
                ply + 1,
            );
        }
    }

    /// From `ancestor` (at cell `from`): a skipped move, then the moves of cells `from` to
    /// `cell`, each among the few that fit its cell best.
    pub(super) fn skip_before(
        &mut self,
        ancestor_id: u32,
        ancestor: &Node,
        from: usize,
        cell: usize,
    ) {
        let config = self.config;
        for first in self.children(
            (&ancestor.pos, ancestor.key),
            ancestor.last_to,
            ancestor.ply,
        ) {
            let skipped = Step {
                m: first.m,
                cell: None,
                kind: StepKind::Skipped,
                fit: 0.0,
            };
            let w = config.slips.skipped_move + first.log_prior;
            if !self.pending.may_enter(cell + 1, ancestor.best + w) {
                continue;
            }
            let first_pos = after(&ancestor.pos, first.m);
            let first_key = key_after(&ancestor.pos, ancestor.key, first.m, &first_pos);
            self.rewrite_cells(
                ancestor_id,
                ancestor,
                &[skipped],
                w,
                (&first_pos, first_key),
                first.m.to(),
                from,
                cell,
            );
        }
    }

    /// Continues a chain of steps from `pos` by the best-fitting moves of cells `at..=cell`,
    /// offering each complete chain as an edge from `src`.
    #[allow(clippy::too_many_arguments)]
    fn rewrite_cells(
        &mut self,
        src_id: u32,
        src: &Node,
        steps: &[Step],
        w: f32,
        (pos, key): (&Chess, u64),
        last_to: Square,
        at: usize,
        cell: usize,
    ) {
        if !self.pending.may_enter(cell + 1, src.best + w) {
            return;
        }
        let kids = self.children_that_may_enter(
            (pos, key),
            Some(last_to),
            src.ply + steps.len() as u32,
            cell + 1,
            src.best,
            w,
            at,
        );
        let best = self.best_fits((pos, key), &kids, at, self.config.swap_candidates);
        for (fit, kid, kid_pos, kid_key) in best {
            let mut chain = steps.to_vec();
            chain.push(Step {
                m: kid.m,
                cell: Some(at as u32),
                kind: StepKind::Written,
                fit,
            });
            let w = w + kid.log_prior + fit;
            if at == cell {
                let ply = src.ply + chain.len() as u32;
                self.pending
                    .offer(cell + 1, src_id, src.best, w, &chain, kid_key, ply);
            } else {
                let next = (&kid_pos, kid_key);
                self.rewrite_cells(src_id, src, &chain, w, next, kid.m.to(), at + 1, cell);
            }
        }
    }

    /// Reconsiders the blank cells on `node`'s path, whose move at `cell` fits badly (its
    /// best `best_fit`): for each blank or illegible cell among the last
    /// `config.blank_lookback` cells of its best path (one written move a cell), every other
    /// move there is tried with the moves after it replayed as they were, and where that lets
    /// a move fit `cell` better, the chain is offered from the node before the blank cell
    /// ([`Search::replay_chain`]). At a blank cell every move fits alike and the beam keeps
    /// them by the prior alone; the move the player made may show only plies later (a rook
    /// to c8 that a later `Tc4` needs), long after it was pruned.
    pub(super) fn reconsider_blank(
        &mut self,
        lattice: &Lattice,
        node: &Node,
        cell: usize,
        best_fit: f32,
    ) {
        let lookback = self.config.blank_lookback;
        if lookback == 0 {
            return;
        }
        let cells = self.scorer.cells;
        // The path back, newest move first: the node before each move, the move, its cell.
        let mut path: Vec<(u32, Move, usize)> = Vec::new();
        let mut at = node;
        while path.len() < lookback {
            let Some(edge) = at.best_in.map(|e| &lattice.edges[e as usize]) else {
                break;
            };
            let Some(&Step {
                m,
                cell: Some(step_cell),
                kind: StepKind::Written,
                ..
            }) = edge.steps.first()
            else {
                break;
            };
            if edge.steps.len() != 1 {
                break;
            }
            path.push((edge.src, m, step_cell as usize));
            at = &lattice.nodes[edge.src as usize];
        }
        for (blank, &(ancestor_id, made, blank_cell)) in path.iter().enumerate() {
            if !cells[blank_cell].is_illegible() {
                continue;
            }
            let ancestor = &lattice.nodes[ancestor_id as usize];
            let replayed: Vec<(Move, usize)> = path[..blank]
                .iter()
                .rev()
                .map(|&(_, m, c)| (m, c))
                .collect();
            for other in self.children(
                (&ancestor.pos, ancestor.key),
                ancestor.last_to,
                ancestor.ply,
            ) {
                if other.m == made
                    || !self
                        .pending
                        .may_enter(cell + 1, ancestor.best + other.log_prior)
                {
                    continue;
                }
                // Cheap first: the moves after it still legal, and a move then fits `cell`
                // better than any did.
                let mut pos = after(&ancestor.pos, other.m);
                let replays = replayed.iter().all(|&(m, _)| {
                    let legal = pos.is_legal(m);
                    if legal {
                        pos.play_unchecked(m);
                    }
                    legal
                });
                if !replays {
                    continue;
                }
                let (_, kids) = unpriced_children(&pos);
                let fits_better = kids
                    .iter()
                    .any(|kid| self.scorer.score(cell, &kid.facts) > best_fit + BLANK_GAIN);
                if fits_better {
                    self.replay_chain(ancestor_id, ancestor, &other, blank_cell, &replayed, cell);
                }
            }
        }
    }

    /// Offers to the layer after `cell` the chain from `src` that reads `first` from the blank
    /// `blank_cell`, then `replayed` (each move with its cell), then the moves that fit `cell`
    /// best ([`Search::rewrite_cells`]), each scored as the search scores it.
    fn replay_chain(
        &mut self,
        src_id: u32,
        src: &Node,
        first: &Child,
        blank_cell: usize,
        replayed: &[(Move, usize)],
        cell: usize,
    ) {
        let settled = settle(&src.pos, src.key, first);
        let fit = self.scorer.score(blank_cell, &settled.facts);
        let mut w = first.log_prior + fit;
        let mut chain = vec![Step {
            m: first.m,
            cell: Some(blank_cell as u32),
            kind: StepKind::Written,
            fit,
        }];
        let (mut pos, mut key, mut last_to) = (settled.pos, settled.key, first.m.to());
        for &(m, at) in replayed {
            if !self.pending.may_enter(cell + 1, src.best + w) {
                return;
            }
            let ply = src.ply + chain.len() as u32;
            let kids = self.children((&pos, key), Some(last_to), ply);
            let Some(kid) = kids.iter().find(|kid| kid.m == m) else {
                return;
            };
            let settled = settle(&pos, key, kid);
            let fit = self.scorer.score(at, &settled.facts);
            w += kid.log_prior + fit;
            chain.push(Step {
                m,
                cell: Some(at as u32),
                kind: StepKind::Written,
                fit,
            });
            (pos, key, last_to) = (settled.pos, settled.key, m.to());
        }
        // The move at `cell` itself, as after a skipped move's rewritten cells.
        self.rewrite_cells(src_id, src, &chain, w, (&pos, key), last_to, cell, cell);
    }
}
