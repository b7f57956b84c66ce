//! The `scoresheet` binary as a user runs it: the sample sheets, output formats and clear
//! errors with a non-zero exit on bad input.

use std::path::Path;
use std::process::{Command, Output};

use scoresheet::recognize::ctc::look_alike;

mod pdf;
mod scratch;
use scratch::Scratch;

fn scoresheet(args: &[&str]) -> Output {
    scoresheet_with_env(args, &[])
}

/// The binary run with these environment variables set (`(name, value)`).
fn scoresheet_with_env(args: &[&str], vars: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scoresheet"))
        .args(args)
        .envs(vars.iter().copied())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the scoresheet binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// How many of the moves a read's JSON gives (`moves[].san`) are the generator's truth's
/// (`moves_san`), ply by ply.
fn plies_right(read: &serde_json::Value, truth: &serde_json::Value) -> usize {
    let played = truth["moves_san"].as_array().expect("the truth's moves");
    read["moves"]
        .as_array()
        .expect("the read's moves")
        .iter()
        .zip(played)
        .filter(|(m, san)| m["san"] == **san)
        .count()
}

/// The JSON a successful run printed.
fn json_out(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_str(&stdout(o)).expect("JSON on standard output")
}

#[test]
fn decodes_the_opera_game_sample_with_its_slips() {
    let out = scoresheet(&["decode", "samples/opera-game.tsv"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let pgn = stdout(&out);
    for expected in [
        "[Result \"1-0\"]",
        "9. Bg5 b5",
        "11. Bxb5+ Nbd7 12. O-O-O Rd8",
        "17. Rd8# 1-0",
    ] {
        assert!(pgn.contains(expected), "missing {expected:?} in\n{pgn}");
    }
    assert!(
        pgn.contains("{? cell unreadable"),
        "the illegible cell is flagged:\n{pgn}"
    );
}

#[test]
fn decodes_russian_notation_to_json() {
    let out = scoresheet(&[
        "decode",
        "samples/evergreen-russian.tsv",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["language"], "ru");
    assert_eq!(json["result"], "1-0");
    let moves = json["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 47);
    assert_eq!(moves[2]["san"], "Nf3");
    assert_eq!(moves[2]["written"], "Кf3");
    assert_eq!(moves.last().unwrap()["san"], "Bxe7#");
}

/// Both players' transcripts of the Opera Game: Black's sheet left 3...Bg4's cell empty and
/// has `Rxd7` for 13...Rxd7, where White's sheet has `?`; together they read the whole game,
/// each move with both players' writing.
#[test]
fn decodes_both_players_transcripts_together() {
    let scratch = Scratch::new("opera-both-copies");
    let copy = scratch.file(
        "opera-black.tsv",
        "1\te4\te5\n2\tNf3\td6\n3\td4\n4\tdxe5\tBxf3\n5\tQxf3\tdxe5\n6\tBc4\tNf6\n\
         7\tQb3\tQe7\n8\tNc3\tc6\n9\tBg5\tb5\n10\tNxb5\tcxb5\n11\tBxb5+\tNbd7\n\
         12\tO-O-O\tRd8\n13\tRxd7\tRxd7\n14\tRd1\tQe6\n15\tBxd7+\tNxd7\n16\tQb8+\tNxb8\n\
         17\tRd8#\n"
            .as_bytes(),
    );
    let out = scoresheet(&[
        "decode",
        "samples/opera-game.tsv",
        "--copy",
        copy.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let moves = json["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 33);
    assert_eq!(json["result"], "1-0");
    // 13...Rxd7: illegible on White's sheet, read from Black's.
    assert_eq!(moves[25]["san"], "Rxd7");
    assert_eq!(moves[25]["copy_written"], "Rxd7");
    assert_eq!(moves[25]["flagged"], false, "{}", moves[25]);
    // 3...Bg4: written on White's sheet only.
    assert_eq!(moves[5]["san"], "Bg4");
    assert_eq!(moves[5]["written"], "Bg4");
    assert_eq!(moves[5]["copy_written"], "");
    assert_eq!(moves[6]["written"], "de5");
    assert_eq!(moves[6]["copy_written"], "dxe5");
    assert_clear_error(
        &scoresheet(&[
            "decode",
            "samples/opera-game.tsv",
            "--copy",
            "no/such/copy.tsv",
        ]),
        &["no/such/copy.tsv", "No such file"],
    );
}

#[test]
fn writes_to_a_file_and_reads_standard_input() {
    let scratch = Scratch::new("output-file");
    let target = scratch.path("out.pgn");
    let out = scoresheet(&[
        "decode",
        "samples/opera-game.tsv",
        "-o",
        target.to_str().unwrap(),
        "--white",
        "Morphy",
    ]);
    assert!(out.status.success());
    let pgn = std::fs::read_to_string(&target).unwrap();
    assert!(pgn.contains("[White \"Morphy\"]"));

    let mut child = Command::new(env!("CARGO_BIN_EXE_scoresheet"))
        .args(["decode", "-", "--lang", "de"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"1\te4\te5\n2\tSf3\tSc6\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        stdout(&out).contains("1. e4 e5 2. Nf3 Nc6"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn chess960_and_fen_starts() {
    let scratch = Scratch::new("starts");
    let path = scratch.file("960.tsv", b"1\tb3\tb6\n2\t0-0\t0-0\n");
    let out = scoresheet(&["decode", path.to_str().unwrap(), "--chess960", "3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let pgn = stdout(&out);
    assert!(
        pgn.contains("[Variant \"Chess960\"]") && pgn.contains("2. O-O O-O"),
        "{pgn}"
    );

    let path = scratch.file("fen.tsv", b"40\tKd2\tKf3\n");
    let out = scoresheet(&[
        "decode",
        path.to_str().unwrap(),
        "--start-fen",
        "8/8/8/8/8/8/6k1/4K3 w - - 0 40",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let pgn = stdout(&out);
    assert!(
        pgn.contains("[SetUp \"1\"]") && pgn.contains("40. Kd2 Kf3"),
        "{pgn}"
    );
}

#[test]
fn a_sheet_read_from_a_start_it_did_not_begin_at_is_doubted_with_advice() {
    // The sample's game was set up at move 9 (its JSON gives the position).
    let sheet = "samples/sheets/00000-en-fide-2x30.jpg";
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("samples/sheets/00000-en-fide-2x30.json").unwrap(),
    )
    .unwrap();
    let fen = truth["start_fen"].as_str().unwrap();
    let out = scoresheet(&["read", sheet, "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doubt = json_out(&out)["start_doubt"].clone();
    let note = doubt.as_str().unwrap_or_default();
    for advice in ["Chess960", "--start-fen", "read PAGE1 PAGE2"] {
        assert!(note.contains(advice), "{doubt}");
    }
    assert!(stderr(&out).contains(note), "{}", stderr(&out));
    let out = scoresheet(&["read", sheet, "--format", "json", "--start-fen", fen]);
    assert!(out.status.success(), "{}", stderr(&out));
    let read = json_out(&out);
    assert!(read["start_doubt"].is_null(), "{}", read["start_doubt"]);
    let sans: Vec<&str> = read["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap())
        .collect();
    let truth_sans: Vec<&str> = truth["moves_san"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(sans, truth_sans);
}

fn assert_clear_error(out: &Output, needles: &[&str]) {
    assert!(
        !out.status.success(),
        "expected failure, got {}",
        stdout(out)
    );
    let err = stderr(out);
    assert!(err.starts_with("error: "), "{err}");
    for needle in needles {
        assert!(err.contains(needle), "{err:?} should mention {needle:?}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_gets_a_clear_error_naming_file_and_cause() {
    let scratch = Scratch::new("bad-transcripts");
    assert_clear_error(
        &scoresheet(&["decode", "no/such/file.tsv"]),
        &["no/such/file.tsv", "No such file"],
    );
    let not_utf8 = scratch.file("latin1.tsv", b"1\te4\te5\n2\tF\xe4\n");
    assert_clear_error(
        &scoresheet(&["decode", not_utf8.to_str().unwrap()]),
        &["latin1.tsv", "line 2", "UTF-8"],
    );
    let no_number = scratch.file("nonumber.tsv", b"e4\te5\n");
    assert_clear_error(
        &scoresheet(&["decode", no_number.to_str().unwrap()]),
        &["nonumber.tsv", "line 1", "move number"],
    );
    let empty = scratch.file("empty.tsv", b"\n\n");
    assert_clear_error(
        &scoresheet(&["decode", empty.to_str().unwrap()]),
        &["empty.tsv", "no moves"],
    );
    assert_clear_error(
        &scoresheet(&[
            "decode",
            "samples/opera-game.tsv",
            "--start-fen",
            "not a fen",
        ]),
        &["--start-fen", "not a fen"],
    );
    assert_clear_error(
        &scoresheet(&["decode", "samples/opera-game.tsv", "--chess960", "960"]),
        &["960", "0 to 959"],
    );
    assert_clear_error(
        &scoresheet(&["decode", "samples/opera-game.tsv", "--lang", "xx"]),
        &["xx", "known"],
    );
}

#[test]
fn help_and_languages_explain_themselves() {
    let out = scoresheet(&["--help"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("decode"));
    let out = scoresheet(&["decode", "--help"]);
    assert!(stdout(&out).contains("TAB") && stdout(&out).contains("--start-fen"));
    let out = scoresheet(&["languages"]);
    let list = stdout(&out);
    assert!(list.lines().count() >= 30);
    assert!(list.contains("ru\tRussian\tКр Ф Л С К"));
    assert!(Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/opera-game.tsv")
        .exists());
}

#[test]
fn an_absurdly_long_transcript_is_refused() {
    let scratch = Scratch::new("long-transcript");
    let text: String = (1..=700).map(|i| format!("{i}\tNf3\tNf6\n")).collect();
    let path = scratch.file("long.tsv", text.as_bytes());
    assert_clear_error(
        &scoresheet(&["decode", path.to_str().unwrap()]),
        &["long.tsv", "longer than any scoresheet"],
    );
}

#[test]
fn cells_of_a_sample_sheet_as_json_with_an_overlay() {
    let scratch = Scratch::new("cells-overlay");
    let overlay = scratch.path("overlay.png");
    let out = scoresheet(&[
        "cells",
        "samples/sheets/00002-ru-chesscom-2x25.jpg",
        "--overlay",
        overlay.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let cells = json["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 100);
    assert_eq!(json["cells"][0]["ply"], 1);
    assert_eq!(json["cells"][99]["ply"], 100);
    assert_eq!(json["cells"][0]["quad"].as_array().unwrap().len(), 4);
    assert_eq!(json["blocks"][1]["first_move"], 26);
    let drawn = image::open(&overlay).expect("an overlay PNG");
    assert_eq!(
        drawn.width(),
        json["image"]["width"].as_u64().unwrap() as u32
    );
}

#[test]
fn cells_read_adds_the_model_reading_to_every_cell() {
    let out = scoresheet(&[
        "cells",
        "samples/sheets/00002-ru-chesscom-2x25.jpg",
        "--read",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("samples/sheets/00002-ru-chesscom-2x25.json").unwrap(),
    )
    .unwrap();
    let written = truth["written"].as_array().unwrap();
    let cells = json["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 100);
    let mut agree = 0;
    for cell in cells {
        let confidence = cell["text_confidence"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&confidence), "{cell}");
        let ply = cell["ply"].as_u64().unwrap() as usize;
        let truth = written.get(ply - 1).and_then(|w| w.as_str()).unwrap_or("");
        // К and K, С and C look the same in any hand (`ctc::LOOKALIKES`).
        agree += usize::from(look_alike(cell["text"].as_str().unwrap(), truth));
    }
    assert!(agree >= 88, "{agree} of 100 cells read as written");
    // A model that is not there is a clear error naming it.
    let out = scoresheet(&[
        "cells",
        "samples/sheets/00001-de-single-40.jpg",
        "--read",
        "--model",
        "no/such/model.onnx",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no/such/model.json"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn tells_a_sheet_in_descriptive_notation_and_reads_it_with_the_descriptive_reader() {
    let sheet = "samples/descriptive/00002-en-single-40";
    // Not told the notation: a sample of the cells tells it, and the user is told so.
    let out = scoresheet(&["read", &format!("{sheet}.jpg"), "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("English descriptive notation"),
        "{}",
        stderr(&out)
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{sheet}.json")).unwrap()).unwrap();
    assert_eq!(json["notation"], "descriptive");
    assert_eq!(json["language"], "en");
    let moves = json["moves"].as_array().unwrap();
    let game = truth["moves_san"].as_array().unwrap();
    let right = plies_right(&json, &truth);
    assert!(
        right * 10 >= game.len() * 9,
        "{right} of {} moves right",
        game.len()
    );
    // What the report shows as written is in the sheet's notation, not algebraic.
    let descriptive = moves
        .iter()
        .filter(|m| {
            let written = m["written"].as_str().unwrap_or("");
            written.starts_with(['P', 'N', 'B', 'R', 'Q', 'K']) && written.contains(['-', 'x'])
        })
        .count();
    assert!(
        descriptive * 2 >= moves.len(),
        "{descriptive} of {}",
        moves.len()
    );
    // Descriptive notation is English: another language is a clear error, before any reading.
    assert_clear_error(
        &scoresheet(&[
            "read",
            &format!("{sheet}.jpg"),
            "--descriptive",
            "--lang",
            "de",
        ]),
        &["--descriptive", "English", "de"],
    );
}

#[test]
fn without_the_descriptive_reader_sheets_are_read_as_algebraic_with_a_warning() {
    let read = |extra: &[&str]| {
        let args = [
            &["read", "samples/sheets/00002-ru-chesscom-2x25.jpg"],
            extra,
        ]
        .concat();
        scoresheet_with_env(
            &args,
            &[("SCORESHEET_DESCRIPTIVE_MODEL", "no/such/descriptive.onnx")],
        )
    };
    // Not asked for, a missing descriptive reader costs only the telling: the sheet is read.
    let out = read(&["--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("warning: ")
            && err.contains("no/such/descriptive.json")
            && err.contains("read as algebraic"),
        "{err}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["notation"], "algebraic");
    assert!(json["moves"].as_array().unwrap().len() > 90);
    // Asked for, it is an error naming the file.
    assert_clear_error(&read(&["--descriptive"]), &["no/such/descriptive.json"]);
}

/// A page photographed from afar: its cells' height is given in the JSON, and under the
/// height the reader reads well, a warning says so; the page as taken has neither warning
/// nor small cells.
#[test]
fn a_page_photographed_small_is_read_with_a_warning() {
    let scratch = Scratch::new("small-page");
    let sheet = "samples/sheets/00002-ru-chesscom-2x25.jpg";
    let photo = image::open(sheet).unwrap().to_luma8();
    let small = image::imageops::resize(
        &photo,
        photo.width() * 2 / 5,
        photo.height() * 2 / 5,
        image::imageops::FilterType::Triangle,
    );
    let small_path = scratch.path("small.png");
    small.save(&small_path).unwrap();
    let cell_height = |out: &Output| {
        assert!(out.status.success(), "{}", stderr(out));
        let game: serde_json::Value = serde_json::from_str(&stdout(out)).unwrap();
        game["pages_cell_height_px"][0].as_f64().unwrap()
    };
    let as_taken = scoresheet(&["read", sheet, "--format", "json"]);
    let (full, warning) = (cell_height(&as_taken), "pixels high");
    assert!(full > 25.0, "{full}");
    assert!(
        !stderr(&as_taken).contains(warning),
        "{}",
        stderr(&as_taken)
    );
    let from_afar = scoresheet(&["read", small_path.to_str().unwrap(), "--format", "json"]);
    let height = cell_height(&from_afar);
    assert!((height - full * 0.4).abs() < 2.0, "{height} against {full}");
    let note = stderr(&from_afar);
    assert!(
        note.contains(&format!(
            "warning: {}: the cells are only about",
            small_path.display()
        )) && note.contains(warning),
        "{note}"
    );
}

/// A TIFF file of grey pages, each `(page, thumbnail)`: a thumbnail is marked as a
/// reduced-resolution copy of a page, as scanners write them.
fn multi_page_tiff(pages: &[(&image::GrayImage, bool)]) -> Vec<u8> {
    let mut bytes = std::io::Cursor::new(Vec::new());
    let mut encoder = tiff::encoder::TiffEncoder::new(&mut bytes).unwrap();
    for &(page, thumbnail) in pages {
        let mut image = encoder
            .new_image::<tiff::encoder::colortype::Gray8>(page.width(), page.height())
            .unwrap();
        if thumbnail {
            let directory = image.encoder();
            directory
                .write_tag(tiff::tags::Tag::NewSubfileType, 1u32)
                .unwrap();
        }
        image.write_data(page.as_raw()).unwrap();
    }
    bytes.into_inner()
}

/// Archives scan a long game's sheets into one multi-page TIFF: each full-size page is a page
/// of the game (a thumbnail is not), `cells --page N` finds the cells of one, and an error
/// names the file and the page.
#[test]
fn a_multi_page_tiff_is_read_page_by_page() {
    let scratch = Scratch::new("tiff-pages");
    let sheet = "samples/sheets/00002-ru-chesscom-2x25.jpg";
    let page = scoresheet::page::Sheet::open(Path::new(sheet))
        .unwrap()
        .grey()
        .into_owned();
    let thumbnail = image::imageops::resize(
        &page,
        page.width() / 8,
        page.height() / 8,
        image::imageops::FilterType::Triangle,
    );
    let blank = image::GrayImage::from_pixel(900, 1200, image::Luma([240]));
    let scan = scratch.file(
        "scan.tif",
        &multi_page_tiff(&[(&page, false), (&thumbnail, true)]),
    );
    let two = scratch.file(
        "two.tif",
        &multi_page_tiff(&[(&blank, false), (&page, false)]),
    );
    let (scan, two) = (scan.to_str().unwrap(), two.to_str().unwrap());
    let from_jpeg = json_out(&scoresheet(&["read", sheet, "--format", "json"]));
    let from_tiff = json_out(&scoresheet(&["read", scan, "--format", "json"]));
    // The same pixels in grey: the same cells, readings and moves.
    assert_eq!(from_tiff["moves"], from_jpeg["moves"]);
    assert!(from_tiff["moves"].as_array().unwrap().len() > 50);
    assert_eq!(from_tiff["pages"], serde_json::json!([scan]));

    let mut cells_of_jpeg = json_out(&scoresheet(&["cells", sheet]));
    let mut cells_of_page = json_out(&scoresheet(&["cells", "--page", "2", two]));
    assert_eq!(
        cells_of_page["image"]["file"],
        serde_json::json!(format!("{two} (page 2 of 2)"))
    );
    cells_of_jpeg["image"]["file"] = serde_json::Value::Null;
    cells_of_page["image"]["file"] = serde_json::Value::Null;
    assert_eq!(cells_of_page, cells_of_jpeg);

    let out = scoresheet(&["cells", "--page", "3", two]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("{two}: there is no page 3: the file has 2 pages")),
        "{}",
        stderr(&out)
    );
    let out = scoresheet(&["read", two]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("{two} (page 1 of 2): ")),
        "{}",
        stderr(&out)
    );
}

/// Archives keep scans as PDF files: each page's scan is a page of the game, read as the
/// image file would be, and a page that holds no scan is an error naming the file and page.
#[test]
fn a_pdf_of_scans_is_read_page_by_page() {
    let scratch = Scratch::new("pdf-pages");
    let sheet = "samples/sheets/00002-ru-chesscom-2x25.jpg";
    let jpeg = std::fs::read(sheet).unwrap();
    let (width, height) = image::image_dimensions(sheet).unwrap();
    let scan = || {
        Some(pdf::image(
            width,
            height,
            "DeviceRGB",
            Some("DCTDecode"),
            jpeg.clone(),
        ))
    };
    let one = scratch.file("round-3.pdf", &pdf::pdf_of(vec![scan()]));
    let two = scratch.file("two.pdf", &pdf::pdf_of(vec![scan(), None]));
    let (one, two) = (one.to_str().unwrap(), two.to_str().unwrap());
    let from_jpeg = json_out(&scoresheet(&["read", sheet, "--format", "json"]));
    let from_pdf = json_out(&scoresheet(&["read", one, "--format", "json"]));
    assert_eq!(from_pdf["moves"], from_jpeg["moves"]);
    assert_eq!(from_pdf["pages"], serde_json::json!([one]));
    let out = scoresheet(&["read", two]);
    assert_eq!(out.status.code(), Some(1));
    let no_scan = format!("{two} (page 2 of 2): the page holds no scanned image");
    assert!(stderr(&out).contains(&no_scan), "{}", stderr(&out));
    // One page of a file, as FILE#N; a page the file lacks is an error.
    let first = json_out(&scoresheet(&[
        "read",
        &format!("{two}#1"),
        "--format",
        "json",
    ]));
    assert_eq!(first["moves"], from_jpeg["moves"]);
    assert_eq!(
        first["pages"],
        serde_json::json!([format!("{two} (page 1 of 2)")])
    );
    let out = scoresheet(&["read", &format!("{two}#3")]);
    assert!(stderr(&out).contains(&format!("{two}: there is no page 3: the file has 2 pages")));
    // A round scanned into one file, read page by page: one game a page.
    let (input, results) = (scratch.path("round"), scratch.path("results"));
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(two, input.join("two.pdf")).unwrap();
    let args = [
        "batch",
        input.to_str().unwrap(),
        "--out",
        results.to_str().unwrap(),
    ];
    let out = scoresheet(&[&args[..], &["--each-page"]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let game: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("two-p1.json")).unwrap())
            .unwrap();
    assert_eq!(game["moves"], from_jpeg["moves"]);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("_summary.json")).unwrap())
            .unwrap();
    let failures = summary["failures"].as_array().unwrap();
    assert_eq!((summary["games"].as_u64(), failures.len()), (Some(2), 1));
    assert!(
        failures[0]["file"].as_str().unwrap().ends_with("two.pdf#2"),
        "{failures:?}"
    );
    assert!(failures[0]["error"]
        .as_str()
        .unwrap()
        .contains("no scanned image"));
}

/// A long game's second page reads on where the first stops; a page of another game given
/// as the second page is noted, naming it, since what is clearly written there is no legal
/// continuation. The Russian sample's two blocks of 25 rows, cut apart, are a game of two
/// pages.
#[test]
fn a_second_page_reads_on_and_a_page_of_another_game_is_noted() {
    let scratch = Scratch::new("second-page");
    let sheet = image::open("samples/sheets/00002-ru-chesscom-2x25.jpg").unwrap();
    let (width, height) = (sheet.width(), sheet.height());
    // The blocks meet at x = 542-557 (`scoresheet cells`).
    let first = scratch.path("moves-1-25.png");
    sheet.crop_imm(0, 0, 552, height).save(&first).unwrap();
    let second = scratch.path("moves-26-50.png");
    sheet
        .crop_imm(535, 0, width - 535, height)
        .save(&second)
        .unwrap();
    let (first, second) = (first.to_str().unwrap(), second.to_str().unwrap());
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("samples/sheets/00002-ru-chesscom-2x25.json").unwrap(),
    )
    .unwrap();
    let read = |pages: &[&str]| -> (serde_json::Value, String) {
        let out = scoresheet(&[&["read", "--format", "json"], pages].concat());
        (json_out(&out), stderr(&out))
    };
    let (game, notes) = read(&[first, second]);
    let moves = game["moves"].as_array().unwrap();
    let right = moves
        .iter()
        .zip(truth["moves_san"].as_array().unwrap())
        .filter(|(m, san)| m["san"] == **san)
        .count();
    assert!(
        moves.len() == 100 && right >= 98,
        "{right} of {}",
        moves.len()
    );
    assert!(moves[60]["page"] == 1, "{}", moves[60]);
    assert_eq!(game["continuation_doubts"], serde_json::json!([]));
    assert!(!notes.contains("does not continue"), "{notes}");

    let other_game = "samples/sheets/00005-uk-chesscom-2x25.jpg";
    let (game, notes) = read(&[first, other_game]);
    let doubts = game["continuation_doubts"].as_array().unwrap();
    assert_eq!(doubts.len(), 1, "{doubts:?}");
    let note = format!("{other_game}: ");
    assert!(doubts[0].as_str().unwrap().starts_with(&note), "{doubts:?}");
    assert!(notes.contains(&format!("warning: {note}")), "{notes}");
}

#[test]
fn cells_errors_name_the_file_and_the_cause() {
    let scratch = Scratch::new("cells-errors");
    let text = scratch.file("moves.jpg", b"1. e4 e5");
    let out = scoresheet(&["cells", text.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("error: {}: ", text.display())),
        "{err}"
    );
    let out = scoresheet(&["cells", "no/such/sheet.png"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no/such/sheet.png"),
        "{}",
        stderr(&out)
    );
    let blank = scratch.file("blank.png", &{
        let mut bytes = Vec::new();
        image::DynamicImage::ImageLuma8(image::GrayImage::from_pixel(
            900,
            1200,
            image::Luma([240]),
        ))
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .unwrap();
        bytes
    });
    let out = scoresheet(&["cells", blank.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not a scoresheet"),
        "{}",
        stderr(&out)
    );
    // A photo that lost its last quarter: the cells above the cut, and a warning.
    let photo = std::fs::read("samples/sheets/00002-ru-chesscom-2x25.jpg").unwrap();
    let torn = scratch.file("torn.jpg", &photo[..photo.len() * 3 / 4]);
    let out = scoresheet(&["cells", torn.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("{}: the JPEG file ends before", torn.display())),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_batch_with_a_corrupt_file_keeps_every_other_game_and_restarts() {
    let scratch = Scratch::new("batch");
    let dir = scratch.dir();
    let (input, out) = (dir.join("in"), dir.join("out"));
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(
        "samples/sheets/00001-de-single-40.jpg",
        input.join("00001-de-single-40.jpg"),
    )
    .unwrap();
    // A photo whose last quarter was lost in copying: read, and reported as torn.
    let photo = std::fs::read("samples/sheets/00002-ru-chesscom-2x25.jpg").unwrap();
    let cut = input.join("00002-ru-chesscom-2x25.jpg");
    std::fs::write(&cut, &photo[..photo.len() * 3 / 4]).unwrap();
    std::fs::write(
        input.join("torn.jpg"),
        b"\xff\xd8\xff\xe0 not really a JPEG",
    )
    .unwrap();
    std::fs::write(input.join("notes.txt"), b"not an image, not a game").unwrap();
    // A sheet scanned upside down: read the right way up, and listed as turned.
    let upside_down = input.join("00005-uk-upside-down.png");
    image::open("samples/sheets/00005-uk-chesscom-2x25.jpg")
        .unwrap()
        .rotate180()
        .save(&upside_down)
        .unwrap();
    let run = || {
        scoresheet(&[
            "batch",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            "2",
            "--reports",
        ])
    };
    let first = run();
    assert_eq!(first.status.code(), Some(1), "a failure is reported");
    assert!(stderr(&first).contains("torn.jpg"), "{}", stderr(&first));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("_summary.json")).unwrap()).unwrap();
    assert_eq!(summary["games"], 4);
    assert_eq!(summary["finished"], 3);
    assert_eq!(
        summary["failures"][0]["file"].as_str().unwrap(),
        input.join("torn.jpg").to_str().unwrap()
    );
    assert_eq!(
        summary["torn_pages"],
        serde_json::json!([cut.to_str().unwrap()])
    );
    assert_eq!(
        summary["turned_pages"],
        serde_json::json!([{"file": upside_down.to_str().unwrap(), "degrees": 180.0}])
    );
    // Games from the usual start, read as such: no start in doubt; in algebraic notation,
    // told so from their cells.
    assert_eq!(summary["start_doubts"], serde_json::json!([]));
    assert_eq!(summary["descriptive"], serde_json::json!([]));
    // Each finished game, in the folder's order, with its moves and flags to sort by.
    let by_game = summary["by_game"].as_array().unwrap();
    let files: Vec<&str> = by_game
        .iter()
        .map(|g| g["file"].as_str().unwrap())
        .collect();
    let in_folder = |name: &str| input.join(name).to_str().unwrap().to_string();
    assert_eq!(
        files,
        [
            in_folder("00001-de-single-40.jpg"),
            in_folder("00002-ru-chesscom-2x25.jpg"),
            in_folder("00005-uk-upside-down.png"),
        ]
    );
    let moves: u64 = by_game.iter().map(|g| g["moves"].as_u64().unwrap()).sum();
    let flagged: u64 = by_game.iter().map(|g| g["flagged"].as_u64().unwrap()).sum();
    assert_eq!(
        (moves, flagged),
        (
            summary["moves"].as_u64().unwrap(),
            summary["flagged"].as_u64().unwrap()
        )
    );
    for stem in [
        "00001-de-single-40",
        "00002-ru-chesscom-2x25",
        "00005-uk-upside-down",
    ] {
        let game: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(format!("{stem}.json"))).unwrap(),
        )
        .unwrap();
        assert!(game["moves"].as_array().unwrap().len() > 40, "{stem}");
        assert!(game["start_doubt"].is_null(), "{stem}");
        assert_eq!(game["notation"], "algebraic", "{stem}");
        assert_eq!(
            game["torn_pages"].as_array().unwrap().len(),
            usize::from(stem.starts_with("00002"))
        );
        assert!(
            game["moves"][0]["quad"].is_array(),
            "{stem}: each move keeps its cell"
        );
        // Its review page beside it, as `read --report` writes it.
        let page = std::fs::read_to_string(out.join(format!("{stem}.html"))).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>"), "{stem}");
        assert!(page.contains(stem), "{stem}: the page names its game");
    }
    assert!(
        !out.join("torn.html").exists(),
        "no page for a game not read"
    );
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 3);
    // Nothing half-written is left, and a rerun reads only what failed.
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    let second = run();
    assert_eq!(second.status.code(), Some(1));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("_summary.json")).unwrap()).unwrap();
    assert_eq!(summary["skipped"], 3);
    assert_eq!(summary["read"], 0);
    assert_eq!(
        std::fs::read_to_string(out.join("games.pgn")).unwrap(),
        pgn,
        "the database is rebuilt the same"
    );
}

/// Whether the PGN in the game JSON at `path` holds `tag`.
fn game_pgn_tagged(path: &std::path::Path, tag: &str) -> bool {
    let game: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    game["pgn"].as_str().unwrap_or_default().contains(tag)
}

#[test]
fn a_manifest_pairs_a_game_with_the_other_players_copy() {
    let scratch = Scratch::new("batch-copies");
    let dir = scratch.dir();
    let out = dir.join("out");
    let sheets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/sheets");
    std::fs::write(dir.join("torn.jpg"), b"\xff\xd8\xff\xe0 not really a JPEG").unwrap();
    std::fs::copy(
        sheets.join("00005-uk-chesscom-2x25.jpg"),
        dir.join("white.jpg"),
    )
    .unwrap();
    std::fs::copy(
        sheets.join("00005-uk-chesscom-2x25.jpg"),
        dir.join("black.jpg"),
    )
    .unwrap();
    std::fs::copy(sheets.join("00001-de-single-40.jpg"), dir.join("other.jpg")).unwrap();
    let manifest = dir.join("round.tsv");
    // The other game's line also says where it started: the usual position, at move 5.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 5";
    // The first line names its players and its own event; the batch names the rest.
    std::fs::write(
        &manifest,
        format!(
            "white.jpg\t|\tblack.jpg\twhite=Kasparov, G.\tblack=Karpov, A.\tevent=WCh\n\
             other.jpg\t|\ttorn.jpg\tstart={start}\n"
        ),
    )
    .unwrap();
    let run = scoresheet(&[
        "batch",
        manifest.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--event",
        "Open 2026",
        "--round",
        "4",
        "--date",
        "2026.12.06",
    ]);
    // The torn copy is set aside: its game is read from the own sheet, and the summary says so.
    assert!(run.status.success(), "{}", stderr(&run));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("_summary.json")).unwrap()).unwrap();
    assert_eq!(summary["finished"], 2);
    assert_eq!(summary["failures"].as_array().map(Vec::len), Some(0));
    let cause = summary["set_aside"][0]["error"].as_str().unwrap();
    assert!(cause.contains("torn.jpg"), "{cause}");
    assert!(summary["set_aside"][0]["file"]
        .as_str()
        .unwrap()
        .ends_with("other.jpg"));
    let other: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("other.json")).unwrap()).unwrap();
    assert_eq!(other["set_aside"]["sheet"], "copy");
    assert_eq!(other["start_fen"], start);
    assert!(other["moves"].as_array().unwrap().len() > 40);
    let database = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert!(database.contains("{the other player's copy could not be read ("));
    let headers: Vec<&str> = database
        .lines()
        .filter(|line| {
            ["[Event ", "[Date ", "[Round ", "[White ", "[Black "]
                .iter()
                .any(|tag| line.starts_with(tag))
        })
        .collect();
    assert_eq!(
        headers,
        [
            "[Event \"WCh\"]",
            "[Date \"2026.12.06\"]",
            "[Round \"4\"]",
            "[White \"Kasparov, G.\"]",
            "[Black \"Karpov, A.\"]",
            "[Event \"Open 2026\"]",
            "[Date \"2026.12.06\"]",
            "[Round \"4\"]",
            "[White \"?\"]",
            "[Black \"?\"]",
        ]
    );
    assert!(game_pgn_tagged(
        &out.join("white.json"),
        "[White \"Kasparov, G.\"]"
    ));
    let game: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("white.json")).unwrap()).unwrap();
    let pages: Vec<&str> = game["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap_or_default())
        .collect();
    assert_eq!(pages.len(), 2, "{pages:?}");
    assert!(pages[1].ends_with("black.jpg"), "{pages:?}");
    assert!(game["moves"].as_array().unwrap().len() > 40);
    assert_eq!(
        game["start_fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
}

#[test]
fn a_chess960_game_whose_opening_reads_from_the_usual_start_is_read_from_its_own() {
    use scoresheet::games::shared_data_dir;

    // The generator's sheet 3 of seed 100: a Chess960 game from start 698 (RQKNBBNR), whose
    // first moves (b4 e5 Ne3 Nh6 b5 g6 a4 Bc5) the usual start allows nearly all of too.
    // Read from there, one of its first 12 moves is flagged, and 10 of its 77 in all.
    let scratch = Scratch::new("chess960-opening");
    let masters = shared_data_dir().join("games/masters.pgn.gz");
    let made = Command::new(env!("CARGO_BIN_EXE_scoresheet-synth"))
        .args(["--games", masters.to_str().unwrap(), "--part", "validation"])
        .args([
            "--lang", "all", "--layout", "all", "--count", "4", "--seed", "100",
        ])
        .arg("--out")
        .arg(scratch.dir())
        .output()
        .expect("the generator runs");
    assert!(made.status.success(), "{}", stderr(&made));
    let name = "00003-es-fide-2x30";
    let truth: serde_json::Value = serde_json::from_slice(
        &std::fs::read(scratch.path(&format!("{name}.json"))).expect("the sheet's truth"),
    )
    .unwrap();
    assert_eq!(truth["start_kind"], "chess960");
    let image = scratch.path(&format!("{name}.jpg"));
    let read = json_out(&scoresheet(&[
        "read",
        image.to_str().unwrap(),
        "--format",
        "json",
    ]));
    let found = read["start_found"].as_str().expect("a start found");
    assert!(found.contains("Chess960 start 698"), "{found}");
    assert_eq!(read["start_fen"], truth["start_fen"]);
    let played = truth["moves_san"].as_array().unwrap();
    let right = plies_right(&read, &truth);
    assert!(
        right * 100 >= played.len() * 95,
        "{right} of {}",
        played.len()
    );
}
