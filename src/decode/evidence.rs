//! What a cell says about the move written in it.

use super::channel::Channel;
use crate::notation::Written;

/// The evidence one scoresheet cell gives: how likely it is to show any candidate written form.
///
/// The decoder only ever asks for likelihoods of candidates it builds from legal moves, so it
/// never depends on a reader's first guess. Implementations: [`TypedCell`] for text typed or
/// OCR'd elsewhere, and the recognizer's CTC posteriors.
pub trait CellEvidence: Send + Sync {
    /// Natural-log likelihood that the cell shows `written` (a written form, no spaces), up to
    /// a constant shared by all candidates of this cell. Values are `<= 0`.
    fn log_likelihood(&self, written: &[char]) -> f32;

    /// The likelihood of the cell under "the writing here is unreadable or no move at all"
    /// (a scrawl, a crossed-out box): every candidate is at least this likely, so one bad cell
    /// costs a bounded amount and never derails the game.
    fn unreadable_log_likelihood(&self) -> f32;

    /// Whether the cell is blank or marked illegible, so carries no evidence at all.
    fn is_illegible(&self) -> bool {
        false
    }

    /// The text as read, for reports.
    fn text(&self) -> &str;

    /// Whether the player wrote a draw offer `(=)` beside the move.
    fn draw_offer(&self) -> bool {
        false
    }
}

/// A cell whose text is known as characters (typed transcript, external OCR).
#[derive(Debug, Clone)]
pub struct TypedCell {
    raw: String,
    written: Written,
    chars: Vec<char>,
    illegible: bool,
    unreadable_cost: f32,
}

/// Cost, in nats, of declaring a typed cell unreadable: a text further than this from every
/// form of the move is treated as noise rather than as evidence against the move.
pub const TYPED_UNREADABLE_COST: f32 = 9.0;

impl TypedCell {
    /// A cell holding `raw`; an empty text or `?` marks a cell that could not be read.
    pub fn new(raw: &str) -> TypedCell {
        let written = Written::parse(raw);
        let illegible = written.text.is_empty() || written.text.chars().all(|c| c == '?');
        TypedCell {
            raw: raw.trim().to_string(),
            chars: written.text.chars().collect(),
            written,
            illegible,
            unreadable_cost: TYPED_UNREADABLE_COST,
        }
    }

    /// The cell text after clean-up (no spaces, annotations or draw offer).
    pub fn cleaned(&self) -> &str {
        &self.written.text
    }
}

impl CellEvidence for TypedCell {
    fn log_likelihood(&self, written: &[char]) -> f32 {
        if self.illegible {
            return 0.0;
        }
        -Channel::shared().distance(written, &self.chars, self.unreadable_cost + 4.0)
    }

    fn unreadable_log_likelihood(&self) -> f32 {
        if self.illegible {
            0.0
        } else {
            -self.unreadable_cost
        }
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
