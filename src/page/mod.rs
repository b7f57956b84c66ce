//! The page stage: from an image of a scoresheet to its move cells, each with its ply.
//!
//! [`Sheet`] (the decoded, upright image) → [`find_cells`] → [`Cells`]. No form is assumed:
//! the sheet is found in the photo and flattened ([`paper`]), its ink and ruling lines are
//! found ([`lines`]), and the table of moves is understood from the lines alone ([`table`]):
//! which columns hold numbers, White's and Black's moves, how many rows each block has, and in
//! which order the blocks are read. A layout file can confirm the row counts but is never
//! needed for the common forms.
//!
//! Coordinates in [`Cells`] are pixels of the input image (after EXIF orientation), `x` to the
//! right and `y` down; quadrilaterals list top-left, top-right, bottom-right, bottom-left.

pub mod crop;
pub mod geometry;
pub mod lines;
mod load;
pub mod overlay;
pub mod paper;
mod pdf;
pub mod table;

use std::borrow::Cow;
use std::fmt;

use serde_json::{json, Value};

pub use geometry::{quad_iou, Point, Quad};
pub use load::{
    PageFile, Sheet, MAX_FILE_BYTES, MAX_PAGES_PER_FILE, MAX_PIXELS, MAX_SIDE, TORN_JPEG,
};

use crate::synth::layout::Layout;
use geometry::bounding_box;
use image::GrayImage;
use imageproc::geometric_transformations::Projection;
use lines::{fit_rulings, fit_vertical_rulings, horizontal_runs, ink_mask, line_ink_mask};

/// The width, in pixels, the page is flattened to before its lines are looked for: about
/// 5.7 px per mm on A4, enough for lines a quarter of a millimetre thick.
pub const FLAT_WIDTH: u32 = 1200;

/// Something is wrong with an input image: which file, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageError {
    pub file: String,
    pub cause: String,
}

impl PageError {
    pub fn new(file: &str, cause: impl Into<String>) -> PageError {
        PageError {
            file: file.to_string(),
            cause: cause.into(),
        }
    }

    fn io(file: &str, error: std::io::Error) -> PageError {
        PageError::new(file, error.to_string())
    }
}

impl fmt::Display for PageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.cause)
    }
}

impl std::error::Error for PageError {}

/// Hints for finding the cells.
#[derive(Debug, Clone, Default)]
pub struct PageOptions {
    /// The form, when known: its blocks' row counts settle doubtful title rows.
    pub layout: Option<Layout>,
}

/// Which player's move a cell holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    White,
    Black,
}

/// One move cell of the sheet.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// 1 = White's first move cell, 2 = Black's first, ...
    pub ply: u32,
    /// The cell's corners on the ruling lines, in input image pixels.
    pub quad: Quad,
    /// `[x, y, w, h]` around `quad`.
    pub bbox: [f32; 4],
    /// Whether anything is written in the cell.
    pub ink: bool,
    /// Share of the cell's inner part covered by ink (0..1), the evidence behind `ink`.
    pub ink_share: f32,
    /// How far the writing runs over the cell's right border, as a share of the cell's
    /// width (0 where it stays inside; see [`table::writing_overrun`]).
    pub overrun: f32,
}

impl Cell {
    pub fn move_number(&self) -> u32 {
        self.ply.div_ceil(2)
    }

    /// The cell's box widened to the right as far as its writing runs over the border
    /// ([`Cell::overrun`]), in input image pixels; `None` where the writing stays inside.
    pub fn overrun_quad(&self) -> Option<Quad> {
        (self.overrun > 0.0).then(|| {
            let [top_left, top_right, bottom_right, bottom_left] = self.quad;
            let onwards = |from: [f32; 2], to: [f32; 2]| {
                [0, 1].map(|axis| to[axis] + (to[axis] - from[axis]) * self.overrun)
            };
            [
                top_left,
                onwards(top_left, top_right),
                onwards(bottom_left, bottom_right),
                bottom_left,
            ]
        })
    }

    /// The cell's height in input image pixels: the mean of its left and right edges.
    pub fn height(&self) -> f32 {
        let [top_left, top_right, bottom_right, bottom_left] = self.quad;
        let length = |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).hypot(a[1] - b[1]);
        (length(top_left, bottom_left) + length(top_right, bottom_right)) / 2.0
    }

    pub fn side(&self) -> Side {
        if self.ply % 2 == 1 {
            Side::White
        } else {
            Side::Black
        }
    }
}

/// A block of moves as found: where it is and which moves it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub first_move: u32,
    pub rows: u32,
    pub has_numbers: bool,
    /// The block's move rows (number column included) in input image pixels.
    pub quad: Quad,
}

/// Every move cell found on a sheet, in ply order.
#[derive(Debug, Clone, PartialEq)]
pub struct Cells {
    /// The file the cells were found in.
    pub source: String,
    pub image_width: u32,
    pub image_height: u32,
    /// The sheet's corners in the image (the image's corners for a scan).
    pub page_quad: Quad,
    pub blocks: Vec<Block>,
    pub cells: Vec<Cell>,
    /// Degrees clockwise (0 to 360) the image was turned to set the sheet upright: a page
    /// photographed sideways, upside down (without an EXIF orientation) or far askew. The
    /// quads are in the image's pixels as given, their corners in the upright sheet's order
    /// (top left, top right, bottom right, bottom left), so a crop through them is upright.
    pub turned_degrees: f32,
}

/// Share of a cell's inner part that must be ink for the cell to count as written.
const INK_SHARE: f32 = 0.012;
/// The inner part of a cell: this share of its width and height is left out on each side,
/// where the ruling lines and a neighbour's strokes lie.
const INK_MARGIN: (f32, f32) = (0.06, 0.16);

/// The sheet flattened to `width` pixels across, turned so that its rulings run level: the
/// sheet's outline leaves some tilt (a scan is not flattened at all, and a photo's outline
/// may be lost in shadow), which is measured on the ink and taken out.
fn upright_view(grey: &image::GrayImage, quad: &Quad, width: u32) -> Option<paper::Flat> {
    // Both looks at the sheet sample one reduced copy of the image.
    let source = paper::Reduced::new(grey, geometry::mean_sides(quad).0, width);
    let flat = paper::flatten_from(&source, quad, width)?;
    let (row_tilt, column_tilt) = lines::ink_tilts(&ink_mask(&flat.image, width / 100), 0.2);
    if row_tilt.abs() > 0.004 || column_tilt.abs() > 0.004 {
        let quad = paper::untilted_quad(&flat, row_tilt, column_tilt)?;
        return paper::flatten_from(&source, &quad, width);
    }
    Some(flat)
}

/// How the vertical rulings found in a view are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verticals {
    AsFound,
    /// With the pieces of a broken ruling joined ([`table::join_broken_verticals`]).
    Joined,
}

/// The blocks of moves in a flattened view, and its writing (faint pencil included).
fn detect(
    flat: &paper::Flat,
    expected_rows: Option<&[u32]>,
    taken: Verticals,
) -> Result<(Vec<table::TableBlock>, lines::Mask), table::NoTable> {
    let fw = flat.image.width() as usize;
    // Sizes in proportion to the view: at 1200 px across, a 12 px neighbourhood, 9 px
    // probes along a ruling and runs of 30 px.
    let radius = (fw / 100) as u32;
    let probe = (fw / 300) as u32;
    let min_run = fw / 40;
    let ((ink, printed, writing, horizontal_pixels), vertical_pixels) = rayon::join(
        || {
            let [ink, printed, writing, horizontal] = lines::dark_masks(
                &flat.image,
                radius,
                [
                    lines::INK,
                    lines::PRINTED,
                    lines::WRITING,
                    lines::ruling((probe, 0)),
                ],
            );
            (
                ink,
                printed,
                writing,
                horizontal_runs(&horizontal, min_run, 3),
            )
        },
        || {
            let transposed = image::imageops::rotate90(&flat.image);
            let vertical_ink = mirror_rows(line_ink_mask(&transposed, radius, (probe, 0)));
            horizontal_runs(&vertical_ink, min_run, 3)
        },
    );
    let min_line = fw as f32 * 0.06;
    let max_gap = fw as f32 * 0.02;
    let horizontals = fit_rulings(&horizontal_pixels, min_line, max_gap);
    let mut verticals = fit_vertical_rulings(&vertical_pixels, min_line, max_gap);
    if taken == Verticals::Joined {
        verticals = table::join_broken_verticals(&verticals, ink.height as f32);
    }
    let blocks = table::find_blocks(&horizontals, &verticals, &ink, &printed, expected_rows)?;
    Ok((blocks, writing))
}

/// `rotate90` turns the view clockwise, so its rows run bottom to top along the original
/// columns: mirrored left to right, they are the transpose.
fn mirror_rows(mut mask: lines::Mask) -> lines::Mask {
    for row in mask.bits.chunks_mut(mask.width) {
        row.reverse();
    }
    mask
}

/// The source quadrilateral of a view in which the blocks' outline is an upright rectangle.
fn table_view(
    flat: &paper::Flat,
    blocks: &[table::TableBlock],
    image_size: (u32, u32),
) -> Option<Quad> {
    let mut corners: Vec<Point> = Vec::new();
    for block in blocks {
        let (left, right) = (block.outer_left(), block.move_columns[2]);
        let top = block.cell(0, &left, &right);
        let bottom = block.cell(block.row_count() - 1, &left, &right);
        corners.extend([top[0], top[1], bottom[2], bottom[3]]);
    }
    let outline = geometry::diagonal_extremes(&corners)?;
    let (across, down) = geometry::mean_sides(&outline);
    if across < 50.0 || down < 50.0 {
        return None;
    }
    // The sheet is flat, so the map that makes the blocks found a rectangle straightens the
    // whole sheet: the new view holds all of the old one and of the image (the sheet's
    // outline may have been found too small), blocks the first view missed included.
    let to_upright = imageproc::geometric_transformations::Projection::from_control_points(
        outline.map(|[x, y]| (x, y)),
        [(0.0, 0.0), (across, 0.0), (across, down), (0.0, down)],
    )?;
    let (w, h) = (flat.image.width() as f32, flat.image.height() as f32);
    let (iw, ih) = (image_size.0 as f32, image_size.1 as f32);
    let to_flat_from_image = flat.to_source.invert();
    let image_corners: Vec<(f32, f32)> = [(0.0, 0.0), (iw, 0.0), (iw, ih), (0.0, ih)]
        .into_iter()
        .map(|c| to_flat_from_image * c)
        // Past the horizon of the sheet's plane a corner has no place in the view.
        .filter(|&(u, v)| u > -w && u < 2.0 * w && v > -h && v < 2.0 * h)
        .collect();
    paper::covering_view(flat, &to_upright, &image_corners)
}

/// The table of moves seen through the sheet outline `paper_quad`: the view it was found in,
/// its blocks, and the view's writing mask.
fn locate_table(
    grey: &image::GrayImage,
    name: &str,
    paper_quad: &Quad,
    expected: Option<&[u32]>,
    taken: Verticals,
) -> Result<(paper::Flat, (Vec<table::TableBlock>, lines::Mask)), PageError> {
    let image_size = grey.dimensions();
    // A quick look at half resolution finds the table; the final look, at full resolution,
    // is taken through the map that makes the table a rectangle (undoing what perspective
    // the sheet's outline left).
    if let Some(quick) = upright_view(grey, paper_quad, FLAT_WIDTH / 2) {
        if let Ok((blocks, _)) = detect(&quick, expected, taken) {
            let fine = table_view(&quick, &blocks, image_size)
                .and_then(|quad| paper::flatten(grey, &quad, FLAT_WIDTH));
            if let Some(fine) = fine {
                if let Ok(result) = detect(&fine, expected, taken) {
                    return Ok((fine, result));
                }
            }
        }
    }
    // Otherwise the long way: the whole sheet at full resolution, then the table's view.
    let degenerate = || PageError::new(name, "the sheet found in the photo is degenerate");
    let view = upright_view(grey, paper_quad, FLAT_WIDTH).ok_or_else(degenerate)?;
    let first = detect(&view, expected, taken).map_err(|e| {
        PageError::new(
            name,
            format!("not a scoresheet, or its grid cannot be seen: {}", e.0),
        )
    })?;
    let second = table_view(&view, &first.0, image_size)
        .and_then(|quad| paper::flatten(grey, &quad, FLAT_WIDTH))
        .and_then(|fine| detect(&fine, expected, taken).ok().map(|r| (fine, r)));
    Ok(second.unwrap_or((view, first)))
}

/// Fewest rows of each block a table found by the last look may have ([`find_cells`]).
const MIN_LAST_LOOK_ROWS: u32 = 10;

/// Finds the move cells of a scoresheet.
///
/// Errors name the sheet and say why no table of moves was found (a photo of something
/// else, a blank page, a sheet too blurred or too small to show its lines).
///
/// A sheet photographed sideways (its rulings running down the image) is found turned a
/// quarter either way, and one askew by more than the table search allows (about 15
/// degrees) is turned by the angle of its straight lines first; which way up it then stands
/// is for the reader to tell ([`find_cells_turned`] with a half turn more; `read` does so).
pub fn find_cells(sheet: &Sheet, options: &PageOptions) -> Result<Cells, PageError> {
    let grey = sheet.grey();
    let first_found = |turns: &[f32]| {
        turns
            .iter()
            .find_map(|&degrees| find_cells_in(sheet, &grey, options, degrees).ok())
    };
    find_cells_in(sheet, &grey, options, 0.0).or_else(|upright| {
        first_found(&[90.0, 270.0])
            .or_else(|| {
                let level = leveling_degrees(&grey)?;
                if level.abs() < MIN_DESKEW_DEGREES {
                    return None;
                }
                first_found(&[level, level + 90.0, level + 270.0])
            })
            .ok_or(upright)
    })
}

/// Pages askew by less than this are searched as they are: the table search follows
/// rulings up to about 15 degrees off level.
const MIN_DESKEW_DEGREES: f32 = 8.0;

/// [`find_cells`] in the image turned `degrees` clockwise about its centre (on a canvas that
/// holds all of it), the cells given back in the pixels of the image as it is
/// ([`Cells::turned_degrees`]).
pub fn find_cells_turned(
    sheet: &Sheet,
    options: &PageOptions,
    degrees: f32,
) -> Result<Cells, PageError> {
    find_cells_in(sheet, &sheet.grey(), options, degrees)
}

/// [`find_cells_turned`] with the sheet's grey image already made.
fn find_cells_in(
    sheet: &Sheet,
    grey: &GrayImage,
    options: &PageOptions,
    degrees: f32,
) -> Result<Cells, PageError> {
    let degrees = degrees.rem_euclid(360.0);
    let (to_turned, turned) = turned_image(grey, degrees);
    // A last look where no table was found: heavy handwriting may have broken a column's
    // divider into pieces, which are joined. Only then, so that every sheet found without
    // it keeps its grid as found (a joined ruling is straight where its pieces bend).
    // Joined pieces can also make a small table out of noise: that look must find blocks of
    // at least `MIN_LAST_LOOK_ROWS` rows, as every form's move table has.
    find_cells_taking(&turned, &sheet.name, options, Verticals::AsFound)
        .or_else(|error| {
            find_cells_taking(&turned, &sheet.name, options, Verticals::Joined)
                .ok()
                .filter(|cells| cells.blocks.iter().all(|b| b.rows >= MIN_LAST_LOOK_ROWS))
                .ok_or(error)
        })
        .map(|cells| cells.turned_back(grey.dimensions(), to_turned, degrees))
        .map_err(|error| sheet.explain(error))
}

/// `grey` turned `degrees` (0 to 360) clockwise about its centre onto a canvas that holds it
/// all (white where it does not reach), and the map from its pixels to the canvas's. Quarter
/// turns are exact pixel moves.
fn turned_image(grey: &GrayImage, degrees: f32) -> (Projection, Cow<'_, GrayImage>) {
    use image::imageops::{rotate180, rotate270, rotate90};
    let (w, h) = (grey.width() as f32, grey.height() as f32);
    let (sin, cos) = degrees.to_radians().sin_cos();
    let (turned_w, turned_h) = (
        (w * cos.abs() + h * sin.abs()).round(),
        (w * sin.abs() + h * cos.abs()).round(),
    );
    // About the centre: `rotate90` takes (x, y) to (H - y, x), and so does this map.
    let to_turned = Projection::translate(turned_w / 2.0, turned_h / 2.0)
        * Projection::rotate(degrees.to_radians())
        * Projection::translate(-w / 2.0, -h / 2.0);
    let quarter = (degrees / 90.0).round();
    let turned = if (degrees - 90.0 * quarter).abs() < 1e-3 {
        match quarter as u32 % 4 {
            0 => Cow::Borrowed(grey),
            1 => Cow::Owned(rotate90(grey)),
            2 => Cow::Owned(rotate180(grey)),
            _ => Cow::Owned(rotate270(grey)),
        }
    } else {
        let mut canvas = GrayImage::new(turned_w as u32, turned_h as u32);
        imageproc::geometric_transformations::warp_into(
            grey,
            to_turned,
            imageproc::geometric_transformations::Interpolation::Bilinear,
            imageproc::geometric_transformations::Border::Constant(image::Luma([255])),
            &mut canvas,
        );
        Cow::Owned(canvas)
    };
    (to_turned, turned)
}

/// Degrees to turn `grey` clockwise so that its straight lines (a form's rulings, the
/// sheet's edges) run level or plumb, in -45 to 45: the angle at which the image's strong
/// edges pile up, modulo a quarter turn. `None` for an image without strong edges.
fn leveling_degrees(grey: &GrayImage) -> Option<f32> {
    const BINS_PER_DEGREE: usize = 2;
    let scale = 600.0 / grey.width().max(grey.height()) as f32;
    let small = if scale < 1.0 {
        Cow::Owned(image::imageops::resize(
            grey,
            ((grey.width() as f32 * scale) as u32).max(1),
            ((grey.height() as f32 * scale) as u32).max(1),
            image::imageops::FilterType::Triangle,
        ))
    } else {
        Cow::Borrowed(grey)
    };
    // Scharr's kernels measure an edge's direction more evenly at every angle than Sobel's.
    let (gx, gy) = (
        imageproc::gradients::horizontal_scharr(&small),
        imageproc::gradients::vertical_scharr(&small),
    );
    let mut votes = vec![0f32; 90 * BINS_PER_DEGREE];
    for (x, y) in gx.pixels().zip(gy.pixels()) {
        let (x, y) = (x.0[0] as f32, y.0[0] as f32);
        let strength = x.hypot(y);
        // Scharr on 8-bit pixels: 16 x 255 at most for a clean step; faint texture is left
        // out.
        if strength < 800.0 {
            continue;
        }
        let angle = y.atan2(x).to_degrees().rem_euclid(90.0);
        let bin = (angle * BINS_PER_DEGREE as f32) as usize % votes.len();
        votes[bin] += strength;
    }
    let smoothed = |bin: usize| -> f32 {
        (0..5)
            .map(|k| votes[(bin + votes.len() + k - 2) % votes.len()])
            .sum()
    };
    let peak = (0..votes.len()).max_by(|&a, &b| smoothed(a).total_cmp(&smoothed(b)))?;
    if smoothed(peak) <= 0.0 {
        return None;
    }
    let skew = (peak as f32 + 0.5) / BINS_PER_DEGREE as f32;
    // Edges turned `skew` clockwise (modulo a quarter) are levelled by turning back.
    Some(if skew > 45.0 { 90.0 - skew } else { -skew })
}

/// [`find_cells`] in `grey` with the vertical rulings `taken` as said.
fn find_cells_taking(
    grey: &GrayImage,
    name: &str,
    options: &PageOptions,
    taken: Verticals,
) -> Result<Cells, PageError> {
    let (width, height) = grey.dimensions();
    if width < 200 || height < 200 {
        return Err(PageError::new(
            name,
            format!("a {width} x {height} image is too small to show a scoresheet's lines"),
        ));
    }
    let found_paper = paper::find_paper(grey);
    let expected: Option<Vec<u32>> = options
        .layout
        .as_ref()
        .map(|l| l.blocks.iter().map(|b| b.rows).collect());
    let expected = expected.as_deref();
    let through = |paper: paper::Paper| {
        locate_table(grey, name, &paper.quad, expected, taken)
            .map(|found| cells_of(name, (width, height), paper, found))
    };
    let first = through(found_paper);
    if found_paper.fills_image {
        return first;
    }
    // The outline found may be wrong: a shadow across the sheet cuts it short (no table is
    // found, or one that ends at the cut), a desk as bright as paper widens it. Then the
    // whole image is searched too, and the larger table kept.
    match first {
        Ok(cells) if !cells.table_reaches_page_edge() => Ok(cells),
        Ok(cells) => match through(paper::Paper::whole(width, height)) {
            Ok(whole) if whole.cells.len() > cells.cells.len() => Ok(whole),
            _ => Ok(cells),
        },
        Err(error) => through(paper::Paper::whole(width, height)).map_err(|_| error),
    }
}

/// The cells of the blocks found in view `flat`, in image pixels and ply order.
fn cells_of(
    source: &str,
    (width, height): (u32, u32),
    paper: paper::Paper,
    (flat, (blocks, writing)): (paper::Flat, (Vec<table::TableBlock>, lines::Mask)),
) -> Cells {
    let to_image = |quad: Quad| -> Quad {
        quad.map(|[x, y]| {
            let (u, v) = flat.to_source * (x, y);
            [u, v]
        })
    };
    let mut cells = Vec::new();
    let mut found_blocks = Vec::new();
    for block in &blocks {
        let [white_left, between, black_right] = block.move_columns;
        for row in 0..block.row_count() {
            let move_number = block.first_move + row as u32;
            for (side, left, right) in [
                (Side::White, &white_left, &between),
                (Side::Black, &between, &black_right),
            ] {
                let flat_quad = block.cell(row, left, right);
                let share = table::ink_share(&flat_quad, &writing, INK_MARGIN);
                let overrun =
                    table::writing_overrun(&flat_quad, &writing, INK_MARGIN.1, side == Side::White);
                let quad = to_image(flat_quad);
                cells.push(Cell {
                    ply: 2 * move_number - u32::from(side == Side::White),
                    quad,
                    bbox: bounding_box(&quad),
                    ink: share >= INK_SHARE,
                    ink_share: share,
                    overrun,
                });
            }
        }
        let rows = block.row_count();
        let left = block.outer_left();
        let top_left = block.cell(0, &left, &black_right);
        let bottom = block.cell(rows - 1, &left, &black_right);
        found_blocks.push(Block {
            first_move: block.first_move,
            rows: rows as u32,
            has_numbers: block.number_column.is_some(),
            quad: to_image([top_left[0], top_left[1], bottom[2], bottom[3]]),
        });
    }
    cells.sort_by_key(|c| c.ply);
    Cells {
        source: source.to_string(),
        image_width: width,
        image_height: height,
        page_quad: paper.quad,
        blocks: found_blocks,
        cells,
        turned_degrees: 0.0,
    }
}

/// The grey level of `image` at `(u, v)` (pixel centres at half-pixel positions), bilinear
/// between the four nearest pixels; outside the image, its nearest edge; white for an empty
/// image. Every warped pixel of a page and of a cell crop is sampled here, so it reads the
/// raw rows and leaves out the library calls of `f32::floor` and `f32::round`.
// Always inlined: it runs once per warped pixel, and LLVM kept it a call.
#[inline(always)]
pub(crate) fn bilinear_grey(image: &GrayImage, u: f32, v: f32) -> u8 {
    let (width, height) = (image.width(), image.height());
    let stride = width as usize;
    let pixels = image.as_raw();
    let (u, v) = (u - 0.5, v - 0.5);
    let weighted = |[a, b, c, d]: [f32; 4], fx: f32, fy: f32| {
        let top = a * (1.0 - fx) + b * fx;
        let bottom = c * (1.0 - fx) + d * fx;
        round_grey(top * (1.0 - fy) + bottom * fy)
    };
    // Inside the image, as nearly every point of a warp is: the whole parts are the
    // truncations (the floor of a non-negative value), and all four pixels are there.
    if u >= 0.0 && v >= 0.0 && u < (width as f32 - 1.0) && v < (height as f32 - 1.0) {
        let (x0, y0) = (u as usize, v as usize);
        let i = y0 * stride + x0;
        let j = i + stride;
        let corners = [pixels[i], pixels[i + 1], pixels[j], pixels[j + 1]].map(f32::from);
        return weighted(corners, u - x0 as f32, v - y0 as f32);
    }
    let (width, height) = (i64::from(width), i64::from(height));
    if width == 0 || height == 0 {
        return 255;
    }
    let (x0, y0) = (floor_exact(u), floor_exact(v));
    let (fx, fy) = (u - x0, v - y0);
    let (x0, y0) = (x0 as i64, y0 as i64);
    let pixel = |x: i64, y: i64| {
        pixels[y.clamp(0, height - 1) as usize * stride + x.clamp(0, width - 1) as usize] as f32
    };
    let (x1, y1) = (x0.saturating_add(1), y0.saturating_add(1));
    weighted(
        [pixel(x0, y0), pixel(x1, y0), pixel(x0, y1), pixel(x1, y1)],
        fx,
        fy,
    )
}

/// `grey.round() as u8` for a grey level in 0..=255 (halves away from zero), without the
/// library call `f32::round` makes: the whole part and the exact remainder decide it. Every
/// warped pixel of a page and of a cell crop goes through it.
pub(crate) fn round_grey(grey: f32) -> u8 {
    let whole = grey as u8;
    whole.saturating_add(u8::from(grey - whole as f32 >= 0.5))
}

/// `value.floor()` without the library call it makes on the baseline x86-64 target (no
/// SSE4.1 `roundss`): exact, since a float of magnitude 2^23 or more is whole.
pub(crate) fn floor_exact(value: f32) -> f32 {
    if value.abs() < 8_388_608.0 {
        let whole = value as i32 as f32;
        if whole > value {
            whole - 1.0
        } else {
            whole
        }
    } else {
        value
    }
}

/// `value.round() as i64` (halves away from zero) without the library call `f32::round`
/// makes on the baseline x86-64 target: exact, as [`floor_exact`] is. The tilt search
/// rounds every sampled ink point at every slope it tries.
pub(crate) fn round_to_whole(value: f32) -> i64 {
    if value.abs() < 8_388_608.0 {
        let whole = value as i32;
        let rest = value - whole as f32;
        i64::from(whole) + i64::from(rest >= 0.5) - i64::from(rest <= -0.5)
    } else {
        value as i64
    }
}

fn round_point([x, y]: Point) -> Value {
    json!([(x * 10.0).round() / 10.0, (y * 10.0).round() / 10.0])
}

impl Cells {
    /// The median height of the cells found, in input image pixels; `None` without cells.
    /// The reader reads cells under about [`crate::read::SMALL_CELL_HEIGHT`] pixels high much
    /// worse.
    pub fn median_cell_height(&self) -> Option<f32> {
        let mut heights: Vec<f32> = self.cells.iter().map(Cell::height).collect();
        heights.sort_by(f32::total_cmp);
        heights.get(heights.len() / 2).copied()
    }

    /// Whether a block's corner lies outside the page's outline or within a row's height of
    /// it. A printed table has margins around it, so such a table is cut short by an outline
    /// found wrong (a shadow's edge taken for the sheet's, the table found again past it).
    fn table_reaches_page_edge(&self) -> bool {
        let page = &self.page_quad;
        self.blocks.iter().any(|block| {
            let row_height = geometry::mean_sides(&block.quad).1 / block.rows.max(1) as f32;
            block.quad.iter().any(|&corner| {
                !geometry::convex_quad_contains(page, corner)
                    || (0..4).any(|i| {
                        geometry::distance_to_segment(corner, page[i], page[(i + 1) % 4])
                            < row_height
                    })
            })
        })
    }

    /// Cells found in an image turned `degrees` clockwise by the map `to_turned` from the
    /// pixels of the image as it is (`size`), given back in those pixels; each quad keeps its
    /// corners' order.
    fn turned_back(self, size: (u32, u32), to_turned: Projection, degrees: f32) -> Cells {
        let to_image = to_turned.invert();
        let back = |[x, y]: Point| -> Point {
            let (u, v) = to_image * (x, y);
            [u, v]
        };
        let cells = self
            .cells
            .into_iter()
            .map(|cell| {
                let quad = cell.quad.map(back);
                Cell {
                    quad,
                    bbox: bounding_box(&quad),
                    ..cell
                }
            })
            .collect();
        let blocks = self
            .blocks
            .into_iter()
            .map(|block| Block {
                quad: block.quad.map(back),
                ..block
            })
            .collect();
        Cells {
            image_width: size.0,
            image_height: size.1,
            page_quad: self.page_quad.map(back),
            blocks,
            cells,
            turned_degrees: degrees,
            ..self
        }
    }

    /// The cells JSON (a contract: fields are only ever added):
    /// `{"image":{"file","width","height","turned_upright_degrees"},"page":{"quad"},"blocks":[...],
    /// "cells":[{"ply","move","side","quad","bbox","ink","ink_share","overrun"}]}`.
    pub fn to_json(&self) -> Value {
        let quad = |q: &Quad| Value::Array(q.iter().copied().map(round_point).collect());
        json!({
            "image": {"file": self.source, "width": self.image_width, "height": self.image_height,
                "turned_upright_degrees": (self.turned_degrees * 10.0).round() / 10.0},
            "page": {"quad": quad(&self.page_quad)},
            "blocks": self.blocks.iter().map(|b| json!({
                "first_move": b.first_move,
                "rows": b.rows,
                "numbers": b.has_numbers,
                "quad": quad(&b.quad),
            })).collect::<Vec<_>>(),
            "cells": self.cells.iter().map(|c| json!({
                "ply": c.ply,
                "move": c.move_number(),
                "side": match c.side() { Side::White => "white", Side::Black => "black" },
                "quad": quad(&c.quad),
                "bbox": c.bbox.map(|v| (v * 10.0).round() / 10.0),
                "ink": c.ink,
                "ink_share": (c.ink_share * 1000.0).round() / 1000.0,
                "overrun": (c.overrun * 1000.0).round() / 1000.0,
            })).collect::<Vec<_>>(),
        })
    }

    /// How many plies hold ink, counting up to the last written cell (the game's length as
    /// far as the sheet shows it).
    pub fn last_written_ply(&self) -> Option<u32> {
        self.cells.iter().filter(|c| c.ink).map(|c| c.ply).max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixel_arithmetic_matches_the_library_functions() {
        let mut rng = crate::synth::Rng::new(11);
        let specials = [
            0.0,
            -0.0,
            -0.5,
            0.5,
            -1.0,
            254.5,
            8_388_607.5,
            -8_388_607.5,
            8_388_608.0,
            -8_388_609.0,
            1e30,
            -1e30,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        let random = (0..200_000).map(|i| {
            let magnitude = 10f32.powi(i % 9 - 2);
            (rng.unit() as f32 - 0.5) * 2.0 * magnitude
        });
        for value in specials.into_iter().chain(random) {
            assert_eq!(floor_exact(value), value.floor(), "{value}");
        }
        assert!(floor_exact(f32::NAN).is_nan());
        let random = (0..200_000).map(|i| {
            let magnitude = 10f32.powi(i % 9 - 2);
            (rng.unit() as f32 - 0.5) * 2.0 * magnitude
        });
        let halves = (-40..=40).map(|half| half as f32 / 2.0);
        for value in specials.into_iter().chain(halves).chain(random) {
            assert_eq!(round_to_whole(value), value.round() as i64, "{value}");
        }
        assert_eq!(round_to_whole(f32::NAN), f32::NAN.round() as i64);
        // Every grey level, halves (which go up) included.
        let halves = (0..=510).map(|half| half as f32 / 2.0);
        for grey in halves.chain((0..100_000).map(|_| 256.0 * rng.unit() as f32 - 0.5)) {
            assert_eq!(round_grey(grey), grey.round() as u8, "{grey}");
        }
    }

    fn cells_with_block(block_quad: Quad) -> Cells {
        Cells {
            source: "sheet.jpg".into(),
            image_width: 1300,
            image_height: 1400,
            page_quad: rectangle(100.0, 100.0, 900.0, 1300.0),
            blocks: vec![Block {
                first_move: 1,
                rows: 40,
                has_numbers: true,
                quad: block_quad,
            }],
            cells: Vec::new(),
            turned_degrees: 0.0,
        }
    }

    fn rectangle(left: f32, top: f32, right: f32, bottom: f32) -> Quad {
        [[left, top], [right, top], [right, bottom], [left, bottom]]
    }

    #[test]
    fn a_page_s_cell_height_is_its_cells_median_edge_length() {
        let cell = |ply: u32, quad: Quad| Cell {
            ply,
            quad,
            bbox: [0.0; 4],
            ink: true,
            ink_share: 0.1,
            overrun: 0.0,
        };
        let mut cells = cells_with_block(rectangle(150.0, 150.0, 850.0, 1250.0));
        assert_eq!(cells.median_cell_height(), None);
        // Upright boxes 12 and 30 high, and one drawn askew: its left edge 3-4-5 long (5), its
        // right edge 31 long; the mean of its edges is 18.
        cells.cells = vec![
            cell(1, rectangle(0.0, 0.0, 100.0, 12.0)),
            cell(2, rectangle(0.0, 20.0, 100.0, 50.0)),
            cell(3, [[0.0, 60.0], [100.0, 60.0], [100.0, 91.0], [3.0, 64.0]]),
        ];
        assert_eq!(cells.cells[2].height(), 18.0);
        assert_eq!(cells.median_cell_height(), Some(18.0));
    }

    #[test]
    fn cells_found_in_a_turned_image_are_given_back_in_the_image_as_it_is() {
        // One dark pixel in a 30 x 20 image, found in each turned copy of it: the pixel's
        // centre found there maps back to its centre here.
        let mut image = GrayImage::from_pixel(30, 20, image::Luma([255]));
        image.put_pixel(7, 4, image::Luma([0]));
        let centre = [7.5, 4.5];
        for degrees in [0.0, 90.0, 180.0, 270.0, 30.0, 333.0] {
            let (to_turned, turned) = turned_image(&image, degrees);
            let (x, y) = if degrees % 90.0 == 0.0 {
                let (x, y, _) = turned.enumerate_pixels().find(|p| p.2 .0[0] == 0).unwrap();
                (x as f32 + 0.5, y as f32 + 0.5)
            } else {
                // Interpolated: the darkest pixel's centre lies within a pixel of the map's.
                let (x, y, _) = turned.enumerate_pixels().min_by_key(|p| p.2 .0[0]).unwrap();
                let mapped = to_turned * (centre[0], centre[1]);
                assert!(
                    (x as f32 + 0.5 - mapped.0).abs() <= 1.0
                        && (y as f32 + 0.5 - mapped.1).abs() <= 1.0,
                    "{degrees}: darkest ({x}, {y}), mapped {mapped:?}"
                );
                mapped
            };
            let seen = [x, y];
            let cell = Cell {
                ply: 1,
                quad: [seen; 4],
                bbox: [0.0; 4],
                ink: true,
                ink_share: 0.1,
                overrun: 0.0,
            };
            let found = Cells {
                image_width: turned.width(),
                image_height: turned.height(),
                cells: vec![cell],
                ..cells_with_block([seen; 4])
            };
            let back = found.turned_back((30, 20), to_turned, degrees);
            assert_eq!(back.turned_degrees, degrees);
            assert_eq!((back.image_width, back.image_height), (30, 20));
            for point in back.cells[0].quad.iter().chain(&back.blocks[0].quad) {
                assert!(
                    (point[0] - centre[0]).abs() < 1e-3 && (point[1] - centre[1]).abs() < 1e-3,
                    "{degrees} degrees: {point:?}"
                );
            }
        }
    }

    #[test]
    fn the_lines_of_a_page_askew_are_levelled() {
        // Ruled lines (soft-edged, as a scan's) every 20 pixels, turned `skew` degrees
        // clockwise.
        for skew in [-30.0f32, -12.0, 0.0, 20.0, 40.0] {
            let (sin, cos) = skew.to_radians().sin_cos();
            let page = GrayImage::from_fn(400, 300, |x, y| {
                let (x, y) = (x as f32 - 200.0, y as f32 - 150.0);
                // The distance to the nearest line, along the lines' normal.
                let off_line = ((-x * sin + y * cos).rem_euclid(20.0) - 10.0).abs() - 10.0;
                let ink = (-off_line * off_line / 2.0).exp();
                image::Luma([(255.0 * (1.0 - ink)) as u8])
            });
            let level = leveling_degrees(&page).unwrap();
            assert!((level + skew).abs() <= 1.0, "skew {skew}: level by {level}");
        }
    }

    #[test]
    fn a_table_with_margins_is_inside_the_page_and_one_at_the_outline_is_cut() {
        // 40 rows of 20 px: the margins below are 300 px, then 10 px.
        let inside = cells_with_block(rectangle(200.0, 200.0, 800.0, 1000.0));
        assert!(!inside.table_reaches_page_edge());
        let cut = cells_with_block(rectangle(200.0, 490.0, 800.0, 1290.0));
        assert!(cut.table_reaches_page_edge());
        // Found again past an outline that a shadow's edge cut short: the block's right side
        // lies beyond the page's, and none of its corners is near it.
        let beyond = cells_with_block(rectangle(600.0, 300.0, 1200.0, 1100.0));
        assert!(beyond.table_reaches_page_edge());
    }

    #[test]
    fn a_window_over_the_border_runs_on_along_the_cells_own_sides() {
        // A cell 200 px wide, seen askew: its top side falls 10 px, its bottom side 8 px.
        let mut cell = Cell {
            ply: 3,
            quad: [[100.0, 50.0], [300.0, 60.0], [298.0, 98.0], [98.0, 90.0]],
            bbox: [0.0; 4],
            ink: true,
            ink_share: 0.1,
            overrun: 0.0,
        };
        assert_eq!(cell.overrun_quad(), None);
        cell.overrun = 0.25;
        let widened = cell.overrun_quad().expect("the writing runs over");
        assert_eq!(widened[0], cell.quad[0]);
        assert_eq!(widened[3], cell.quad[3]);
        assert_eq!(widened[1], [350.0, 62.5]);
        assert_eq!(widened[2], [348.0, 100.0]);
    }
}
