//! How well a legal move fits a cell ([`Scorer`]): every way the sheet's writer may write it,
//! scored against the cell's evidence, cached by the move's facts, since the decoder asks for
//! the same written forms from many positions.

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;

use crate::decode::{CellEvidence, DecoderConfig};
use crate::notation::{check_marks, for_each_body, Check, Language, MoveFacts, Style};

/// A move's written bodies with their weights, likeliest first, their characters kept in one
/// buffer (a move has a dozen or two forms, and the decoder makes thousands of lists).
#[derive(Default)]
struct BodyList {
    chars: Vec<char>,
    /// Each body's characters (a range of `chars`) and weight.
    bodies: Vec<(u32, u32, f32)>,
}

impl BodyList {
    fn push(&mut self, text: &str, weight: f32) {
        let start = self.chars.len() as u32;
        self.chars.extend(text.chars());
        self.bodies.push((start, self.chars.len() as u32, weight));
    }

    fn iter(&self) -> impl Iterator<Item = (&[char], f32)> {
        self.bodies
            .iter()
            .map(|&(start, end, weight)| (&self.chars[start as usize..end as usize], weight))
    }
}

/// What a [`Scorer`] has scored.
#[derive(Default)]
pub(super) struct Caches {
    /// Written bodies of each move in each writer's letters and habits ([`Writer`]), keyed by
    /// its facts with check unknown.
    bodies: [HashMap<u32, BodyList>; 2],
    /// Per cell: scores by full facts, and best body scores by check-free facts (both keyed by
    /// [`MoveFacts::key`]).
    pub(super) scores: Vec<HashMap<u32, f32>>,
    body_scores: Vec<HashMap<u32, f32>>,
}

impl Caches {
    fn for_cells(cells: usize) -> Caches {
        Caches {
            bodies: Default::default(),
            scores: (0..cells).map(|_| HashMap::default()).collect(),
            body_scores: (0..cells).map(|_| HashMap::default()).collect(),
        }
    }

    /// Keeps what `other` holds besides its own.
    pub(super) fn absorb(&mut self, other: Caches) {
        for (own, theirs) in self.bodies.iter_mut().zip(other.bodies) {
            for (key, list) in theirs {
                own.entry(key).or_insert(list);
            }
        }
        for (own, theirs) in self.scores.iter_mut().zip(other.scores) {
            own.extend(theirs);
        }
        for (own, theirs) in self.body_scores.iter_mut().zip(other.body_scores) {
            own.extend(theirs);
        }
    }
}

/// Scores legal moves against cells for one language, caching by move facts.
pub(super) struct Scorer<'a, E: CellEvidence> {
    pub(super) cells: &'a [E],
    lang: &'a Language,
    config: &'a DecoderConfig,
    pub(super) caches: Caches,
    /// A task's scorer reads its search's caches, left untouched while the tasks run, and
    /// keeps what it scores itself until the search [absorbs](Caches::absorb) it.
    parent: Option<&'a Scorer<'a, E>>,
}

/// Whose habits a reading is scored in: the sheet's own writer, or the other player's copy.
#[derive(Clone, Copy)]
enum Writer {
    Own = 0,
    Copy = 1,
}

impl<'a, E: CellEvidence> Scorer<'a, E> {
    pub(super) fn new(cells: &'a [E], lang: &'a Language, config: &'a DecoderConfig) -> Self {
        Scorer {
            cells,
            lang,
            config,
            caches: Caches::for_cells(cells.len()),
            parent: None,
        }
    }

    /// A scorer for a task (`Search::task`): it finds what `self` has scored, and keeps the
    /// rest apart.
    pub(super) fn child<'b>(&'b self) -> Scorer<'b, E>
    where
        'a: 'b,
    {
        Scorer {
            parent: Some(self),
            ..Scorer::new(self.cells, self.lang, self.config)
        }
    }

    pub(super) fn into_caches(self) -> Caches {
        self.caches
    }

    fn style(&self, writer: Writer) -> &'a Style {
        match writer {
            Writer::Own => &self.config.style,
            Writer::Copy => self
                .config
                .copy_style
                .as_ref()
                .unwrap_or(&self.config.style),
        }
    }

    fn language(&self, writer: Writer) -> &'a Language {
        match writer {
            Writer::Own => self.lang,
            Writer::Copy => self.config.copy_language.unwrap_or(self.lang),
        }
    }

    fn bodies_of(&mut self, body_key: MoveFacts, writer: Writer) -> &BodyList {
        if let Some(list) = self
            .parent
            .and_then(|p| p.caches.bodies[writer as usize].get(&body_key.key()))
        {
            return list;
        }
        let (lang, style) = (self.language(writer), self.style(writer));
        self.caches.bodies[writer as usize]
            .entry(body_key.key())
            .or_insert_with(|| {
                let mut list = BodyList::default();
                for_each_body(&body_key, lang, style, &mut |text, w| list.push(text, w));
                list.bodies.sort_by(|a, b| b.2.total_cmp(&a.2));
                list
            })
    }

    /// Log-likelihood of cell `cell` given that it holds the move with `facts`: the best of the
    /// move's written forms, or the cell's unreadable floor if that is likelier. A cell read
    /// with the other player's copy adds the two readings, each at its best form in its own
    /// writer's habits.
    pub(super) fn score(&mut self, cell: usize, facts: &MoveFacts) -> f32 {
        let facts_key = facts.key();
        if let Some(&s) = self.caches.scores[cell].get(&facts_key) {
            return s;
        }
        if let Some(&s) = self
            .parent
            .and_then(|p| p.caches.scores[cell].get(&facts_key))
        {
            return s;
        }
        let cells = self.cells;
        let evidence = &cells[cell];
        let s = match evidence.copies() {
            Some((own, copy)) if !evidence.is_illegible() => {
                self.reading_score(own, facts, Writer::Own, None)
                    + self.reading_score(copy, facts, Writer::Copy, None)
            }
            _ => self.reading_score(evidence, facts, Writer::Own, Some(cell)),
        };
        self.caches.scores[cell].insert(facts_key, s);
        s
    }

    /// Each sheet's own likelihood of the move with `facts` (own, copy), where cell `cell`
    /// fuses both players' sheets and neither is blank or illegible; `None` elsewhere.
    pub(super) fn sheet_scores(&mut self, cell: usize, facts: &MoveFacts) -> Option<[f32; 2]> {
        let (own, copy) = self.cells[cell].copies()?;
        if own.is_illegible() || copy.is_illegible() {
            return None;
        }
        Some([
            self.reading_score(own, facts, Writer::Own, None),
            self.reading_score(copy, facts, Writer::Copy, None),
        ])
    }

    /// One reading's likelihood of the move with `facts` written in `writer`'s habits;
    /// `cell`: where its best body scores may be kept.
    fn reading_score(
        &mut self,
        evidence: &dyn CellEvidence,
        facts: &MoveFacts,
        writer: Writer,
        cell: Option<usize>,
    ) -> f32 {
        let floor = evidence.unreadable_log_likelihood();
        let marks = check_marks(facts.check, self.style(writer));
        let body_key = without_check(facts);
        if evidence.is_illegible() {
            0.0
        } else if let Some(factored) = evidence.factored() {
            let mark_best = marks
                .iter()
                .map(|&(mark, w)| w + factored.mark_log_likelihood(mark))
                .fold(f32::NEG_INFINITY, f32::max);
            let kept = cell.and_then(|c| {
                let key = body_key.key();
                self.caches.body_scores[c]
                    .get(&key)
                    .or_else(|| self.parent.and_then(|p| p.caches.body_scores[c].get(&key)))
                    .copied()
            });
            let body_best = match kept {
                Some(b) => b,
                None => {
                    let mut best = floor - 1.0;
                    for (chars, weight) in self.bodies_of(body_key, writer).iter() {
                        if weight <= best {
                            break;
                        }
                        best =
                            best.max(weight + factored.body_log_likelihood(chars, best - weight));
                    }
                    if let Some(c) = cell {
                        self.caches.body_scores[c].insert(body_key.key(), best);
                    }
                    best
                }
            };
            (body_best + mark_best).max(floor)
        } else {
            let bodies = self.bodies_of(body_key, writer);
            unfactored_score(evidence, bodies, &marks, floor)
        }
    }

    /// Scores the moves with `facts` against cell `cell` side by side (rayon) and keeps them,
    /// so that the layer's search then finds them kept. Only evidence read character by
    /// character (the reader's CTC posteriors) is scored here: its scores are the slow part of
    /// a search, and each is a pure function of the cell and the facts, so the game found is
    /// the same as when they are scored one by one.
    pub(super) fn prescore<'f>(&mut self, cell: usize, facts: impl Iterator<Item = &'f MoveFacts>) {
        let evidence = &self.cells[cell];
        // Typed cells score bodies and marks apart, a fraction of a microsecond each.
        if evidence.is_illegible() || evidence.factored().is_some() {
            return;
        }
        let writers: &[Writer] = if evidence.copies().is_some() {
            &[Writer::Own, Writer::Copy]
        } else {
            &[Writer::Own]
        };
        let mut seen: rustc_hash::FxHashSet<u32> = Default::default();
        let wanted: Vec<MoveFacts> = facts
            .filter(|f| !self.caches.scores[cell].contains_key(&f.key()) && seen.insert(f.key()))
            .copied()
            .collect();
        for facts in &wanted {
            for &writer in writers {
                self.bodies_of(without_check(facts), writer);
            }
        }
        let scorer = &*self;
        let scores: Vec<Option<f32>> = wanted
            .par_iter()
            .with_min_len(PRESCORED_PER_TASK)
            .map(|facts| scorer.score_from_kept_bodies(cell, facts))
            .collect();
        for (facts, score) in wanted.iter().zip(scores) {
            if let Some(score) = score {
                self.caches.scores[cell].insert(facts.key(), score);
            }
        }
    }

    /// [`Scorer::score`] without touching the caches, from bodies already kept; `None` for
    /// evidence that scores bodies and marks apart ([`CellEvidence::factored`]), which
    /// [`Scorer::score`] handles with a cache of its own.
    fn score_from_kept_bodies(&self, cell: usize, facts: &MoveFacts) -> Option<f32> {
        let evidence = &self.cells[cell];
        match evidence.copies() {
            Some((own, copy)) if !evidence.is_illegible() => Some(
                self.kept_reading_score(own, facts, Writer::Own)?
                    + self.kept_reading_score(copy, facts, Writer::Copy)?,
            ),
            _ => self.kept_reading_score(evidence, facts, Writer::Own),
        }
    }

    fn kept_reading_score(
        &self,
        evidence: &dyn CellEvidence,
        facts: &MoveFacts,
        writer: Writer,
    ) -> Option<f32> {
        if evidence.is_illegible() {
            return Some(0.0);
        }
        if evidence.factored().is_some() {
            return None;
        }
        let bodies = self.caches.bodies[writer as usize].get(&without_check(facts).key())?;
        let marks = check_marks(facts.check, self.style(writer));
        Some(unfactored_score(
            evidence,
            bodies,
            &marks,
            evidence.unreadable_log_likelihood(),
        ))
    }
}

/// How many moves one rayon task scores: a score takes a few microseconds, a task's start
/// about one.
const PRESCORED_PER_TASK: usize = 16;

/// The facts of a move as its body is written: the check mark is scored apart.
fn without_check(facts: &MoveFacts) -> MoveFacts {
    MoveFacts {
        check: Check::Unknown,
        ..*facts
    }
}

/// The likelihood of a reading that scores whole texts: the best of `bodies` (by their
/// weights, best first) with each of `marks`, or `floor`.
fn unfactored_score(
    evidence: &dyn CellEvidence,
    bodies: &BodyList,
    marks: &[(&'static str, f32); 5],
    floor: f32,
) -> f32 {
    let mut best = floor;
    for (chars, weight) in bodies.iter() {
        for &(mark, mark_weight) in marks.iter().filter(|m| m.1 > f32::NEG_INFINITY) {
            let w = weight + mark_weight;
            if w > best {
                best = best.max(w + evidence.log_likelihood(chars, mark, best - w));
            }
        }
    }
    best
}
