//! Where a game starts: the standard position, any FEN (X-FEN or Shredder-FEN castling rights),
//! or one of the 960 Chess960 positions by its number.

use std::fmt;

use shakmaty::{fen::Fen, CastlingMode, Chess, EnPassantMode};

/// A legal starting position and the castling convention its moves are written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartPosition {
    pub position: Chess,
    /// Chess960 when the rooks or king do not start on their standard squares.
    pub castling_mode: CastlingMode,
}

/// Why a start position was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartError {
    /// The text is not a FEN.
    BadFen { fen: String, cause: String },
    /// The FEN parses but describes no legal chess position.
    IllegalPosition { fen: String, cause: String },
    /// Chess960 numbers run from 0 to 959.
    Chess960OutOfRange(u32),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::BadFen { fen, cause } => write!(f, "not a valid FEN {fen:?}: {cause}"),
            StartError::IllegalPosition { fen, cause } => {
                write!(f, "FEN {fen:?} is not a legal position: {cause}")
            }
            StartError::Chess960OutOfRange(n) => {
                write!(
                    f,
                    "Chess960 position {n} does not exist (numbers run from 0 to 959)"
                )
            }
        }
    }
}

impl std::error::Error for StartError {}

impl Default for StartPosition {
    fn default() -> StartPosition {
        StartPosition::standard()
    }
}

impl StartPosition {
    pub fn standard() -> StartPosition {
        StartPosition {
            position: Chess::default(),
            castling_mode: CastlingMode::Standard,
        }
    }

    /// Parses a FEN; castling rights may be written as in X-FEN (`KQkq`) or Shredder-FEN
    /// (`HAha`).
    pub fn from_fen(fen: &str) -> Result<StartPosition, StartError> {
        let parsed = Fen::from_ascii(fen.trim().as_bytes()).map_err(|e| StartError::BadFen {
            fen: fen.to_string(),
            cause: e.to_string(),
        })?;
        let mode = CastlingMode::detect(parsed.as_setup());
        let position =
            parsed
                .into_position::<Chess>(mode)
                .map_err(|e| StartError::IllegalPosition {
                    fen: fen.to_string(),
                    cause: e.to_string(),
                })?;
        Ok(StartPosition {
            position,
            castling_mode: mode,
        })
    }

    /// Chess960 start number `n` (0..=959) in the standard numbering (518 is the classical
    /// position), with both sides' castling rights.
    pub fn chess960(n: u32) -> Result<StartPosition, StartError> {
        let rank = chess960_back_rank(n).ok_or(StartError::Chess960OutOfRange(n))?;
        let white: String = rank.iter().collect();
        let black = white.to_ascii_lowercase();
        let fen = format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1");
        let parsed = Fen::from_ascii(fen.as_bytes()).map_err(|e| StartError::BadFen {
            fen: fen.clone(),
            cause: e.to_string(),
        })?;
        let position = parsed
            .into_position::<Chess>(CastlingMode::Chess960)
            .map_err(|e| StartError::IllegalPosition {
                fen: fen.clone(),
                cause: e.to_string(),
            })?;
        Ok(StartPosition {
            position,
            castling_mode: CastlingMode::Chess960,
        })
    }

    /// The start as a FEN (Shredder-style castling rights for Chess960 starts, X-FEN otherwise).
    pub fn fen(&self) -> String {
        Fen::from_position(&self.position, EnPassantMode::Legal).to_string()
    }

    pub fn is_standard(&self) -> bool {
        self.position == Chess::default()
    }
}

/// White's back rank of Chess960 position `n`, files a to h, by the Scharnagl numbering.
pub fn chess960_back_rank(n: u32) -> Option<[char; 8]> {
    if n >= 960 {
        return None;
    }
    let mut rank = [' '; 8];
    let mut rest = n as usize;
    rank[[1, 3, 5, 7][rest % 4]] = 'B';
    rest /= 4;
    rank[[0, 2, 4, 6][rest % 4]] = 'B';
    rest /= 4;
    let empty = |rank: &[char; 8]| -> Vec<usize> { (0..8).filter(|&i| rank[i] == ' ').collect() };
    rank[empty(&rank)[rest % 6]] = 'Q';
    rest /= 6;
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[rest];
    let free = empty(&rank);
    rank[free[a]] = 'N';
    rank[free[b]] = 'N';
    for (square, piece) in empty(&rank).into_iter().zip(['R', 'K', 'R']) {
        rank[square] = piece;
    }
    Some(rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(n: u32) -> String {
        chess960_back_rank(n).unwrap().iter().collect()
    }

    #[test]
    fn known_chess960_numbers() {
        assert_eq!(rank(518), "RNBQKBNR");
        assert_eq!(rank(0), "BBQNNRKR");
        assert_eq!(rank(959), "RKRNNQBB");
        assert_eq!(rank(3), "BQNNRKRB");
        assert!(chess960_back_rank(960).is_none());
    }

    #[test]
    fn all_960_starts_are_legal_and_distinct() {
        use shakmaty::Position;
        let mut seen = std::collections::HashSet::new();
        for n in 0..960 {
            let start = StartPosition::chess960(n).unwrap();
            // 16 pawn moves, 2 to 4 knight moves, and castling where king and rook stand side by
            // side with nothing between them.
            let moves = start.position.legal_moves().len();
            assert!((18..=21).contains(&moves), "{n}: {moves}");
            assert!(seen.insert(rank(n)));
        }
    }

    #[test]
    fn fen_round_trips_and_detects_chess960() {
        let standard = StartPosition::from_fen(&StartPosition::standard().fen()).unwrap();
        assert!(standard.is_standard());
        assert_eq!(standard.castling_mode, CastlingMode::Standard);
        let shredder =
            StartPosition::from_fen("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1")
                .unwrap();
        assert_eq!(shredder.castling_mode, CastlingMode::Chess960);
    }

    #[test]
    fn bad_fens_are_refused_with_a_cause() {
        assert!(matches!(
            StartPosition::from_fen("hello"),
            Err(StartError::BadFen { .. })
        ));
        let two_white_kings = "4k3/8/8/8/8/8/8/K3K3 w - - 0 1";
        assert!(matches!(
            StartPosition::from_fen(two_white_kings),
            Err(StartError::IllegalPosition { .. })
        ));
    }
}
