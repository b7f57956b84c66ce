//! Notation round trips over real positions from ../shared/data/games, in every language.

use std::collections::HashMap;

use scoresheet::games::{read_pgn_file, shared_data_dir};
use scoresheet::notation::{
    canonical, for_each_form, interpret, legal_moves_with_facts, looks_descriptive,
    names_algebraic_square, san_in, Language, Style, Written, LANGUAGES,
};
use shakmaty::{san::SanPlus, Chess, Move, Position};

/// Positions from the first `games` master games, every `step`-th ply.
fn positions(games: usize, step: usize) -> Vec<Chess> {
    let path = shared_data_dir().join("games/masters.pgn.gz");
    let games =
        read_pgn_file(&path, games).expect("../shared/data/games/masters.pgn.gz is readable");
    let mut out = Vec::new();
    for game in games {
        let mut pos = Chess::default();
        for (i, m) in game.moves.iter().enumerate() {
            if i % step == 0 {
                out.push(pos.clone());
            }
            pos.play_unchecked(*m);
        }
    }
    out
}

/// Every form of every legal move of `pos`, mapped to the moves it may mean.
fn form_index(pos: &Chess, lang: &Language, style: &Style) -> HashMap<String, Vec<Move>> {
    let mut index: HashMap<String, Vec<Move>> = HashMap::new();
    for (m, facts) in legal_moves_with_facts(pos) {
        for_each_form(&facts, lang, style, &mut |text, _| {
            let moves = index.entry(text.to_string()).or_default();
            if !moves.contains(&m) {
                moves.push(m);
            }
        });
    }
    index
}

#[test]
fn english_canonical_form_is_shakmaty_san_on_thousands_of_positions() {
    let english = Language::by_code("en").unwrap();
    let mut checked = 0;
    for pos in positions(300, 3) {
        for (m, facts) in legal_moves_with_facts(&pos) {
            let expected = SanPlus::from_move(pos.clone(), m).to_string();
            assert_eq!(
                canonical(&facts, english),
                expected,
                "{}",
                shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
            );
            checked += 1;
        }
    }
    assert!(checked > 100_000, "only {checked} moves checked");
}

#[test]
fn canonical_and_long_forms_are_unambiguous_in_every_language() {
    let style = Style::default();
    let positions = positions(120, 7);
    assert!(positions.len() > 1000);
    for lang in LANGUAGES {
        for pos in &positions {
            let index = form_index(pos, lang, &style);
            for (m, facts) in legal_moves_with_facts(pos) {
                let san = canonical(&facts, lang);
                assert_eq!(index[&san], vec![m], "{}: {san} is ambiguous", lang.code);
                if let (Some(from), false) = (m.from(), m.is_castle()) {
                    let letter = lang.letter(m.role()).unwrap_or("");
                    let long = format!(
                        "{letter}{from}{}{}",
                        if m.is_capture() { "x" } else { "-" },
                        m.to()
                    );
                    let promo = m
                        .promotion()
                        .map(|r| format!("={}", lang.letter(r).unwrap()))
                        .unwrap_or_default();
                    let check = &san[san.trim_end_matches(['+', '#']).len()..];
                    let long = format!("{long}{promo}{check}");
                    assert_eq!(index.get(&long), Some(&vec![m]), "{}: {long}", lang.code);
                }
            }
        }
    }
}

#[test]
fn every_form_reads_back_to_the_moves_it_may_mean() {
    let style = Style::default();
    let positions = positions(8, 11);
    for lang in LANGUAGES {
        for pos in &positions {
            let index = form_index(pos, lang, &style);
            for (text, moves) in index.iter().step_by(7) {
                let mut read = interpret(pos, text, lang, &style);
                let mut expected = moves.clone();
                read.sort_by_key(|m| m.to_string());
                expected.sort_by_key(|m| m.to_string());
                assert_eq!(read, expected, "{}: {text}", lang.code);
            }
        }
    }
}

#[test]
fn every_form_is_written_in_its_languages_characters() {
    let style = Style::default();
    let mut positions = positions(8, 3);
    // Promotions with and without capture, and en passant, which the games may not reach.
    for fen in [
        "1r5k/2P5/8/8/8/8/8/K7 w - - 0 1",
        "k7/8/8/3pP3/8/8/8/K7 w - d6 0 2",
    ] {
        let setup: shakmaty::fen::Fen = fen.parse().expect("a valid FEN");
        positions.push(
            setup
                .into_position(shakmaty::CastlingMode::Standard)
                .expect("a legal position"),
        );
    }
    for lang in LANGUAGES {
        for pos in &positions {
            for (_, facts) in legal_moves_with_facts(pos) {
                for_each_form(&facts, lang, &style, &mut |text, _| {
                    let outside: String = text.chars().filter(|&c| !lang.writes(c)).collect();
                    assert!(outside.is_empty(), "{}: {text} holds {outside}", lang.code);
                });
            }
        }
    }
    let english = Language::by_code("en").expect("English");
    assert!("KQRBN".chars().all(|c| english.writes(c)));
    assert!(!"DSTLCФКАԱ".chars().any(|c| english.writes(c)));
    assert!(english.writes('P'), "the pawn of `PxP`");
    let russian = Language::by_code("ru").expect("Russian");
    assert!("КрФЛС".chars().all(|c| russian.writes(c)));
    assert!(!"KQRBN".chars().any(|c| russian.writes(c)));
}

#[test]
fn known_written_forms() {
    let pos = Chess::default();
    let de = Language::by_code("de").unwrap();
    let ru = Language::by_code("ru").unwrap();
    let fr = Language::by_code("fr").unwrap();
    let ga = Language::by_code("ga").unwrap();
    let style = Style::default();
    let nf3 = interpret(&pos, "Nf3", Language::by_code("en").unwrap(), &style);
    assert_eq!(nf3.len(), 1);
    assert_eq!(san_in(&pos, nf3[0], de), "Sf3");
    assert_eq!(san_in(&pos, nf3[0], ru), "Кf3");
    assert_eq!(san_in(&pos, nf3[0], fr), "Cf3");
    for written in ["Sf3", "Sg1-f3", "Sg1f3", " S f3 ", "Sf3 (=)", "Sf3!?"] {
        assert_eq!(interpret(&pos, written, de, &style), nf3, "{written}");
    }
    for written in ["Df3", "Rdf3", "Dg1-f3"] {
        assert_eq!(interpret(&pos, written, ga, &style), nf3, "Irish {written}");
    }
    for written in ["e4", "e2-e4", "e2e4"] {
        assert_eq!(interpret(&pos, written, de, &style).len(), 1, "{written}");
    }
    assert!(Written::parse("e4 (=)").draw_offer);
    assert_eq!(Written::parse("Nf3×e5").text, "Nfxe5".replace("fx", "f3x"));
}

#[test]
fn castling_promotion_capture_and_en_passant_forms() {
    let style = Style::default();
    let en = Language::by_code("en").unwrap();
    let ru = Language::by_code("ru").unwrap();
    // White may castle both ways, capture en passant on d6 and promote on b8 with capture.
    let fen = "r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1";
    let pos: Chess = fen
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    for (written, uci) in [
        ("0-0", "e1g1"),
        ("O-O", "e1g1"),
        ("0-0-0", "e1c1"),
        ("O-O-O", "e1c1"),
        ("exd6", "e5d6"),
        ("ed6", "e5d6"),
        ("exd6e.p.", "e5d6"),
        ("e5:d6", "e5d6"),
        ("ed", "e5d6"),
        ("exd", "e5d6"),
        ("e:d", "e5d6"),
        ("b8Q", "b7b8q"),
        ("b8=Q", "b7b8q"),
        ("b8(Q)", "b7b8q"),
        ("b8/Q", "b7b8q"),
        ("bxa8=Q+", "b7a8q"),
        ("b7:a8Q+", "b7a8q"),
        ("b8=N", "b7b8n"),
    ] {
        let moves = interpret(&pos, written, en, &style);
        let ucis: Vec<String> = moves
            .iter()
            .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
            .collect();
        assert_eq!(ucis, vec![uci.to_string()], "{written}");
    }
    let moves = interpret(&pos, "b8=Ф", ru, &style);
    assert_eq!(moves.len(), 1);
}

/// Forms of descriptive habit and odd disambiguations that real players write (the HCS
/// transcriptions): the piece taken named (`RxR`, `exN`, `PxP`, `QxNd5`), a capture by file
/// alone (`Rxh+`), the origin's rank where SAN gives its file (`N5f3`).
#[test]
fn captures_named_by_the_piece_taken_and_rank_disambiguations() {
    let style = Style::default();
    let en = Language::by_code("en").unwrap();
    let de = Language::by_code("de").unwrap();
    let fen = "r3k3/8/8/3n1p2/4P3/2N5/8/R3K1N1 w - - 0 1";
    let pos: Chess = fen
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    let read = |written: &str, lang: &Language| -> Vec<String> {
        interpret(&pos, written, lang, &style)
            .iter()
            .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
            .collect()
    };
    for (written, uci) in [
        ("RxR", "a1a8"),
        ("RxR+", "a1a8"),
        ("RxRa8+", "a1a8"),
        ("Rxa", "a1a8"),
        ("Rxa+", "a1a8"),
        ("NxN", "c3d5"),
        ("PxN", "e4d5"),
        ("exN", "e4d5"),
        ("PxP", "e4f5"),
        ("exP", "e4f5"),
        ("exf", "e4f5"),
        ("N1e2", "g1e2"),
        ("N3e2", "c3e2"),
    ] {
        assert_eq!(read(written, en), [uci], "{written}");
    }
    // In German letters the rook is T and the knight S; the pawn's letter is known in
    // English only.
    assert_eq!(read("TxT", de), ["a1a8"]);
    assert_eq!(read("exS", de), ["e4d5"]);
    assert!(read("PxP", de).is_empty());
    // A rank where SAN needs none, or a piece taken that is not there, reads as nothing.
    assert!(read("N1f3", en).is_empty());
    assert!(read("RxN", en).is_empty());
}

#[test]
fn move_facts_keys_tell_facts_apart() {
    use scoresheet::notation::{Check, MoveFacts};
    let mut seen: HashMap<u32, MoveFacts> = HashMap::new();
    for pos in positions(40, 3) {
        for (_, facts) in legal_moves_with_facts(&pos) {
            for check in [Check::None, Check::Check, Check::Mate, Check::Unknown] {
                let f = MoveFacts { check, ..facts };
                if let Some(other) = seen.insert(f.key(), f) {
                    assert_eq!(other, f, "two facts share key {}", f.key());
                }
            }
        }
    }
    assert!(seen.len() > 1000);
}

/// Positions of games that play, from Chess960 starts and from a few set-ups, each legal move
/// in turn: castling with the rook anywhere, promotions and captures en passant come up.
fn positions_of_walks() -> Vec<Chess> {
    use scoresheet::start::StartPosition;
    let mut starts: Vec<Chess> = (0..960)
        .step_by(37)
        .map(|n| StartPosition::chess960(n).unwrap().position)
        .collect();
    for fen in [
        // Castling short checks a king on f8; long, a king on d8.
        "5k2/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        "3k4/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        // En passant uncovers the rook's check along the fifth rank, or the bishop's.
        "8/8/8/k2pP2R/8/8/8/4K3 w - d6 0 1",
        "6k1/8/8/3pP3/8/8/B7/4K3 w - d6 0 1",
        // Promotions that check as a knight, a queen, or by uncovering a rook.
        "8/3P1k2/8/8/8/8/8/R3K3 w Q - 0 1",
        "5k2/1P6/8/8/8/8/8/1R2K3 w - - 0 1",
        "1kn5/1P6/8/8/8/8/8/1R2K3 w - - 0 1",
    ] {
        let setup: shakmaty::fen::Fen = fen.parse().unwrap();
        starts.push(
            setup
                .into_position(shakmaty::CastlingMode::Chess960)
                .unwrap(),
        );
    }
    let mut out = Vec::new();
    for (n, start) in starts.into_iter().enumerate() {
        for stride in [1, 3, 7] {
            let mut pos = start.clone();
            for ply in 0..60 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                out.push(pos.clone());
                let m = legal[(ply * stride + n) % legal.len()];
                pos.play_unchecked(m);
            }
        }
    }
    out
}

#[test]
fn a_check_worked_out_without_playing_the_move_is_the_check_played_out() {
    use scoresheet::notation::Check;
    let mut checks = HashMap::new();
    let mut moves = 0;
    for pos in positions(200, 1).into_iter().chain(positions_of_walks()) {
        for m in pos.legal_moves() {
            let played = Check::after(&pos, m) != Check::None;
            assert_eq!(
                Check::gives(&pos, m),
                played,
                "{m} in {}",
                shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
            );
            let kind = match m {
                Move::Castle { .. } => "castle",
                Move::EnPassant { .. } => "en passant",
                Move::Normal {
                    promotion: Some(_), ..
                } => "promotion",
                _ => "other",
            };
            *checks.entry((kind, played)).or_insert(0) += 1;
            moves += 1;
        }
    }
    assert!(moves > 300_000, "only {moves} moves");
    for kind in ["castle", "en passant", "promotion", "other"] {
        assert!(
            checks.contains_key(&(kind, true)),
            "no {kind} that checks: {checks:?}"
        );
    }
}

/// English descriptive notation, weighted far above every algebraic form so that a form's
/// weight tells the two apart.
fn descriptive_style() -> Style {
    Style {
        descriptive: 30.0,
        check_ch: 0.0,
        ..Style::default()
    }
}

#[test]
fn a_careful_descriptive_writer_names_each_move_so_that_no_other_shares_it() {
    let en = Language::by_code("en").unwrap();
    let style = descriptive_style();
    let (mut moves_seen, mut unique) = (0, 0);
    for pos in positions(120, 7) {
        let mut index: HashMap<String, Vec<Move>> = HashMap::new();
        let mut careful: Vec<(Move, String)> = Vec::new();
        for (m, facts) in legal_moves_with_facts(&pos) {
            if m.is_castle() {
                continue;
            }
            let mut best = (f32::NEG_INFINITY, String::new());
            for_each_form(&facts, en, &style, &mut |text, weight| {
                if weight > 10.0 {
                    let moves = index.entry(text.to_string()).or_default();
                    if !moves.contains(&m) {
                        moves.push(m);
                    }
                    if weight > best.0 {
                        best = (weight, text.to_string());
                    }
                }
            });
            assert!(best.0 > 10.0, "{m}: no descriptive form");
            careful.push((m, best.1));
        }
        for (m, text) in careful {
            let means = &index[&text];
            assert!(means.contains(&m));
            moves_seen += 1;
            unique += (means.len() == 1) as usize;
        }
    }
    eprintln!("{unique} of {moves_seen} careful descriptive forms name one move only");
    assert!(moves_seen > 20_000);
    // The careful form can still be shared, `KNxP` where both of the king's knight's captures
    // take a pawn, say; the board and the other cells decide those.
    assert!(unique * 100 >= moves_seen * 99, "{unique} of {moves_seen}");
}

/// What tells a sheet's notation from its cells: descriptive moves name squares by pieces'
/// files, algebraic ones by file letters.
#[test]
fn descriptive_and_algebraic_cells_are_told_apart() {
    let chars = |text: &str| text.chars().collect::<Vec<char>>();
    for text in [
        "P-K4", "N-KB3", "Kt-QB3", "B-N5", "PxP", "P-Q4ch", "R(1)-Q1", "QR-Q1", "K-R1",
    ] {
        assert!(looks_descriptive(&chars(text)), "{text}");
        assert!(!names_algebraic_square(&chars(text)), "{text}");
    }
    for text in [
        "e4", "Nf3", "exd5", "Ng1-f3", "e2e4", "Bb5+", "Kрe1-d1", "Фd8-c7", "e8=Q", "Rxa8#",
    ] {
        assert!(names_algebraic_square(&chars(text)), "{text}");
        assert!(!looks_descriptive(&chars(text)), "{text}");
    }
    // Castling and a capture named by its pieces are written alike in both.
    for text in ["O-O", "0-0-0", "BxN", "RxR"] {
        assert!(!names_algebraic_square(&chars(text)), "{text}");
    }
}

#[test]
fn known_descriptive_forms() {
    let en = Language::by_code("en").unwrap();
    let style = descriptive_style();
    let read = |fen: &str, written: &str| -> Vec<String> {
        let pos: Chess = fen
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let mut moves: Vec<String> = interpret(&pos, written, en, &style)
            .iter()
            .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
            .collect();
        moves.sort();
        moves
    };
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for (written, ucis) in [
        ("P-K4", &["e2e4"][..]),
        ("P-QB4", &["c2c4"]),
        ("P-B4", &["c2c4", "f2f4"]),
        ("N-KB3", &["g1f3"]),
        ("Kt-KB3", &["g1f3"]),
        ("N-B3", &["b1c3", "g1f3"]),
        ("N-QR3", &["b1a3"]),
        ("P-K3", &["e2e3"]),
    ] {
        assert_eq!(read(start, written), ucis, "{written}");
    }
    // Black counts the ranks from its own side.
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    assert_eq!(read(after_e4, "P-K4"), ["e7e5"]);
    assert_eq!(read(after_e4, "P-QB4"), ["c7c5"]);
    assert_eq!(read(after_e4, "N-KB3"), ["g8f6"]);
    // 1.e4 d5: the only pawn capture; and a check written `ch`.
    let scandinavian = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    assert_eq!(read(scandinavian, "PxP"), ["e4d5"]);
    assert_eq!(read(scandinavian, "B-N5ch"), ["f1b5"]);
    assert_eq!(read(scandinavian, "B-N5"), ["f1b5"]);
    // Two rooks for one square: the rook is named by its wing or its square.
    let rooks = "6k1/5ppp/8/8/8/8/5PPP/R4RK1 w - - 0 1";
    assert_eq!(read(rooks, "R-Q1"), ["a1d1", "f1d1"]);
    assert_eq!(read(rooks, "QR-Q1"), ["a1d1"]);
    assert_eq!(read(rooks, "KR-Q1"), ["f1d1"]);
    assert_eq!(read(rooks, "R(KB1)-Q1"), ["f1d1"]);
    // A promotion, and a capture of a named pawn where two pawns could be taken.
    let promotion = "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1";
    assert_eq!(read(promotion, "P-K8=Q"), ["e7e8q"]);
    assert_eq!(read(promotion, "P-K8(N)"), ["e7e8n"]);
    let two_pawns = "4k3/8/8/2p1p3/8/3N4/8/4K3 w - - 0 1";
    assert_eq!(read(two_pawns, "NxP"), ["d3c5", "d3e5"]);
    assert_eq!(read(two_pawns, "NxKP"), ["d3e5"]);
    assert_eq!(read(two_pawns, "NxQBP"), ["d3c5"]);
    assert_eq!(read(two_pawns, "NxBP"), ["d3c5"]);
}
