//! The opening tree: how often players chose each move in common early positions, counted over
//! real games, so that where the writing is unclear the decoder prefers what players actually
//! play (1.e4 e6 2.d4 d5, not 1.b4 c6 2.a4 f5) far more sharply than move features can.
//!
//! Only positions reached in many games are kept (see [`OpeningTree::count`]): the table is a
//! statistic of common openings, from which no single game can be read back.

use std::io::Read;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use shakmaty::{
    uci::UciMove, zobrist::Zobrist64, CastlingMode, Chess, EnPassantMode, Move, Position,
};

/// Positions are counted before each of a game's first this many plies.
pub const TREE_PLIES: usize = 30;

/// A position must have been reached in this many games to be kept.
pub const TREE_MIN_GAMES: u32 = 5;

/// A move must have been chosen this many times in a kept position to be listed; the rest
/// count only in the position's total.
pub const TREE_MIN_MOVE: u32 = 2;

/// The moves chosen in one position.
#[derive(Debug, Clone, Default, PartialEq)]
struct Choices {
    /// Games that reached the position (and went on from it).
    games: u32,
    /// Moves chosen at least [`TREE_MIN_MOVE`] times, as UCI, with how often.
    moves: Vec<(UciMove, u32)>,
}

/// Move counts by position (zobrist key).
#[derive(Debug, Default)]
pub struct OpeningTree {
    positions: FxHashMap<u64, Choices>,
}

fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

impl OpeningTree {
    /// Counts the moves of `games` (legal moves from the standard start) over their first
    /// [`TREE_PLIES`] plies, keeping what [`TREE_MIN_GAMES`] and [`TREE_MIN_MOVE`] allow.
    pub fn count<'a>(games: impl IntoIterator<Item = &'a [Move]>) -> OpeningTree {
        let mut all: FxHashMap<u64, (u32, FxHashMap<UciMove, u32>)> = FxHashMap::default();
        for moves in games {
            let mut pos = Chess::default();
            for &m in moves.iter().take(TREE_PLIES) {
                if !pos.is_legal(m) {
                    break;
                }
                let entry = all.entry(key(&pos)).or_default();
                entry.0 += 1;
                *entry
                    .1
                    .entry(UciMove::from_move(m, CastlingMode::Standard))
                    .or_default() += 1;
                pos.play_unchecked(m);
            }
        }
        let positions = all
            .into_iter()
            .filter(|(_, (games, _))| *games >= TREE_MIN_GAMES)
            .map(|(key, (games, moves))| {
                let mut moves: Vec<(UciMove, u32)> = moves
                    .into_iter()
                    .filter(|(_, n)| *n >= TREE_MIN_MOVE)
                    .collect();
                moves.sort_by(|a, b| {
                    b.1.cmp(&a.1)
                        .then_with(|| a.0.to_string().cmp(&b.0.to_string()))
                });
                (key, Choices { games, moves })
            })
            .collect();
        OpeningTree { positions }
    }

    /// The tree as text, one position a line, sorted by key:
    /// `KEY<TAB>GAMES<TAB>UCI:COUNT UCI:COUNT ...` (key in hex).
    pub fn to_text(&self) -> String {
        let mut keys: Vec<&u64> = self.positions.keys().collect();
        keys.sort();
        let mut out = String::new();
        for key in keys {
            let choices = &self.positions[key];
            let moves: Vec<String> = choices
                .moves
                .iter()
                .map(|(m, n)| format!("{m}:{n}"))
                .collect();
            out.push_str(&format!(
                "{key:016x}\t{}\t{}\n",
                choices.games,
                moves.join(" ")
            ));
        }
        out
    }

    /// Reads [`OpeningTree::to_text`]'s format; lines starting with `#` are comments, and a
    /// malformed line is an error naming it.
    pub fn parse(text: &str) -> Result<OpeningTree, String> {
        let mut positions = FxHashMap::default();
        for (number, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let bad = || format!("opening tree line {}: {line:?}", number + 1);
            let mut fields = line.split('\t');
            let (Some(key), Some(games), moves) = (fields.next(), fields.next(), fields.next())
            else {
                return Err(bad());
            };
            let key = u64::from_str_radix(key, 16).map_err(|_| bad())?;
            let games: u32 = games.parse().map_err(|_| bad())?;
            let moves = moves
                .unwrap_or("")
                .split_whitespace()
                .map(|item| {
                    let (uci, n) = item.split_once(':')?;
                    Some((uci.parse::<UciMove>().ok()?, n.parse::<u32>().ok()?))
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(bad)?;
            positions.insert(key, Choices { games, moves });
        }
        Ok(OpeningTree { positions })
    }

    /// The tree that ships with scoresheet (`tree.tsv.gz`, made by `decode-bench --make-tree`).
    pub fn shipped() -> &'static OpeningTree {
        static TREE: OnceLock<OpeningTree> = OnceLock::new();
        TREE.get_or_init(|| {
            let mut text = String::new();
            flate2::read::GzDecoder::new(&include_bytes!("tree.tsv.gz")[..])
                .read_to_string(&mut text)
                .expect("the shipped opening tree is gzip text");
            OpeningTree::parse(&text).expect("the shipped opening tree parses")
        })
    }

    /// Positions kept.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Blends the counts of `pos` into `log_priors` (the log-probabilities of `moves`, all
    /// the legal moves of `pos`, from another model): each move's weight is its count plus
    /// `strength` + the unlisted games times its prior probability, so a position seen in
    /// few games leans on the prior and one seen in thousands on what players chose. Leaves
    /// positions the tree does not hold as they are; returns whether it held `pos`.
    pub fn blend(
        &self,
        pos: &Chess,
        moves: &[Move],
        log_priors: &mut [f32],
        strength: f32,
    ) -> bool {
        let Some(choices) = self.positions.get(&key(pos)) else {
            return false;
        };
        let listed: u32 = choices.moves.iter().map(|(_, n)| n).sum();
        let spread = strength + choices.games.saturating_sub(listed) as f32;
        let total = choices.games as f32 + strength;
        for (m, p) in moves.iter().zip(log_priors.iter_mut()) {
            let uci = UciMove::from_move(*m, CastlingMode::Standard);
            let count = choices
                .moves
                .iter()
                .find(|(u, _)| *u == uci)
                .map_or(0, |(_, n)| *n);
            *p = ((count as f32 + spread * p.exp()) / total)
                .max(f32::MIN_POSITIVE)
                .ln();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::decode::uci_line as line;

    #[test]
    fn counts_round_trip_and_sharpen_the_prior_where_many_games_agree() {
        let french = line(&["e2e4", "e7e6", "d2d4", "d7d5"]);
        let sicilian = line(&["e2e4", "c7c5"]);
        let polish = line(&["b2b4"]);
        let mut games: Vec<&[Move]> = vec![&french; 8];
        games.extend(vec![&sicilian[..]; 3]);
        games.push(&polish);
        let tree = OpeningTree::count(games);
        let again = OpeningTree::parse(&tree.to_text()).unwrap();
        assert_eq!(again.positions, tree.positions);
        // The start (12 games), after 1.e4 (11) and after 1.e4 e6 (8), 2.d4 (8); not beyond
        // 2...d5, nor after 1.e4 c5 (3 games).
        assert_eq!(tree.len(), 4);

        let start = Chess::default();
        let moves: Vec<Move> = start.legal_moves().into_iter().collect();
        let uniform = -(moves.len() as f32).ln();
        let mut priors = vec![uniform; moves.len()];
        assert!(tree.blend(&start, &moves, &mut priors, 4.0));
        let of = |uci: &str| {
            let m = uci.parse::<UciMove>().unwrap().to_move(&start).unwrap();
            priors[moves.iter().position(|x| *x == m).unwrap()]
        };
        // 1.e4 in 11 of 12 games; 1.b4 once (below TREE_MIN_MOVE: spread like any other).
        assert!(of("e2e4") > (0.6f32).ln(), "{}", of("e2e4"));
        assert!((of("b2b4") - of("a2a3")).abs() < 1e-6);
        let total: f32 = priors.iter().map(|p| p.exp()).sum();
        assert!((total - 1.0).abs() < 1e-4, "{total}");

        let mut after_c5 = start.clone();
        for m in &sicilian {
            after_c5.play_unchecked(*m);
        }
        let mut unchanged = vec![0.0; 1];
        assert!(!tree.blend(&after_c5, &moves[..1], &mut unchanged, 4.0));
        assert_eq!(unchanged, [0.0]);
        assert!(OpeningTree::parse("zz\t1\t").is_err());
    }

    #[test]
    fn the_shipped_tree_knows_the_main_lines() {
        let tree = OpeningTree::shipped();
        assert!(tree.len() > 1000, "{}", tree.len());
        let start = Chess::default();
        let moves: Vec<Move> = start.legal_moves().into_iter().collect();
        let mut priors = vec![-(moves.len() as f32).ln(); moves.len()];
        assert!(tree.blend(&start, &moves, &mut priors, 10.0));
        let best = moves[priors
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap()
            .0];
        let best = UciMove::from_move(best, CastlingMode::Standard).to_string();
        assert!(["e2e4", "d2d4"].contains(&best.as_str()), "{best}");
    }
}
