//! The review page: one self-contained HTML file an arbiter opens in a browser. For every move:
//! the cell's crop from the original image (and the other player's, when the game was read
//! with their copy), what the model read, the move chosen with its confidence and
//! alternatives, and the board after it; flagged moves first in a summary; a click on a move
//! shows its cells on the sheets.

use std::fmt::Write as _;
use std::io::Cursor;

use image::{DynamicImage, GrayImage, ImageFormat};
use shakmaty::{Chess, Color, Position, Role, Square};

use super::{move_number, review_note, PgnTags};
use crate::decode::{Game, StepKind};
use crate::page::crop::{cell_crop, CROP_MARGIN};
use crate::page::geometry::mean_sides;
use crate::page::Quad;

/// A page of the scoresheet as the report shows it.
pub struct ReviewPage<'a> {
    pub name: &'a str,
    pub image: &'a DynamicImage,
}

/// A cell the decoder read, as the report shows it: where it is and what the model saw.
pub struct ReviewCell {
    /// Index into the report's pages.
    pub page: usize,
    /// The cell's box as it was read: widened over its right border where the writing runs
    /// on past it.
    pub quad: Quad,
    pub read: String,
    pub read_confidence: f32,
    /// The same ply on the other player's copy of the sheet, when both sheets wrote it.
    pub copy: Option<Box<ReviewCell>>,
}

/// Longest side of a page as embedded in the report, in pixels: enough to find a cell, small
/// enough to keep the file light.
const PAGE_SIDE: u32 = 1400;
/// Cell crops are shown this many pixels high (twice the height shown, for sharp screens),
/// as wide as the cell's own shape, within [`CROP_WIDTHS`]: a long cell squashed into a
/// fixed box would hide what the player wrote. The crop keeps the reader's margins.
const CROP_HEIGHT: u32 = 90;
const CROP_WIDTHS: (u32, u32) = (180, 900);

/// The size of the review crop of the cell `quad`: [`CROP_HEIGHT`] high, its width from the
/// cell's width over height with the crop's margins.
fn crop_size(quad: &Quad) -> (u32, u32) {
    let (width, height) = mean_sides(quad);
    let grown = (
        width * (1.0 + 2.0 * CROP_MARGIN.0),
        height * (1.0 + 2.0 * CROP_MARGIN.1),
    );
    let aspect = grown.0 / grown.1;
    let shown = if aspect.is_finite() && aspect > 0.0 {
        (CROP_HEIGHT as f32 * aspect).round() as u32
    } else {
        CROP_WIDTHS.0
    };
    (shown.clamp(CROP_WIDTHS.0, CROP_WIDTHS.1), CROP_HEIGHT)
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn data_uri(image: &DynamicImage, format: ImageFormat, mime: &str) -> String {
    let mut bytes = Vec::new();
    // Encoding an in-memory image to PNG or JPEG only fails on unsupported colour types,
    // which callers never pass; an empty image is the honest fallback.
    let _ = image.write_to(&mut Cursor::new(&mut bytes), format);
    format!("data:{mime};base64,{}", base64(&bytes))
}

fn piece_glyph(role: Role, color: Color) -> char {
    match (color, role) {
        (Color::White, Role::King) => '♔',
        (Color::White, Role::Queen) => '♕',
        (Color::White, Role::Rook) => '♖',
        (Color::White, Role::Bishop) => '♗',
        (Color::White, Role::Knight) => '♘',
        (Color::White, Role::Pawn) => '♙',
        (Color::Black, Role::King) => '♚',
        (Color::Black, Role::Queen) => '♛',
        (Color::Black, Role::Rook) => '♜',
        (Color::Black, Role::Bishop) => '♝',
        (Color::Black, Role::Knight) => '♞',
        (Color::Black, Role::Pawn) => '♟',
    }
}

/// The board as SVG (White at the bottom), with the last move's squares marked.
fn board_svg(position: &Chess, last: Option<(Square, Square)>) -> String {
    let mut svg = String::from(
        r##"<svg class="board" viewBox="0 0 8 8" role="img"><rect width="8" height="8" fill="url(#squares)"/>"##,
    );
    let at = |sq: Square| (u32::from(sq.file()), 7 - u32::from(sq.rank()));
    if let Some((from, to)) = last {
        for sq in [from, to] {
            let (x, y) = at(sq);
            let _ = write!(
                svg,
                r#"<rect x="{x}" y="{y}" width="1" height="1" class="last"/>"#
            );
        }
    }
    for (sq, piece) in position.board().clone() {
        let (x, y) = at(sq);
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}">{}</text>"#,
            x as f32 + 0.5,
            y as f32 + 0.82,
            piece_glyph(piece.role, piece.color)
        );
    }
    svg.push_str("</svg>");
    svg
}

fn kind_words(kind: StepKind) -> &'static str {
    match kind {
        StepKind::Written => "",
        StepKind::Skipped => "not written",
        StepKind::Swapped => "swapped",
        StepKind::AfterJunkCell => "after a junk cell",
    }
}

/// The review page's style sheet.
const REVIEW_CSS: &str = r#"body { font: 15px/1.4 system-ui, sans-serif; margin: 0; color: #1d2430; background: #f4f5f7; }
header { padding: 12px 20px; background: #1d2430; color: #fff; }
header h1 { margin: 0; font-size: 20px; }
header p { margin: 4px 0 0; opacity: .85; }
main { display: grid; grid-template-columns: minmax(300px, 42%) 1fr; gap: 16px; padding: 16px; }
#pages { position: sticky; top: 8px; align-self: start; max-height: calc(100vh - 16px); overflow: auto; }
.page { margin: 0 0 12px; background: #fff; box-shadow: 0 1px 3px #0003; }
.page figcaption { font-size: 12px; padding: 4px 8px; color: #555; }
.page svg { width: 100%; display: block; }
.cell { fill: transparent; stroke: #2b7de9; stroke-width: 1.5; stroke-opacity: .35; cursor: pointer; }
.cell.flagged { stroke: #d9480f; stroke-opacity: .8; }
.cell.selected { fill: #ffd43b55; stroke: #e67700; stroke-width: 3; stroke-opacity: 1; }
section.summary { background: #fff4e6; border: 1px solid #ffc078; padding: 8px 16px; margin-bottom: 12px; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { padding: 4px 8px; border-bottom: 1px solid #e3e5e8; vertical-align: middle; text-align: left; }
tr { cursor: pointer; }
tr.flagged { background: #fff4e6; }
tr.selected { outline: 3px solid #e67700; outline-offset: -3px; }
.crop { height: 45px; width: auto; max-width: 450px; image-rendering: auto; border: 1px solid #ccc; }
.san { font-weight: 600; font-size: 17px; }
.why { font-weight: 400; font-size: 12px; color: #d9480f; }
.bar { width: 60px; height: 6px; background: #e3e5e8; display: inline-block; margin-right: 6px; vertical-align: middle; }
.bar span { display: block; height: 100%; background: #2f9e44; }
tr.flagged .bar span { background: #d9480f; }
.alts { font-size: 13px; color: #555; }
.board { width: 120px; height: 120px; display: block; }
.board text { font-size: .85px; text-anchor: middle; font-family: "DejaVu Sans", "Segoe UI Symbol", sans-serif; }
.board .last { fill: #ffd43b99; }
.nocell { color: #888; font-size: 12px; }
.whose { color: #888; font-size: 11px; text-transform: uppercase; }
.note { font-weight: 600; color: #c92a2a; }
"#;

/// The review page's script: a click on a row or a cell selects the move in both, the arrow
/// keys step through the moves, and `#move-N` in the address opens on move N.
const REVIEW_SCRIPT: &str = r#"function select(i, scrollRow) {
  document.querySelectorAll('.selected').forEach(e => e.classList.remove('selected'));
  const row = document.getElementById('move-' + i);
  if (row) { row.classList.add('selected'); if (scrollRow) row.scrollIntoView({block: 'center'}); }
  document.querySelectorAll('polygon[data-move="' + i + '"]').forEach((cell, n) => {
    cell.classList.add('selected');
    if (n === 0) cell.scrollIntoView({block: 'nearest'});
  });
}
document.addEventListener('click', e => {
  const target = e.target.closest('[data-move]');
  if (!target) return;
  e.preventDefault();
  select(target.dataset.move, target.tagName !== 'TR');
});
document.addEventListener('keydown', e => {
  const current = document.querySelector('tr.selected');
  if (!current || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp')) return;
  const next = e.key === 'ArrowDown' ? current.nextElementSibling : current.previousElementSibling;
  if (next) { e.preventDefault(); select(next.dataset.move, true); }
});
const linked = /^#move-(\d+)$/.exec(location.hash);
if (linked) select(linked[1], true);
"#;

/// The review page for `game`, whose moves' `cell` index `cells`, found on `pages`; `notes`
/// (what the arbiter must know about the whole game, such as a sheet that could not be read)
/// open the summary.
pub fn review_html(
    game: &Game,
    cells: &[ReviewCell],
    pages: &[ReviewPage],
    tags: &PgnTags,
    notes: &[String],
) -> String {
    let white = tags.white.as_deref().unwrap_or("?");
    let black = tags.black.as_deref().unwrap_or("?");
    let title = format!("{white} – {black}");
    let flagged: Vec<usize> = game
        .moves
        .iter()
        .enumerate()
        .filter(|(_, m)| m.flagged)
        .map(|(i, _)| i)
        .collect();
    let pages_html = pages_html(game, cells, pages);
    let rows = move_rows_html(game, cells, pages);
    let notes: String = notes
        .iter()
        .map(|note| format!(r#"<p class="note">{}</p>"#, escape(note)))
        .collect();
    let summary = summary_html(game, &flagged);

    format!(
        r##"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Review: {title_html}</title>
<style>
{REVIEW_CSS}</style></head><body>
<svg width="0" height="0" style="position:absolute"><defs><pattern id="squares" width="2" height="2" patternUnits="userSpaceOnUse"><rect width="2" height="2" fill="#b58863"/><rect width="1" height="1" fill="#f0d9b5"/><rect x="1" y="1" width="1" height="1" fill="#f0d9b5"/></pattern></defs></svg>
<header><h1>{title_html}</h1><p>{event} · {moves} moves · result {result} · notation {language} · {flag_count} flagged</p></header>
<main><div id="pages">{pages_html}</div>
<div><section class="summary"><h2>To review</h2>{notes}{summary}</section>
<table><thead><tr><th>Move</th><th>Cell</th><th>Read</th><th>Chosen</th><th>Confidence</th><th>Alternatives</th><th>Board after</th></tr></thead>
<tbody>{rows}</tbody></table></div></main>
<script>
{REVIEW_SCRIPT}</script></body></html>
"##,
        title_html = escape(&title),
        event = escape(tags.event.as_deref().unwrap_or("scoresheet")),
        moves = game.moves.len(),
        result = escape(&game.result),
        language = escape(game.language.name),
        flag_count = flagged.len(),
    )
}

/// Every page scaled down to at most [`PAGE_SIDE`] pixels a side, as a `<figure>` of inline
/// SVG with the outline of every move's cell over it (flagged moves' marked), each outline
/// linked to its move by `data-move`.
fn pages_html(game: &Game, cells: &[ReviewCell], pages: &[ReviewPage]) -> String {
    let mut pages_html = String::new();
    for (index, page) in pages.iter().enumerate() {
        let (w, h) = (page.image.width().max(1), page.image.height().max(1));
        let scale = (PAGE_SIDE as f32 / w.max(h) as f32).min(1.0);
        let shown = page.image.resize(
            ((w as f32 * scale) as u32).max(1),
            ((h as f32 * scale) as u32).max(1),
            image::imageops::FilterType::Triangle,
        );
        let (sw, sh) = (shown.width(), shown.height());
        let uri = data_uri(
            &DynamicImage::ImageRgb8(shown.to_rgb8()),
            ImageFormat::Jpeg,
            "image/jpeg",
        );
        let _ = write!(
            pages_html,
            r#"<figure class="page"><figcaption>{}</figcaption><svg viewBox="0 0 {sw} {sh}"><image href="{uri}" width="{sw}" height="{sh}"/>"#,
            escape(page.name)
        );
        for (i, m) in game.moves.iter().enumerate() {
            let Some(own) = m.cell.and_then(|c| cells.get(c)) else {
                continue;
            };
            for (sheet, cell) in std::iter::once(own).chain(own.copy.as_deref()).enumerate() {
                if cell.page != index {
                    continue;
                }
                let id = if sheet == 0 {
                    format!("cell-{i}")
                } else {
                    format!("cell-{i}-copy")
                };
                let points: Vec<String> = cell
                    .quad
                    .iter()
                    .map(|[x, y]| format!("{:.1},{:.1}", x * scale, y * scale))
                    .collect();
                let _ = write!(
                    pages_html,
                    r#"<polygon id="{id}" data-move="{i}" class="cell{}" points="{}"/>"#,
                    if m.flagged { " flagged" } else { "" },
                    points.join(" ")
                );
            }
        }
        pages_html.push_str("</svg></figure>");
    }
    pages_html
}

/// One table row per move: the crops of its cells (the own sheet's, and the other player's
/// below it), what the reader read there, the move chosen and why it is flagged, its
/// confidence, the alternatives and the board after it.
fn move_rows_html(game: &Game, cells: &[ReviewCell], pages: &[ReviewPage]) -> String {
    let greys: Vec<GrayImage> = pages.iter().map(|p| p.image.to_luma8()).collect();
    let mut position = game.start.position.clone();
    let played_moves = game.played_moves();
    let mut rows = String::new();
    for (i, m) in game.moves.iter().enumerate() {
        let played = played_moves.get(i);
        let last = played.map(|mv| (mv.from().unwrap_or(mv.to()), mv.to()));
        if let Some(mv) = played {
            position.play_unchecked(*mv);
        }
        let cell = m.cell.and_then(|c| cells.get(c));
        // The own sheet's cell, and below it the other player's for the same ply.
        let shown: Vec<&ReviewCell> = cell
            .into_iter()
            .flat_map(|c| std::iter::once(c).chain(c.copy.as_deref()))
            .collect();
        let (crop_html, read) = shown_cells_html(m.ply, &shown, &greys, pages);
        let alternatives: Vec<String> = m
            .alternatives
            .iter()
            .map(|a| format!("{} {:.0}%", escape(&a.label()), a.confidence * 100.0))
            .collect();
        let number = match move_number(game, i) {
            (number, false) => format!("{number}."),
            (number, true) => format!("{number}…"),
        };
        let _ = write!(
            rows,
            r#"<tr id="move-{i}" data-move="{i}" class="{}"><td class="ply">{number}</td><td>{crop_html}</td><td class="read">{read}</td><td class="san">{}<div class="why">{}</div></td><td><div class="bar"><span style="width:{:.0}%"></span></div>{:.0}%</td><td class="alts">{}</td><td>{}</td></tr>"#,
            if m.flagged { "flagged" } else { "" },
            escape(&m.san),
            escape(kind_words(m.kind)),
            m.confidence * 100.0,
            m.confidence * 100.0,
            alternatives.join("<br>"),
            board_svg(&position, last),
        );
    }
    rows
}

/// The crops of a move's cells `shown` (the own sheet's, then the copy's) cut from the pages'
/// grey images (`greys`), one under the other, and what the reader read in each with its
/// probability: the "Cell" and "Read" columns of the move's row.
fn shown_cells_html(
    ply: usize,
    shown: &[&ReviewCell],
    greys: &[GrayImage],
    pages: &[ReviewPage],
) -> (String, String) {
    let crops: Vec<String> = shown
        .iter()
        .filter_map(|c| {
            let grey = greys.get(c.page)?;
            let (width, height) = crop_size(&c.quad);
            let crop = cell_crop(grey, c.quad, width, height)?;
            Some(format!(
                r#"<img class="crop" alt="cell of ply {} on {}" src="{}">"#,
                ply,
                escape(pages.get(c.page).map_or("", |p| p.name)),
                data_uri(
                    &DynamicImage::ImageLuma8(crop),
                    ImageFormat::Png,
                    "image/png"
                )
            ))
        })
        .collect();
    let crop_html = if crops.is_empty() {
        r#"<span class="nocell">no cell</span>"#.to_string()
    } else {
        crops.join("<br>")
    };
    // With the other player's copy, each reading says whose sheet it is from.
    let whose = |sheet: usize| match (shown.len(), sheet) {
        (1, _) => "",
        (_, 0) => r#"<small class="whose">sheet</small> "#,
        _ => r#"<small class="whose">copy</small> "#,
    };
    let read = shown
        .iter()
        .enumerate()
        .map(|(sheet, c)| {
            format!(
                r#"{}<code>{}</code> <small>{:.0}%</small>"#,
                whose(sheet),
                escape(if c.read.is_empty() { "∅" } else { &c.read }),
                c.read_confidence * 100.0
            )
        })
        .collect::<Vec<_>>()
        .join("<br>");
    (crop_html, read)
}

/// The list of flagged moves (`flagged`: their indices), each linked to its row with what to
/// look at, or a sentence saying none is.
fn summary_html(game: &Game, flagged: &[usize]) -> String {
    if flagged.is_empty() {
        "<p>No move is flagged: every move was read with confidence.</p>".to_string()
    } else {
        let items: Vec<String> = flagged
            .iter()
            .map(|&i| {
                let m = &game.moves[i];
                let (number, black) = move_number(game, i);
                format!(
                    r##"<li><a href="#move-{i}" data-move="{i}">{}{} {}</a> — {}</li>"##,
                    number,
                    if black { "…" } else { "." },
                    escape(&m.san),
                    escape(&review_note(m))
                )
            })
            .collect();
        format!(
            "<p>{} of {} moves need a look:</p><ol>{}</ol>",
            flagged.len(),
            game.moves.len(),
            items.join("")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crops_keep_the_cells_shape() {
        let rectangle = |w: f32, h: f32| [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]];
        // A 6:1 chess.com cell grown by the margins (1.1 / 1.36) is shown about 4.85:1.
        assert_eq!(crop_size(&rectangle(300.0, 50.0)), (437, CROP_HEIGHT));
        // A long single-column cell keeps its length, up to the widest shown.
        assert_eq!(crop_size(&rectangle(600.0, 50.0)), (874, CROP_HEIGHT));
        assert_eq!(crop_size(&rectangle(2000.0, 50.0)), (900, CROP_HEIGHT));
        // Degenerate cells get the narrowest crop, not a division by zero.
        assert_eq!(crop_size(&rectangle(300.0, 0.0)), (180, CROP_HEIGHT));
        assert_eq!(crop_size(&rectangle(0.0, 0.0)), (180, CROP_HEIGHT));
    }

    #[test]
    fn base64_matches_known_values() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
