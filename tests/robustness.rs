//! No input makes the decoder panic: arbitrary bytes as a transcript, arbitrary text in cells,
//! arbitrary starts.

use proptest::prelude::*;
use scoresheet::decode::{decode, Channel, DecoderConfig, LanguageChoice, Transcript, TypedCell};
use scoresheet::notation::{interpret, Language, Style, Written};
use scoresheet::start::StartPosition;
use shakmaty::{Chess, Color, Position};

fn cell_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-hKQRBNO0x:+#=()./ 1-8-]{0,8}",
        "\\PC{0,6}",
        Just("?".to_string()),
        Just(String::new()),
        "[КрФЛСТДЦОԱԹՆՓՁĈŽŞ]{1,2}[a-h][1-8][+#]?",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

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
