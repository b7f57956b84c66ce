//! Transcripts written from real games the way players write and readers misread them: the
//! ground truth the decoder is tested and measured on.

use shakmaty::{Chess, Move, Position, Role};

use super::rng::Rng;
use crate::decode::Channel;
use crate::notation::{for_each_form, legal_moves_with_facts, Check, Language, MoveFacts, Style};

/// How much goes wrong between the move played and the text in the transcript. Rates are per
/// cell. The presets follow what players wrote in the HCS scoresheets (see the README).
#[derive(Debug, Clone, PartialEq)]
pub struct Noise {
    pub name: &'static str,
    /// A player's notational slip: missing disambiguation, capture or check mark, a false check.
    pub notation_slip: f32,
    /// The wrong square written (a real slip of the pen).
    pub wrong_square: f32,
    /// Whether a wrong square is shaped as the HCS players' ([`wrong_square_as_players`]:
    /// any rank or file, mirrored ranks, look-alike files) rather than one rank or file off.
    pub squares_as_players: bool,
    /// The wrong piece written: another piece's letter, none, or one on a pawn's move.
    pub wrong_piece: f32,
    /// One character misread (look-alike, dropped, added); a second one follows at half the rate.
    pub misread: f32,
    /// A cell nobody can read (`?`, blank or a scrawl).
    pub illegible: f32,
    /// A move the player did not write.
    pub skipped: f32,
    /// Two neighbouring cells in swapped order.
    pub swapped: f32,
    /// A crossed-out cell before the move's own.
    pub junk_cell: f32,
}

impl Noise {
    pub const CLEAN: Noise = Noise {
        name: "clean",
        notation_slip: 0.0,
        wrong_square: 0.0,
        squares_as_players: false,
        wrong_piece: 0.0,
        misread: 0.0,
        illegible: 0.0,
        skipped: 0.0,
        swapped: 0.0,
        junk_cell: 0.0,
    };
    /// About 10% of cells differ from a correct way of writing the move, in the proportions of
    /// the HCS scoresheets: wrong squares and notational slips first, then misreadings.
    pub const MEDIUM: Noise = Noise {
        name: "medium",
        notation_slip: 0.035,
        wrong_square: 0.03,
        squares_as_players: false,
        wrong_piece: 0.0,
        misread: 0.03,
        illegible: 0.005,
        skipped: 0.004,
        swapped: 0.002,
        junk_cell: 0.001,
    };
    /// About 28% of cells differ, with illegible cells, skipped moves and swapped cells.
    pub const HEAVY: Noise = Noise {
        name: "heavy",
        notation_slip: 0.07,
        wrong_square: 0.07,
        squares_as_players: false,
        wrong_piece: 0.0,
        misread: 0.10,
        illegible: 0.025,
        skipped: 0.008,
        swapped: 0.006,
        junk_cell: 0.004,
    };
    /// Medium noise with the players' slips as HCS records them: wrong squares of every
    /// kind (`decode-bench --hcs-slips`) and, about one cell in 120, the wrong piece (HCS: one
    /// in 60, with twice medium's wrong squares).
    pub const PLAYERS: Noise = Noise {
        name: "players",
        squares_as_players: true,
        wrong_piece: 0.008,
        ..Noise::MEDIUM
    };
    /// The levels the benchmark runs unless told otherwise.
    pub const LEVELS: [Noise; 3] = [Noise::CLEAN, Noise::MEDIUM, Noise::HEAVY];
    /// Every level, [`Noise::PLAYERS`] too.
    pub const ALL: [Noise; 4] = [Noise::CLEAN, Noise::MEDIUM, Noise::HEAVY, Noise::PLAYERS];
}

/// One writer's consistent habits on a sheet.
#[derive(Debug, Clone)]
pub struct Writer {
    pub style: Style,
    pub description: String,
}

impl Writer {
    /// A writer with habits drawn at random: capture marks, long or short algebraic, castling
    /// with O or 0, check marks, promotion style.
    pub fn random(rng: &mut Rng) -> Writer {
        let never = -30.0;
        let mut style = Style {
            piece_letter_variant: never,
            missing_disambiguation: never,
            extra_disambiguation: never,
            check_false: never,
            en_passant_marked: if rng.chance(0.2) { 3.0 } else { never },
            // Descriptive habits are read, not written: the benchmarks' transcripts stay those
            // of algebraic writers.
            capture_piece_named: never,
            capture_file_only: never,
            rank_for_file: never,
            ..Style::default()
        };
        let mut parts = Vec::new();
        let long = rng.chance(0.12);
        if long {
            style.long_dash = if rng.chance(0.7) { 10.0 } else { never };
            style.long_plain = if style.long_dash < 0.0 { 10.0 } else { never };
            parts.push("long algebraic");
        } else {
            style.long_dash = never;
            style.long_plain = never;
        }
        match rng.below(10) {
            0..=5 => {
                style.capture_colon = never;
                style.capture_unmarked = never;
                parts.push("x captures");
            }
            6..=7 => {
                style.capture_colon = 5.0;
                style.capture_unmarked = never;
                parts.push(": captures");
            }
            _ => {
                style.capture_colon = never;
                style.capture_unmarked = 5.0;
                parts.push("unmarked captures");
            }
        }
        style.pawn_capture_files_only = if !long && rng.chance(0.1) {
            12.0
        } else {
            never
        };
        if rng.chance(0.5) {
            style.castle_digit_zero = never;
        } else {
            style.castle_letter_o = never;
        }
        match rng.below(3) {
            0 => {
                style.check_unmarked = never;
                style.mate_unmarked = never;
            }
            1 => {}
            _ => {
                style.check_marked = never;
                style.mate_hash = never;
                style.mate_double_plus = never;
                style.mate_plus = never;
                parts.push("no check marks");
            }
        }
        let promo = rng.below(4);
        for (i, weight) in [
            &mut style.promotion_equals,
            &mut style.promotion_plain,
            &mut style.promotion_parenthesised,
            &mut style.promotion_slash,
        ]
        .into_iter()
        .enumerate()
        {
            *weight = if i == promo { 0.0 } else { never };
        }
        style.promotion_unwritten = never;
        Writer {
            style,
            description: parts.join(", "),
        }
    }

    /// A writer of descriptive notation ([`Writer::descriptive`]) or of algebraic
    /// ([`Writer::random`]), habits drawn at random.
    pub fn drawn(descriptive: bool, rng: &mut Rng) -> Writer {
        if descriptive {
            Writer::descriptive(rng)
        } else {
            Writer::random(rng)
        }
    }

    /// An English or American writer of descriptive notation (`P-K4`, `N-KB3`, `PxP`,
    /// `Q-R5ch`), with the habits of the form drawn at random: the knight `N` or `Kt`, checks
    /// written `ch` or not at all, castling `O-O` or `0-0`.
    pub fn descriptive(rng: &mut Rng) -> Writer {
        let never = -30.0;
        let mut writer = Writer::random(rng);
        let style = &mut writer.style;
        style.descriptive = 20.0;
        style.long_dash = never;
        style.long_plain = never;
        let mut parts = vec!["descriptive"];
        // A writer keeps to one knight: `Kt` on some older sheets, `N` on most.
        if rng.chance(0.3) {
            style.descriptive_kt = 30.0;
            parts.push("Kt");
        } else {
            style.descriptive_kt = never;
            parts.push("N");
        }
        if rng.chance(0.7) {
            style.check_ch = 0.0;
            style.check_marked = never;
            style.check_unmarked = (0.1f32).ln();
            style.mate_hash = never;
            style.mate_double_plus = never;
            style.mate_plus = never;
            style.mate_unmarked = (0.1f32).ln();
            parts.push("ch checks");
        } else {
            parts.push(if style.check_marked < -20.0 {
                "no check marks"
            } else {
                "+ checks"
            });
        }
        writer.description = parts.join(", ");
        writer
    }

    /// A writer of textbook SAN.
    pub fn standard() -> Writer {
        let never = -30.0;
        Writer {
            style: Style {
                piece_letter_variant: never,
                capture_colon: never,
                capture_unmarked: never,
                pawn_capture_files_only: never,
                capture_piece_named: never,
                capture_file_only: never,
                rank_for_file: never,
                long_dash: never,
                long_plain: never,
                missing_disambiguation: never,
                extra_disambiguation: never,
                castle_digit_zero: never,
                promotion_plain: never,
                promotion_parenthesised: never,
                promotion_slash: never,
                promotion_unwritten: never,
                en_passant_marked: never,
                check_unmarked: never,
                check_false: never,
                mate_double_plus: never,
                mate_plus: never,
                mate_unmarked: never,
                ..Style::default()
            },
            description: "standard SAN".into(),
        }
    }
}

/// A transcript with the truth behind it.
#[derive(Debug, Clone)]
pub struct NoisyTranscript {
    /// Cell texts in ply order.
    pub cells: Vec<String>,
    /// The game played, from the start position.
    pub moves: Vec<Move>,
    /// Cells whose text differs from a correct way of writing the move.
    pub altered_cells: usize,
}

impl NoisyTranscript {
    /// The transcript as text in the decoder's input format (move number, TAB, cells).
    pub fn to_tsv(&self, first_move_number: u32, black_starts: bool) -> String {
        let mut cells: Vec<&str> = self.cells.iter().map(String::as_str).collect();
        if black_starts {
            cells.insert(0, "...");
        }
        let mut out = String::new();
        for (row, pair) in cells.chunks(2).enumerate() {
            out.push_str(&(first_move_number as usize + row).to_string());
            for cell in pair {
                out.push('\t');
                out.push_str(cell);
            }
            out.push('\n');
        }
        out
    }
}

pub(crate) fn sample_form(
    facts: &MoveFacts,
    lang: &Language,
    style: &Style,
    rng: &mut Rng,
) -> String {
    let mut forms: Vec<(String, f32)> = Vec::new();
    for_each_form(facts, lang, style, &mut |t, w| {
        forms.push((t.to_string(), w))
    });
    let max = forms.iter().map(|f| f.1).fold(f32::NEG_INFINITY, f32::max);
    let weights: Vec<f64> = forms.iter().map(|f| ((f.1 - max) as f64).exp()).collect();
    let pick = rng.weighted(&weights);
    forms.swap_remove(pick).0
}

const READER_ALPHABET: &[char] = &[
    'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', '1', '2', '3', '4', '5', '6', '7', '8', 'x', '+', '-',
    'N', 'B', 'R', 'Q', 'K', 'O', '0',
];

/// One character misread: mostly a look-alike, sometimes any character, dropped or added.
pub fn misread(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return READER_ALPHABET[rng.below(READER_ALPHABET.len())].to_string();
    }
    let at = rng.below(chars.len());
    match rng.below(20) {
        0..=13 => {
            let alikes = Channel::shared().look_alikes(chars[at]);
            if alikes.is_empty() {
                chars.remove(at);
            } else {
                chars[at] = alikes[rng.below(alikes.len())];
            }
        }
        14..=15 => chars[at] = READER_ALPHABET[rng.below(READER_ALPHABET.len())],
        16..=18 => {
            if chars.len() > 1 {
                chars.remove(at);
            }
        }
        _ => chars.insert(at, READER_ALPHABET[rng.below(READER_ALPHABET.len())]),
    }
    chars.into_iter().collect()
}

fn scrawl(rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => "?".into(),
        1 => String::new(),
        _ => (0..1 + rng.below(4))
            .map(|_| READER_ALPHABET[rng.below(READER_ALPHABET.len())])
            .collect(),
    }
}

/// A notational slip on a correctly chosen form: what players really get wrong (HCS): a
/// missing disambiguation, a missing capture mark, a missing or false check mark.
pub(crate) fn notation_slip(
    facts: &MoveFacts,
    lang: &Language,
    writer: &Style,
    rng: &mut Rng,
) -> String {
    let mut kinds: Vec<u8> = Vec::new();
    if facts.needs_file || facts.needs_rank {
        kinds.extend([0, 0]);
    }
    if facts.capture && facts.castle.is_none() {
        kinds.push(1);
    }
    if facts.check == Check::Check {
        kinds.push(2);
    }
    if facts.check == Check::None {
        kinds.push(3);
    }
    let mut slipped = writer.clone();
    match kinds.get(rng.below(kinds.len())) {
        Some(0) => slipped.missing_disambiguation = 20.0,
        Some(1) => {
            slipped.capture_unmarked = 20.0;
            slipped.pawn_capture_files_only = -30.0;
        }
        Some(2) => {
            slipped.check_unmarked = 20.0;
            slipped.check_marked = -30.0;
        }
        Some(_) => slipped.check_false = 20.0,
        None => {}
    }
    let text = sample_form(facts, lang, &slipped, rng);
    // A descriptive writer's slip is a descriptive form short of a mark; where the slipped
    // habits favour an algebraic form (`ef5` for `PxP`), the writer keeps to their own forms.
    let chars: Vec<char> = text.chars().collect();
    if writer.descriptive > 0.0 && last_square(&chars).is_some() {
        return sample_form(facts, lang, writer, rng);
    }
    text
}

/// The wrong square: the destination's rank (mostly) or file off by one, as a hurried hand
/// writes it.
pub(crate) fn wrong_square(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let Some(at) = last_square(&chars) else {
        return wrong_descriptive_rank(text, rng);
    };
    let shift = |c: char, lo: char, hi: char, rng: &mut Rng| -> char {
        let up = if c == lo {
            true
        } else if c == hi {
            false
        } else {
            rng.chance(0.5)
        };
        if up {
            (c as u8 + 1) as char
        } else {
            (c as u8 - 1) as char
        }
    };
    if rng.chance(0.7) {
        chars[at] = shift(chars[at], '1', '8', rng);
    } else {
        chars[at - 1] = shift(chars[at - 1], 'a', 'h', rng);
    }
    chars.into_iter().collect()
}

/// A descriptive square's rank off by one (`N-KB4` for `N-KB3`); castling and captures,
/// which name no square, stay as written.
fn wrong_descriptive_rank(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let Some(at) = (1..chars.len())
        .rev()
        .find(|&i| chars[i - 1].is_ascii_uppercase() && ('1'..='8').contains(&chars[i]))
    else {
        return text.to_string();
    };
    let up = match chars[at] {
        '1' => true,
        '8' => false,
        _ => rng.chance(0.5),
    };
    chars[at] = if up {
        (chars[at] as u8 + 1) as char
    } else {
        (chars[at] as u8 - 1) as char
    };
    chars.into_iter().collect()
}

/// The index of the rank digit of the last square written in `chars` (the destination).
fn last_square(chars: &[char]) -> Option<usize> {
    (1..chars.len())
        .rev()
        .find(|&i| ('a'..='h').contains(&chars[i - 1]) && ('1'..='8').contains(&chars[i]))
}

/// The wrong square, as the HCS players wrote it (`decode-bench --hcs-slips`): the rank or
/// the file about equally often; a rank to its neighbour about half the time, as seen from
/// the other side (`Nf3` for `Nf6`) one time in seven, to any other the rest; a file to one
/// that looks like it (`c` for `e`, `b` for `h`, `a` for `d`) a third of the time, to its
/// neighbour a quarter, to any other the rest.
pub(crate) fn wrong_square_as_players(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let Some(at) = last_square(&chars) else {
        return wrong_descriptive_rank(text, rng);
    };
    let one_of = |candidates: &[u8], rng: &mut Rng| candidates[rng.below(candidates.len())];
    let roll = rng.below(100);
    if rng.chance(0.47) {
        let rank = chars[at] as u8 - b'1';
        let neighbours: Vec<u8> = (0..8u8).filter(|&r| r.abs_diff(rank) == 1).collect();
        let mirrored = 7 - rank;
        let new = if (49..63).contains(&roll) && mirrored.abs_diff(rank) > 1 {
            mirrored
        } else if roll < 63 {
            one_of(&neighbours, rng)
        } else {
            let others: Vec<u8> = (0..8u8)
                .filter(|&r| r.abs_diff(rank) > 1 && r != mirrored)
                .collect();
            one_of(&others, rng)
        };
        chars[at] = (b'1' + new) as char;
    } else {
        let file = chars[at - 1];
        let alike: Vec<u8> = Channel::shared()
            .look_alikes(file)
            .into_iter()
            .filter(|c| ('a'..='h').contains(c))
            .map(|c| c as u8 - b'a')
            .collect();
        let file = file as u8 - b'a';
        let neighbours: Vec<u8> = (0..8u8).filter(|&f| f.abs_diff(file) == 1).collect();
        let new = if roll < 34 && !alike.is_empty() {
            one_of(&alike, rng)
        } else if roll < 60 {
            one_of(&neighbours, rng)
        } else {
            let others: Vec<u8> = (0..8u8)
                .filter(|&f| f.abs_diff(file) > 1 && !alike.contains(&f))
                .collect();
            one_of(&others, rng)
        };
        chars[at - 1] = (b'a' + new) as char;
    }
    chars.into_iter().collect()
}

/// The wrong piece, as the HCS players wrote it: another piece's letter (`Rg7` for `Bg7`),
/// seven times in ten, or none (`g7`); on a pawn's move, a piece's letter (`Rc5` for `c5`).
/// Castling is left as it is.
pub(crate) fn wrong_piece(text: &str, facts: &MoveFacts, lang: &Language, rng: &mut Rng) -> String {
    if facts.castle.is_some() {
        return text.to_string();
    }
    let mut letters: Vec<&str> = [
        Role::King,
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
    ]
    .into_iter()
    .filter(|&role| role != facts.role)
    .filter_map(|role| lang.letter(role))
    .collect();
    if facts.role == Role::Pawn {
        return format!("{}{text}", letters[rng.below(letters.len())]);
    }
    let Some(own) = lang
        .variants(facts.role)
        .iter()
        .filter(|letter| text.starts_with(**letter))
        .max_by_key(|letter| letter.len())
    else {
        return text.to_string();
    };
    let rest = &text[own.len()..];
    // Another piece whose letter is the same as this one's (a language with one letter for
    // two pieces) would be no slip at all.
    letters.retain(|letter| letter != own);
    if letters.is_empty() || rng.chance(0.3) {
        return rest.to_string();
    }
    format!("{}{rest}", letters[rng.below(letters.len())])
}

/// Whether `text` is a correct way of writing the move (no slip): any style, no missing marks.
pub fn is_correct_form(facts: &MoveFacts, lang: &Language, text: &str) -> bool {
    let never = f32::NEG_INFINITY;
    let strict = Style {
        descriptive: 0.0,
        check_ch: 0.0,
        missing_disambiguation: never,
        extra_disambiguation: never,
        check_false: never,
        promotion_unwritten: never,
        ..Style::default()
    };
    let mut found = false;
    for_each_form(facts, lang, &strict, &mut |t, w| {
        found |= w > never && t == text
    });
    found
}

/// Writes `moves` (legal from `start`) as `writer` would in `lang`, then applies `noise`.
pub fn write_transcript(
    start: &Chess,
    moves: &[Move],
    lang: &Language,
    writer: &Writer,
    noise: &Noise,
    rng: &mut Rng,
) -> NoisyTranscript {
    let mut pos = start.clone();
    let mut cells: Vec<String> = Vec::with_capacity(moves.len());
    let mut altered = 0;
    for &m in moves {
        let facts = legal_moves_with_facts(&pos)
            .into_iter()
            .find(|(legal, _)| *legal == m)
            .map(|(_, f)| f)
            .expect("moves are legal from the start");
        pos.play_unchecked(m);
        if rng.chance(noise.skipped) {
            altered += 1;
            continue;
        }
        if rng.chance(noise.junk_cell) {
            cells.push(scrawl(rng));
            altered += 1;
        }
        if rng.chance(noise.illegible) {
            cells.push(scrawl(rng));
            altered += 1;
            continue;
        }
        let mut changed = false;
        let mut text = if rng.chance(noise.notation_slip) {
            changed = true;
            notation_slip(&facts, lang, &writer.style, rng)
        } else {
            sample_form(&facts, lang, &writer.style, rng)
        };
        if rng.chance(noise.wrong_square) {
            text = if noise.squares_as_players {
                wrong_square_as_players(&text, rng)
            } else {
                wrong_square(&text, rng)
            };
            changed = true;
        }
        // Drawn only where the level has it, so that the other levels' transcripts stay the
        // same as before it existed.
        if noise.wrong_piece > 0.0 && rng.chance(noise.wrong_piece) {
            text = wrong_piece(&text, &facts, lang, rng);
            changed = true;
        }
        if rng.chance(noise.misread) {
            text = misread(&text, rng);
            changed = true;
            if rng.chance(0.25) {
                text = misread(&text, rng);
            }
        }
        if changed && is_correct_form(&facts, lang, &text) {
            changed = false;
        }
        altered += changed as usize;
        cells.push(text);
    }
    let mut i = 0;
    while i + 1 < cells.len() {
        if rng.chance(noise.swapped) {
            cells.swap(i, i + 1);
            altered += 2;
            i += 2;
        } else {
            i += 1;
        }
    }
    NoisyTranscript {
        cells,
        moves: moves.to_vec(),
        altered_cells: altered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    fn facts_of(fen: &str, uci: &str) -> MoveFacts {
        let pos: Chess = fen
            .parse::<Fen>()
            .expect("a FEN")
            .into_position(CastlingMode::Standard)
            .expect("a legal position");
        legal_moves_with_facts(&pos)
            .into_iter()
            .find(|(m, _)| m.to_uci(CastlingMode::Standard).to_string() == uci)
            .map(|(_, facts)| facts)
            .expect("a legal move")
    }

    #[test]
    fn a_players_wrong_square_takes_each_kind_in_its_hcs_share() {
        let mut rng = Rng::new(7);
        let draws = 20_000;
        let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
        for _ in 0..draws {
            let slip = wrong_square_as_players("Nf6+", &mut rng);
            let chars: Vec<char> = slip.chars().collect();
            assert_eq!((chars[0], chars[3]), ('N', '+'), "{slip}");
            let kind = match (chars[1], chars[2]) {
                ('f', '5' | '7') => "rank neighbour",
                ('f', '3') => "rank mirrored",
                ('f', '1' | '2' | '4' | '8') => "rank other",
                ('e' | 'g', '6') => "file neighbour",
                ('a' | 'b' | 'c' | 'd' | 'h', '6') => "file other",
                _ => panic!("{slip} is not one square off Nf6"),
            };
            *kinds.entry(kind).or_default() += 1;
        }
        let share = |kind: &str| kinds.get(kind).copied().unwrap_or(0) as f64 / draws as f64;
        // f has no look-alike file: its third goes to the neighbours.
        let expected = [
            ("rank neighbour", 0.47 * 0.49),
            ("rank mirrored", 0.47 * 0.14),
            ("rank other", 0.47 * 0.37),
            ("file neighbour", 0.53 * 0.60),
            ("file other", 0.53 * 0.40),
        ];
        for (kind, want) in expected {
            assert!(
                (share(kind) - want).abs() < 0.015,
                "{kind}: {} against {want}",
                share(kind)
            );
        }
        // e has one look-alike file, c, which is then left out of the others.
        let mut to_c = 0;
        for _ in 0..draws {
            let slip = wrong_square_as_players("e4", &mut rng);
            assert_ne!(slip, "e4");
            to_c += (slip == "c4") as usize;
        }
        let want = 0.53 * 0.34;
        let got = to_c as f64 / draws as f64;
        assert!(
            (got - want).abs() < 0.015,
            "c4 for e4: {got} against {want}"
        );
    }

    #[test]
    fn a_wrong_piece_is_another_letter_none_or_one_on_a_pawns_move() {
        let english = Language::by_code("en").unwrap();
        let russian = Language::by_code("ru").unwrap();
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let mut rng = Rng::new(11);
        let knight = facts_of(start, "g1f3");
        let mut dropped = 0;
        for _ in 0..2_000 {
            let slip = wrong_piece("Nf3", &knight, english, &mut rng);
            assert!(
                ["Kf3", "Qf3", "Rf3", "Bf3", "f3"].contains(&slip.as_str()),
                "{slip}"
            );
            dropped += (slip == "f3") as usize;
        }
        assert!((500..700).contains(&dropped), "{dropped} of 2,000 dropped");
        let mut always_among = |text: &str, facts: &MoveFacts, lang, slips: &[&str]| {
            for _ in 0..200 {
                let slip = wrong_piece(text, facts, lang, &mut rng);
                assert!(slips.contains(&slip.as_str()), "{text}: {slip}");
            }
        };
        let pawn = facts_of(start, "e2e4");
        always_among("e4", &pawn, english, &["Ke4", "Qe4", "Re4", "Be4", "Ne4"]);
        // A two-letter king leaves no letter behind.
        let king = facts_of("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "e1e2");
        always_among("Крe2", &king, russian, &["Фe2", "Лe2", "Сe2", "Кe2", "e2"]);
        let castle = facts_of("4k3/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1");
        assert_eq!(wrong_piece("O-O", &castle, english, &mut rng), "O-O");
    }
}
