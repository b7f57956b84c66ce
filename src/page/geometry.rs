//! Plane geometry the page stage needs: quadrilaterals, ruling lines fitted as straight lines,
//! the overlap of two convex polygons, and projective maps applied a row at a time.

use imageproc::geometric_transformations::Projection;

/// A point `[x, y]` in pixels.
pub type Point = [f32; 2];

/// Corners top-left, top-right, bottom-right, bottom-left.
pub type Quad = [Point; 4];

/// A near-horizontal ruling line `y = intercept + slope * x`, drawn from `x0` to `x1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HLine {
    pub intercept: f32,
    pub slope: f32,
    pub x0: f32,
    pub x1: f32,
}

impl HLine {
    pub fn y_at(&self, x: f32) -> f32 {
        self.intercept + self.slope * x
    }

    /// The line halfway between two others (for a ruling line too faint to be seen).
    pub fn between(a: &HLine, b: &HLine, t: f32) -> HLine {
        HLine {
            intercept: a.intercept + (b.intercept - a.intercept) * t,
            slope: a.slope + (b.slope - a.slope) * t,
            x0: a.x0.max(b.x0),
            x1: a.x1.min(b.x1),
        }
    }
}

/// A near-vertical ruling line `x = intercept + slope * y`, drawn from `y0` to `y1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VLine {
    pub intercept: f32,
    pub slope: f32,
    pub y0: f32,
    pub y1: f32,
}

impl VLine {
    pub fn x_at(&self, y: f32) -> f32 {
        self.intercept + self.slope * y
    }
}

/// Where a horizontal and a vertical line cross.
pub fn crossing(h: &HLine, v: &VLine) -> Point {
    // y = a + b x, x = c + d y  =>  y = a + b c + b d y
    let denominator = 1.0 - h.slope * v.slope;
    let y = (h.intercept + h.slope * v.intercept) / denominator;
    [v.x_at(y), y]
}

/// Least-squares fit of `v = intercept + slope * u` to `(u, v)` samples; `None` for fewer than
/// two distinct `u`.
pub fn fit_line(samples: &[(f32, f32)]) -> Option<(f32, f32)> {
    let n = samples.len() as f64;
    if samples.len() < 2 {
        return None;
    }
    let (mut su, mut sv) = (0.0f64, 0.0f64);
    for &(u, v) in samples {
        su += u as f64;
        sv += v as f64;
    }
    let (mu, mv) = (su / n, sv / n);
    let (mut suu, mut suv) = (0.0f64, 0.0f64);
    for &(u, v) in samples {
        let du = u as f64 - mu;
        suu += du * du;
        suv += du * (v as f64 - mv);
    }
    if suu < 1e-6 {
        return None;
    }
    let slope = suv / suu;
    Some(((mv - slope * mu) as f32, slope as f32))
}

/// The corners of a cloud of points: the points furthest towards the top-left, top-right,
/// bottom-right and bottom-left (along the diagonals). `None` for no points.
pub fn diagonal_extremes(points: &[Point]) -> Option<Quad> {
    let extreme = |score: &dyn Fn(Point) -> f32| {
        points
            .iter()
            .copied()
            .max_by(|a, b| score(*a).total_cmp(&score(*b)))
    };
    Some([
        extreme(&|[x, y]| -x - y)?,
        extreme(&|[x, y]| x - y)?,
        extreme(&|[x, y]| x + y)?,
        extreme(&|[x, y]| y - x)?,
    ])
}

/// A quadrilateral's mean width (top and bottom sides) and mean height (left and right).
pub fn mean_sides(quad: &Quad) -> (f32, f32) {
    let side = |a: Point, b: Point| ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
    (
        (side(quad[0], quad[1]) + side(quad[3], quad[2])) / 2.0,
        (side(quad[0], quad[3]) + side(quad[1], quad[2])) / 2.0,
    )
}

/// A projective map of the plane as `imageproc`'s [`Projection`] holds and applies it, with
/// its matrix at hand so that a warp can apply it a row at a time: along a row only `x`
/// changes, and a run of pixels is divided at once. Every point it maps is, to the last bit,
/// where the `Projection` of the same control points maps it (the same solve, the same
/// arithmetic in the same order), so a view warped through it is the one `imageproc` would
/// give.
#[derive(Debug, Clone, Copy)]
pub struct PlaneMap {
    /// Row-major 3 x 3 matrix in homogeneous coordinates, its last entry 1.
    matrix: [f32; 9],
    kind: MapKind,
    projection: Projection,
}

/// Which of its three formulas `imageproc` applies a map with.
#[derive(Debug, Clone, Copy, PartialEq)]
enum MapKind {
    Translation,
    Affine,
    Projective,
}

impl PlaneMap {
    /// The map taking each point of `from` to the same corner of `to`; `None` where
    /// [`Projection::from_control_points`] finds none. The linear system and its SVD solve are
    /// those of `imageproc` 0.27 (MIT licence), whose matrix is private.
    pub fn from_control_points(from: [(f32, f32); 4], to: [(f32, f32); 4]) -> Option<PlaneMap> {
        use nalgebra::{linalg::SVD, OMatrix, OVector, U8};
        let f = from.map(|(x, y)| (f64::from(x), f64::from(y)));
        let t = to.map(|(x, y)| (f64::from(x), f64::from(y)));
        let mut rows = [0f64; 64];
        for (k, (&(xf, yf), &(x, y))) in f.iter().zip(&t).enumerate() {
            rows[16 * k..16 * k + 16].copy_from_slice(&[
                0.0,
                0.0,
                0.0,
                -xf,
                -yf,
                -1.0,
                y * xf,
                y * yf,
                xf,
                yf,
                1.0,
                0.0,
                0.0,
                0.0,
                -x * xf,
                -x * yf,
            ]);
        }
        let a = OMatrix::<f64, U8, U8>::from_row_slice(&rows);
        let b = OVector::<f64, U8>::from_row_slice(&[
            -t[0].1, t[0].0, -t[1].1, t[1].0, -t[2].1, t[2].0, -t[3].1, t[3].0,
        ]);
        let h = SVD::try_new(a, true, true, f64::EPSILON, 0)?
            .solve(&b, f64::EPSILON)
            .ok()?;
        let matrix = [
            h[0] as f32,
            h[1] as f32,
            h[2] as f32,
            h[3] as f32,
            h[4] as f32,
            h[5] as f32,
            h[6] as f32,
            h[7] as f32,
            1.0,
        ];
        let projection = Projection::from_matrix(matrix)?;
        let near = |value: f32, to: f32| (value - to).abs() < 1e-10;
        let kind = if near(matrix[6], 0.0) && near(matrix[7], 0.0) {
            if near(matrix[0], 1.0)
                && near(matrix[1], 0.0)
                && near(matrix[3], 0.0)
                && near(matrix[4], 1.0)
            {
                MapKind::Translation
            } else {
                MapKind::Affine
            }
        } else {
            MapKind::Projective
        };
        Some(PlaneMap {
            matrix,
            kind,
            projection,
        })
    }

    /// The same map as an `imageproc` [`Projection`].
    pub fn projection(&self) -> Projection {
        self.projection
    }

    /// The map along the line at height `y`.
    pub fn row(&self, y: f32) -> RowMap {
        let m = &self.matrix;
        RowMap {
            matrix: *m,
            kind: self.kind,
            y,
            across_y: [m[1] * y, m[4] * y, m[7] * y],
        }
    }
}

/// A [`PlaneMap`] along one line of constant `y`, the products with `y` worked out once.
#[derive(Debug, Clone, Copy)]
pub struct RowMap {
    matrix: [f32; 9],
    kind: MapKind,
    y: f32,
    across_y: [f32; 3],
}

impl RowMap {
    /// Where `(x, y)` goes, as `Projection * (x, y)` computes it.
    #[inline(always)]
    pub fn map(&self, x: f32) -> (f32, f32) {
        let m = &self.matrix;
        let [uy, vy, wy] = self.across_y;
        match self.kind {
            MapKind::Translation => (x + m[2], self.y + m[5]),
            MapKind::Affine => (m[0] * x + uy + m[2], m[3] * x + vy + m[5]),
            MapKind::Projective => {
                let d = m[6] * x + wy + m[8];
                ((m[0] * x + uy + m[2]) / d, (m[3] * x + vy + m[5]) / d)
            }
        }
    }
}

/// Distance from `point` to the segment from `a` to `b`.
pub fn distance_to_segment(point: Point, a: Point, b: Point) -> f32 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let length_squared = dx * dx + dy * dy;
    let t = if length_squared > 0.0 {
        (((point[0] - a[0]) * dx + (point[1] - a[1]) * dy) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (x, y) = (a[0] + t * dx, a[1] + t * dy);
    ((point[0] - x).powi(2) + (point[1] - y).powi(2)).sqrt()
}

/// Whether `point` lies inside the convex quadrilateral `quad` (either winding; a point on
/// a side counts as inside).
pub fn convex_quad_contains(quad: &Quad, point: Point) -> bool {
    let sides = (0..4).map(|i| {
        let (a, b) = (quad[i], quad[(i + 1) % 4]);
        (b[0] - a[0]) * (point[1] - a[1]) - (b[1] - a[1]) * (point[0] - a[0])
    });
    let (mut left, mut right) = (false, false);
    for cross in sides {
        left |= cross > 0.0;
        right |= cross < 0.0;
    }
    !(left && right)
}

/// `[x, y, w, h]` around a quadrilateral.
pub fn bounding_box(quad: &Quad) -> [f32; 4] {
    let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for &[x, y] in quad {
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    [x0, y0, x1 - x0, y1 - y0]
}

/// Area of a simple polygon (positive whatever the winding).
pub fn polygon_area(points: &[Point]) -> f32 {
    let mut twice = 0.0;
    for i in 0..points.len() {
        let [x0, y0] = points[i];
        let [x1, y1] = points[(i + 1) % points.len()];
        twice += x0 * y1 - x1 * y0;
    }
    twice.abs() / 2.0
}

/// The part of convex polygon `subject` inside convex polygon `clip` (Sutherland–Hodgman).
fn clip_convex(subject: &[Point], clip: &[Point]) -> Vec<Point> {
    let orientation = {
        let mut twice = 0.0;
        for i in 0..clip.len() {
            let [x0, y0] = clip[i];
            let [x1, y1] = clip[(i + 1) % clip.len()];
            twice += x0 * y1 - x1 * y0;
        }
        twice.signum()
    };
    let inside = |p: Point, a: Point, b: Point| {
        orientation * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])) >= 0.0
    };
    let intersect = |p: Point, q: Point, a: Point, b: Point| -> Point {
        let (dx, dy) = (q[0] - p[0], q[1] - p[1]);
        let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
        let denominator = dx * ey - dy * ex;
        if denominator.abs() < 1e-12 {
            return p;
        }
        let t = ((a[0] - p[0]) * ey - (a[1] - p[1]) * ex) / denominator;
        [p[0] + t * dx, p[1] + t * dy]
    };
    let mut output = subject.to_vec();
    for i in 0..clip.len() {
        if output.is_empty() {
            break;
        }
        let (a, b) = (clip[i], clip[(i + 1) % clip.len()]);
        let input = std::mem::take(&mut output);
        for j in 0..input.len() {
            let current = input[j];
            let previous = input[(j + input.len() - 1) % input.len()];
            match (inside(current, a, b), inside(previous, a, b)) {
                (true, true) => output.push(current),
                (true, false) => {
                    output.push(intersect(previous, current, a, b));
                    output.push(current);
                }
                (false, true) => output.push(intersect(previous, current, a, b)),
                (false, false) => {}
            }
        }
    }
    output
}

/// Intersection over union of two convex quadrilaterals, in 0..=1.
pub fn quad_iou(a: &Quad, b: &Quad) -> f32 {
    let (area_a, area_b) = (polygon_area(a), polygon_area(b));
    if area_a <= 0.0 || area_b <= 0.0 {
        return 0.0;
    }
    let inter = polygon_area(&clip_convex(a, b));
    (inter / (area_a + area_b - inter)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn convex_quad_contains_known_points() {
        let clockwise: Quad = [[0.0, 0.0], [10.0, 1.0], [9.0, 10.0], [1.0, 9.0]];
        let mut counter_clockwise = clockwise;
        counter_clockwise.reverse();
        for quad in [clockwise, counter_clockwise] {
            assert!(convex_quad_contains(&quad, [5.0, 5.0]));
            assert!(convex_quad_contains(&quad, [0.0, 0.0]));
            assert!(!convex_quad_contains(&quad, [5.0, 0.0]));
            assert!(!convex_quad_contains(&quad, [11.0, 5.0]));
            assert!(!convex_quad_contains(&quad, [-1.0, 5.0]));
            assert!(!convex_quad_contains(&quad, [5.0, 11.0]));
        }
    }

    #[test]
    fn a_plane_map_maps_every_point_as_imageproc_does_to_the_bit() {
        let mut rng = crate::synth::Rng::new(5);
        let (width, height) = (600.0, 850.0);
        let from = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)];
        let mut quads: Vec<Quad> = vec![
            // An upright rectangle: a scan's page, mapped without perspective.
            [[0.0, 0.0], [600.0, 0.0], [600.0, 850.0], [0.0, 850.0]],
            [[10.0, 20.0], [110.0, 20.0], [110.0, 70.0], [10.0, 70.0]],
        ];
        quads.extend((0..50).map(|_| {
            let mut corner = |x: f32, y: f32| {
                [
                    x + 300.0 * rng.unit() as f32 - 150.0,
                    y + 300.0 * rng.unit() as f32 - 150.0,
                ]
            };
            [
                corner(0.0, 0.0),
                corner(1400.0, 0.0),
                corner(1400.0, 2000.0),
                corner(0.0, 2000.0),
            ]
        }));
        for quad in quads {
            let to = quad.map(|[x, y]| (x, y));
            let reference = Projection::from_control_points(from, to).unwrap();
            let map = PlaneMap::from_control_points(from, to).unwrap();
            for _ in 0..200 {
                let (x, y) = ((rng.below(600) as f32) + 0.5, (rng.below(850) as f32) + 0.5);
                let expected = reference * (x, y);
                let (u, v) = map.row(y).map(x);
                assert_eq!(
                    (u.to_bits(), v.to_bits()),
                    (expected.0.to_bits(), expected.1.to_bits())
                );
                let again = map.projection() * (x, y);
                assert_eq!(again.0.to_bits(), expected.0.to_bits());
                assert_eq!(again.1.to_bits(), expected.1.to_bits());
            }
        }
        let collapsed = [(0.0, 0.0), (10.0, 0.0), (20.0, 0.0), (30.0, 0.0)];
        assert_eq!(
            PlaneMap::from_control_points(from, collapsed).is_some(),
            Projection::from_control_points(from, collapsed).is_some()
        );
    }

    #[test]
    fn distance_to_segment_of_known_points() {
        let (a, b) = ([0.0, 0.0], [4.0, 0.0]);
        assert_eq!(distance_to_segment([2.0, 3.0], a, b), 3.0);
        // Beyond an end, the distance is to that end.
        assert_eq!(distance_to_segment([7.0, 4.0], a, b), 5.0);
        assert_eq!(distance_to_segment([-3.0, -4.0], a, b), 5.0);
        assert_eq!(distance_to_segment([1.0, 1.0], a, a), 2f32.sqrt());
    }

    #[test]
    fn iou_of_known_squares() {
        let unit: Quad = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        assert!((quad_iou(&unit, &unit) - 1.0).abs() < 1e-6);
        let shifted: Quad = [[1.0, 0.0], [3.0, 0.0], [3.0, 2.0], [1.0, 2.0]];
        // Overlap 2 of a union of 6.
        assert!((quad_iou(&unit, &shifted) - 1.0 / 3.0).abs() < 1e-6);
        let far: Quad = [[5.0, 5.0], [6.0, 5.0], [6.0, 6.0], [5.0, 6.0]];
        assert_eq!(quad_iou(&unit, &far), 0.0);
        // A diamond inside the square: half its area.
        let diamond: Quad = [[1.0, 0.0], [2.0, 1.0], [1.0, 2.0], [0.0, 1.0]];
        assert!((quad_iou(&unit, &diamond) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn lines_fit_and_cross() {
        let samples: Vec<(f32, f32)> = (0..20).map(|x| (x as f32, 3.0 + 0.1 * x as f32)).collect();
        let (intercept, slope) = fit_line(&samples).unwrap();
        assert!((intercept - 3.0).abs() < 1e-4 && (slope - 0.1).abs() < 1e-5);
        let h = HLine {
            intercept: 10.0,
            slope: 0.02,
            x0: 0.0,
            x1: 100.0,
        };
        let v = VLine {
            intercept: 50.0,
            slope: -0.01,
            y0: 0.0,
            y1: 100.0,
        };
        let [x, y] = crossing(&h, &v);
        assert!((h.y_at(x) - y).abs() < 1e-4 && (v.x_at(y) - x).abs() < 1e-4);
        assert!(fit_line(&[(1.0, 1.0), (1.0, 2.0)]).is_none());
    }
}
