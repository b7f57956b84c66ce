//! The move priors of a position (attack-map features, the opening book and tree), worked
//! out once per position for every search of a decode ([`PriorMemo`]).

use rustc_hash::FxHashMap as HashMap;
use shakmaty::{Chess, Move, Position, Square};
use std::sync::{Mutex, OnceLock};

use super::{log_add, Child};
use crate::decode::{DecoderConfig, MovePrior, OpeningBook, OpeningTree};

/// The last move number whose position the opening book may know.
const BOOK_MOVES: u32 = 30;

/// Shards of a [`PriorMemo`]: a layer's positions are expanded on two threads at once.
const PRIOR_MEMO_SHARDS: usize = 16;

/// The move priors of the positions searches have expanded, for the searches that follow:
/// a decode's finalist languages, rescues and escalations expand mostly the same positions
/// again, and so does a decode of the same game after writer adaptation, and a position's
/// priors (its attack map, every move's features, the book and the tree) are the dearest part
/// of expanding it. It serves decoders of one prior setting (the first search's `prior`,
/// `prior_weight`, `book_bonus` and `tree_strength`); a search with another works its
/// priors out apart. Shared by threads: a layer's positions are expanded side by side.
#[derive(Default)]
pub struct PriorMemo {
    settings: OnceLock<PriorSettings>,
    shards: [Mutex<MemoShard>; PRIOR_MEMO_SHARDS],
}

/// One shard's priors, every position's in one list: a hard sheet's searches expand some two
/// million positions, and allocating and freeing a box for each took a seventh of such a
/// sheet's time (seed 104's German sheet 8.1 s with boxes, 6.9 s with lists).
#[derive(Default)]
struct MemoShard {
    /// Where each position's priors lie in `priors`: the first and the number.
    spans: HashMap<PriorKey, (u32, u32)>,
    priors: Vec<f32>,
}

/// What a position's priors depend on besides the position.
#[derive(Debug, Clone, PartialEq)]
struct PriorSettings {
    prior: MovePrior,
    prior_weight: f32,
    book_bonus: f32,
    tree_strength: f32,
}

impl PriorSettings {
    fn of(config: &DecoderConfig) -> PriorSettings {
        PriorSettings {
            prior: config.prior.clone(),
            prior_weight: config.prior_weight,
            book_bonus: config.book_bonus,
            tree_strength: config.tree_strength,
        }
    }
}

/// What a position's priors depend on: its zobrist key, and a byte for the square the
/// opponent's last move went to (64: none) and, in its top bit, whether the opening book
/// still counts ([`BOOK_MOVES`]).
type PriorKey = (u64, u8);

impl PriorMemo {
    /// Whether the memo holds priors of `config`'s settings (or none yet, and now takes
    /// them for its own).
    pub(super) fn serves(&self, config: &DecoderConfig) -> bool {
        let settings = PriorSettings::of(config);
        *self.settings.get_or_init(|| settings.clone()) == settings
    }

    /// The memo's key of `pos` (with its zobrist key).
    pub(super) fn key((pos, zobrist_key): (&Chess, u64), last_to: Option<Square>) -> PriorKey {
        let last = last_to.map_or(64, u8::from);
        let book = if pos.fullmoves().get() <= BOOK_MOVES {
            128
        } else {
            0
        };
        (zobrist_key, last | book)
    }

    fn shard(&self, key: PriorKey) -> &Mutex<MemoShard> {
        // The key's top bits: the map places its entries by the low ones.
        &self.shards[(key.0 >> 58) as usize % PRIOR_MEMO_SHARDS]
    }

    /// Gives `kids` the priors kept for `key`; false when none are kept (or, were two
    /// positions' keys ever to collide, kept for another number of moves).
    fn recall(&self, key: PriorKey, kids: &mut [Child]) -> bool {
        let Ok(shard) = self.shard(key).lock() else {
            return false;
        };
        match shard.spans.get(&key) {
            Some(&(first, count)) if count as usize == kids.len() => {
                let priors = &shard.priors[first as usize..][..kids.len()];
                for (kid, &p) in kids.iter_mut().zip(priors) {
                    kid.log_prior = p;
                }
                true
            }
            _ => false,
        }
    }

    fn keep(&self, key: PriorKey, kids: &[Child]) {
        let Ok(mut shard) = self.shard(key).lock() else {
            return;
        };
        // A shard past what a span can address keeps no more: the search works such
        // positions' priors out again.
        let first = shard.priors.len();
        if u32::try_from(first + kids.len()).is_err() {
            return;
        }
        shard.priors.extend(kids.iter().map(|k| k.log_prior));
        shard.spans.insert(key, (first as u32, kids.len() as u32));
    }
}

/// Gives `kids`, the `moves` of `pos` (with its zobrist key; its opponent last moved to
/// `last_to`) in that order, their log-priors: at most 0 for a `prior_weight` of at least 0.
/// Recalled from `memo` when it holds them, and kept there otherwise.
pub(super) fn set_priors(
    (pos, zobrist_key): (&Chess, u64),
    moves: &[Move],
    last_to: Option<Square>,
    config: &DecoderConfig,
    memo: &PriorMemo,
    kids: &mut [Child],
) {
    let key = PriorMemo::key((pos, zobrist_key), last_to);
    if memo.recall(key, kids) {
        return;
    }
    let mut priors = Vec::with_capacity(moves.len());
    config.prior.log_probs(pos, moves, last_to, &mut priors);
    if pos.fullmoves().get() <= BOOK_MOVES && config.book_bonus != 0.0 {
        let book = OpeningBook::shipped().moves(pos);
        if !book.is_empty() {
            for (m, p) in moves.iter().zip(priors.iter_mut()) {
                if book.contains(m) {
                    *p += config.book_bonus;
                }
            }
            let norm = priors
                .iter()
                .fold(f32::NEG_INFINITY, |acc, &p| log_add(acc, p));
            priors.iter_mut().for_each(|p| *p -= norm);
        }
    }
    if config.tree_strength > 0.0 {
        OpeningTree::shipped().blend(pos, moves, &mut priors, config.tree_strength);
    }
    for (child, p) in kids.iter_mut().zip(priors) {
        child.log_prior = p * config.prior_weight;
    }
    memo.keep(key, kids);
}
