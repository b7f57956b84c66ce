//! A cell read by the model, as evidence for the decoder: every candidate written form is
//! scored by its CTC likelihood under the cell's posteriors, not compared with the model's
//! first guess.

use crate::decode::{CellEvidence, MISWRITTEN_CELL_LOG_PROB, RANDOM_CHAR_LOG_LIKELIHOOD};

use std::sync::Mutex;

use rustc_hash::FxHashMap;

use super::ctc::Posteriors;

/// One cell's posteriors as [`CellEvidence`].
#[derive(Debug)]
pub struct CtcCell {
    posteriors: Posteriors,
    /// The best path, shown in reports.
    text: String,
    text_log_likelihood: f32,
    /// Texts already scored: the decoder asks for the same written forms from many positions.
    /// Each holds the value found and the `needed` it was computed for (a value at or below
    /// that `needed` is only an upper bound).
    scored: Mutex<FxHashMap<Vec<char>, (f32, f32)>>,
    /// Weight of the reader's log-likelihoods against the decoder's move prior and slip
    /// costs (as the acoustic scale of a speech decoder): a reader trained on generated cells
    /// is surer of itself than it should be on real ones.
    scale: f32,
}

/// The weight [`CtcCell::new`] gives the reader's evidence.
pub const DEFAULT_EVIDENCE_SCALE: f32 = 1.0;

impl CtcCell {
    pub fn new(posteriors: Posteriors) -> CtcCell {
        let (text, _) = posteriors.best_path();
        let chars: Vec<char> = text.chars().collect();
        let text_log_likelihood = posteriors.log_likelihood(&chars);
        CtcCell {
            posteriors,
            text,
            text_log_likelihood,
            scored: Mutex::new(FxHashMap::default()),
            scale: DEFAULT_EVIDENCE_SCALE,
        }
    }

    /// The same cell with its evidence weighted by `scale` (> 0).
    pub fn with_scale(self, scale: f32) -> CtcCell {
        CtcCell {
            scale: scale.max(1e-3),
            ..self
        }
    }

    /// The best path's probability (summed over its alignments), in 0..=1.
    pub fn text_confidence(&self) -> f32 {
        self.text_log_likelihood.exp()
    }

    pub fn posteriors(&self) -> &Posteriors {
        &self.posteriors
    }
}

impl CellEvidence for CtcCell {
    fn log_likelihood(&self, body: &[char], mark: &str, needed: f32) -> f32 {
        let mut chars = Vec::with_capacity(body.len() + mark.len());
        chars.extend_from_slice(body);
        chars.extend(mark.chars());
        let needed = needed / self.scale;
        if let Ok(scored) = self.scored.lock() {
            if let Some(&(value, computed_for)) = scored.get(&chars) {
                if value > computed_for || needed >= computed_for {
                    return self.scale * value;
                }
            }
        }
        let value = self.posteriors.log_likelihood_above(&chars, needed);
        if let Ok(mut scored) = self.scored.lock() {
            scored.insert(chars, (value, needed));
        }
        self.scale * value
    }

    /// Junk is random writing that happens to read as the best path: that text's likelihood,
    /// at the price of a miswritten cell and of each random character (as for typed cells).
    fn unreadable_log_likelihood(&self) -> f32 {
        let random_text = RANDOM_CHAR_LOG_LIKELIHOOD * (self.text.chars().count() + 1) as f32;
        MISWRITTEN_CELL_LOG_PROB + random_text + self.scale * self.text_log_likelihood
    }

    fn is_illegible(&self) -> bool {
        self.text.is_empty()
    }

    fn text(&self) -> &str {
        &self.text
    }

    fn draw_offer(&self) -> bool {
        self.text.contains("(=)")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::decode::{decode, DecoderConfig, LanguageChoice};
    use crate::recognize::Charset;
    use crate::start::StartPosition;

    /// Posteriors a confident reader would give for `text`: each character in two frames
    /// with a blank between, `confidence` on the read class and the rest spread evenly.
    pub(crate) fn read_as(charset: &Arc<Charset>, text: &str, confidence: f32) -> Posteriors {
        let classes = charset.classes();
        let rest = ((1.0 - confidence) / (classes - 1) as f32).ln();
        let mut logs = Vec::new();
        let mut frame = |class: usize| {
            logs.extend((0..classes).map(|c| if c == class { confidence.ln() } else { rest }));
        };
        frame(0);
        for c in text.chars() {
            let class = charset.class(c).expect("in the charset");
            frame(class);
            frame(class);
            frame(0);
        }
        Posteriors::new(Arc::clone(charset), logs).unwrap()
    }

    #[test]
    fn the_decoder_reads_a_game_from_posteriors_with_misreadings() {
        let chars: Vec<char> = "abcdefgh12345678KQRBNxO-+#=".chars().collect();
        let charset = Arc::new(Charset::new(&chars).unwrap());
        // The Opera Game's first moves, with a misread cell ("Nf3" read as "Nf8") and a
        // missing disambiguation ("Nd7" for Nbd7).
        let written = [
            "e4", "e5", "Nf8", "d6", "d4", "Bg4", "dxe5", "Bxf3", "Qxf3", "dxe5", "Bc4", "Nf6",
            "Qb3", "Qe7", "Nc3", "c6", "Bg5", "b5", "Nxb5", "cxb5", "Bxb5+", "Nd7",
        ];
        let cells: Vec<CtcCell> = written
            .iter()
            .map(|t| CtcCell::new(read_as(&charset, t, 0.8)))
            .collect();
        assert_eq!(cells[2].text(), "Nf8");
        let game = decode(
            &cells,
            &StartPosition::standard(),
            LanguageChoice::Auto,
            &DecoderConfig::default(),
        );
        let sans: Vec<&str> = game.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(
            sans,
            [
                "e4", "e5", "Nf3", "d6", "d4", "Bg4", "dxe5", "Bxf3", "Qxf3", "dxe5", "Bc4", "Nf6",
                "Qb3", "Qe7", "Nc3", "c6", "Bg5", "b5", "Nxb5", "cxb5", "Bxb5+", "Nbd7"
            ]
        );
        // The blank cell is illegible, and junk never outscores a clear reading.
        let blank = CtcCell::new(read_as(&charset, "", 0.9));
        assert!(blank.is_illegible());
        let e4 = &cells[0];
        let e4_chars: Vec<char> = "e4".chars().collect();
        assert!(
            e4.log_likelihood(&e4_chars, "", f32::NEG_INFINITY) > e4.unreadable_log_likelihood()
        );
    }
}
