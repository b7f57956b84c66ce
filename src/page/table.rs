//! From ruling lines to the table of moves: which columns hold move numbers, White's and
//! Black's moves, how many rows each block has and in which order the blocks are read.
//!
//! Nothing here knows a particular form. A *column* is the space between two long vertical
//! rulings; its *rows* are the horizontal rulings that cross it from side to side. The move
//! rows are the longest run of evenly spaced rows (a ruling too faint to be found shows as a
//! double spacing and is put back); neighbouring columns sharing rows form a table, which is
//! read left to right as blocks of number | White | Black (a narrow column before two wide
//! ones) or White | Black. A leading row whose number cell is empty while the rows below
//! carry printed numbers is the title row.

use super::geometry::{crossing, HLine, Quad, VLine};
use super::lines::Mask;

/// One block of moves found on the page, in flattened-page coordinates.
#[derive(Debug, Clone)]
pub struct TableBlock {
    /// The rulings of the move rows, top to bottom: one more than there are rows.
    pub rows: Vec<HLine>,
    /// Left and right rulings of the number column, if the block has one.
    pub number_column: Option<[VLine; 2]>,
    /// Left of White's column, between White and Black, right of Black's column.
    pub move_columns: [VLine; 3],
    /// The move number of the first row.
    pub first_move: u32,
}

impl TableBlock {
    pub fn row_count(&self) -> usize {
        self.rows.len().saturating_sub(1)
    }

    /// The cell of `row` between rulings `left` and `right`.
    pub fn cell(&self, row: usize, left: &VLine, right: &VLine) -> Quad {
        let (top, bottom) = (&self.rows[row], &self.rows[row + 1]);
        [
            crossing(top, left),
            crossing(top, right),
            crossing(bottom, right),
            crossing(bottom, left),
        ]
    }

    /// The block's left ruling: its number column's, or White's column's.
    pub fn outer_left(&self) -> VLine {
        self.number_column.map_or(self.move_columns[0], |n| n[0])
    }

    pub fn left(&self) -> f32 {
        let v = self.outer_left();
        v.x_at(self.rows[0].y_at(v.intercept))
    }

    pub fn top(&self) -> f32 {
        let mid = self.move_columns[1].x_at(self.rows[0].intercept);
        self.rows[0].y_at(mid)
    }
}

/// Why no table was found, for the error message.
#[derive(Debug, Clone, PartialEq)]
pub struct NoTable(pub String);

/// Space between two long vertical rulings, and the evenly spaced rows that cross it.
#[derive(Debug, Clone)]
struct Column {
    left: usize,
    right: usize,
    width: f32,
    /// Row rulings of the run, top to bottom (interpolated where one was missing).
    run: Vec<HLine>,
}

/// Finds the blocks of moves among the rulings of a flattened page.
///
/// `ink` shows where printed numbers and handwriting are, `printed` only what is black (as
/// printed numbers are, a shaded cell not). `expected_rows`, from a layout
/// file, is the number of move rows of each block in reading order, when known.
pub fn find_blocks(
    horizontals: &[HLine],
    verticals: &[VLine],
    ink: &Mask,
    printed: &Mask,
    expected_rows: Option<&[u32]>,
) -> Result<Vec<TableBlock>, NoTable> {
    let min_vertical = 0.12 * ink.height as f32;
    let long = long_rulings(verticals, min_vertical)?;
    let columns = ruled_columns(&long, horizontals, min_vertical);
    if columns.is_empty() {
        return Err(NoTable(format!(
            "no table: {} long vertical and {} horizontal rulings, but no column crossed by \
             evenly spaced rows",
            long.len(),
            horizontals.len()
        )));
    }
    let mut blocks: Vec<TableBlock> = tables_of(&columns)
        .iter()
        .flat_map(|table| move_blocks(table, &columns, &long))
        .collect();
    let completed = complete_by_analogy(&blocks, &columns, &long, ink);
    blocks.extend(completed);
    for block in &mut blocks {
        drop_title_rows(block, ink, printed);
    }
    blocks.retain(|b| b.row_count() >= 4);
    if blocks.is_empty() {
        return Err(NoTable(
            "no table of moves: found ruled columns, but none in a White | Black pair with \
             enough rows"
                .into(),
        ));
    }
    order_blocks(&mut blocks);
    if let Some(expected) = expected_rows {
        if expected.len() == blocks.len() {
            for (block, &rows) in blocks.iter_mut().zip(expected) {
                let extra = block.row_count().saturating_sub(rows as usize);
                block.rows.drain(..extra);
            }
        }
    }
    let mut next = 1;
    for block in &mut blocks {
        block.first_move = next;
        next += block.row_count() as u32;
    }
    Ok(blocks)
}

/// The vertical rulings at least `min_vertical` pixels long, left to right; an error when
/// there are fewer than a table of moves needs.
fn long_rulings(verticals: &[VLine], min_vertical: f32) -> Result<Vec<VLine>, NoTable> {
    let mut long: Vec<VLine> = verticals
        .iter()
        .copied()
        .filter(|v| v.y1 - v.y0 >= min_vertical)
        .collect();
    long.sort_by(|a, b| mid_x(a).total_cmp(&mid_x(b)));
    if long.len() < 3 {
        return Err(NoTable(format!(
            "no table: {} long vertical rulings found (a table of moves needs at least 3)",
            long.len()
        )));
    }
    Ok(long)
}

/// The columns between each long ruling (`long`, left to right) and the nearest one to its
/// right that runs beside it, where evenly spaced rows cross them; left to right.
fn ruled_columns(long: &[VLine], horizontals: &[HLine], min_vertical: f32) -> Vec<Column> {
    let mut columns = Vec::new();
    for i in 0..long.len() {
        let left = &long[i];
        // The nearest long ruling to the right that runs beside this one.
        // Both must run along most of the longer one: a stack of handwritten strokes that
        // happens to align is shorter than the rulings around it.
        let partner = (i + 1..long.len())
            .filter(|&j| {
                let longer = (left.y1 - left.y0).max(long[j].y1 - long[j].y0);
                overlap(left, &long[j]) >= min_vertical.max(0.6 * longer)
            })
            .find(|&j| {
                let y = (left.y0.max(long[j].y0) + left.y1.min(long[j].y1)) / 2.0;
                long[j].x_at(y) - left.x_at(y) > 6.0
            });
        let Some(j) = partner else { continue };
        if let Some(column) = column_rows(long, i, j, horizontals) {
            columns.push(column);
        }
    }
    columns.sort_by(|a, b| mid_x(&long[a.left]).total_cmp(&mid_x(&long[b.left])));
    columns
}

/// Tables: chains of columns (indices into `columns`, left to right) that share a ruling and
/// whose rows overlap.
fn tables_of(columns: &[Column]) -> Vec<Vec<usize>> {
    let mut tables: Vec<Vec<usize>> = Vec::new();
    for c in 0..columns.len() {
        let joined = tables.iter_mut().find(|t| {
            let last = &columns[*t.last().expect("tables are never empty")];
            last.right == columns[c].left && rows_overlap(last, &columns[c])
        });
        match joined {
            Some(table) => table.push(c),
            None => tables.push(vec![c]),
        }
    }
    tables
}

/// The blocks of moves of one table (its columns, indices into `columns`): each White | Black
/// pair of wide columns, with the narrow column of move numbers before it if there is one,
/// takes its rows from the table's column with the longest run of rows.
fn move_blocks(table: &[usize], columns: &[Column], long: &[VLine]) -> Vec<TableBlock> {
    let cols: Vec<&Column> = table.iter().map(|&c| &columns[c]).collect();
    let Some(reference) = cols.iter().max_by_key(|c| c.run.len()) else {
        return Vec::new();
    };
    let widest = cols.iter().map(|c| c.width).fold(0.0, f32::max);
    let narrow = |c: &Column| c.width < 0.55 * widest;
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < cols.len() {
        let (number, white, taken) = if narrow(cols[i])
            && i + 2 < cols.len()
            && !narrow(cols[i + 1])
            && !narrow(cols[i + 2])
        {
            (Some(i), i + 1, 3)
        } else if !narrow(cols[i]) && i + 1 < cols.len() && !narrow(cols[i + 1]) {
            (None, i, 2)
        } else {
            i += 1;
            continue;
        };
        i += taken;
        let number_column = number.map(|n| [long[cols[n].left], long[cols[n].right]]);
        let move_columns = [
            long[cols[white].left],
            long[cols[white].right],
            long[cols[white + 1].right],
        ];
        blocks.push(TableBlock {
            rows: reference.run.clone(),
            number_column,
            move_columns,
            first_move: 1,
        });
    }
    blocks
}

/// The vertical rulings with the pieces of one ruling joined: a ruling broken where heavy
/// handwriting crosses it (the line finder trims the strokes, and what is left of the ruling
/// there may not fit one straight line) or where a bent sheet bends it. A column whose divider
/// is broken is otherwise taken for one column twice as wide, and the move columns beside it
/// for narrow number columns. Only for a last look at a sheet whose table was not found
/// ([`super::find_cells`]): a form's own rulings may also meet end to end (a box above the
/// table whose side is in line with the table's), and joining those can pull a box's rows
/// into the table's; and a joined ruling is straight where the pieces bend. Two pieces are
/// joined when one ends above where the other starts, at most `MAX_GAP` of the page's height
/// apart, and both pass within `MAX_OFFSET` of the page's height of each other at both ends
/// of the gap (so across all of it: they are straight lines).
pub fn join_broken_verticals(verticals: &[VLine], height: f32) -> Vec<VLine> {
    const MAX_GAP: f32 = 0.08;
    const MAX_OFFSET: f32 = 0.005;
    let mut lines: Vec<VLine> = verticals.to_vec();
    lines.sort_by(|a, b| a.y0.total_cmp(&b.y0));
    let mut joined: Vec<VLine> = Vec::with_capacity(lines.len());
    for line in lines {
        let continued = joined.iter().rposition(|upper| {
            let apart_at = |y: f32| (upper.x_at(y) - line.x_at(y)).abs();
            (-2.0..=MAX_GAP * height).contains(&(line.y0 - upper.y1))
                && apart_at(upper.y1) <= MAX_OFFSET * height
                && apart_at(line.y0) <= MAX_OFFSET * height
        });
        match continued {
            Some(i) => {
                let upper = joined[i];
                let (top, bottom) = (
                    [upper.x_at(upper.y0), upper.y0],
                    [line.x_at(line.y1), line.y1],
                );
                let slope = (bottom[0] - top[0]) / (bottom[1] - top[1]).max(1.0);
                joined[i] = VLine {
                    intercept: top[0] - slope * top[1],
                    slope,
                    y0: upper.y0,
                    y1: line.y1,
                };
            }
            None => joined.push(line),
        }
    }
    joined
}

fn mid_x(v: &VLine) -> f32 {
    v.x_at((v.y0 + v.y1) / 2.0)
}

fn overlap(a: &VLine, b: &VLine) -> f32 {
    a.y1.min(b.y1) - a.y0.max(b.y0)
}

fn rows_overlap(a: &Column, b: &Column) -> bool {
    let span = |c: &Column| {
        let mid = c.run.len() / 2;
        let x = c.run[mid].x0.max(0.0);
        (c.run[0].y_at(x), c.run[c.run.len() - 1].y_at(x))
    };
    let ((a0, a1), (b0, b1)) = (span(a), span(b));
    let shared = a1.min(b1) - a0.max(b0);
    shared >= 0.5 * (a1 - a0).min(b1 - b0)
}

/// A horizontal ruling where it crosses a column.
struct RulingPiece {
    /// Its height at the column's middle.
    y: f32,
    /// How much of the column's width it covers.
    covered: f32,
    line: HLine,
    /// How far it stops short of the column's left and right sides (negative beyond them).
    short_of_left: f32,
    short_of_right: f32,
}

/// The evenly spaced rows crossing the column between long rulings `left` and `right`.
fn column_rows(long: &[VLine], left: usize, right: usize, horizontals: &[HLine]) -> Option<Column> {
    let (l, r) = (&long[left], &long[right]);
    let mid_y = (l.y0.max(r.y0) + l.y1.min(r.y1)) / 2.0;
    let width = r.x_at(mid_y) - l.x_at(mid_y);
    let crossing_rows = crossing_rulings((l, r), width, horizontals);
    if crossing_rows.len() < 5 {
        return None;
    }
    let ys: Vec<f32> = crossing_rows.iter().map(|r| r.0).collect();
    let (chain, rows) = longest_row_chain(&ys)?;
    if rows < 4 {
        return None;
    }
    let mut run = vec![crossing_rows[chain[0].0].1];
    for pair in chain.windows(2) {
        let ((from, _), (to, k)) = (pair[0], pair[1]);
        let (a, b) = (&crossing_rows[from].1, &crossing_rows[to].1);
        // The rulings a chain stepped over (hidden by writing) are put back evenly.
        for step in 1..k {
            run.push(HLine::between(a, b, step as f32 / k as f32));
        }
        run.push(*b);
    }
    Some(Column {
        left,
        right,
        width,
        run,
    })
}

/// The horizontal rulings that cross the column between `l` and `r` (`width` wide at its
/// middle), top to bottom: each at its height there, with the longest piece of it found.
fn crossing_rulings(
    (l, r): (&VLine, &VLine),
    width: f32,
    horizontals: &[HLine],
) -> Vec<(f32, HLine)> {
    let (y0, y1) = (l.y0.max(r.y0), l.y1.min(r.y1));
    let tolerance = 8.0;
    let mut pieces: Vec<RulingPiece> = horizontals
        .iter()
        .filter_map(|h| {
            let xc = (l.x_at(h.intercept) + r.x_at(h.intercept)) / 2.0;
            let y = h.y_at(xc);
            let (xl, xr) = (l.x_at(y), r.x_at(y));
            let covered = h.x1.min(xr) - h.x0.max(xl);
            (covered > 0.0 && y >= y0 - tolerance && y <= y1 + tolerance).then_some(RulingPiece {
                y,
                covered,
                line: *h,
                short_of_left: h.x0 - xl,
                short_of_right: xr - h.x1,
            })
        })
        .collect();
    pieces.sort_by(|a, b| a.y.total_cmp(&b.y));
    // Pieces at one height are one ruling, found twice (a thick line) or broken where
    // handwriting or shadow hid it; together they must cover most of the column and reach
    // both its sides, as a ruling does and a handwritten stroke or a shading's edge does not.
    let mut crossing_rows: Vec<(f32, HLine)> = Vec::new();
    for group in pieces.chunk_by(|a, b| b.y - a.y < 4.0) {
        let covered: f32 = group.iter().map(|p| p.covered).sum();
        let longest = group
            .iter()
            .max_by(|a, b| a.covered.total_cmp(&b.covered))
            .expect("groups are never empty");
        let reach = |short: fn(&RulingPiece) -> f32| {
            group.iter().map(short).fold(f32::INFINITY, f32::min) <= 0.15 * width
        };
        if covered >= 0.7 * width && reach(|p| p.short_of_left) && reach(|p| p.short_of_right) {
            crossing_rows.push((longest.y, longest.line));
        }
    }
    crossing_rows
}

/// The longest chain of rulings at heights `ys` (top to bottom) spaced by whole rows of
/// their median spacing, as `(ruling, rows from the one before)`, and how many rows it spans;
/// a stray stroke between two rulings (a long crossing-out) is stepped over. `None` where
/// the rulings are too close to be rows.
fn longest_row_chain(ys: &[f32]) -> Option<(Vec<(usize, usize)>, usize)> {
    let mut spacings: Vec<f32> = ys.windows(2).map(|w| w[1] - w[0]).collect();
    spacings.sort_by(f32::total_cmp);
    let spacing = *spacings.get(spacings.len() / 2)?;
    if spacing < 6.0 {
        return None;
    }
    // A gap as a whole number of rows, or None where it fits no row count.
    let rows_between = |a: usize, b: usize| -> Option<usize> {
        let gap = ys[b] - ys[a];
        let k = (gap / spacing).round();
        ((1.0..=3.0).contains(&k) && (gap - k * spacing).abs() <= 0.15 * spacing * k.sqrt())
            .then_some(k as usize)
    };
    let (mut best, mut best_rows): (Vec<(usize, usize)>, usize) = (Vec::new(), 0);
    for start in 0..ys.len() {
        let mut chain = vec![(start, 0)];
        let mut rows = 0;
        let mut at = start;
        while let Some((next, k)) = (at + 1..(at + 3).min(ys.len()))
            .find_map(|next| rows_between(at, next).map(|k| (next, k)))
        {
            chain.push((next, k));
            rows += k;
            at = next;
        }
        if rows > best_rows {
            best_rows = rows;
            best = chain;
        }
    }
    Some((best, best_rows))
}

/// Ink in a cell's inner part, ruling pixels left out, as a share of that area.
pub fn ink_share(quad: &Quad, ink: &Mask, margin: (f32, f32)) -> f32 {
    let x0 = quad[0][0].max(quad[3][0]);
    let x1 = quad[1][0].min(quad[2][0]);
    let y0 = quad[0][1].max(quad[1][1]);
    let y1 = quad[3][1].min(quad[2][1]);
    let (w, h) = (x1 - x0, y1 - y0);
    if w < 2.0 || h < 2.0 {
        return 0.0;
    }
    let (ix0, ix1) = ((x0 + margin.0 * w) as i64, (x1 - margin.0 * w) as i64);
    let (iy0, iy1) = ((y0 + margin.1 * h) as i64, (y1 - margin.1 * h) as i64);
    let area = ((ix1 - ix0).max(1) * (iy1 - iy0).max(1)) as f32;
    // The margins keep the rulings out; only what lies inside counts.
    ink.count(ix0, iy0, ix1, iy1) as f32 / area
}

/// How far a cell's writing runs over its right border, as a share of its width: 0 where
/// it stays inside, at most [`MAX_OVERRUN`]. A hurried player's move runs on into the
/// next box; the cell's own crop cuts it at the border, and where the writing starts late
/// in the box, it holds nothing at all.
///
/// `quad` is the cell in the view of `ink` (its sides about level and upright), `margin`
/// the share of its height above and below left out (the rulings and a neighbour's
/// strokes). The writing runs over where ink on both sides of the border comes closer
/// than a gap between two words ([`OVERRUN_GAP`] of the cell's height), the ruling's own
/// columns left out; it reaches as far as such gaps go on. `before_a_box`: the cell's right
/// neighbour is a move box of the same row (White's cell is Black's), where an empty box's
/// move may also begin just past the border, before the neighbour's own move; beyond
/// Black's column lie printed move numbers, which would read the same way.
pub fn writing_overrun(quad: &Quad, ink: &Mask, margin: f32, before_a_box: bool) -> f32 {
    let left = (quad[0][0] + quad[3][0]) / 2.0;
    let border = (quad[1][0] + quad[2][0]) / 2.0;
    let y0 = quad[0][1].max(quad[1][1]);
    let y1 = quad[3][1].min(quad[2][1]);
    let (w, h) = (border - left, y1 - y0);
    if w < 8.0 || h < 8.0 {
        return 0.0;
    }
    let (band0, band1) = ((y0 + margin * h) as i64, (y1 - margin * h) as i64);
    let columns = BorderColumns {
        ink,
        band: (band0, band1),
        band_height: (band1 - band0).max(1) as usize,
        border_x: border.round() as i64,
        // The ruling may lie a few pixels off the fitted border, and is as dark all the way
        // down.
        ruling_reach: (0.04 * w) as i64 + 2,
        farthest: (border + MAX_OVERRUN * w) as i64,
        gap: (OVERRUN_GAP * h).max(2.0) as i64,
        width: w,
    };
    let border_x = columns.border_x;
    // The writing nearest the border on its left, then on its right.
    let from = (border - 0.5 * w) as i64;
    if let Some(last_inside) = (from..border_x)
        .rev()
        .find(|&x| columns.column(x) == Some(true))
    {
        return columns
            .run_from(last_inside + 1)
            .0
            .map_or(0.0, |end| columns.reach(end));
    }
    // An empty box whose move was written past its border, beginning just after it: a run
    // that ends well inside the neighbour and is followed there by the neighbour's own move.
    // Alone in the neighbour, the same strokes are more likely its own move written to the
    // left than this box's written outside it.
    if !before_a_box
        || (left as i64 + columns.ruling_reach..border_x).any(|x| columns.column(x) == Some(true))
    {
        return 0.0;
    }
    let Some(first_outside) = (border_x + columns.ruling_reach + 1
        ..border_x + (EMPTY_BOX_SPILL_START * h) as i64)
        .find(|&x| columns.column(x) == Some(true))
    else {
        return 0.0;
    };
    let (Some(end), true) = columns.run_from(first_outside) else {
        return 0.0;
    };
    if (end + columns.gap..(border + w) as i64).any(|x| columns.writing_at(x)) {
        columns.reach(end)
    } else {
        0.0
    }
}

/// The ink columns about a cell's right border, within the band of its height that
/// [`writing_overrun`] reads.
struct BorderColumns<'a> {
    ink: &'a Mask,
    /// The band's top and bottom rows.
    band: (i64, i64),
    band_height: usize,
    border_x: i64,
    /// How far from `border_x` a column as dark all the way down is the ruling.
    ruling_reach: i64,
    /// The last column a run of writing may reach.
    farthest: i64,
    /// The blank columns that part two words.
    gap: i64,
    /// The cell's width.
    width: f32,
}

impl BorderColumns<'_> {
    fn inked(&self, x: i64) -> usize {
        self.ink.count(x, self.band.0, x + 1, self.band.1)
    }

    fn ruled(&self, count: usize) -> bool {
        count * 5 >= self.band_height * 4
    }

    /// Whether column `x` holds writing; `None` for the ruling's own columns.
    fn column(&self, x: i64) -> Option<bool> {
        let count = self.inked(x);
        if (x - self.border_x).abs() <= self.ruling_reach && self.ruled(count) {
            None
        } else {
            Some(count >= 2)
        }
    }

    /// Writing in column `x` away from the border: any ruling further on is as dark all
    /// the way down; writing is not.
    fn writing_at(&self, x: i64) -> bool {
        let count = self.inked(x);
        count >= 2 && !self.ruled(count)
    }

    /// The end of the run of writing from `start` on: its last inked column past the
    /// ruling, and whether a gap ended it before the farthest look. The gap across the
    /// border counts only the columns that are not the ruling's.
    fn run_from(&self, start: i64) -> (Option<i64>, bool) {
        let mut end = None;
        let mut blank_run = 0;
        for x in start..self.farthest {
            match self.column(x) {
                Some(true) => {
                    if x > self.border_x + self.ruling_reach {
                        end = Some(x);
                    }
                    blank_run = 0;
                }
                Some(false) => {
                    blank_run += 1;
                    if blank_run >= self.gap {
                        return (end, true);
                    }
                }
                None => {}
            }
        }
        (end, false)
    }

    /// How far past the border column `end` lies, as a share of the cell's width.
    fn reach(&self, end: i64) -> f32 {
        (end - self.border_x) as f32 / self.width
    }
}

/// How far past an empty box's right border its spilled move may begin
/// ([`writing_overrun`]), as a share of the box's height.
pub const EMPTY_BOX_SPILL_START: f32 = 1.0;

/// The farthest [`writing_overrun`] looks past a cell's right border, as a share of its width.
pub const MAX_OVERRUN: f32 = 0.45;

/// A gap this share of a cell's height ends a run of writing ([`writing_overrun`]): wider
/// than the gaps between a hand's letters, narrower than between two boxes' moves.
pub const OVERRUN_GAP: f32 = 0.25;

/// Blocks whose move rulings were lost (under heavy handwriting, or too faint) while their
/// column of printed numbers was found: a column as wide as the found blocks' number
/// columns, its rows numbered, not part of any block, gets White's and Black's columns of
/// the found blocks' widths, on the rulings found there or parallel to its own.
fn complete_by_analogy(
    blocks: &[TableBlock],
    columns: &[Column],
    long: &[VLine],
    ink: &Mask,
) -> Vec<TableBlock> {
    let Some(template) = blocks.iter().find(|b| b.number_column.is_some()) else {
        return Vec::new();
    };
    let [number_left, number_right] = template.number_column.expect("checked above");
    let y = (template.rows[0].intercept + template.rows[template.rows.len() - 1].intercept) / 2.0;
    let number_width = number_right.x_at(y) - number_left.x_at(y);
    let white_width = template.move_columns[1].x_at(y) - template.move_columns[0].x_at(y);
    let black_width = template.move_columns[2].x_at(y) - template.move_columns[1].x_at(y);
    let span = |b: &TableBlock| (b.outer_left().x_at(y), b.move_columns[2].x_at(y));
    let taken: Vec<(f32, f32)> = blocks.iter().map(span).collect();
    let mut added: Vec<TableBlock> = Vec::new();
    for column in columns {
        if (column.width - number_width).abs() > 0.3 * number_width || column.run.len() < 6 {
            continue;
        }
        let (left, right) = (long[column.left], long[column.right]);
        let x0 = left.x_at(y);
        let x1 = x0 + number_width + white_width + black_width;
        let overlaps =
            |&(a, b): &(f32, f32)| x0 < b - 0.1 * number_width && a < x1 - 0.1 * number_width;
        if taken.iter().any(overlaps) || added.iter().map(span).any(|s| overlaps(&s)) {
            continue;
        }
        // A found ruling near where the template puts it, or one parallel to the number
        // column's right edge.
        let ruling_at = |offset: f32| {
            let want = right.x_at(y) + offset;
            long.iter()
                .filter(|v| v.y0 <= y && v.y1 >= y)
                .min_by(|a, b| {
                    (a.x_at(y) - want)
                        .abs()
                        .total_cmp(&(b.x_at(y) - want).abs())
                })
                .filter(|v| (v.x_at(y) - want).abs() < 0.1 * white_width)
                .copied()
                .unwrap_or(VLine {
                    intercept: right.intercept + offset,
                    ..right
                })
        };
        let block = TableBlock {
            rows: column.run.clone(),
            number_column: Some([left, right]),
            move_columns: [
                right,
                ruling_at(white_width),
                ruling_at(white_width + black_width),
            ],
            first_move: 1,
        };
        let numbered = (0..block.row_count())
            .filter(|&row| ink_share(&block.cell(row, &left, &right), ink, (0.12, 0.15)) > 0.02)
            .count();
        if numbered as f32 >= 0.6 * block.row_count() as f32 {
            added.push(block);
        }
    }
    added
}

/// Leading rows whose number cell is blank while most below carry a printed number are the
/// column titles, not moves. A shaded number column (chess.com's sheet) is ink all the way
/// down where the photo's light is uneven; there the numbers' black print (`printed`) tells
/// the title row, whose shaded number cell holds none.
fn drop_title_rows(block: &mut TableBlock, ink: &Mask, printed: &Mask) {
    let Some([left, right]) = block.number_column else {
        return;
    };
    let shares = |mask: &Mask| -> Vec<f32> {
        (0..block.row_count())
            .map(|row| ink_share(&block.cell(row, &left, &right), mask, (0.12, 0.15)))
            .collect()
    };
    let mut numbered: Vec<bool> = shares(ink).iter().map(|&share| share > 0.02).collect();
    let share = numbered.iter().filter(|n| **n).count() as f32 / numbered.len().max(1) as f32;
    if share < 0.6 {
        return;
    }
    let black = shares(printed);
    let mut sorted = black.clone();
    sorted.sort_by(f32::total_cmp);
    let typical = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
    // Light grey numbers (most printed sheets) leave `printed` nearly empty: no evidence.
    if typical >= 0.03 {
        for (numbered, black) in numbered.iter_mut().zip(&black) {
            *numbered &= *black >= 0.1 * typical;
        }
    }
    let leading = numbered.iter().take_while(|n| !**n).count();
    if leading <= 2 {
        block.rows.drain(..leading);
    }
}

/// Reading order: blocks side by side are read left to right; blocks stacked in one band of
/// the page, top to bottom.
fn order_blocks(blocks: &mut [TableBlock]) {
    let mut keyed: Vec<(usize, f32, f32)> = blocks.iter().map(|b| (0, b.left(), b.top())).collect();
    // Bands: blocks whose left edges are within a fifth of a block's width share a band.
    let widths: Vec<f32> = blocks
        .iter()
        .map(|b| {
            let y = b.rows[0].intercept;
            b.move_columns[2].x_at(y) - b.move_columns[0].x_at(y)
        })
        .collect();
    let mut by_left: Vec<usize> = (0..blocks.len()).collect();
    by_left.sort_by(|&a, &b| keyed[a].1.total_cmp(&keyed[b].1));
    let mut band = 0;
    for (n, &i) in by_left.iter().enumerate() {
        if n > 0 {
            let previous = by_left[n - 1];
            if keyed[i].1 - keyed[previous].1 > 0.2 * widths[previous] {
                band += 1;
            }
        }
        keyed[i].0 = band;
    }
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by(|&a, &b| {
        keyed[a]
            .0
            .cmp(&keyed[b].0)
            .then(keyed[a].2.total_cmp(&keyed[b].2))
    });
    let sorted: Vec<TableBlock> = order.iter().map(|&i| blocks[i].clone()).collect();
    blocks.clone_from_slice(&sorted);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ruling(y: f32, x0: f32, x1: f32) -> HLine {
        HLine {
            intercept: y,
            slope: 0.0,
            x0,
            x1,
        }
    }

    fn side(x: f32) -> VLine {
        VLine {
            intercept: x,
            slope: 0.0,
            y0: 0.0,
            y1: 500.0,
        }
    }

    #[test]
    fn a_broken_ruling_is_a_row_and_a_shading_edge_is_not() {
        // A column from x 100 to 300 with rulings every 40 px from y 60 to 460.
        let long = [side(100.0), side(300.0)];
        let mut horizontals: Vec<HLine> = (0..=10)
            .map(|i| ruling(60.0 + 40.0 * i as f32, 95.0, 305.0))
            .collect();
        // The ruling at y 220, hidden in the middle by handwriting: two pieces.
        horizontals[4] = ruling(220.0, 95.0, 190.0);
        horizontals.push(ruling(221.0, 215.0, 305.0));
        let column = column_rows(&long, 0, 1, &horizontals).expect("a column of rows");
        assert_eq!(column.run.len(), 11, "{:?}", column.run);

        // Above the first ruling, the edge of a printed shading crossed by handwriting: it
        // covers most of the column but never reaches its left side.
        horizontals.push(ruling(20.0, 150.0, 305.0));
        let column = column_rows(&long, 0, 1, &horizontals).expect("a column of rows");
        assert_eq!(column.run.len(), 11, "{:?}", column.run);
        assert!((column.run[0].intercept - 60.0).abs() < 1.0);
    }

    /// Sets the pixels of `[x0, x1) x [y0, y1)`.
    fn paint(mask: &mut Mask, (x0, y0): (usize, usize), (x1, y1): (usize, usize)) {
        for y in y0..y1 {
            mask.bits[y * mask.width + x0..y * mask.width + x1].fill(true);
        }
    }

    #[test]
    fn a_title_row_is_dropped_even_where_its_shaded_number_cell_reads_as_ink() {
        // Number | White | Black at x 50, 100, 300, 500; a title row and 10 move rows of
        // 30 px from y 100.
        let block = TableBlock {
            rows: (0..=11)
                .map(|i| ruling(100.0 + 30.0 * i as f32, 45.0, 505.0))
                .collect(),
            number_column: Some([side(50.0), side(100.0)]),
            move_columns: [side(100.0), side(300.0), side(500.0)],
            first_move: 1,
        };
        let (mut ink, mut printed) = (Mask::new(600, 500), Mask::new(600, 500));
        // Every move row's number: black strokes in the middle of its number cell.
        for row in 1..=10 {
            let y = 100 + 30 * row;
            paint(&mut ink, (70, y + 8), (80, y + 22));
            paint(&mut printed, (70, y + 8), (80, y + 22));
        }
        let titled = |ink: &Mask, printed: &Mask| {
            let mut found = block.clone();
            drop_title_rows(&mut found, ink, printed);
            found.rows[0].intercept
        };
        assert_eq!(titled(&ink, &printed), 130.0);
        // Uneven light makes the whole shaded number column ink, title cell included: only
        // the black print is left to tell it.
        let mut shaded = ink.clone();
        paint(&mut shaded, (52, 100), (98, 430));
        assert_eq!(titled(&shaded, &printed), 130.0);
        // Light grey numbers leave no black print anywhere: the ink alone decides, and a
        // shaded column keeps every row.
        let faint = Mask::new(600, 500);
        assert_eq!(titled(&ink, &faint), 130.0);
        assert_eq!(titled(&shaded, &faint), 100.0);
    }

    fn piece(x: f32, y0: f32, y1: f32) -> VLine {
        VLine {
            intercept: x,
            slope: 0.0,
            y0,
            y1,
        }
    }

    #[test]
    fn a_divider_broken_by_handwriting_is_joined_and_its_columns_found() {
        // Number | White | Black between x 50, 100, 300 and 500; 25 rows of 30 px from y 100.
        // The White | Black divider is found in two pieces, 20 px apart and 2 px askew.
        let horizontals: Vec<HLine> = (0..=25)
            .map(|i| ruling(100.0 + 30.0 * i as f32, 45.0, 505.0))
            .collect();
        let verticals = [
            piece(50.0, 100.0, 850.0),
            piece(100.0, 100.0, 850.0),
            piece(300.0, 100.0, 480.0),
            piece(302.0, 500.0, 850.0),
            piece(500.0, 100.0, 850.0),
        ];
        let ink = Mask::new(600, 1000);
        // Taken as found, White's and Black's columns are one column, too wide for the others
        // to be move columns beside it.
        assert!(find_blocks(&horizontals, &verticals, &ink, &ink, None).is_err());
        let joined = join_broken_verticals(&verticals, 1000.0);
        assert_eq!(joined.len(), 4);
        let blocks = find_blocks(&horizontals, &joined, &ink, &ink, None).expect("a table");
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].row_count(), 25);
        assert!(blocks[0].number_column.is_some());
        let divider = blocks[0].move_columns[1];
        assert!((divider.x_at(100.0) - 300.0).abs() < 0.5, "{divider:?}");
        assert!((divider.x_at(850.0) - 302.0).abs() < 0.5, "{divider:?}");
        assert_eq!((divider.y0, divider.y1), (100.0, 850.0));

        // Pieces too far apart across, or along, are separate rulings.
        let apart = [piece(300.0, 100.0, 480.0), piece(312.0, 500.0, 850.0)];
        assert_eq!(join_broken_verticals(&apart, 1000.0).len(), 2);
        let far = [piece(300.0, 100.0, 400.0), piece(300.0, 500.0, 850.0)];
        assert_eq!(join_broken_verticals(&far, 1000.0).len(), 2);
        let near = [piece(300.0, 100.0, 400.0), piece(301.0, 460.0, 850.0)];
        assert_eq!(join_broken_verticals(&near, 1000.0).len(), 1);
    }

    /// A view with a cell from x 100 to 300 and y 100 to 140 and its neighbour to x 500, its
    /// rulings drawn in, and `strokes` (x0, x1, y0, y1 rectangles) written.
    fn ruled_cells(strokes: &[(usize, usize, usize, usize)]) -> (Quad, Mask) {
        let mut ink = Mask::new(600, 240);
        let mut fill = |(x0, x1, y0, y1): (usize, usize, usize, usize)| {
            for y in y0..y1 {
                for x in x0..x1 {
                    ink.bits[y * 600 + x] = true;
                }
            }
        };
        for x in [100, 300, 500] {
            fill((x - 1, x + 2, 95, 145));
        }
        for y in [100, 140] {
            fill((95, 505, y - 1, y + 1));
        }
        strokes.iter().copied().for_each(fill);
        let quad = [
            [100.0, 100.0],
            [300.0, 100.0],
            [300.0, 140.0],
            [100.0, 140.0],
        ];
        (quad, ink)
    }

    #[test]
    fn writing_over_the_right_border_is_followed_as_far_as_it_runs() {
        let overrun = |strokes: &[(usize, usize, usize, usize)]| {
            let (quad, ink) = ruled_cells(strokes);
            writing_overrun(&quad, &ink, 0.16, true)
        };
        // Letters 6 px apart from x 220 on, crossing the border, the last ending at x 349.
        let letters: Vec<_> = (0..9)
            .map(|i| (220 + 15 * i, 229 + 15 * i, 110, 130))
            .collect();
        let reach = overrun(&letters);
        assert!((reach - 49.0 / 200.0).abs() < 0.01, "{reach}");
        // The same, the stroke crossing the ruling itself: the same reach.
        let mut joined = letters.clone();
        joined.push((296, 306, 118, 121));
        assert_eq!(overrun(&joined), reach);
        // A move ending 6 px before the border, another beginning 12 px after it: two boxes'
        // moves, not one run over the border (the gap is 17 px, the cell 40 px high).
        assert_eq!(overrun(&[(240, 294, 110, 130), (312, 360, 110, 130)]), 0.0);
        // Writing inside alone, or the neighbour's alone, or nothing: nothing runs over.
        assert_eq!(overrun(&[(150, 290, 110, 130)]), 0.0);
        assert_eq!(overrun(&[(305, 360, 110, 130)]), 0.0);
        assert_eq!(overrun(&[]), 0.0);
        // A neighbour's stroke from above or below (in the left-out margins) does not count.
        assert_eq!(overrun(&[(250, 290, 110, 130), (290, 380, 134, 139)]), 0.0);
        // However long the run, the reach stops at the most a look goes.
        let long: Vec<_> = (0..18)
            .map(|i| (220 + 15 * i, 229 + 15 * i, 110, 130))
            .collect();
        assert!(overrun(&long) <= MAX_OVERRUN);
        assert!(overrun(&long) > MAX_OVERRUN - 0.05);
    }

    #[test]
    fn an_empty_boxs_move_written_past_its_border_is_followed_before_the_neighbours() {
        let overrun = |strokes: &[(usize, usize, usize, usize)]| {
            let (quad, ink) = ruled_cells(strokes);
            writing_overrun(&quad, &ink, 0.16, true)
        };
        // The box's move from x 320 to 359, then the neighbour's own from x 420.
        let spilled = (320, 360, 110, 130);
        let neighbours = (420, 480, 110, 130);
        let reach = overrun(&[spilled, neighbours]);
        assert!((reach - 59.0 / 200.0).abs() < 0.01, "{reach}");
        // Black's box: what follows it is no move box.
        let (quad, ink) = ruled_cells(&[spilled, neighbours]);
        assert_eq!(writing_overrun(&quad, &ink, 0.16, false), 0.0);
        // Alone, the strokes are the neighbour's move written to the left.
        assert_eq!(overrun(&[spilled]), 0.0);
        // Beginning far from the border (more than the box's height), they are the neighbour's.
        assert_eq!(overrun(&[(350, 380, 110, 130), neighbours]), 0.0);
        // A run that goes on past the farthest look is the neighbour's long move.
        let long: Vec<_> = (0..12)
            .map(|i| (320 + 15 * i, 329 + 15 * i, 110, 130))
            .collect();
        assert_eq!(overrun(&long), 0.0);
        // Where the box holds writing of its own, only a run crossing the border counts.
        assert_eq!(overrun(&[(150, 200, 110, 130), spilled, neighbours]), 0.0);
    }
}
