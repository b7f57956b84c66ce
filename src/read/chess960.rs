//! A Chess960 start found from the writing, for a game read without being told its start.
//!
//! A folder of sheets gives no starts, and a Chess960 game read from the usual start explains
//! its first cells by misreadings and slips. Where the usual start is doubted
//! ([`super::doubted_start`]), or a few of its opening's moves or many of all its moves are
//! flagged and a cheap screen finds a likelier start, the starts are tried in three rounds,
//! each on fewer starts and more cells than the one before: every Chess960 start on the
//! opening's cells, a narrow search each; the few that read the opening best on the whole
//! game, as narrowly; the best three of those decoded as the usual start's game was, the
//! likeliest kept. Two starts that differ only in pieces that have not moved yet read an
//! opening alike, so the opening alone cannot pick the start; a piece's first move, later in
//! the game, tells them apart.

use shakmaty::Chess;

use super::CellReading;
use crate::decode::{
    decode_remembering, scores_from_starts, DecoderConfig, Game, LanguageChoice, PriorMemo,
};
use crate::notation::Language;
use crate::start::StartPosition;

/// The usual start's number among the Chess960 starts.
const CLASSICAL: u32 = 518;

/// Cells every start is tried on: the opening, where most pieces make their first moves.
const OPENING_CELLS: usize = 12;

/// Positions the trial searches keep a cell, four times as many after an unread cell (the
/// decoder's own keep 64, 128 after an unread cell, and more in rescues). 16, and none more
/// after an unread cell, lost a start that this found (seed 100's Esperanto sheet 00044)
/// for a tenth of the time saved.
const TRIAL_BEAM_WIDTH: usize = 32;

/// Cells and positions a cell of the screen run first where the usual start is not doubted
/// but its opening has a few flagged moves: a third of the trial's time.
const SCREEN_CELLS: usize = 8;
const SCREEN_BEAM_WIDTH: usize = 8;

/// Nats by which the best start must read the screen's cells better than the usual start.
const SCREEN_MARGIN: f32 = 2.0;

/// Nats by which the best start must read the opening better than the usual start does for
/// the trial to go on.
const OPENING_MARGIN: f32 = 4.0;

/// Starts reading the opening within this many nats of the best are tried on the whole game.
const SHORTLIST_WITHIN: f32 = 12.0;

/// At most this many of them, the best first.
const SHORTLIST_MAX: usize = 48;

/// The starts the whole game's narrow search ranks first that are decoded in full, the
/// likeliest game kept: the narrow search can misrank starts whose unmoved pieces differ
/// (seed 100's Croatian sheet 00060: its own start third, 22 nats behind the first, and 28
/// nats ahead of it decoded in full).
const FULL_DECODES: usize = 3;

/// Nats by which the game from a Chess960 start must outscore the game from the usual start:
/// ln 960 for the start among the others, and ln 100 for a game of Chess960 at all among the
/// games an archive holds (a prior of one in a hundred, generous for most archives).
const CHESS960_ODDS: f32 = 11.5;

/// A Chess960 start that explains the writing better than the usual one, and the game read
/// from it.
#[derive(Debug, Clone)]
pub struct FoundStart {
    /// The start's number, 0 to 959 (518, the usual start, is never found).
    pub number: u32,
    pub start: StartPosition,
    pub game: Game,
}

/// The Chess960 start whose game explains `evidence` (a game's readings in ply order) better
/// by [`CHESS960_ODDS`] than the game decoded from the usual start, whose score and language
/// are `usual`, does; with that game, decoded with `decoder` in the same language. `None`
/// where no start does. With `screen_first`, the starts are first tried more cheaply still
/// ([`SCREEN_CELLS`], [`SCREEN_BEAM_WIDTH`]), and no further where none reads those cells
/// [`SCREEN_MARGIN`] nats better than the usual start.
pub fn chess960_start_from_writing(
    evidence: &[CellReading],
    (usual_score, lang): (f32, &'static Language),
    decoder: &DecoderConfig,
    priors: &PriorMemo,
    screen_first: bool,
) -> Option<FoundStart> {
    let others: Vec<(u32, Chess)> = (0..960u32)
        .filter(|&n| n != CLASSICAL)
        .filter_map(|n| Some((n, StartPosition::chess960(n).ok()?.position)))
        .collect();
    let mut positions: Vec<Chess> = vec![Chess::default()];
    positions.extend(others.iter().map(|(_, position)| position.clone()));
    if screen_first {
        let screen = trial_config(decoder, SCREEN_BEAM_WIDTH);
        let screened = scores_from_starts(evidence, SCREEN_CELLS, &positions, lang, &screen);
        let best = screened[1..]
            .iter()
            .copied()
            .fold(f32::NEG_INFINITY, f32::max);
        if best < screened[0] + SCREEN_MARGIN {
            return None;
        }
    }
    let trial = trial_config(decoder, TRIAL_BEAM_WIDTH);
    let shortlist = opening_shortlist(evidence, (&positions, &others), lang, &trial)?;
    let positions: Vec<Chess> = shortlist.iter().map(|&(_, p)| p.clone()).collect();
    // Not weighed against the usual start's narrow search: a narrow search from the true
    // start may lose its game where the decoder's own finds it (seed 100's sheet 00044).
    let whole = scores_from_starts(evidence, evidence.len(), &positions, lang, &trial);
    let mut ranked: Vec<(u32, f32)> = shortlist
        .iter()
        .zip(&whole)
        .map(|(&(n, _), &score)| (n, score))
        .collect();
    // Stable: on a tie the start that read the opening better stays first.
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (number, start, game) = ranked
        .iter()
        .take(FULL_DECODES)
        .filter_map(|&(number, _)| {
            let start = StartPosition::chess960(number).ok()?;
            let game = decode_remembering(
                evidence,
                &start,
                LanguageChoice::Fixed(lang),
                decoder,
                priors,
            );
            Some((number, start, game))
        })
        .reduce(|best, next| {
            if next.2.score > best.2.score {
                next
            } else {
                best
            }
        })?;
    (game.score >= usual_score + CHESS960_ODDS).then_some(FoundStart {
        number,
        start,
        game,
    })
}

/// The Chess960 starts (`others`, numbered) that read the opening's cells best, within
/// [`SHORTLIST_WITHIN`] nats of the best and [`SHORTLIST_MAX`] at most, the best first; none
/// where the best reads them less than [`OPENING_MARGIN`] nats better than the usual start.
/// `positions`: the usual start, then `others`' positions, as searched.
fn opening_shortlist<'s>(
    evidence: &[CellReading],
    (positions, others): (&[Chess], &'s [(u32, Chess)]),
    lang: &Language,
    trial: &DecoderConfig,
) -> Option<Vec<(u32, &'s Chess)>> {
    let opening = scores_from_starts(evidence, OPENING_CELLS, positions, lang, trial);
    let mut ranked: Vec<(u32, f32, &Chess)> = others
        .iter()
        .zip(&opening[1..])
        .map(|((n, position), &score)| (*n, score, position))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let best = ranked.first()?.1;
    if best < opening[0] + OPENING_MARGIN {
        return None;
    }
    Some(
        ranked
            .into_iter()
            .take_while(|&(_, score, _)| score >= best - SHORTLIST_WITHIN)
            .take(SHORTLIST_MAX)
            .map(|(n, _, position)| (n, position))
            .collect(),
    )
}

/// The decoder's settings narrowed to `width` positions a cell for trying a start (the
/// trials never rescue).
fn trial_config(decoder: &DecoderConfig, width: usize) -> DecoderConfig {
    DecoderConfig {
        beam_width: width,
        wide_beam_width: decoder.wide_beam_width.min(width * 4),
        ..decoder.clone()
    }
}
