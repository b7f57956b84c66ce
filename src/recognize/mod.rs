//! The recognize stage: a cell's image to character posteriors, and what they say about any
//! candidate text.
//!
//! [`model`] runs the ONNX cell reader on crops ([`Reader::read`]); [`ctc`] reads its
//! posteriors: the best path, and the CTC likelihood of any text; [`evidence`] hands them to
//! the decoder ([`CtcCell`]), which scores every legal move's written forms with them, so it
//! never depends on the model's first guess.

pub mod ctc;
pub mod evidence;
pub mod model;

pub use ctc::{Charset, Posteriors};
pub use evidence::CtcCell;
pub use model::{ModelCard, Reader, RecognizeError};
