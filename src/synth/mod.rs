//! Generated ground truth: transcripts written from real games with the slips of real players
//! and readers, for testing and measuring the decoder.

mod rng;
pub mod transcript;

pub use rng::Rng;
pub use transcript::{misread, write_transcript, Noise, NoisyTranscript, Writer};
