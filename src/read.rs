//! The whole pipeline for one game: the pages of a scoresheet ([`Sheet`]s) through the page
//! stage, the cell reader and the decoder to the legal game, keeping for every move the cell it
//! was read from.

use std::fmt;

use image::{Rgb, RgbImage};
use serde_json::{json, Value};

use crate::decode::{decode, CellEvidence, DecoderConfig, Game, LanguageChoice, TypedCell};
use crate::page::overlay::{draw_overlay, mark_cells};
use crate::page::{find_cells, Cell, Cells, PageOptions, Quad, Sheet};
use crate::recognize::{read_cells, CtcCell, Reader, DEFAULT_EVIDENCE_SCALE};
use crate::report::html::{review_html, ReviewCell, ReviewPage};
use crate::report::{to_json, PgnTags};
use crate::start::StartPosition;

/// The outline of a flagged move's cell in [`GameRead::overlays`].
const FLAGGED: Rgb<u8> = Rgb([220, 20, 20]);

/// What the decoder is told about a game besides its pages.
#[derive(Clone)]
pub struct ReadOptions {
    pub start: StartPosition,
    pub language: LanguageChoice,
    pub page: PageOptions,
    pub decoder: DecoderConfig,
    /// Weight of the reader's evidence against the decoder's prior ([`CtcCell::with_scale`]).
    pub evidence_scale: f32,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            start: StartPosition::standard(),
            language: LanguageChoice::Auto,
            page: PageOptions::default(),
            decoder: DecoderConfig::default(),
            evidence_scale: DEFAULT_EVIDENCE_SCALE,
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

/// The evidence of one ply: a cell read by the model, a blank (no ink, or no cell found at
/// that ply), or the same ply on both players' sheets.
pub enum CellReading {
    Read(CtcCell),
    Blank(TypedCell),
    /// Both copies' evidence for one ply: independent readings of the same move, so their
    /// likelihoods multiply; each copy's part is floored at its own junk price, so a scrawl on
    /// one sheet leaves the decision to the other.
    BothCopies(Box<CellReading>, Box<CellReading>),
}

impl CellEvidence for CellReading {
    fn log_likelihood(&self, body: &[char], mark: &str, needed: f32) -> f32 {
        match self {
            CellReading::Read(c) => c.log_likelihood(body, mark, needed),
            CellReading::Blank(c) => c.log_likelihood(body, mark, needed),
            CellReading::BothCopies(own, copy) => match (own.is_illegible(), copy.is_illegible()) {
                (false, true) => own.log_likelihood(body, mark, needed),
                (true, false) => copy.log_likelihood(body, mark, f32::NEG_INFINITY),
                _ => {
                    let part = |c: &CellReading| {
                        c.log_likelihood(body, mark, f32::NEG_INFINITY)
                            .max(c.unreadable_log_likelihood())
                    };
                    part(own) + part(copy)
                }
            },
        }
    }

    fn unreadable_log_likelihood(&self) -> f32 {
        match self {
            CellReading::Read(c) => c.unreadable_log_likelihood(),
            CellReading::Blank(c) => c.unreadable_log_likelihood(),
            CellReading::BothCopies(own, copy) => match (own.is_illegible(), copy.is_illegible()) {
                (false, true) => own.unreadable_log_likelihood(),
                (true, false) => copy.unreadable_log_likelihood(),
                _ => own.unreadable_log_likelihood() + copy.unreadable_log_likelihood(),
            },
        }
    }

    fn is_illegible(&self) -> bool {
        match self {
            CellReading::Read(c) => c.is_illegible(),
            CellReading::Blank(_) => true,
            CellReading::BothCopies(own, copy) => own.is_illegible() && copy.is_illegible(),
        }
    }

    /// The game's own sheet's text, or the copy's where the own cell is blank.
    fn text(&self) -> &str {
        match self {
            CellReading::Read(c) => c.text(),
            CellReading::Blank(c) => c.text(),
            CellReading::BothCopies(own, copy) if own.is_illegible() => copy.text(),
            CellReading::BothCopies(own, _) => own.text(),
        }
    }

    fn draw_offer(&self) -> bool {
        match self {
            CellReading::Read(c) => c.draw_offer(),
            CellReading::Blank(_) => false,
            CellReading::BothCopies(own, copy) => own.draw_offer() || copy.draw_offer(),
        }
    }
}

/// A game read from its pages.
pub struct GameRead {
    pub game: Game,
    /// The cells found on each page of the game's own sheet.
    pub pages: Vec<Cells>,
    /// The cells found on each page of the other player's copy (numbered after `pages`).
    pub copy_pages: Vec<Cells>,
    /// Every move cell in game order; [`crate::decode::DecodedMove::cell`] indexes this.
    pub cells: Vec<GameCell>,
    /// What the decoder was given, one entry per ply in game order (both copies fused).
    pub evidence: Vec<CellReading>,
}

/// Reads one game from the pages of its scoresheet, in order: a second page continues after
/// every cell of the first. `copy` holds the other player's sheet of the same game (its pages
/// in order, or none): both copies' readings of a ply are evidence for the same move. Errors
/// name the page's file and the cause.
pub fn read_game(
    sheets: &[Sheet],
    copy: &[Sheet],
    reader: &Reader,
    options: &ReadOptions,
) -> Result<GameRead, ReadError> {
    let (pages, cells, mut evidence) = read_pages(sheets, 0, reader, options)?;
    let mut copy_pages = Vec::new();
    if !copy.is_empty() {
        let (found, _, copy_evidence) = read_pages(copy, sheets.len(), reader, options)?;
        copy_pages = found;
        let mut copy_evidence = copy_evidence.into_iter();
        evidence = evidence
            .into_iter()
            .map(|own| match copy_evidence.next() {
                Some(other) => CellReading::BothCopies(Box::new(own), Box::new(other)),
                None => own,
            })
            .collect();
        // Plies only the copy holds (the own sheet stopped early) still count.
        evidence.extend(copy_evidence);
    }
    let game = decode(
        &evidence,
        &options.start,
        options.language,
        &options.decoder,
    );
    Ok(GameRead {
        game,
        pages,
        copy_pages,
        cells,
        evidence,
    })
}

type PagesRead = (Vec<Cells>, Vec<GameCell>, Vec<CellReading>);

/// The cells of one sheet's pages in game order, with their evidence; `first_page` numbers
/// the pages.
fn read_pages(
    sheets: &[Sheet],
    first_page: usize,
    reader: &Reader,
    options: &ReadOptions,
) -> Result<PagesRead, ReadError> {
    let mut pages = Vec::with_capacity(sheets.len());
    let mut cells = Vec::new();
    let mut evidence = Vec::new();
    for (index, sheet) in sheets.iter().enumerate() {
        let page = first_page + index;
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
                CellReading::Read(reading.with_scale(options.evidence_scale))
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
    Ok((pages, cells, evidence))
}

impl GameRead {
    /// The HTML review page ([`crate::report::html`]); `sheets` are the pages this game was
    /// read from, in the order given to [`read_game`].
    pub fn review_html(&self, sheets: &[Sheet], tags: &PgnTags) -> String {
        let cells: Vec<ReviewCell> = self
            .cells
            .iter()
            .map(|c| ReviewCell {
                page: c.page,
                quad: c.cell.quad,
                read: c.text.clone(),
                read_confidence: c.text_confidence,
            })
            .collect();
        let pages: Vec<ReviewPage> = sheets
            .iter()
            .map(|s| ReviewPage {
                name: &s.name,
                image: &s.image,
            })
            .collect();
        review_html(&self.game, &cells, &pages, tags)
    }

    /// Each page of the game's own sheet (`sheets` as given to [`read_game`]) with the page
    /// stage's overlay ([`draw_overlay`]: the page, every cell and its ply) and the cells of
    /// the moves flagged for review outlined again in thick red.
    pub fn overlays(&self, sheets: &[Sheet]) -> Vec<RgbImage> {
        sheets
            .iter()
            .zip(&self.pages)
            .enumerate()
            .map(|(page, (sheet, cells))| {
                let mut image = draw_overlay(sheet, cells);
                let flagged: Vec<Quad> = self
                    .game
                    .moves
                    .iter()
                    .filter(|m| m.flagged)
                    .filter_map(|m| m.cell.and_then(|i| self.cells.get(i)))
                    // Plies the page stage found no cell for have an empty box: nothing to draw.
                    .filter(|c| c.page == page && c.cell.bbox[2] > 0.0)
                    .map(|c| c.cell.quad)
                    .collect();
                mark_cells(&mut image, &flagged, FLAGGED);
                image
            })
            .collect()
    }

    /// The decode JSON contract, plus for every move its cell (`page`, `quad` in that page's
    /// pixels) and what the reader saw there (`read`, `read_confidence`), and `pages` (each
    /// page's file: the own sheet's, then the copy's).
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::recognize::evidence::tests::read_as;
    use crate::recognize::Charset;

    fn decode_cells(cells: &[CellReading]) -> Vec<String> {
        let game = decode(
            cells,
            &StartPosition::standard(),
            LanguageChoice::Auto,
            &DecoderConfig::default(),
        );
        game.moves.into_iter().map(|m| m.san).collect()
    }

    #[test]
    fn the_other_copy_decides_where_one_sheet_is_unreadable() {
        let chars: Vec<char> = "abcdefgh12345678KQRBNxO-+#=".chars().collect();
        let charset = Arc::new(Charset::new(&chars).unwrap());
        let read = |t: &str| CellReading::Read(CtcCell::new(read_as(&charset, t, 0.8)));
        let truth = ["e4", "e5", "Nf3", "d6", "h3", "Nf6", "Nc3", "Be7"];
        // The own sheet's fifth cell is blank (or unreadable); the copy misreads another.
        let own: Vec<&str> = truth
            .iter()
            .enumerate()
            .map(|(i, t)| if i == 4 { "" } else { *t })
            .collect();
        let copy: Vec<&str> = truth
            .iter()
            .enumerate()
            .map(|(i, t)| if i == 2 { "Nf8" } else { *t })
            .collect();
        let alone: Vec<CellReading> = own.iter().map(|t| read(t)).collect();
        assert_ne!(
            decode_cells(&alone)[4],
            "h3",
            "the prior alone guesses another move"
        );
        let fused: Vec<CellReading> = own
            .iter()
            .zip(&copy)
            .map(|(a, b)| CellReading::BothCopies(Box::new(read(a)), Box::new(read(b))))
            .collect();
        assert_eq!(decode_cells(&fused), truth);
        // Both readable: the likelihoods multiply; one blank: the other alone counts.
        let both = CellReading::BothCopies(Box::new(read("e4")), Box::new(read("e4")));
        let single = read("e4");
        let e4: Vec<char> = "e4".chars().collect();
        let (fused_ll, single_ll) = (
            both.log_likelihood(&e4, "", f32::NEG_INFINITY),
            single.log_likelihood(&e4, "", f32::NEG_INFINITY),
        );
        assert!(
            (fused_ll - 2.0 * single_ll).abs() < 1e-3,
            "{fused_ll} vs {single_ll}"
        );
        let half = CellReading::BothCopies(Box::new(read("")), Box::new(read("e4")));
        assert_eq!(half.log_likelihood(&e4, "", f32::NEG_INFINITY), single_ll);
        assert_eq!(half.text(), "e4");
        assert!(!half.is_illegible());
        let none = CellReading::BothCopies(Box::new(read("")), Box::new(read("")));
        assert!(none.is_illegible());
    }
}
