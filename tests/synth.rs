//! The sheet generator: its truth replays legally, its cells lie on the drawn grid and inside
//! the image, the same seed gives the same bytes, and `--lang all --layout all` covers the
//! languages and layouts.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use image::GrayImage;
use serde_json::Value;
use shakmaty::san::San;
use shakmaty::Position;

use scoresheet::games::shared_data_dir;
use scoresheet::notation::Language;
use scoresheet::start::StartPosition;
use scoresheet::synth::camera::Capture;
use scoresheet::synth::cells::{render_cells, CellOptions};
use scoresheet::synth::glyphs::Part;
use scoresheet::synth::hand::{
    write_text, Hand, LetterSource, SchoolF, SchoolForms, Scripts, TextBox,
};
use scoresheet::synth::ink::InkLayer;
use scoresheet::synth::layout::Layout;
use scoresheet::synth::sheet::{pick_game, render_sheet, SheetRequest};
use scoresheet::synth::Rng;

mod common;
mod scratch;
use common::{games, scripts};
use scratch::Scratch;

/// Replays `moves_san` from `start_fen`; the reason it fails, if it does.
fn replay(truth: &Value) -> Result<usize, String> {
    let fen = truth["start_fen"].as_str().ok_or("no start_fen")?;
    let start = StartPosition::from_fen(fen).map_err(|e| format!("{fen}: {e}"))?;
    let mut pos = start.position;
    let moves = truth["moves_san"].as_array().ok_or("no moves_san")?;
    for (i, san) in moves.iter().enumerate() {
        let san = san.as_str().ok_or("san not a string")?;
        let m = San::from_ascii(san.as_bytes())
            .map_err(|e| format!("ply {}: {san}: {e}", i + 1))?
            .to_move(&pos)
            .map_err(|e| format!("ply {}: {san} illegal: {e}", i + 1))?;
        pos.play_unchecked(m);
    }
    Ok(moves.len())
}

#[test]
fn rendered_sheets_replay_and_their_cells_lie_on_the_grid() {
    let layouts = Layout::built_in();
    for (i, capture) in [Capture::Scan, Capture::Photo, Capture::Scan]
        .into_iter()
        .enumerate()
    {
        let mut rng = Rng::new(40 + i as u64);
        let game = pick_game(games(), &mut rng).unwrap();
        let lang = Language::by_code(["en", "ru", "hy"][i]).unwrap();
        let sheet = render_sheet(
            scripts(),
            &SheetRequest {
                id: format!("t{i}"),
                game: &game,
                language: lang,
                layout: &layouts[i],
                seed: 7 + i as u64,
                dpi: 120.0,
                capture: Some(capture),
                descriptive: false,
                page: 1,
            },
        )
        .unwrap();
        let truth = serde_json::to_value(&sheet.truth).unwrap();
        let plies = replay(&truth).unwrap();
        assert_eq!(truth["written"].as_array().unwrap().len(), plies);
        assert_eq!(sheet.truth.cells.len(), layouts[i].capacity());
        let grey: GrayImage = image::DynamicImage::ImageRgb8(sheet.image).to_luma8();
        let paper = {
            let mut values: Vec<u8> = grey.pixels().map(|p| p.0[0]).collect();
            values.sort_unstable();
            values[values.len() * 3 / 4] as f32
        };
        let mut on_line = 0;
        for cell in &sheet.truth.cells {
            for [x, y] in cell.quad {
                assert!(
                    x >= 0.0 && y >= 0.0 && x < grey.width() as f32 && y < grey.height() as f32
                );
            }
            // The middle of the top and bottom edges are on printed lines: darker than paper
            // within two pixels across the edge.
            let [tl, tr, br, bl] = cell.quad;
            let mut edge_dark = |a: [f32; 2], b: [f32; 2]| {
                let (mx, my) = (
                    (a[0] + b[0]) / 2.0 + (b[0] - a[0]) * 0.2,
                    (a[1] + b[1]) / 2.0,
                );
                let at = |dy: f32| grey.get_pixel(mx as u32, (my + dy) as u32).0[0] as f32;
                let darkest = (-2..=2).map(|d| at(d as f32)).fold(255.0, f32::min);
                // Paper is judged near the line, as the light falls there.
                let reach = (bl[1] - tl[1]) * 0.3;
                let local_paper = at(-reach).max(at(reach)).min(paper + 30.0);
                on_line += (darkest < local_paper - 30.0) as usize;
            };
            edge_dark(tl, tr);
            edge_dark(bl, br);
        }
        let edges = 2 * sheet.truth.cells.len();
        assert!(
            on_line * 100 >= edges * 97,
            "{capture:?}: {on_line} of {edges} cell edges on a line"
        );
        let inked = sheet.truth.cells.iter().filter(|c| c.ink).count();
        assert!(
            inked >= plies.min(layouts[i].capacity()) - 1 - sheet.truth.flags.skipped_moves.len()
        );
    }
}

#[test]
fn same_request_same_pixels() {
    let layout = Layout::by_name("chesscom-2x25").unwrap();
    let game = pick_game(games(), &mut Rng::new(3)).unwrap();
    let render = || {
        render_sheet(
            scripts(),
            &SheetRequest {
                id: "same".into(),
                game: &game,
                language: Language::by_code("de").unwrap(),
                layout: &layout,
                seed: 11,
                dpi: 100.0,
                capture: None,
                descriptive: false,
                page: 1,
            },
        )
        .unwrap()
    };
    let (a, b) = (render(), render());
    assert_eq!(a.image.as_raw(), b.image.as_raw());
    assert_eq!(
        serde_json::to_string(&a.truth).unwrap(),
        serde_json::to_string(&b.truth).unwrap()
    );
}

#[test]
fn cell_crops_are_deterministic_labelled_and_not_blank() {
    let langs: Vec<&'static Language> = ["en", "uk", "hy", "fr"]
        .iter()
        .map(|c| Language::by_code(c).unwrap())
        .collect();
    let options = CellOptions {
        width: 192,
        height: 48,
        descriptive: false,
    };
    let a = render_cells(scripts(), games(), &langs, 70, 90, 5, &options);
    let b = render_cells(scripts(), games(), &langs, 70, 90, 5, &options);
    assert_eq!(a.pixels, b.pixels);
    assert_eq!(a.labels, b.labels);
    assert_eq!(a.pixels.len(), 90 * 192 * 48);
    // A sub-range renders the same crops as the whole range.
    let part = render_cells(scripts(), games(), &langs, 100, 10, 5, &options);
    assert_eq!(part.pixels[..], a.pixels[30 * 192 * 48..40 * 192 * 48]);
    let moves = a.labels.iter().filter(|l| l.kind == "move").count();
    assert!(moves >= 70, "{moves} of 90 crops hold a move");
    for (i, label) in a.labels.iter().enumerate() {
        let crop = &a.pixels[i * 192 * 48..(i + 1) * 192 * 48];
        let (lo, hi) = (crop.iter().min().unwrap(), crop.iter().max().unwrap());
        assert!(hi - lo > 30, "crop {i} ({label:?}) is flat");
        if label.kind == "move" {
            assert!(!label.text.is_empty());
        }
    }
}

#[test]
fn descriptive_cells_are_labelled_in_descriptive_notation() {
    let english = [Language::by_code("en").unwrap()];
    let options = CellOptions {
        width: 192,
        height: 48,
        descriptive: true,
    };
    let batch = render_cells(scripts(), games(), &english, 0, 120, 9, &options);
    let moves: Vec<&str> = batch
        .labels
        .iter()
        .filter(|l| l.kind == "move")
        .map(|l| l.text.as_str())
        .collect();
    assert!(
        moves.len() >= 90,
        "{} of 120 crops hold a move",
        moves.len()
    );
    for text in &moves {
        let chars: Vec<char> = text.chars().collect();
        let algebraic_square = chars
            .windows(2)
            .any(|w| ('a'..='h').contains(&w[0]) && ('1'..='8').contains(&w[1]));
        assert!(!algebraic_square, "{text:?} names an algebraic square");
    }
    let pieces_first = moves
        .iter()
        .filter(|t| t.starts_with(['P', 'N', 'B', 'R', 'Q', 'K']))
        .count();
    assert!(
        pieces_first * 10 >= moves.len() * 8,
        "{pieces_first} of {} cells start with a piece: {moves:?}",
        moves.len()
    );
    assert!(moves.iter().any(|t| t.contains("P-")), "{moves:?}");
}

fn synth(out: &Path, extra: &[&str]) -> std::process::Output {
    let games = shared_data_dir().join("games/masters.pgn.gz");
    Command::new(env!("CARGO_BIN_EXE_scoresheet-synth"))
        .args([
            "--games",
            games.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--max-games", "400"])
        .args(extra)
        .output()
        .expect("scoresheet-synth runs")
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p: PathBuf| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn twenty_four_sheets_of_every_kind_replay_and_repeat_byte_for_byte() {
    let scratch = Scratch::new("synth-replay");
    let root = scratch.dir();
    let (first, second) = (root.join("a"), root.join("b"));
    let args = [
        "--count", "24", "--seed", "9", "--lang", "all", "--layout", "all", "--dpi", "100",
    ];
    for dir in [&first, &second] {
        let out = synth(dir, &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (a, b) = (files(&first), files(&second));
    assert_eq!(a.len(), 49);
    assert!(a == b, "the same seed gave different files");
    // The manifest lists every sheet, with the start of every game that has its own, as
    // `batch` reads them.
    let games = scoresheet::batch::plan(&first.join("manifest.tsv"), false).unwrap();
    assert_eq!(games.len(), 24);
    let mut own_starts = 0;
    for game in &games {
        let truth: Value =
            serde_json::from_slice(&fs::read(game.pages[0].path.with_extension("json")).unwrap())
                .unwrap();
        let fen = truth["start_fen"].as_str().unwrap();
        let usual = StartPosition::standard().fen();
        let start = game.start.as_ref().map(StartPosition::fen);
        assert_eq!(start.as_deref().unwrap_or(&usual), fen, "{}", game.id);
        own_starts += usize::from(game.start.is_some());
    }
    assert!(own_starts > 0, "no Chess960 or set-position game among 24");
    let mut languages = BTreeSet::new();
    let mut layouts = BTreeSet::new();
    for (name, bytes) in a.iter().filter(|(n, _)| n.ends_with(".json")) {
        let truth: Value = serde_json::from_slice(bytes).unwrap();
        replay(&truth).unwrap_or_else(|e| panic!("{name}: {e}"));
        languages.insert(truth["language"].as_str().unwrap().to_string());
        layouts.insert(truth["layout"].as_str().unwrap().to_string());
        let image = image::open(first.join(truth["image"].as_str().unwrap())).unwrap();
        for cell in truth["cells"].as_array().unwrap() {
            let [x, y, w, h] = [0, 1, 2, 3].map(|i| cell["bbox"][i].as_f64().unwrap());
            assert!(x >= 0.0 && y >= 0.0, "{name}: cell outside the image");
            assert!(
                x + w <= image.width() as f64 && y + h <= image.height() as f64,
                "{name}"
            );
        }
    }
    assert!(languages.len() >= 8, "{languages:?}");
    assert_eq!(layouts.len(), 3, "{layouts:?}");
}

#[test]
fn a_long_game_goes_on_over_later_sheets_in_the_same_hand() {
    let scratch = Scratch::new("synth-pages");
    let dir = scratch.dir().join("sheets");
    let args = [
        "--count",
        "3",
        "--seed",
        "5",
        "--pages",
        "2",
        "--layout",
        "single-40",
        "--dpi",
        "70",
        "--copies",
    ];
    let out = synth(&dir, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("12 sheets"));
    let games = scoresheet::batch::plan(&dir.join("manifest.tsv"), false).unwrap();
    assert_eq!(games.len(), 3);
    for game in &games {
        assert_eq!((game.pages.len(), game.copy.len()), (2, 2), "{}", game.id);
        for sheets in [&game.pages, &game.copy] {
            let truth = |i: usize| -> Value {
                serde_json::from_slice(&fs::read(sheets[i].path.with_extension("json")).unwrap())
                    .unwrap()
            };
            let (first, second) = (truth(0), truth(1));
            let second_name = sheets[1].path.with_extension("json");
            assert_eq!(
                first["next_page"].as_str(),
                second_name.file_name().unwrap().to_str()
            );
            assert!(first.get("page").is_none() && second.get("next_page").is_none());
            assert_eq!(
                (second["page"].as_u64(), second["start_kind"].as_str()),
                (Some(2), Some("continued"))
            );
            // The second sheet starts where the first ends, and the two replay as one game.
            let start = StartPosition::from_fen(first["start_fen"].as_str().unwrap()).unwrap();
            let mut position = start.position;
            for san in first["moves_san"].as_array().unwrap() {
                let san: San = san.as_str().unwrap().parse().unwrap();
                let m = san.to_move(&position).unwrap();
                position.play_unchecked(m);
            }
            let after_first = StartPosition {
                position,
                castling_mode: start.castling_mode,
            };
            assert_eq!(
                second["start_fen"].as_str(),
                Some(after_first.fen().as_str())
            );
            replay(&second).unwrap();
            assert!(!second["moves_san"].as_array().unwrap().is_empty());
            // Cells are numbered on each sheet from its first; the hand is the same.
            assert_eq!(second["cells"][0]["ply"], 1);
            for habit in ["style", "language"] {
                assert_eq!(first[habit], second[habit], "{habit}");
            }
            assert_eq!(first["flags"]["hand"], second["flags"]["hand"]);
            assert_eq!(first["flags"]["ink"], second["flags"]["ink"]);
        }
    }
    let out = synth(&dir, &["--count", "1", "--pages", "5"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pages 5"));
}

#[test]
fn bad_arguments_are_refused_with_the_cause() {
    let out_dir = std::env::temp_dir().join("scoresheet-synth-bad");
    let out = synth(&out_dir, &["--count", "1", "--lang", "xx"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown language \"xx\""));
    let out = synth(&out_dir, &["--count", "1", "--layout", "/nonexistent.json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent.json"));
}

#[test]
fn every_part_of_the_material_draws_every_piece_letter() {
    let moves: String = scoresheet::notation::LANGUAGES
        .iter()
        .flat_map(|lang| lang.letters.iter().flat_map(|variants| variants.iter()))
        .flat_map(|letter| letter.chars())
        .chain("abcdefgh12345678x:-+#=()0O".chars())
        .collect();
    for part in [Part::Training, Part::Validation] {
        let scripts = scripts().clone().part(part);
        assert_eq!(scripts.undrawable(&moves), Vec::<char>::new(), "{part:?}");
    }
}

/// The height and width of what `hand` writes for `text` in a 600 x 120 box, always with the
/// same random draws, so that two hands differing only in their letter forms can be compared.
fn written_box(scripts: &Scripts, hand: &Hand, text: &str) -> (f32, f32) {
    let mut layer = InkLayer::new(0, 0, 600, 120);
    let (_, _, width, height) = write_text(
        &mut layer,
        scripts,
        hand,
        text,
        TextBox {
            x: 0.0,
            y: 0.0,
            width: 600.0,
            height: 120.0,
        },
        false,
        &mut Rng::new(5),
    )
    .expect("the text is drawn");
    (height, width)
}

#[test]
fn school_hands_build_letters_from_other_letters_samples() {
    let scripts = scripts().clone().part(Part::Training);
    let mut rng = Rng::new(3);
    let mut hand = std::iter::repeat_with(|| Hand::random(&scripts, &mut rng))
        .find(|h| matches!(h.source, LetterSource::Glyphs { .. }))
        .expect("some hands write with real glyphs");
    (hand.jitter, hand.wobble, hand.slant, hand.size) = (0.0, 0.0, 0.0, 0.5);
    let with = |school: SchoolForms| {
        let mut writer = hand.clone();
        writer.school = school;
        writer
    };
    let plain = with(SchoolForms::default());

    // `f4` spans the capital height; an f through the baseline or looped below it adds about
    // 0.4 of it below.
    let (plain_height, _) = written_box(&scripts, &plain, "f4");
    for f in [SchoolF::BelowBaseline, SchoolF::Looped] {
        let writer = with(SchoolForms {
            f,
            ..SchoolForms::default()
        });
        let (height, _) = written_box(&scripts, &writer, "f4");
        assert!(
            height > plain_height * 1.25,
            "{f:?}: {height} vs {plain_height}"
        );
    }

    // A letter built from two others is as wide as the two written close together, and never
    // the letter's own sample.
    let built_from = [
        (
            "d",
            "cl",
            SchoolForms {
                d_as_c_and_stem: true,
                ..SchoolForms::default()
            },
        ),
        (
            "B",
            "l3",
            SchoolForms {
                b_as_stem_and_3: true,
                ..SchoolForms::default()
            },
        ),
        (
            "h",
            "ln",
            SchoolForms {
                h_as_stem_and_n: true,
                ..SchoolForms::default()
            },
        ),
        (
            "x",
            "cc",
            SchoolForms {
                x_as_two_arcs: true,
                ..SchoolForms::default()
            },
        ),
    ];
    for (letter, parts, school) in built_from {
        let (_, built) = written_box(&scripts, &with(school), letter);
        let (_, separate) = written_box(&scripts, &plain, parts);
        let (_, own) = written_box(&scripts, &plain, letter);
        assert!(
            built < separate * 1.05,
            "{letter}: {built} vs {parts} {separate}"
        );
        assert!(
            built > separate * 0.7,
            "{letter}: {built} vs {parts} {separate}"
        );
        assert_ne!(built, own, "{letter} is still drawn from its own sample");
    }

    // An open 4 is a y sample standing on the baseline: as tall as the printed 4, not
    // hanging below it.
    let open_4 = with(SchoolForms {
        open_4: true,
        ..SchoolForms::default()
    });
    let (open_height, _) = written_box(&scripts, &open_4, "4");
    let (printed_height, _) = written_box(&scripts, &plain, "4");
    assert!(
        open_height < printed_height * 1.2,
        "{open_height} vs {printed_height}"
    );
    let (y_height, _) = written_box(&scripts, &plain, "y");
    assert_ne!(open_height, y_height);

    // A king written as a lowercase k is drawn from a k sample, not a K one.
    let lowercase_k = with(SchoolForms {
        k_as_lowercase: true,
        ..SchoolForms::default()
    });
    assert_eq!(
        written_box(&scripts, &lowercase_k, "Ke7"),
        written_box(&scripts, &plain, "ke7")
    );
    assert_ne!(
        written_box(&scripts, &plain, "Ke7"),
        written_box(&scripts, &plain, "ke7")
    );
}

#[test]
fn uneven_hands_leave_wider_gaps_between_some_letters() {
    let scripts = scripts().clone().part(Part::Training);
    let mut rng = Rng::new(4);
    // A font hand draws each letter the same way every time: only the gaps differ.
    let mut hand = std::iter::repeat_with(|| Hand::random(&scripts, &mut rng))
        .take(100)
        .find(|h| matches!(h.source, LetterSource::Font(_)))
        .expect("some hands write in a handwriting font");
    (hand.jitter, hand.wobble, hand.slant, hand.size) = (0.0, 0.0, 0.0, 0.5);
    hand.gap_jitter = 0.0;
    let (even_height, even_width) = written_box(&scripts, &hand, "Rxa3");
    hand.gap_jitter = 0.8;
    let (uneven_height, uneven_width) = written_box(&scripts, &hand, "Rxa3");
    // Three gaps, each up to 0.8 of the capital height (at most 65 px here) wider.
    assert!(
        uneven_width > even_width + 5.0,
        "{uneven_width} vs {even_width}"
    );
    assert!(uneven_width < even_width + 3.0 * 0.8 * 65.0);
    assert_eq!(even_height, uneven_height);
}
