//! A prior over the legal moves of a position: what players tend to play, for when the writing
//! leaves the choice open (an illegible cell, a skipped move, a slip that reads as another legal
//! move).

use shakmaty::{attacks, Bitboard, Chess, Color, Move, Piece, Position, Role, Square};

/// How many features describe a move.
pub const FEATURES: usize = 24;
// `MovePrior::weight` sums the features eight at a time.
const _: () = assert!(FEATURES.is_multiple_of(8));

/// The features read off the attack map (who attacks and defends each square).
pub const ATTACK_FEATURES: std::ops::Range<usize> = 17..FEATURES;

/// Names of the features, in order, for reports.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "knight",
    "bishop",
    "rook",
    "queen",
    "king",
    "castle",
    "capture",
    "captured value",
    "recapture",
    "queen promotion",
    "under-promotion",
    "pawn double step",
    "forward progress",
    "to a square an enemy pawn attacks",
    "moving a piece an enemy pawn attacks",
    "centre distance",
    "en passant",
    "to a square a lesser enemy piece attacks",
    "to an attacked square nothing defends (by the mover's value)",
    "capturing an undefended piece",
    "moving a threatened piece away",
    "direct check",
    "developing a knight or bishop from its home rank",
    "attacking a more valuable enemy piece",
];

/// Log-linear weights of move features; a move's prior is the softmax of its weight over the
/// legal moves. The features leave out check, which the decoder learns only when it plays a
/// move. Fitted by `decode-bench --fit-prior` (see the README) on Lichess games.
#[derive(Debug, Clone, PartialEq)]
pub struct MovePrior {
    pub weights: [f32; FEATURES],
}

impl Default for MovePrior {
    fn default() -> MovePrior {
        MovePrior {
            weights: FITTED_WEIGHTS,
        }
    }
}

/// `cargo run --release --bin decode-bench -- --fit-prior ../shared/data/games/lichess.pgn.gz
/// --games 3000`: 242,400 positions, mean log-likelihood per move -2.473 (a uniform choice among
/// the legal moves: -3.181; the first 17 features alone, without the attack map's: -2.713).
const FITTED_WEIGHTS: [f32; FEATURES] = [
    0.008, -0.275, -0.249, -0.233, -0.440, 3.512, 1.243, 5.829, 1.064, 2.962, -2.324, -0.352,
    -0.046, -0.250, 1.134, -1.151, 1.994, -1.647, -4.682, 0.447, 1.534, 1.414, 0.901, 1.136,
];

fn value(role: Role) -> f32 {
    match role {
        Role::Pawn => 1.0,
        Role::Knight | Role::Bishop => 3.0,
        Role::Rook => 5.0,
        Role::Queen => 9.0,
        Role::King => 0.0,
    }
}

/// A piece's value as an attacker: a king defends and attacks, but is never the lesser piece
/// that wins a trade.
fn attacker_value(role: Role) -> f32 {
    if role == Role::King {
        100.0
    } else {
        value(role)
    }
}

/// Index of `role` in the tables of [`AttackMap`].
fn role_index(role: Role) -> usize {
    role as usize - 1
}

/// Who attacks each square of a position: how many pieces of the side to move and of the
/// opponent, and the value of the opponent's least valuable attacker. Computed once per
/// position, it tells which pieces stand threatened before a move (where a move goes is
/// judged in the position after it, in [`features`]).
pub struct AttackMap {
    ours: [u8; 64],
    theirs: [u8; 64],
    their_least: [f32; 64],
    /// By role ([`role_index`]): the pieces other than kings worth less than that role.
    worth_less: [Bitboard; 6],
    /// By role: the pieces other than kings worth more than that role.
    worth_more: [Bitboard; 6],
}

impl AttackMap {
    pub fn of(pos: &Chess) -> AttackMap {
        let board = pos.board();
        let us = pos.turn();
        let occupied = board.occupied();
        // Every move's features ask which pieces a role outweighs: worked out once here, by
        // the values of [`value`] (pawn 1, knight and bishop 3, rook 5, queen 9, king 0).
        let pawns = board.pawns();
        let minors = board.knights() | board.bishops();
        let rooks = board.rooks();
        let queens = board.queens();
        let mut map = AttackMap {
            ours: [0; 64],
            theirs: [0; 64],
            their_least: [f32::INFINITY; 64],
            worth_less: [
                Bitboard::EMPTY,
                pawns,
                pawns,
                pawns | minors,
                pawns | minors | rooks,
                Bitboard::EMPTY,
            ],
            worth_more: [
                minors | rooks | queens,
                rooks | queens,
                rooks | queens,
                queens,
                Bitboard::EMPTY,
                pawns | minors | rooks | queens,
            ],
        };
        for from in occupied {
            let Some(piece) = board.piece_at(from) else {
                continue;
            };
            let attacker = attacker_value(piece.role);
            for to in attacks::attacks(from, piece, occupied) {
                let at = to as usize;
                if piece.color == us {
                    map.ours[at] += 1;
                } else {
                    map.theirs[at] += 1;
                    map.their_least[at] = map.their_least[at].min(attacker);
                }
            }
        }
        map
    }
}

/// One feature of a move: its index in the vector [`features`] returns and in
/// [`FEATURE_NAMES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Feature {
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
    Castle,
    Capture,
    CapturedValue,
    Recapture,
    QueenPromotion,
    UnderPromotion,
    PawnDoubleStep,
    ForwardProgress,
    ToSquareAPawnAttacks,
    FromSquareAPawnAttacks,
    CentreDistance,
    EnPassant,
    ToSquareALesserPieceAttacks,
    ToAnAttackedUndefendedSquare,
    CapturingAnUndefendedPiece,
    MovingAThreatenedPieceAway,
    DirectCheck,
    Development,
    AttackingAMoreValuablePiece,
}

const _: () = assert!(Feature::AttackingAMoreValuablePiece as usize == FEATURES - 1);
const _: () = assert!(Feature::ToSquareALesserPieceAttacks as usize == ATTACK_FEATURES.start);

/// The features of `m`, legal in `pos` (whose attacks are `threats`, [`AttackMap::of`]),
/// whose opponent last moved to `last_to`.
///
/// One function on purpose: it runs for every legal move the search looks at, and split
/// into helpers filling the vector (material, squares, attacks) it took a third more
/// instructions (`valgrind --tool=callgrind` on `decode-bench`, 2026-12-07), the vector no
/// longer built in place.
pub fn features(
    pos: &Chess,
    threats: &AttackMap,
    m: Move,
    last_to: Option<Square>,
) -> [f32; FEATURES] {
    let mut f = [0.0; FEATURES];
    let us = pos.turn();
    let board = pos.board();
    let role = m.role();
    match role {
        Role::Knight => f[Feature::Knight as usize] = 1.0,
        Role::Bishop => f[Feature::Bishop as usize] = 1.0,
        Role::Rook => f[Feature::Rook as usize] = 1.0,
        Role::Queen => f[Feature::Queen as usize] = 1.0,
        Role::King => f[Feature::King as usize] = 1.0,
        Role::Pawn => {}
    }
    // The move taken apart once: its accessors each match on its kind again.
    let (from, to, capture, promotion, en_passant) = match m {
        Move::Normal {
            from,
            capture,
            to,
            promotion,
            ..
        } => (from, to, capture, promotion, false),
        Move::EnPassant { from, to } => (from, to, Some(Role::Pawn), None, true),
        Move::Castle { .. } => {
            f[Feature::Castle as usize] = 1.0;
            return f;
        }
        Move::Put { .. } => return f,
    };
    if let Some(captured) = capture {
        f[Feature::Capture as usize] = 1.0;
        f[Feature::CapturedValue as usize] = value(captured) / 9.0;
        if Some(to) == last_to {
            f[Feature::Recapture as usize] = 1.0;
        }
    }
    match promotion {
        Some(Role::Queen) => f[Feature::QueenPromotion as usize] = 1.0,
        Some(_) => f[Feature::UnderPromotion as usize] = 1.0,
        None => {}
    }
    let forward = |sq: Square| -> f32 {
        let rank = u32::from(sq.rank()) as f32;
        if us == Color::White {
            rank
        } else {
            7.0 - rank
        }
    };
    if role == Role::Pawn && (forward(to) - forward(from)).abs() > 1.5 {
        f[Feature::PawnDoubleStep as usize] = 1.0;
    }
    f[Feature::ForwardProgress as usize] = (forward(to) - forward(from)) / 7.0;
    let their_pawns = board.pawns() & board.by_color(!us);
    if role != Role::Pawn {
        if (attacks::pawn_attacks(us, to) & their_pawns).any() {
            f[Feature::ToSquareAPawnAttacks as usize] = 1.0;
        }
        if (attacks::pawn_attacks(us, from) & their_pawns).any() {
            f[Feature::FromSquareAPawnAttacks as usize] = 1.0;
        }
    }
    let centre = |sq: Square| {
        let file = u32::from(sq.file()) as f32;
        let rank = u32::from(sq.rank()) as f32;
        ((file - 3.5).abs() + (rank - 3.5).abs()) / 7.0
    };
    f[Feature::CentreDistance as usize] = centre(to) - centre(from);
    if en_passant {
        f[Feature::EnPassant as usize] = 1.0;
    }
    let mover = value(role);
    // Who attacks and defends the destination once the mover has left its square: a rook
    // behind a queen that moves along its file defends where the queen goes.
    let occupied_after = (board.occupied() ^ from) | to;
    let attackers = board.attacks_to(to, !us, occupied_after) & board.by_color(!us);
    // Defenders matter only where the destination is attacked, which most are not.
    let undefended = || {
        (board.attacks_to(to, us, occupied_after) & board.by_color(us) & !Bitboard::from(from))
            .is_empty()
    };
    if role != Role::King {
        if (attackers & threats.worth_less[role_index(role)]).any() {
            f[Feature::ToSquareALesserPieceAttacks as usize] = 1.0;
        }
        if attackers.any() && undefended() {
            f[Feature::ToAnAttackedUndefendedSquare as usize] = mover / 9.0;
        }
        let at = from as usize;
        let threatened =
            threats.their_least[at] < mover || (threats.theirs[at] > 0 && threats.ours[at] == 0);
        if threatened {
            f[Feature::MovingAThreatenedPieceAway as usize] = 1.0;
        }
    }
    if capture.is_some() && attackers.is_empty() {
        f[Feature::CapturingAnUndefendedPiece as usize] = 1.0;
    }
    let role_after = promotion.unwrap_or(role);
    let their_king = board.king_of(!us);
    let checks = attacks::attacks(
        to,
        Piece {
            color: us,
            role: role_after,
        },
        occupied_after,
    );
    if their_king.is_some_and(|king| checks.contains(king)) {
        f[Feature::DirectCheck as usize] = 1.0;
    }
    let home_rank = if us == Color::White {
        shakmaty::Rank::First
    } else {
        shakmaty::Rank::Eighth
    };
    if matches!(role, Role::Knight | Role::Bishop) && from.rank() == home_rank {
        f[Feature::Development as usize] = 1.0;
    }
    if (checks & board.by_color(!us) & threats.worth_more[role_index(role_after)]).any() {
        f[Feature::AttackingAMoreValuablePiece as usize] = 1.0;
    }
    f
}

impl MovePrior {
    fn weight(&self, f: &[f32; FEATURES]) -> f32 {
        // Eight running sums rather than one: the products add up side by side (SIMD) instead
        // of waiting on each other, and the prior is weighed for every legal move the search
        // looks at.
        let mut lanes = [0.0f32; 8];
        for (w, x) in self.weights.chunks_exact(8).zip(f.chunks_exact(8)) {
            for lane in 0..8 {
                lanes[lane] += w[lane] * x[lane];
            }
        }
        lanes.iter().sum()
    }

    /// Log-probabilities of each move in `moves` (all legal moves of `pos`), given the
    /// destination of the opponent's last move. Sums to 1 in probability.
    pub fn log_probs(
        &self,
        pos: &Chess,
        moves: &[Move],
        last_to: Option<Square>,
        out: &mut Vec<f32>,
    ) {
        out.clear();
        let threats = AttackMap::of(pos);
        out.extend(
            moves
                .iter()
                .map(|&m| self.weight(&features(pos, &threats, m, last_to))),
        );
        let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let sum: f32 = out.iter().map(|w| (w - max).exp()).sum();
        let log_norm = max + sum.ln();
        for w in out.iter_mut() {
            *w -= log_norm;
        }
    }
}

/// Mean log-probability per move that `prior` gives the moves played in `games` (each a list
/// of legal moves from the standard start); a uniform choice among the legal moves would be
/// about −3.2.
pub fn mean_log_likelihood(prior: &MovePrior, games: &[Vec<Move>]) -> f64 {
    let mut sum = 0.0f64;
    let mut count = 0usize;
    let mut log_probs = Vec::new();
    for moves in games {
        let mut pos = Chess::default();
        let mut last_to = None;
        for &played in moves {
            let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
            prior.log_probs(&pos, &legal, last_to, &mut log_probs);
            if let Some(index) = legal.iter().position(|&m| m == played) {
                sum += f64::from(log_probs[index]);
                count += 1;
            }
            pos.play_unchecked(played);
            last_to = Some(played.to());
        }
    }
    sum / count.max(1) as f64
}

/// Fits prior weights to the moves played in `games` (each a list of legal moves from the
/// standard start) by gradient ascent on the log-likelihood; returns the weights and the mean
/// log-likelihood per move.
pub fn fit_prior(games: &[Vec<Move>], epochs: usize) -> ([f32; FEATURES], f64) {
    // Precompute every position's feature rows once.
    let mut positions: Vec<(Vec<[f32; FEATURES]>, usize)> = Vec::new();
    for moves in games {
        let mut pos = Chess::default();
        let mut last_to = None;
        for &played in moves {
            let legal = pos.legal_moves();
            let threats = AttackMap::of(&pos);
            let rows: Vec<[f32; FEATURES]> = legal
                .iter()
                .map(|&m| features(&pos, &threats, m, last_to))
                .collect();
            if let Some(index) = legal.iter().position(|&m| m == played) {
                positions.push((rows, index));
            }
            pos.play_unchecked(played);
            last_to = Some(played.to());
        }
    }
    let mut w = [0.0f64; FEATURES];
    let (mut m1, mut m2) = ([0.0f64; FEATURES], [0.0f64; FEATURES]);
    let mut mean_ll = 0.0;
    for step in 1..=epochs {
        let mut grad = [0.0f64; FEATURES];
        let mut ll = 0.0;
        for (rows, played) in &positions {
            let scores: Vec<f64> = rows
                .iter()
                .map(|r| r.iter().zip(&w).map(|(x, w)| *x as f64 * w).sum())
                .collect();
            let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let z: f64 = scores.iter().map(|s| (s - max).exp()).sum();
            ll += scores[*played] - max - z.ln();
            for (row, s) in rows.iter().zip(&scores) {
                let p = (s - max).exp() / z;
                for k in 0..FEATURES {
                    grad[k] -= p * row[k] as f64;
                }
            }
            for k in 0..FEATURES {
                grad[k] += rows[*played][k] as f64;
            }
        }
        let n = positions.len().max(1) as f64;
        mean_ll = ll / n;
        // Adam on the mean gradient.
        for k in 0..FEATURES {
            let g = grad[k] / n;
            m1[k] = 0.9 * m1[k] + 0.1 * g;
            m2[k] = 0.999 * m2[k] + 0.001 * g * g;
            let m1_hat = m1[k] / (1.0 - 0.9f64.powi(step as i32));
            let m2_hat = m2[k] / (1.0 - 0.999f64.powi(step as i32));
            w[k] += 0.05 * m1_hat / (m2_hat.sqrt() + 1e-8);
        }
    }
    (w.map(|x| x as f32), mean_ll)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Chess {
        fen.parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap()
    }

    use crate::decode::uci_line as game;

    #[test]
    fn a_game_of_recaptures_is_likelier_than_a_uniform_choice() {
        let moves = game(&["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5"]);
        let prior = mean_log_likelihood(&MovePrior::default(), std::slice::from_ref(&moves));
        let uniform = mean_log_likelihood(
            &MovePrior {
                weights: [0.0; FEATURES],
            },
            &[moves],
        );
        // The six positions' legal moves number 20, 20, 31, 28, 29 and 47 (counted with
        // python-chess, not with shakmaty).
        let expected_uniform = -([20.0f64, 20.0, 31.0, 28.0, 29.0, 47.0]
            .iter()
            .map(|n| n.ln())
            .sum::<f64>()
            / 6.0);
        assert!(
            (uniform - expected_uniform).abs() < 1e-4,
            "{uniform} {expected_uniform}"
        );
        assert!(prior > uniform + 0.5, "{prior} against {uniform}");
    }

    #[test]
    fn probabilities_sum_to_one_and_favour_recapture() {
        let pos = position("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        let mut lp = Vec::new();
        MovePrior::default().log_probs(&pos, &moves, Some(Square::D5), &mut lp);
        let total: f32 = lp.iter().map(|l| l.exp()).sum();
        assert!((total - 1.0).abs() < 1e-4);
        let exd5 = moves.iter().position(|m| m.is_capture()).unwrap();
        let best = lp.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(lp[exd5], best, "the recapture exd5 is the likeliest move");
    }

    #[test]
    fn every_feature_has_its_name() {
        use Feature::*;
        let named = [
            (Knight, "knight"),
            (King, "king"),
            (Castle, "castle"),
            (Recapture, "recapture"),
            (ForwardProgress, "forward progress"),
            (EnPassant, "en passant"),
            (
                ToSquareALesserPieceAttacks,
                "to a square a lesser enemy piece attacks",
            ),
            (DirectCheck, "direct check"),
            (
                AttackingAMoreValuablePiece,
                "attacking a more valuable enemy piece",
            ),
        ];
        for (feature, name) in named {
            assert_eq!(FEATURE_NAMES[feature as usize], name);
        }
    }

    #[test]
    fn attack_features_on_a_known_position() {
        // White: king e1, queen d1, bishop g1, knight d4 (attacked by the pawn e5). Black:
        // king e8, rook b8, pawns e5 and h5 (nothing defends h5).
        let pos = position("1r2k3/8/8/4p2p/3N4/8/8/3QK1B1 w - - 0 1");
        let threats = AttackMap::of(&pos);
        let named = |name: &str| FEATURE_NAMES.iter().position(|n| *n == name).unwrap();
        let lesser = named("to a square a lesser enemy piece attacks");
        let hangs = named("to an attacked square nothing defends (by the mover's value)");
        let free = named("capturing an undefended piece");
        let escapes = named("moving a threatened piece away");
        let check = named("direct check");
        let develops = named("developing a knight or bishop from its home rank");
        let forks = named("attacking a more valuable enemy piece");
        let of = |uci: &str| {
            let m = uci
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            features(&pos, &threats, m, None)
        };
        let expect = [
            // (move, [lesser, hangs, free, escapes, check, develops, forks])
            ("d4c6", [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]), // attacks the rook b8
            ("d4b5", [0.0, 3.0 / 9.0, 0.0, 1.0, 0.0, 0.0, 0.0]), // the rook takes it
            ("d4f3", [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]),
            ("d1b1", [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]), // the rook attacks b1
            ("d1b3", [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]), // the knight defends b3
            ("d1h5", [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]), // takes h5 with check
            ("d1a4", [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
            ("g1e3", [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]),
            ("e1e2", [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ];
        for (uci, want) in expect {
            let f = of(uci);
            let got = [lesser, hangs, free, escapes, check, develops, forks].map(|i| f[i]);
            assert_eq!(got, want, "{uci}");
        }
        // A queen leaving d5 for d1 with check: the rook b1 attacks d1, and the rook d8,
        // behind the queen's old square, defends it.
        let pos = position("3r2k1/8/8/3q4/8/8/8/1R4K1 b - - 0 1");
        let m = "d5d1"
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        let f = features(&pos, &AttackMap::of(&pos), m, None);
        assert_eq!([f[lesser], f[hangs], f[check]], [1.0, 0.0, 1.0]);
    }

    #[test]
    fn the_worth_tables_follow_the_piece_values() {
        // Every role on the board, of both colours.
        let pos =
            position("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 4 5");
        let board = pos.board();
        let worth = |keep: &dyn Fn(f32) -> bool| {
            [
                Role::Pawn,
                Role::Knight,
                Role::Bishop,
                Role::Rook,
                Role::Queen,
            ]
            .into_iter()
            .filter(|&role| keep(value(role)))
            .fold(Bitboard::EMPTY, |all, role| all | board.by_role(role))
        };
        let threats = AttackMap::of(&pos);
        for role in Role::ALL {
            let of_role = value(role);
            assert_eq!(
                threats.worth_less[role_index(role)],
                worth(&|v| v < of_role),
                "{role:?}"
            );
            assert_eq!(
                threats.worth_more[role_index(role)],
                worth(&|v| v > of_role),
                "{role:?}"
            );
        }
    }

    #[test]
    fn fitting_learns_what_games_do() {
        // Games in which White always castles as soon as it can: the castle weight must grow.
        let game = game(&[
            "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1", "f8c5",
        ]);
        let (w, ll) = fit_prior(&vec![game; 4], 200);
        assert!(w[5] > 1.0, "castle weight {}", w[5]);
        assert!(ll > -3.3, "fitted log-likelihood {ll}");
    }
}
