//! The opening book: named opening lines (lichess-org/chess-openings, CC0 1.0), so that the
//! decoder favours book moves where the writing is unclear, and a decoded game gets its ECO code
//! and opening name.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use shakmaty::{uci::UciMove, zobrist::Zobrist64, Chess, EnPassantMode, Move, Position};

/// An opening's code and name, e.g. `C65`, `Ruy Lopez: Berlin Defense`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    pub eco: String,
    pub name: String,
}

/// Book moves by position, and the opening each line's final position names.
#[derive(Debug, Default)]
pub struct OpeningBook {
    moves: FxHashMap<u64, Vec<Move>>,
    names: FxHashMap<u64, Opening>,
}

fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

impl OpeningBook {
    /// Reads `ECO<TAB>name<TAB>uci moves` lines; lines starting with `#` are comments. Lines
    /// with an illegal move are skipped from that move on.
    pub fn parse(text: &str) -> OpeningBook {
        let mut book = OpeningBook::default();
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let mut fields = line.split('\t');
            let (Some(eco), Some(name), Some(ucis)) = (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let mut pos = Chess::default();
            for uci in ucis.split_whitespace() {
                let Some(m) = uci
                    .parse::<UciMove>()
                    .ok()
                    .and_then(|u| u.to_move(&pos).ok())
                else {
                    break;
                };
                let moves = book.moves.entry(key(&pos)).or_default();
                if !moves.contains(&m) {
                    moves.push(m);
                }
                pos.play_unchecked(m);
            }
            book.names.insert(
                key(&pos),
                Opening {
                    eco: eco.to_string(),
                    name: name.to_string(),
                },
            );
        }
        book
    }

    /// The book that ships with scoresheet.
    pub fn shipped() -> &'static OpeningBook {
        static BOOK: OnceLock<OpeningBook> = OnceLock::new();
        BOOK.get_or_init(|| OpeningBook::parse(include_str!("openings.tsv")))
    }

    /// The book moves from `pos` (none once the game has left the book).
    pub fn moves(&self, pos: &Chess) -> &[Move] {
        self.moves.get(&key(pos)).map_or(&[], Vec::as_slice)
    }

    /// The most specific named opening a game from the standard start passes through.
    pub fn opening_of(&self, moves: &[Move]) -> Option<&Opening> {
        let mut pos = Chess::default();
        let mut found = self.names.get(&key(&pos));
        for &m in moves {
            if !pos.is_legal(m) {
                break;
            }
            pos.play_unchecked(m);
            if let Some(opening) = self.names.get(&key(&pos)) {
                found = Some(opening);
            } else if self.moves(&pos).is_empty() && found.is_some() {
                break;
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_book_knows_the_ruy_lopez() {
        let book = OpeningBook::shipped();
        assert!(book.moves.len() > 3000);
        let start = Chess::default();
        assert!(
            book.moves(&start).len() >= 15,
            "most first moves are named openings"
        );
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "g8f6"] {
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            moves.push(m);
        }
        let opening = book.opening_of(&moves).unwrap();
        assert_eq!(opening.eco, "C65");
        assert!(
            opening.name.starts_with("Ruy Lopez: Berlin Defense"),
            "{}",
            opening.name
        );
    }
}
