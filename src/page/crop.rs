//! Cell crops as the cell reader sees them: each cell's quadrilateral, grown by a margin
//! (writing often runs over the lines), warped to a fixed-size grey image. The training data
//! (`synth::cells`) is cropped by the same function, so the reader meets found cells exactly as
//! it was trained.

use image::GrayImage;
use imageproc::geometric_transformations::Projection;
use rayon::prelude::*;

use super::{Cells, Sheet};

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
    let (iw, ih) = (image.width() as i64, image.height() as i64);
    let px = |x: i64, y: i64| {
        image
            .get_pixel(x.clamp(0, iw - 1) as u32, y.clamp(0, ih - 1) as u32)
            .0[0] as f32
    };
    for y in 0..height {
        for x in 0..width {
            let (u, v) = to_image * (x as f32 + 0.5, y as f32 + 0.5);
            let (u, v) = (u - 0.5, v - 0.5);
            let (x0, y0) = (u.floor(), v.floor());
            let (fx, fy) = (u - x0, v - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            let top = px(x0, y0) * (1.0 - fx) + px(x0 + 1, y0) * fx;
            let bottom = px(x0, y0 + 1) * (1.0 - fx) + px(x0 + 1, y0 + 1) * fx;
            out.put_pixel(
                x,
                y,
                image::Luma([(top * (1.0 - fy) + bottom * fy).round() as u8]),
            );
        }
    }
    Some(out)
}

impl Cells {
    /// Every cell's crop from `sheet` (the image the cells were found in), in the order of
    /// [`Cells::cells`], each `width` x `height` grey. A cell whose corners admit no
    /// perspective map (degenerate) gives a blank crop.
    pub fn crops(&self, sheet: &Sheet, width: u32, height: u32) -> Vec<GrayImage> {
        let grey = sheet.grey();
        self.cells
            .par_iter()
            .map(|cell| {
                cell_crop(&grey, cell.quad, width, height)
                    .unwrap_or_else(|| GrayImage::from_pixel(width, height, image::Luma([255])))
            })
            .collect()
    }
}
