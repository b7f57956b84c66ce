//! The HTML review page in a real browser: Debian's chromium (installed by scripts/setup)
//! opens the page `scoresheet read --report` writes for a sample sheet, runs its script and
//! draws it.

use std::process::Command;

mod scratch;
use scratch::Scratch;

fn chromium(args: &[&str]) -> std::process::Output {
    Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--virtual-time-budget=3000",
        ])
        .args(args)
        .output()
        .expect("chromium runs (scripts/setup installs it)")
}

/// Runs `scoresheet read ARGS --format json` in the crate's folder; the game as JSON.
fn read_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_scoresheet"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("read")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_review_page_opens_in_chromium_with_every_move_and_the_selected_cell() {
    let scratch = Scratch::new("review-page");
    let report = scratch.path("review.html");
    let overlay = scratch.path("overlay.png");
    let game = read_json(&[
        "samples/sheets/00002-ru-chesscom-2x25.jpg",
        "--report",
        report.to_str().unwrap(),
        "--overlay",
        overlay.to_str().unwrap(),
    ]);
    let moves = game["moves"].as_array().unwrap().len();
    assert!(moves > 40, "{moves} moves");

    // The overlay is the page itself, with the flagged moves' cells in red.
    let drawn = image::open(&overlay).unwrap().to_rgb8();
    let page = image::open(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("samples/sheets/00002-ru-chesscom-2x25.jpg"),
    )
    .unwrap();
    assert_eq!(drawn.dimensions(), (page.width(), page.height()));
    let red = drawn.pixels().filter(|p| p.0 == [220, 20, 20]).count();
    let flagged = game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["flagged"] == true && m["quad"][2][0].as_f64().unwrap_or(0.0) > 0.0)
        .count();
    assert_eq!(
        red > 0,
        flagged > 0,
        "{red} red pixels, {flagged} flagged moves"
    );

    // The script ran: the move linked from the address is selected in the table and on the
    // sheet.
    let url = format!("file://{}#move-5", report.display());
    let dom = chromium(&["--dump-dom", &url]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(
        dom.matches("<tr id=\"move-").count(),
        moves,
        "one row per move"
    );
    assert!(
        dom.contains("id=\"move-5\" data-move=\"5\" class=\"selected\"")
            || dom.contains("id=\"move-5\" data-move=\"5\" class=\"flagged selected\""),
        "the linked row is selected"
    );
    assert!(
        dom.contains("id=\"cell-5\" data-move=\"5\" class=\"cell selected\"")
            || dom.contains("id=\"cell-5\" data-move=\"5\" class=\"cell flagged selected\""),
        "the linked cell is outlined on the sheet"
    );

    // Drawn: the dark header band, the sheet photo beside the table, the crops and boards.
    let shot = scratch.path("review.png");
    let drawn = chromium(&[
        "--window-size=1400,3000",
        &format!("--screenshot={}", shot.display()),
        &format!("file://{}", report.display()),
    ]);
    assert!(shot.exists(), "{}", String::from_utf8_lossy(&drawn.stderr));
    let image = image::open(&shot).unwrap().to_rgb8();
    assert_eq!(image.dimensions(), (1400, 3000));
    let header = image.get_pixel(700, 20).0;
    assert!(
        header.iter().all(|&c| c < 60),
        "dark header, got {header:?}"
    );
    // The page column shows the photo: many distinct greys, not a blank panel.
    let mut levels = std::collections::BTreeSet::new();
    for y in (200..900).step_by(7) {
        for x in (40..500).step_by(7) {
            levels.insert(image.get_pixel(x, y).0[1] / 8);
        }
    }
    assert!(
        levels.len() > 12,
        "the sheet is drawn ({} grey levels)",
        levels.len()
    );
    // The table's board squares (#f0d9b5 / #b58863) appear somewhere on the right.
    let board_squares = image
        .enumerate_pixels()
        .filter(|(x, _, p)| *x > 600 && (p.0 == [0xf0, 0xd9, 0xb5] || p.0 == [0xb5, 0x88, 0x63]))
        .count();
    assert!(
        board_squares > 5000,
        "boards drawn ({board_squares} pixels)"
    );
}

#[test]
fn a_copy_of_the_sheet_is_read_as_evidence_for_the_same_plies() {
    let scratch = Scratch::new("review-with-copy");
    let sheet = "samples/sheets/00005-uk-chesscom-2x25.jpg";
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("samples/sheets/00005-uk-chesscom-2x25.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let report = scratch.path("copy.html");
    let right = |game: &serde_json::Value| {
        game["moves"]
            .as_array()
            .unwrap()
            .iter()
            .zip(truth["moves_san"].as_array().unwrap())
            .filter(|(m, t)| m["san"] == **t)
            .count()
    };
    let alone = read_json(&[sheet]);
    let both = read_json(&[sheet, "--copy", sheet, "--report", report.to_str().unwrap()]);
    // The copy agrees cell for cell: every ply keeps its cell on the own sheet (page 0).
    let moves = both["moves"].as_array().unwrap();
    assert_eq!(moves.len(), alone["moves"].as_array().unwrap().len());
    assert!(moves.iter().all(|m| m["page"] == 0 || m["page"].is_null()));
    let plies = truth["moves_san"].as_array().unwrap().len();
    assert!(
        right(&both) * 100 >= plies * 95,
        "{} of {plies}",
        right(&both)
    );
    assert_eq!(both["pages"].as_array().map(Vec::len), Some(2));
    // Each ply both sheets wrote keeps the copy's cell beside its own, in the JSON and as a
    // second crop in the review.
    let fused: Vec<&serde_json::Value> = moves.iter().filter(|m| m["copy"].is_object()).collect();
    assert!(
        fused.len() * 100 >= moves.len() * 95,
        "{} of {}",
        fused.len(),
        moves.len()
    );
    assert!(fused
        .iter()
        .all(|m| m["copy"]["page"] == 1 && m["copy"]["read"] == m["read"]));
    let html = std::fs::read_to_string(&report).unwrap();
    assert_eq!(html.matches("<figure class=\"page\">").count(), 2);
    assert_eq!(
        html.matches("<small class=\"whose\">copy</small>").count(),
        fused.len()
    );
    let with_cell = moves.iter().filter(|m| m["quad"].is_array()).count();
    assert_eq!(
        html.matches("<img class=\"crop\"").count(),
        with_cell + fused.len()
    );
}

#[test]
fn a_sheet_that_cannot_be_read_is_set_aside_and_the_game_read_from_the_other() {
    let scratch = Scratch::new("set-aside");
    let blank_path = scratch.path("blank.png");
    image::GrayImage::from_pixel(900, 1200, image::Luma([235]))
        .save(&blank_path)
        .unwrap();
    let blank = blank_path.to_str().unwrap();
    let sheet = "samples/sheets/00005-uk-chesscom-2x25.jpg";
    let sans = |game: &serde_json::Value| -> Vec<String> {
        game["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["san"].as_str().unwrap().to_string())
            .collect()
    };
    let alone = read_json(&[sheet]);
    assert!(alone["set_aside"].is_null());
    assert!(sans(&alone).len() > 40);

    // A copy with no grid: the game is the own sheet's, and says so.
    let no_copy = read_json(&[sheet, "--copy", blank]);
    assert_eq!(no_copy["set_aside"]["sheet"], "copy");
    let error = no_copy["set_aside"]["error"].as_str().unwrap();
    assert!(error.contains(blank) && error.contains("grid"), "{error}");
    assert_eq!(no_copy["moves"], alone["moves"]);
    let pgn = no_copy["pgn"].as_str().unwrap();
    let first_move = pgn.find("1. ").unwrap();
    assert!(
        pgn[..first_move].contains("{the other player's copy could not be read ("),
        "{pgn}"
    );

    // A copy torn after its first 5 kB: set aside for that reason, and not listed again among
    // the torn pages the game was read from.
    let torn_path = scratch.path("torn-copy.jpg");
    std::fs::write(&torn_path, &std::fs::read(sheet).unwrap()[..5000]).unwrap();
    let torn_copy = read_json(&[sheet, "--copy", torn_path.to_str().unwrap()]);
    assert_eq!(torn_copy["set_aside"]["sheet"], "copy");
    let error = torn_copy["set_aside"]["error"].as_str().unwrap();
    assert!(error.contains("torn"), "{error}");
    assert_eq!(torn_copy["torn_pages"], serde_json::json!([]));
    assert_eq!(torn_copy["moves"], alone["moves"]);

    // An own sheet with no grid: the game is the copy's, its cells on the copy's page.
    let report = scratch.path("set-aside.html");
    let from_copy = read_json(&[blank, "--copy", sheet, "--report", report.to_str().unwrap()]);
    assert_eq!(from_copy["set_aside"]["sheet"], "own");
    assert_eq!(sans(&from_copy), sans(&alone));
    assert_eq!(from_copy["pages"].as_array().map(Vec::len), Some(2));
    assert!(from_copy["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["page"] == 1 || m["page"].is_null()));
    let html = std::fs::read_to_string(&report).unwrap();
    assert_eq!(html.matches("<figure class=\"page\">").count(), 2);
    assert!(html.contains("<p class=\"note\">the game&#39;s own sheet could not be read"));

    // Neither sheet: an error naming both causes, and a non-zero exit.
    let out = Command::new(env!("CARGO_BIN_EXE_scoresheet"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["read", blank, "--copy", blank])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot be read either"), "{stderr}");
}
