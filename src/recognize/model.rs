//! The cell reader: an ONNX model, run with ONNX Runtime through `ort`, that turns cell crops
//! into character posteriors.
//!
//! A model is a single-file `NAME.onnx` with `NAME.json` beside it saying its input (name,
//! height, width), its output (name; the blank is class 0) and its charset. Input pixels are
//! ink in 0..=1: `(255 - grey) / 255`. ONNX Runtime is the shared library `scripts/setup`
//! fetches from PyPI, found through `ORT_DYLIB_PATH` (at run time, or else as it was when
//! the binary was built); one runtime environment serves the whole process.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use image::imageops::{self, FilterType};
use image::GrayImage;
use ndarray::Array4;
use ort::environment::Environment;
use ort::session::Session;
use ort::value::TensorRef;
use rayon::prelude::*;
use serde::Deserialize;

use super::ctc::{Charset, Posteriors};

/// Cells run through the model at once.
pub const BATCH: usize = 64;

/// The reader could not be loaded or run: what, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecognizeError(pub String);

impl fmt::Display for RecognizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RecognizeError {}

/// What `NAME.json` says of a model.
#[derive(Debug, Clone, Deserialize)]
pub struct ModelCard {
    pub name: String,
    pub version: String,
    pub input: InputSpec,
    pub output: OutputSpec,
    /// The characters of classes 1, 2, ... (class 0 is the blank).
    pub charset: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct InputSpec {
    pub name: String,
    pub height: u32,
    pub width: u32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct OutputSpec {
    pub name: String,
    pub blank: usize,
}

/// The process's ONNX Runtime, loaded once from `ORT_DYLIB_PATH`.
fn environment() -> Result<&'static Environment, RecognizeError> {
    static ENVIRONMENT: OnceLock<Result<Environment, String>> = OnceLock::new();
    ENVIRONMENT
        .get_or_init(|| {
            // At run time the variable wins; a binary run outside cargo falls back to the
            // library cargo pointed at when it was built.
            let path = std::env::var_os("ORT_DYLIB_PATH")
                .map(PathBuf::from)
                .or_else(|| option_env!("ORT_DYLIB_PATH").map(PathBuf::from))
                .ok_or("ORT_DYLIB_PATH is not set (run scripts/setup; cargo sets it)")?;
            if !path.is_file() {
                return Err(format!(
                    "ONNX Runtime library {} not found (run scripts/setup)",
                    path.display()
                ));
            }
            ort::init_from(&path)
                .map_err(|e| format!("{}: cannot load ONNX Runtime: {e}", path.display()))?
                .with_name("scoresheet")
                .build()
                .map_err(|e| format!("ONNX Runtime: {e}"))
        })
        .as_ref()
        .map_err(|e| RecognizeError(e.clone()))
}

/// Where the shipped reader lives: `$SCORESHEET_MODEL` when set, else
/// `models/reader-int8.onnx` in the source tree the binary was built from (the float
/// `models/reader.onnx` reads as well end to end and takes half as long again a cell).
pub fn shipped_model_path() -> PathBuf {
    std::env::var_os("SCORESHEET_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("models/reader-int8.onnx"))
}

/// Where the reader of English descriptive notation lives (`P-K4`, `Kt-KB3`, `PxP`, which
/// the shipped reader, trained on algebraic cells, misreads as `R-a4`):
/// `$SCORESHEET_DESCRIPTIVE_MODEL` when set, else `models/reader-descriptive-int8.onnx` in
/// the source tree the binary was built from.
pub fn descriptive_model_path() -> PathBuf {
    std::env::var_os("SCORESHEET_DESCRIPTIVE_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("models/reader-descriptive-int8.onnx")
        })
}

/// A loaded cell reader.
pub struct Reader {
    /// One single-threaded session per rayon thread, batches running side by side: the
    /// BiLSTM's small steps gain little from a second thread inside one run (1.42 ms a cell
    /// on one core, 0.93 on two), two runs at once gain almost twice. ort runs a session
    /// through `&mut`, so each is locked while it runs.
    sessions: Vec<Mutex<Session>>,
    pub card: ModelCard,
    charset: Arc<Charset>,
    /// Crops read since the reader was loaded, for benchmarks: the reader is most of a
    /// page's time before decoding.
    crops_read: AtomicUsize,
}

impl Reader {
    /// The shipped reader ([`shipped_model_path`]), loaded once per process and shared.
    pub fn shipped() -> Result<&'static Reader, RecognizeError> {
        static SHIPPED: OnceLock<Result<Reader, RecognizeError>> = OnceLock::new();
        SHIPPED
            .get_or_init(|| Reader::load(&shipped_model_path()))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The reader of English descriptive notation ([`descriptive_model_path`]), loaded once
    /// per process and shared.
    pub fn descriptive() -> Result<&'static Reader, RecognizeError> {
        static DESCRIPTIVE: OnceLock<Result<Reader, RecognizeError>> = OnceLock::new();
        DESCRIPTIVE
            .get_or_init(|| Reader::load(&descriptive_model_path()))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Loads `model` (`.onnx`) and the card beside it (`.json`).
    pub fn load(model: &Path) -> Result<Reader, RecognizeError> {
        let name = model.display().to_string();
        let card_path = model.with_extension("json");
        let card_text = std::fs::read_to_string(&card_path)
            .map_err(|e| RecognizeError(format!("{}: {e}", card_path.display())))?;
        let card: ModelCard = serde_json::from_str(&card_text)
            .map_err(|e| RecognizeError(format!("{}: {e}", card_path.display())))?;
        if card.output.blank != 0 {
            return Err(RecognizeError(format!(
                "{}: the blank must be class 0",
                card_path.display()
            )));
        }
        if card.input.height == 0 || card.input.width == 0 {
            return Err(RecognizeError(format!(
                "{}: the input has no size",
                card_path.display()
            )));
        }
        let chars: Vec<char> = card.charset.chars().collect();
        let charset = Arc::new(
            Charset::new(&chars)
                .map_err(|e| RecognizeError(format!("{}: {e}", card_path.display())))?,
        );
        let sessions = (0..rayon::current_num_threads().max(1))
            .map(|_| {
                Session::builder(environment()?)
                    .and_then(|b| b.with_intra_threads(1).map_err(Into::into))
                    .and_then(|mut b| b.commit_from_file(model))
                    .map_err(|e| RecognizeError(format!("{name}: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        for (what, wanted, outlets) in [
            ("input", &card.input.name, sessions[0].inputs()),
            ("output", &card.output.name, sessions[0].outputs()),
        ] {
            if !outlets.iter().any(|o| o.name() == wanted.as_str()) {
                return Err(RecognizeError(format!(
                    "{name}: the model has no {what} named {wanted:?}"
                )));
            }
        }
        Ok(Reader {
            sessions: sessions.into_iter().map(Mutex::new).collect(),
            card,
            charset,
            crops_read: AtomicUsize::new(0),
        })
    }

    /// How many crops [`Reader::read`] has read since the reader was loaded.
    pub fn crops_read(&self) -> usize {
        self.crops_read.load(Ordering::Relaxed)
    }

    /// The crop size the model reads: `(width, height)`.
    pub fn input_size(&self) -> (u32, u32) {
        (self.card.input.width, self.card.input.height)
    }

    pub fn charset(&self) -> &Arc<Charset> {
        &self.charset
    }

    /// Character posteriors for each cell crop, in the order given. Crops of another size
    /// than [`Reader::input_size`] are resized to it. The crops are cut into batches of at
    /// most [`BATCH`], as many as there are sessions when that is fewer (a sheet's 72 cells
    /// run as two batches of 36 side by side, not 64 and then 8).
    pub fn read(&self, cells: &[GrayImage]) -> Result<Vec<Posteriors>, RecognizeError> {
        self.crops_read.fetch_add(cells.len(), Ordering::Relaxed);
        let batch = cells.len().div_ceil(self.sessions.len()).clamp(1, BATCH);
        let batches = cells
            .par_chunks(batch)
            .enumerate()
            .map(|(i, chunk)| self.read_batch(chunk, i))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(batches.into_iter().flatten().collect())
    }

    /// Reads one batch with a free session, or waits for session `hint` (mod the count).
    fn read_batch(
        &self,
        cells: &[GrayImage],
        hint: usize,
    ) -> Result<Vec<Posteriors>, RecognizeError> {
        let (width, height) = self.input_size();
        let plane = width as usize * height as usize;
        let mut ink = vec![0f32; cells.len() * plane];
        ink.par_chunks_mut(plane)
            .zip(cells.par_iter())
            .for_each(|(out, cell)| {
                let resized;
                let cell = if cell.dimensions() == (width, height) {
                    cell
                } else {
                    resized = imageops::resize(cell, width, height, FilterType::Triangle);
                    &resized
                };
                for (value, pixel) in out.iter_mut().zip(cell.as_raw()) {
                    *value = (255.0 - *pixel as f32) / 255.0;
                }
            });
        let input = Array4::from_shape_vec((cells.len(), 1, height as usize, width as usize), ink)
            .map_err(|e| RecognizeError(format!("{}: {e}", self.card.name)))?;
        let failed = |e: ort::Error| RecognizeError(format!("{}: {e}", self.card.name));
        let tensor = TensorRef::from_array_view(&input).map_err(failed)?;
        let free = self.sessions.iter().find_map(|s| s.try_lock().ok());
        let mut session = match free {
            Some(session) => session,
            None => self.sessions[hint % self.sessions.len()]
                .lock()
                .map_err(|_| RecognizeError("the reader failed in another thread".into()))?,
        };
        let outputs = session
            .run(ort::inputs![self.card.input.name.as_str() => tensor])
            .map_err(failed)?;
        let log_probs = outputs[self.card.output.name.as_str()]
            .try_extract_array::<f32>()
            .map_err(failed)?;
        let shape = log_probs.shape().to_vec();
        if shape.len() != 3 || shape[0] != cells.len() || shape[2] != self.charset.classes() {
            return Err(RecognizeError(format!(
                "{}: output of shape {shape:?}, expected [{}, frames, {}]",
                self.card.name,
                cells.len(),
                self.charset.classes()
            )));
        }
        (0..cells.len())
            .map(|i| {
                let values: Vec<f32> = log_probs
                    .index_axis(ndarray::Axis(0), i)
                    .iter()
                    .copied()
                    .collect();
                Posteriors::new(Arc::clone(&self.charset), values)
                    .map_err(|e| RecognizeError(format!("{}: {e}", self.card.name)))
            })
            .collect()
    }
}
