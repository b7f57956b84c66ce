//! Chess notation as players write it: piece letters of every language, every written form of a
//! legal move, and the reverse, what a written text can mean.
//!
//! The written forms are the single source of truth for both directions: the decoder scores a
//! legal move by comparing its forms with what a cell holds, the sheet generator writes one of
//! them, and [`interpret`] reads a text back by matching it against them.

mod forms;
mod language;

pub use forms::{
    canonical, check_marks, for_each_body, for_each_form, Check, MoveFacts, Rivals, Style,
};
pub use language::{distinct_languages, Language, LANGUAGES, NOTATION_MARKS, PIECE_ORDER};

use shakmaty::{Chess, Move, Position};

/// A cell's text made comparable with the written forms, plus the remarks a player may add that
/// are not part of the move.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Written {
    /// The move as written, without spaces, annotation marks or a draw offer.
    pub text: String,
    /// The player wrote `(=)`: they offered a draw with this move (FIDE Laws art. 9.1.2.2).
    pub draw_offer: bool,
}

impl Written {
    /// Cleans a cell's raw text: drops white space, `!`/`?` annotation marks and a `(=)` draw
    /// offer, and folds typographic variants (`×` to `x`, dashes to `-`).
    pub fn parse(raw: &str) -> Written {
        let mut text: String = raw
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| match c {
                '×' | '✕' => 'x',
                '–' | '—' | '−' | '‐' => '-',
                '‡' => '#',
                other => other,
            })
            .collect();
        let mut draw_offer = false;
        if let Some(at) = text.find("(=)") {
            draw_offer = true;
            text.replace_range(at..at + 3, "");
        }
        while text.len() > 1 && (text.ends_with('!') || text.ends_with('?')) {
            text.pop();
        }
        Written { text, draw_offer }
    }
}

/// The two ways of naming squares that players have written: algebraic (`e4`, `Nf3`), FIDE's
/// since 1981, and English descriptive (`P-K4`, `N-KB3`), the English and American players'
/// until about then. A sheet keeps to one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Notation {
    #[default]
    Algebraic,
    Descriptive,
}

impl Notation {
    /// Its name in JSON and messages: `algebraic` or `descriptive`.
    pub fn name(self) -> &'static str {
        match self {
            Notation::Algebraic => "algebraic",
            Notation::Descriptive => "descriptive",
        }
    }
}

/// Whether a cell reads as English descriptive notation: a piece moving to a square named by
/// its file's piece (`P-K4`, `N-QB3`, `Kt-KB3`, `R(1)-Q1`) or a pawn taking a pawn (`PxP`);
/// never algebraic, where a dash is followed by a file or `O`. A capture named by its pieces
/// alone (`BxN`) is not counted: algebraic writers write it too.
pub fn looks_descriptive(text: &[char]) -> bool {
    let is_piece = |c: char| matches!(c, 'K' | 'Q' | 'R' | 'B' | 'N' | 'P');
    let starts_with_piece = text.first().is_some_and(|&c| is_piece(c));
    let to_square = text.windows(3).any(|w| {
        w[0] == '-' && (w[1] == 'K' || w[1] == 'Q') && (w[2].is_ascii_digit() || is_piece(w[2]))
            || w[0] == '-' && is_piece(w[1]) && ('1'..='8').contains(&w[2])
            || w == ['-', 'K', 't']
    });
    let pawn_taken = text.first() == Some(&'P') && text.windows(2).any(|w| w == ['x', 'P']);
    starts_with_piece && to_square || pawn_taken
}

/// Whether a cell names a square algebraically, a file letter then a rank (`e4`, `Nf3`,
/// `exd5`, `Ng1-f3`): what descriptive notation never writes (its files are pieces' names).
pub fn names_algebraic_square(text: &[char]) -> bool {
    text.windows(2)
        .any(|w| ('a'..='h').contains(&w[0]) && ('1'..='8').contains(&w[1]))
}

/// Every legal move of `pos` with the facts that decide how it is written.
pub fn legal_moves_with_facts(pos: &Chess) -> Vec<(Move, MoveFacts)> {
    let legal = pos.legal_moves();
    let rivals = Rivals::of(&legal, pos.turn());
    legal
        .iter()
        .map(|&m| {
            (
                m,
                MoveFacts::with_rivals(m, &legal, &rivals, Check::after(pos, m)),
            )
        })
        .collect()
}

/// The legal moves of `pos` that a player writing in `lang` may have meant by `written`: those
/// with a written form equal to it. A text in standard SAN means exactly one move; a slip such as
/// a missing disambiguation (`Nd2` for `Nbd2`) may mean several.
pub fn interpret(pos: &Chess, written: &str, lang: &Language, style: &Style) -> Vec<Move> {
    let target = Written::parse(written).text;
    legal_moves_with_facts(pos)
        .into_iter()
        .filter(|(_, facts)| {
            let mut found = false;
            for_each_form(facts, lang, style, &mut |text, _| found |= text == target);
            found
        })
        .map(|(m, _)| m)
        .collect()
}

/// Standard SAN of `m` (legal in `pos`) in `lang`'s letters.
pub fn san_in(pos: &Chess, m: Move, lang: &Language) -> String {
    let legal = pos.legal_moves();
    canonical(
        &MoveFacts::new(m, &legal, pos.turn(), Check::after(pos, m)),
        lang,
    )
}
