//! Whether the decoder's confidences mean what they say: moves sorted into bins by
//! confidence, and in each bin the share that was right. A confidence of 0.9 should be right
//! about 9 times in 10; the benchmarks print this table for typed transcripts and for read
//! sheets alike.

use std::fmt;

/// The bins' lower bounds: fine near 1, where most moves are and where an arbiter's trust in
/// an unflagged move is decided.
pub const CALIBRATION_BINS: [f32; 6] = [0.0, 0.5, 0.7, 0.9, 0.99, 0.999];

/// Moves' confidences and whether each move was right.
#[derive(Debug, Clone, Default)]
pub struct Calibration {
    moves: Vec<(f32, bool)>,
}

/// One bin of a [`Calibration`]: confidences in `[low, high)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrationBin {
    pub low: f32,
    pub high: f32,
    pub moves: usize,
    /// The bin's mean confidence (0 when empty).
    pub mean_confidence: f64,
    /// The share of its moves that were right (0 when empty).
    pub right: f64,
}

impl Calibration {
    /// Counts one move of confidence `confidence` (0-1), right or not.
    pub fn add(&mut self, confidence: f32, right: bool) {
        self.moves.push((confidence, right));
    }

    /// Counts every move of `other` too.
    pub fn merge(&mut self, other: &Calibration) {
        self.moves.extend_from_slice(&other.moves);
    }

    /// Moves counted.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The moves in each of [`CALIBRATION_BINS`]; the last bin holds confidence 1.
    pub fn bins(&self) -> Vec<CalibrationBin> {
        CALIBRATION_BINS
            .iter()
            .enumerate()
            .map(|(i, &low)| {
                let high = CALIBRATION_BINS.get(i + 1).copied().unwrap_or(1.0);
                let last = i + 1 == CALIBRATION_BINS.len();
                let inside = |c: f32| c >= low && (c < high || (last && c <= high));
                let (mut moves, mut confidence, mut right) = (0usize, 0.0f64, 0usize);
                for &(c, r) in self.moves.iter().filter(|(c, _)| inside(*c)) {
                    moves += 1;
                    confidence += f64::from(c);
                    right += usize::from(r);
                }
                CalibrationBin {
                    low,
                    high,
                    moves,
                    mean_confidence: confidence / moves.max(1) as f64,
                    right: right as f64 / moves.max(1) as f64,
                }
            })
            .collect()
    }

    /// The expected calibration error over [`CALIBRATION_BINS`]: the gap between mean
    /// confidence and share right in each bin, weighted by its moves (0 = calibrated).
    pub fn expected_error(&self) -> f64 {
        let total = self.moves.len().max(1) as f64;
        self.bins()
            .iter()
            .map(|b| b.moves as f64 / total * (b.mean_confidence - b.right).abs())
            .sum()
    }
}

/// The table the benchmarks print: one line a bin, then the expected calibration error.
impl fmt::Display for Calibration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "calibration (confidence bin: moves, share right):")?;
        for bin in self.bins() {
            let close = if bin.high >= 1.0 { ']' } else { ')' };
            writeln!(
                f,
                "  [{:.3}, {:.3}{close}: {:>6} moves, mean confidence {:.3}, right {:.3}",
                bin.low, bin.high, bin.moves, bin.mean_confidence, bin.right
            )?;
        }
        write!(
            f,
            "  expected calibration error {:.4} over {} moves",
            self.expected_error(),
            self.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_fall_into_their_bins_and_confidence_one_into_the_last() {
        let mut calibration = Calibration::default();
        for (confidence, right) in [(0.2, false), (0.6, true), (0.95, true), (1.0, true)] {
            calibration.add(confidence, right);
        }
        calibration.add(0.995, false);
        let moves: Vec<usize> = calibration.bins().iter().map(|b| b.moves).collect();
        assert_eq!(moves, [1, 1, 0, 1, 1, 1]);
        assert_eq!(calibration.bins()[4].right, 0.0);
        assert_eq!(calibration.bins()[5].right, 1.0);
    }

    #[test]
    fn the_expected_error_weighs_each_bins_gap_by_its_moves() {
        let mut calibrated = Calibration::default();
        // Half right at 0.5 exactly; all right at 1.
        for right in [true, false] {
            calibrated.add(0.5, right);
        }
        calibrated.add(1.0, true);
        assert!(calibrated.expected_error().abs() < 1e-9);
        let mut overconfident = Calibration::default();
        overconfident.add(1.0, false);
        overconfident.add(1.0, true);
        overconfident.add(0.6, true);
        overconfident.add(0.6, true);
        // Bin [0.999, 1]: confidence 1, right 0.5, half the moves: 0.25; bin [0.5, 0.7):
        // confidence 0.6, right 1, half the moves: 0.2.
        assert!((overconfident.expected_error() - 0.45).abs() < 1e-6);
        assert!(format!("{overconfident}").contains("expected calibration error 0.4500"));
    }
}
