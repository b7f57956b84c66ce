//! A picture of what the page stage found, drawn over the input: the sheet's outline, every
//! move cell (green when written in, amber when empty) and its ply number, so a person can
//! check the grid at a glance.

use image::{Rgb, RgbImage};
use imageproc::drawing::draw_line_segment_mut;

use super::{Cells, Point, Quad, Sheet};

const PAGE: Rgb<u8> = Rgb([40, 90, 230]);
const WRITTEN: Rgb<u8> = Rgb([0, 170, 60]);
const EMPTY: Rgb<u8> = Rgb([235, 150, 0]);
const LABEL: Rgb<u8> = Rgb([210, 0, 90]);

/// The input image with the page, the cells and their plies drawn on it.
pub fn draw_overlay(sheet: &Sheet, cells: &Cells) -> RgbImage {
    let mut image = sheet.image.to_rgb8();
    let thickness = (image.width().max(image.height()) as f32 / 900.0).max(1.0);
    draw_polygon(&mut image, &cells.page_quad, thickness * 1.5, PAGE);
    for cell in &cells.cells {
        let colour = if cell.ink { WRITTEN } else { EMPTY };
        draw_polygon(&mut image, &cell.quad, thickness, colour);
        let height = (cell.quad[3][1] - cell.quad[0][1]).abs();
        let size = (height * 0.32).max(6.0);
        let at = [cell.quad[0][0] + size * 0.3, cell.quad[0][1] + size * 0.25];
        draw_number(&mut image, cell.ply, at, size, thickness, LABEL);
    }
    image
}

/// Outlines `quads` (cells of the same image) again in `colour`, three times as thick as
/// [`draw_overlay`]'s lines, so a few cells stand out from the grid: the moves to review.
pub fn mark_cells(image: &mut RgbImage, quads: &[Quad], colour: Rgb<u8>) {
    let thickness = (image.width().max(image.height()) as f32 / 900.0).max(1.0) * 3.0;
    for quad in quads {
        draw_polygon(image, quad, thickness, colour);
    }
}

fn thick_line(image: &mut RgbImage, a: Point, b: Point, thickness: f32, colour: Rgb<u8>) {
    let steps = thickness.round().max(1.0) as i32;
    for i in 0..steps {
        let offset = i as f32 - (steps - 1) as f32 / 2.0;
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let length = (dx * dx + dy * dy).sqrt().max(1e-3);
        let (nx, ny) = (-dy / length * offset, dx / length * offset);
        draw_line_segment_mut(
            image,
            (a[0] + nx, a[1] + ny),
            (b[0] + nx, b[1] + ny),
            colour,
        );
    }
}

fn draw_polygon(image: &mut RgbImage, points: &[Point], thickness: f32, colour: Rgb<u8>) {
    for i in 0..points.len() {
        thick_line(
            image,
            points[i],
            points[(i + 1) % points.len()],
            thickness,
            colour,
        );
    }
}

/// Seven-segment digits: no font needed, legible at any size.
fn draw_number(
    image: &mut RgbImage,
    n: u32,
    at: Point,
    size: f32,
    thickness: f32,
    colour: Rgb<u8>,
) {
    // Segments a..g as (from, to) in a 1 x 2 box.
    const SEGMENTS: [((f32, f32), (f32, f32)); 7] = [
        ((0.0, 0.0), (1.0, 0.0)),
        ((1.0, 0.0), (1.0, 1.0)),
        ((1.0, 1.0), (1.0, 2.0)),
        ((0.0, 2.0), (1.0, 2.0)),
        ((0.0, 1.0), (0.0, 2.0)),
        ((0.0, 0.0), (0.0, 1.0)),
        ((0.0, 1.0), (1.0, 1.0)),
    ];
    const DIGITS: [u8; 10] = [
        0b0111111, 0b0000110, 0b1011011, 0b1001111, 0b1100110, 0b1101101, 0b1111101, 0b0000111,
        0b1111111, 0b1101111,
    ];
    let unit = size / 2.0;
    for (i, c) in n.to_string().chars().enumerate() {
        let digit = c.to_digit(10).unwrap_or(0) as usize;
        let x0 = at[0] + i as f32 * unit * 1.6;
        for (s, ((ax, ay), (bx, by))) in SEGMENTS.iter().enumerate() {
            if DIGITS[digit] & (1 << s) != 0 {
                thick_line(
                    image,
                    [x0 + ax * unit, at[1] + ay * unit],
                    [x0 + bx * unit, at[1] + by * unit],
                    thickness,
                    colour,
                );
            }
        }
    }
}
