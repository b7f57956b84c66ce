//! Transcripts written from real games the way players write and readers misread them: the
//! ground truth the decoder is tested and measured on.

use shakmaty::{Chess, Move, Position};

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
    /// The wrong square or piece written (a real slip of the pen).
    pub wrong_square: f32,
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
        misread: 0.10,
        illegible: 0.025,
        skipped: 0.008,
        swapped: 0.006,
        junk_cell: 0.004,
    };
    pub const LEVELS: [Noise; 3] = [Noise::CLEAN, Noise::MEDIUM, Noise::HEAVY];
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

    /// A writer of textbook SAN.
    pub fn standard() -> Writer {
        let never = -30.0;
        Writer {
            style: Style {
                piece_letter_variant: never,
                capture_colon: never,
                capture_unmarked: never,
                pawn_capture_files_only: never,
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
    sample_form(facts, lang, &slipped, rng)
}

/// The wrong square: the destination's rank (mostly) or file off by one, as a hurried hand
/// writes it.
pub(crate) fn wrong_square(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let squares: Vec<usize> = (1..chars.len())
        .filter(|&i| ('a'..='h').contains(&chars[i - 1]) && ('1'..='8').contains(&chars[i]))
        .collect();
    let Some(&at) = squares.last() else {
        return text.to_string();
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

/// Whether `text` is a correct way of writing the move (no slip): any style, no missing marks.
pub fn is_correct_form(facts: &MoveFacts, lang: &Language, text: &str) -> bool {
    let never = f32::NEG_INFINITY;
    let strict = Style {
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
            text = wrong_square(&text, rng);
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
