//! Labelled cell crops for training the cell reader, made fast: each cell is rendered on its
//! own (paper, ruling lines, a neighbour's ink, the writer's text), cropped the way the page
//! stage crops a detected cell, and degraded as cameras and scanners degrade it.

use image::{GrayImage, RgbImage};
use imageproc::filter::gaussian_blur_f32;
use rayon::prelude::*;

use super::camera::gaussian;
use super::hand::{cross_out, pen_width, scrawl, write_text, Hand, Scripts, TextBox};
use super::ink::InkLayer;
use super::rng::Rng;
use super::sheet::{pick_game, plan_entries, Entry};
use super::transcript::Writer;
use crate::games::PgnGame;
use crate::notation::Language;
use crate::page::crop::{cell_crop, reading_window};

/// Cells in a row come from one writer, as on a sheet.
const CELLS_PER_WRITER: usize = 40;

#[derive(Debug, Clone, Copy)]
pub struct CellOptions {
    pub width: u32,
    pub height: u32,
    /// Every writer writes English descriptive notation (`P-K4`, `Kt-KB3`, `PxP`).
    pub descriptive: bool,
}

/// What a crop shows.
#[derive(Debug, Clone, PartialEq)]
pub struct CellLabel {
    /// The text to read ("" for an empty cell or a scrawl).
    pub text: String,
    pub language: &'static str,
    /// `move`, `blank`, `scrawl` or `crossed_out`.
    pub kind: &'static str,
}

/// Crops in one array: `pixels[i * width * height ..]` is crop `i`, grey, row-major.
pub struct CellBatch {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
    pub labels: Vec<CellLabel>,
}

impl CellBatch {
    /// The crops as a NumPy `.npy` file of shape (N, height, width), dtype uint8.
    pub fn to_npy(&self) -> Vec<u8> {
        let mut header = format!(
            "{{'descr': '|u1', 'fortran_order': False, 'shape': ({}, {}, {}), }}",
            self.labels.len(),
            self.height,
            self.width
        );
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&self.pixels);
        out
    }
}

fn uniform(rng: &mut Rng, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * rng.unit() as f32
}

/// One writer's stretch of cells: their hand, language and what they wrote.
struct WriterCells {
    hand: Hand,
    language: &'static Language,
    entries: Vec<Entry>,
    first_entry: usize,
}

fn writer_cells(
    scripts: &Scripts,
    games: &[PgnGame],
    langs: &[&'static Language],
    writer_index: usize,
    seed: u64,
    descriptive: bool,
) -> WriterCells {
    let mut rng = Rng::new(seed ^ (writer_index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
    let language = langs[writer_index % langs.len()];
    let hand = Hand::random(scripts, &mut rng);
    let writer = Writer::drawn(descriptive, &mut rng);
    let game = pick_game(games, &mut rng);
    let entries = game
        .map(|g| plan_entries(&g, language, &writer, 240, &mut rng).0)
        .unwrap_or_default();
    let first_entry = rng.below(entries.len().saturating_sub(CELLS_PER_WRITER).max(1));
    WriterCells {
        hand,
        language,
        entries,
        first_entry,
    }
}

/// Renders cells `first..first + count` (the same index and seed give the same crop).
pub fn render_cells(
    scripts: &Scripts,
    games: &[PgnGame],
    langs: &[&'static Language],
    first: usize,
    count: usize,
    seed: u64,
    options: &CellOptions,
) -> CellBatch {
    let end = first + count;
    let writers = first / CELLS_PER_WRITER..end.div_ceil(CELLS_PER_WRITER);
    let crops: Vec<(Vec<u8>, CellLabel)> = writers
        .into_par_iter()
        .flat_map_iter(|writer_index| {
            let writer = writer_cells(
                scripts,
                games,
                langs,
                writer_index,
                seed,
                options.descriptive,
            );
            let cells = (writer_index * CELLS_PER_WRITER).max(first)
                ..((writer_index + 1) * CELLS_PER_WRITER).min(end);
            cells
                .map(|index| {
                    let mut rng = Rng::new(
                        seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xC311,
                    );
                    let entry = writer
                        .entries
                        .get(writer.first_entry + index % CELLS_PER_WRITER)
                        .cloned()
                        .unwrap_or_default();
                    render_cell(scripts, &writer, entry, &mut rng, options)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut pixels = Vec::with_capacity(count * (options.width * options.height) as usize);
    let mut labels = Vec::with_capacity(count);
    for (crop, label) in crops {
        pixels.extend_from_slice(&crop);
        labels.push(label);
    }
    CellBatch {
        width: options.width,
        height: options.height,
        pixels,
        labels,
    }
}

/// One cell of `writer`'s: `entry` (or, 4% of the time, nothing) written on a ruled canvas
/// in the writer's hand, seen by a camera or scanner, cut through the reading window as the
/// page stage cuts a real one, and degraded; the crop's pixels (row by row, `options`' size)
/// and its label.
fn render_cell(
    scripts: &Scripts,
    writer: &WriterCells,
    mut entry: Entry,
    rng: &mut Rng,
    options: &CellOptions,
) -> (Vec<u8>, CellLabel) {
    let blank = rng.chance(0.04);
    if blank {
        entry = Entry::default();
    }
    let (mut canvas, frame) = ruled_canvas(rng);
    let mut ink = InkLayer::new(0, 0, frame.canvas_w as usize, frame.canvas_h as usize);
    let kind = write_entry(&mut ink, scripts, writer, &entry, blank, &frame, rng);
    ink.lay_on(&mut canvas, writer.hand.ink, writer.hand.opacity);
    let grey = camera_grey(&canvas, rng);
    let crop = reading_crop(&grey, &frame, options, rng);
    let pixels = degraded(&crop, options, rng);
    let text = if kind == "move" || kind == "crossed_out" {
        entry.text
    } else {
        String::new()
    };
    (
        pixels,
        CellLabel {
            text,
            language: writer.language.code,
            kind,
        },
    )
}

/// Where a cell lies on its canvas: the cell's box, the canvas's size, the paper's grey.
struct CellFrame {
    area: TextBox,
    canvas_w: u32,
    canvas_h: u32,
    paper: f32,
}

/// A canvas of paper ruled as a form is around a cell 16 to 90 pixels high (a whole form
/// scanned at low resolution gives rows under 20 pixels), 3.5 to 9.5 times as wide (real
/// forms run from about 4:1 to 9:1; the widest are read through `reading_window`, as on a
/// real page), sometimes with the shaded move-number column on its left.
fn ruled_canvas(rng: &mut Rng) -> (RgbImage, CellFrame) {
    let cell_h = uniform(rng, 16.0, 90.0);
    let cell_w = cell_h * uniform(rng, 3.5, 9.5);
    let (pad_x, pad_y) = (cell_w * 0.35, cell_h * 0.9);
    let (cw, ch) = (
        (cell_w + 2.0 * pad_x).ceil() as u32,
        (cell_h + 2.0 * pad_y).ceil() as u32,
    );
    let paper = 225.0 + rng.unit() as f32 * 30.0;
    let mut canvas = RgbImage::from_pixel(cw, ch, image::Rgb([paper as u8; 3]));
    let line_ink = (30.0 + rng.unit() as f32 * 90.0) as u8;
    let line_w = uniform(rng, 0.6, 2.5);
    let (x0, y0) = (pad_x, pad_y);
    // Ruling lines around the cell, reaching across the canvas as on the form.
    let mut lines = InkLayer::new(0, 0, cw as usize, ch as usize);
    for y in [y0 - cell_h, y0, y0 + cell_h, y0 + 2.0 * cell_h] {
        lines.draw_stroke(&[(0.0, y), (cw as f32, y)], line_w);
    }
    for x in [x0 - cell_w, x0, x0 + cell_w] {
        lines.draw_stroke(&[(x, 0.0), (x, ch as f32)], line_w);
    }
    lines.lay_on(&mut canvas, [line_ink; 3], 1.0);
    if rng.chance(0.3) {
        // The shaded move-number column or a neighbour's printed number on the left.
        for y in 0..ch {
            for x in 0..(x0 - line_w).max(0.0) as u32 {
                let p = canvas.get_pixel_mut(x, y);
                p.0 = p.0.map(|c| (c as f32 * 0.85) as u8);
            }
        }
    }
    let area = TextBox {
        x: x0,
        y: y0,
        width: cell_w,
        height: cell_h,
    };
    let frame = CellFrame {
        area,
        canvas_w: cw,
        canvas_h: ch,
        paper,
    };
    (canvas, frame)
}

/// Writes `entry` in the cell of `frame` on `ink` (nothing where `blank`), a neighbour's
/// writing reaching into view a quarter of the time; returns the cell's kind: `blank`,
/// `scrawl`, `crossed_out` (a crossed-out text, then the entry) or `move`.
fn write_entry(
    ink: &mut InkLayer,
    scripts: &Scripts,
    writer: &WriterCells,
    entry: &Entry,
    blank: bool,
    frame: &CellFrame,
    rng: &mut Rng,
) -> &'static str {
    let hand = &writer.hand;
    let area = frame.area;
    let (x0, cell_w, cell_h) = (area.x, area.width, area.height);
    if rng.chance(0.25) {
        // A neighbour's writing reaching into view from above or below.
        let other = writer
            .entries
            .get(rng.below(writer.entries.len().max(1)))
            .map(|e| e.text.clone())
            .unwrap_or_default();
        let dy = if rng.chance(0.5) { -cell_h } else { cell_h };
        let neighbour = TextBox {
            y: area.y + dy,
            ..area
        };
        write_text(ink, scripts, hand, &other, neighbour, false, rng);
    }
    let cap = cell_h * hand.size;
    if blank || (entry.text.is_empty() && !entry.scrawl) {
        "blank"
    } else if entry.scrawl {
        scrawl(ink, area, pen_width(hand, cap), rng);
        "scrawl"
    } else if let Some(crossed) = &entry.crossed {
        let first = TextBox {
            width: cell_w * 0.5,
            ..area
        };
        if let Some(drawn) = write_text(ink, scripts, hand, crossed, first, false, rng) {
            cross_out(ink, drawn, pen_width(hand, cap), rng);
        }
        let second = TextBox {
            x: x0 + cell_w * 0.5,
            width: cell_w * 0.5,
            ..area
        };
        write_text(ink, scripts, hand, &entry.text, second, false, rng);
        "crossed_out"
    } else {
        write_text(ink, scripts, hand, &entry.text, area, entry.spill, rng);
        "move"
    }
}

/// The canvas in grey as a camera or scanner sees it, its channels mixed at random.
fn camera_grey(canvas: &RgbImage, rng: &mut Rng) -> GrayImage {
    let mix = [
        uniform(rng, 0.2, 0.4),
        uniform(rng, 0.4, 0.65),
        uniform(rng, 0.05, 0.2),
    ];
    let total: f32 = mix.iter().sum();
    GrayImage::from_fn(canvas.width(), canvas.height(), |x, y| {
        let p = canvas.get_pixel(x, y).0;
        let v = (p[0] as f32 * mix[0] + p[1] as f32 * mix[1] + p[2] as f32 * mix[2]) / total;
        image::Luma([v as u8])
    })
}

/// The reader's crop of the cell of `frame`, cut through its reading window from corners
/// jittered as the page stage's box is never exact, and sometimes blurred.
fn reading_crop(
    grey: &GrayImage,
    frame: &CellFrame,
    options: &CellOptions,
    rng: &mut Rng,
) -> GrayImage {
    let TextBox {
        x: x0,
        y: y0,
        width: cell_w,
        height: cell_h,
    } = frame.area;
    let (jx, jy) = (cell_w * 0.04, cell_h * 0.1);
    let mut corner = |x: f32, y: f32| [x + uniform(rng, -jx, jx), y + uniform(rng, -jy, jy)];
    let quad = [
        corner(x0, y0),
        corner(x0 + cell_w, y0),
        corner(x0 + cell_w, y0 + cell_h),
        corner(x0, y0 + cell_h),
    ];
    let quad = reading_window(grey, quad);
    let crop = cell_crop(grey, quad, options.width, options.height).unwrap_or_else(|| {
        GrayImage::from_pixel(
            options.width,
            options.height,
            image::Luma([frame.paper as u8]),
        )
    });
    let sigma = uniform(rng, 0.0, 1.1);
    if sigma > 0.3 {
        gaussian_blur_f32(&crop, sigma)
    } else {
        crop
    }
}

/// The crop's pixels with its contrast, brightness and light changed, noise added and,
/// a quarter of the time, a JPEG's losses.
fn degraded(crop: &GrayImage, options: &CellOptions, rng: &mut Rng) -> Vec<u8> {
    let contrast = uniform(rng, 0.55, 1.1);
    let brightness = uniform(rng, -40.0, 20.0);
    let gradient = uniform(rng, -0.25, 0.25);
    let noise = uniform(rng, 0.0, 9.0);
    let (w, h) = (options.width as f32, options.height as f32);
    let pixels: Vec<u8> = crop
        .enumerate_pixels()
        .map(|(x, y, p)| {
            let light =
                1.0 + gradient * (x as f32 / w - 0.5) + gradient * 0.5 * (y as f32 / h - 0.5);
            let v = (p.0[0] as f32 - 128.0) * contrast + 128.0 + brightness;
            (v * light + gaussian(rng) * noise)
                .round()
                .clamp(0.0, 255.0) as u8
        })
        .collect();
    if rng.chance(0.25) {
        return jpeg_round_trip(&pixels, options, 35 + rng.below(55) as u8).unwrap_or(pixels);
    }
    pixels
}

fn jpeg_round_trip(pixels: &[u8], options: &CellOptions, quality: u8) -> Option<Vec<u8>> {
    let image = GrayImage::from_raw(options.width, options.height, pixels.to_vec())?;
    let mut bytes = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality)
        .encode_image(&image)
        .ok()?;
    let decoded = image::load_from_memory(&bytes).ok()?.to_luma8();
    Some(decoded.into_raw())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_header_is_aligned_and_shaped() {
        let batch = CellBatch {
            width: 4,
            height: 2,
            pixels: vec![1; 16],
            labels: vec![
                CellLabel {
                    text: "e4".into(),
                    language: "en",
                    kind: "move"
                };
                2
            ],
        };
        let npy = batch.to_npy();
        let header_len = u16::from_le_bytes([npy[8], npy[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        assert!(String::from_utf8_lossy(&npy[10..10 + header_len]).contains("(2, 2, 4)"));
        assert_eq!(npy.len(), 10 + header_len + 16);
    }
}
