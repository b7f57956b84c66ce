//! The recognize stage: a cell's image to character posteriors, and what they say about any
//! candidate text.
//!
//! [`model`] runs the ONNX cell reader on crops ([`Reader::read`]); [`ctc`] reads its
//! posteriors: the best path, and the CTC likelihood of any text, which the decoder scores
//! every legal move's written forms with, so it never depends on the model's first guess.

pub mod ctc;
pub mod model;

pub use ctc::{Charset, Posteriors};
pub use model::{ModelCard, Reader, RecognizeError};
