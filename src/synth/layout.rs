//! Scoresheet layouts as data: a federation's form is a JSON file (see `layouts/`), read by the
//! generator and, as a hint, by the page stage.

use serde::{Deserialize, Serialize};

/// Printed text on the form (title, notes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrintedText {
    pub text: String,
    /// Anchor point, millimetres from the page's top-left corner; `y` is the baseline.
    pub at_mm: [f32; 2],
    /// Capital height in millimetres.
    pub size_mm: f32,
    pub bold: bool,
    /// `"left"`, `"centre"` or `"right"`.
    pub anchor: String,
}

/// A labelled box of the header or footer (Event, White, Result...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Field {
    pub label: String,
    /// The PGN tag a player writes here, if any (`"White"`, `"Date"`...).
    pub tag: Option<String>,
    /// `[x, y, width, height]` in millimetres.
    pub rect_mm: [f32; 4],
}

/// A table of moves: a title row, then `rows` rows of number | White | Black.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// `[x, y, width, height]` in millimetres, title row included.
    pub rect_mm: [f32; 4],
    pub rows: u32,
    /// The move number printed in the first row.
    pub first_move: u32,
    /// Relative widths of the number, White and Black columns.
    pub columns: [f32; 3],
    pub title_row_mm: f32,
    /// Whether the number column and title row are printed on grey.
    pub shade_numbers: bool,
    /// Column titles as printed; `None`: in the sheet's language.
    pub column_titles: Option<[String; 2]>,
}

/// A scoresheet form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    pub name: String,
    pub description: String,
    pub page_mm: [f32; 2],
    /// Thickness of the ruling lines.
    pub line_mm: f32,
    pub texts: Vec<PrintedText>,
    pub fields: Vec<Field>,
    pub blocks: Vec<Block>,
}

/// One move cell of a layout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveCell {
    /// 1 = White's first move on the sheet.
    pub ply: u32,
    pub move_number: u32,
    /// `[x, y, width, height]` in millimetres.
    pub rect_mm: [f32; 4],
}

const BUILT_IN: &[&str] = &[
    include_str!("../../layouts/fide-2x30.json"),
    include_str!("../../layouts/single-40.json"),
    include_str!("../../layouts/chesscom-2x25.json"),
];

impl Layout {
    /// The layouts shipped with scoresheet (`layouts/*.json`).
    pub fn built_in() -> Vec<Layout> {
        BUILT_IN
            .iter()
            .map(|json| Layout::from_json(json).expect("built-in layouts are valid"))
            .collect()
    }

    pub fn by_name(name: &str) -> Option<Layout> {
        Layout::built_in().into_iter().find(|l| l.name == name)
    }

    /// Reads and checks a layout.
    pub fn from_json(json: &str) -> Result<Layout, String> {
        let layout: Layout = serde_json::from_str(json).map_err(|e| e.to_string())?;
        layout.check()?;
        Ok(layout)
    }

    fn check(&self) -> Result<(), String> {
        let [pw, ph] = self.page_mm;
        if !(pw > 0.0 && ph > 0.0 && pw <= 600.0 && ph <= 600.0) {
            return Err(format!(
                "page size {pw} x {ph} mm is not a sheet (at most 600 mm a side)"
            ));
        }
        let inside = |r: &[f32; 4]| {
            r.iter().all(|v| v.is_finite())
                && r[0] >= 0.0
                && r[1] >= 0.0
                && r[2] > 0.0
                && r[3] > 0.0
                && r[0] + r[2] <= pw + 0.01
                && r[1] + r[3] <= ph + 0.01
        };
        if self.blocks.is_empty() {
            return Err("a layout needs at least one block of moves".into());
        }
        let mut next_move = 1;
        for (i, block) in self.blocks.iter().enumerate() {
            if !inside(&block.rect_mm) {
                return Err(format!("block {i} lies outside the page"));
            }
            if block.rows == 0 || block.rows > 200 {
                return Err(format!("block {i} has {} rows", block.rows));
            }
            if block.first_move != next_move {
                return Err(format!(
                    "block {i} starts at move {}, expected {next_move}",
                    block.first_move
                ));
            }
            if block.columns.iter().any(|c| c.is_nan() || *c <= 0.0) {
                return Err(format!("block {i} has a column without width"));
            }
            if !(block.title_row_mm >= 0.0 && block.title_row_mm < block.rect_mm[3]) {
                return Err(format!("block {i}'s title row leaves no room for moves"));
            }
            next_move += block.rows;
        }
        for field in &self.fields {
            if !inside(&field.rect_mm) {
                return Err(format!("field {} lies outside the page", field.label));
            }
        }
        Ok(())
    }

    /// How many plies the sheet holds.
    pub fn capacity(&self) -> usize {
        self.blocks.iter().map(|b| 2 * b.rows as usize).sum()
    }

    /// The same form for a game's later sheet, `sheets_before` full sheets on: its printed
    /// move numbers go on from theirs.
    pub fn numbered_on(&self, sheets_before: u32) -> Layout {
        let moves_before = sheets_before * (self.capacity() / 2) as u32;
        let mut layout = self.clone();
        for block in &mut layout.blocks {
            block.first_move += moves_before;
        }
        layout
    }

    /// Every move cell, in ply order.
    pub fn move_cells(&self) -> Vec<MoveCell> {
        let mut cells = Vec::with_capacity(self.capacity());
        for block in &self.blocks {
            let total: f32 = block.columns.iter().sum();
            let [x, y, w, h] = block.rect_mm;
            let row_h = (h - block.title_row_mm) / block.rows as f32;
            let number_w = w * block.columns[0] / total;
            let white_w = w * block.columns[1] / total;
            let black_w = w * block.columns[2] / total;
            for row in 0..block.rows {
                let top = y + block.title_row_mm + row as f32 * row_h;
                let move_number = block.first_move + row;
                cells.push(MoveCell {
                    ply: 2 * move_number - 1,
                    move_number,
                    rect_mm: [x + number_w, top, white_w, row_h],
                });
                cells.push(MoveCell {
                    ply: 2 * move_number,
                    move_number,
                    rect_mm: [x + number_w + white_w, top, black_w, row_h],
                });
            }
        }
        cells.sort_by_key(|c| c.ply);
        cells
    }
}

/// "White" and "Black" as a federation of that language prints them.
pub fn column_titles(language: &str) -> [&'static str; 2] {
    match language {
        "de" => ["Weiß", "Schwarz"],
        "fr" => ["Blancs", "Noirs"],
        "es" | "ca" => ["Blancas", "Negras"],
        "it" => ["Bianco", "Nero"],
        "pt" => ["Brancas", "Pretas"],
        "nl" => ["Wit", "Zwart"],
        "pl" => ["Białe", "Czarne"],
        "ru" => ["Белые", "Чёрные"],
        "uk" => ["Білі", "Чорні"],
        "bg" => ["Бели", "Черни"],
        "sr" => ["Бели", "Црни"],
        "hy" => ["Սպիտակներ", "Սևեր"],
        "cs" | "sk" => ["Bílý", "Černý"],
        "hu" => ["Világos", "Sötét"],
        "sv" => ["Vit", "Svart"],
        "da" | "no" => ["Hvid", "Sort"],
        "fi" => ["Valkea", "Musta"],
        "ro" => ["Albe", "Negre"],
        "tr" => ["Beyaz", "Siyah"],
        "el" => ["Λευκά", "Μαύρα"],
        "eo" => ["Blanko", "Nigro"],
        "ga" => ["Bán", "Dubh"],
        _ => ["White", "Black"],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_layouts_hold_their_moves_in_order() {
        let layouts = Layout::built_in();
        let capacities: Vec<(String, usize)> = layouts
            .iter()
            .map(|l| (l.name.clone(), l.capacity()))
            .collect();
        assert_eq!(
            capacities,
            [
                ("fide-2x30".to_string(), 120),
                ("single-40".to_string(), 80),
                ("chesscom-2x25".to_string(), 100)
            ]
        );
        for layout in &layouts {
            let cells = layout.move_cells();
            assert_eq!(cells.len(), layout.capacity());
            for (i, cell) in cells.iter().enumerate() {
                assert_eq!(cell.ply as usize, i + 1);
                let [x, y, w, h] = cell.rect_mm;
                assert!(
                    x >= 0.0
                        && y >= 0.0
                        && x + w <= layout.page_mm[0]
                        && y + h <= layout.page_mm[1]
                );
            }
        }
    }

    #[test]
    fn broken_layouts_are_refused_with_the_cause() {
        let mut json: serde_json::Value =
            serde_json::from_str(include_str!("../../layouts/fide-2x30.json")).unwrap();
        json["blocks"][1]["first_move"] = 40.into();
        let err = Layout::from_json(&json.to_string()).unwrap_err();
        assert!(err.contains("expected 31"), "{err}");
        assert!(Layout::from_json("{}").is_err());
    }
}
