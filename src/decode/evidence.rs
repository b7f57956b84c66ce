//! What a cell says about the move written in it.

use super::channel::Channel;
use crate::notation::Written;

/// The evidence one scoresheet cell gives: how likely it is to show any candidate written form.
///
/// The decoder only ever asks for likelihoods of candidates it builds from legal moves, so it
/// never depends on a reader's first guess. Implementations: [`TypedCell`] for text typed or
/// OCR'd elsewhere, and the recognizer's CTC posteriors.
pub trait CellEvidence: Send + Sync {
    /// Natural-log likelihood that the cell shows the written form `body` followed by the check
    /// mark `mark` (`""`, `"+"`, `"#"` or `"++"`), up to a constant shared by all candidates of
    /// this cell; values are `<= 0`. The caller only needs values above `needed`: an
    /// implementation may stop early and return anything at or below it once the true value is
    /// known to be there.
    fn log_likelihood(&self, body: &[char], mark: &str, needed: f32) -> f32;

    /// Evidence whose likelihood is a part for the body plus a part for the check mark says so
    /// here; the decoder then scores every body once for all marks.
    fn factored(&self) -> Option<&dyn FactoredEvidence> {
        None
    }

    /// The likelihood of the cell's content as random writing, not any move's (a scrawl, a
    /// crossed-out box), on the same scale as [`CellEvidence::log_likelihood`]: it prices a cell
    /// explained as junk, and every move scores at least this, so one bad cell costs a bounded
    /// amount and never derails the game.
    fn unreadable_log_likelihood(&self) -> f32;

    /// Whether the cell is blank or marked illegible, so carries no evidence at all.
    fn is_illegible(&self) -> bool {
        false
    }

    /// The text as read, for reports.
    fn text(&self) -> &str;

    /// How likely the text is to begin with each character, where the evidence knows more
    /// than its one reading ([`crate::recognize::Posteriors::first_characters`]); `None`: the
    /// text's first character is all there is (a typed cell).
    fn first_characters(&self) -> Option<Vec<(char, f32)>> {
        None
    }

    /// Whether the player wrote a draw offer `(=)` beside the move.
    fn draw_offer(&self) -> bool {
        false
    }

    /// How many independent readings of the move [`CellEvidence::log_likelihood`] adds up
    /// (two for a cell read with the other player's copy): a move's fit is judged per reading,
    /// or every move read from two sheets would look twice as doubtful.
    fn readings(&self) -> usize {
        1
    }

    /// The two players' own readings of the ply, when this cell fuses a sheet with the other
    /// player's copy: the decoder then scores each in its writer's habits (one player writes
    /// `Nf3`, the other `Ng1-f3`), the copy's with [`DecoderConfig::copy_style`].
    ///
    /// [`DecoderConfig::copy_style`]: super::DecoderConfig::copy_style
    fn copies(&self) -> Option<(&dyn CellEvidence, &dyn CellEvidence)> {
        None
    }
}

/// The two parts of a factored likelihood: `log_likelihood(body, mark, _)` equals
/// `body_log_likelihood(body, _) + mark_log_likelihood(mark)`.
pub trait FactoredEvidence {
    fn body_log_likelihood(&self, body: &[char], needed: f32) -> f32;
    fn mark_log_likelihood(&self, mark: &str) -> f32;
}

/// A cell whose text is known as characters (typed transcript, external OCR).
#[derive(Debug, Clone)]
pub struct TypedCell {
    raw: String,
    written: Written,
    /// The text without its trailing check mark, and the mark.
    chars: Vec<char>,
    mark: Vec<char>,
    illegible: bool,
    unreadable: f32,
    /// [`FactoredEvidence::mark_log_likelihood`] of the marks the decoder asks about, by
    /// [`STANDARD_MARKS`] index: it asks for every move it weighs.
    standard_marks: [f32; 4],
}

/// The check marks candidates end with.
const STANDARD_MARKS: [&str; 4] = ["", "+", "#", "++"];

/// Log-likelihood of each character of random writing (about 30 equally likely characters).
pub const RANDOM_CHAR_LOG_LIKELIHOOD: f32 = -3.4;
/// Log-probability that a cell holding a move was nonetheless written or read as random text.
pub const MISWRITTEN_CELL_LOG_PROB: f32 = -3.5;

impl TypedCell {
    /// A cell holding `raw`; an empty text or `?` marks a cell that could not be read.
    pub fn new(raw: &str) -> TypedCell {
        let written = Written::parse(raw);
        let illegible = written.text.is_empty() || written.text.chars().all(|c| c == '?');
        let mut chars: Vec<char> = written.text.chars().collect();
        let mut body_len = chars
            .iter()
            .rposition(|&c| c != '+' && c != '#')
            .map_or(0, |i| i + 1);
        // Descriptive notation's check, `P-Q4ch`: no algebraic move ends so.
        if body_len == chars.len()
            && chars.ends_with(&['c', 'h'])
            && body_len > 3
            && (chars[body_len - 3].is_ascii_digit()
                || chars[body_len - 3].is_uppercase()
                || chars[body_len - 3] == ')')
        {
            body_len -= 2;
        }
        let mark = chars.split_off(body_len);
        let unreadable = if illegible {
            0.0
        } else {
            MISWRITTEN_CELL_LOG_PROB
                + RANDOM_CHAR_LOG_LIKELIHOOD * (chars.len() + mark.len() + 1) as f32
        };
        let mut cell = TypedCell {
            raw: raw.trim().to_string(),
            chars,
            mark,
            written,
            illegible,
            unreadable,
            standard_marks: [0.0; 4],
        };
        cell.standard_marks = STANDARD_MARKS.map(|m| cell.mark_distance(m));
        cell
    }

    fn mark_distance(&self, mark: &str) -> f32 {
        if self.illegible {
            return 0.0;
        }
        let mark: Vec<char> = mark.chars().collect();
        -Channel::shared().distance(&mark, &self.mark, f32::INFINITY)
    }

    /// The cell text after clean-up (no spaces, annotations or draw offer).
    pub fn cleaned(&self) -> &str {
        &self.written.text
    }
}

impl FactoredEvidence for TypedCell {
    fn body_log_likelihood(&self, body: &[char], needed: f32) -> f32 {
        if self.illegible {
            return 0.0;
        }
        -Channel::shared().distance(body, &self.chars, -needed.max(self.unreadable - 4.0))
    }

    fn mark_log_likelihood(&self, mark: &str) -> f32 {
        match STANDARD_MARKS.iter().position(|&m| m == mark) {
            Some(i) => self.standard_marks[i],
            None => self.mark_distance(mark),
        }
    }
}

impl CellEvidence for TypedCell {
    fn log_likelihood(&self, body: &[char], mark: &str, needed: f32) -> f32 {
        let mark_part = self.mark_log_likelihood(mark);
        mark_part + self.body_log_likelihood(body, needed - mark_part)
    }

    fn factored(&self) -> Option<&dyn FactoredEvidence> {
        Some(self)
    }

    fn unreadable_log_likelihood(&self) -> f32 {
        self.unreadable
    }

    fn is_illegible(&self) -> bool {
        self.illegible
    }

    fn text(&self) -> &str {
        &self.raw
    }

    fn draw_offer(&self) -> bool {
        self.written.draw_offer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_check_marks_score_as_computed_ones() {
        for text in ["Nf3", "Nf3+", "Qxh7#", "e4++", "Kf1 +", "?", "Lb5+#"] {
            let cell = TypedCell::new(text);
            for mark in STANDARD_MARKS {
                assert_eq!(
                    cell.mark_log_likelihood(mark),
                    cell.mark_distance(mark),
                    "{text} {mark}"
                );
            }
        }
        // Descriptive notation's `ch` is a check mark; an algebraic `Bh` or `Rch` is not.
        let descriptive = TypedCell::new("P-Q4ch");
        assert_eq!(descriptive.mark_log_likelihood("ch"), 0.0);
        assert_eq!(descriptive.chars.iter().collect::<String>(), "P-Q4");
        for text in ["Bh", "Rch", "exch"] {
            let cell = TypedCell::new(text);
            assert!(cell.mark.is_empty(), "{text}");
        }
        let checked = TypedCell::new("Nf3+");
        assert_eq!(checked.mark_log_likelihood("+"), 0.0);
        assert!(checked.mark_log_likelihood("") < 0.0);
        assert!(checked.mark_log_likelihood("#") < checked.mark_log_likelihood("++"));
    }
}
