//! Connectionist temporal classification (CTC) over one cell's character posteriors: the text
//! the model reads best (best path), and the likelihood of any candidate text (the forward
//! algorithm, in log space), which is what the decoder scores legal moves with.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// Letters of different scripts that a hand writes alike: Cyrillic К С Т О р and Greek
/// Α Β Ι Ρ against Latin K C T O p A B I P. A reader cannot tell them apart from the ink (a
/// Russian knight `Кc3` and an English king `Kc3` look the same), so a text's likelihood
/// counts either; which one was meant is for the decoder's legal moves and the language to
/// decide.
pub const LOOKALIKES: &[(char, char)] = &[
    ('К', 'K'),
    ('С', 'C'),
    ('Т', 'T'),
    ('О', 'O'),
    ('р', 'p'),
    ('Α', 'A'),
    ('Β', 'B'),
    ('Ι', 'I'),
    ('Ρ', 'P'),
];

/// `c` as the Latin letter it looks like, if it has one ([`LOOKALIKES`]).
pub fn latin_lookalike(c: char) -> char {
    LOOKALIKES
        .iter()
        .find(|(other, _)| *other == c)
        .map_or(c, |&(_, latin)| latin)
}

/// Whether two texts look the same in handwriting: equal once every letter of
/// [`LOOKALIKES`] is taken as its Latin twin.
pub fn look_alike(a: &str, b: &str) -> bool {
    a.chars()
        .map(latin_lookalike)
        .eq(b.chars().map(latin_lookalike))
}

/// Characters up to the end of the Armenian block have their class in a table.
const DENSE_CHARS: usize = 0x590;

/// The characters a model reads; class 0 is the CTC blank, class `i + 1` is `chars[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Charset {
    chars: Vec<char>,
    index: HashMap<char, usize>,
    /// The classes of the characters below [`DENSE_CHARS`] (Latin, Greek, Cyrillic and
    /// Armenian), 0 for none: a likelihood looks up every character of its text.
    dense: Vec<u16>,
    /// For every class, the class that stands for it and its lookalikes in a likelihood
    /// (the lowest of them; itself when it has none).
    representative: Vec<usize>,
}

impl Charset {
    /// A charset of distinct characters, in the model's class order (after the blank).
    pub fn new(chars: &[char]) -> Result<Charset, String> {
        if chars.len() >= usize::from(u16::MAX) {
            return Err(format!(
                "a charset of {} characters is too large",
                chars.len()
            ));
        }
        let mut index = HashMap::with_capacity(chars.len());
        for (i, &c) in chars.iter().enumerate() {
            if index.insert(c, i + 1).is_some() {
                return Err(format!("the charset holds {c:?} twice"));
            }
        }
        let representative = (0..=chars.len())
            .map(|class| {
                let Some(c) = class.checked_sub(1).map(|i| chars[i]) else {
                    return class;
                };
                let latin = latin_lookalike(c);
                chars
                    .iter()
                    .position(|&other| latin_lookalike(other) == latin)
                    .map_or(class, |i| i + 1)
            })
            .collect();
        let mut dense = vec![0u16; DENSE_CHARS];
        for (&c, &class) in &index {
            if let Some(slot) = dense.get_mut(c as usize) {
                *slot = class as u16;
            }
        }
        Ok(Charset {
            chars: chars.to_vec(),
            index,
            dense,
            representative,
        })
    }

    /// Classes, the blank included.
    pub fn classes(&self) -> usize {
        self.chars.len() + 1
    }

    /// The class of a character, if the model reads it.
    pub fn class(&self, c: char) -> Option<usize> {
        match self.dense.get(c as usize) {
            Some(&0) => None,
            Some(&class) => Some(usize::from(class)),
            None => self.index.get(&c).copied(),
        }
    }

    /// The character of a class (`None` for the blank or a class out of range).
    pub fn char(&self, class: usize) -> Option<char> {
        class
            .checked_sub(1)
            .and_then(|i| self.chars.get(i))
            .copied()
    }
}

/// One cell's log-posteriors: `frames` x `classes` natural logs, each frame's summing to 1
/// in probability, row-major (frame by frame).
#[derive(Debug, Clone)]
pub struct Posteriors {
    pub charset: Arc<Charset>,
    frames: usize,
    log_probs: Vec<f32>,
    /// The same as probabilities (f64: a class at e^-300 still counts), for the forward pass;
    /// a class that stands for lookalikes ([`LOOKALIKES`]) holds their probabilities summed.
    probs: Vec<f64>,
    /// `(frames + 1) x classes`: the probability that a class (as in `probs`) is read in this
    /// frame or a later one, `1 - prod(1 - p)`; the last row, past the frames, is 0. The labels
    /// an alignment has still to read each need a frame of their own, so (the frames being
    /// independent, by Reimer's inequality for disjointly occurring events) the product of
    /// theirs bounds the probability of all the ways to finish it.
    read_from: Vec<f64>,
}

impl Posteriors {
    /// `log_probs` holds `frames * charset.classes()` values, frame by frame.
    pub fn new(charset: Arc<Charset>, log_probs: Vec<f32>) -> Result<Posteriors, String> {
        let classes = charset.classes();
        if log_probs.is_empty() || !log_probs.len().is_multiple_of(classes) {
            return Err(format!(
                "{} log-probabilities are not whole frames of {classes} classes",
                log_probs.len()
            ));
        }
        if log_probs.iter().any(|p| p.is_nan() || *p > 1e-3) {
            return Err("log-probabilities must be numbers at most 0".into());
        }
        let mut probs: Vec<f64> = log_probs.iter().map(|&p| (p as f64).exp()).collect();
        for frame in probs.chunks_exact_mut(classes) {
            for class in 0..classes {
                let stands_for = charset.representative[class];
                if stands_for != class {
                    frame[stands_for] += frame[class];
                }
            }
        }
        let frames = log_probs.len() / classes;
        let mut read_from = vec![0f64; (frames + 1) * classes];
        // In logs (ln_1p, expm1): a class at e^-200 in every frame is still read somewhere.
        let mut log_unread = vec![0f64; classes];
        for t in (0..frames).rev() {
            for (class, log_unread) in log_unread.iter_mut().enumerate() {
                *log_unread += (-probs[t * classes + class].clamp(0.0, 1.0)).ln_1p();
                read_from[t * classes + class] = -log_unread.exp_m1();
            }
        }
        Ok(Posteriors {
            frames,
            charset,
            probs,
            read_from,
            log_probs,
        })
    }

    pub fn frames(&self) -> usize {
        self.frames
    }

    #[cfg(test)]
    fn at(&self, frame: usize, class: usize) -> f32 {
        self.log_probs[frame * self.charset.classes() + class]
    }

    /// The cell as a writer with known confusions meant it: `means[r]` lists the classes a
    /// frame read as class `r` stands for, with P(meant | read) summing to 1 (an empty list:
    /// `r` itself), and each frame's probability is moved accordingly.
    pub fn through(&self, means: &[Vec<(usize, f64)>]) -> Result<Posteriors, String> {
        let classes = self.charset.classes();
        let mut log_probs = Vec::with_capacity(self.log_probs.len());
        let mut meant = vec![0f64; classes];
        for frame in self.log_probs.chunks_exact(classes) {
            meant.iter_mut().for_each(|p| *p = 0.0);
            for (read, &log_p) in frame.iter().enumerate() {
                let p = (log_p as f64).exp();
                match means.get(read).filter(|m| !m.is_empty()) {
                    Some(targets) => targets.iter().for_each(|&(c, w)| meant[c] += p * w),
                    None => meant[read] += p,
                }
            }
            log_probs.extend(meant.iter().map(|&p| (p.max(1e-300).ln() as f32).min(0.0)));
        }
        Posteriors::new(Arc::clone(&self.charset), log_probs)
    }

    /// How likely the text is to begin with each character: `(character, probability)` for
    /// every class of the charset, in class order, the probabilities in 0..=1 and summing with
    /// the chance that the cell reads as nothing at all to 1. The first character read is the
    /// class of the first frame that is not a blank, so it is the sum over frames of that
    /// class's probability there times every earlier frame's blank. A second choice the best
    /// path hides (a capital read `Փ` at 0.6 and `A` at 0.3) keeps its share here.
    pub fn first_characters(&self) -> Vec<(char, f32)> {
        let classes = self.charset.classes();
        let mut first = vec![0f64; classes];
        let mut all_blank_so_far = 1f64;
        for frame in self.log_probs.chunks_exact(classes) {
            for (class, &log_p) in frame.iter().enumerate().skip(1) {
                first[class] += all_blank_so_far * (log_p as f64).exp();
            }
            all_blank_so_far *= (frame[0] as f64).exp();
        }
        (1..classes)
            .filter_map(|class| Some((self.charset.char(class)?, first[class] as f32)))
            .collect()
    }

    /// The best path: the most likely class in every frame, repeats merged and blanks
    /// dropped; with the path's probability (the product of those frames' maxima), a
    /// lower bound on the text's probability, in 0..=1.
    pub fn best_path(&self) -> (String, f32) {
        let classes = self.charset.classes();
        let (mut text, mut log_p, mut previous) = (String::new(), 0.0f32, 0usize);
        for frame in self.log_probs.chunks_exact(classes) {
            let (best, &p) = frame
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .expect("a frame has classes");
            log_p += p;
            if best != 0 && best != previous {
                text.extend(self.charset.char(best));
            }
            previous = best;
        }
        (text, log_p.exp())
    }

    /// The likeliest text through the characters `admits` lets in, by a prefix beam search:
    /// frame by frame the `beam` likeliest beginnings of a text are kept, each summed over
    /// every alignment to the frames so far (the best path follows one alignment only, so a
    /// letter whose probability is split between frames or between twins may lose to the
    /// blank there). A letter counts its lookalikes in other scripts ([`LOOKALIKES`]) when it
    /// is the only one of them `admits` lets in. For a cell of a sheet whose language is
    /// known, this is the reading in that language's letters
    /// ([`crate::notation::Language::writes`]).
    pub fn likeliest_text_in(&self, admits: impl Fn(char) -> bool, beam: usize) -> String {
        let classes = self.charset.classes();
        let (admitted, stands_for_twins) = self.admitted_classes(admits);
        let mut prefixes = vec![Prefix {
            labels: Vec::new(),
            blank: 1.0,
            letter: 0.0,
        }];
        for t in 0..self.frames {
            let at = t * classes;
            // Where a letter stands for its twins, its probability is their sum (held at the
            // representative); else its own.
            let mass = |class: usize| {
                if stands_for_twins[class] {
                    self.probs[at + self.charset.representative[class]]
                } else {
                    (self.log_probs[at + class] as f64).exp()
                }
            };
            let letters: Vec<(usize, f64)> = admitted
                .iter()
                .map(|&class| (class, mass(class)))
                .filter(|&(_, p)| p > 1e-4)
                .collect();
            let mut next = Prefix::extended(&prefixes, self.probs[at], &letters, mass);
            next.sort_by(|a, b| b.total().total_cmp(&a.total()));
            next.truncate(beam.max(1));
            // Rescaled so that long cells stay in range; only the order matters.
            let top = next[0].total();
            if top > 0.0 {
                for p in &mut next {
                    p.blank /= top;
                    p.letter /= top;
                }
            }
            prefixes = next;
        }
        prefixes[0]
            .labels
            .iter()
            .filter_map(|&class| self.charset.char(class))
            .collect()
    }

    /// The letter classes `admits` lets in, and by class whether a letter stands for all its
    /// look-alike twins ([`LOOKALIKES`]): where it is the only one of them let in.
    fn admitted_classes(&self, admits: impl Fn(char) -> bool) -> (Vec<usize>, Vec<bool>) {
        let classes = self.charset.classes();
        let admitted: Vec<usize> = (1..classes)
            .filter(|&class| self.charset.char(class).is_some_and(&admits))
            .collect();
        let mut stands_for_twins = vec![false; classes];
        for &class in &admitted {
            let twin = self.charset.representative[class];
            stands_for_twins[class] = admitted
                .iter()
                .filter(|&&other| self.charset.representative[other] == twin)
                .count()
                == 1;
        }
        (admitted, stands_for_twins)
    }

    /// Natural-log likelihood that the cell shows `text`: the sum over every alignment of
    /// the text to the frames (forward algorithm), a letter with a lookalike in another
    /// script ([`LOOKALIKES`]) read as either. `-inf` when the text cannot be read here (a
    /// character the model does not know, or too long for the frames).
    pub fn log_likelihood(&self, text: &[char]) -> f32 {
        self.log_likelihood_above(text, f32::NEG_INFINITY)
    }

    /// [`Posteriors::log_likelihood`] when it is above `needed`; otherwise some value at or
    /// below `needed`. The forward pass stops once every alignment so far is too unlikely even
    /// if each label it has still to read were read in a later frame of its own at that
    /// label's chance of being read anywhere there (see `read_from`); a text with a letter
    /// the cell hardly shows anywhere is refused before the first frame. On a sheet's cells
    /// this takes a fifth of a `batch`'s time away.
    pub fn log_likelihood_above(&self, text: &[char], needed: f32) -> f32 {
        // Cells hold short texts: the labels and states fit on the stack.
        let mut labels_on_stack = [0usize; 23];
        let mut labels_on_heap = Vec::new();
        let labels = scratch(&mut labels_on_stack, &mut labels_on_heap, text.len());
        for (label, &c) in labels.iter_mut().zip(text) {
            match self.charset.class(c) {
                Some(class) => *label = self.charset.representative[class],
                None => return f32::NEG_INFINITY,
            }
        }
        let labels: &[usize] = labels;
        let sequence = Extended { labels };
        let needed = needed as f64;
        // Every label needs a frame of its own: a text whose letters are too unlikely to be
        // read anywhere is out of reach before the first frame.
        let reachable: f64 = labels.iter().map(|&l| self.read_from[l]).product();
        if reachable <= 0.0 || reachable.ln() < needed {
            return f32::NEG_INFINITY;
        }
        // Probabilities are rescaled only when they grow small (the scales' logs add up),
        // which keeps them in range with a logarithm every few frames, not one per frame or
        // state.
        let states = sequence.states();
        let mut alpha_on_stack = [0f64; 48];
        let mut alpha_on_heap = Vec::new();
        let alpha = scratch(&mut alpha_on_stack, &mut alpha_on_heap, states);
        alpha[0] = self.frame(0)[0];
        if states > 1 {
            alpha[1] = self.frame(0)[sequence.label(1)];
        }
        let mut log_scale = 0f64;
        // Below this, a bound on what alpha (at the current scale) can still become cannot
        // reach `needed`.
        let mut floor = needed.exp();
        let mut total: f64 = alpha.iter().sum();
        for t in 0..self.frames {
            // Only states from which the rest of the sequence still fits in the frames left
            // can still end well.
            let lowest = states.saturating_sub(2 * (self.frames - t) + 2);
            if t > 0 {
                // Of those, the states the frames so far can reach.
                let highest = (2 * t + 2).min(states);
                total = sequence.forward(alpha, self.frame(t), lowest..highest);
                alpha[..lowest].fill(0.0);
            }
            // The bound below is at most the total: where the total falls short, the bound
            // need not be worked out.
            if total <= 0.0 || total < floor {
                return f32::NEG_INFINITY;
            }
            let read_later =
                &self.read_from[(t + 1) * self.charset.classes()..][..self.charset.classes()];
            if sequence.bound(alpha, lowest, read_later) < floor {
                return f32::NEG_INFINITY;
            }
            if total < 1e-60 {
                alpha.iter_mut().for_each(|a| *a /= total);
                log_scale += total.ln();
                floor = (needed - log_scale).exp();
                total = 1.0;
            }
        }
        let end = if states == 1 {
            alpha[0]
        } else {
            alpha[states - 1] + alpha[states - 2]
        };
        if end <= 0.0 {
            f32::NEG_INFINITY
        } else {
            (end.ln() + log_scale) as f32
        }
    }

    /// Frame `t`'s probabilities, by class (`probs`).
    fn frame(&self, t: usize) -> &[f64] {
        let classes = self.charset.classes();
        &self.probs[t * classes..][..classes]
    }
}

/// A text's beginning in [`Posteriors::likeliest_text_in`]'s beam: its classes and its
/// probability so far, ending in a blank frame or in a frame of its last letter.
struct Prefix {
    labels: Vec<usize>,
    blank: f64,
    letter: f64,
}

impl Prefix {
    fn total(&self) -> f64 {
        self.blank + self.letter
    }

    /// Every prefix of `prefixes` carried one frame on, in which the blank has probability
    /// `blank` and each letter `(class, probability)` of `letters` is read (`mass`: any
    /// class's probability there); prefixes of the same text merged.
    fn extended(
        prefixes: &[Prefix],
        blank: f64,
        letters: &[(usize, f64)],
        mass: impl Fn(usize) -> f64,
    ) -> Vec<Prefix> {
        let mut next: Vec<Prefix> = Vec::with_capacity(prefixes.len() * (letters.len() + 1));
        for prefix in prefixes {
            let total = prefix.total();
            add_prefix(&mut next, &prefix.labels, total * blank, 0.0);
            let last = prefix.labels.last().copied();
            if let Some(last) = last {
                add_prefix(&mut next, &prefix.labels, 0.0, prefix.letter * mass(last));
            }
            for &(class, p) in letters {
                // The same letter twice needs a blank between.
                let before = if last == Some(class) {
                    prefix.blank
                } else {
                    total
                };
                let mut labels = prefix.labels.clone();
                labels.push(class);
                add_prefix(&mut next, &labels, 0.0, before * p);
            }
        }
        next
    }
}

/// Adds the probabilities `blank` and `letter` to the prefix of `labels` in `prefixes`, or
/// adds that prefix.
fn add_prefix(prefixes: &mut Vec<Prefix>, labels: &[usize], blank: f64, letter: f64) {
    match prefixes.iter_mut().find(|p| p.labels == labels) {
        Some(p) => {
            p.blank += blank;
            p.letter += letter;
        }
        None => prefixes.push(Prefix {
            labels: labels.to_vec(),
            blank,
            letter,
        }),
    }
}

/// `len` values to work in: on the stack when they fit, as a cell's labels and states do.
fn scratch<'a, T: Copy + Default, const N: usize>(
    on_stack: &'a mut [T; N],
    on_heap: &'a mut Vec<T>,
    len: usize,
) -> &'a mut [T] {
    if len <= N {
        &mut on_stack[..len]
    } else {
        on_heap.resize(len, T::default());
        on_heap
    }
}

/// A text's extended label sequence, as CTC aligns it: blank, l1, blank, l2, ..., blank.
struct Extended<'a> {
    labels: &'a [usize],
}

impl Extended<'_> {
    fn states(&self) -> usize {
        2 * self.labels.len() + 1
    }

    /// The class state `s` reads: the blank (0) or a label.
    fn label(&self, s: usize) -> usize {
        if s.is_multiple_of(2) {
            0
        } else {
            self.labels[s / 2]
        }
    }

    /// One frame of the forward recursion: the alignments of `alpha` (by state) carried
    /// into a frame whose probabilities are `frame`, for the states in `states`; returns
    /// their sum. Updated in place from the last state down, as each state reads only itself
    /// and the two before it.
    fn forward(&self, alpha: &mut [f64], frame: &[f64], states: Range<usize>) -> f64 {
        let mut total = 0.0;
        for s in states.rev() {
            let mut sum = alpha[s];
            if s >= 1 {
                sum += alpha[s - 1];
            }
            // Skipping the blank between two different labels.
            if s >= 2 && s % 2 == 1 && self.label(s) != self.label(s - 2) {
                sum += alpha[s - 2];
            }
            let a = sum * frame[self.label(s)];
            alpha[s] = a;
            total += a;
        }
        total
    }

    /// What the alignments of `alpha` from state `lowest` on can still become at most:
    /// every label after each state read in some later frame of its own (`read_later`, by
    /// class: the chance of a class being read in some later frame).
    fn bound(&self, alpha: &[f64], lowest: usize, read_later: &[f64]) -> f64 {
        let mut rest = 1.0;
        let mut bound = 0.0;
        for s in (lowest..alpha.len()).rev() {
            bound += alpha[s] * rest;
            if s % 2 == 1 {
                rest *= read_later[self.label(s)];
            }
        }
        bound
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn charset() -> Arc<Charset> {
        Arc::new(Charset::new(&['a', 'b']).unwrap())
    }

    /// Log-softmax rows from arbitrary scores.
    fn posteriors(scores: &[[f32; 3]]) -> Posteriors {
        let mut logs = Vec::new();
        for row in scores {
            let total = row.iter().map(|s| s.exp()).sum::<f32>().ln();
            logs.extend(row.iter().map(|s| s - total));
        }
        Posteriors::new(charset(), logs).unwrap()
    }

    #[test]
    fn a_writers_confusions_move_each_frames_probability_and_keep_it_whole() {
        let p = posteriors(&[[0.0, 2.0, 0.5], [1.0, -1.0, 3.0], [0.3, 0.2, 0.1]]);
        // The writer's `a` is read as `a` or, a third of the time, meant as `b`; `b` is `b`.
        let means = vec![Vec::new(), vec![(1, 2.0 / 3.0), (2, 1.0 / 3.0)], Vec::new()];
        let meant = p.through(&means).unwrap();
        for frame in 0..3 {
            let total: f32 = (0..3).map(|c| meant.at(frame, c).exp()).sum();
            assert!((total - 1.0).abs() < 1e-5, "frame {frame} sums to {total}");
            let (a, b) = (p.at(frame, 1).exp(), p.at(frame, 2).exp());
            assert!((meant.at(frame, 1).exp() - a * 2.0 / 3.0).abs() < 1e-5);
            assert!((meant.at(frame, 2).exp() - (b + a / 3.0)).abs() < 1e-5);
            assert!((meant.at(frame, 0) - p.at(frame, 0)).abs() < 1e-5);
        }
        // No confusions: the same posteriors.
        let same = p.through(&[Vec::new(), Vec::new(), Vec::new()]).unwrap();
        for frame in 0..3 {
            for class in 0..3 {
                assert!((same.at(frame, class) - p.at(frame, class)).abs() < 1e-5);
            }
        }
    }

    /// The CTC collapse of a frame path: repeats merged, blanks dropped.
    fn collapse(path: &[usize]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut previous = 0;
        for &c in path {
            if c != 0 && c != previous {
                out.push(c);
            }
            previous = c;
        }
        out
    }

    /// The likelihood of `text` by summing over all 3^T frame paths.
    fn brute_force(p: &Posteriors, text: &[char]) -> f32 {
        let labels: Vec<usize> = text.iter().map(|&c| p.charset.class(c).unwrap()).collect();
        let t = p.frames();
        let mut total = 0.0f64;
        for code in 0..3usize.pow(t as u32) {
            let path: Vec<usize> = (0..t).map(|i| code / 3usize.pow(i as u32) % 3).collect();
            if collapse(&path) == labels {
                total += path
                    .iter()
                    .enumerate()
                    .map(|(f, &c)| p.at(f, c) as f64)
                    .sum::<f64>()
                    .exp();
            }
        }
        total.ln() as f32
    }

    #[test]
    fn stopping_early_never_hides_a_likelihood_above_the_bar() {
        let p = posteriors(&[
            [0.1, 2.0, -1.0],
            [1.5, 0.2, 0.3],
            [0.0, -0.5, 2.5],
            [2.0, 0.1, 0.1],
            [0.3, 1.9, 0.0],
        ]);
        for text in [&['a'][..], &['a', 'b'], &['b', 'a', 'a'], &['b', 'b', 'b']] {
            let exact = p.log_likelihood(text);
            for needed in [exact - 1.0, exact - 1e-3, exact + 1e-3, exact + 5.0] {
                let got = p.log_likelihood_above(text, needed);
                if exact > needed {
                    assert!(
                        (got - exact).abs() < 1e-5,
                        "{text:?} {needed}: {got} vs {exact}"
                    );
                } else {
                    assert!(got <= needed, "{text:?} {needed}: {got} vs {exact}");
                }
            }
        }
        // A posterior at e^-200 still counts.
        let faint = posteriors(&[[0.0, -200.0, 0.0], [0.0, -200.0, 0.0]]);
        let ll = faint.log_likelihood(&['a']);
        assert!(ll.is_finite() && ll < -190.0, "{ll}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// The bound on what the frames still to come can add stops a pass only where the
        /// whole likelihood is at or below the bar: any posteriors, texts short and too long,
        /// bars just above and below the likelihood.
        #[test]
        fn the_bound_on_later_frames_never_hides_a_likelihood_above_the_bar(
            scores in proptest::collection::vec(
                proptest::array::uniform3(-12.0f32..4.0), 1..14),
            text in proptest::collection::vec(proptest::sample::select(vec!['a', 'b']), 1..9),
            offset in proptest::sample::select(vec![-3.0f32, -0.01, 0.01, 3.0]),
        ) {
            let p = posteriors(&scores);
            let exact = p.log_likelihood(&text);
            let needed = if exact.is_finite() { exact + offset } else { -5.0 };
            let got = p.log_likelihood_above(&text, needed);
            if exact > needed {
                proptest::prop_assert!((got - exact).abs() < 1e-4, "{} vs {}", got, exact);
            } else {
                proptest::prop_assert!(got <= needed, "{} vs {} (bar {})", got, exact, needed);
            }
        }
    }

    /// Five frames' scores over the blank, `a` and `b`, for the brute-force checks.
    const FRAME_SCORES: [[f32; 3]; 5] = [
        [0.3, 1.2, -0.4],
        [1.1, 0.2, 0.9],
        [-0.5, 0.7, 1.4],
        [0.8, -1.0, 0.1],
        [0.0, 0.6, 0.6],
    ];

    #[test]
    fn forward_equals_the_sum_over_all_alignments() {
        for frames in 1..=5 {
            let p = posteriors(&FRAME_SCORES[..frames]);
            for text in ["", "a", "b", "ab", "ba", "aa", "abb", "aba", "bab"] {
                let text: Vec<char> = text.chars().collect();
                let expected = brute_force(&p, &text);
                let got = p.log_likelihood(&text);
                if expected == f32::NEG_INFINITY {
                    assert_eq!(got, f32::NEG_INFINITY, "{frames} frames, {text:?}");
                } else {
                    assert!(
                        (got - expected).abs() < 1e-4,
                        "{frames} frames, {text:?}: {got} vs {expected}"
                    );
                }
            }
        }
    }

    #[test]
    fn first_characters_equal_the_sum_over_all_alignments() {
        for frames in 1..=4 {
            let p = posteriors(&FRAME_SCORES[..frames]);
            let mut expected = [0.0f64; 3];
            for code in 0..3usize.pow(frames as u32) {
                let path: Vec<usize> = (0..frames)
                    .map(|i| code / 3usize.pow(i as u32) % 3)
                    .collect();
                let probability = path
                    .iter()
                    .enumerate()
                    .map(|(f, &c)| p.at(f, c) as f64)
                    .sum::<f64>()
                    .exp();
                expected[collapse(&path).first().copied().unwrap_or(0)] += probability;
            }
            let got = p.first_characters();
            assert_eq!(got.iter().map(|&(c, _)| c).collect::<String>(), "ab");
            for (class, &(c, probability)) in (1..).zip(&got) {
                assert!(
                    (probability as f64 - expected[class]).abs() < 1e-5,
                    "{frames} frames, {c}: {probability} vs {}",
                    expected[class]
                );
            }
            // With the empty reading, every beginning is counted once.
            let total = got.iter().map(|&(_, p)| p as f64).sum::<f64>() + expected[0];
            assert!((total - 1.0).abs() < 1e-5, "{frames} frames: {total}");
        }
    }

    #[test]
    fn every_text_shares_the_probability() {
        // Over all texts of any length the likelihoods sum to 1.
        let p = posteriors(&[[0.2, 0.9, -0.3], [1.0, 0.1, 0.4], [0.3, 0.3, 0.8]]);
        let mut texts = vec![String::new()];
        for len in 1..=3 {
            for code in 0..2usize.pow(len) {
                texts.push(
                    (0..len)
                        .map(|i| if code >> i & 1 == 0 { 'a' } else { 'b' })
                        .collect(),
                );
            }
        }
        let total: f32 = texts
            .iter()
            .map(|t| p.log_likelihood(&t.chars().collect::<Vec<_>>()).exp())
            .sum();
        assert!((total - 1.0).abs() < 1e-4, "{total}");
    }

    #[test]
    fn best_path_merges_repeats_and_drops_blanks() {
        // a a - b b - a  ->  "aba"
        let strong = |class: usize| {
            let mut row = [-4.0f32; 3];
            row[class] = 4.0;
            row
        };
        let p = posteriors(&[1, 1, 0, 2, 2, 0, 1].map(strong));
        let (text, probability) = p.best_path();
        assert_eq!(text, "aba");
        assert!(probability > 0.99 && probability <= 1.0, "{probability}");
        assert_eq!(p.log_likelihood(&['x']), f32::NEG_INFINITY);
        assert!(p.log_likelihood(&['a', 'b', 'a']) > p.log_likelihood(&['a', 'b']));
    }

    #[test]
    fn refuses_malformed_posteriors_and_charsets() {
        assert!(Posteriors::new(charset(), vec![-1.0; 7]).is_err());
        assert!(Posteriors::new(charset(), vec![]).is_err());
        assert!(Posteriors::new(charset(), vec![f32::NAN, -1.0, -1.0]).is_err());
        assert!(Charset::new(&['a', 'a']).is_err());
    }

    #[test]
    fn every_character_finds_its_class_in_any_script() {
        // Latin, Cyrillic, Armenian (in the table), Devanagari and a symbol past it.
        let chars = ['a', 'Ф', 'Ձ', 'र', '♞', '0'];
        let charset = Charset::new(&chars).unwrap();
        for (i, &c) in chars.iter().enumerate() {
            assert_eq!(charset.class(c), Some(i + 1), "{c}");
            assert_eq!(charset.char(i + 1), Some(c));
        }
        for c in ['b', 'Д', 'Ա', 'क', '♜', '\0'] {
            assert_eq!(charset.class(c), None, "{c}");
        }
    }

    #[test]
    fn lookalike_letters_share_their_probability() {
        let charset = Arc::new(Charset::new(&['K', 'c', 'К']).unwrap());
        // One frame: blank 0.1, K 0.3, c 0.4, К 0.2.
        let frame = [0.1f32, 0.3, 0.4, 0.2].map(f32::ln).to_vec();
        let p = Posteriors::new(charset, frame).unwrap();
        let (latin, cyrillic) = (p.log_likelihood(&['K']), p.log_likelihood(&['К']));
        assert!((latin - 0.5f32.ln()).abs() < 1e-5, "{latin}");
        assert_eq!(latin, cyrillic);
        assert!((p.log_likelihood(&['c']) - 0.4f32.ln()).abs() < 1e-5);
        // The best path still names the class the model preferred.
        assert_eq!(p.best_path().0, "c");
        assert!(look_alike("Кc3", "Kc3") && look_alike("Кр", "Kp"));
        assert!(!look_alike("Кc3", "Nc3"));
    }

    #[test]
    fn likeliest_text_in_a_languages_letters() {
        let charset = Arc::new(Charset::new(&['K', 'Ф', 'Q', 'c', 'К', '3']).unwrap());
        // Frames: Ф 0.6 Q 0.3 | К 0.5 K 0.3 c 0.1 | blank 0.7 | c 0.5 К 0.4 | 3 0.9.
        let frames: [[f32; 7]; 5] = [
            [0.04, 0.02, 0.6, 0.3, 0.02, 0.01, 0.01],
            [0.05, 0.3, 0.02, 0.02, 0.1, 0.5, 0.01],
            [0.7, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05],
            [0.02, 0.02, 0.02, 0.02, 0.5, 0.4, 0.02],
            [0.02, 0.02, 0.02, 0.02, 0.01, 0.01, 0.9],
        ];
        let logs = frames.iter().flatten().map(|p| p.ln()).collect();
        let p = Posteriors::new(charset, logs).unwrap();
        assert_eq!(p.best_path().0, "ФКc3");
        // Ф is not English: the queen is next; К and K are one letter, 0.8 of the frame.
        let english = |c: char| "KQRBNc3".contains(c);
        assert_eq!(p.likeliest_text_in(english, 8), "QKc3");
        // Where both twins are admitted, each counts alone.
        assert_eq!(p.likeliest_text_in(|_| true, 8), "ФКc3");
        // Nothing admitted: no letter.
        assert_eq!(p.likeliest_text_in(|_| false, 8), "");
    }

    #[test]
    fn likeliest_text_sums_alignments_the_best_path_misses() {
        // Each frame: blank 0.4, a 0.35, b 0.25. The best path is two blanks (0.16), the
        // text "a" has 0.35 * 0.35 + 2 * 0.35 * 0.4 = 0.4025.
        let row = [0.4f32, 0.35, 0.25].map(f32::ln);
        let p = Posteriors::new(charset(), [row, row].concat()).unwrap();
        assert_eq!(p.best_path().0, "");
        assert_eq!(p.likeliest_text_in(|_| true, 4), "a");
    }

    #[test]
    fn likeliest_text_is_the_most_likely_of_all_texts() {
        // Every text of up to 5 letters over {a, b}, scored by the forward algorithm, against
        // the beam search (a beam wider than the texts there are is exhaustive).
        let mut texts: Vec<Vec<char>> = vec![Vec::new()];
        for length in 1..=5 {
            for code in 0..1u32 << length {
                texts.push(
                    (0..length)
                        .map(|i| if code >> i & 1 == 1 { 'b' } else { 'a' })
                        .collect(),
                );
            }
        }
        let mut seed = 7u64;
        let mut random = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0
        };
        for _ in 0..50 {
            let scores: Vec<[f32; 3]> = (0..5).map(|_| [random(), random(), random()]).collect();
            let p = posteriors(&scores);
            let best = texts
                .iter()
                .max_by(|a, b| p.log_likelihood(a).total_cmp(&p.log_likelihood(b)))
                .unwrap();
            let found: Vec<char> = p.likeliest_text_in(|_| true, 64).chars().collect();
            assert!(
                (p.log_likelihood(&found) - p.log_likelihood(best)).abs() < 1e-5,
                "{found:?} against {best:?}"
            );
        }
    }
}
