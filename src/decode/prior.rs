//! A prior over the legal moves of a position: what players tend to play, for when the writing
//! leaves the choice open (an illegible cell, a skipped move).

use shakmaty::{Role, Square};

use crate::notation::MoveFacts;

/// Log-linear weights of move features (not check: the decoder ranks moves before it plays
/// them to see which check); the prior of a move is the softmax of its weight over
/// the legal moves. Fitted on the master and Lichess games of `shared/data/games` by the
/// `fit-prior` mode of the bench binary (see README).
#[derive(Debug, Clone, PartialEq)]
pub struct MovePrior {
    pub role: [f32; 6],
    pub castle: f32,
    pub capture: f32,
    pub recapture: f32,
    pub queen_promotion: f32,
    pub under_promotion: f32,
}

impl Default for MovePrior {
    fn default() -> MovePrior {
        MovePrior {
            // pawn, knight, bishop, rook, queen, king
            role: [0.0, 0.05, -0.15, -0.45, -0.55, -0.9],
            castle: 2.2,
            capture: 0.9,
            recapture: 1.7,
            queen_promotion: 2.5,
            under_promotion: -3.0,
        }
    }
}

impl MovePrior {
    fn weight(&self, facts: &MoveFacts, last_to: Option<Square>) -> f32 {
        let mut w = self.role[role_index(facts.role)];
        if facts.castle.is_some() {
            w += self.castle;
        }
        if facts.capture {
            w += self.capture;
            if Some(facts.to) == last_to {
                w += self.recapture;
            }
        }
        match facts.promotion {
            Some(Role::Queen) => w += self.queen_promotion,
            Some(_) => w += self.under_promotion,
            None => {}
        }
        w
    }

    /// Log-probabilities of each move in `moves` (all legal moves of one position), given the
    /// destination of the opponent's last move (for recaptures). Sums to 1 in probability.
    pub fn log_probs(&self, moves: &[MoveFacts], last_to: Option<Square>, out: &mut Vec<f32>) {
        out.clear();
        out.extend(moves.iter().map(|f| self.weight(f, last_to)));
        let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let sum: f32 = out.iter().map(|w| (w - max).exp()).sum();
        let log_norm = max + sum.ln();
        for w in out.iter_mut() {
            *w -= log_norm;
        }
    }
}

pub(crate) fn role_index(role: Role) -> usize {
    match role {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    }
}
