//! Every way a player may write a legal move, each with how likely a player is to write it so.

use shakmaty::attacks::{bishop_attacks, knight_attacks, pawn_attacks, rook_attacks};
use shakmaty::{
    san::San, Bitboard, CastlingSide, Chess, Color, File, Move, MoveList, Position, Role, Square,
};

use super::language::Language;

/// Whether a move gives check, and whether that check is mate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Check {
    None,
    Check,
    Mate,
    /// Not worked out yet: every suffix is allowed at no cost, so a score computed with it is an
    /// upper bound of the true one (the decoder ranks moves so before playing the best ones).
    Unknown,
}

impl Check {
    /// Plays `m` on a copy of `pos` to see whether it checks or mates.
    pub fn after(pos: &Chess, m: Move) -> Check {
        let mut next = pos.clone();
        next.play_unchecked(m);
        Check::of(&next)
    }

    /// Whether `m`, a legal move of `pos`, leaves the other side in check, worked out from where
    /// the pieces stand after it instead of playing it on a copy: the decoder asks this of
    /// millions of moves whose positions it never keeps, and copying a position cost more
    /// than looking at the four kinds of attacker that may reach the king.
    pub fn gives(pos: &Chess, m: Move) -> bool {
        let board = pos.board();
        let us = pos.turn();
        let Some(king) = board.king_of(!us) else {
            return false;
        };
        let ours = |role: Role| board.by_role(role) & board.by_color(us);
        let mut occupied = board.occupied();
        let [mut pawns, mut knights, mut bishops, mut rooks, mut queens] = [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ]
        .map(ours);
        let mut place = |role: Role, square: Square, on: bool| {
            let set = match role {
                Role::Pawn => &mut pawns,
                Role::Knight => &mut knights,
                Role::Bishop => &mut bishops,
                Role::Rook => &mut rooks,
                Role::Queen => &mut queens,
                // A king never checks: two kings are never next to each other.
                Role::King => return,
            };
            set.set(square, on);
        };
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                occupied = occupied.without(from).with(to);
                place(role, from, false);
                place(promotion.unwrap_or(role), to, true);
            }
            Move::EnPassant { from, to } => {
                let taken = Square::from_coords(to.file(), from.rank());
                occupied = occupied.without(from).without(taken).with(to);
                place(Role::Pawn, from, false);
                place(Role::Pawn, to, true);
            }
            Move::Castle { king: from, rook } => {
                let side = CastlingSide::from_king_side(from < rook);
                let rook_to = side.rook_to(us);
                occupied = occupied
                    .without(from)
                    .without(rook)
                    .with(side.king_to(us))
                    .with(rook_to);
                place(Role::Rook, rook, false);
                place(Role::Rook, rook_to, true);
            }
            Move::Put { .. } => return Check::after(pos, m) != Check::None,
        }
        let attackers: Bitboard = (pawn_attacks(!us, king) & pawns)
            | (knight_attacks(king) & knights)
            | (bishop_attacks(king, occupied) & (bishops | queens))
            | (rook_attacks(king, occupied) & (rooks | queens));
        attackers.any()
    }

    /// The check state of the side to move in `pos`.
    pub fn of(pos: &Chess) -> Check {
        if !pos.is_check() {
            Check::None
        } else if pos.is_checkmate() {
            Check::Mate
        } else {
            Check::Check
        }
    }
}

/// Everything about a legal move that decides how it can be written. Two moves with equal facts
/// are written the same way, so the facts are the key under which a cell's scores are cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveFacts {
    pub role: Role,
    pub from: Square,
    /// The destination; for castling the king's destination (g- or c-file in standard chess).
    pub to: Square,
    pub capture: bool,
    /// The piece taken, for a capture (a pawn for en passant).
    pub captured: Option<Role>,
    pub promotion: Option<Role>,
    pub castle: Option<CastlingSide>,
    pub en_passant: bool,
    /// Whether standard SAN must name the origin file, rank (both for the rare triple case).
    pub needs_file: bool,
    pub needs_rank: bool,
    pub check: Check,
    /// The side that plays the move: descriptive notation counts ranks from the mover's side.
    pub mover: Color,
    /// Descriptive notation: another piece of this kind may also go, without capturing, to
    /// the square mirrored across the board (`N-B3` would not say whether KB3 or QB3).
    pub mirror_rival: bool,
    /// Descriptive notation: another capture by a piece of this kind takes a piece of the
    /// same kind (`NxP` would not say which pawn).
    pub taken_rival: bool,
}

impl MoveFacts {
    /// Facts of `m`, one of `legal` (the legal moves of a position where `mover` is to move,
    /// passed in so that a caller scoring every legal move generates them once); `check` is
    /// what `m` does to the opponent.
    pub fn new(m: Move, legal: &MoveList, mover: Color, check: Check) -> MoveFacts {
        MoveFacts::with_rivals(m, legal, &Rivals::of(legal, mover), check)
    }

    /// As [`MoveFacts::new`], with the rival counts of `legal` computed once for all its moves.
    pub fn with_rivals(m: Move, legal: &MoveList, rivals: &Rivals, check: Check) -> MoveFacts {
        let (needs_file, needs_rank) =
            if m.role() == Role::Pawn || m.is_castle() || rivals.count(m) <= 1 {
                (false, false)
            } else {
                match San::disambiguate(m, legal) {
                    San::Normal { file, rank, .. } => (file.is_some(), rank.is_some()),
                    _ => (false, false),
                }
            };
        let castle = m.castling_side();
        let to = match castle {
            Some(side) => Square::from_coords(side.king_to_file(), m.to().rank()),
            None => m.to(),
        };
        MoveFacts {
            role: m.role(),
            from: m.from().unwrap_or(m.to()),
            to,
            capture: m.is_capture(),
            captured: m.capture(),
            promotion: m.promotion(),
            castle,
            en_passant: m.is_en_passant(),
            needs_file,
            needs_rank,
            check,
            mover: rivals.mover,
            mirror_rival: castle.is_none() && !m.is_capture() && rivals.quiet_to_mirror(m),
            taken_rival: rivals.takes_alike(m),
        }
    }
}

impl MoveFacts {
    /// The facts packed into 32 bits: equal keys, equal facts (for fast cache keys).
    pub fn key(&self) -> u32 {
        let role = self.role as u32;
        let captured = self.captured.map_or(0, |r| r as u32);
        let promotion = self.promotion.map_or(0, |r| r as u32);
        let castle = match self.castle {
            None => 0,
            Some(CastlingSide::KingSide) => 1,
            Some(CastlingSide::QueenSide) => 2,
        };
        let check = match self.check {
            Check::None => 0,
            Check::Check => 1,
            Check::Mate => 2,
            Check::Unknown => 3,
        };
        role | (self.from as u32) << 3
            | (self.to as u32) << 9
            | (self.capture as u32) << 15
            | promotion << 16
            | castle << 19
            | (self.en_passant as u32) << 21
            | (self.needs_file as u32) << 22
            | (self.needs_rank as u32) << 23
            | check << 24
            | captured << 26
            | (self.mover as u32) << 29
            | (self.mirror_rival as u32) << 30
            | (self.taken_rival as u32) << 31
    }
}

/// How many legal moves of each piece type go to each square: a move needs a disambiguation
/// in SAN only when it has a rival. Also what descriptive notation needs to know of a
/// position's moves: where each kind of piece may go without capturing, and which kinds of
/// piece each kind may take.
#[derive(Debug, Clone)]
pub struct Rivals {
    to_square: [[u8; 64]; 6],
    quiet_to: [Bitboard; 6],
    /// `takes[role][taken]`: how many captures by a `role` take a `taken`.
    takes: [[u8; 6]; 6],
    mover: Color,
}

impl Rivals {
    /// The rivals among `legal`, the legal moves of a position where `mover` is to move.
    pub fn of(legal: &MoveList, mover: Color) -> Rivals {
        let mut to_square = [[0u8; 64]; 6];
        let mut quiet_to = [Bitboard::EMPTY; 6];
        let mut takes = [[0u8; 6]; 6];
        for m in legal.iter().filter(|m| !m.is_castle()) {
            let role = m.role() as usize - 1;
            let slot = &mut to_square[role][m.to() as usize];
            *slot = slot.saturating_add(1);
            match m.capture() {
                Some(taken) => {
                    let slot = &mut takes[role][taken as usize - 1];
                    *slot = slot.saturating_add(1);
                }
                None => quiet_to[role].add(m.to()),
            }
        }
        Rivals {
            to_square,
            quiet_to,
            takes,
            mover,
        }
    }

    fn count(&self, m: Move) -> u8 {
        self.to_square[m.role() as usize - 1][m.to() as usize]
    }

    /// Whether a piece of `m`'s kind may also go without capturing to the square mirrored
    /// across the board from `m`'s (KB3 for QB3), which descriptive notation's short square
    /// names (`B3`) do not tell apart.
    fn quiet_to_mirror(&self, m: Move) -> bool {
        let to = m.to();
        let mirror = to.flip_horizontal();
        mirror != to && self.quiet_to[m.role() as usize - 1].contains(mirror)
    }

    /// Whether another capture by a piece of `m`'s kind takes a piece of the kind `m` takes.
    fn takes_alike(&self, m: Move) -> bool {
        m.capture()
            .is_some_and(|taken| self.takes[m.role() as usize - 1][taken as usize - 1] > 1)
    }
}

/// How likely each notational choice is, as natural-log weights relative to standard SAN (0).
/// A sheet's writer is consistent, so the decoder may re-estimate these per sheet.
#[derive(Debug, Clone, PartialEq)]
pub struct Style {
    pub piece_letter_variant: f32,
    pub capture_colon: f32,
    pub capture_unmarked: f32,
    /// `ed` or `exd` for `exd5`: pawn captures written with the two files only.
    pub pawn_capture_files_only: f32,
    /// A capture named by the piece taken, as descriptive notation names it: `RxR`, `BxN+`,
    /// `QxNd5`, `axB` (and `PxP`, where the language has a letter for the pawn).
    pub capture_piece_named: f32,
    /// A piece's capture written with the destination's file only: `Rxh+`, `Bxb`.
    pub capture_file_only: f32,
    pub long_dash: f32,
    pub long_plain: f32,
    /// A move written with a disambiguation SAN needs, left out.
    pub missing_disambiguation: f32,
    /// An origin file written where SAN needs none.
    pub extra_disambiguation: f32,
    /// The origin's rank written where SAN tells the pieces apart by their file (`N5f3` for
    /// `Nef3`: 7 of the HCS misfits).
    pub rank_for_file: f32,
    pub castle_letter_o: f32,
    pub castle_digit_zero: f32,
    pub promotion_equals: f32,
    pub promotion_plain: f32,
    pub promotion_parenthesised: f32,
    pub promotion_slash: f32,
    pub promotion_unwritten: f32,
    pub en_passant_marked: f32,
    pub check_marked: f32,
    pub check_unmarked: f32,
    /// A `+` written after a move that gives no check.
    pub check_false: f32,
    pub mate_hash: f32,
    pub mate_double_plus: f32,
    pub mate_plus: f32,
    pub mate_unmarked: f32,
    /// English descriptive notation (`P-K4`, `N-KB3`, `BxN`, `PxP e.p.`, `P-K8=Q`), the way
    /// English and American players wrote until about 1980: the weight of writing a move so
    /// rather than in SAN. Off (−∞) unless a sheet shows it, since every move then has a few
    /// dozen more forms to score.
    pub descriptive: f32,
    /// A check written `ch`, as descriptive notation does: off (−∞) unless a sheet shows it.
    pub check_ch: f32,
    /// Descriptive notation's knight spelt `Kt`, the older way, against `N` at 0.
    pub descriptive_kt: f32,
}

impl Default for Style {
    fn default() -> Style {
        let ln = |p: f32| p.ln();
        Style {
            piece_letter_variant: ln(0.1),
            capture_colon: ln(0.08),
            capture_unmarked: ln(0.12),
            pawn_capture_files_only: ln(0.03),
            // The HCS transcriptions: 136 piece-named captures and 33 pieces' captures by file
            // in 14,872 cells, most of them from a few writers.
            capture_piece_named: ln(0.01),
            capture_file_only: ln(0.005),
            long_dash: ln(0.05),
            long_plain: ln(0.02),
            missing_disambiguation: ln(0.15),
            extra_disambiguation: ln(0.01),
            rank_for_file: ln(0.02),
            castle_letter_o: ln(0.5),
            castle_digit_zero: ln(0.5),
            promotion_equals: ln(0.45),
            promotion_plain: ln(0.45),
            promotion_parenthesised: ln(0.04),
            promotion_slash: ln(0.03),
            promotion_unwritten: ln(0.03),
            en_passant_marked: ln(0.15),
            check_marked: ln(0.75),
            check_unmarked: ln(0.25),
            check_false: ln(0.01),
            mate_hash: ln(0.6),
            mate_double_plus: ln(0.1),
            mate_plus: ln(0.2),
            mate_unmarked: ln(0.1),
            descriptive: f32::NEG_INFINITY,
            check_ch: f32::NEG_INFINITY,
            descriptive_kt: ln(0.2),
        }
    }
}

/// Standard SAN of a move in a language's letters, e.g. `Sf3` in German, `Кр:e2+` is written
/// `Крxe2+` here (the `x` is the standard capture mark in every language).
pub fn canonical(facts: &MoveFacts, lang: &Language) -> String {
    let mut out = String::new();
    write_body_san(facts, lang.letter(facts.role).unwrap_or(""), "x", &mut out);
    if let Some(promo) = facts.promotion {
        out.push('=');
        out.push_str(lang.letter(promo).unwrap_or("Q"));
    }
    match facts.check {
        Check::None | Check::Unknown => {}
        Check::Check => out.push('+'),
        Check::Mate => out.push('#'),
    }
    out
}

fn write_body_san(facts: &MoveFacts, letter: &str, capture_mark: &str, out: &mut String) {
    if let Some(side) = facts.castle {
        out.push_str(match side {
            CastlingSide::KingSide => "O-O",
            CastlingSide::QueenSide => "O-O-O",
        });
        return;
    }
    if facts.role == Role::Pawn {
        if facts.capture {
            out.push(facts.from.file().char());
            out.push_str(capture_mark);
        }
    } else {
        out.push_str(letter);
        if facts.needs_file {
            out.push(facts.from.file().char());
        }
        if facts.needs_rank {
            out.push(facts.from.rank().char());
        }
        if facts.capture {
            out.push_str(capture_mark);
        }
    }
    push_square(facts.to, out);
}

fn push_square(sq: Square, out: &mut String) {
    out.push(sq.file().char());
    out.push(sq.rank().char());
}

/// Calls `emit(text, log_weight)` for every way a player may write the move, standard SAN with
/// weight 0 and every other form with its [`Style`] weight. Texts carry no spaces. A text may be
/// emitted twice when two routes lead to it (e.g. `ed5` as an unmarked capture and as a long
/// form); callers combine them as they see fit.
pub fn for_each_form(
    facts: &MoveFacts,
    lang: &Language,
    style: &Style,
    emit: &mut impl FnMut(&str, f32),
) {
    let checks = check_marks(facts.check, style);
    let mut text = String::with_capacity(16);
    for_each_body(facts, lang, style, &mut |body, body_weight| {
        for &(check, check_weight) in checks.iter().filter(|c| c.1 > f32::NEG_INFINITY) {
            text.clear();
            text.push_str(body);
            text.push_str(check);
            emit(&text, body_weight + check_weight);
        }
    });
}

/// Every way of writing the move without its check mark (the move, a promotion, an `e.p.`),
/// with its weight: [`for_each_form`] is these times [`check_marks`].
pub fn for_each_body(
    facts: &MoveFacts,
    lang: &Language,
    style: &Style,
    emit: &mut impl FnMut(&str, f32),
) {
    let mut bodies: Vec<(String, f32)> = Vec::with_capacity(16);
    body_forms(facts, lang, style, &mut bodies);
    let promotions = promotion_suffixes(facts, lang, style);
    let en_passant: &[(&str, f32)] = if facts.en_passant {
        &[("", 0.0), ("e.p.", style.en_passant_marked)]
    } else {
        &[("", 0.0)]
    };
    let mut text = String::with_capacity(16);
    for (body, body_weight) in &bodies {
        for (promo, promo_weight) in &promotions {
            for (ep, ep_weight) in en_passant {
                text.clear();
                text.push_str(body);
                text.push_str(promo);
                text.push_str(ep);
                emit(&text, body_weight + promo_weight + ep_weight);
            }
        }
    }
}

/// The check marks a player may write after a move that does `check`, with their weights.
/// [`Check::Unknown`] allows every mark at no cost (`ch` only where the style writes it).
pub fn check_marks(check: Check, style: &Style) -> [(&'static str, f32); 5] {
    const NEVER: f32 = f32::NEG_INFINITY;
    // A descriptive writer's `ch` on a move that gives no check is as rare as a false `+`.
    let ch = |slip: f32| {
        if style.check_ch > NEVER {
            style.check_ch + slip
        } else {
            NEVER
        }
    };
    match check {
        Check::None => [
            ("", 0.0),
            ("+", style.check_false),
            ("ch", ch(style.check_false)),
            ("#", NEVER),
            ("++", NEVER),
        ],
        Check::Check => [
            ("+", style.check_marked),
            ("", style.check_unmarked),
            ("ch", ch(0.0)),
            ("#", NEVER),
            ("++", NEVER),
        ],
        Check::Mate => [
            ("#", style.mate_hash),
            ("++", style.mate_double_plus),
            ("+", style.mate_plus),
            ("", style.mate_unmarked),
            ("ch", ch(0.0)),
        ],
        Check::Unknown => [
            ("", 0.0),
            ("+", 0.0),
            ("#", 0.0),
            ("++", 0.0),
            ("ch", if style.check_ch > NEVER { 0.0 } else { NEVER }),
        ],
    }
}

fn promotion_suffixes(facts: &MoveFacts, lang: &Language, style: &Style) -> Vec<(String, f32)> {
    let Some(promo) = facts.promotion else {
        return vec![(String::new(), 0.0)];
    };
    let mut out = Vec::with_capacity(10);
    for (i, letter) in lang.variants(promo).iter().enumerate() {
        let variant = if i == 0 {
            0.0
        } else {
            style.piece_letter_variant
        };
        out.push((format!("={letter}"), style.promotion_equals + variant));
        out.push(((*letter).to_string(), style.promotion_plain + variant));
        out.push((
            format!("({letter})"),
            style.promotion_parenthesised + variant,
        ));
        out.push((format!("/{letter}"), style.promotion_slash + variant));
    }
    if promo == Role::Queen {
        out.push((String::new(), style.promotion_unwritten));
    }
    out
}

/// Every way of writing the move without its promotion, `e.p.` or check mark, each with its
/// weight: castling's, a pawn's or a piece's algebraic forms, and the descriptive ones where
/// the style allows them.
fn body_forms(facts: &MoveFacts, lang: &Language, style: &Style, out: &mut Vec<(String, f32)>) {
    if let Some(side) = facts.castle {
        castling_forms(side, style, out);
        return;
    }
    if style.descriptive > f32::NEG_INFINITY && lang.pawn_letter().is_some() {
        descriptive_forms(facts, lang, style, out);
    }
    let capture_marks: &[(&str, f32)] = if facts.capture {
        &[
            ("x", 0.0),
            (":", style.capture_colon),
            ("", style.capture_unmarked),
        ]
    } else {
        &[("", 0.0)]
    };
    if facts.role == Role::Pawn {
        pawn_forms(facts, lang, style, capture_marks, out);
    } else {
        piece_forms(facts, lang, style, capture_marks, out);
    }
}

/// `O-O` and `0-0` (or the long castling's), each at its style's weight.
fn castling_forms(side: CastlingSide, style: &Style, out: &mut Vec<(String, f32)>) {
    let (o, zero) = match side {
        CastlingSide::KingSide => ("O-O", "0-0"),
        CastlingSide::QueenSide => ("O-O-O", "0-0-0"),
    };
    out.push((o.to_string(), style.castle_letter_o));
    out.push((zero.to_string(), style.castle_digit_zero));
}

/// A pawn's move in algebraic notation: `e4`, `exd5` with each capture mark in
/// `capture_marks`, the piece taken named (`exN`, `PxN`), the files alone (`ed`, `exd`), and
/// the long forms.
fn pawn_forms(
    facts: &MoveFacts,
    lang: &Language,
    style: &Style,
    capture_marks: &[(&str, f32)],
    out: &mut Vec<(String, f32)>,
) {
    let from = square_name(facts.from);
    let to = square_name(facts.to);
    // Squares' names are ASCII: a file is its first byte.
    let (from_file, to_file) = (&from[..1], &to[..1]);
    let file = if facts.capture { from_file } else { "" };
    for &(mark, weight) in capture_marks {
        out.push(([file, mark, &to].concat(), weight));
    }
    if facts.capture {
        if let Some(taken) = facts.captured.and_then(|r| piece_letter(lang, r)) {
            out.push(([from_file, "x", taken].concat(), style.capture_piece_named));
            if let Some(pawn) = lang.pawn_letter() {
                out.push(([pawn, "x", taken].concat(), style.capture_piece_named));
            }
        }
        // Players who write the files alone write the capture mark about as often as
        // not: the HCS transcriptions hold 39 `exf` and 30 `ef`.
        out.push(([from_file, to_file].concat(), style.pawn_capture_files_only));
        out.push((
            [from_file, "x", to_file].concat(),
            style.pawn_capture_files_only,
        ));
        out.push((
            [from_file, ":", to_file].concat(),
            style.pawn_capture_files_only + style.capture_colon,
        ));
    }
    long_forms("", &from, &to, facts.capture, 0.0, style, out);
}

/// A piece's move in algebraic notation, in each of the language's letters for it: SAN with
/// each capture mark in `capture_marks`, a disambiguation missing, needless or by rank for
/// file, a capture by the file alone (`Rxh`) or naming the piece taken (`RxR`, `RxRd5`), and
/// the long forms.
fn piece_forms(
    facts: &MoveFacts,
    lang: &Language,
    style: &Style,
    capture_marks: &[(&str, f32)],
    out: &mut Vec<(String, f32)>,
) {
    let from = square_name(facts.from);
    let to = square_name(facts.to);
    // Squares' names are ASCII: a file is its first byte, a rank its second.
    let (from_file, from_rank, to_file) = (&from[..1], &from[1..], &to[..1]);
    let needed = disambiguation(facts);
    for (i, &letter) in lang.variants(facts.role).iter().enumerate() {
        let variant = if i == 0 {
            0.0
        } else {
            style.piece_letter_variant
        };
        for &(mark, weight) in capture_marks {
            out.push(([letter, &needed, mark, &to].concat(), variant + weight));
            if needed.is_empty() {
                if weight == 0.0 {
                    out.push((
                        [letter, from_file, mark, &to].concat(),
                        variant + style.extra_disambiguation,
                    ));
                }
            } else {
                out.push((
                    [letter, mark, &to].concat(),
                    variant + weight + style.missing_disambiguation,
                ));
                if facts.needs_file && !facts.needs_rank {
                    out.push((
                        [letter, from_rank, mark, &to].concat(),
                        variant + weight + style.rank_for_file,
                    ));
                }
            }
        }
        if facts.capture {
            out.push((
                [letter, "x", to_file].concat(),
                variant + style.capture_file_only,
            ));
            if let Some(taken) = facts.captured.and_then(|r| piece_letter(lang, r)) {
                out.push((
                    [letter, "x", taken].concat(),
                    variant + style.capture_piece_named,
                ));
                out.push((
                    [letter, "x", taken, &to].concat(),
                    variant + style.capture_piece_named,
                ));
            }
        }
        long_forms(letter, &from, &to, facts.capture, variant, style, out);
    }
}

/// Every way of writing a move (not castling, which is written as in algebraic notation) in
/// English descriptive notation, each at `base` plus its own weight: the careful writer's form
/// (the shortest that no other legal move shares: `N-B3`, `N-KB3` where a knight may also go
/// to QB3, `BxN`, `BxQN`, `KR-Q1`, `PxP`) near 0, the others as the slips or longer habits
/// they are. The knight may be `N` or the older `Kt`, in its square names too (`Kt-QKt5`).
fn descriptive_forms(
    facts: &MoveFacts,
    lang: &Language,
    style: &Style,
    out: &mut Vec<(String, f32)>,
) {
    let base = style.descriptive;
    let knight_named = facts.role == Role::Knight
        || facts.captured == Some(Role::Knight)
        || [facts.from, facts.to]
            .iter()
            .any(|sq| matches!(sq.file(), File::B | File::G));
    let knight_spellings = [("N", 0.0), ("Kt", style.descriptive_kt)];
    let spellings: &[(&str, f32)] = if knight_named {
        &knight_spellings
    } else {
        &knight_spellings[..1]
    };
    for &(knight, spelling) in spellings {
        let movers = descriptive_movers(facts, lang, knight);
        let ends = descriptive_ends(facts, lang, knight);
        for (mover, mover_weight) in &movers {
            for (end, end_weight) in &ends {
                out.push((
                    format!("{mover}{end}"),
                    base + spelling + mover_weight + end_weight,
                ));
            }
        }
    }
}

/// A piece's letter in descriptive notation: `P` for a pawn, the knight spelt `knight`.
fn descriptive_letter<'l>(role: Role, lang: &'l Language, knight: &'l str) -> &'l str {
    match role {
        Role::Pawn => "P",
        Role::Knight => knight,
        other => lang.letter(other).unwrap_or(""),
    }
}

/// How a descriptive writer names the piece that moves, with its weight: `P`, a pawn that
/// takes by its file (`KBP`), a piece alone (`N`), by its wing (`KN`) or by its square
/// (`N(QB3)`), the longer names likelier where another piece of its kind could make the move.
fn descriptive_movers(facts: &MoveFacts, lang: &Language, knight: &str) -> Vec<(String, f32)> {
    let ln = |p: f32| p.ln();
    let own = descriptive_letter(facts.role, lang, knight);
    let mut movers: Vec<(String, f32)> = Vec::with_capacity(4);
    if facts.role == Role::Pawn {
        if facts.capture {
            // `PxP` where two pawn captures take pawns says too little: the pawn is named
            // by its file (`KPxP`, `BPxP`), or the pawn taken by its own (below).
            let (plain, named) = if facts.taken_rival {
                (ln(0.1), ln(0.5))
            } else {
                (0.0, ln(0.05))
            };
            movers.push(("P".to_string(), plain));
            let (full, short) = descriptive_file(facts.from.file(), knight);
            movers.push((format!("{full}P"), named));
            if let Some(short) = short {
                movers.push((format!("{short}P"), named));
            }
        } else {
            movers.push(("P".to_string(), 0.0));
        }
    } else {
        let (plain, wing, square) = if facts.needs_file || facts.needs_rank {
            (ln(0.15), ln(0.5), ln(0.3))
        } else {
            (0.0, ln(0.05), ln(0.01))
        };
        movers.push((own.to_string(), plain));
        if matches!(facts.role, Role::Rook | Role::Knight | Role::Bishop) {
            movers.push((format!("{}{own}", wing_of(facts.from)), wing));
        }
        movers.push((
            format!(
                "{own}({})",
                descriptive_square(facts.from, facts.mover, knight).0
            ),
            square,
        ));
    }
    movers
}

/// How a descriptive writer ends the move, with its weight: the piece taken (`xN`, by its
/// wing `xKN` or its file `xKBP`, these likelier where another capture takes the same kind),
/// or the square reached, by its full name or its short one, with or without the dash.
fn descriptive_ends(facts: &MoveFacts, lang: &Language, knight: &str) -> Vec<(String, f32)> {
    let ln = |p: f32| p.ln();
    let mut ends: Vec<(String, f32)> = Vec::with_capacity(6);
    match facts.captured {
        Some(taken) => {
            let taken_letter = descriptive_letter(taken, lang, knight);
            let (plain, named) = if facts.taken_rival {
                (ln(0.1), ln(0.5))
            } else {
                (0.0, ln(0.05))
            };
            ends.push((format!("x{taken_letter}"), plain));
            match taken {
                Role::Pawn => {
                    let (full, short) = descriptive_file(facts.to.file(), knight);
                    ends.push((format!("x{full}P"), named));
                    if let Some(short) = short {
                        ends.push((format!("x{short}P"), named));
                    }
                }
                Role::Rook | Role::Knight | Role::Bishop => {
                    ends.push((format!("x{}{taken_letter}", wing_of(facts.to)), named));
                }
                _ => {}
            }
        }
        None => {
            let (full, short) = descriptive_square(facts.to, facts.mover, knight);
            let short_weight = if facts.mirror_rival {
                ln(0.02)
            } else {
                ln(0.5)
            };
            for (dash, dash_weight) in [("-", 0.0), ("", ln(0.05))] {
                ends.push((format!("{dash}{full}"), ln(0.5) + dash_weight));
                if let Some(short) = &short {
                    ends.push((format!("{dash}{short}"), short_weight + dash_weight));
                }
            }
        }
    }
    ends
}

/// Descriptive notation's name of `file` (`QR`, `QN`, `QB`, `Q`, `K`, `KB`, `KN`, `KR`, the
/// knight spelt `knight`), and its short name where both wings have a file of that piece
/// (`R`, `N`, `B`).
fn descriptive_file(file: File, knight: &str) -> (String, Option<String>) {
    let (wing, piece) = match file {
        File::A => ("Q", "R"),
        File::B => ("Q", knight),
        File::C => ("Q", "B"),
        File::D => ("", "Q"),
        File::E => ("", "K"),
        File::F => ("K", "B"),
        File::G => ("K", knight),
        File::H => ("K", "R"),
    };
    if wing.is_empty() {
        (piece.to_string(), None)
    } else {
        (format!("{wing}{piece}"), Some(piece.to_string()))
    }
}

/// Descriptive notation's name of `square` for `mover`, who counts the ranks from their own
/// side (`KB3`), and its short name where it has one (`B3`).
fn descriptive_square(square: Square, mover: Color, knight: &str) -> (String, Option<String>) {
    let rank = match mover {
        Color::White => square.rank(),
        Color::Black => square.rank().flip_vertical(),
    }
    .char();
    let (full, short) = descriptive_file(square.file(), knight);
    (format!("{full}{rank}"), short.map(|s| format!("{s}{rank}")))
}

/// The wing a square is on, as descriptive notation names a rook, knight or bishop by it
/// (`KR`, `QN`): the king's (files e–h) or the queen's.
fn wing_of(square: Square) -> &'static str {
    if square.file() >= File::E {
        "K"
    } else {
        "Q"
    }
}

/// The letter a capture names the piece taken by: the piece's usual letter, or for a pawn
/// the language's pawn letter where it has one.
fn piece_letter(lang: &Language, role: Role) -> Option<&'static str> {
    match role {
        Role::Pawn => lang.pawn_letter(),
        _ => lang.letter(role),
    }
}

fn long_forms(
    letter: &str,
    from: &str,
    to: &str,
    capture: bool,
    base: f32,
    style: &Style,
    out: &mut Vec<(String, f32)>,
) {
    if capture {
        out.push(([letter, from, "x", to].concat(), base + style.long_dash));
        out.push((
            [letter, from, ":", to].concat(),
            base + style.long_dash + style.capture_colon,
        ));
        out.push((
            [letter, from, "-", to].concat(),
            base + style.long_dash + style.capture_unmarked,
        ));
    } else {
        out.push(([letter, from, "-", to].concat(), base + style.long_dash));
    }
    out.push(([letter, from, to].concat(), base + style.long_plain));
}

fn disambiguation(facts: &MoveFacts) -> String {
    let mut s = String::new();
    if facts.needs_file {
        s.push(facts.from.file().char());
    }
    if facts.needs_rank {
        s.push(facts.from.rank().char());
    }
    s
}

fn square_name(sq: Square) -> String {
    let mut s = String::with_capacity(2);
    push_square(sq, &mut s);
    s
}
