//! Handwriting: one writer's hand (letter shapes, size, slant, spacing, pen, ink), drawing the
//! text of a cell character by character from real handwritten glyphs or a handwriting font.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ab_glyph::{Font, FontArc, PxScale};

use super::glyphs::{placement, GlyphBank, InkMask, MaterialError, Part, Placement};
use super::ink::{Affine, InkLayer, Wobble};
use super::rng::Rng;

/// The handwriting fonts DEVELOPERS.md and shared/data allow for synthetic data, as installed by
/// Debian's packages (`scripts/setup`). The fonts reserved for evaluation are never listed here.
pub const HANDWRITING_FONT_DIRS: &[&str] = &[
    "truetype/seto",
    "truetype/kiloji",
    "truetype/klee",
    "truetype/yozvox-yozfont",
    "opentype/comic-neue",
    "opentype/dancingscript",
    "truetype/ecolier-court",
    "opentype/kaushanscript",
    "truetype/humor-sans",
    "truetype/rufscript",
    "opentype/bwht",
    "truetype/cabinsketch",
    "opentype/havana",
    "opentype/joscelyn",
    "truetype/leckerli-one",
    "opentype/lobster",
    "truetype/yusei-magic",
    "truetype/kristi",
];

/// Font families kept out of training the reader, so that its validation shows hands it never
/// saw: one that covers Cyrillic and three Latin-only ones.
pub const VALIDATION_FONT_FAMILIES: &[&str] = &["kiloji", "kristi", "havana", "humor-sans"];

/// The printed face of the forms (Debian's fonts-dejavu-core).
pub const PRINTED_FONT: &str = "truetype/dejavu/DejaVuSans.ttf";
pub const PRINTED_BOLD_FONT: &str = "truetype/dejavu/DejaVuSans-Bold.ttf";

/// Capital height, in pixels, that font glyphs are rasterized at before a writer scales them.
const FONT_CAP_PX: f32 = 48.0;

/// A character rasterized from a font, placed like a handwritten glyph.
#[derive(Debug, Clone)]
struct FontGlyph {
    mask: InkMask,
    placement: Placement,
    /// Left side bearing in capital heights.
    left: f32,
}

/// One handwriting font with the characters of every notation pre-rasterized.
#[derive(Debug, Clone)]
pub struct HandFont {
    pub name: String,
    glyphs: HashMap<char, FontGlyph>,
}

impl HandFont {
    fn rasterize(name: String, font: &FontArc, charset: &[char]) -> Option<HandFont> {
        let probe = font.outline_glyph(font.glyph_id('H').with_scale(100.0))?;
        let cap_at_100 = -probe.px_bounds().min.y;
        if cap_at_100 < 1.0 {
            return None;
        }
        let scale = PxScale::from(100.0 * FONT_CAP_PX / cap_at_100);
        let mut glyphs = HashMap::new();
        for &c in charset {
            let id = font.glyph_id(c);
            if id.0 == 0 {
                continue;
            }
            let Some(outlined) = font.outline_glyph(id.with_scale(scale)) else {
                continue;
            };
            let bounds = outlined.px_bounds();
            let (w, h) = (bounds.width().ceil() as u32, bounds.height().ceil() as u32);
            if w == 0 || h == 0 {
                continue;
            }
            let mut alpha = vec![0u8; (w * h) as usize];
            outlined.draw(|x, y, coverage| {
                if x < w && y < h {
                    alpha[(y * w + x) as usize] = (coverage.clamp(0.0, 1.0) * 255.0) as u8;
                }
            });
            glyphs.insert(
                c,
                FontGlyph {
                    mask: InkMask {
                        width: w,
                        height: h,
                        alpha,
                    },
                    placement: Placement {
                        top: -bounds.min.y / FONT_CAP_PX,
                        bottom: -bounds.max.y / FONT_CAP_PX,
                        width: None,
                    },
                    left: bounds.min.x / FONT_CAP_PX,
                },
            );
        }
        Some(HandFont { name, glyphs })
    }
}

/// Everything handwriting is made of: real glyphs, handwriting fonts, and the printed face.
#[derive(Clone)]
pub struct Scripts {
    pub bank: GlyphBank,
    pub fonts: Vec<HandFont>,
    pub printed: FontArc,
    pub printed_bold: FontArc,
}

fn load_font(path: &Path) -> Result<FontArc, MaterialError> {
    let bytes = std::fs::read(path).map_err(|e| {
        MaterialError(format!(
            "{}: {e} (run scripts/setup, which installs the fonts)",
            path.display()
        ))
    })?;
    FontArc::try_from_vec(bytes)
        .map_err(|e| MaterialError(format!("{}: not a usable font: {e}", path.display())))
}

impl Scripts {
    /// Loads the printed face and every allowed handwriting font found under `font_root`
    /// (`/usr/share/fonts`), rasterizing `charset` in each.
    pub fn load(
        bank: GlyphBank,
        font_root: &Path,
        charset: &[char],
    ) -> Result<Scripts, MaterialError> {
        let printed = load_font(&font_root.join(PRINTED_FONT))?;
        let printed_bold = load_font(&font_root.join(PRINTED_BOLD_FONT))?;
        let mut paths: Vec<PathBuf> = Vec::new();
        for dir in HANDWRITING_FONT_DIRS {
            let Ok(entries) = std::fs::read_dir(font_root.join(dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("ttf") || e.eq_ignore_ascii_case("otf"))
                {
                    paths.push(path);
                }
            }
        }
        paths.sort();
        let fonts = paths
            .iter()
            .filter_map(|path| {
                let font = load_font(path).ok()?;
                let name = path.file_stem()?.to_string_lossy().into_owned();
                HandFont::rasterize(name, &font, charset)
            })
            .collect();
        Ok(Scripts {
            bank,
            fonts,
            printed,
            printed_bold,
        })
    }
}

impl Scripts {
    /// The characters of `text` that neither a glyph sample nor a handwriting font can draw:
    /// a writer would leave them out.
    pub fn undrawable(&self, text: &str) -> Vec<char> {
        let drawable = |c: char| {
            !self.bank.samples(c).is_empty() || self.fonts.iter().any(|f| f.glyphs.contains_key(&c))
        };
        let mut missing: Vec<char> = text
            .chars()
            .filter(|&c| c != ' ')
            .filter(|&c| {
                let drawable = |part: char| {
                    drawable(part)
                        || decomposed(part)
                            .is_some_and(|(base, mark)| drawable(base) && drawable(mark.drawn_as()))
                };
                match built_from_strokes(c) {
                    Some(parts) => !parts.iter().all(|&(part, _)| drawable(part)),
                    None => !drawable(c),
                }
            })
            .collect();
        missing.sort_unstable();
        missing.dedup();
        missing
    }

    /// Keeps the glyph samples and handwriting fonts of one [`Part`] (see
    /// [`VALIDATION_FONT_FAMILIES`] and [`GlyphBank::part`]).
    pub fn part(self, part: Part) -> Scripts {
        let fonts = self
            .fonts
            .into_iter()
            .filter(|font| {
                let name = font.name.to_lowercase();
                let held_out = VALIDATION_FONT_FAMILIES
                    .iter()
                    .any(|family| name.starts_with(family));
                match part {
                    Part::All => true,
                    Part::Training => !held_out,
                    Part::Validation => held_out,
                }
            })
            .collect();
        Scripts {
            bank: self.bank.part(part),
            fonts,
            ..self
        }
    }
}

/// Where a writer's letters come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LetterSource {
    /// Real handwritten glyphs; characters without samples come from the companion font.
    Glyphs {
        companion: usize,
    },
    Font(usize),
}

/// Where in its cell a writer puts the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Centre,
    Right,
    Anywhere,
}

/// One writer's hand, kept for a whole sheet.
#[derive(Debug, Clone)]
pub struct Hand {
    pub source: LetterSource,
    /// Capital height as a share of the cell's height.
    pub size: f32,
    /// Horizontal shear (positive leans right).
    pub slant: f32,
    /// Gap between letters, in capital heights.
    pub spacing: f32,
    /// Up to this much more (capital heights, drawn afresh for every gap): some writers
    /// space their letters unevenly, `Rx   a3`, `Nc  3`.
    pub gap_jitter: f32,
    /// Pen darkening at stroke edges (1 = as the glyph was drawn).
    pub pen_gain: f32,
    pub pen_broad: bool,
    /// Share of a glyph's soft stroke edge a fine pen leaves out (0 = as drawn): the glyph
    /// samples are photographed felt-tip letters, while most scoresheets are filled in with a
    /// ballpoint, whose strokes are about half as wide on a real scan.
    pub pen_cut: f32,
    pub ink: [u8; 3],
    pub opacity: f32,
    /// Random size, position and rotation changes from letter to letter.
    pub jitter: f32,
    /// Elastic wobble, in glyph pixels.
    pub wobble: f32,
    pub align: Align,
    /// Letters this writer builds the way some schools teach them (see [`SchoolForms`]).
    pub school: SchoolForms,
    /// Which of a character's samples the writer uses (their own way of writing it).
    allograph_seed: u64,
}

/// Letter forms many school hands use and the glyph samples lack, each built from other
/// letters' samples: a `d` made of a `c` and a tall stem, a `B` of a stem and a `3`, an `h` of
/// a stem and an `n`, an `f` whose stem runs below the baseline or that loops above and below
/// it, a `4` open at the top like a `y`, a `K` written as a lowercase `k`, an `x` as two arcs
/// back to back. Real scoresheets are full of them, and a reader that never saw them reads
/// `f4` as `g4`, `d5` as `a5` and `Ke7` as `he7`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SchoolForms {
    pub d_as_c_and_stem: bool,
    pub b_as_stem_and_3: bool,
    pub h_as_stem_and_n: bool,
    pub f: SchoolF,
    pub open_4: bool,
    /// A king written as a lowercase `k`, which readers take for an `h`.
    pub k_as_lowercase: bool,
    /// A capture mark written as two arcs back to back, `ɔc`, as cursive hands make an `x`.
    pub x_as_two_arcs: bool,
}

/// How a writer makes an `f`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchoolF {
    /// As the glyph samples do: a hook on top, the stem standing on the baseline.
    #[default]
    Printed,
    /// The stem runs down through the baseline.
    BelowBaseline,
    /// A loop above and a loop below the baseline, like a stem-and-loop `l` over its mirror.
    Looped,
}

/// One part of a letter built from another letter's sample.
struct Piece {
    letter: char,
    at: At,
    /// Where the part sits instead of where its letter does.
    placement: Option<Placement>,
    flip: Flip,
}

/// Where a piece goes along the line.
#[derive(Clone, Copy)]
enum At {
    /// Right of the piece before, overlapping it by this share of a capital height.
    Beside(f32),
    /// Where the piece before starts, above or below it.
    Stacked,
}

const fn piece(letter: char, at: At, placement: Option<Placement>, flip: Flip) -> Piece {
    Piece {
        letter,
        at,
        placement,
        flip,
    }
}

const fn span(top: f32, bottom: f32) -> Option<Placement> {
    Some(Placement {
        top,
        bottom,
        width: None,
    })
}

const D_AS_C_AND_STEM: &[Piece] = &[
    piece('c', At::Beside(0.0), None, Flip::None),
    piece('l', At::Beside(0.12), None, Flip::None),
];
const B_AS_STEM_AND_3: &[Piece] = &[
    piece('l', At::Beside(0.0), None, Flip::None),
    piece('3', At::Beside(0.08), None, Flip::None),
];
const H_AS_STEM_AND_N: &[Piece] = &[
    piece('l', At::Beside(0.0), None, Flip::None),
    piece('n', At::Beside(0.15), None, Flip::None),
];
const F_BELOW_BASELINE: &[Piece] = &[piece('f', At::Beside(0.0), span(1.02, -0.4), Flip::None)];
const F_LOOPED: &[Piece] = &[
    piece('l', At::Beside(0.0), span(1.02, 0.05), Flip::None),
    piece('l', At::Stacked, span(0.2, -0.45), Flip::Vertical),
];
const OPEN_4: &[Piece] = &[piece('y', At::Beside(0.0), span(1.0, 0.0), Flip::None)];
const K_AS_LOWERCASE: &[Piece] = &[piece('k', At::Beside(0.0), None, Flip::None)];
const X_AS_TWO_ARCS: &[Piece] = &[
    piece('c', At::Beside(0.0), None, Flip::Horizontal),
    piece('c', At::Beside(0.05), None, Flip::None),
];

impl SchoolForms {
    /// Drawn from the writer's own seed, so a hand's other habits stay what they were.
    fn random(rng: &mut Rng) -> SchoolForms {
        SchoolForms {
            d_as_c_and_stem: rng.chance(0.25),
            b_as_stem_and_3: rng.chance(0.12),
            h_as_stem_and_n: rng.chance(0.2),
            f: match rng.below(20) {
                0..=8 => SchoolF::Printed,
                9..=14 => SchoolF::BelowBaseline,
                _ => SchoolF::Looped,
            },
            open_4: rng.chance(0.2),
            // Drawn last, so that the forms above stay what they were for every hand.
            k_as_lowercase: rng.chance(0.15),
            x_as_two_arcs: rng.chance(0.15),
        }
    }

    /// The pieces this writer builds `c` from, if it is one of their school forms.
    fn pieces(self, c: char) -> Option<&'static [Piece]> {
        match c {
            'd' if self.d_as_c_and_stem => Some(D_AS_C_AND_STEM),
            'B' if self.b_as_stem_and_3 => Some(B_AS_STEM_AND_3),
            'h' if self.h_as_stem_and_n => Some(H_AS_STEM_AND_N),
            'f' if self.f == SchoolF::BelowBaseline => Some(F_BELOW_BASELINE),
            'f' if self.f == SchoolF::Looped => Some(F_LOOPED),
            '4' if self.open_4 => Some(OPEN_4),
            'K' if self.k_as_lowercase => Some(K_AS_LOWERCASE),
            'x' if self.x_as_two_arcs => Some(X_AS_TWO_ARCS),
            _ => None,
        }
    }
}

/// Inks people fill in scoresheets with.
const INKS: &[([u8; 3], f32, f32)] = &[
    // colour, opacity, how common
    ([22, 38, 130], 0.95, 0.38), // blue ballpoint
    ([28, 28, 34], 0.95, 0.30),  // black
    ([18, 24, 80], 0.95, 0.12),  // dark blue
    ([85, 85, 92], 0.75, 0.12),  // pencil
    ([165, 30, 35], 0.92, 0.05), // red
    ([25, 100, 60], 0.92, 0.03), // green
];

impl Hand {
    pub fn random(scripts: &Scripts, rng: &mut Rng) -> Hand {
        let fonts = scripts.fonts.len();
        let source = if fonts == 0 || rng.chance(0.6) {
            LetterSource::Glyphs {
                companion: rng.below(fonts.max(1)),
            }
        } else {
            LetterSource::Font(rng.below(fonts))
        };
        let weights: Vec<f64> = INKS.iter().map(|i| i.2 as f64).collect();
        let (ink, opacity, _) = INKS[rng.weighted(&weights)];
        let mut hand = Hand {
            source,
            size: 0.48 + rng.unit() as f32 * 0.3,
            slant: (rng.unit() as f32 - 0.35) * 0.5,
            spacing: -0.04 + rng.unit() as f32 * 0.3,
            gap_jitter: 0.0,
            pen_gain: 1.0 + rng.unit() as f32 * 1.2,
            pen_broad: rng.chance(0.3),
            pen_cut: 0.0,
            ink,
            opacity: opacity * (0.85 + rng.unit() as f32 * 0.15),
            jitter: 0.02 + rng.unit() as f32 * 0.1,
            wobble: rng.unit() as f32 * 1.5,
            align: match rng.below(10) {
                0..=3 => Align::Left,
                4..=6 => Align::Centre,
                7 => Align::Right,
                _ => Align::Anywhere,
            },
            school: SchoolForms::default(),
            allograph_seed: rng.next_u64(),
        };
        // A font has its own letter forms; the school forms are built from glyph samples.
        if matches!(hand.source, LetterSource::Glyphs { .. }) {
            hand.school =
                SchoolForms::random(&mut Rng::new(hand.allograph_seed ^ 0x5C40_01F0_4A5D_0001));
        }
        // The pen is drawn from the hand's own seed, so the rest of a sheet's randomness is
        // what it was before fine pens were added.
        let mut pen = Rng::new(hand.allograph_seed ^ 0x5EED_F1E0_0BA1_1B01);
        if pen.chance(0.45) {
            hand.pen_gain = 1.0 + (hand.pen_gain - 1.0) * 0.25;
            hand.pen_broad = false;
            hand.pen_cut = 0.25 + pen.unit() as f32 * 0.35;
        }
        // Likewise the spacing habit; a hand that spaces evenly draws nothing more per gap.
        let mut gaps = Rng::new(hand.allograph_seed ^ 0x6A95_0F1E_7E4B_0002);
        if gaps.chance(0.3) {
            hand.gap_jitter = 0.2 + gaps.unit() as f32 * 0.6;
        }
        hand
    }
}

/// A character ready to draw: its mask and where it sits.
struct Shape<'a> {
    mask: &'a InkMask,
    placement: Placement,
    left: f32,
}

fn choose<'a>(scripts: &'a Scripts, hand: &Hand, c: char, rng: &mut Rng) -> Option<Shape<'a>> {
    let from_font = |font: usize| {
        scripts
            .fonts
            .get(font)
            .and_then(|f| f.glyphs.get(&c))
            .map(|g| Shape {
                mask: &g.mask,
                placement: g.placement,
                left: g.left,
            })
    };
    let from_bank = |rng: &mut Rng| {
        let samples = scripts.bank.samples(c);
        (!samples.is_empty()).then(|| {
            // Each writer has one or two ways of writing a character and keeps to them.
            let habit = hand.allograph_seed ^ (c as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let variant = habit.wrapping_add(rng.below(2) as u64 * 0x2545_F491_4F6C_DD1D);
            Shape {
                mask: &samples[(variant % samples.len() as u64) as usize],
                placement: placement(c),
                left: 0.0,
            }
        })
    };
    let any_font = || (0..scripts.fonts.len()).find_map(from_font);
    match hand.source {
        LetterSource::Glyphs { companion } => from_bank(rng)
            .or_else(|| from_font(companion))
            .or_else(any_font),
        LetterSource::Font(font) => from_font(font).or_else(|| from_bank(rng)).or_else(any_font),
    }
}

/// The parts of a character players build from strokes, each with its lift (in capital
/// heights): a colon is two dots, `=` two dashes.
fn built_from_strokes(c: char) -> Option<&'static [(char, f32)]> {
    match c {
        ':' => Some(&[('·', 0.22), ('·', -0.22)]),
        '=' => Some(&[('-', 0.12), ('-', -0.12)]),
        _ => None,
    }
}

/// One character's place on the page, ready to draw.
struct Placed<'a> {
    mask: &'a InkMask,
    to_page: Affine,
    wobble: Wobble,
}

/// Lays out `text` in `hand` at capital height `cap` pixels, from a baseline starting at
/// (0, 0); returns the characters and the advance width.
fn lay_out<'a>(
    scripts: &'a Scripts,
    hand: &Hand,
    text: &str,
    cap: f32,
    rng: &mut Rng,
) -> (Vec<Placed<'a>>, f32) {
    let mut placed = Vec::new();
    let mut pen = 0.0f32;
    let mut drift = 0.0f32;
    let mut last_gap = 0.0f32;
    for c in text.chars() {
        if c == ' ' {
            pen += cap * 0.45;
            continue;
        }
        let single = [(c, 0.0)];
        let parts = built_from_strokes(c).unwrap_or(&single);
        let mut widest = 0.0f32;
        let size = 1.0 + hand.jitter * (rng.unit() as f32 * 2.0 - 1.0);
        drift += hand.jitter * cap * (rng.unit() as f32 * 2.0 - 1.0) * 0.5;
        drift = drift.clamp(-0.25 * cap, 0.25 * cap);
        if let Some(pieces) = hand.school.pieces(c) {
            let at = Pen {
                x: pen,
                drift,
                cap,
                size,
            };
            last_gap = gap(hand, cap, rng);
            pen = place_pieces(scripts, hand, pieces, at, &mut placed, rng) + last_gap;
            continue;
        }
        for &(part, lift) in parts {
            let pen_at = Pen {
                x: pen,
                drift,
                cap,
                size,
            };
            if let Some(shape) = choose(scripts, hand, part, rng) {
                let (letter, width) = place(hand, &shape, pen_at, lift, Flip::None, rng);
                placed.push(letter);
                widest = widest.max(width);
            } else if let Some((base, mark)) = decomposed(part) {
                // A hand with no shape for the accented letter writes the base letter and
                // adds the mark: the letter is never silently left out.
                let Some(shape) = choose(scripts, hand, base, rng) else {
                    continue;
                };
                let (letter, width) = place(hand, &shape, pen_at, lift, Flip::None, rng);
                placed.push(letter);
                widest = widest.max(width);
                if let Some(mut stroke) = choose(scripts, hand, mark.drawn_as(), rng) {
                    stroke.placement = mark.placement();
                    let mark_width = mark.placement().width.unwrap_or(0.0) * cap * size;
                    stroke.left = (shape.left * cap + (width - mark_width) / 2.0) / cap;
                    let (mark, _) = place(hand, &stroke, pen_at, lift, mark.flip(), rng);
                    placed.push(mark);
                }
            }
        }
        last_gap = gap(hand, cap, rng);
        pen += widest + last_gap;
    }
    (placed, (pen - last_gap).max(0.0))
}

/// The space a writer leaves after a letter, at capital height `cap` pixels.
fn gap(hand: &Hand, cap: f32, rng: &mut Rng) -> f32 {
    let uneven = if hand.gap_jitter > 0.0 {
        hand.gap_jitter * rng.unit() as f32
    } else {
        0.0
    };
    (hand.spacing + uneven) * cap
}

/// Places a letter built from other letters' samples (a writer's school form), its first
/// piece at `pen`; returns where the letter ends along the line.
fn place_pieces<'a>(
    scripts: &'a Scripts,
    hand: &Hand,
    pieces: &[Piece],
    pen: Pen,
    placed: &mut Vec<Placed<'a>>,
    rng: &mut Rng,
) -> f32 {
    let (mut start, mut end) = (pen.x, pen.x);
    for piece in pieces {
        let x = match piece.at {
            At::Beside(overlap) => end - overlap * pen.cap,
            At::Stacked => start,
        };
        if let Some(mut shape) = choose(scripts, hand, piece.letter, rng) {
            if let Some(placement) = piece.placement {
                shape.placement = placement;
            }
            let (part, width) = place(hand, &shape, Pen { x, ..pen }, 0.0, piece.flip, rng);
            placed.push(part);
            start = x;
            end = end.max(x + width);
        }
    }
    end
}

/// Where the pen is when a character is drawn: its advance along the baseline, the line's
/// drift, the capital height and the letter's size (all in pixels but the size, a factor).
#[derive(Clone, Copy)]
struct Pen {
    x: f32,
    drift: f32,
    cap: f32,
    size: f32,
}

/// How a shape is mirrored when it is drawn: a caron drawn upside down is a circumflex.
#[derive(Clone, Copy, PartialEq)]
enum Flip {
    None,
    Vertical,
    Horizontal,
}

/// Places `shape` at the pen, `lift` capital heights up; returns it and its width in pixels.
fn place<'a>(
    hand: &Hand,
    shape: &Shape<'a>,
    pen: Pen,
    lift: f32,
    flip: Flip,
    rng: &mut Rng,
) -> (Placed<'a>, f32) {
    let Pen { cap, size, .. } = pen;
    let mask = shape.mask;
    let p = shape.placement;
    let (mw, mh) = (mask.width as f32, mask.height as f32);
    let (scale, top) = match p.width {
        Some(width) => {
            let scale = width * cap * size / mw;
            let centre = (p.top + p.bottom) / 2.0 + lift;
            (scale, centre * cap + mh * scale / 2.0)
        }
        None => (
            (p.top - p.bottom) * cap * size / mh,
            (p.top + lift) * cap * size,
        ),
    };
    let rotation = hand.jitter * (rng.unit() as f32 * 2.0 - 1.0) * 0.8;
    let (sin, cos) = rotation.sin_cos();
    let mut x0 = pen.x + shape.left * cap;
    let mut y0 = -top + pen.drift;
    // Mask pixel (u, v) -> rotated and scaled (mirrored: u -> width - u or v -> height - v),
    // then sheared about the baseline.
    let (mut a, mut b, mut d, mut e) = (scale * cos, -scale * sin, scale * sin, scale * cos);
    match flip {
        Flip::None => {}
        Flip::Vertical => {
            (x0, y0) = (x0 + b * mh, y0 + e * mh);
            (b, e) = (-b, -e);
        }
        Flip::Horizontal => {
            (x0, y0) = (x0 + a * mw, y0 + d * mw);
            (a, d) = (-a, -d);
        }
    }
    let shear = hand.slant;
    let to_page = Affine {
        m: [a - shear * d, b - shear * e, x0 - shear * y0, d, e, y0],
    };
    let wobble = Wobble {
        amplitude: hand.wobble * (mh / 40.0).max(0.5),
        frequency: [
            0.08 + rng.unit() as f32 * 0.12,
            0.08 + rng.unit() as f32 * 0.12,
        ],
        phase: [
            rng.unit() as f32 * std::f32::consts::TAU,
            rng.unit() as f32 * std::f32::consts::TAU,
        ],
    };
    let placed = Placed {
        mask,
        to_page,
        wobble,
    };
    (placed, mw * scale + shape.left.max(0.0) * cap)
}

/// The marks of the accented piece letters (Esperanto Ĉ, Lithuanian Ž, Turkish Ş).
#[derive(Clone, Copy)]
enum Diacritic {
    Caron,
    Circumflex,
    Cedilla,
}

impl Diacritic {
    /// The handwritten character the mark is drawn from, shrunk and placed by [`Self::placement`].
    fn drawn_as(self) -> char {
        match self {
            Diacritic::Caron | Diacritic::Circumflex => 'v',
            Diacritic::Cedilla => 'c',
        }
    }

    fn flip(self) -> Flip {
        match self {
            Diacritic::Caron => Flip::None,
            Diacritic::Circumflex => Flip::Vertical,
            Diacritic::Cedilla => Flip::Horizontal,
        }
    }

    /// Above the capital for a caron or circumflex, under the baseline for a cedilla.
    fn placement(self) -> Placement {
        match self {
            Diacritic::Caron | Diacritic::Circumflex => Placement {
                top: 1.42,
                bottom: 1.1,
                width: Some(0.42),
            },
            Diacritic::Cedilla => Placement {
                top: -0.02,
                bottom: -0.3,
                width: Some(0.22),
            },
        }
    }
}

/// An accented letter as its base letter and mark.
fn decomposed(c: char) -> Option<(char, Diacritic)> {
    Some(match c {
        'Ž' => ('Z', Diacritic::Caron),
        'ž' => ('z', Diacritic::Caron),
        'Č' => ('C', Diacritic::Caron),
        'č' => ('c', Diacritic::Caron),
        'Š' => ('S', Diacritic::Caron),
        'š' => ('s', Diacritic::Caron),
        'Ĉ' => ('C', Diacritic::Circumflex),
        'ĉ' => ('c', Diacritic::Circumflex),
        'Ş' => ('S', Diacritic::Cedilla),
        'ş' => ('s', Diacritic::Cedilla),
        'Ç' => ('C', Diacritic::Cedilla),
        'ç' => ('c', Diacritic::Cedilla),
        _ => return None,
    })
}

/// Where text goes: the cell, and how the writer fits text into it.
#[derive(Debug, Clone, Copy)]
pub struct TextBox {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

/// Writes `text` into `layer` inside `cell` in `hand`. `spill` lets the text run over the
/// border (a hurried writer); otherwise it is squeezed to fit. Returns the ink box drawn, if any.
pub fn write_text(
    layer: &mut InkLayer,
    scripts: &Scripts,
    hand: &Hand,
    text: &str,
    cell: TextBox,
    spill: bool,
    rng: &mut Rng,
) -> Option<(f32, f32, f32, f32)> {
    let mut cap = cell.height * hand.size * (0.92 + rng.unit() as f32 * 0.16);
    let (mut glyphs, mut width) = lay_out(scripts, hand, text, cap, rng);
    let room = cell.width * 0.94;
    if !spill && width > room && width > 0.0 {
        cap *= room / width;
        (glyphs, width) = lay_out(scripts, hand, text, cap, rng);
    }
    if glyphs.is_empty() {
        return None;
    }
    let free = (cell.width - width).max(0.0);
    let margin = cell.width * 0.04;
    let x = cell.x
        + match hand.align {
            Align::Left => margin + rng.unit() as f32 * free.min(cell.width * 0.12),
            Align::Centre => free / 2.0 + (rng.unit() as f32 - 0.5) * free * 0.3,
            Align::Right => {
                (free - margin).max(0.0) - rng.unit() as f32 * free.min(cell.width * 0.1)
            }
            Align::Anywhere => rng.unit() as f32 * free,
        };
    let x = if spill {
        x + cell.width * (0.1 + rng.unit() as f32 * 0.2)
    } else {
        x
    };
    let centre_offset = (rng.unit() as f32 - 0.5) * 0.22 * cell.height;
    let baseline = cell.y + cell.height / 2.0 + cap * 0.45 + centre_offset;
    let shift = Affine {
        m: [1.0, 0.0, x, 0.0, 1.0, baseline],
    };
    let (mut lo_x, mut lo_y, mut hi_x, mut hi_y) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for g in &glyphs {
        let m = g.to_page.m;
        let to_page = Affine {
            m: [m[0], m[1], m[2] + shift.m[2], m[3], m[4], m[5] + shift.m[5]],
        };
        let broad;
        let mask = if hand.pen_broad && g.mask.height < 48 {
            broad = g.mask.dilated();
            &broad
        } else {
            g.mask
        };
        layer.draw_mask(mask, to_page, g.wobble, hand.pen_gain, hand.pen_cut);
        for (u, v) in [
            (0.0, 0.0),
            (mask.width as f32, 0.0),
            (0.0, mask.height as f32),
            (mask.width as f32, mask.height as f32),
        ] {
            let (px, py) = to_page.apply(u, v);
            lo_x = lo_x.min(px);
            hi_x = hi_x.max(px);
            lo_y = lo_y.min(py);
            hi_y = hi_y.max(py);
        }
    }
    Some((lo_x, lo_y, hi_x - lo_x, hi_y - lo_y))
}

/// An illegible scrawl across `cell`: a looping pen line.
pub fn scrawl(layer: &mut InkLayer, cell: TextBox, pen: f32, rng: &mut Rng) {
    let n = 30 + rng.below(40);
    let (x0, x1) = (
        cell.x + cell.width * (0.05 + rng.unit() as f32 * 0.2),
        cell.x + cell.width * (0.55 + rng.unit() as f32 * 0.4),
    );
    let mid = cell.y + cell.height * (0.4 + rng.unit() as f32 * 0.2);
    let amplitude = cell.height * (0.15 + rng.unit() as f32 * 0.2);
    let loops = 3.0 + rng.unit() as f32 * 6.0;
    let phase = rng.unit() as f32 * std::f32::consts::TAU;
    let points: Vec<(f32, f32)> = (0..n)
        .map(|i| {
            let t = i as f32 / (n - 1) as f32;
            let angle = t * loops * std::f32::consts::TAU + phase;
            (
                x0 + (x1 - x0) * t + angle.cos() * amplitude * 0.5,
                mid + angle.sin() * amplitude,
            )
        })
        .collect();
    layer.draw_stroke(&points, pen);
}

/// Strikes out the ink in `area` (x, y, w, h) as players cross out a move: one or two lines, or
/// a zigzag.
pub fn cross_out(layer: &mut InkLayer, area: (f32, f32, f32, f32), pen: f32, rng: &mut Rng) {
    let (x, y, w, h) = area;
    match rng.below(3) {
        0 => layer.draw_stroke(&[(x - 2.0, y + h * 0.55), (x + w + 2.0, y + h * 0.45)], pen),
        1 => {
            layer.draw_stroke(&[(x, y + h * 0.4), (x + w, y + h * 0.35)], pen);
            layer.draw_stroke(&[(x, y + h * 0.65), (x + w, y + h * 0.6)], pen);
        }
        _ => {
            let teeth = 4 + rng.below(5);
            let points: Vec<(f32, f32)> = (0..=teeth)
                .map(|i| {
                    let t = i as f32 / teeth as f32;
                    (
                        x + w * t,
                        if i % 2 == 0 {
                            y + h * 0.15
                        } else {
                            y + h * 0.85
                        },
                    )
                })
                .collect();
            layer.draw_stroke(&points, pen);
        }
    }
}

/// A pen width, in pixels, that matches a hand at capital height `cap`.
pub fn pen_width(hand: &Hand, cap: f32) -> f32 {
    (cap * 0.09 * hand.pen_gain.sqrt() * (1.0 - hand.pen_cut)).max(1.0)
}
