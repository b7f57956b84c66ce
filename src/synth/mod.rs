//! Generated ground truth. Transcripts written from real games with the slips of real players
//! and readers, for testing and measuring the decoder; and whole scoresheet images (printed
//! form, handwriting from real glyphs and fonts, scanner or phone camera) with the truth behind
//! every cell, for training the cell reader and testing the page stage.

pub mod camera;
pub mod cells;
pub mod glyphs;
pub mod hand;
pub mod ink;
pub mod layout;
mod rng;
pub mod sheet;
pub mod transcript;

pub use rng::Rng;
pub use transcript::{misread, write_transcript, Noise, NoisyTranscript, Writer};

use crate::notation::LANGUAGES;

/// Every character a scoresheet may hold: the moves in every language and style, and what
/// players write in the header (names, dates).
pub fn charset() -> Vec<char> {
    let mut chars: Vec<char> = ('a'..='z').chain('A'..='Z').chain('0'..='9').collect();
    chars.extend("x×:-+#=()./,'".chars());
    for lang in LANGUAGES {
        for variants in lang.letters {
            for letter in variants.iter() {
                chars.extend(letter.chars());
            }
        }
    }
    chars.sort_unstable();
    chars.dedup();
    chars
}
