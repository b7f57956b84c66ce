//! No input makes the decoder panic: arbitrary bytes as a transcript, arbitrary text in cells,
//! arbitrary starts; nor an image file damaged anywhere.

use proptest::prelude::*;
use scoresheet::decode::{decode, Channel, DecoderConfig, LanguageChoice, Transcript, TypedCell};
use scoresheet::notation::{interpret, Language, Style, Written};
use scoresheet::page::Sheet;
use scoresheet::start::StartPosition;
use shakmaty::{Chess, Color, Position};

mod pdf;

fn cell_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-hKQRBNO0x:+#=()./ 1-8-]{0,8}",
        "\\PC{0,6}",
        Just("?".to_string()),
        Just(String::new()),
        "[КрФЛСТДЦОԱԹՆՓՁĈŽŞ]{1,2}[a-h][1-8][+#]?",
    ]
}

/// Small image files to damage: a TIFF of two pages and a thumbnail, a BigTIFF, a PNG, a
/// JPEG and a PDF file of two pages (the JPEG and the gradient's samples, compressed), each
/// 24 x 16 pixels of a gradient.
fn image_files() -> Vec<Vec<u8>> {
    use tiff::encoder::{colortype::Gray8, TiffEncoder};
    let page = image::GrayImage::from_fn(24, 16, |x, y| image::Luma([(x * 9 + y * 5) as u8]));
    let mut files = Vec::new();
    let mut tiff = std::io::Cursor::new(Vec::new());
    let mut encoder = TiffEncoder::new(&mut tiff).unwrap();
    for (width, height) in [(24, 16), (6, 4), (24, 16)] {
        let mut image = encoder.new_image::<Gray8>(width, height).unwrap();
        if width == 6 {
            image
                .encoder()
                .write_tag(tiff::tags::Tag::NewSubfileType, 1u32)
                .unwrap();
        }
        image
            .write_data(&page.as_raw()[..(width * height) as usize])
            .unwrap();
    }
    files.push(tiff.into_inner());
    let mut big = std::io::Cursor::new(Vec::new());
    TiffEncoder::new_big(&mut big)
        .unwrap()
        .write_image::<Gray8>(24, 16, page.as_raw())
        .unwrap();
    files.push(big.into_inner());
    for format in [image::ImageFormat::Png, image::ImageFormat::Jpeg] {
        let mut bytes = std::io::Cursor::new(Vec::new());
        page.write_to(&mut bytes, format).unwrap();
        files.push(bytes.into_inner());
    }
    files.push(pdf::pdf_of(vec![
        Some(pdf::image(
            24,
            16,
            "DeviceGray",
            Some("DCTDecode"),
            files[3].clone(),
        )),
        Some(pdf::image(
            24,
            16,
            "DeviceGray",
            None,
            page.as_raw().clone(),
        )),
    ]));
    files
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any few bytes of an image file overwritten, or the file cut anywhere: its pages are
    /// read (a page for each of the TIFF file's three directories at most, when its thumbnail
    /// lost its mark) or refused with an error naming it, never a panic.
    #[test]
    fn a_damaged_image_file_is_read_or_refused(
        file in 0usize..5,
        damage in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        cut_it in any::<bool>(),
    ) {
        let mut bytes = image_files().swap_remove(file);
        for (at, value) in damage {
            let at = at.index(bytes.len());
            bytes[at] = value;
        }
        if cut_it {
            bytes.truncate(cut.index(bytes.len()));
        }
        match Sheet::pages_from_bytes("damaged", &bytes) {
            Ok(pages) => prop_assert!(!pages.is_empty() && pages.len() <= 3),
            Err(e) => prop_assert!(e.to_string().starts_with("damaged"), "{e}"),
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400), black in any::<bool>()) {
        if let Ok(t) = Transcript::parse(&bytes, black) {
            let cells = &t.cells[..t.cells.len().min(16)];
            let game = decode(cells, &StartPosition::standard(), LanguageChoice::Auto, &DecoderConfig::default());
            prop_assert!(game.moves.len() <= 3 * cells.len() + 3);
        }
    }

    #[test]
    fn arbitrary_cells_decode_to_a_legal_game(texts in proptest::collection::vec(cell_text(), 0..14)) {
        let cells: Vec<TypedCell> = texts.iter().map(|t| TypedCell::new(t)).collect();
        let start = StartPosition::standard();
        let game = decode(&cells, &start, LanguageChoice::Auto, &DecoderConfig::default());
        let mut pos = Chess::default();
        for m in &game.moves {
            let uci: shakmaty::uci::UciMove = m.uci.parse().unwrap();
            let legal = uci.to_move(&pos);
            prop_assert!(legal.is_ok(), "{} is illegal", m.uci);
            pos.play_unchecked(legal.unwrap());
            prop_assert!((0.0..=1.0).contains(&m.confidence));
            let total: f32 = m.confidence + m.alternatives.iter().map(|a| a.confidence).sum::<f32>();
            prop_assert!(total <= 1.01, "ply {} posteriors sum to {total}", m.ply);
        }
    }

    #[test]
    fn arbitrary_text_is_handled_by_notation_and_channel(a in "\\PC{0,50}", b in "\\PC{0,50}") {
        let written = Written::parse(&a);
        prop_assert!(!written.text.contains(' '));
        let (x, y): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let d = Channel::shared().distance(&x, &y, f32::INFINITY);
        prop_assert!(d >= 0.0 && d.is_finite());
        let _ = interpret(&Chess::default(), &a, Language::by_code("en").unwrap(), &Style::default());
    }

    #[test]
    fn arbitrary_fens_are_refused_or_decoded(fen in "[1-8pnbrqkPNBRQK/]{8,40} [wb] (-|[KQkqA-Ha-h]{1,4}) (-|[a-h][36]) [0-9]{1,2} [1-9][0-9]?") {
        if let Ok(start) = StartPosition::from_fen(&fen) {
            let black = start.position.turn() == Color::Black;
            let t = Transcript::parse(b"1\t...\te5\n2\tKe2\n", black).unwrap();
            let _ = decode(&t.cells, &start, LanguageChoice::Auto, &DecoderConfig::default());
        }
    }
}

/// A transcript proptest found (2026-11-29) where one move was two SANs in the lattice's worlds
/// and was counted both in its confidence and among its alternatives (ply 9 summed to 1.48).
#[test]
fn a_ply_s_confidence_and_alternatives_never_sum_above_one() {
    let texts = [
        "x", "ЦՓb1#", "4", "K1=+x", "?", "f#:#", "", "?", "Bxg", "", "",
    ];
    let cells: Vec<TypedCell> = texts.iter().map(|t| TypedCell::new(t)).collect();
    let game = decode(
        &cells,
        &StartPosition::standard(),
        LanguageChoice::Auto,
        &DecoderConfig::default(),
    );
    assert!(!game.moves.is_empty());
    for m in &game.moves {
        let total: f32 = m.confidence + m.alternatives.iter().map(|a| a.confidence).sum::<f32>();
        assert!(total <= 1.01, "ply {} sums to {total}: {m:?}", m.ply);
        // The chosen SAN comes back only as another move, from another square.
        assert!(
            m.alternatives
                .iter()
                .all(|a| a.san != m.san || a.from.as_deref().is_some_and(|f| f != &m.uci[..2])),
            "{m:?}"
        );
    }
}

#[test]
fn the_files_to_damage_are_read_whole() {
    let pages: Vec<usize> = image_files()
        .iter()
        .map(|file| Sheet::pages_from_bytes("whole", file).unwrap().len())
        .collect();
    assert_eq!(pages, [2, 1, 1, 1, 2]);
}
