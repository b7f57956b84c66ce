//! A cell read by the model, as evidence for the decoder: every candidate written form is
//! scored by its CTC likelihood under the cell's posteriors, not compared with the model's
//! first guess; and, since players slip (a wrong square, a dropped capture mark), also as
//! the best path written by mistake for the candidate, priced by the typed channel.

use crate::decode::{
    CellEvidence, TypedCell, MISWRITTEN_CELL_LOG_PROB, RANDOM_CHAR_LOG_LIKELIHOOD,
};

use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use crate::notation::Language;

use rustc_hash::FxHashMap;

use super::ctc::Posteriors;

/// One cell's posteriors as [`CellEvidence`].
#[derive(Debug)]
pub struct CtcCell {
    /// The cell read in its own box.
    own: Reading,
    /// The cell read in a window widened over its right border, where the page stage saw the
    /// writing run on into the next box: the cell's own crop cuts such a move short, or
    /// holds none of it. A candidate is scored in the window that shows it better.
    overrun: Option<Box<Reading>>,
    /// Texts already scored (read as written or as a slip, scaled): the decoder asks for the
    /// same written forms from many positions. Each holds the value found and the `needed` it
    /// was computed for (a value at or below that `needed` is only an upper bound). Split in
    /// shards by the text's hash: the decoder scores a layer's moves on two threads at once,
    /// and one lock for all would keep them waiting on each other.
    scored: Box<[ScoredTexts; SCORED_SHARDS]>,
    /// Weight of the reader's log-likelihoods against the decoder's move prior and slip
    /// costs (as the acoustic scale of a speech decoder): a reader trained on generated cells
    /// is surer of itself than it should be on real ones.
    scale: f32,
}

/// The reader's posteriors for one crop of a cell, with their best path.
#[derive(Debug)]
struct Reading {
    posteriors: Posteriors,
    /// The best path, shown in reports.
    text: String,
    text_log_likelihood: f32,
    /// The best path as typed text, for the slip channel; `None` for a blank cell.
    as_typed: Option<TypedCell>,
}

impl Reading {
    fn new(posteriors: Posteriors) -> Reading {
        let (text, _) = posteriors.best_path();
        let chars: Vec<char> = text.chars().collect();
        let text_log_likelihood = posteriors.log_likelihood(&chars);
        let as_typed = (!text.is_empty()).then(|| TypedCell::new(&text));
        Reading {
            posteriors,
            text,
            text_log_likelihood,
            as_typed,
        }
    }

    /// The likelihood that the player meant `body` + `mark` but wrote the best path: the best
    /// path's own likelihood (weighted by `scale`) and the typed channel's price of the slip
    /// (see [`TypedCell`]). A slip of the pen is not a misreading: the posteriors alone would
    /// price a written `Kc7` meant as `Kxc6` as ink the reader cannot see.
    fn slip_log_likelihood(&self, body: &[char], mark: &str, needed: f32, scale: f32) -> f32 {
        let Some(typed) = &self.as_typed else {
            return f32::NEG_INFINITY;
        };
        let read = scale * self.text_log_likelihood;
        read + typed.log_likelihood(body, mark, needed - read)
    }

    /// The likelier of reading `text` (`body` + `mark`) and of a slip for it, weighted by
    /// `scale`; a value at or below `needed` is only an upper bound.
    fn score_text(&self, body: &[char], mark: &str, text: &[char], needed: f32, scale: f32) -> f32 {
        let slip = self.slip_log_likelihood(body, mark, needed, scale);
        let read = scale
            * self
                .posteriors
                .log_likelihood_above(text, needed.max(slip) / scale);
        read.max(slip)
    }

    /// Junk is random writing that happens to read as the best path: that text's likelihood,
    /// at the price of a miswritten cell and of each random character (as for typed cells).
    fn unreadable_log_likelihood(&self, scale: f32) -> f32 {
        let random_text = RANDOM_CHAR_LOG_LIKELIHOOD * (self.text.chars().count() + 1) as f32;
        MISWRITTEN_CELL_LOG_PROB + random_text + scale * self.text_log_likelihood
    }
}

/// Shards of a cell's cache of scored texts ([`CtcCell`]).
const SCORED_SHARDS: usize = 16;

/// Texts scored in one cell, each with its value and the `needed` it was computed for, by
/// its key ([`CtcCell::packed`]): 16 bytes an entry.
type ScoredTexts = Mutex<FxHashMap<u64, (f32, f32)>>;

/// Texts kept frame by frame when a cell is read in its sheet's letters ([`CtcCell::text_in`]):
/// on the generated validation cells and the real-dev cells, beams of 4 and 20 read as 10
/// does within 0.05 points.
pub const READING_BEAM: usize = 10;

/// The weight [`CtcCell::new`] gives the reader's evidence.
pub const DEFAULT_EVIDENCE_SCALE: f32 = 1.0;

impl CtcCell {
    pub fn new(posteriors: Posteriors) -> CtcCell {
        CtcCell::of_readings(Reading::new(posteriors), None, DEFAULT_EVIDENCE_SCALE)
    }

    /// A cell read in its own box and, where the writing runs on, over its border, with no
    /// score kept yet.
    fn of_readings(own: Reading, overrun: Option<Reading>, scale: f32) -> CtcCell {
        CtcCell {
            own,
            overrun: overrun.map(Box::new),
            scored: Box::new(std::array::from_fn(|_| Mutex::new(FxHashMap::default()))),
            scale,
        }
    }

    /// The same cell also read in a window widened over its right border (`widened`, by the
    /// same reader, its own box's reading taken): each candidate is then scored in the
    /// window that shows it better. Scores kept so far were found in the own box alone:
    /// none is kept.
    pub fn with_overrun(self, widened: CtcCell) -> CtcCell {
        CtcCell::of_readings(self.own, Some(widened.own), self.scale)
    }

    /// The same cell with its evidence weighted by `scale` (> 0).
    pub fn with_scale(self, scale: f32) -> CtcCell {
        CtcCell {
            scale: scale.max(1e-3),
            ..self
        }
    }

    /// The cell as a writer with known confusions meant it ([`Posteriors::through`]), in
    /// each window it was read in, with the same weight.
    pub fn through(&self, means: &[Vec<(usize, f64)>]) -> Result<CtcCell, String> {
        self.with_posteriors(|posteriors| posteriors.through(means))
    }

    /// The same readings, with none of their scores kept yet.
    pub fn unscored(&self) -> CtcCell {
        match self.with_posteriors(|p| Ok::<_, std::convert::Infallible>(p.clone())) {
            Ok(cell) => cell,
            Err(never) => match never {},
        }
    }

    /// The cell with each window's posteriors made by `make` from its own, weighted as it is.
    fn with_posteriors<E>(
        &self,
        make: impl Fn(&Posteriors) -> Result<Posteriors, E>,
    ) -> Result<CtcCell, E> {
        let own = Reading::new(make(&self.own.posteriors)?);
        let overrun = match &self.overrun {
            Some(overrun) => Some(Reading::new(make(&overrun.posteriors)?)),
            None => None,
        };
        Ok(CtcCell::of_readings(own, overrun, self.scale))
    }

    /// The reading shown for the cell: its own box's, unless that box holds nothing the
    /// reader can read and the writing runs on past its border.
    fn shown(&self) -> &Reading {
        match &self.overrun {
            Some(overrun) if self.own.text.is_empty() => overrun,
            _ => &self.own,
        }
    }

    /// Whether the cell was also read over its right border ([`CtcCell::with_overrun`]).
    pub fn read_over_border(&self) -> bool {
        self.overrun.is_some()
    }

    /// The best path's probability (summed over its alignments), in 0..=1.
    pub fn text_confidence(&self) -> f32 {
        self.shown().text_log_likelihood.exp()
    }

    /// The likeliest text in the piece letters of `lang` ([`Posteriors::likeliest_text_in`]),
    /// the reading of a cell whose sheet's language is known, with its probability (summed
    /// over its alignments), in 0..=1.
    pub fn text_in(&self, lang: &Language) -> (String, f32) {
        let posteriors = &self.shown().posteriors;
        let text = posteriors.likeliest_text_in(|c| lang.writes(c), READING_BEAM);
        let chars: Vec<char> = text.chars().collect();
        let probability = posteriors.log_likelihood(&chars).exp();
        (text, probability)
    }

    /// The posteriors of the reading shown for the cell.
    pub fn posteriors(&self) -> &Posteriors {
        &self.shown().posteriors
    }

    fn readings(&self) -> impl Iterator<Item = &Reading> {
        std::iter::once(&self.own).chain(self.overrun.as_deref())
    }
}

impl CtcCell {
    /// The likelihood that the player meant `body` + `mark` but wrote the best path, in the
    /// window that makes it likelier ([`Reading::slip_log_likelihood`]).
    #[cfg(test)]
    fn slip_log_likelihood(&self, body: &[char], mark: &str, needed: f32) -> f32 {
        self.readings()
            .map(|r| r.slip_log_likelihood(body, mark, needed, self.scale))
            .fold(f32::NEG_INFINITY, f32::max)
    }

    /// `text` as the key of its score: its characters' classes, in as many bits each as the
    /// largest class needs (every class is above 0, so texts of different lengths differ).
    /// `None` for a text too long for 64 bits (more than 9 characters with the shipped
    /// reader's 73 classes: only a few long-algebraic promotions and `e.p.` captures with a
    /// check mark), or one with a character the model does not read; such a text is scored
    /// each time it is asked for.
    fn packed(&self, text: &[char]) -> Option<u64> {
        let charset = &self.own.posteriors.charset;
        let bits = usize::BITS - (charset.classes() - 1).leading_zeros();
        if text.len() * bits as usize > 64 {
            return None;
        }
        text.iter().try_fold(0u64, |key, &c| {
            Some(key << bits | u64::try_from(charset.class(c)?).ok()?)
        })
    }

    /// The likelier of reading `text` (`body` + `mark`) and of a slip for it, in the window
    /// that shows it better.
    fn score_text(&self, body: &[char], mark: &str, text: &[char], needed: f32) -> f32 {
        let own = self.own.score_text(body, mark, text, needed, self.scale);
        match &self.overrun {
            Some(overrun) => {
                own.max(overrun.score_text(body, mark, text, needed.max(own), self.scale))
            }
            None => own,
        }
    }

    /// The CTC likelihood of `text` (a written form with its check mark) in the cell's own
    /// box, scaled; a value at or below `needed` is only an upper bound.
    #[cfg(test)]
    fn ctc_log_likelihood(&self, text: &[char], needed: f32) -> f32 {
        self.scale
            * self
                .own
                .posteriors
                .log_likelihood_above(text, needed / self.scale)
    }
}

impl CellEvidence for CtcCell {
    /// The likelier of the two ways the cell can show the candidate: written as such and read
    /// (CTC), or the best path written by a slip for it (a max, not a sum: the two overlap
    /// where the best path is the candidate).
    fn log_likelihood(&self, body: &[char], mark: &str, needed: f32) -> f32 {
        // The text on the stack: most calls find it scored, and need no allocation.
        let mut on_stack = ['\0'; 24];
        let mut on_heap = Vec::new();
        let text: &[char] = if body.len() + mark.len() <= on_stack.len() {
            let mut len = 0;
            for (slot, c) in on_stack
                .iter_mut()
                .zip(body.iter().copied().chain(mark.chars()))
            {
                *slot = c;
                len += 1;
            }
            &on_stack[..len]
        } else {
            on_heap.extend_from_slice(body);
            on_heap.extend(mark.chars());
            &on_heap
        };
        let Some(key) = self.packed(text) else {
            return self.score_text(body, mark, text, needed);
        };
        let shard = &self.scored[{
            let mut hasher = rustc_hash::FxHasher::default();
            key.hash(&mut hasher);
            // Middle bits: the map itself places keys by the low bits and tags them by the
            // high ones, which a shard's keys should not all share.
            (hasher.finish() >> 32) as usize % SCORED_SHARDS
        }];
        if let Ok(scored) = shard.lock() {
            if let Some(&(value, computed_for)) = scored.get(&key) {
                if value > computed_for || needed >= computed_for {
                    return value;
                }
            }
        }
        let value = self.score_text(body, mark, text, needed);
        if let Ok(mut scored) = shard.lock() {
            scored.insert(key, (value, needed));
        }
        value
    }

    /// Junk is random writing that happens to read as the best path: that text's likelihood,
    /// at the price of a miswritten cell and of each random character (as for typed cells),
    /// in the window that makes it likelier.
    fn unreadable_log_likelihood(&self) -> f32 {
        self.readings()
            .map(|r| r.unreadable_log_likelihood(self.scale))
            .fold(f32::NEG_INFINITY, f32::max)
    }

    fn is_illegible(&self) -> bool {
        self.readings().all(|r| r.text.is_empty())
    }

    fn text(&self) -> &str {
        &self.shown().text
    }

    fn first_characters(&self) -> Option<Vec<(char, f32)>> {
        Some(self.shown().posteriors.first_characters())
    }

    fn draw_offer(&self) -> bool {
        self.readings().any(|r| r.text.contains("(=)"))
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

    /// A cell whose first character the reader splits between `first`'s letters, then reads
    /// `rest` at 0.9 (each character in two frames with a blank between, as [`read_as`]); the
    /// rest of each frame is spread evenly.
    fn cell_beginning_with(charset: &Arc<Charset>, first: &[(char, f32)], rest: &str) -> CtcCell {
        let classes = charset.classes();
        let mut logs = Vec::new();
        let mut frame = |shares: &[(usize, f32)]| {
            let shared: f32 = shares.iter().map(|&(_, p)| p).sum();
            let spread = ((1.0 - shared) / (classes - shares.len()) as f32).ln();
            logs.extend((0..classes).map(|class| {
                shares
                    .iter()
                    .find(|&&(c, _)| c == class)
                    .map_or(spread, |&(_, p)| p.ln())
            }));
        };
        let class = |c: char| charset.class(c).expect("in the charset");
        frame(&[(0, 0.9)]);
        let first: Vec<(usize, f32)> = first.iter().map(|&(c, p)| (class(c), p)).collect();
        frame(&first);
        frame(&[(0, 0.9)]);
        for c in rest.chars() {
            frame(&[(class(c), 0.9)]);
            frame(&[(class(c), 0.9)]);
            frame(&[(0, 0.9)]);
        }
        CtcCell::new(Posteriors::new(Arc::clone(charset), logs).unwrap())
    }

    #[test]
    fn a_capital_the_reader_ranks_second_still_speaks_for_its_language() {
        let chars: Vec<char> = "abcdefgh12345678ŞVKFAԱԹՆՓՁx".chars().collect();
        let charset = Arc::new(Charset::new(&chars).unwrap());
        // A Turkish hand whose knight `A` the reader takes for the Armenian bishop `Փ` a
        // little more often than not; its queen `V` and bishop `F` are read as such.
        let knight = [('Փ', 0.5), ('A', 0.4)];
        let cells = vec![
            cell_beginning_with(&charset, &knight, "f3"),
            cell_beginning_with(&charset, &knight, "c3"),
            cell_beginning_with(&charset, &knight, "xd4"),
            cell_beginning_with(&charset, &[('V', 0.9)], "a4"),
            cell_beginning_with(&charset, &[('F', 0.9)], "e2"),
            CtcCell::new(read_as(&charset, "e4", 0.9)),
        ];
        assert_eq!(cells[0].text(), "Փf3");
        let rank = |code: &str| {
            crate::decode::rank_languages_by_letters(&cells)
                .iter()
                .position(|(_, lang)| lang.code == code)
                .unwrap()
        };
        assert!(rank("tr") < rank("hy"), "{} vs {}", rank("tr"), rank("hy"));
        // Read by their best paths alone, the cells' capitals are Armenian three times in five.
        let typed: Vec<TypedCell> = cells.iter().map(|c| TypedCell::new(c.text())).collect();
        let by_text = crate::decode::rank_languages_by_letters(&typed);
        let typed_rank = |code: &str| by_text.iter().position(|(_, l)| l.code == code).unwrap();
        assert!(typed_rank("hy") < typed_rank("tr"));
    }

    #[test]
    fn a_clear_slip_of_the_pen_costs_the_typed_channel_price_not_unseen_ink() {
        let chars: Vec<char> = "abcdefgh12345678KQRBNxO-+#=".chars().collect();
        let charset = Arc::new(Charset::new(&chars).unwrap());
        let cell = CtcCell::new(read_as(&charset, "Bf5", 0.99));
        let chars_of = |text: &str| text.chars().collect::<Vec<char>>();
        let lowest = f32::NEG_INFINITY;

        // Bg5 written as "Bf5": the reader saw no g, so CTC alone all but rules it out; as a
        // one-square slip it stays a candidate the rest of the game can choose.
        let meant = chars_of("Bg5");
        let read_as_written = cell.ctc_log_likelihood(&meant, lowest);
        let as_slip = cell.slip_log_likelihood(&meant, "", lowest);
        assert!(
            as_slip > read_as_written + 3.0,
            "{as_slip} vs {read_as_written}"
        );
        assert_eq!(cell.log_likelihood(&meant, "", lowest), as_slip);

        // What was clearly written is still far likelier than any slip for it.
        let written = cell.log_likelihood(&chars_of("Bf5"), "", lowest);
        assert_eq!(written, cell.ctc_log_likelihood(&chars_of("Bf5"), lowest));
        assert!(written > as_slip + 3.0, "{written} vs {as_slip}");

        // A blank cell has no slip to offer.
        let blank = CtcCell::new(read_as(&charset, "", 0.9));
        assert_eq!(
            blank.slip_log_likelihood(&meant, "", lowest),
            f32::NEG_INFINITY
        );
    }

    #[test]
    fn a_move_run_over_the_border_is_scored_in_the_window_that_shows_it() {
        let chars: Vec<char> = "abcdefgh12345678KQRBNxO-+#=".chars().collect();
        let charset = Arc::new(Charset::new(&chars).unwrap());
        let chars_of = |text: &str| text.chars().collect::<Vec<char>>();
        let lowest = f32::NEG_INFINITY;
        let score = |cell: &CtcCell, text: &str| cell.log_likelihood(&chars_of(text), "", lowest);
        // "Nf3+" cut at the border ("Nf") and read whole past it.
        let cut = || CtcCell::new(read_as(&charset, "Nf", 0.9));
        let cell = cut().with_overrun(CtcCell::new(read_as(&charset, "Nf3+", 0.9)));
        assert_eq!(cell.text(), "Nf");
        assert!(cell.read_over_border());
        let whole = CtcCell::new(read_as(&charset, "Nf3+", 0.9));
        let (one, other) = (cut(), whole);
        for text in ["Nf3+", "Nf", "Nf3", "Bf3", "e4"] {
            let best = score(&one, text).max(score(&other, text));
            assert_eq!(score(&cell, text), best, "{text}");
        }
        assert!(score(&cell, "Nf3+") > score(&cut(), "Nf3+") + 5.0);
        assert_eq!(
            cell.unreadable_log_likelihood(),
            one.unreadable_log_likelihood()
                .max(other.unreadable_log_likelihood())
        );

        // A box read as nothing shows the reading past its border, and is not illegible.
        let empty_box = CtcCell::new(read_as(&charset, "", 0.9));
        assert!(empty_box.is_illegible());
        let past = empty_box.with_overrun(CtcCell::new(read_as(&charset, "e4", 0.9)));
        assert_eq!(past.text(), "e4");
        assert!(!past.is_illegible());

        // Through a writer's confusions (here none), both windows are kept and weighted alike.
        let scaled = cut()
            .with_overrun(CtcCell::new(read_as(&charset, "Nf3+", 0.9)))
            .with_scale(0.5);
        let again = scaled.through(&[]).unwrap();
        assert!(again.read_over_border());
        assert!((score(&again, "Nf3+") - score(&scaled, "Nf3+")).abs() < 1e-4);
        assert_eq!(score(&scaled.unscored(), "Nf3+"), score(&scaled, "Nf3+"));
    }

    #[test]
    fn a_kept_score_is_the_score_for_every_bar_and_every_text_keeps_its_own() {
        let chars: Vec<char> = "abcdefgh12345678KQRBNxO-+#=".chars().collect();
        let charset = Arc::new(Charset::new(&chars).unwrap());
        let cell = CtcCell::new(read_as(&charset, "Nf3+", 0.9));
        let fresh = || CtcCell::new(read_as(&charset, "Nf3+", 0.9));
        let chars_of = |text: &str| text.chars().collect::<Vec<char>>();
        // Texts sharing their first characters, one longer than a key holds and one with
        // characters the reader does not know (neither is kept), each asked for first with a
        // bar above its score (a bound is kept), then with none.
        let texts = [
            ("Nf3", "+"),
            ("Nf3", ""),
            ("Nf", "3+"),
            ("N", "f3+"),
            ("Nf5", "+"),
            ("Nb1-c3xd5=Q-e2-e4", "+"),
            ("exd6e.p.", ""),
        ];
        for (body, mark) in texts {
            let body = chars_of(body);
            let exact = fresh().log_likelihood(&body, mark, f32::NEG_INFINITY);
            let above = cell.log_likelihood(&body, mark, exact + 1.0);
            assert!(above <= exact + 1.0, "{body:?}{mark}: {above} vs {exact}");
            let again = cell.log_likelihood(&body, mark, f32::NEG_INFINITY);
            assert_eq!(again, exact, "{body:?}{mark}");
            assert_eq!(cell.log_likelihood(&body, mark, exact - 1.0), exact);
        }
        assert!(
            cell.log_likelihood(&chars_of("Nf3"), "+", f32::NEG_INFINITY)
                > cell.log_likelihood(&chars_of("Nf3"), "", f32::NEG_INFINITY) + 1.0
        );
    }

    #[test]
    fn every_text_a_key_holds_has_its_own_key() {
        // 27 characters, 28 classes with the blank: 5 bits a character, 12 in a key.
        let chars: Vec<char> = "abcdefgh12345678KQRBNxO-+#=".chars().collect();
        let charset = Arc::new(Charset::new(&chars).unwrap());
        let cell = CtcCell::new(read_as(&charset, "Nf3+", 0.9));
        let mut texts: Vec<Vec<char>> = vec![Vec::new()];
        for _ in 0..3 {
            let longer: Vec<Vec<char>> = texts
                .iter()
                .flat_map(|t| chars.iter().map(move |&c| [t.as_slice(), &[c]].concat()))
                .collect();
            texts.extend(longer);
        }
        texts.sort();
        texts.dedup();
        let keys: std::collections::HashSet<u64> = texts
            .iter()
            .map(|t| cell.packed(t).expect("short texts are kept"))
            .collect();
        assert_eq!(keys.len(), texts.len());
        let longest: Vec<char> = "#=Nb1xc3=Q+#".chars().collect();
        assert_eq!(longest.len(), 12);
        let key = cell.packed(&longest).expect("twelve characters fit");
        assert_ne!(Some(key), cell.packed(&longest[1..]));
        assert_eq!(cell.packed(&[longest.as_slice(), &['+']].concat()), None);
        assert_eq!(cell.packed(&['N', 'ф', '3']), None);
    }
}
