//! The recognize stage: a cell's image to character posteriors, and what they say about any
//! candidate text.
//!
//! [`ctc`] holds the part that needs no model: the best path a model's posteriors read and
//! the CTC likelihood of any text, which the decoder scores every legal move's written forms
//! with, so it never depends on the model's first guess.

pub mod ctc;

pub use ctc::{Charset, Posteriors};
