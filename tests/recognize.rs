//! The cell reader through ONNX Runtime, with a fake model built for the test
//! (`training/fake_reader.py`): a frame's mean ink decides its class, so what it must read is
//! known.

use std::path::{Path, PathBuf};

use image::{GrayImage, Luma};
use scoresheet::recognize::Reader;

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
    let dir = std::env::temp_dir().join(format!("scoresheet-reader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    let _ = std::fs::remove_dir_all(dir);
}
