//! Ink and ruling lines of a flattened page.
//!
//! Ink is found by comparing each pixel with its neighbourhood (uneven light, grey shading and
//! coloured paper drop out). Ruling lines are long thin runs of ink: a pixel belongs to a
//! horizontal line when it lies on a run of ink, a pixel or two of wobble allowed, much longer
//! than any handwritten stroke. Each line is then fitted on its own as a straight line, so the
//! small tilts and the convergence a photo leaves behind are followed.

use image::GrayImage;
use rayon::prelude::*;

use super::geometry::{fit_line, HLine, VLine};
use super::round_to_whole;

/// A boolean image, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Mask {
    pub width: usize,
    pub height: usize,
    pub bits: Vec<bool>,
}

impl Mask {
    pub fn new(width: usize, height: usize) -> Mask {
        Mask {
            width,
            height,
            bits: vec![false; width * height],
        }
    }

    pub fn get(&self, x: usize, y: usize) -> bool {
        self.bits[y * self.width + x]
    }

    /// How many pixels are set in the rectangle `[x0, x1) x [y0, y1)` (clipped).
    pub fn count(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> usize {
        let (x0, x1) = (
            x0.clamp(0, self.width as i64) as usize,
            x1.clamp(0, self.width as i64) as usize,
        );
        let (y0, y1) = (
            y0.clamp(0, self.height as i64) as usize,
            y1.clamp(0, self.height as i64) as usize,
        );
        (y0..y1)
            .map(|y| {
                self.bits[y * self.width + x0..y * self.width + x1.max(x0)]
                    .iter()
                    .filter(|b| **b)
                    .count()
            })
            .sum()
    }
}

/// Ink: pixels clearly darker than the mean of the `(2 radius + 1)²` box around them.
pub fn ink_mask(image: &GrayImage, radius: u32) -> Mask {
    single(image, radius, INK)
}

/// Writing, faint pencil included: pixels whose 3 x 3 neighbourhood is a little darker than
/// the `radius` box around them (the small average keeps sensor noise out).
pub fn writing_mask(image: &GrayImage, radius: u32) -> Mask {
    single(image, radius, WRITING)
}

/// Faint rulings: pixels whose short stretch along a line (`probe` = half lengths along x
/// and y, e.g. `(4, 0)` for horizontal lines) is darker than the neighbourhood. Averaging
/// along the line lifts a faint, blurred or noisy ruling above the noise.
pub fn line_ink_mask(image: &GrayImage, radius: u32, probe: (u32, u32)) -> Mask {
    single(image, radius, ruling(probe))
}

/// What makes a pixel dark: the mean of the `probe` box around it (half sizes; `(0, 0)` is
/// the pixel itself) is below `ratio` times the mean of the neighbourhood and at least
/// `min_difference` grey levels darker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Darker {
    pub probe: (u32, u32),
    pub ratio: f32,
    pub min_difference: f32,
}

/// Clear ink: printed text, numbers and firm handwriting.
pub const INK: Darker = Darker {
    probe: (0, 0),
    ratio: 0.86,
    min_difference: 12.0,
};

/// Black print and firm strokes only: far darker than their surroundings, as a printed
/// number is even on a shaded cell, while the shading itself is not.
pub const PRINTED: Darker = Darker {
    probe: (0, 0),
    ratio: 0.6,
    min_difference: 50.0,
};

/// Writing, faint pencil included.
pub const WRITING: Darker = Darker {
    probe: (1, 1),
    ratio: 0.93,
    min_difference: 8.0,
};

/// A ruling along `probe`.
pub const fn ruling(probe: (u32, u32)) -> Darker {
    Darker {
        probe,
        ratio: 0.95,
        min_difference: 6.0,
    }
}

fn single(image: &GrayImage, radius: u32, test: Darker) -> Mask {
    let [mask] = dark_masks(image, radius, [test]);
    mask
}

/// One mask per test, all against the mean of the `(2 radius + 1)²` box around each pixel,
/// computed once.
pub fn dark_masks<const N: usize>(image: &GrayImage, radius: u32, tests: [Darker; N]) -> [Mask; N] {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let raw = image.as_raw();
    let integral = integral_sums(image);
    let table = Integral {
        sums: &integral,
        width: w,
        height: h,
    };
    let r = radius as usize;
    // Bit i of a pixel's flags: test i holds there.
    let mut flags = vec![0u8; w * h];
    flags.par_chunks_mut(w.max(1)).enumerate().for_each_init(
        || (vec![0f32; w], vec![0f32; w]),
        |(around, here), (y, row)| {
            table.row_means(y, (r, r), around);
            for (i, test) in tests.iter().enumerate() {
                let here: &[f32] = if test.probe == (0, 0) {
                    for (value, &pixel) in here.iter_mut().zip(&raw[y * w..(y + 1) * w]) {
                        *value = pixel as f32;
                    }
                    here
                } else {
                    table.row_means(y, (test.probe.0 as usize, test.probe.1 as usize), here);
                    here
                };
                // Branch-free, so that whole runs of pixels are compared at once.
                for ((flag, &around), &here) in row.iter_mut().zip(around.iter()).zip(here) {
                    let dark = here < around * test.ratio && around - here > test.min_difference;
                    *flag |= u8::from(dark) << i;
                }
            }
        },
    );
    std::array::from_fn(|i| Mask {
        width: w,
        height: h,
        bits: flags.iter().map(|f| f & (1 << i) != 0).collect(),
    })
}

/// The integral image of `image`, with a zero row and column in front (row stride
/// `width + 1`).
fn integral_sums(image: &GrayImage) -> Vec<u32> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let raw = image.as_raw();
    let stride = w + 1;
    let mut integral = vec![0u32; stride * (h + 1)];
    for y in 0..h {
        let mut row_sum = 0u32;
        for x in 0..w {
            row_sum += raw[y * w + x] as u32;
            integral[(y + 1) * stride + x + 1] = integral[y * stride + x + 1] + row_sum;
        }
    }
    integral
}

/// An integral image ([`integral_sums`]) of a `width` x `height` grey image.
struct Integral<'a> {
    sums: &'a [u32],
    width: usize,
    height: usize,
}

impl Integral<'_> {
    /// The mean grey of the box of half sizes `(half_x, half_y)` around each pixel of row `y`
    /// (clipped at the image's borders) into `out` (one value a pixel). Inside the borders
    /// the box is whole and its sums need no clipping: those pixels are worked out in one
    /// branch-free run, the same sums and divisions as at the borders.
    fn row_means(&self, y: usize, (half_x, half_y): (usize, usize), out: &mut [f32]) {
        let (w, stride) = (self.width, self.width + 1);
        let (y0, y1) = (y.saturating_sub(half_y), (y + half_y + 1).min(self.height));
        let top = &self.sums[y0 * stride..(y0 + 1) * stride];
        let bottom = &self.sums[y1 * stride..(y1 + 1) * stride];
        let height = (y1 - y0) as f32;
        let clipped = |x: usize| {
            let (x0, x1) = (x.saturating_sub(half_x), (x + half_x + 1).min(w));
            let sum = bottom[x1] + top[x0] - top[x1] - bottom[x0];
            sum as f32 / ((x1 - x0) as f32 * height)
        };
        let inside = half_x..w.saturating_sub(half_x).max(half_x);
        for x in (0..inside.start.min(w)).chain(inside.end..w) {
            out[x] = clipped(x);
        }
        if inside.is_empty() {
            return;
        }
        let area = (2 * half_x + 1) as f32 * height;
        let lows = inside.start - half_x..inside.end - half_x;
        let highs = inside.start + half_x + 1..inside.end + half_x + 1;
        for (((value, (&b1, &t1)), &t0), &b0) in out[inside]
            .iter_mut()
            .zip(bottom[highs.clone()].iter().zip(&top[highs]))
            .zip(&top[lows.clone()])
            .zip(&bottom[lows])
        {
            *value = (b1 + t0 - t1 - b0) as f32 / area;
        }
    }
}

/// The ink pixels that lie on horizontal runs at least `min_run` long; a run may wobble by a
/// pixel up or down and jump gaps of up to `max_gap` pixels.
pub fn horizontal_runs(ink: &Mask, min_run: usize, max_gap: usize) -> Mask {
    let (w, h) = (ink.width, ink.height);
    let mut out = Mask::new(w, h);
    out.bits.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        let wobbly = |x: usize| {
            ink.get(x, y) || (y > 0 && ink.get(x, y - 1)) || (y + 1 < h && ink.get(x, y + 1))
        };
        let mut x = 0;
        while x < w {
            if !wobbly(x) {
                x += 1;
                continue;
            }
            let start = x;
            let mut end = x; // last wobbly pixel of the run
            let mut gap = 0;
            x += 1;
            while x < w {
                if wobbly(x) {
                    end = x;
                    gap = 0;
                } else {
                    gap += 1;
                    if gap > max_gap {
                        break;
                    }
                }
                x += 1;
            }
            if end + 1 - start >= min_run {
                for (i, bit) in row[start..=end].iter_mut().enumerate() {
                    *bit = ink.get(start + i, y);
                }
            }
            x = end + 1;
        }
    });
    out
}

/// Ruling lines found in a run mask, as horizontal lines (`y` of `x`); for vertical lines,
/// pass the transposed mask and read the result as `x` of `y`.
///
/// Each connected piece of the mask is fitted with a straight line (strokes of handwriting
/// touching a ruling are trimmed away as outliers), so every ruling keeps its own tilt, as
/// the rulings of a photographed sheet converge. Pieces on one line (a ruling broken by
/// faint print) are joined. `min_length`: shortest drawn stretch kept; `max_gap`: longest
/// break bridged within a line.
pub fn fit_rulings(runs: &Mask, min_length: f32, max_gap: f32) -> Vec<HLine> {
    let mut fitted = fit_pieces(runs, min_length);
    let centre = runs.width as f32 / 2.0;
    fitted.sort_by(|a, b| a.y_at(centre).total_cmp(&b.y_at(centre)));
    let mut lines: Vec<HLine> = join_collinear(fitted)
        .iter()
        .flat_map(|line| drawn_stretches(line, min_length, max_gap))
        .collect();
    lines.sort_by(|a, b| a.intercept.total_cmp(&b.intercept));
    lines
}

/// A straight fit of each connected piece of `runs` at least a quarter of `min_length`
/// long.
fn fit_pieces(runs: &Mask, min_length: f32) -> Vec<LineFit> {
    let mut fitted = Vec::new();
    for piece in connected_runs(runs) {
        let (x0, x1) = piece
            .iter()
            .fold((u32::MAX, 0), |(lo, hi), r| (lo.min(r.x0), hi.max(r.x1)));
        if ((x1 - x0 + 1) as f32) < min_length * 0.25 {
            continue;
        }
        let points: Vec<(f32, f32)> = piece
            .iter()
            .flat_map(|r| (r.x0..=r.x1).map(move |x| (x as f32, r.y as f32)))
            .collect();
        fitted.extend(trimmed_fit(&points));
    }
    fitted
}

/// Pieces that lie on one line, joined and fitted again: close where they would meet, and
/// of similar tilt. `fitted` in order of height, as each joins the nearest line above it.
fn join_collinear(fitted: Vec<LineFit>) -> Vec<LineFit> {
    let mut lines: Vec<LineFit> = Vec::new();
    for piece in fitted {
        let (px0, px1) = piece
            .points
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), p| {
                (lo.min(p.0), hi.max(p.0))
            });
        let joins = lines.iter().rposition(|line| {
            let at = |x: f32| line.y_at(x) - piece.y_at(x);
            at(px0).abs() <= 2.5 && at(px1).abs() <= 2.5 && (line.slope - piece.slope).abs() < 0.02
        });
        match joins {
            Some(g) => {
                let line = &mut lines[g];
                let before = line.points.len();
                line.points.extend(piece.points);
                match trimmed_fit(&line.points) {
                    Some(fit) => *line = fit,
                    None => line.points.truncate(before),
                }
            }
            None => lines.push(piece),
        }
    }
    lines
}

/// The stretches of `line` drawn without a break longer than `max_gap`, each at least
/// `min_length` long and mostly drawn: a string of letters that happens to align is not.
fn drawn_stretches(line: &LineFit, min_length: f32, max_gap: f32) -> Vec<HLine> {
    let mut xs: Vec<f32> = line.points.iter().map(|p| p.0).collect();
    xs.sort_by(f32::total_cmp);
    xs.dedup();
    let mut stretches = Vec::new();
    let Some(&first) = xs.first() else {
        return stretches;
    };
    let mut flush = |from: f32, to: f32, drawn: f32| {
        if to - from >= min_length && drawn >= 0.7 * (to - from) {
            stretches.push(HLine {
                intercept: line.intercept,
                slope: line.slope,
                x0: from,
                x1: to + 1.0,
            });
        }
    };
    let (mut start, mut previous, mut drawn) = (first, first, 0.0f32);
    for &x in &xs {
        if x - previous > max_gap {
            flush(start, previous, drawn);
            start = x;
            drawn = 0.0;
        }
        drawn += 1.0;
        previous = x;
    }
    flush(start, previous, drawn);
    stretches
}

/// A straight fit that drops the points far from it (handwriting touching a ruling), with
/// the points kept; `None` when too little is left or the piece is not thin.
fn trimmed_fit(points: &[(f32, f32)]) -> Option<LineFit> {
    // First through the median height of each column of points: a blob of handwriting
    // attached to a stretch of the ruling pulls a mean, not a median.
    let mut by_x = points.to_vec();
    by_x.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut medians = Vec::new();
    let mut i = 0;
    while i < by_x.len() {
        let mut j = i;
        while j < by_x.len() && by_x[j].0 == by_x[i].0 {
            j += 1;
        }
        medians.push(by_x[(i + j) / 2]);
        i = j;
    }
    let (mut intercept, mut slope) = fit_line(&medians)?;
    let mut kept = by_x;
    for tolerance in [3.0, 2.0, 1.5] {
        let close: Vec<(f32, f32)> = kept
            .iter()
            .copied()
            .filter(|&(x, y)| (y - intercept - slope * x).abs() <= tolerance)
            .collect();
        if close.len() < 8 {
            return None;
        }
        (intercept, slope) = fit_line(&close)?;
        kept = close;
    }
    Some(LineFit {
        intercept,
        slope,
        points: kept,
    })
}

/// A straight line `y = intercept + slope x` and the points it was fitted to.
struct LineFit {
    intercept: f32,
    slope: f32,
    points: Vec<(f32, f32)>,
}

impl LineFit {
    fn y_at(&self, x: f32) -> f32 {
        self.intercept + self.slope * x
    }
}

/// A horizontal run of set pixels.
#[derive(Debug, Clone, Copy)]
struct Run {
    y: u32,
    x0: u32,
    x1: u32,
}

/// The mask's runs grouped into 8-connected pieces.
fn connected_runs(mask: &Mask) -> Vec<Vec<Run>> {
    let mut runs: Vec<Run> = Vec::new();
    let mut row_start = vec![0usize; mask.height + 1];
    for (y, start) in row_start.iter_mut().take(mask.height).enumerate() {
        *start = runs.len();
        let row = &mask.bits[y * mask.width..(y + 1) * mask.width];
        let mut x = 0;
        while x < row.len() {
            if row[x] {
                let start = x;
                while x < row.len() && row[x] {
                    x += 1;
                }
                runs.push(Run {
                    y: y as u32,
                    x0: start as u32,
                    x1: (x - 1) as u32,
                });
            } else {
                x += 1;
            }
        }
    }
    row_start[mask.height] = runs.len();
    let mut parent: Vec<usize> = (0..runs.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for y in 1..mask.height {
        let (above, here) = (
            row_start[y - 1]..row_start[y],
            row_start[y]..row_start[y + 1],
        );
        let mut j = above.start;
        for i in here {
            let run = runs[i];
            while j < above.end && runs[j].x1 + 1 < run.x0 {
                j += 1;
            }
            let mut k = j;
            while k < above.end && runs[k].x0 <= run.x1 + 1 {
                let (a, b) = (root(&mut parent, i), root(&mut parent, k));
                if a != b {
                    parent[a] = b;
                }
                k += 1;
            }
        }
    }
    let mut index_of_root = vec![usize::MAX; runs.len()];
    let mut pieces: Vec<Vec<Run>> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let r = root(&mut parent, i);
        if index_of_root[r] == usize::MAX {
            index_of_root[r] = pieces.len();
            pieces.push(Vec::new());
        }
        pieces[index_of_root[r]].push(*run);
    }
    pieces
}

/// The tilt of a page's horizontal rulings (dy/dx) and of its vertical ones (dx/dy), from all
/// its ink: the rulings are the longest straight strokes, so projecting the ink along the
/// right tilt concentrates it most. Tilts up to `max_slope` (0.2 is about 11 degrees).
pub fn ink_tilts(ink: &Mask, max_slope: f32) -> (f32, f32) {
    let (w, h) = (ink.width, ink.height);
    let mut points = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if ink.bits[y * w + x] {
                points.push((x as u16, y as u16));
            }
        }
    }
    if points.len() < 16 {
        return (0.0, 0.0);
    }
    let horizontal = dominant_slope(&points, w, h, max_slope);
    let swapped: Vec<(u16, u16)> = points.iter().map(|&(x, y)| (y, x)).collect();
    let vertical = dominant_slope(&swapped, h, w, max_slope);
    (horizontal, vertical)
}

/// How concentrated the rows of the points `(xs[i], ys[i])` of a `w` x `h` image are once
/// tilted back by `slope`: the sum of the squared counts of each row.
fn concentration(xs: &[f32], ys: &[f32], slope: f32, w: usize, h: usize) -> f64 {
    let shift = (slope.abs() * w as f32).ceil() as i64 + 2;
    let mut hist = vec![0u32; h + 2 * shift as usize + 2];
    // The rows of a run of points are worked out together, then counted one by one.
    let mut rows = [0i64; 64];
    for (run_xs, run_ys) in xs.chunks(rows.len()).zip(ys.chunks(rows.len())) {
        for ((row, &x), &y) in rows.iter_mut().zip(run_xs).zip(run_ys) {
            *row = round_to_whole(y - slope * x) + shift;
        }
        for &row in &rows[..run_xs.len()] {
            if let Some(c) = hist.get_mut(row as usize) {
                *c += 1;
            }
        }
    }
    // Whole squares: every partial sum is a whole number far below 2^53, so the sum is exact
    // in any order, as in floating point one by one.
    hist.iter()
        .map(|&c| u64::from(c) * u64::from(c))
        .sum::<u64>() as f64
}

/// The tilt (dy/dx) within `max_slope` that makes the points' rows most concentrated.
fn dominant_slope(points: &[(u16, u16)], w: usize, h: usize, max_slope: f32) -> f32 {
    let step = (points.len() / 30_000).max(1);
    let (xs, ys): (Vec<f32>, Vec<f32>) = points
        .iter()
        .step_by(step)
        .map(|&(x, y)| (f32::from(x), f32::from(y)))
        .unzip();
    let score = |slope: f32| concentration(&xs, &ys, slope, w, h);
    let coarse_step = max_slope / 32.0;
    let coarse: Vec<f32> = (-32..=32).map(|i| i as f32 * coarse_step).collect();
    let best = coarse
        .par_iter()
        .map(|&s| (s, score(s)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(s, _)| s)
        .unwrap_or(0.0);
    (-5..=5)
        .map(|i| best + i as f32 * coarse_step / 5.0)
        .map(|s| (s, score(s)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(s, _)| s)
        .unwrap_or(best)
}

/// Vertical rulings: the horizontal search on the transposed mask, read back as `x` of `y`.
pub fn fit_vertical_rulings(runs_transposed: &Mask, min_length: f32, max_gap: f32) -> Vec<VLine> {
    fit_rulings(runs_transposed, min_length, max_gap)
        .into_iter()
        .map(|l| VLine {
            intercept: l.intercept,
            slope: l.slope,
            y0: l.x0,
            y1: l.x1,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    /// `dark_masks` as first written, pixel by pixel with the box clipped at every pixel.
    fn dark_masks_reference<const N: usize>(
        image: &GrayImage,
        radius: u32,
        tests: [Darker; N],
    ) -> [Mask; N] {
        let (w, h) = (image.width() as usize, image.height() as usize);
        let pixel = |x: usize, y: usize| image.get_pixel(x as u32, y as u32).0[0] as u32;
        let mean = |x: usize, y: usize, (half_x, half_y): (usize, usize)| {
            let (x0, x1) = (x.saturating_sub(half_x), (x + half_x + 1).min(w));
            let (y0, y1) = (y.saturating_sub(half_y), (y + half_y + 1).min(h));
            let sum: u32 = (y0..y1)
                .flat_map(|yy| (x0..x1).map(move |xx| (xx, yy)))
                .map(|(xx, yy)| pixel(xx, yy))
                .sum();
            sum as f32 / ((x1 - x0) as f32 * (y1 - y0) as f32)
        };
        // The means themselves, to the bit: the masks alone seldom show a last-bit slip.
        let integral = integral_sums(image);
        let table = Integral {
            sums: &integral,
            width: w,
            height: h,
        };
        let mut row = vec![0f32; w];
        for half in [(radius as usize, radius as usize), (3, 0), (0, 2), (40, 1)] {
            for y in 0..h {
                table.row_means(y, half, &mut row);
                for (x, value) in row.iter().enumerate() {
                    assert_eq!(
                        value.to_bits(),
                        mean(x, y, half).to_bits(),
                        "{x} {y} {half:?}"
                    );
                }
            }
        }
        let r = radius as usize;
        std::array::from_fn(|i| {
            let test = tests[i];
            let mut mask = Mask::new(w, h);
            for y in 0..h {
                for x in 0..w {
                    let around = mean(x, y, (r, r));
                    let here = if test.probe == (0, 0) {
                        pixel(x, y) as f32
                    } else {
                        mean(x, y, (test.probe.0 as usize, test.probe.1 as usize))
                    };
                    if here < around * test.ratio && around - here > test.min_difference {
                        mask.bits[y * w + x] = true;
                    }
                }
            }
            mask
        })
    }

    #[test]
    fn row_concentration_is_the_sum_of_squares_counted_one_by_one() {
        let mut rng = crate::synth::Rng::new(4);
        let (w, h) = (900usize, 1300usize);
        let points: Vec<(f32, f32)> = (0..5_000u64)
            .map(|i| {
                let x = rng.below(w) as f32;
                // Half on a few tilted lines, half anywhere.
                let y = if i % 2 == 0 {
                    (100 * (i % 7)) as f32 + 0.03 * x
                } else {
                    rng.below(h) as f32
                };
                (x, y.floor())
            })
            .collect();
        let (xs, ys): (Vec<f32>, Vec<f32>) = points.iter().copied().unzip();
        for slope in [-0.06f32, -0.0312, 0.0, 0.0287, 0.03, 0.059] {
            let shift = (slope.abs() * w as f32).ceil() as i64 + 2;
            let mut hist = vec![0u32; h + 2 * shift as usize + 2];
            for &(x, y) in &points {
                let row = (y - slope * x).round() as i64 + shift;
                if let Some(c) = hist.get_mut(row as usize) {
                    *c += 1;
                }
            }
            let expected: f64 = hist.iter().map(|&c| (c as f64) * (c as f64)).sum();
            assert_eq!(concentration(&xs, &ys, slope, w, h), expected, "{slope}");
        }
    }

    #[test]
    fn dark_masks_are_those_of_boxes_clipped_pixel_by_pixel() {
        let mut rng = crate::synth::Rng::new(9);
        // Narrower and wider than the boxes, and a single row or column.
        for (w, h) in [(40, 30), (5, 17), (1, 9), (23, 1), (64, 64)] {
            let image = GrayImage::from_fn(w, h, |_, _| Luma([rng.below(256) as u8]));
            for radius in [0, 2, 6] {
                let tests = [INK, PRINTED, WRITING, ruling((3, 0)), ruling((0, 2))];
                assert_eq!(
                    dark_masks(&image, radius, tests),
                    dark_masks_reference(&image, radius, tests),
                    "{w} x {h}, radius {radius}"
                );
            }
        }
    }

    #[test]
    fn finds_tilted_lines_and_ignores_short_strokes() {
        let (w, h) = (400u32, 300u32);
        let image = GrayImage::from_fn(w, h, |x, y| {
            let (xf, yf) = (x as f32, y as f32);
            let on_line = [40.0f32, 100.0, 160.0, 220.0]
                .iter()
                .any(|&y0| (yf - (y0 + 0.02 * xf)).abs() < 1.0 && x > 20 && x < 380);
            // A short handwritten dash between two lines.
            let dash = (128..140).contains(&y) && (200..225).contains(&x) && y == 130;
            Luma([if on_line || dash { 40 } else { 230 }])
        });
        let ink = ink_mask(&image, 10);
        let runs = horizontal_runs(&ink, 40, 2);
        let lines = fit_rulings(&runs, 60.0, 12.0);
        assert_eq!(lines.len(), 4, "{lines:?}");
        for (line, y0) in lines.iter().zip([40.0, 100.0, 160.0, 220.0]) {
            assert!((line.y_at(200.0) - (y0 + 4.0)).abs() < 1.0, "{line:?}");
            assert!((line.slope - 0.02).abs() < 0.003, "{line:?}");
            assert!(line.x0 < 30.0 && line.x1 > 370.0, "{line:?}");
        }
    }
}
