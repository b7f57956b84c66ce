//! The page stage on images as users bring them: generated photos and scans of every layout,
//! the real scans of real-dev against hand-checked boxes, and images that are not scoresheets.

use std::io::Cursor;
use std::path::Path;

use image::{DynamicImage, GrayImage, ImageFormat, Luma, RgbImage};
use proptest::prelude::*;
use serde_json::Value;

use scoresheet::games::shared_data_dir;
use scoresheet::notation::Language;
use scoresheet::page::{find_cells, quad_iou, Cells, PageOptions, Point, Quad, Sheet};
use scoresheet::synth::camera::Capture;
use scoresheet::synth::layout::Layout;
use scoresheet::synth::sheet::{pick_game, render_sheet, SheetRequest};
use scoresheet::synth::Rng;

mod common;
use common::{games, scripts};

fn quad(value: &Value) -> Quad {
    let p = |i: usize| {
        [
            value[i][0].as_f64().unwrap() as f32,
            value[i][1].as_f64().unwrap() as f32,
        ]
    };
    [p(0), p(1), p(2), p(3)]
}

/// The truth's cells `(ply, quad, ink)`, each quad's corners moved by `moved`.
fn truth_cells(truth: &Value, moved: impl Fn(Point) -> Point) -> Vec<(u32, Quad, bool)> {
    truth["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["ply"].as_u64().unwrap() as u32,
                quad(&c["quad"]).map(&moved),
                c["ink"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// (cells matched with IoU >= 0.7 and the right ply, cells given another ply, ink verdicts
/// that agree) against truth cells `(ply, quad, ink)`.
fn compare(found: &Cells, truth: &[(u32, Quad, bool)]) -> (usize, usize, usize) {
    let (mut matched, mut wrong_ply, mut ink_agrees) = (0, 0, 0);
    for &(ply, quad, ink) in truth {
        if let Some(cell) = found.cells.iter().find(|c| c.ply == ply) {
            if quad_iou(&cell.quad, &quad) >= 0.7 {
                matched += 1;
                ink_agrees += usize::from(cell.ink == ink);
            }
        }
    }
    for cell in &found.cells {
        let best = truth
            .iter()
            .max_by(|a, b| quad_iou(&cell.quad, &a.1).total_cmp(&quad_iou(&cell.quad, &b.1)));
        if let Some(&(ply, q, _)) = best {
            if quad_iou(&cell.quad, &q) >= 0.5 && ply != cell.ply {
                wrong_ply += 1;
            }
        }
    }
    (matched, wrong_ply, ink_agrees)
}

#[test]
fn finds_every_cell_of_generated_photos_and_scans_of_every_layout() {
    let languages = ["en", "ru", "hy", "de", "fr", "pl"];
    let (mut truth_cells, mut matched, mut wrong, mut ink) = (0, 0, 0, 0);
    let mut rng = Rng::new(2026);
    for (i, layout) in Layout::built_in().iter().enumerate() {
        for (j, capture) in [Capture::Scan, Capture::Photo].into_iter().enumerate() {
            let game = pick_game(games(), &mut rng).expect("a game");
            let language = Language::by_code(languages[2 * i + j]).unwrap();
            let sheet = render_sheet(
                scripts(),
                &SheetRequest {
                    id: format!("{i}-{j}"),
                    game: &game,
                    language,
                    layout,
                    seed: 500 + (i * 2 + j) as u64,
                    dpi: 150.0,
                    capture: Some(capture),
                    descriptive: false,
                    page: 1,
                },
            )
            .expect("a sheet");
            // Through JPEG, as a camera delivers it.
            let mut bytes = Vec::new();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, sheet.jpeg_quality)
                .encode_image(&sheet.image)
                .unwrap();
            let loaded = Sheet::from_bytes(format!("{}.jpg", sheet.truth.id), &bytes).unwrap();
            let found = find_cells(&loaded, &PageOptions::default())
                .unwrap_or_else(|e| panic!("{} {}: {e}", layout.name, capture.name()));
            let truth: Vec<(u32, Quad, bool)> = sheet
                .truth
                .cells
                .iter()
                .map(|c| (c.ply, c.quad, c.ink))
                .collect();
            assert_eq!(found.cells.len(), layout.capacity(), "{}", layout.name);
            let (m, w, k) = compare(&found, &truth);
            truth_cells += truth.len();
            matched += m;
            wrong += w;
            ink += k;
        }
    }
    assert!(
        matched as f32 >= 0.99 * truth_cells as f32,
        "{matched} of {truth_cells} cells found"
    );
    assert_eq!(wrong, 0, "cells given a wrong ply");
    assert!(
        ink as f32 >= 0.97 * matched as f32,
        "ink right on {ink} of {matched}"
    );
}

#[test]
fn finds_every_cell_of_the_real_scans() {
    let truth_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real-dev-cells");
    let (mut matched, mut ink) = (0, 0);
    for n in 1..=12 {
        let truth: Value = serde_json::from_str(
            &std::fs::read_to_string(truth_dir.join(format!("game{n}.json"))).unwrap(),
        )
        .unwrap();
        let image = shared_data_dir().join(truth["image"].as_str().unwrap());
        let sheet = Sheet::open(&image).unwrap();
        assert_eq!(sheet.width() as u64, truth["width"].as_u64().unwrap());
        let found = find_cells(&sheet, &PageOptions::default()).unwrap();
        // The hand-checked boxes put pixel centres on whole numbers, the page stage pixel
        // edges: half a pixel apart.
        let cells = truth_cells(&truth, |[x, y]| [x + 0.5, y + 0.5]);
        assert_eq!(cells.len(), 100);
        let (m, w, k) = compare(&found, &cells);
        assert_eq!(
            (m, w),
            (100, 0),
            "game {n}: {m} cells found, {w} with a wrong ply"
        );
        // Every corner within a few pixels of the hand-checked one.
        for (ply, q, _) in &cells {
            let cell = found.cells.iter().find(|c| c.ply == *ply).unwrap();
            for (a, b) in cell.quad.iter().zip(q) {
                let error = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
                assert!(error < 6.0, "game {n} ply {ply}: corner {a:?} vs {b:?}");
            }
        }
        matched += m;
        ink += k;
    }
    assert!(
        ink as f32 >= 0.98 * matched as f32,
        "ink right on {ink} of {matched}"
    );
}

#[test]
fn the_sample_sheets_and_a_layout_hint_agree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/sheets");
    for name in [
        "00000-en-fide-2x30",
        "00001-de-single-40",
        "00002-ru-chesscom-2x25",
    ] {
        let sheet = Sheet::open(&dir.join(format!("{name}.jpg"))).unwrap();
        let truth: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        let layout = Layout::by_name(truth["layout"].as_str().unwrap()).unwrap();
        let plain = find_cells(&sheet, &PageOptions::default()).unwrap();
        let hinted = find_cells(
            &sheet,
            &PageOptions {
                layout: Some(layout.clone()),
            },
        )
        .unwrap();
        assert_eq!(plain.cells.len(), layout.capacity(), "{name}");
        assert_eq!(
            plain, hinted,
            "{name}: the hint changed a sheet that needed none"
        );
        let blocks: Vec<(u32, u32)> = plain
            .blocks
            .iter()
            .map(|b| (b.first_move, b.rows))
            .collect();
        let expected: Vec<(u32, u32)> = layout
            .blocks
            .iter()
            .map(|b| (b.first_move, b.rows))
            .collect();
        assert_eq!(blocks, expected, "{name}");
    }
}

/// A low-resolution photo (rows about 20 px high) taken at a slant, with a shadow band across
/// the sheet: the shadow hides the sheet's outline and breaks the rulings into pieces.
#[test]
fn finds_the_cells_of_a_slanted_low_resolution_photo_in_shadow() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/sheets");
    let name = "00004-fr-single-40";
    let sheet = Sheet::open(&dir.join(format!("{name}.jpg"))).unwrap();
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
            .unwrap();
    let cells = truth_cells(&truth, |point| point);
    let found = find_cells(&sheet, &PageOptions::default()).unwrap();
    assert_eq!(found.cells.len(), 80);
    let (matched, wrong, _) = compare(&found, &cells);
    assert_eq!(wrong, 0, "cells given a wrong ply");
    assert!(matched >= 78, "{matched} of 80 cells found");
}

/// A scan turned a quarter counter-clockwise (a page fed sideways, no EXIF orientation): the
/// page stage finds its table turned back, and gives the cells in the pixels of the image as
/// it is, each quad's corners in the upright sheet's order.
#[test]
fn finds_the_cells_of_a_sheet_scanned_sideways() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/sheets");
    let name = "00000-en-fide-2x30";
    let upright = Sheet::open(&dir.join(format!("{name}.jpg"))).unwrap();
    let width = upright.image.width() as f32;
    let sideways = Sheet {
        name: format!("{name} sideways"),
        image: upright.image.rotate270(),
        torn: false,
    };
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
            .unwrap();
    // `rotate270` takes the point (x, y) to (y, W - x).
    let cells = truth_cells(&truth, |[x, y]| [y, width - x]);
    let found = find_cells(&sideways, &PageOptions::default()).unwrap();
    assert_eq!(
        found.turned_degrees, 90.0,
        "turned a quarter clockwise to stand upright"
    );
    assert_eq!(
        (found.image_width, found.image_height),
        (sideways.image.width(), sideways.image.height())
    );
    let (matched, wrong, _) = compare(&found, &cells);
    assert_eq!(wrong, 0, "cells given a wrong ply");
    assert!(
        matched >= cells.len() - 2,
        "{matched} of {} cells found",
        cells.len()
    );
    // The quads' corners go round the upright cell: the first is its top left, which on the
    // image turned counter-clockwise is the bottom left.
    let cell = &found.cells[0];
    let [top_left, top_right, _, bottom_left] = cell.quad;
    assert!(top_right[1] < top_left[1], "{:?}", cell.quad);
    assert!(bottom_left[0] > top_left[0], "{:?}", cell.quad);
}

/// A scan laid 25 degrees askew: on a dark scanner lid the sheet's outline is found and
/// flattened; on a white one, beyond the tilt the table search follows, the page is turned
/// level by the angle of its lines first. Either way every cell is found with its ply.
#[test]
fn finds_the_cells_of_a_sheet_scanned_far_askew() {
    use imageproc::geometric_transformations::{warp_into, Border, Interpolation, Projection};

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/sheets");
    let name = "00000-en-fide-2x30";
    let upright = Sheet::open(&dir.join(format!("{name}.jpg"))).unwrap();
    let grey = upright.image.to_luma8();
    let (w, h) = (grey.width() as f32, grey.height() as f32);
    // Counter-clockwise by 25 degrees about the centre, on a canvas holding it all.
    let angle = -25f32.to_radians();
    let (sin, cos) = (angle.sin().abs(), angle.cos().abs());
    let (canvas_w, canvas_h) = ((w * cos + h * sin).round(), (w * sin + h * cos).round());
    let askew = Projection::translate(canvas_w / 2.0, canvas_h / 2.0)
        * Projection::rotate(angle)
        * Projection::translate(-w / 2.0, -h / 2.0);
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
            .unwrap();
    let cells = truth_cells(&truth, |[x, y]| {
        let (u, v) = askew * (x, y);
        [u, v]
    });
    // The sample is a photo, itself a few degrees off level.
    for (lid, turned) in [(60u8, 0.0f32), (255, 25.0)] {
        let mut canvas = GrayImage::new(canvas_w as u32, canvas_h as u32);
        warp_into(
            &grey,
            askew,
            Interpolation::Bilinear,
            Border::Constant(Luma([lid])),
            &mut canvas,
        );
        let sheet = Sheet {
            name: format!("{name} askew"),
            image: DynamicImage::ImageLuma8(canvas),
            torn: false,
        };
        let found = find_cells(&sheet, &PageOptions::default()).unwrap();
        assert!(
            (found.turned_degrees - turned).abs() < 5.0,
            "lid {lid}: turned {} degrees",
            found.turned_degrees
        );
        let (matched, wrong, _) = compare(&found, &cells);
        assert_eq!(wrong, 0, "lid {lid}: cells given a wrong ply");
        assert!(
            matched >= cells.len() - 2,
            "lid {lid}: {matched} of {} cells found",
            cells.len()
        );
    }
}

fn encoded(image: DynamicImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)
        .unwrap();
    bytes
}

#[test]
fn refuses_images_that_are_not_scoresheets_with_the_reason() {
    let mut rng = Rng::new(9);
    let blank = GrayImage::from_pixel(1240, 1754, Luma([238]));
    let noise = GrayImage::from_fn(1000, 1400, |_, _| Luma([(rng.next_u64() % 256) as u8]));
    // Notebook paper: ruled lines but no columns.
    let notebook = GrayImage::from_fn(1240, 1754, |_, y| Luma([if y % 40 < 2 { 90 } else { 235 }]));
    // A photo-like scene: soft gradients and a few discs.
    let scene = RgbImage::from_fn(1600, 1200, |x, y| {
        let disc = |cx: f32, cy: f32, r: f32| {
            ((x as f32 - cx).powi(2) + (y as f32 - cy).powi(2)).sqrt() < r
        };
        if disc(400.0, 500.0, 180.0) || disc(1100.0, 700.0, 260.0) {
            image::Rgb([200, 60, 40])
        } else {
            image::Rgb([(x / 8) as u8, (y / 6) as u8, 120])
        }
    });
    for (name, image) in [
        ("blank.png", DynamicImage::ImageLuma8(blank)),
        ("noise.png", DynamicImage::ImageLuma8(noise)),
        ("notebook.png", DynamicImage::ImageLuma8(notebook)),
        ("scene.png", DynamicImage::ImageRgb8(scene)),
        ("tiny.png", DynamicImage::ImageLuma8(GrayImage::new(60, 40))),
    ] {
        let sheet = Sheet::from_bytes(name, &encoded(image)).unwrap();
        let err = find_cells(&sheet, &PageOptions::default())
            .expect_err(name)
            .to_string();
        assert!(err.starts_with(&format!("{name}: ")), "{err}");
        assert!(
            err.contains("not a scoresheet") || err.contains("too small"),
            "{err}"
        );
    }
}

#[test]
fn a_torn_photo_is_named_as_the_cause() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/sheets/00002-ru-chesscom-2x25.jpg");
    let whole = std::fs::read(&path).unwrap();
    let sheet = Sheet::from_bytes("whole.jpg", &whole).unwrap();
    assert!(!sheet.torn);
    // The first 5 kB of the photo: the decoder fills the rest of the page with grey.
    let sheet = Sheet::from_bytes("torn.jpg", &whole[..5000]).unwrap();
    assert!(sheet.torn);
    let err = find_cells(&sheet, &PageOptions::default())
        .expect_err("a page cut after its first rows has no table")
        .to_string();
    assert!(
        err.starts_with("torn.jpg: the JPEG file ends before its image does"),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn no_bytes_make_the_loader_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let _ = Sheet::from_bytes("fuzz", &bytes);
    }

    #[test]
    fn no_image_makes_the_page_stage_panic(
        width in 1u32..700,
        height in 1u32..700,
        seed in any::<u64>(),
        stripes in 0u32..40,
    ) {
        let mut rng = Rng::new(seed);
        let image = GrayImage::from_fn(width, height, |x, y| {
            let ruled = stripes > 0 && (x % (stripes + 7) == 0 || y % (stripes + 5) == 0);
            Luma([if ruled { 30 } else { 200 + (rng.next_u64() % 50) as u8 }])
        });
        let sheet = Sheet::from_image("fuzz.png", DynamicImage::ImageLuma8(image));
        let _ = find_cells(&sheet, &PageOptions::default());
    }
}
