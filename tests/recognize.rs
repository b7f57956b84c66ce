//! The cell reader through ONNX Runtime, with a fake model built for the test
//! (`training/fake_reader.py`): a frame's mean ink decides its class, so what it must read is
//! known.

use std::path::{Path, PathBuf};

use image::{GrayImage, Luma};
use scoresheet::recognize::Reader;

mod common;
mod scratch;
use scratch::Scratch;

/// How many of the game's moves are the ones `played` (SAN), ply by ply.
fn moves_right<S: AsRef<str>>(game: &scoresheet::decode::Game, played: &[S]) -> usize {
    game.moves
        .iter()
        .zip(played)
        .filter(|(m, san)| m.san == san.as_ref())
        .count()
}

/// A one-page sheet of `game` in `language` drawn by the generator at 120 dpi on the built-in
/// form `layout`, as a test's input.
fn generated_sheet(
    name: &str,
    game: &scoresheet::synth::sheet::SheetGame,
    language: &str,
    layout: usize,
    seed: u64,
    capture: scoresheet::synth::camera::Capture,
) -> scoresheet::page::Sheet {
    use scoresheet::notation::Language;
    use scoresheet::synth::layout::Layout;
    use scoresheet::synth::sheet::{render_sheet, SheetRequest};

    let rendered = render_sheet(
        common::scripts(),
        &SheetRequest {
            id: name.into(),
            game,
            language: Language::by_code(language).unwrap(),
            layout: &Layout::built_in()[layout],
            seed,
            dpi: 120.0,
            capture: Some(capture),
            descriptive: false,
            page: 1,
        },
    )
    .unwrap();
    scoresheet::page::Sheet::from_image(name, image::DynamicImage::ImageRgb8(rendered.image))
}

fn fake_model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fake-reader.onnx")
}

/// A 192 x 48 cell whose 8 frames of 24 columns hold `ink` (0 none, 1 half the rows, 2 all).
fn cell(ink: [u8; 8]) -> GrayImage {
    GrayImage::from_fn(192, 48, |x, y| {
        let dark = match ink[(x / 24) as usize] {
            0 => false,
            1 => y % 2 == 0,
            _ => true,
        };
        Luma([if dark { 0 } else { 255 }])
    })
}

#[test]
fn reads_cells_in_order_across_batches() {
    let reader = Reader::load(&fake_model()).expect("the fake model loads");
    assert_eq!(reader.input_size(), (192, 48));
    let ba = cell([2, 0, 1, 0, 0, 0, 0, 0]);
    let ab = cell([1, 1, 0, 2, 0, 0, 0, 0]);
    let blank = cell([0; 8]);
    // More than one batch, mixed, so that any reordering shows.
    let cells: Vec<GrayImage> = (0..150)
        .map(|i| match i % 3 {
            0 => ba.clone(),
            1 => ab.clone(),
            _ => blank.clone(),
        })
        .collect();
    let read = reader.read(&cells).unwrap();
    assert_eq!(read.len(), cells.len());
    for (i, posteriors) in read.iter().enumerate() {
        let (text, probability) = posteriors.best_path();
        let expected = ["ba", "ab", ""][i % 3];
        assert_eq!(text, expected, "cell {i}");
        assert!(probability > 0.5, "cell {i}: {probability}");
        assert_eq!(posteriors.frames(), 8);
        // The CTC likelihood agrees with the best path.
        let wanted: Vec<char> = expected.chars().collect();
        let other: Vec<char> = if expected == "ba" {
            vec!['a', 'b']
        } else {
            vec!['b', 'a']
        };
        assert!(posteriors.log_likelihood(&wanted) > posteriors.log_likelihood(&other));
    }
    // A crop of another size is resized to the model's input.
    let big = image::imageops::resize(&ba, 384, 96, image::imageops::FilterType::Nearest);
    assert_eq!(reader.read(&[big]).unwrap()[0].best_path().0, "ba");
    assert!(reader.read(&[]).unwrap().is_empty());
}

#[test]
fn a_missing_or_broken_model_is_a_clear_error() {
    let scratch = Scratch::new("broken-model");
    let dir = scratch.dir();
    let err = Reader::load(&dir.join("none.onnx"))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("none.json"), "{err}");
    // A card beside bytes that are not a model.
    let model = dir.join("broken.onnx");
    std::fs::write(&model, b"not a model").unwrap();
    std::fs::copy(fake_model().with_extension("json"), dir.join("broken.json")).unwrap();
    let err = Reader::load(&model).err().unwrap().to_string();
    assert!(err.contains("broken.onnx"), "{err}");
    // A card naming an input the model does not have.
    let renamed = dir.join("renamed.onnx");
    std::fs::copy(fake_model(), &renamed).unwrap();
    let card = std::fs::read_to_string(fake_model().with_extension("json"))
        .unwrap()
        .replace("\"image\"", "\"pixels\"");
    std::fs::write(dir.join("renamed.json"), card).unwrap();
    let err = Reader::load(&renamed).err().unwrap().to_string();
    assert!(err.contains("pixels"), "{err}");
}

/// The shipped model reads the sample sheets' cells, found by the page stage: how often the
/// best path is what was written, and how often the true move outscores every other legal
/// move (each scored by its best written form, as the decoder does). The shipped int8 reader
/// measures 75.3% and 86.2% on these small (100 dpi) sheets (the float model 75.7% and 86.2%);
/// the bounds catch a broken model or crop, and `recognize-bench` measures it properly
/// (models/README.md).
#[test]
fn the_shipped_model_reads_the_sample_sheets() {
    use scoresheet::decode::CellEvidence;
    use scoresheet::notation::{for_each_form, legal_moves_with_facts, Language, Style};
    use scoresheet::page::{find_cells, PageOptions, Sheet};
    use scoresheet::recognize::ctc::look_alike;
    use scoresheet::recognize::read_cells;
    use shakmaty::san::San;
    use shakmaty::{Chess, Position};

    let reader = Reader::shipped().expect("models/reader-int8.onnx loads");
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/sheets");
    let (mut cells_read, mut exact, mut first) = (0usize, 0usize, 0usize);
    for stem in [
        "00003-hy-fide-2x30",
        "00002-ru-chesscom-2x25",
        "00005-uk-chesscom-2x25",
    ] {
        let truth: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(samples.join(format!("{stem}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(truth["start_kind"], "standard", "{stem}");
        let language = Language::by_code(truth["language"].as_str().unwrap()).unwrap();
        let mut position = Chess::default();
        let mut before = Vec::new();
        for san in truth["moves_san"].as_array().unwrap() {
            let m = san
                .as_str()
                .unwrap()
                .parse::<San>()
                .unwrap()
                .to_move(&position)
                .unwrap();
            before.push((position.clone(), m));
            position.play_unchecked(m);
        }
        let written: Vec<&str> = truth["written"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap_or(""))
            .collect();
        let sheet = Sheet::open(&samples.join(format!("{stem}.jpg"))).unwrap();
        let cells = find_cells(&sheet, &PageOptions::default()).unwrap();
        let readings = read_cells(reader, &sheet, &cells).unwrap();
        assert_eq!(readings.len(), cells.cells.len());
        for (cell, reading) in cells.cells.iter().zip(&readings) {
            let ply = cell.ply as usize;
            let (Some(text), Some((position, played))) =
                (written.get(ply - 1), before.get(ply - 1))
            else {
                continue;
            };
            cells_read += 1;
            // К and K, С and C... look the same in any hand (`ctc::LOOKALIKES`).
            exact += usize::from(look_alike(reading.text(), text));
            let score = |facts| {
                let mut best = f32::NEG_INFINITY;
                for_each_form(facts, language, &Style::default(), &mut |form, weight| {
                    let chars: Vec<char> = form.chars().collect();
                    best = best.max(weight + reading.log_likelihood(&chars, "", f32::NEG_INFINITY));
                });
                best
            };
            let legal = legal_moves_with_facts(position);
            let true_score = legal
                .iter()
                .find(|(m, _)| m == played)
                .map(|(_, f)| score(f));
            let other = legal
                .iter()
                .filter(|(m, _)| m != played)
                .map(|(_, f)| score(f))
                .fold(f32::NEG_INFINITY, f32::max);
            first += usize::from(true_score.is_some_and(|s| s > other));
        }
    }
    assert!(cells_read > 150, "{cells_read} cells");
    let exact_rate = exact as f64 / cells_read as f64;
    let first_rate = first as f64 / cells_read as f64;
    eprintln!("{cells_read} cells: exact {exact_rate:.3}, true move first {first_rate:.3}");
    assert!(exact_rate > 0.68, "exact {exact_rate:.3} of {cells_read}");
    assert!(
        first_rate > 0.80,
        "true move first {first_rate:.3} of {cells_read}"
    );
}

#[test]
fn the_shipped_int8_reader_reads_as_the_float_model_does() {
    use scoresheet::decode::CellEvidence;
    use scoresheet::page::{find_cells, PageOptions, Sheet};
    use scoresheet::recognize::read_cells;

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let int8 = Reader::shipped().expect("models/reader-int8.onnx loads");
    let float = Reader::load(&root.join("models/reader.onnx")).expect("the float model loads");
    assert_eq!(int8.input_size(), float.input_size());
    assert_eq!(int8.charset().classes(), float.charset().classes());
    let sheet = Sheet::open(&root.join("samples/sheets/00002-ru-chesscom-2x25.jpg")).unwrap();
    let cells = find_cells(&sheet, &PageOptions::default()).unwrap();
    let texts = |reader| -> Vec<String> {
        read_cells(reader, &sheet, &cells)
            .unwrap()
            .iter()
            .map(|cell| cell.text().to_string())
            .collect()
    };
    let (float_texts, int8_texts) = (texts(&float), texts(int8));
    let same = float_texts
        .iter()
        .zip(&int8_texts)
        .filter(|(a, b)| a == b)
        .count();
    assert!(
        same * 100 >= float_texts.len() * 95,
        "{same} of {} cells read alike",
        float_texts.len()
    );
}

/// A page photographed upside down, or sideways the wrong way for the page stage's first
/// guess, looks like a table of moves as much as the right way up: the reader tells which way
/// up it stands, and the cells are those of the upright page, in the right plies.
#[test]
fn a_page_upside_down_or_sideways_is_read_the_right_way_up() {
    use scoresheet::decode::CellEvidence;
    use scoresheet::page::{find_cells, PageOptions, Sheet};
    use scoresheet::read::{read_game, upright_cells, CellsToRead, ReadOptions};
    use scoresheet::report::PgnTags;

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let reader = Reader::shipped().expect("models/reader-int8.onnx loads");
    let upright = Sheet::open(&root.join("samples/sheets/00002-ru-chesscom-2x25.jpg")).unwrap();
    let (cells, readings) = upright_cells(
        reader,
        &upright,
        &PageOptions::default(),
        CellsToRead::Every,
    )
    .unwrap();
    assert_eq!(cells.turned_degrees, 0.0);
    let texts = |cells: &scoresheet::page::Cells,
                 readings: &[Option<scoresheet::recognize::CtcCell>]| {
        let mut by_ply: Vec<(u32, String)> = cells
            .cells
            .iter()
            .zip(readings)
            .map(|(cell, reading)| {
                let reading = reading.as_ref().expect("every cell read");
                (cell.ply, reading.text().to_string())
            })
            .collect();
        by_ply.sort();
        by_ply
    };
    let upright_texts = texts(&cells, &readings);
    for (turned_image, quarter_turns) in [
        (upright.image.rotate180(), 2),
        // Turned clockwise: the page stage's first guess, a quarter turn clockwise back,
        // stands the sheet on its head.
        (upright.image.rotate90(), 3),
    ] {
        let sheet = Sheet {
            name: "turned".into(),
            image: turned_image,
            torn: false,
        };
        if quarter_turns == 3 {
            let first_guess = find_cells(&sheet, &PageOptions::default()).unwrap();
            assert_eq!(first_guess.turned_degrees, 90.0);
        }
        let (cells, readings) =
            upright_cells(reader, &sheet, &PageOptions::default(), CellsToRead::Every).unwrap();
        assert_eq!(cells.turned_degrees, 90.0 * quarter_turns as f32);
        let turned_texts = texts(&cells, &readings);
        assert_eq!(turned_texts.len(), upright_texts.len());
        let alike = turned_texts
            .iter()
            .zip(&upright_texts)
            .filter(|(a, b)| a == b)
            .count();
        assert!(
            alike * 10 >= upright_texts.len() * 9,
            "{alike} of {} cells read alike turned {quarter_turns} quarters",
            upright_texts.len()
        );
        if quarter_turns == 2 {
            // The game read says so: in the JSON, and in a note for the user and the review.
            let read = read_game(&[sheet], &[], reader, &ReadOptions::default()).unwrap();
            let json = read.to_json(&PgnTags::default());
            assert_eq!(
                json["pages_turned_upright_degrees"],
                serde_json::json!([180.0])
            );
            let notes = read.turned_page_notes();
            assert!(
                notes.len() == 1 && notes[0].contains("turned 180 degrees"),
                "{notes:?}"
            );
        }
    }
}

/// The last page of a game is read up to its last inked cell: the empty boxes after the game
/// are left unread, the cells before it read as when every cell is.
#[test]
fn a_page_is_read_up_to_its_last_inked_cell() {
    use scoresheet::decode::CellEvidence;
    use scoresheet::page::{PageOptions, Sheet};
    use scoresheet::read::{upright_cells, CellsToRead};

    let reader = Reader::shipped().expect("models/reader-int8.onnx loads");
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/sheets");
    // 47 moves written on a form of 120 cells.
    let sheet = Sheet::open(&samples.join("00000-en-fide-2x30.jpg")).unwrap();
    let page = PageOptions::default();
    let (every_cells, every) = upright_cells(reader, &sheet, &page, CellsToRead::Every).unwrap();
    let (cells, through_ink) =
        upright_cells(reader, &sheet, &page, CellsToRead::ThroughLastInk).unwrap();
    assert_eq!(cells.cells, every_cells.cells);
    assert_eq!(every.len(), 120);
    assert!(every.iter().all(Option::is_some));
    let last_inked = cells.cells.iter().filter(|c| c.ink).map(|c| c.ply).max();
    assert_eq!(last_inked, Some(47));
    for ((cell, all), some) in cells.cells.iter().zip(&every).zip(&through_ink) {
        match some {
            Some(reading) => {
                assert!(cell.ply <= 47, "ply {} read", cell.ply);
                let all = all.as_ref().unwrap();
                assert_eq!(reading.text(), all.text(), "ply {}", cell.ply);
            }
            None => assert!(cell.ply > 47, "ply {} unread", cell.ply),
        }
    }
}

#[test]
fn a_black_and_white_scan_is_read_as_its_grey_original() {
    use image::DynamicImage;
    use imageproc::contrast::{otsu_level, threshold, ThresholdType};
    use scoresheet::page::crop::is_bilevel;
    use scoresheet::page::Sheet;
    use scoresheet::read::{read_game, ReadOptions};

    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/sheets");
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(samples.join("00005-uk-chesscom-2x25.json")).unwrap(),
    )
    .unwrap();
    let played: Vec<&str> = truth["moves_san"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    // Cut at the page's Otsu level, as an archive's bilevel scanner keeps the pen and drops
    // the paper.
    let grey = Sheet::open(&samples.join("00005-uk-chesscom-2x25.jpg"))
        .unwrap()
        .grey()
        .into_owned();
    let cut = threshold(&grey, otsu_level(&grey), ThresholdType::Binary);
    assert!(is_bilevel(&cut) && !is_bilevel(&grey));
    let sheet = Sheet {
        name: "bilevel".into(),
        image: DynamicImage::ImageLuma8(cut),
        torn: false,
    };
    let reader = Reader::shipped().expect("models/reader-int8.onnx loads");
    let read = read_game(&[sheet], &[], reader, &ReadOptions::default()).unwrap();
    let right = moves_right(&read.game, &played);
    assert!(
        right * 100 >= played.len() * 97,
        "{right} of {} moves read right",
        played.len()
    );
}

#[test]
fn a_sheet_where_black_moves_first_is_read_from_blacks_first_cell() {
    use scoresheet::decode::StepKind;
    use scoresheet::read::{read_game, ReadOptions};
    use scoresheet::start::StartPosition;
    use scoresheet::synth::camera::Capture;
    use scoresheet::synth::sheet::{SheetGame, StartKind};
    use shakmaty::fen::Fen;
    use shakmaty::san::SanPlus;
    use shakmaty::{Chess, EnPassantMode, Position};

    // A master game from after White's 12th move, as on a sheet begun in mid-game: the first
    // row's White cell holds no move.
    let game = &common::games()[3];
    let mut position = Chess::default();
    for &m in &game.moves[..23] {
        position.play_unchecked(m);
    }
    let fen = Fen::from_position(&position, EnPassantMode::Legal).to_string();
    let start = StartPosition::from_fen(&fen).unwrap();
    let played: Vec<String> = game.moves[23..]
        .iter()
        .scan(position.clone(), |pos, &m| {
            Some(SanPlus::from_move_and_play_unchecked(pos, m).to_string())
        })
        .collect();
    let sheet_game = SheetGame {
        start: start.clone(),
        moves: game.moves[23..].to_vec(),
        tags: game.tags.clone(),
        start_kind: StartKind::Fen,
    };
    let sheet = generated_sheet("black-first", &sheet_game, "en", 1, 5, Capture::Scan);
    let reader = Reader::shipped().expect("models/reader-int8.onnx loads");
    let options = ReadOptions {
        start,
        ..ReadOptions::default()
    };
    let read = read_game(&[sheet], &[], reader, &options).unwrap();
    let first = &read.game.moves[0];
    // Read from Black's cell of the first row as written there, not as a move written after
    // a cell of junk.
    assert_eq!(first.san, played[0]);
    assert_eq!(first.kind, StepKind::Written);
    assert_eq!(read.cells[first.cell.unwrap()].cell.ply, 2);
    let right = moves_right(&read.game, &played);
    let on_sheet = played.len().min(read.game.moves.len());
    assert!(
        right * 100 >= on_sheet * 95,
        "{right} of {on_sheet} moves right"
    );
}

#[test]
fn a_blank_form_is_read_as_no_moves_and_said_to_be_blank() {
    use scoresheet::page::Sheet;
    use scoresheet::read::{read_game, ReadOptions};
    use scoresheet::report::PgnTags;
    use scoresheet::synth::camera::Capture;
    use scoresheet::synth::sheet::{SheetGame, StartKind};

    // The form filled in above the table (the players' names) and not a move below it, as a
    // spare sheet or the back of one is scanned with the rest.
    let game = &common::games()[3];
    let nothing_played = SheetGame {
        start: Default::default(),
        moves: Vec::new(),
        tags: game.tags.clone(),
        start_kind: StartKind::Standard,
    };
    let blank = generated_sheet("blank.jpg", &nothing_played, "de", 0, 8, Capture::Photo);
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/sheets");
    let written = Sheet::open(&samples.join("00002-ru-chesscom-2x25.jpg")).unwrap();
    let reader = Reader::shipped().expect("models/reader-int8.onnx loads");
    let options = ReadOptions::default();

    let read = read_game(std::slice::from_ref(&blank), &[], reader, &options).unwrap();
    assert!(read.game.moves.is_empty());
    assert_eq!(read.blank_pages(), ["blank.jpg"]);
    let json = read.to_json(&PgnTags::default());
    assert_eq!(json["blank_pages"], serde_json::json!(["blank.jpg"]));
    let pgn = json["pgn"].as_str().unwrap();
    assert!(
        pgn.contains("blank.jpg: none of its move cells shows writing"),
        "{pgn}"
    );

    // A written page followed by a blank one: only the blank one is said, the game is read.
    let read = read_game(&[written, blank], &[], reader, &options).unwrap();
    assert_eq!(read.blank_pages(), ["blank.jpg"]);
    assert!(
        read.game.moves.len() >= 90,
        "{} moves",
        read.game.moves.len()
    );
}

#[test]
fn a_chess960_game_read_without_its_start_is_read_from_the_start_its_writing_fits() {
    use scoresheet::read::{read_game, ReadOptions};
    use scoresheet::report::PgnTags;
    use scoresheet::start::StartPosition;
    use scoresheet::synth::camera::Capture;
    use scoresheet::synth::sheet::{prior_game, SheetGame, StartKind};
    use scoresheet::synth::Rng;
    use shakmaty::san::SanPlus;

    // Start 0 (BBQNNRKR): bishops in the corners and knights in the middle, pieces no game
    // from the usual start moves as this one does.
    let number = 0;
    let start = StartPosition::chess960(number).unwrap();
    let moves = prior_game(&start.position, 40, &mut Rng::new(3));
    let played: Vec<String> = moves
        .iter()
        .scan(start.position.clone(), |pos, &m| {
            Some(SanPlus::from_move_and_play_unchecked(pos, m).to_string())
        })
        .collect();
    let game = SheetGame {
        start: start.clone(),
        moves,
        tags: common::games()[3].tags.clone(),
        start_kind: StartKind::Chess960,
    };
    let sheet = generated_sheet("chess960.jpg", &game, "en", 0, 4, Capture::Scan);
    let reader = Reader::shipped().expect("models/reader-int8.onnx loads");

    // Not told to look for a start, it reads the game from the usual start, and doubts it.
    let usual = read_game(
        std::slice::from_ref(&sheet),
        &[],
        reader,
        &ReadOptions::default(),
    )
    .unwrap();
    assert!(usual.game.start.is_standard());
    assert_eq!(usual.start_found, None);
    assert!(usual.start_doubt.is_some());
    let from_usual = moves_right(&usual.game, &played);

    let searching = ReadOptions {
        search_chess960_start: true,
        ..ReadOptions::default()
    };
    let found = read_game(std::slice::from_ref(&sheet), &[], reader, &searching).unwrap();
    assert_eq!(found.start_found, Some(number));
    assert_eq!(found.game.start.fen(), start.fen());
    assert_eq!(found.start_doubt, None);
    let right = moves_right(&found.game, &played);
    assert!(
        right * 100 >= played.len() * 95,
        "{right} of {}",
        played.len()
    );
    assert!(right > from_usual + 10, "{right} against {from_usual}");
    let json = found.to_json(&PgnTags::default());
    let note = json["start_found"].as_str().unwrap();
    assert!(note.contains("Chess960 start 0"), "{note}");
    assert!(json["pgn"].as_str().unwrap().contains("Chess960 start 0"));
    assert_eq!(json["start_doubt"], serde_json::Value::Null);

    // Told the start, it reads the same moves and says nothing of starts.
    let told = ReadOptions {
        start: start.clone(),
        ..ReadOptions::default()
    };
    let given = read_game(&[sheet], &[], reader, &told).unwrap();
    assert_eq!(given.start_found, None);
    assert_eq!(moves_right(&given.game, &played), right);
}
