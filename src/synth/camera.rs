//! What scanners and phone cameras do to a sheet: perspective, rotation, a desk around the page,
//! uneven light and shadow, colour cast, blur and sensor noise. JPEG comes when the image is
//! saved.

use image::{Rgb, RgbImage};
use imageproc::filter::gaussian_blur_f32;
use imageproc::geometric_transformations::Projection;
use rayon::prelude::*;

use super::rng::Rng;

/// A captured sheet: the image, and where the page's pixels went.
pub struct Shot {
    pub image: RgbImage,
    /// Page pixel coordinates to image pixel coordinates.
    pub page_to_image: Projection,
    /// The page's corners in the image: top-left, top-right, bottom-right, bottom-left.
    pub page_quad: [[f32; 2]; 4],
    /// What was done, for the truth file.
    pub effects: Vec<String>,
    /// JPEG quality to save with.
    pub jpeg_quality: u8,
}

/// How the sheet was captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    Scan,
    Photo,
}

impl Capture {
    pub fn name(self) -> &'static str {
        match self {
            Capture::Scan => "scan",
            Capture::Photo => "photo",
        }
    }
}

fn uniform(rng: &mut Rng, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * rng.unit() as f32
}

/// Maps `page` into an image of `size` through `quad` (page corners in the image), filling the
/// rest with `background(x, y)`; the page edge is antialiased.
fn place_page(
    page: &RgbImage,
    size: (u32, u32),
    quad: [[f32; 2]; 4],
    background: &(dyn Fn(u32, u32) -> [f32; 3] + Sync),
) -> Option<(RgbImage, Projection)> {
    let (pw, ph) = (page.width() as f32, page.height() as f32);
    let corners = [(0.0, 0.0), (pw, 0.0), (pw, ph), (0.0, ph)];
    let to_image = Projection::from_control_points(corners, quad.map(|[x, y]| (x, y)))?;
    let to_page = to_image.invert();
    let (w, h) = size;
    let mut out = RgbImage::new(w, h);
    out.par_chunks_mut(w as usize * 3)
        .enumerate()
        .for_each(|(y, row)| {
            for x in 0..w as usize {
                let (u, v) = to_page * (x as f32 + 0.5, y as f32 + 0.5);
                let inside = (u.min(pw - u).min(v).min(ph - v) + 0.5).clamp(0.0, 1.0);
                let back = background(x as u32, y as u32);
                let paper = if inside > 0.0 {
                    bilinear(page, u, v)
                } else {
                    back
                };
                for c in 0..3 {
                    let value = paper[c] * inside + back[c] * (1.0 - inside);
                    row[x * 3 + c] = value.round().clamp(0.0, 255.0) as u8;
                }
            }
        });
    Some((out, to_image))
}

fn bilinear(image: &RgbImage, u: f32, v: f32) -> [f32; 3] {
    let (w, h) = (image.width() as i64, image.height() as i64);
    let (x, y) = (u - 0.5, v - 0.5);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let px = |xi: i64, yi: i64| {
        image
            .get_pixel(xi.clamp(0, w - 1) as u32, yi.clamp(0, h - 1) as u32)
            .0
    };
    let (x0, y0) = (x0 as i64, y0 as i64);
    let (a, b, c, d) = (
        px(x0, y0),
        px(x0 + 1, y0),
        px(x0, y0 + 1),
        px(x0 + 1, y0 + 1),
    );
    let mut out = [0.0; 3];
    for i in 0..3 {
        let top = a[i] as f32 * (1.0 - fx) + b[i] as f32 * fx;
        let bottom = c[i] as f32 * (1.0 - fx) + d[i] as f32 * fx;
        out[i] = top * (1.0 - fy) + bottom * fy;
    }
    out
}

/// A scanner: the page flat on the glass, a little skewed, even light.
pub fn scan(page: &RgbImage, rng: &mut Rng) -> Option<Shot> {
    let (pw, ph) = (page.width() as f32, page.height() as f32);
    let angle = uniform(rng, -1.5, 1.5).to_radians();
    let scale = uniform(rng, 0.96, 1.0);
    let (cx, cy) = (
        pw / 2.0 + uniform(rng, -0.01, 0.01) * pw,
        ph / 2.0 + uniform(rng, -0.01, 0.01) * ph,
    );
    let (sin, cos) = angle.sin_cos();
    let quad = [(0.0, 0.0), (pw, 0.0), (pw, ph), (0.0, ph)].map(|(x, y)| {
        let (dx, dy) = ((x - pw / 2.0) * scale, (y - ph / 2.0) * scale);
        [cx + dx * cos - dy * sin, cy + dx * sin + dy * cos]
    });
    let lid = if rng.chance(0.7) { 245.0 } else { 35.0 };
    let (mut image, to_image) =
        place_page(page, (page.width(), page.height()), quad, &|_, _| [lid; 3])?;
    let mut effects = vec![format!("skew {:.2} deg", angle.to_degrees())];
    let sigma = uniform(rng, 0.2, 0.7);
    image = gaussian_blur_f32(&image, sigma);
    effects.push(format!("blur {sigma:.2}"));
    let grey = rng.chance(0.4);
    let noise = uniform(rng, 1.0, 4.0);
    finish(&mut image, rng, noise, [1.0; 3], grey, &|_, _| 1.0);
    effects.push(format!("noise {noise:.1}"));
    if grey {
        effects.push("greyscale".into());
    }
    Some(Shot {
        image,
        page_to_image: to_image,
        page_quad: quad,
        effects,
        jpeg_quality: 80 + rng.below(16) as u8,
    })
}

/// A phone photo of the sheet on a desk: perspective, rotation, uneven light, a shadow.
pub fn photograph(page: &RgbImage, rng: &mut Rng) -> Option<Shot> {
    let pose = HandHeldPose::draw(page, rng);
    let background = desk_background(rng);
    let (mut image, to_image) = place_page(page, pose.frame, pose.quad, &background)?;
    let mut effects = vec![
        format!("rotation {:.1} deg", pose.angle.to_degrees()),
        format!("perspective {:.3}", pose.tilt),
    ];
    let lighting = Lighting::draw(rng);
    if lighting.shadow.is_some() {
        effects.push("shadow".into());
    }
    effects.push(format!("uneven light {:.2}", lighting.falloff));
    let (fw, fh) = (pose.frame.0 as f32, pose.frame.1 as f32);
    let light = move |x: u32, y: u32| lighting.at(x as f32 / fw - 0.5, y as f32 / fh - 0.5);
    let cast = [uniform(rng, 0.92, 1.06), 1.0, uniform(rng, 0.88, 1.04)];
    let sigma = uniform(rng, 0.4, 1.5);
    image = gaussian_blur_f32(&image, sigma);
    effects.push(format!("blur {sigma:.2}"));
    let noise = uniform(rng, 2.0, 8.0);
    finish(&mut image, rng, noise, cast, false, &light);
    effects.push(format!("noise {noise:.1}"));
    Some(Shot {
        image,
        page_to_image: to_image,
        page_quad: pose.quad,
        effects,
        jpeg_quality: 55 + rng.below(36) as u8,
    })
}

/// Where a hand-held camera puts the page: the photo's size in pixels, the page's corners in
/// it (clockwise from top left, all inside the frame), and the rotation (radians) and tilt
/// (0 to 0.07, the share by which the near side of the page is wider) that placed them.
struct HandHeldPose {
    frame: (u32, u32),
    quad: [[f32; 2]; 4],
    angle: f32,
    tilt: f32,
}

impl HandHeldPose {
    fn draw(page: &RgbImage, rng: &mut Rng) -> HandHeldPose {
        let (pw, ph) = (page.width() as f32, page.height() as f32);
        let (w, h) = (
            (pw * uniform(rng, 1.05, 1.3)) as u32,
            (ph * uniform(rng, 1.05, 1.25)) as u32,
        );
        let fill = uniform(rng, 0.72, 0.94);
        let scale = fill * (w as f32 / pw).min(h as f32 / ph);
        let angle = uniform(rng, -7.0, 7.0).to_radians();
        let (sin, cos) = angle.sin_cos();
        let (cx, cy) = (
            w as f32 / 2.0 + uniform(rng, -0.04, 0.04) * w as f32,
            h as f32 / 2.0 + uniform(rng, -0.04, 0.04) * h as f32,
        );
        let tilt = uniform(rng, 0.0, 0.07);
        // A camera held above the sheet at a slant: one side of the page nearer, so wider.
        let (near_x, near_y) = (
            uniform(rng, -1.0, 1.0) * tilt,
            uniform(rng, -1.0, 1.0) * tilt,
        );
        let quad = [(0.0, 0.0), (pw, 0.0), (pw, ph), (0.0, ph)].map(|(x, y)| {
            let (nx, ny) = (x / pw - 0.5, y / ph - 0.5);
            let widen = 1.0 + near_x * ny * 2.0 + near_y * nx * 2.0;
            let (dx, dy) = (nx * pw * scale * widen, ny * ph * scale * widen);
            let jitter = pw * scale * 0.012;
            [
                cx + dx * cos - dy * sin + uniform(rng, -jitter, jitter),
                cy + dx * sin + dy * cos + uniform(rng, -jitter, jitter),
            ]
        });
        HandHeldPose {
            frame: (w, h),
            quad: fit_inside(quad, w as f32, h as f32),
            angle,
            tilt,
        }
    }
}

/// A desk's colour at each pixel of the photo: a wood or cloth tone with a faint wavy grain.
fn desk_background(rng: &mut Rng) -> impl Fn(u32, u32) -> [f32; 3] + Sync {
    let desk = desk_colour(rng);
    let grain = uniform(rng, 0.0, 0.12);
    let grain_freq = uniform(rng, 0.01, 0.05);
    let grain_phase = uniform(rng, 0.0, std::f32::consts::TAU);
    move |x: u32, y: u32| {
        let wave =
            ((y as f32 * grain_freq + (x as f32 * 0.003).sin() * 3.0 + grain_phase).sin()) * grain;
        desk.map(|c| c * (1.0 + wave))
    }
}

/// The light on a photographed sheet: it falls off across the sheet from one side
/// (`falloff` 0.05 to 0.3 of full light), and sometimes a hand or phone casts a soft shadow.
struct Lighting {
    direction: f32,
    falloff: f32,
    shadow: Option<Shadow>,
}

/// A soft shadow's edge: its direction (radians), how dark it makes the sheet (0.15 to 0.45),
/// the edge's offset from the centre and its softness, both in shares of the frame.
#[derive(Clone, Copy)]
struct Shadow {
    direction: f32,
    depth: f32,
    offset: f32,
    softness: f32,
}

impl Lighting {
    fn draw(rng: &mut Rng) -> Lighting {
        let direction = uniform(rng, 0.0, std::f32::consts::TAU);
        let falloff = uniform(rng, 0.05, 0.3);
        let shadow = rng.chance(0.45).then(|| Shadow {
            direction: uniform(rng, 0.0, std::f32::consts::TAU),
            depth: uniform(rng, 0.15, 0.45),
            offset: uniform(rng, -0.3, 0.3),
            softness: uniform(rng, 0.02, 0.12),
        });
        Lighting {
            direction,
            falloff,
            shadow,
        }
    }

    /// The light (about 0.4 to 1) at a point of the frame, `nx` and `ny` from -0.5 to 0.5
    /// across it.
    fn at(&self, nx: f32, ny: f32) -> f32 {
        let along = nx * self.direction.cos() + ny * self.direction.sin();
        let mut l = 1.0 - self.falloff * (along + 0.5) - 0.15 * (nx * nx + ny * ny);
        if let Some(shadow) = self.shadow {
            let side = nx * shadow.direction.cos() + ny * shadow.direction.sin() - shadow.offset;
            let t = (side / shadow.softness).clamp(-1.0, 1.0) * 0.5 + 0.5;
            l *= 1.0 - shadow.depth * t;
        }
        l
    }
}

/// Shrinks `quad` about the image centre until it lies inside a `w` x `h` image with a small
/// margin: the whole sheet is in the photo.
fn fit_inside(quad: [[f32; 2]; 4], w: f32, h: f32) -> [[f32; 2]; 4] {
    let margin = 0.01 * w.min(h);
    let (cx, cy) = (w / 2.0, h / 2.0);
    let mut shrink = 1.0f32;
    for [x, y] in quad {
        for (value, centre, limit) in [(x, cx, w), (y, cy, h)] {
            let reach = (value - centre).abs();
            let room = centre.min(limit - centre) - margin;
            if reach > room && reach > 0.0 {
                shrink = shrink.min(room / reach);
            }
        }
    }
    quad.map(|[x, y]| [cx + (x - cx) * shrink, cy + (y - cy) * shrink])
}

fn desk_colour(rng: &mut Rng) -> [f32; 3] {
    let desks = [
        [120.0, 82.0, 50.0],
        [160.0, 120.0, 80.0],
        [70.0, 70.0, 75.0],
        [200.0, 200.0, 195.0],
        [40.0, 35.0, 30.0],
        [95.0, 110.0, 120.0],
    ];
    let base = desks[rng.below(desks.len())];
    let shade = uniform(rng, 0.8, 1.15);
    base.map(|c| c * shade)
}

/// Light, colour cast and sensor noise, per pixel; `grey` makes a greyscale image.
fn finish(
    image: &mut RgbImage,
    rng: &mut Rng,
    noise: f32,
    cast: [f32; 3],
    grey: bool,
    light: &(dyn Fn(u32, u32) -> f32 + Sync),
) {
    let w = image.width() as usize;
    let seed = rng.next_u64();
    image
        .par_chunks_mut(w * 3)
        .enumerate()
        .for_each(|(y, row)| {
            let mut row_rng = Rng::new(seed ^ (y as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            for x in 0..w {
                let l = light(x as u32, y as u32);
                let jitter = gaussian(&mut row_rng) * noise;
                let mut px = [0.0f32; 3];
                for c in 0..3 {
                    px[c] = row[x * 3 + c] as f32 * l * cast[c] + jitter;
                }
                if grey {
                    let v = 0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2];
                    px = [v; 3];
                }
                for c in 0..3 {
                    row[x * 3 + c] = px[c].round().clamp(0.0, 255.0) as u8;
                }
            }
        });
}

/// A standard normal sample (Box–Muller).
pub fn gaussian(rng: &mut Rng) -> f32 {
    let u = rng.unit().max(1e-12);
    let v = rng.unit();
    ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
}

/// Maps a page point to the image.
pub fn to_image(shot: &Shot, x: f32, y: f32) -> [f32; 2] {
    let (u, v) = shot.page_to_image * (x, y);
    [u, v]
}

/// The pixel of a paper colour given in floating point.
pub fn paper_pixel(tint: [f32; 3]) -> Rgb<u8> {
    Rgb(tint.map(|c| c.round().clamp(0.0, 255.0) as u8))
}
