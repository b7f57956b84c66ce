//! Real handwritten characters from `shared/data/glyphs` (Latin letters and digits, symbols,
//! Cyrillic, Armenian), as ink masks the sheet renderer composes moves from.
//!
//! Only the training part of each set is in `shared/data` (the held-out part was removed at the
//! source), so everything here may be drawn on for synthetic training data.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

/// A character's ink: `alpha[y * width + x]` in 0..=255, 255 where the pen laid full ink.
#[derive(Debug, Clone, PartialEq)]
pub struct InkMask {
    pub width: u32,
    pub height: u32,
    pub alpha: Vec<u8>,
}

impl InkMask {
    pub fn at(&self, x: i64, y: i64) -> f32 {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return 0.0;
        }
        self.alpha[y as usize * self.width as usize + x as usize] as f32 / 255.0
    }

    /// Bilinear sample at a real position (pixel centres at integer + 0.5); 0 outside.
    pub fn sample(&self, x: f32, y: f32) -> f32 {
        let (x, y) = (x - 0.5, y - 0.5);
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let (x0, y0) = (x0 as i64, y0 as i64);
        let top = self.at(x0, y0) * (1.0 - fx) + self.at(x0 + 1, y0) * fx;
        let bottom = self.at(x0, y0 + 1) * (1.0 - fx) + self.at(x0 + 1, y0 + 1) * fx;
        top * (1.0 - fy) + bottom * fy
    }

    /// The mask grown by one pixel in every direction (a broader pen).
    pub fn dilated(&self) -> InkMask {
        let (w, h) = (self.width as i64 + 2, self.height as i64 + 2);
        let mut alpha = vec![0u8; (w * h) as usize];
        for y in 0..h {
            for x in 0..w {
                let mut best = 0.0f32;
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        let weight = if dx == 0 || dy == 0 { 1.0 } else { 0.7 };
                        best = best.max(self.at(x - 1 + dx, y - 1 + dy) * weight);
                    }
                }
                alpha[(y * w + x) as usize] = (best * 255.0).round() as u8;
            }
        }
        InkMask {
            width: w as u32,
            height: h as u32,
            alpha,
        }
    }

    /// Cuts the mask down to its inked part plus `pad` pixels; `None` when nothing is inked.
    fn trimmed(self, pad: u32) -> Option<InkMask> {
        let (w, h) = (self.width as usize, self.height as usize);
        let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
        for y in 0..h {
            for x in 0..w {
                if self.alpha[y * w + x] > 60 {
                    x0 = x0.min(x);
                    y0 = y0.min(y);
                    x1 = x1.max(x + 1);
                    y1 = y1.max(y + 1);
                }
            }
        }
        if x1 <= x0 || y1 <= y0 {
            return None;
        }
        let pad = pad as usize;
        let (x0, y0) = (x0.saturating_sub(pad), y0.saturating_sub(pad));
        let (x1, y1) = ((x1 + pad).min(w), (y1 + pad).min(h));
        let mut alpha = Vec::with_capacity((x1 - x0) * (y1 - y0));
        for y in y0..y1 {
            alpha.extend_from_slice(&self.alpha[y * w + x0..y * w + x1]);
        }
        Some(InkMask {
            width: (x1 - x0) as u32,
            height: (y1 - y0) as u32,
            alpha,
        })
    }
}

/// Where a character sits on the line, in units of the writer's capital height above the
/// baseline (negative below it), and how wide it is drawn when its width rather than its height
/// decides its size (a dash's crop says nothing about its height).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub top: f32,
    pub bottom: f32,
    /// `Some(w)`: scale the mask to `w` capital heights wide and centre it between top and bottom.
    pub width: Option<f32>,
}

/// The usual place of a handwritten character on the line.
pub fn placement(c: char) -> Placement {
    let p = |top, bottom| Placement {
        top,
        bottom,
        width: None,
    };
    let wide = |top, bottom, width| Placement {
        top,
        bottom,
        width: Some(width),
    };
    match c {
        'b' | 'd' | 'h' | 'k' | 'l' | 't' | 'f' | 'ф' | 'б' => p(1.02, 0.0),
        'g' | 'j' | 'p' | 'q' | 'y' | 'р' | 'у' => p(0.62, -0.36),
        'д' | 'ц' => p(0.62, -0.18),
        'i' => p(0.85, 0.0),
        c if c.is_lowercase() => p(0.62, 0.0),
        '+' => wide(0.78, 0.12, 0.6),
        '-' | '−' => wide(0.52, 0.32, 0.5),
        '×' => p(0.62, 0.0),
        '·' => wide(0.4, 0.26, 0.16),
        '.' => wide(0.14, 0.0, 0.16),
        '/' | '(' | ')' => p(1.05, -0.12),
        _ => p(1.0, 0.0),
    }
}

/// Which share of the handwriting material to draw on: validation writers use glyph samples and
/// fonts that training never sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    All,
    Training,
    Validation,
}

const ALL_SETS: [&str; 4] = ["latin", "symbols", "cyrillic", "armenian"];
const SHAREABLE_SETS: [&str; 3] = ["latin", "symbols", "armenian"];

/// Real handwritten characters, by the character they show.
#[derive(Debug, Default, Clone)]
pub struct GlyphBank {
    by_char: HashMap<char, Vec<InkMask>>,
}

/// A glyph set or font that is missing or unreadable, with the file and the cause.
#[derive(Debug)]
pub struct MaterialError(pub String);

impl std::fmt::Display for MaterialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MaterialError {}

impl GlyphBank {
    /// Reads every set under `glyphs_dir` (`shared/data/glyphs`): latin, symbols, cyrillic,
    /// armenian. Samples too faint to hold a stroke are left out.
    pub fn load(glyphs_dir: &Path) -> Result<GlyphBank, MaterialError> {
        GlyphBank::load_sets(glyphs_dir, &ALL_SETS)
    }

    /// Reads only the sets whose licence lets their images be redistributed (MIT: latin,
    /// symbols, armenian), for images that are committed or shipped. Cyrillic-MNIST states no
    /// licence: train on it, never publish it.
    pub fn load_shareable(glyphs_dir: &Path) -> Result<GlyphBank, MaterialError> {
        GlyphBank::load_sets(glyphs_dir, &SHAREABLE_SETS)
    }

    fn load_sets(glyphs_dir: &Path, sets: &[&str]) -> Result<GlyphBank, MaterialError> {
        let mut bank = GlyphBank::default();
        for &set in sets {
            let dir = glyphs_dir.join(set);
            let read = |name: &str| -> Result<Vec<u8>, MaterialError> {
                fs::read(dir.join(name))
                    .map_err(|e| MaterialError(format!("{}: {e}", dir.join(name).display())))
            };
            let pixels = npy_u8_payload(&read("images.npy")?)
                .map_err(|e| MaterialError(format!("{}: {e}", dir.join("images.npy").display())))?
                .to_vec();
            let index = String::from_utf8(read("index.tsv")?)
                .map_err(|e| MaterialError(format!("{}: {e}", dir.join("index.tsv").display())))?;
            bank.add_set(set, &pixels, &index)
                .map_err(|e| MaterialError(format!("{}: {e}", dir.join("index.tsv").display())))?;
        }
        Ok(bank)
    }

    fn add_set(&mut self, set: &str, pixels: &[u8], index: &str) -> Result<(), String> {
        let mut lines = index.lines();
        let header: Vec<&str> = lines.next().ok_or("empty index")?.split('\t').collect();
        let column = |name: &str| {
            header
                .iter()
                .position(|h| *h == name)
                .ok_or(format!("no column {name}"))
        };
        let (c_char, c_h, c_w, c_offset) = (
            column("char")?,
            column("h")?,
            column("w")?,
            column("offset")?,
        );
        let c_case = column("case").ok();
        for line in lines {
            let fields: Vec<&str> = line.split('\t').collect();
            let field = |i: usize| fields.get(i).copied().ok_or(format!("short row: {line}"));
            let number = |i: usize| -> Result<usize, String> {
                field(i)?
                    .parse()
                    .map_err(|_| format!("bad number in row: {line}"))
            };
            let (h, w, offset) = (number(c_h)?, number(c_w)?, number(c_offset)?);
            let Some(mut c) = field(c_char)?.chars().next() else {
                continue;
            };
            if let Some(case) = c_case {
                match field(case)? {
                    "L" => c = c.to_lowercase().next().unwrap_or(c),
                    "U" => {}
                    _ => continue,
                }
            }
            let raw = pixels
                .get(offset..offset + h * w)
                .ok_or(format!("row points past the pixels: {line}"))?;
            if let Some(mask) = ink_from_paper(raw, w as u32, h as u32) {
                if set == "symbols" && c == '×' {
                    self.by_char.entry('x').or_default().push(mask.clone());
                }
                self.by_char.entry(c).or_default().push(mask);
            }
        }
        Ok(())
    }

    /// Keeps one part of every character's samples: every fifth sample (by load order) is for
    /// validation, the rest for training, so a validation set shows letter shapes the reader never
    /// saw. [`Part::All`] keeps everything.
    pub fn part(mut self, part: Part) -> GlyphBank {
        if part != Part::All {
            for samples in self.by_char.values_mut() {
                let kept = std::mem::take(samples)
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| (i % 5 == 4) == (part == Part::Validation))
                    .map(|(_, mask)| mask);
                samples.extend(kept);
            }
        }
        self
    }

    /// The samples of `c`, or of a character that looks the same when `c` has none (Greek
    /// capitals are written like their Latin twins, `:` and `=` are built by the renderer).
    pub fn samples(&self, c: char) -> &[InkMask] {
        let twin = match c {
            'Α' => 'A',
            'Β' => 'B',
            'Ρ' => 'P',
            'Ι' => 'I',
            'Π' => 'П',
            'Χ' => 'X',
            'О' => 'O',
            'о' => 'o',
            other => other,
        };
        self.by_char
            .get(&c)
            .filter(|v| !v.is_empty())
            .or_else(|| self.by_char.get(&twin))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Adds every `every`-th MNIST digit from `digits` (a `.npy` of N x 28 x 28, dark ink on
    /// light, as `scripts/setup` writes it) labelled by `labels` (one ASCII digit per image).
    /// Returns how many were added.
    pub fn add_mnist(
        &mut self,
        digits: &Path,
        labels: &Path,
        every: usize,
    ) -> Result<usize, MaterialError> {
        let bytes =
            fs::read(digits).map_err(|e| MaterialError(format!("{}: {e}", digits.display())))?;
        let pixels = npy_u8_payload(&bytes)
            .map_err(|e| MaterialError(format!("{}: {e}", digits.display())))?;
        let labels =
            fs::read(labels).map_err(|e| MaterialError(format!("{}: {e}", labels.display())))?;
        if pixels.len() != labels.len() * 28 * 28 {
            return Err(MaterialError(format!(
                "{}: {} pixels for {} labels",
                digits.display(),
                pixels.len(),
                labels.len()
            )));
        }
        let mut added = 0;
        for (i, &label) in labels.iter().enumerate().step_by(every.max(1)) {
            if !label.is_ascii_digit() {
                continue;
            }
            if let Some(mask) = ink_from_paper(&pixels[i * 784..(i + 1) * 784], 28, 28) {
                self.add(label as char, mask);
                added += 1;
            }
        }
        Ok(added)
    }

    /// How many characters have samples.
    pub fn len(&self) -> usize {
        self.by_char.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_char.is_empty()
    }

    /// Adds samples of `c` (MNIST digits, tests).
    pub fn add(&mut self, c: char, mask: InkMask) {
        self.by_char.entry(c).or_default().push(mask);
    }
}

/// The pixel bytes of a version 1 `.npy` file of dtype `|u1` (shape checks are the caller's).
pub fn npy_u8_payload(bytes: &[u8]) -> Result<&[u8], String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file".into());
    }
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = bytes
        .get(10..10 + header_len)
        .ok_or("truncated .npy header")?;
    let header = String::from_utf8_lossy(header);
    if !header.contains("'|u1'") {
        return Err(format!("expected dtype |u1, header is {header}"));
    }
    Ok(&bytes[10 + header_len..])
}

/// Ink from a grey crop of dark writing on lighter paper: paper and ink levels from the crop's
/// own histogram, so photographed grey paper and binary scans give the same kind of mask.
fn ink_from_paper(raw: &[u8], width: u32, height: u32) -> Option<InkMask> {
    let mut sorted = raw.to_vec();
    sorted.sort_unstable();
    let at = |q: f32| sorted[((sorted.len() - 1) as f32 * q) as usize] as f32;
    let (ink, paper) = (at(0.01), at(0.75));
    if paper - ink < 50.0 {
        return None;
    }
    let alpha = raw
        .iter()
        .map(|&v| {
            let a = ((paper - v as f32) / (paper - ink)).clamp(0.0, 1.0);
            // Paper grain and faint shadows are not ink.
            let a = ((a - 0.18) / 0.62).clamp(0.0, 1.0);
            (a * 255.0).round() as u8
        })
        .collect();
    let mut mask = InkMask {
        width,
        height,
        alpha,
    };
    keep_the_letter(&mut mask);
    mask.trimmed(1)
}

/// Erases ink that is not part of the letter: specks, and the edges of neighbouring marks or
/// ruled lines that the crop caught at its border. Keeps the biggest stroke and whatever is
/// a fair share of it (the second stroke of a letter, the dot of an i).
fn keep_the_letter(mask: &mut InkMask) {
    let (w, h) = (mask.width as usize, mask.height as usize);
    let mut label = vec![0u32; w * h];
    // (pixels, touches the border, bounding box x0 y0 x1 y1)
    let mut components: Vec<(usize, bool, [usize; 4])> = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if mask.alpha[start] < 90 || label[start] != 0 {
            continue;
        }
        components.push((0, false, [w, h, 0, 0]));
        let id = components.len() as u32;
        label[start] = id;
        stack.push(start);
        while let Some(at) = stack.pop() {
            let (x, y) = (at % w, at / w);
            let component = components.last_mut().expect("pushed above");
            component.0 += 1;
            component.1 |= x == 0 || y == 0 || x + 1 == w || y + 1 == h;
            let b = &mut component.2;
            (b[0], b[1], b[2], b[3]) = (b[0].min(x), b[1].min(y), b[2].max(x + 1), b[3].max(y + 1));
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                        continue;
                    }
                    let next = ny as usize * w + nx as usize;
                    if mask.alpha[next] >= 90 && label[next] == 0 {
                        label[next] = id;
                        stack.push(next);
                    }
                }
            }
        }
    }
    let Some(largest) = components.iter().map(|c| c.0).max() else {
        return;
    };
    let keep: Vec<bool> = components
        .iter()
        .map(|&(size, border, [x0, y0, x1, y1])| {
            // A long thin mark at the crop's edge is a ruled line or a neighbour, not a stroke.
            let (bw, bh) = (x1 - x0, y1 - y0);
            let line_at_edge = border && (bw >= 4 * bh || bh >= 4 * bw);
            size == largest
                || (!line_at_edge && (size * 2 >= largest || (size * 25 >= largest && !border)))
        })
        .collect();
    // Faint pixels belong to the nearest kept stroke; far from any, they are dropped.
    let near_kept = |x: usize, y: usize| {
        (y.saturating_sub(2)..(y + 3).min(h)).any(|ny| {
            (x.saturating_sub(2)..(x + 3).min(w)).any(|nx| {
                let l = label[ny * w + nx];
                l != 0 && keep[l as usize - 1]
            })
        })
    };
    for y in 0..h {
        for x in 0..w {
            let l = label[y * w + x];
            let kept = if l != 0 {
                keep[l as usize - 1]
            } else {
                near_kept(x, y)
            };
            if !kept {
                mask.alpha[y * w + x] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ink_is_found_on_grey_paper_and_trimmed() {
        let (w, h) = (10u32, 8u32);
        let mut raw = vec![170u8; (w * h) as usize];
        for y in 2..6 {
            raw[(y * w + 4) as usize] = 20;
        }
        let mask = ink_from_paper(&raw, w, h).expect("a stroke");
        assert_eq!((mask.width, mask.height), (3, 6));
        assert_eq!(mask.at(1, 1), 1.0);
        assert_eq!(mask.at(0, 1), 0.0);
        assert!(ink_from_paper(&[200u8; 64], 8, 8).is_none());
    }

    #[test]
    fn npy_header_is_checked() {
        let mut file = b"\x93NUMPY\x01\x00".to_vec();
        let header = b"{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }\n";
        file.extend_from_slice(&(header.len() as u16).to_le_bytes());
        file.extend_from_slice(header);
        file.extend_from_slice(&[7, 9]);
        assert_eq!(npy_u8_payload(&file).unwrap(), &[7, 9]);
        assert!(npy_u8_payload(b"PNG....").is_err());
    }
}
