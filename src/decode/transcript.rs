//! Transcripts: a scoresheet's cells as text, one move number per line.
//!
//! ```text
//! 1<TAB>e4<TAB>e5
//! 2<TAB>Nf3<TAB>?
//! 3<TAB>Bb5
//! ```
//! Cells are separated by a TAB; an empty cell is empty, `?` marks an illegible one, and Black's
//! last cell may be absent. Lines that are blank or start with `%` are ignored. A result written
//! in the last cell (`1-0`, `0-1`, `1/2-1/2`, `½-½`) is taken as the result, not as a move.

use std::fmt;

use super::evidence::TypedCell;

/// A parsed transcript: the cells in ply order.
#[derive(Debug, Clone)]
pub struct Transcript {
    pub cells: Vec<TypedCell>,
    /// The move number of the first line.
    pub first_move_number: u32,
    /// A result the player wrote after the last move.
    pub written_result: Option<String>,
}

/// Why a transcript could not be read, with the line it happened on (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TranscriptError {
    NotUtf8 {
        line: usize,
    },
    MissingMoveNumber {
        line: usize,
        found: String,
    },
    MoveNumberOutOfOrder {
        line: usize,
        number: u32,
        previous: u32,
    },
    TooManyCells {
        line: usize,
        cells: usize,
    },
    TooLong {
        cells: usize,
    },
    Empty,
}

impl fmt::Display for TranscriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranscriptError::NotUtf8 { line } => write!(f, "line {line}: not UTF-8 text"),
            TranscriptError::MissingMoveNumber { line, found } => {
                write!(f, "line {line}: expected a move number before the first TAB, found {found:?}")
            }
            TranscriptError::MoveNumberOutOfOrder { line, number, previous } => write!(
                f,
                "line {line}: move number {number} does not follow {previous} (numbers must increase)"
            ),
            TranscriptError::TooManyCells { line, cells } => write!(
                f,
                "line {line}: {cells} cells after the move number; a line holds White's and Black's cells only"
            ),
            TranscriptError::TooLong { cells } => write!(
                f,
                "{cells} cells: longer than any scoresheet ({MAX_CELLS} cells, {} moves, at most)",
                MAX_CELLS / 2
            ),
            TranscriptError::Empty => write!(f, "no moves: the transcript has no numbered lines"),
        }
    }
}

impl std::error::Error for TranscriptError {}

/// The most cells a transcript may hold: 600 moves, twice the longest tournament game played.
pub const MAX_CELLS: usize = 1200;

/// Longest move number gap filled with blank cells rather than refused.
const MAX_GAP: u32 = 20;

fn is_result(text: &str) -> bool {
    matches!(
        text.trim(),
        "1-0" | "0-1" | "1/2-1/2" | "½-½" | "1/2" | "0.5-0.5" | "½:½" | "1:0" | "0:1"
    )
}

impl Transcript {
    /// Parses transcript bytes. `black_starts` says the start position has Black to move, so the
    /// first line's White cell is a placeholder (empty or `...`) and is skipped.
    pub fn parse(bytes: &[u8], black_starts: bool) -> Result<Transcript, TranscriptError> {
        let mut cells: Vec<TypedCell> = Vec::new();
        let mut raw_cells: Vec<String> = Vec::new();
        let mut first_move_number = None;
        let mut previous: Option<u32> = None;
        for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
            let line_no = index + 1;
            let line = std::str::from_utf8(line)
                .map_err(|_| TranscriptError::NotUtf8 { line: line_no })?;
            let line = line.trim_end_matches('\r');
            let line = if index == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            if line.trim().is_empty() || line.trim_start().starts_with('%') {
                continue;
            }
            let mut fields = line.split('\t');
            let number_text = fields.next().unwrap_or("").trim();
            let number: u32 = number_text.trim_end_matches('.').parse().map_err(|_| {
                TranscriptError::MissingMoveNumber {
                    line: line_no,
                    found: number_text.to_string(),
                }
            })?;
            let row: Vec<&str> = fields.collect();
            if row.len() > 2 {
                return Err(TranscriptError::TooManyCells {
                    line: line_no,
                    cells: row.len(),
                });
            }
            if let Some(prev) = previous {
                if number <= prev || number - prev > MAX_GAP + 1 {
                    return Err(TranscriptError::MoveNumberOutOfOrder {
                        line: line_no,
                        number,
                        previous: prev,
                    });
                }
                for _ in prev + 1..number {
                    raw_cells.push(String::new());
                    raw_cells.push(String::new());
                }
            }
            let skip_white = previous.is_none() && black_starts;
            first_move_number.get_or_insert(number);
            previous = Some(number);
            for (i, cell) in row.iter().enumerate() {
                if i == 0 && skip_white {
                    continue;
                }
                raw_cells.push(cell.to_string());
            }
            if row.len() < 2 && !(skip_white && row.len() == 1) {
                // Only the last line may lack Black's cell; earlier short lines are blanks.
                raw_cells.push(String::new());
            }
        }
        let first_move_number = first_move_number.ok_or(TranscriptError::Empty)?;
        while raw_cells.last().is_some_and(|c| c.trim().is_empty()) {
            raw_cells.pop();
        }
        let mut written_result = None;
        if raw_cells.last().is_some_and(|c| is_result(c)) {
            written_result = raw_cells.pop().map(|r| r.trim().replace('½', "1/2"));
            while raw_cells.last().is_some_and(|c| c.trim().is_empty()) {
                raw_cells.pop();
            }
        }
        if raw_cells.len() > MAX_CELLS {
            return Err(TranscriptError::TooLong {
                cells: raw_cells.len(),
            });
        }
        cells.extend(raw_cells.iter().map(|c| TypedCell::new(c)));
        Ok(Transcript {
            cells,
            first_move_number,
            written_result,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::CellEvidence;

    fn texts(t: &Transcript) -> Vec<&str> {
        t.cells.iter().map(|c| c.text()).collect()
    }

    #[test]
    fn reads_cells_in_ply_order() {
        let t = Transcript::parse(b"1\te4\te5\n2\tNf3\t?\n3\tBb5\n", false).unwrap();
        assert_eq!(texts(&t), ["e4", "e5", "Nf3", "?", "Bb5"]);
        assert!(t.cells[3].is_illegible());
        assert_eq!(t.first_move_number, 1);
    }

    #[test]
    fn tolerates_crlf_bom_blank_lines_and_numbers_with_dots() {
        let t = Transcript::parse(
            "\u{feff}1.\te4\te5\r\n\r\n2.\tNf3\tNc6\r\n".as_bytes(),
            false,
        )
        .unwrap();
        assert_eq!(texts(&t), ["e4", "e5", "Nf3", "Nc6"]);
    }

    #[test]
    fn empty_cells_stay_in_place_and_trailing_ones_go() {
        let t = Transcript::parse(b"1\te4\t\n2\tNf3\tNc6\n3\t\t\n", false).unwrap();
        assert_eq!(texts(&t), ["e4", "", "Nf3", "Nc6"]);
    }

    #[test]
    fn written_result_is_not_a_move() {
        let t = Transcript::parse(b"1\tf3\te5\n2\tg4\tQh4#\n3\t0-1\n", false).unwrap();
        assert_eq!(texts(&t), ["f3", "e5", "g4", "Qh4#"]);
        assert_eq!(t.written_result.as_deref(), Some("0-1"));
    }

    #[test]
    fn black_to_move_skips_the_first_white_cell() {
        let t = Transcript::parse(b"20\t...\tRe8\n21\tQd2\tQe7\n", true).unwrap();
        assert_eq!(texts(&t), ["Re8", "Qd2", "Qe7"]);
        assert_eq!(t.first_move_number, 20);
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            Transcript::parse(b"1\te4\te5\nfoo\tNf3\n", false).unwrap_err(),
            TranscriptError::MissingMoveNumber {
                line: 2,
                found: "foo".into()
            }
        );
        assert!(matches!(
            Transcript::parse(b"2\te4\te5\n1\tNf3\n", false),
            Err(TranscriptError::MoveNumberOutOfOrder { line: 2, .. })
        ));
        assert!(matches!(
            Transcript::parse(b"1\te4\te5\td4\n", false),
            Err(TranscriptError::TooManyCells { line: 1, cells: 3 })
        ));
        assert!(matches!(
            Transcript::parse(b"1\te4\n\xff\n", false),
            Err(TranscriptError::NotUtf8 { line: 2 })
        ));
        assert_eq!(
            Transcript::parse(b"\n\n", false).unwrap_err(),
            TranscriptError::Empty
        );
    }

    #[test]
    fn a_missing_row_becomes_two_blank_cells() {
        let t = Transcript::parse(b"1\te4\te5\n3\tBb5\ta6\n", false).unwrap();
        assert_eq!(texts(&t), ["e4", "e5", "", "", "Bb5", "a6"]);
    }
}
