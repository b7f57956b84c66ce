//! Cell crops as the cell reader sees them: each cell's quadrilateral, grown by a margin
//! (writing often runs over the lines), warped to a fixed-size grey image. The training data
//! (`synth::cells`) is cropped by the same function, so the reader meets found cells exactly as
//! it was trained.

use image::GrayImage;
use imageproc::filter::gaussian_blur_f32;
use imageproc::geometric_transformations::Projection;
use rayon::prelude::*;

use super::geometry::mean_sides;
use super::{bilinear_grey, Cells, Point, Quad, Sheet};

/// How far beyond a cell's borders a crop reaches, as a share of the cell's width and height
/// on each side.
pub const CROP_MARGIN: (f32, f32) = (0.05, 0.18);

/// Crops the quadrilateral `quad` (top-left, top-right, bottom-right, bottom-left) of `image`,
/// grown by [`CROP_MARGIN`], to `width` x `height` grey pixels (bilinear).
pub fn cell_crop(
    image: &GrayImage,
    quad: [[f32; 2]; 4],
    width: u32,
    height: u32,
) -> Option<GrayImage> {
    let (mx, my) = CROP_MARGIN;
    let (w, h) = (width as f32, height as f32);
    // The crop's pixel grid covers the margins too: the cell itself spans the inner part.
    let inner = [
        (w * mx / (1.0 + 2.0 * mx), h * my / (1.0 + 2.0 * my)),
        (w * (1.0 + mx) / (1.0 + 2.0 * mx), h * my / (1.0 + 2.0 * my)),
        (
            w * (1.0 + mx) / (1.0 + 2.0 * mx),
            h * (1.0 + my) / (1.0 + 2.0 * my),
        ),
        (w * mx / (1.0 + 2.0 * mx), h * (1.0 + my) / (1.0 + 2.0 * my)),
    ];
    let to_image = Projection::from_control_points(inner, quad.map(|[x, y]| (x, y)))?;
    let mut out = GrayImage::new(width, height);
    if width == 0 || height == 0 {
        return Some(out);
    }
    for (y, row) in out.chunks_exact_mut(width as usize).enumerate() {
        for (x, value) in row.iter_mut().enumerate() {
            let (u, v) = to_image * (x as f32 + 0.5, y as f32 + 0.5);
            *value = bilinear_grey(image, u, v);
        }
    }
    Some(out)
}

/// The widest cell, width over height, the reader is shown whole (`synth::cells` draws 3.5
/// to 9.5 and reads the wider ones through [`reading_window`], as the pipeline does): a
/// wider cell warped whole to the reader's input would squash the writing.
pub const WIDEST_TRAINED_CELL: f32 = 7.0;

/// The part of the cell `quad` the reader is shown: the whole cell, or, for a cell wider than
/// [`WIDEST_TRAINED_CELL`], a window of that shape over its ink (as wide as the ink when the
/// ink is wider, with a third of the cell's height to spare on each side). Players write
/// at the left of a long cell or anywhere in it; the window follows the ink. A wide cell
/// without ink is returned whole.
pub fn reading_window(image: &GrayImage, quad: Quad) -> Quad {
    let (width, height) = mean_sides(&quad);
    if height < 1.0 || width <= height * WIDEST_TRAINED_CELL {
        return quad;
    }
    let aspect = width / height;
    let Some(ink) = ink_extent(image, quad, aspect) else {
        return quad;
    };
    let spare = 0.35 / aspect;
    let wanted = (WIDEST_TRAINED_CELL / aspect)
        .max(ink.1 - ink.0 + 2.0 * spare)
        .min(1.0);
    let start = ((ink.0 + ink.1 - wanted) / 2.0).clamp(0.0, 1.0 - wanted);
    let along = |a: Point, b: Point, t: f32| [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
    let end = start + wanted;
    [
        along(quad[0], quad[1], start),
        along(quad[0], quad[1], end),
        along(quad[3], quad[2], end),
        along(quad[3], quad[2], start),
    ]
}

/// The horizontal extent of the ink inside the cell `quad` (of shape `aspect`), as shares
/// of its width from the left border, leaving out the rulings at its borders; `None` if
/// the cell holds none.
fn ink_extent(image: &GrayImage, quad: Quad, aspect: f32) -> Option<(f32, f32)> {
    const HEIGHT: u32 = 32;
    let (mx, my) = CROP_MARGIN;
    let width = (HEIGHT as f32 * aspect * (1.0 + 2.0 * mx) / (1.0 + 2.0 * my)).clamp(32.0, 2048.0);
    let crop = cell_crop(image, quad, width as u32, HEIGHT)?;
    let (w, h) = (crop.width() as f32, HEIGHT as f32);
    let (left, right) = (w * mx / (1.0 + 2.0 * mx), w * (1.0 + mx) / (1.0 + 2.0 * mx));
    let (top, bottom) = (h * my / (1.0 + 2.0 * my), h * (1.0 + my) / (1.0 + 2.0 * my));
    let inner_height = bottom - top;
    // Rulings run along the borders: leave out a band of a sixth of the height inside each.
    let skip = inner_height / 6.0;
    let rows = (top + skip).round() as u32..(bottom - skip).round() as u32;
    let columns = (left + skip).round() as u32..(right - skip).round() as u32;
    let stride = crop.width() as usize;
    let pixel = |x: u32, y: u32| crop.as_raw()[y as usize * stride + x as usize];
    let mut values: Vec<u8> = rows
        .clone()
        .flat_map(|y| columns.clone().map(move |x| pixel(x, y)))
        .collect();
    if values.is_empty() {
        return None;
    }
    let paper = {
        let middle = values.len() / 2;
        *values.select_nth_unstable(middle).1 as f32
    };
    let inked_columns = |darkness: f32| -> Vec<u32> {
        let dark = paper * darkness;
        columns
            .clone()
            .filter(|&x| {
                rows.clone()
                    .filter(|&y| (pixel(x, y) as f32) < dark)
                    .count()
                    >= 2
            })
            .collect()
    };
    // Firm ink is under two thirds of the paper's grey. A faint hand (hard pencil, a thin
    // grey pen, 145-160 on paper of 245) has hardly a column that dark, and the window
    // would be the whole wide cell squashed, or a few pixels: its strokes are under 0.8.
    let mut inked = inked_columns(0.65);
    if inked.len() < (HEIGHT / 4) as usize {
        inked = inked_columns(0.8);
    }
    let (&first, &last) = (inked.first()?, inked.last()?);
    let share = |x: f32| ((x - left) / (right - left)).clamp(0.0, 1.0);
    Some((share(first as f32), share(last as f32 + 1.0)))
}

impl Cells {
    /// Every cell's crop from `sheet` (the image the cells were found in) as the reader
    /// reads it ([`reading_window`] of the cell), in the order of [`Cells::cells`], each
    /// `width` x `height` grey. A cell whose corners admit no perspective map (degenerate)
    /// gives a blank crop.
    pub fn crops(&self, sheet: &Sheet, width: u32, height: u32) -> Vec<GrayImage> {
        let quads: Vec<Quad> = self.cells.iter().map(|cell| cell.quad).collect();
        reading_crops(&sheet.grey(), &quads, width, height)
    }
}

/// The crop of each cell `quads` from `grey` as the reader reads it ([`reading_window`] of the
/// cell), in order, each `width` x `height`; a degenerate quad gives a blank crop.
///
/// A bilevel page (a black-and-white scan: only black and white pixels) has its crops
/// softened ([`BILEVEL_SOFTENING`]): the reader learnt strokes with grey edges, as a grey scan
/// or photo shows them.
pub fn reading_crops(grey: &GrayImage, quads: &[Quad], width: u32, height: u32) -> Vec<GrayImage> {
    let bilevel = is_bilevel(grey);
    quads
        .par_iter()
        .map(|&quad| {
            let crop = cell_crop(grey, reading_window(grey, quad), width, height)
                .unwrap_or_else(|| GrayImage::from_pixel(width, height, image::Luma([255])));
            if bilevel {
                gaussian_blur_f32(&crop, BILEVEL_SOFTENING)
            } else {
                crop
            }
        })
        .collect()
}

/// The Gaussian (standard deviation in crop pixels) that softens a bilevel page's crops. On
/// the validation cells cut at each cell's Otsu threshold the shipped reader reads 51.0%
/// exact as cut, 54.9% softened by 0.5, 57.6% by 0.8, 57.1% by 1.2 and 52.7% by 1.6 (75.6% in
/// grey).
pub const BILEVEL_SOFTENING: f32 = 0.8;

/// Whether every pixel of `grey` is black or white, as in a bilevel scan.
pub fn is_bilevel(grey: &GrayImage) -> bool {
    grey.as_raw().iter().all(|&p| p == 0 || p == 255)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_bilevel_pages_crops_are_softened() {
        // A black bar on white, and the same page with one grey pixel far from the cell.
        let mut bilevel = GrayImage::from_pixel(300, 120, image::Luma([255]));
        for y in 45..55 {
            for x in 60..140 {
                bilevel.put_pixel(x, y, image::Luma([0]));
            }
        }
        let mut grey = bilevel.clone();
        grey.put_pixel(299, 119, image::Luma([128]));
        assert!(is_bilevel(&bilevel) && !is_bilevel(&grey));
        let quad = [[50.0, 40.0], [150.0, 40.0], [150.0, 60.0], [50.0, 60.0]];
        let as_cut = cell_crop(&bilevel, reading_window(&bilevel, quad), 110, 27).unwrap();
        let [from_bilevel] = reading_crops(&bilevel, &[quad], 110, 27)
            .try_into()
            .unwrap();
        let [from_grey] = reading_crops(&grey, &[quad], 110, 27).try_into().unwrap();
        assert_eq!(from_grey, as_cut);
        assert_eq!(from_bilevel, gaussian_blur_f32(&as_cut, BILEVEL_SOFTENING));
        // The bar's edge is softened across a few pixels.
        let column: Vec<u8> = (0..27)
            .map(|y| from_bilevel.get_pixel(40, y).0[0])
            .collect();
        let greys = column.iter().filter(|&&p| p > 20 && p < 235).count();
        assert!(greys >= 2, "{column:?}");
    }

    /// `cell_crop` as first written (pixel by pixel through `get_pixel`, `f32::round`): the
    /// faster loop must cut the same crops, pixel for pixel, since the reader was trained on
    /// crops cut this way.
    fn cell_crop_reference(
        image: &GrayImage,
        quad: Quad,
        width: u32,
        height: u32,
    ) -> Option<GrayImage> {
        let (mx, my) = CROP_MARGIN;
        let (w, h) = (width as f32, height as f32);
        let (left, right) = (w * mx / (1.0 + 2.0 * mx), w * (1.0 + mx) / (1.0 + 2.0 * mx));
        let (top, bottom) = (h * my / (1.0 + 2.0 * my), h * (1.0 + my) / (1.0 + 2.0 * my));
        let inner = [(left, top), (right, top), (right, bottom), (left, bottom)];
        let to_image = Projection::from_control_points(inner, quad.map(|[x, y]| (x, y)))?;
        let (iw, ih) = (image.width() as i64, image.height() as i64);
        let px = |x: i64, y: i64| {
            image
                .get_pixel(x.clamp(0, iw - 1) as u32, y.clamp(0, ih - 1) as u32)
                .0[0] as f32
        };
        Some(GrayImage::from_fn(width, height, |x, y| {
            let (u, v) = to_image * (x as f32 + 0.5, y as f32 + 0.5);
            let (u, v) = (u - 0.5, v - 0.5);
            let (x0, y0) = (u.floor(), v.floor());
            let (fx, fy) = (u - x0, v - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            let top = px(x0, y0) * (1.0 - fx) + px(x0 + 1, y0) * fx;
            let bottom = px(x0, y0 + 1) * (1.0 - fx) + px(x0 + 1, y0 + 1) * fx;
            image::Luma([(top * (1.0 - fy) + bottom * fy).round() as u8])
        }))
    }

    #[test]
    fn crops_are_cut_pixel_for_pixel_as_the_reader_was_trained() {
        let mut rng = crate::synth::Rng::new(7);
        let page = GrayImage::from_fn(320, 200, |_, _| image::Luma([rng.below(256) as u8]));
        for _ in 0..200 {
            // Skewed, partly or wholly off the page, cut at 1 x 1 to 200 x 60 pixels.
            let (x, y) = (
                400.0 * rng.unit() as f32 - 40.0,
                260.0 * rng.unit() as f32 - 30.0,
            );
            let quad = [[0.0, 0.0], [120.0, 0.0], [120.0, 30.0], [0.0, 30.0]].map(|[dx, dy]| {
                let jitter = 40.0 * rng.unit() as f32 - 20.0;
                [x + dx + jitter, y + dy + 40.0 * rng.unit() as f32 - 20.0]
            });
            let (width, height) = (1 + rng.below(200) as u32, 1 + rng.below(60) as u32);
            assert_eq!(
                cell_crop(&page, quad, width, height),
                cell_crop_reference(&page, quad, width, height),
                "{quad:?} at {width} x {height}"
            );
        }
        // A cell mapped far off the page reads the page's edge; a crop of no pixels is empty.
        let far = [[1e12, 1e12], [2e12, 1e12], [2e12, 1.5e12], [1e12, 1.5e12]];
        assert_eq!(
            cell_crop(&page, far, 8, 4),
            cell_crop_reference(&page, far, 8, 4)
        );
        assert_eq!(cell_crop(&page, far, 0, 4).map(|c| c.len()), Some(0));
        // An empty page gives a blank crop, not a panic.
        let empty = GrayImage::new(0, 0);
        let quad = [[0.0, 0.0], [10.0, 0.0], [10.0, 5.0], [0.0, 5.0]];
        assert_eq!(
            cell_crop(&empty, quad, 8, 4),
            Some(GrayImage::from_pixel(8, 4, image::Luma([255])))
        );
    }

    #[test]
    fn crop_of_an_axis_aligned_cell_keeps_the_margins() {
        // A 100 x 20 cell at (50, 40), inked on its left border only.
        let mut page = GrayImage::from_pixel(300, 120, image::Luma([255]));
        for y in 40..60 {
            page.put_pixel(50, y, image::Luma([0]));
        }
        let quad = [[50.0, 40.0], [150.0, 40.0], [150.0, 60.0], [50.0, 60.0]];
        let crop = cell_crop(&page, quad, 110, 27).unwrap();
        // The border sits after the left margin: 110 * 0.05 / 1.1 = 5 pixels in.
        let darkest = (0..110)
            .min_by_key(|&x| crop.get_pixel(x, 13).0[0])
            .unwrap();
        assert_eq!(darkest, 5);
    }

    /// A page of `paper` grey with a 700 x 50 cell (14:1) ruled all round at (50, 25).
    fn wide_ruled_cell(paper: u8) -> (GrayImage, Quad) {
        let mut image = GrayImage::from_pixel(800, 100, image::Luma([paper]));
        for x in 50..750 {
            image.put_pixel(x, 25, image::Luma([20]));
            image.put_pixel(x, 75, image::Luma([20]));
        }
        for y in 25..76 {
            image.put_pixel(50, y, image::Luma([20]));
            image.put_pixel(750, y, image::Luma([20]));
        }
        (
            image,
            [[50.0, 25.0], [750.0, 25.0], [750.0, 75.0], [50.0, 75.0]],
        )
    }

    #[test]
    fn a_wide_cell_is_read_through_a_window_over_its_ink() {
        // A 90-pixel word at x 400..490.
        let (mut image, cell) = wide_ruled_cell(230);
        for x in 400..490 {
            for y in 40..60 {
                if (x + y) % 3 == 0 {
                    image.put_pixel(x, y, image::Luma([30]));
                }
            }
        }
        let window = reading_window(&image, cell);
        let (left, right) = (window[0][0], window[1][0]);
        assert!((right - left - 350.0).abs() < 2.0, "{left}..{right}");
        assert!(left < 400.0 && right > 490.0, "{left}..{right}");
        assert_eq!((window[0][1], window[3][1]), (25.0, 75.0));

        // A cell of a trained shape, or an empty wide one, is read whole.
        let narrow = [[400.0, 25.0], [700.0, 25.0], [700.0, 75.0], [400.0, 75.0]];
        assert_eq!(reading_window(&image, narrow), narrow);
        let blank = GrayImage::from_pixel(800, 100, image::Luma([230]));
        assert_eq!(reading_window(&blank, cell), cell);
    }

    #[test]
    fn a_faint_hand_in_a_wide_cell_gets_its_window_too() {
        // On paper of 245, a word of thin strokes of grey 175 (under 0.8 of the paper, over
        // 0.65) at x 300..390.
        let (mut image, cell) = wide_ruled_cell(245);
        for x in (300..390).filter(|x| x % 6 < 2) {
            for y in 38..62 {
                image.put_pixel(x, y, image::Luma([175]));
            }
        }
        let window = reading_window(&image, cell);
        let (left, right) = (window[0][0], window[1][0]);
        assert!((right - left - 350.0).abs() < 2.0, "{left}..{right}");
        assert!(left < 300.0 && right > 390.0, "{left}..{right}");
    }
}
