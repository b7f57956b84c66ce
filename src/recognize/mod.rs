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
pub use evidence::{CtcCell, DEFAULT_EVIDENCE_SCALE, READING_BEAM};
pub use model::{descriptive_model_path, shipped_model_path, ModelCard, Reader, RecognizeError};

use image::GrayImage;

use crate::page::{Cells, Sheet};

/// Reads every cell of `cells` (found in `sheet`): one [`CtcCell`] per cell, in the order of
/// [`Cells::cells`], cropped exactly as the reader was trained.
pub fn read_cells(
    reader: &Reader,
    sheet: &Sheet,
    cells: &Cells,
) -> Result<Vec<CtcCell>, RecognizeError> {
    read_crops(reader, &crop_cells(reader, sheet, cells))
        .map_err(|e| RecognizeError(format!("{}: {e}", sheet.name)))
}

/// The crops [`read_cells`] reads: each cell of `cells` cut from `sheet` at the reader's
/// input size.
pub fn crop_cells(reader: &Reader, sheet: &Sheet, cells: &Cells) -> Vec<GrayImage> {
    let (width, height) = reader.input_size();
    cells.crops(sheet, width, height)
}

/// Reads crops made by [`crop_cells`]: one [`CtcCell`] per crop, in order.
pub fn read_crops(reader: &Reader, crops: &[GrayImage]) -> Result<Vec<CtcCell>, RecognizeError> {
    Ok(reader.read(crops)?.into_iter().map(CtcCell::new).collect())
}
