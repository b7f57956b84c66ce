//! Finding the sheet of paper in a photo, and warping it flat.
//!
//! The paper is the largest bright region of the image: on a desk it stands out against the
//! darker surface; on a scan it fills the image. Its outline is fitted by four straight sides
//! whose crossings are the corners. The grid search later fits every ruling line on its own,
//! so the page only needs to be found well enough to make those lines nearly axis-aligned.

use std::borrow::Cow;

use image::{GrayImage, ImageBuffer, Luma};
use imageproc::contrast::otsu_level;
use imageproc::filter::gaussian_blur_f32;
use imageproc::geometric_transformations::Projection;
use imageproc::region_labelling::{connected_components, Connectivity};
use rayon::prelude::*;

use super::bilinear_grey;
use super::geometry::{fit_line, mean_sides, PlaneMap, Point, Quad};

/// Long side of the thumbnail the paper is looked for in.
const THUMB_SIDE: u32 = 320;

/// Where the sheet lies in the image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paper {
    /// The sheet's corners in image pixels (top-left, top-right, bottom-right, bottom-left).
    pub quad: Quad,
    /// Whether the sheet fills the image (a scan), so its edges are the image's.
    pub fills_image: bool,
}

impl Paper {
    /// The whole `width` x `height` image taken as the sheet.
    pub fn whole(width: u32, height: u32) -> Paper {
        let (w, h) = (width as f32, height as f32);
        Paper {
            quad: [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]],
            fills_image: true,
        }
    }
}

/// Finds the sheet in a grey image.
pub fn find_paper(grey: &GrayImage) -> Paper {
    let (width, height) = grey.dimensions();
    let whole = Paper::whole(width, height);
    let shrink = width.max(height) / THUMB_SIDE;
    if shrink < 2 || width < 16 || height < 16 {
        return whole;
    }
    let scale = 1.0 / shrink as f32;
    let thumb = gaussian_blur_f32(&box_shrink(grey, shrink), 1.2);
    let (tw, th) = thumb.dimensions();
    let level = otsu_level(&thumb);
    if !bright_and_dark_differ(&thumb, level) {
        return whole;
    }
    let Some((labels, paper_label, paper_area)) = largest_bright_region(&thumb, level) else {
        return whole;
    };
    let total = (tw * th) as usize;
    if paper_area * 100 >= total * 88 || paper_area * 100 < total * 8 {
        return whole;
    }
    let Some(corners) = fit_quad(&region_outline(&labels, paper_label)) else {
        return whole;
    };
    if !plausible_sheet(&corners, (tw * th) as f32) || !stands_out(&thumb, &corners) {
        return whole;
    }
    let quad = corners.map(|[x, y]| [x / scale, y / scale]);
    Paper {
        quad,
        fills_image: false,
    }
}

/// Whether the pixels above `level` and those below it differ clearly in mean: paper and
/// its surround do; where they do not, the two classes are paper and ink.
fn bright_and_dark_differ(thumb: &GrayImage, level: u8) -> bool {
    let (mut bright_sum, mut bright_n, mut dark_sum, mut dark_n) = (0u64, 0u64, 0u64, 0u64);
    for p in thumb.pixels() {
        if p.0[0] > level {
            bright_sum += p.0[0] as u64;
            bright_n += 1;
        } else {
            dark_sum += p.0[0] as u64;
            dark_n += 1;
        }
    }
    if bright_n == 0 || dark_n == 0 {
        return false;
    }
    let contrast = bright_sum as f32 / bright_n as f32 - dark_sum as f32 / dark_n as f32;
    contrast >= 35.0
}

/// Connected regions, one label a pixel (`imageproc::region_labelling`).
type Labels = ImageBuffer<Luma<u32>, Vec<u32>>;

/// The connected regions of pixels above `level` (labels, 0 for the dark), the largest
/// one's label and its area in pixels; `None` when nothing is above it.
fn largest_bright_region(thumb: &GrayImage, level: u8) -> Option<(Labels, usize, usize)> {
    let (tw, th) = thumb.dimensions();
    let mask = GrayImage::from_fn(tw, th, |x, y| {
        Luma([if thumb.get_pixel(x, y).0[0] > level {
            255
        } else {
            0
        }])
    });
    let labels = connected_components(&mask, Connectivity::Four, Luma([0u8]));
    let mut areas = vec![0usize; 1];
    for p in labels.pixels() {
        let label = p.0[0] as usize;
        if label >= areas.len() {
            areas.resize(label + 1, 0);
        }
        areas[label] += 1;
    }
    let (label, &area) = areas.iter().enumerate().skip(1).max_by_key(|&(_, a)| *a)?;
    Some((labels, label, area))
}

/// The outline of region `label`: its pixels with a neighbour outside it (or the image
/// edge), as pixel centres.
fn region_outline(labels: &Labels, label: usize) -> Vec<Point> {
    let (tw, th) = labels.dimensions();
    let inside = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && x < tw as i64
            && y < th as i64
            && labels.get_pixel(x as u32, y as u32).0[0] as usize == label
    };
    let mut outline: Vec<Point> = Vec::new();
    for y in 0..th as i64 {
        for x in 0..tw as i64 {
            if inside(x, y)
                && !(inside(x - 1, y) && inside(x + 1, y) && inside(x, y - 1) && inside(x, y + 1))
            {
                outline.push([x as f32 + 0.5, y as f32 + 0.5]);
            }
        }
    }
    outline
}

/// Whether a quadrilateral can be a sheet of paper seen by a camera: convex, corners near
/// right angles, opposite sides of similar length, and a fair part of the picture. Anything
/// else is a shadow or the desk, and the whole image is searched instead.
fn plausible_sheet(quad: &Quad, image_area: f32) -> bool {
    let area = super::geometry::polygon_area(quad);
    if area < 0.2 * image_area {
        return false;
    }
    let side = |i: usize| {
        let (a, b) = (quad[i], quad[(i + 1) % 4]);
        [b[0] - a[0], b[1] - a[1]]
    };
    let length = |v: [f32; 2]| (v[0] * v[0] + v[1] * v[1]).sqrt();
    for i in 0..4 {
        let (p, q) = (side(i), side((i + 1) % 4));
        let (lp, lq) = (length(p), length(q));
        if lp < 1.0 || lq < 1.0 {
            return false;
        }
        // Turning the same way at every corner, by 90 degrees give or take 25.
        let cross = (p[0] * q[1] - p[1] * q[0]) / (lp * lq);
        if cross < 0.9 {
            return false;
        }
    }
    let ratio = |a: f32, b: f32| a.max(b) / a.min(b).max(1e-3);
    ratio(length(side(0)), length(side(2))) < 1.5 && ratio(length(side(1)), length(side(3))) < 1.5
}

/// Whether the quadrilateral is clearly brighter than what lies around it, as a sheet on a
/// desk is. A bright patch inside a scanned page (a stretch of empty table) is not: paper
/// surrounds it.
fn stands_out(thumb: &GrayImage, quad: &Quad) -> bool {
    let inside = |x: f32, y: f32| {
        (0..4).all(|i| {
            let (a, b) = (quad[i], quad[(i + 1) % 4]);
            (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]) >= 0.0
        })
    };
    let (mut sums, mut counts) = ([0u64; 2], [0u64; 2]);
    for (x, y, p) in thumb.enumerate_pixels() {
        let k = usize::from(inside(x as f32 + 0.5, y as f32 + 0.5));
        sums[k] += p.0[0] as u64;
        counts[k] += 1;
    }
    if counts[0] * 20 < counts[0] + counts[1] {
        // The sheet fills nearly all of the picture: nothing around it to compare with.
        return true;
    }
    let mean = |k: usize| sums[k] as f32 / counts[k].max(1) as f32;
    mean(1) - mean(0) >= 25.0
}

/// Four sides fitted to an outline: corners first from the extreme points along the diagonals,
/// then each side refitted through the outline points between its corners.
fn fit_quad(outline: &[Point]) -> Option<Quad> {
    if outline.len() < 16 {
        return None;
    }
    let rough = super::geometry::diagonal_extremes(outline)?;
    // Each side as a line through the outline points near the segment between its corners,
    // away from the corners (which are rounded by the blur).
    let mut sides = Vec::with_capacity(4);
    for i in 0..4 {
        let (a, b) = (rough[i], rough[(i + 1) % 4]);
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let length = (dx * dx + dy * dy).sqrt();
        if length < 8.0 {
            return None;
        }
        let (ux, uy) = (dx / length, dy / length);
        let near: Vec<Point> = outline
            .iter()
            .copied()
            .filter(|p| {
                let (px, py) = (p[0] - a[0], p[1] - a[1]);
                let along = px * ux + py * uy;
                let across = (px * uy - py * ux).abs();
                along > 0.1 * length && along < 0.9 * length && across < 3.0
            })
            .collect();
        // Fit as y(x) for the top and bottom sides, x(y) for the left and right.
        let horizontal = i % 2 == 0;
        let samples: Vec<(f32, f32)> = near
            .iter()
            .map(|&[x, y]| if horizontal { (x, y) } else { (y, x) })
            .collect();
        let (intercept, slope) = fit_line(&samples)?;
        sides.push((horizontal, intercept, slope));
    }
    let corner = |h: (bool, f32, f32), v: (bool, f32, f32)| -> Point {
        // y = a + b x and x = c + d y.
        let (a, b) = (h.1, h.2);
        let (c, d) = (v.1, v.2);
        let y = (a + b * c) / (1.0 - b * d);
        [c + d * y, y]
    };
    let quad = [
        corner(sides[0], sides[3]),
        corner(sides[0], sides[1]),
        corner(sides[2], sides[1]),
        corner(sides[2], sides[3]),
    ];
    // Refitting must not move a corner far from where the outline put it.
    let diagonal = {
        let (dx, dy) = (rough[2][0] - rough[0][0], rough[2][1] - rough[0][1]);
        (dx * dx + dy * dy).sqrt()
    };
    for (fitted, first) in quad.iter().zip(rough.iter()) {
        let (dx, dy) = (fitted[0] - first[0], fitted[1] - first[1]);
        if !(dx.is_finite() && dy.is_finite()) || (dx * dx + dy * dy).sqrt() > 0.08 * diagonal {
            return Some(rough);
        }
    }
    Some(quad)
}

/// A flattened view of the page: `image` is `quad` of the source warped to a rectangle, and
/// `to_source` maps its pixel coordinates back to the source image's.
pub struct Flat {
    pub image: GrayImage,
    pub to_source: Projection,
}

/// A grey image shrunk by area averaging (so that thin lines survive) to about the
/// resolution a view needs; shared by the views taken at that resolution.
pub struct Reduced<'a> {
    pub image: Cow<'a, GrayImage>,
    /// Source pixels per reduced pixel, across and down.
    pub factor: (f32, f32),
}

impl<'a> Reduced<'a> {
    /// `grey` shrunk by the largest whole factor that still leaves `needed` pixels where
    /// `across` pixels are now (not shrunk at all if that factor is 1).
    pub fn new(grey: &'a GrayImage, across: f32, needed: u32) -> Reduced<'a> {
        let shrink = ((across / needed as f32).floor() as u32).max(1);
        if shrink < 2 {
            return Reduced {
                image: Cow::Borrowed(grey),
                factor: (1.0, 1.0),
            };
        }
        let (sw, sh) = (grey.width() / shrink, grey.height() / shrink);
        if sw == 0 || sh == 0 {
            return Reduced {
                image: Cow::Borrowed(grey),
                factor: (1.0, 1.0),
            };
        }
        Reduced {
            image: Cow::Owned(box_shrink(grey, shrink)),
            factor: (shrink as f32, shrink as f32),
        }
    }
}

/// `grey` shrunk by a whole `factor`: each pixel the mean of a `factor` x `factor` block
/// (a partial block at the right and bottom edges is dropped).
fn box_shrink(grey: &GrayImage, factor: u32) -> GrayImage {
    let k = factor as usize;
    let (w, h) = (grey.width() as usize / k, grey.height() as usize / k);
    let stride = grey.width() as usize;
    let raw = grey.as_raw();
    let area = (k * k) as u32;
    let mut out = GrayImage::new(w as u32, h as u32);
    out.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        let mut sums = vec![0u32; w];
        for line in raw[y * k * stride..(y + 1) * k * stride].chunks_exact(stride) {
            for (sum, block) in sums.iter_mut().zip(line.chunks_exact(k)) {
                *sum += block.iter().map(|&v| v as u32).sum::<u32>();
            }
        }
        for (pixel, sum) in row.iter_mut().zip(sums) {
            *pixel = ((sum + area / 2) / area) as u8;
        }
    });
    out
}

/// Warps the quadrilateral `quad` of `grey` to an upright rectangle `width` pixels wide (the
/// height follows the quad's proportions). Sources much larger than the target are first
/// shrunk by area averaging so that thin lines survive.
pub fn flatten(grey: &GrayImage, quad: &Quad, width: u32) -> Option<Flat> {
    let (across, _) = mean_sides(quad);
    flatten_from(&Reduced::new(grey, across, width), quad, width)
}

/// [`flatten`] from an image already reduced; `quad` and the result's `to_source` are in the
/// pixels of the image before reduction.
pub fn flatten_from(source: &Reduced, quad: &Quad, width: u32) -> Option<Flat> {
    let (across, down) = mean_sides(quad);
    if !(across > 8.0 && down > 8.0) {
        return None;
    }
    let aspect = (down / across).clamp(0.25, 4.0);
    let height = ((width as f32 * aspect).round() as u32).max(8);
    let (scale_x, scale_y) = source.factor;
    let source = &source.image;
    let corners = [
        (0.0, 0.0),
        (width as f32, 0.0),
        (width as f32, height as f32),
        (0.0, height as f32),
    ];
    let to_source = Projection::from_control_points(corners, quad.map(|[x, y]| (x, y)))?;
    let to_sample =
        PlaneMap::from_control_points(corners, quad.map(|[x, y]| (x / scale_x, y / scale_y)))?;
    let mut image = GrayImage::new(width, height);
    warp(source, &to_sample, &mut image);
    Some(Flat { image, to_source })
}

/// Pixels worked out at once along a row of [`warp`]: their source points are divided in one
/// go (packed division), the bilinear lookups then follow one by one.
const WARP_RUN: usize = 8;

/// Fills `image` with `source` seen through `map` (an output pixel's centre to its source
/// point), bilinear; rows side by side.
fn warp(source: &GrayImage, map: &PlaneMap, image: &mut GrayImage) {
    let width = image.width() as usize;
    if width == 0 {
        return;
    }
    image
        .par_chunks_mut(width)
        .enumerate()
        .for_each(|(y, row)| {
            let along = map.row(y as f32 + 0.5);
            for (run, pixels) in row.chunks_mut(WARP_RUN).enumerate() {
                let first = run * WARP_RUN;
                let mut points = [(0.0, 0.0); WARP_RUN];
                for (k, point) in points.iter_mut().enumerate() {
                    *point = along.map((first + k) as f32 + 0.5);
                }
                for (out, &(u, v)) in pixels.iter_mut().zip(&points) {
                    *out = bilinear_grey(source, u, v);
                }
            }
        });
}

/// The source quadrilateral that, flattened, straightens rulings that lie tilted in `flat`:
/// rows rising `row_tilt` pixels per pixel across, columns leaning `column_tilt` per pixel
/// down. The new view holds all of the old one.
pub fn untilted_quad(flat: &Flat, row_tilt: f32, column_tilt: f32) -> Option<Quad> {
    // (u', v') = (u - column_tilt v, v - row_tilt u) makes both families axis-aligned.
    let untilt =
        Projection::from_matrix([1.0, -column_tilt, 0.0, -row_tilt, 1.0, 0.0, 0.0, 0.0, 1.0])?;
    covering_view(flat, &untilt, &[])
}

/// The source quadrilateral of the upright view that `to_upright` (from `flat`'s pixels)
/// gives, just large enough to hold all of `flat` and the `extra` points (in `flat`'s
/// pixels); `None` if that view would be absurdly large.
pub fn covering_view(flat: &Flat, to_upright: &Projection, extra: &[(f32, f32)]) -> Option<Quad> {
    let (w, h) = (flat.image.width() as f32, flat.image.height() as f32);
    let bounds = |points: &mut dyn Iterator<Item = (f32, f32)>| {
        points.fold(
            (f32::MAX, f32::MAX, f32::MIN, f32::MIN),
            |(x0, y0, x1, y1), p| {
                let (x, y) = to_upright * &p;
                (x0.min(x), y0.min(y), x1.max(x), y1.max(y))
            },
        )
    };
    let flat_corners = [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)];
    let (fx0, fy0, fx1, fy1) = bounds(&mut flat_corners.into_iter());
    let (x0, y0, x1, y1) = bounds(&mut flat_corners.into_iter().chain(extra.iter().copied()));
    if !(x1 - x0 < 4.0 * (fx1 - fx0) && y1 - y0 < 4.0 * (fy1 - fy0)) {
        return None;
    }
    let back = to_upright.invert();
    Some([(x0, y0), (x1, y0), (x1, y1), (x0, y1)].map(|corner| {
        let (u, v) = back * corner;
        let (x, y) = flat.to_source * (u, v);
        [x, y]
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flattened_view_is_warped_pixel_for_pixel_as_through_imageproc() {
        let mut rng = crate::synth::Rng::new(3);
        let grey = GrayImage::from_fn(300, 220, |_, _| Luma([rng.below(256) as u8]));
        let quads: [Quad; 3] = [
            [[20.0, 15.0], [280.0, 30.0], [270.0, 210.0], [10.0, 190.0]],
            // Partly off the image: its edge is read there.
            [[-30.0, -20.0], [330.0, 5.0], [290.0, 260.0], [5.0, 200.0]],
            [[0.0, 0.0], [300.0, 0.0], [300.0, 220.0], [0.0, 220.0]],
        ];
        // Unreduced, so that the warp alone is compared.
        let whole = Reduced {
            image: Cow::Borrowed(&grey),
            factor: (1.0, 1.0),
        };
        for quad in quads {
            for width in [37, 150, 301] {
                let flat = flatten_from(&whole, &quad, width).unwrap();
                let (w, h) = flat.image.dimensions();
                let corners = [
                    (0.0, 0.0),
                    (w as f32, 0.0),
                    (w as f32, h as f32),
                    (0.0, h as f32),
                ];
                let reference =
                    Projection::from_control_points(corners, quad.map(|[x, y]| (x, y))).unwrap();
                let expected = GrayImage::from_fn(w, h, |x, y| {
                    let (u, v) = reference * (x as f32 + 0.5, y as f32 + 0.5);
                    Luma([bilinear_grey(&grey, u, v)])
                });
                assert_eq!(flat.image, expected, "{quad:?} at {width}");
            }
        }
    }

    #[test]
    fn finds_a_bright_sheet_on_a_dark_desk() {
        let (w, h) = (800u32, 1000u32);
        let quad: Quad = [[120.0, 90.0], [650.0, 130.0], [690.0, 900.0], [90.0, 860.0]];
        let to_image = Projection::from_control_points(
            [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)],
            quad.map(|[x, y]| (x, y)),
        )
        .unwrap();
        let to_page = to_image.invert();
        let grey = GrayImage::from_fn(w, h, |x, y| {
            let (u, v) = to_page * (x as f32 + 0.5, y as f32 + 0.5);
            Luma([if (0.0..1.0).contains(&u) && (0.0..1.0).contains(&v) {
                225
            } else {
                70
            }])
        });
        let paper = find_paper(&grey);
        assert!(!paper.fills_image);
        for (found, truth) in paper.quad.iter().zip(quad.iter()) {
            let error = ((found[0] - truth[0]).powi(2) + (found[1] - truth[1]).powi(2)).sqrt();
            assert!(error < 6.0, "corner {found:?} vs {truth:?}");
        }
    }

    #[test]
    fn a_bright_patch_amid_paper_is_not_a_sheet() {
        let quad: Quad = [[20.0, 20.0], [80.0, 20.0], [80.0, 100.0], [20.0, 100.0]];
        let amid_paper = GrayImage::from_pixel(100, 120, Luma([230]));
        assert!(!stands_out(&amid_paper, &quad));
        let on_a_desk = GrayImage::from_fn(100, 120, |x, y| {
            Luma([if (20..80).contains(&x) && (20..100).contains(&y) {
                230
            } else {
                80
            }])
        });
        assert!(stands_out(&on_a_desk, &quad));
    }

    #[test]
    fn box_shrink_averages_whole_blocks() {
        let grey = GrayImage::from_fn(5, 4, |x, y| Luma([(10 * x + 100 * (y % 2)) as u8]));
        let small = box_shrink(&grey, 2);
        assert_eq!(small.dimensions(), (2, 2));
        // Block (0, 0): 0, 10, 100, 110; block (1, 0): 20, 30, 120, 130.
        assert_eq!(small.as_raw(), &vec![55, 75, 55, 75]);
    }

    #[test]
    fn a_scan_is_all_paper() {
        let grey = GrayImage::from_fn(600, 800, |x, y| {
            Luma([if (x / 40 + y / 40) % 7 == 0 { 40 } else { 235 }])
        });
        assert!(find_paper(&grey).fills_image);
    }
}
