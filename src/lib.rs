//! scoresheet: from photos and scans of handwritten chess scoresheets to the legal game that was
//! played, with evidence behind every move.
//!
//! The stages, each a module, with data flowing one way through plain types:
//! - [`page`]: an image of a sheet ([`page::Sheet`]) to its move cells, each with its ply
//!   ([`page::Cells`]);
//! - [`recognize`]: a cell's character posteriors and the CTC likelihood of any text;
//! - [`notation`]: how players write moves, in every language;
//! - [`decode`]: what was written in each cell ([`decode::CellEvidence`]) to the legal game
//!   most consistent with it ([`decode::Game`]);
//! - [`report`]: PGN and JSON for a decoded game;
//! - [`read`]: the stages joined, from the pages of a scoresheet to its game; [`batch`]: many
//!   games read in parallel into one folder, restartably.
//!
//! [`start`] holds the start positions (standard, FEN, Chess960) and [`games`] reads PGN
//! collections, which the tests, benchmarks and sheet generator draw real games from.

pub mod batch;
pub mod decode;
pub mod games;
pub mod notation;
pub mod page;
pub mod read;
pub mod recognize;
pub mod report;
pub mod start;
pub mod synth;
