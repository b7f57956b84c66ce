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

    pub fn transposed(&self) -> Mask {
        let mut out = Mask::new(self.height, self.width);
        for y in 0..self.height {
            for x in 0..self.width {
                out.bits[x * self.height + y] = self.bits[y * self.width + x];
            }
        }
        out
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
            .map(|y| self.bits[y * self.width + x0..y * self.width + x1.max(x0)].iter().filter(|b| **b).count())
            .sum()
    }
}

/// Ink: pixels clearly darker than the mean of the `(2 radius + 1)²` box around them.
pub fn ink_mask(image: &GrayImage, radius: u32) -> Mask {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let raw = image.as_raw();
    // Integral image with a zero row and column in front.
    let mut integral = vec![0u64; (w + 1) * (h + 1)];
    for y in 0..h {
        let mut row_sum = 0u64;
        for x in 0..w {
            row_sum += raw[y * w + x] as u64;
            integral[(y + 1) * (w + 1) + x + 1] = integral[y * (w + 1) + x + 1] + row_sum;
        }
    }
    let r = radius as i64;
    let mut mask = Mask::new(w, h);
    mask.bits
        .par_chunks_mut(w)
        .enumerate()
        .for_each(|(y, row)| {
            let (y0, y1) = ((y as i64 - r).max(0) as usize, (y as i64 + r + 1).min(h as i64) as usize);
            for (x, bit) in row.iter_mut().enumerate() {
                let (x0, x1) = ((x as i64 - r).max(0) as usize, (x as i64 + r + 1).min(w as i64) as usize);
                let sum = integral[y1 * (w + 1) + x1] + integral[y0 * (w + 1) + x0]
                    - integral[y0 * (w + 1) + x1]
                    - integral[y1 * (w + 1) + x0];
                let mean = sum as f32 / ((x1 - x0) * (y1 - y0)) as f32;
                let v = raw[y * w + x] as f32;
                *bit = v < mean * 0.86 && mean - v > 12.0;
            }
        });
    mask
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
/// `min_length`: shortest drawn stretch kept; `max_gap`: longest break bridged within a line.
pub fn fit_rulings(runs: &Mask, min_length: f32, max_gap: f32) -> Vec<HLine> {
    let (w, h) = (runs.width, runs.height);
    let mut points: Vec<(u16, u16)> = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if runs.bits[y * w + x] {
                points.push((x as u16, y as u16));
            }
        }
    }
    if points.len() < 16 {
        return Vec::new();
    }
    let slope = dominant_slope(&points, w, h);
    // Bins of y - slope x, shifted to stay non-negative.
    let shift = (slope.abs() * w as f32).ceil() as i64 + 2;
    let bins = h + 2 * shift as usize + 2;
    let bin_of = |x: u16, y: u16| (y as f32 - slope * x as f32).round() as i64 + shift;
    let mut by_bin: Vec<Vec<u32>> = vec![Vec::new(); bins];
    for (i, &(x, y)) in points.iter().enumerate() {
        let b = bin_of(x, y);
        if (0..bins as i64).contains(&b) {
            by_bin[b as usize].push(i as u32);
        }
    }
    let counts: Vec<f32> = (0..bins)
        .map(|b| {
            let c = |i: i64| {
                if (0..bins as i64).contains(&i) {
                    by_bin[i as usize].len() as f32
                } else {
                    0.0
                }
            };
            c(b as i64 - 1) * 0.5 + c(b as i64) + c(b as i64 + 1) * 0.5
        })
        .collect();
    let min_support = min_length * 0.6;
    let mut lines = Vec::new();
    for b in 0..bins {
        let c = counts[b];
        if c < min_support {
            continue;
        }
        let lo = b.saturating_sub(3);
        let hi = (b + 3).min(bins - 1);
        // A plateau counts once: its first bin.
        if (lo..=hi).any(|o| counts[o] > c || (o < b && counts[o] == c)) {
            continue;
        }
        let gather = |range: std::ops::RangeInclusive<usize>| -> Vec<(f32, f32)> {
            range
                .flat_map(|o| by_bin[o].iter())
                .map(|&i| {
                    let (x, y) = points[i as usize];
                    (x as f32, y as f32)
                })
                .collect()
        };
        let near = gather(b.saturating_sub(2)..=(b + 2).min(bins - 1));
        let Some((mut intercept, mut line_slope)) = fit_line(&near) else {
            continue;
        };
        // Refit from a wider band, keeping the points close to the first fit: a line whose
        // own tilt differs from the page's leaves the narrow band at its ends.
        let wide = gather(b.saturating_sub(8)..=(b + 8).min(bins - 1));
        let close: Vec<(f32, f32)> = wide
            .iter()
            .copied()
            .filter(|&(x, y)| (y - intercept - line_slope * x).abs() <= 2.0)
            .collect();
        if let Some(refit) = fit_line(&close) {
            (intercept, line_slope) = refit;
        }
        let mut xs: Vec<f32> = close.iter().map(|p| p.0).collect();
        xs.sort_by(f32::total_cmp);
        let mut start = match xs.first() {
            Some(&x) => x,
            None => continue,
        };
        let mut previous = start;
        let mut covered = 0.0;
        let mut segment_start_covered = 0.0;
        let flush = |from: f32, to: f32, drawn: f32, lines: &mut Vec<HLine>| {
            // Most of a ruling line is drawn; a string of letters that happens to align is not.
            if to - from >= min_length && drawn >= 0.5 * (to - from) {
                lines.push(HLine {
                    intercept,
                    slope: line_slope,
                    x0: from,
                    x1: to + 1.0,
                });
            }
        };
        let mut last_x = f32::NAN;
        for &x in &xs {
            if x - previous > max_gap {
                flush(start, previous, covered - segment_start_covered, &mut lines);
                start = x;
                segment_start_covered = covered;
            }
            if x != last_x {
                covered += 1.0;
                last_x = x;
            }
            previous = x;
        }
        flush(start, previous, covered - segment_start_covered, &mut lines);
    }
    lines.sort_by(|a, b| a.intercept.total_cmp(&b.intercept));
    lines
}

/// The tilt (dy/dx) that makes the run pixels' rows most concentrated.
fn dominant_slope(points: &[(u16, u16)], w: usize, h: usize) -> f32 {
    let step = (points.len() / 60_000).max(1);
    let sample: Vec<(u16, u16)> = points.iter().step_by(step).copied().collect();
    let score = |slope: f32| -> f64 {
        let shift = (slope.abs() * w as f32).ceil() as i64 + 2;
        let mut hist = vec![0u32; h + 2 * shift as usize + 2];
        for &(x, y) in &sample {
            let b = (y as f32 - slope * x as f32).round() as i64 + shift;
            if let Some(c) = hist.get_mut(b as usize) {
                *c += 1;
            }
        }
        hist.iter().map(|&c| (c as f64) * (c as f64)).sum()
    };
    let coarse: Vec<f32> = (-32..=32).map(|i| i as f32 * 0.0025).collect();
    let best = coarse
        .par_iter()
        .map(|&s| (s, score(s)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(s, _)| s)
        .unwrap_or(0.0);
    (-5..=5)
        .map(|i| best + i as f32 * 0.0005)
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
