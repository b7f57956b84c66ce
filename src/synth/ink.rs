//! Ink on paper: a layer that pen strokes and glyphs are drawn into (coverage, 0..1), then laid
//! on the page in one go, so that touching strokes never darken twice.

use image::RgbImage;

use super::glyphs::InkMask;

/// Coverage over a window of the page, `alpha[(y - y0) * width + (x - x0)]`.
#[derive(Debug, Clone)]
pub struct InkLayer {
    pub x0: i64,
    pub y0: i64,
    pub width: usize,
    pub height: usize,
    pub alpha: Vec<f32>,
}

/// A 2-D affine map `(x, y) -> (a x + b y + c, d x + e y + f)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Affine {
    pub m: [f32; 6],
}

impl Affine {
    pub fn apply(&self, x: f32, y: f32) -> (f32, f32) {
        let m = &self.m;
        (m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5])
    }

    /// The inverse map; `None` when the map squashes the plane.
    pub fn inverse(&self) -> Option<Affine> {
        let [a, b, c, d, e, f] = self.m;
        let det = a * e - b * d;
        if det.abs() < 1e-9 {
            return None;
        }
        let (ia, ib, id, ie) = (e / det, -b / det, -d / det, a / det);
        Some(Affine {
            m: [ia, ib, -(ia * c + ib * f), id, ie, -(id * c + ie * f)],
        })
    }
}

/// A smooth random displacement, the small wobble that makes every copy of a letter differ
/// (elastic distortion built from a few low-frequency waves rather than a blurred noise field).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wobble {
    pub amplitude: f32,
    pub frequency: [f32; 2],
    pub phase: [f32; 2],
}

impl Wobble {
    pub const NONE: Wobble = Wobble {
        amplitude: 0.0,
        frequency: [0.0; 2],
        phase: [0.0; 2],
    };

    fn displace(&self, u: f32, v: f32) -> (f32, f32) {
        if self.amplitude == 0.0 {
            return (u, v);
        }
        (
            u + self.amplitude * (v * self.frequency[0] + self.phase[0]).sin(),
            v + self.amplitude * (u * self.frequency[1] + self.phase[1]).sin(),
        )
    }
}

impl InkLayer {
    pub fn new(x0: i64, y0: i64, width: usize, height: usize) -> InkLayer {
        InkLayer {
            x0,
            y0,
            width,
            height,
            alpha: vec![0.0; width * height],
        }
    }

    fn put(&mut self, x: i64, y: i64, a: f32) {
        let (lx, ly) = (x - self.x0, y - self.y0);
        if lx < 0 || ly < 0 || lx >= self.width as i64 || ly >= self.height as i64 {
            return;
        }
        let cell = &mut self.alpha[ly as usize * self.width + lx as usize];
        *cell = cell.max(a);
    }

    /// Draws `mask` through `to_page` (mask pixel coordinates to page pixels).
    /// `cut` (0 to below 1) trims the mask's soft edge for a finer stroke; `gain` darkens it.
    pub fn draw_mask(
        &mut self,
        mask: &InkMask,
        to_page: Affine,
        wobble: Wobble,
        gain: f32,
        cut: f32,
    ) {
        let cut = cut.clamp(0.0, 0.95);
        let Some(to_mask) = to_page.inverse() else {
            return;
        };
        let (w, h) = (mask.width as f32, mask.height as f32);
        let corners = [(0.0, 0.0), (w, 0.0), (0.0, h), (w, h)].map(|(x, y)| to_page.apply(x, y));
        let margin = wobble.amplitude.abs() * 2.0 + 1.0;
        let x_lo = corners.iter().map(|c| c.0).fold(f32::INFINITY, f32::min) - margin;
        let x_hi = corners
            .iter()
            .map(|c| c.0)
            .fold(f32::NEG_INFINITY, f32::max)
            + margin;
        let y_lo = corners.iter().map(|c| c.1).fold(f32::INFINITY, f32::min) - margin;
        let y_hi = corners
            .iter()
            .map(|c| c.1)
            .fold(f32::NEG_INFINITY, f32::max)
            + margin;
        let x_lo = (x_lo.floor() as i64).max(self.x0);
        let y_lo = (y_lo.floor() as i64).max(self.y0);
        let x_hi = (x_hi.ceil() as i64).min(self.x0 + self.width as i64);
        let y_hi = (y_hi.ceil() as i64).min(self.y0 + self.height as i64);
        for y in y_lo..y_hi {
            for x in x_lo..x_hi {
                let (u, v) = to_mask.apply(x as f32 + 0.5, y as f32 + 0.5);
                let (u, v) = wobble.displace(u, v);
                let a = (mask.sample(u, v) - cut) / (1.0 - cut);
                if a > 0.0 {
                    self.put(x, y, (a * gain).min(1.0));
                }
            }
        }
    }

    /// A pen stroke through `points` (page pixels), `width` pixels wide, antialiased.
    pub fn draw_stroke(&mut self, points: &[(f32, f32)], width: f32) {
        let radius = (width / 2.0).max(0.5);
        for pair in points.windows(2) {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            let length = ((x1 - x0).powi(2) + (y1 - y0).powi(2)).sqrt();
            let (lo_x, hi_x) = (x0.min(x1) - radius - 1.0, x0.max(x1) + radius + 1.0);
            let (lo_y, hi_y) = (y0.min(y1) - radius - 1.0, y0.max(y1) + radius + 1.0);
            for y in lo_y.floor() as i64..=hi_y.ceil() as i64 {
                for x in lo_x.floor() as i64..=hi_x.ceil() as i64 {
                    let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
                    let t = if length < 1e-6 {
                        0.0
                    } else {
                        (((px - x0) * (x1 - x0) + (py - y0) * (y1 - y0)) / (length * length))
                            .clamp(0.0, 1.0)
                    };
                    let (cx, cy) = (x0 + t * (x1 - x0), y0 + t * (y1 - y0));
                    let distance = ((px - cx).powi(2) + (py - cy).powi(2)).sqrt();
                    let a = (radius + 0.5 - distance).clamp(0.0, 1.0);
                    if a > 0.0 {
                        self.put(x, y, a);
                    }
                }
            }
        }
    }

    /// Lays the ink on `page` in `colour` at `opacity`: the paper darkens towards the ink.
    pub fn lay_on(&self, page: &mut RgbImage, colour: [u8; 3], opacity: f32) {
        let (pw, ph) = (page.width() as i64, page.height() as i64);
        for ly in 0..self.height {
            let y = self.y0 + ly as i64;
            if y < 0 || y >= ph {
                continue;
            }
            for lx in 0..self.width {
                let x = self.x0 + lx as i64;
                let a = self.alpha[ly * self.width + lx] * opacity;
                if a <= 0.0 || x < 0 || x >= pw {
                    continue;
                }
                let pixel = page.get_pixel_mut(x as u32, y as u32);
                for (channel, ink) in pixel.0.iter_mut().zip(colour) {
                    let paper = *channel as f32;
                    // Ink is a filter over the paper: it can only darken.
                    let inked = paper * (1.0 - a) + (ink as f32).min(paper) * a;
                    *channel = inked.round() as u8;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl InkLayer {
        /// The inked bounding box `(x, y, w, h)` in page pixels, if anything is inked.
        pub fn ink_box(&self) -> Option<(i64, i64, i64, i64)> {
            let (mut x0, mut y0, mut x1, mut y1) = (i64::MAX, i64::MAX, i64::MIN, i64::MIN);
            for y in 0..self.height {
                for x in 0..self.width {
                    if self.alpha[y * self.width + x] > 0.3 {
                        x0 = x0.min(x as i64);
                        y0 = y0.min(y as i64);
                        x1 = x1.max(x as i64 + 1);
                        y1 = y1.max(y as i64 + 1);
                    }
                }
            }
            (x1 > x0).then(|| (self.x0 + x0, self.y0 + y0, x1 - x0, y1 - y0))
        }
    }

    #[test]
    fn affine_inverse_round_trips() {
        let map = Affine {
            m: [1.5, 0.3, 10.0, -0.2, 0.8, -4.0],
        };
        let inverse = map.inverse().unwrap();
        let (x, y) = map.apply(3.0, 7.0);
        let (u, v) = inverse.apply(x, y);
        assert!((u - 3.0).abs() < 1e-4 && (v - 7.0).abs() < 1e-4);
    }

    #[test]
    fn strokes_cover_their_path_and_ink_only_darkens() {
        let mut layer = InkLayer::new(0, 0, 20, 10);
        layer.draw_stroke(&[(2.0, 5.0), (18.0, 5.0)], 2.0);
        assert_eq!(layer.ink_box(), Some((1, 4, 18, 2)));
        let mut page = RgbImage::from_pixel(20, 10, image::Rgb([200, 200, 200]));
        page.put_pixel(10, 5, image::Rgb([10, 10, 10]));
        layer.lay_on(&mut page, [20, 40, 140], 1.0);
        assert_eq!(page.get_pixel(10, 5).0, [10, 10, 10]);
        assert_eq!(page.get_pixel(5, 4).0, [20, 40, 140]);
        assert_eq!(page.get_pixel(5, 0).0, [200, 200, 200]);
    }
}
