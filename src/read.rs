//! The whole pipeline for one game: the pages of a scoresheet ([`Sheet`]s) through the page
//! stage, the cell reader and the decoder to the legal game, keeping for every move the cell it
//! was read from.

use std::fmt;

use serde_json::{json, Value};

use crate::decode::{decode, CellEvidence, DecoderConfig, Game, LanguageChoice, TypedCell};
use crate::page::{find_cells, Cell, Cells, PageOptions, Sheet};
use crate::recognize::{read_cells, CtcCell, Reader};
use crate::report::{to_json, PgnTags};
use crate::start::StartPosition;

/// What the decoder is told about a game besides its pages.
#[derive(Clone)]
pub struct ReadOptions {
    pub start: StartPosition,
    pub language: LanguageChoice,
    pub page: PageOptions,
    pub decoder: DecoderConfig,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            start: StartPosition::standard(),
            language: LanguageChoice::Auto,
            page: PageOptions::default(),
            decoder: DecoderConfig::default(),
        }
    }
}

/// A page could not be read: the file and the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError(pub String);

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReadError {}

/// One move cell of the game, in ply order across the pages, with what the reader saw in it.
#[derive(Debug, Clone)]
pub struct GameCell {
    /// Index of the page (0 = the first sheet given).
    pub page: usize,
    /// The cell as the page stage found it (its ply is the page's own).
    pub cell: Cell,
    /// The reader's best path and its probability; empty for a cell without ink.
    pub text: String,
    pub text_confidence: f32,
}

/// The evidence of one cell: read by the model, or known blank (no ink, or no cell found at
/// that ply).
enum CellReading {
    Read(CtcCell),
    Blank(TypedCell),
}

impl CellEvidence for CellReading {
    fn log_likelihood(&self, body: &[char], mark: &str, needed: f32) -> f32 {
        match self {
            CellReading::Read(c) => c.log_likelihood(body, mark, needed),
            CellReading::Blank(c) => c.log_likelihood(body, mark, needed),
        }
    }

    fn unreadable_log_likelihood(&self) -> f32 {
        match self {
            CellReading::Read(c) => c.unreadable_log_likelihood(),
            CellReading::Blank(c) => c.unreadable_log_likelihood(),
        }
    }

    fn is_illegible(&self) -> bool {
        match self {
            CellReading::Read(c) => c.is_illegible(),
            CellReading::Blank(_) => true,
        }
    }

    fn text(&self) -> &str {
        match self {
            CellReading::Read(c) => c.text(),
            CellReading::Blank(c) => c.text(),
        }
    }

    fn draw_offer(&self) -> bool {
        match self {
            CellReading::Read(c) => c.draw_offer(),
            CellReading::Blank(_) => false,
        }
    }
}

/// A game read from its pages.
pub struct GameRead {
    pub game: Game,
    /// The cells found on each page.
    pub pages: Vec<Cells>,
    /// Every move cell in game order; [`crate::decode::DecodedMove::cell`] indexes this.
    pub cells: Vec<GameCell>,
}

/// Reads one game from the pages of its scoresheet, in order: a second page continues after
/// every cell of the first. Errors name the page's file and the cause.
pub fn read_game(
    sheets: &[Sheet],
    reader: &Reader,
    options: &ReadOptions,
) -> Result<GameRead, ReadError> {
    let mut pages = Vec::with_capacity(sheets.len());
    let mut cells = Vec::new();
    let mut evidence = Vec::new();
    for (page, sheet) in sheets.iter().enumerate() {
        let found = find_cells(sheet, &options.page).map_err(|e| ReadError(e.to_string()))?;
        let readings = read_cells(reader, sheet, &found).map_err(|e| ReadError(e.to_string()))?;
        let mut by_ply: Vec<(Cell, CtcCell)> = found.cells.iter().cloned().zip(readings).collect();
        by_ply.sort_by_key(|(cell, _)| cell.ply);
        let mut expected_ply = 1;
        for (cell, reading) in by_ply {
            // A ply the page stage found no cell for is a blank, so later plies keep their place.
            while expected_ply < cell.ply {
                evidence.push(CellReading::Blank(TypedCell::new("")));
                cells.push(GameCell {
                    page,
                    cell: Cell {
                        ply: expected_ply,
                        quad: [[0.0; 2]; 4],
                        bbox: [0.0; 4],
                        ink: false,
                        ink_share: 0.0,
                    },
                    text: String::new(),
                    text_confidence: 0.0,
                });
                expected_ply += 1;
            }
            expected_ply = cell.ply + 1;
            let (text, text_confidence) = if cell.ink {
                (reading.text().to_string(), reading.text_confidence())
            } else {
                (String::new(), 0.0)
            };
            evidence.push(if cell.ink {
                CellReading::Read(reading)
            } else {
                CellReading::Blank(TypedCell::new(""))
            });
            cells.push(GameCell {
                page,
                cell,
                text,
                text_confidence,
            });
        }
        pages.push(found);
    }
    let game = decode(
        &evidence,
        &options.start,
        options.language,
        &options.decoder,
    );
    Ok(GameRead { game, pages, cells })
}

impl GameRead {
    /// The decode JSON contract, plus for every move its cell (`page`, `quad` in that page's
    /// pixels) and what the reader saw there (`read`, `read_confidence`), and `pages` (each
    /// page's file).
    pub fn to_json(&self, tags: &PgnTags) -> Value {
        let mut json = to_json(&self.game, tags);
        if let Some(Value::Array(moves)) = json.get_mut("moves") {
            for (entry, m) in moves.iter_mut().zip(&self.game.moves) {
                let Some(cell) = m.cell.and_then(|i| self.cells.get(i)) else {
                    continue;
                };
                entry["page"] = json!(cell.page);
                entry["quad"] = json!(cell
                    .cell
                    .quad
                    .map(|[x, y]| [(x * 10.0).round() / 10.0, (y * 10.0).round() / 10.0]));
                entry["read"] = json!(cell.text);
                entry["read_confidence"] =
                    json!((cell.text_confidence as f64 * 1000.0).round() / 1000.0);
            }
        }
        json["pages"] = json!(self
            .pages
            .iter()
            .map(|p| p.source.clone())
            .collect::<Vec<_>>());
        json
    }
}
