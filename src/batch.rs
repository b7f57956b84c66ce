//! Archive ingestion: many games read in parallel into one folder, restartably. Every game's
//! JSON is written atomically (a temporary file renamed into place), so an interrupted run
//! leaves only whole results, and a rerun skips the games already done. One bad file becomes
//! one failure with its cause in the summary; it never stops the others.

use std::fmt;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;
use serde_json::{json, Value};

use crate::page::PageFile;
use crate::read::{read_game_files, FilesRead, ReadOptions, SMALL_CELL_HEIGHT};
use crate::recognize::Reader;
use crate::report::PgnTags;
use crate::start::StartPosition;

/// Image files a folder of scans may hold, by extension.
const IMAGE_EXTENSIONS: &[&str] = &["jpg", "jpeg", "png", "tif", "tiff", "webp", "bmp", "pdf"];

/// One game to read: its pages in order, the other player's copy if the archive holds it,
/// and the name its results go under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchGame {
    /// `OUT/<id>.json`: the first page's file stem (`<stem>-p<N>` for page N of a file).
    pub id: String,
    pub pages: Vec<PageFile>,
    /// The pages of the other player's scoresheet of the same game (`read --copy`); empty
    /// when there is none.
    pub copy: Vec<PageFile>,
    /// Where the game started (a manifest's `start=` or `chess960=` field); `None`: the
    /// standard position.
    pub start: Option<StartPosition>,
    /// The game's PGN tags (a manifest's `white=`, `black=`, `round=`... fields); a missing
    /// Event is the first page's file stem, which traces the database back to the archive.
    pub tags: PgnTags,
}

/// The manifest field between a game's own pages and its copy's.
pub const COPY_SEPARATOR: &str = "|";

/// Manifest fields that give a game's start instead of a page: `start=FEN` (X-FEN or
/// Shredder-FEN castling rights) or `chess960=N` (0-959), as `read --start-fen` and
/// `read --chess960` do.
pub const START_FEN_FIELD: &str = "start=";
pub const CHESS960_FIELD: &str = "chess960=";

/// The start a manifest field gives, `None` when the field is a page.
fn start_of_field(field: &str) -> Option<Result<StartPosition, String>> {
    if let Some(fen) = field.strip_prefix(START_FEN_FIELD) {
        return Some(StartPosition::from_fen(fen).map_err(|e| e.to_string()));
    }
    let number = field.strip_prefix(CHESS960_FIELD)?;
    Some(match number.trim().parse::<u32>() {
        Ok(n) => StartPosition::chess960(n).map_err(|e| e.to_string()),
        Err(_) => Err(format!(
            "{field:?}: a Chess960 start is a number from 0 to 959"
        )),
    })
}

/// A batch that cannot start: what and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchError(pub String);

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BatchError {}

/// Which share of the games this machine reads: games `i` with `i % count == index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Parses `I/N` (0 <= I < N).
    pub fn parse(text: &str) -> Result<Shard, BatchError> {
        let bad = || {
            BatchError(format!(
                "--shard {text:?}: expected I/N with 0 <= I < N, e.g. 0/4"
            ))
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// Image files that may hold several pages, by extension.
const PAGED_EXTENSIONS: &[&str] = &["tif", "tiff", "pdf"];

fn is_image(path: &Path) -> bool {
    has_extension(path, IMAGE_EXTENSIONS)
}

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.contains(&e.to_ascii_lowercase().as_str()))
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// The name a game's results go under: its first page's file stem, and the page
/// (`<stem>-p<N>`) when the game is one page of a file.
fn game_id(first: &PageFile) -> String {
    match first.page {
        None => stem(&first.path),
        Some(page) => format!("{}-p{}", stem(&first.path), page + 1),
    }
}

/// The games of `input`: every image of a folder (sorted by name; a game of all its pages,
/// or with `each_page` a game of each page), or a manifest, a text file with one game per
/// line whose pages are separated by TABs (paths relative to the manifest's folder, `FILE#N`
/// for page N of a multi-page file; blank lines and lines starting with `#` are skipped),
/// optionally followed by a `|` field and the pages of the other player's copy of the game,
/// and anywhere on the line by a `start=FEN` or `chess960=N` field where the game did not
/// start from the standard position, and by PGN tags (`white=NAME`, `black=`, `event=`,
/// `site=`, `date=`, `round=`). Two games that would write the same result file are
/// refused.
pub fn plan(input: &Path, each_page: bool) -> Result<Vec<BatchGame>, BatchError> {
    let name = input.display();
    let meta = std::fs::metadata(input).map_err(|e| BatchError(format!("{name}: {e}")))?;
    let games = if meta.is_dir() {
        folder_games(input, each_page)?
    } else if each_page {
        return Err(BatchError(format!(
            "{name}: --each-page reads a folder's files page by page; a manifest names each \
             game's pages (FILE#N for page N of a file)"
        )));
    } else {
        manifest_games(input)?
    };
    let mut ids: Vec<(&str, &Path)> = games
        .iter()
        .map(|g| (g.id.as_str(), g.pages[0].path.as_path()))
        .collect();
    ids.sort();
    for pair in ids.windows(2) {
        if pair[0].0 == pair[1].0 {
            return Err(BatchError(format!(
                "{name}: {} and {} would both write {}.json; rename one",
                pair[0].1.display(),
                pair[1].1.display(),
                pair[0].0
            )));
        }
    }
    if games.is_empty() {
        return Err(BatchError(format!("{name}: no images to read")));
    }
    Ok(games)
}

/// Every image of the folder `input`, sorted by name, as a game (of all its pages), or with
/// `each_page` every page of every image as a game of its own. A file whose pages cannot be
/// counted is still a game, which fails with the cause when it is read.
fn folder_games(input: &Path, each_page: bool) -> Result<Vec<BatchGame>, BatchError> {
    let name = input.display();
    let mut images: Vec<PathBuf> = std::fs::read_dir(input)
        .map_err(|e| BatchError(format!("{name}: {e}")))?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && is_image(path))
        .collect();
    images.sort();
    let game = |page: PageFile| BatchGame {
        id: game_id(&page),
        pages: vec![page],
        copy: Vec::new(),
        start: None,
        tags: PgnTags::default(),
    };
    let mut games = Vec::new();
    for path in images {
        let file = PageFile::whole(path);
        // Only TIFF and PDF files hold pages, and only `each_page` needs them counted: a
        // folder is otherwise planned without reading its files.
        let count = if each_page && has_extension(&file.path, PAGED_EXTENSIONS) {
            file.page_count().unwrap_or(1)
        } else {
            1
        };
        if count == 1 {
            games.push(game(file));
            continue;
        }
        games.extend((0..count).map(|page| {
            game(PageFile {
                path: file.path.clone(),
                page: Some(page),
            })
        }));
    }
    Ok(games)
}

/// The games of the manifest `input`, one a line ([`plan`]); an error names the line.
fn manifest_games(input: &Path) -> Result<Vec<BatchGame>, BatchError> {
    let name = input.display();
    let text = std::fs::read_to_string(input)
        .map_err(|e| BatchError(format!("{name}: not a folder or a readable manifest: {e}")))?;
    let base = input.parent().unwrap_or(Path::new("."));
    let mut games = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let game = manifest_game(line, base)
            .map_err(|cause| BatchError(format!("{name}:{}: {cause}", number + 1)))?;
        games.push(game);
    }
    Ok(games)
}

/// The game of one manifest line: its pages (relative to `base`), the copy's after `|`, its
/// start and its tags; the cause of the refusal if the line is not one game.
fn manifest_game(line: &str, base: &Path) -> Result<BatchGame, String> {
    let mut start = None;
    let mut tags = PgnTags::default();
    let mut fields: Vec<&str> = Vec::new();
    for field in line.split('\t').map(str::trim).filter(|p| !p.is_empty()) {
        // A tag: `white=Botvinnik, M.` (a name `PgnTags::named` knows, `=`, the value).
        if let Some((name, value)) = field.split_once('=') {
            if let Some(tag) = tags.named(name) {
                if tag.is_some() {
                    return Err(format!("more than one {name}="));
                }
                if value.trim().is_empty() {
                    return Err(format!("{name}= has no value"));
                }
                *tag = Some(value.trim().to_string());
                continue;
            }
        }
        match start_of_field(field) {
            None => fields.push(field),
            Some(_) if start.is_some() => return Err("more than one start position".into()),
            Some(Ok(position)) => start = Some(position),
            Some(Err(cause)) => return Err(cause),
        }
    }
    let mut parts = fields.split(|field| *field == COPY_SEPARATOR);
    let pages: Vec<PageFile> = parts
        .next()
        .unwrap_or_default()
        .iter()
        .map(|p| PageFile::parse(p, base))
        .collect();
    let copy: Vec<PageFile> = match parts.next() {
        None => Vec::new(),
        Some([]) => return Err("no copy pages after `|`".into()),
        Some(copy) => copy.iter().map(|p| PageFile::parse(p, base)).collect(),
    };
    if parts.next().is_some() {
        return Err("more than one `|`: a game has one copy".into());
    }
    let Some(first) = pages.first() else {
        return Err("no page".into());
    };
    Ok(BatchGame {
        id: game_id(first),
        pages,
        copy,
        start,
        tags,
    })
}

/// Each page of a game's JSON (`pages`) with its number in the array `key` of the same JSON,
/// one entry a page; pages without a number are left out.
fn per_page<'j>(json: &'j Value, key: &str) -> impl Iterator<Item = (String, f64)> + 'j {
    let pages = json["pages"].as_array().into_iter().flatten();
    let numbers = json[key].as_array().into_iter().flatten();
    pages
        .zip(numbers)
        .filter_map(|(page, number)| Some((page.as_str()?.to_string(), number.as_f64()?)))
}

/// How a batch went.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BatchSummary {
    /// Games of this shard.
    pub games: usize,
    /// Read in this run.
    pub read: usize,
    /// Already done by an earlier run.
    pub skipped: usize,
    /// Moves and flagged moves over every finished game of this shard.
    pub moves: usize,
    pub flagged: usize,
    /// `(first page, cause)` of every game that could not be read.
    pub failures: Vec<(String, String)>,
    /// `(first page, cause)` of every finished game read from one player's sheet because the
    /// other's could not be read ([`crate::read::GameRead::set_aside`]).
    pub set_aside: Vec<(String, String)>,
    /// Every page of a finished game whose file was cut short
    /// ([`crate::read::GameRead::torn_pages`]).
    pub torn_pages: Vec<String>,
    /// `(file, degrees)` of every page of a finished game that was turned to stand upright
    /// (`pages_turned_upright_degrees` of the game's JSON): scans fed the wrong way round.
    pub turned_pages: Vec<(String, f64)>,
    /// `(file, pixels)` of every page of a finished game whose cells are under
    /// [`crate::read::SMALL_CELL_HEIGHT`] pixels high (`pages_cell_height_px` of the game's
    /// JSON): photographed from afar or scanned at a low resolution, and misread more often.
    pub small_cell_pages: Vec<(String, f64)>,
    /// Every page of a finished game on which no cell shows writing (`blank_pages` of the
    /// game's JSON, [`crate::read::GameRead::blank_pages`]): a blank sheet, or writing too
    /// faint to see.
    pub blank_pages: Vec<String>,
    /// The first page of every finished game decoded from the usual start whose first moves
    /// fit it so poorly that it may have begun elsewhere (`start_doubt` of the game's JSON,
    /// [`crate::read::GameRead::start_doubt`]).
    pub start_doubts: Vec<String>,
    /// The first page of every finished game given no start and read from a Chess960 start
    /// found from its writing (`start_found` of the game's JSON,
    /// [`crate::read::GameRead::start_found`]).
    pub starts_found: Vec<String>,
    /// The first page of every finished game with a later page whose first moves fit it so
    /// poorly that the page may not continue the game (`continuation_doubts` of the game's
    /// JSON, [`crate::read::GameRead::continuation_doubts`]).
    pub continuation_doubts: Vec<String>,
    /// The first page of every finished game read in English descriptive notation
    /// (`notation` of the game's JSON): told from its cells unless the batch was told.
    pub descriptive: Vec<String>,
    /// Every finished game, in the input's order: what to review first.
    pub by_game: Vec<GameLine>,
    pub seconds: f64,
}

/// A finished game in a batch's summary: its first page, result, moves and flagged moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameLine {
    pub file: String,
    pub result: String,
    pub moves: usize,
    pub flagged: usize,
}

impl BatchSummary {
    pub fn to_json(&self) -> Value {
        json!({
            "games": self.games,
            "read": self.read,
            "skipped": self.skipped,
            "finished": self.games - self.failures.len(),
            "moves": self.moves,
            "flagged": self.flagged,
            "failures": self.failures.iter()
                .map(|(file, error)| json!({"file": file, "error": error}))
                .collect::<Vec<_>>(),
            "set_aside": self.set_aside.iter()
                .map(|(file, error)| json!({"file": file, "error": error}))
                .collect::<Vec<_>>(),
            "torn_pages": self.torn_pages,
            "turned_pages": self.turned_pages.iter()
                .map(|(file, degrees)| json!({"file": file, "degrees": degrees}))
                .collect::<Vec<_>>(),
            "small_cell_pages": self.small_cell_pages.iter()
                .map(|(file, pixels)| json!({"file": file, "cell_height_px": pixels}))
                .collect::<Vec<_>>(),
            "blank_pages": self.blank_pages,
            "start_doubts": self.start_doubts,
            "starts_found": self.starts_found,
            "continuation_doubts": self.continuation_doubts,
            "descriptive": self.descriptive,
            "by_game": self.by_game.iter()
                .map(|g| json!({
                    "file": g.file,
                    "result": g.result,
                    "moves": g.moves,
                    "flagged": g.flagged,
                }))
                .collect::<Vec<_>>(),
            "seconds": (self.seconds * 10.0).round() / 10.0,
        })
    }
}

/// Writes `bytes` to `path` whole or not at all: a temporary file beside it, renamed into place.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{file_name}.{}.tmp", std::process::id()));
    std::fs::write(&temporary, bytes)
        .and_then(|_| std::fs::rename(&temporary, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            format!("{}: {e}", path.display())
        })
}

/// Shows progress on standard error: a bar with the rate and time left on a terminal, a line
/// every tenth of the work otherwise.
struct Progress {
    total: usize,
    done: AtomicUsize,
    started: Instant,
    terminal: bool,
    lock: Mutex<()>,
}

impl Progress {
    fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        let _guard = self.lock.lock();
        let elapsed = self.started.elapsed().as_secs_f64();
        let rate = done as f64 / elapsed.max(1e-6);
        let left = (self.total - done) as f64 / rate.max(1e-9);
        let width = 30;
        let filled = done * width / self.total.max(1);
        let line = format!(
            "[{}{}] {done}/{} games, {rate:.2} games/s, {:.0} s left",
            "#".repeat(filled),
            "-".repeat(width - filled),
            self.total,
            left
        );
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\r{line}");
            if done == self.total {
                let _ = writeln!(err);
            }
        } else if done == self.total || done.is_multiple_of((self.total / 10).max(1)) {
            let _ = writeln!(err, "{line}");
        }
    }
}

/// Reads every game of `games` in `shard` into `out` (`<id>.json` each, and with `reports`
/// its review page `<id>.html` before it; then `games.pgn` of every finished game and
/// `_summary.json`), on the current rayon pool. Games whose JSON is already in `out` are not
/// read again.
pub fn run(
    games: &[BatchGame],
    shard: Shard,
    out: &Path,
    reader: &Reader,
    options: &ReadOptions,
    reports: bool,
) -> Result<BatchSummary, BatchError> {
    std::fs::create_dir_all(out).map_err(|e| BatchError(format!("{}: {e}", out.display())))?;
    let started = Instant::now();
    let mine: Vec<&BatchGame> = games
        .iter()
        .enumerate()
        .filter(|(i, _)| i % shard.count == shard.index)
        .map(|(_, g)| g)
        .collect();
    let result_path = |game: &BatchGame| out.join(format!("{}.json", game.id));
    let todo: Vec<&BatchGame> = mine
        .iter()
        .copied()
        .filter(|g| !result_path(g).is_file())
        .collect();
    let progress = Progress {
        total: todo.len(),
        done: AtomicUsize::new(0),
        started: Instant::now(),
        terminal: std::io::stderr().is_terminal(),
        lock: Mutex::new(()),
    };
    let failures: Vec<(String, String)> = todo
        .par_iter()
        .filter_map(|game| {
            let report = reports.then(|| out.join(format!("{}.html", game.id)));
            let outcome = read_one(game, reader, options, report.as_deref())
                .and_then(|json| write_atomically(&result_path(game), json.as_bytes()));
            progress.tick();
            outcome
                .err()
                .map(|cause| (game.pages[0].to_string(), cause))
        })
        .collect();

    // The database and the counts cover every finished game of the shard, this run's or not.
    let finished = Finished::of(&mine, result_path);
    let suffix = if shard.count > 1 {
        format!(".{}-of-{}", shard.index, shard.count)
    } else {
        String::new()
    };
    write_atomically(
        &out.join(format!("games{suffix}.pgn")),
        finished.pgn.as_bytes(),
    )
    .map_err(BatchError)?;
    let summary = BatchSummary {
        games: mine.len(),
        read: todo.len() - failures.len(),
        skipped: mine.len() - todo.len(),
        moves: finished.moves,
        flagged: finished.flagged,
        failures,
        set_aside: finished.set_aside,
        torn_pages: finished.torn_pages,
        turned_pages: finished.turned_pages,
        small_cell_pages: finished.small_cell_pages,
        blank_pages: finished.blank_pages,
        start_doubts: finished.start_doubts,
        starts_found: finished.starts_found,
        continuation_doubts: finished.continuation_doubts,
        descriptive: finished.descriptive,
        by_game: finished.by_game,
        seconds: started.elapsed().as_secs_f64(),
    };
    let text = serde_json::to_string_pretty(&summary.to_json()).unwrap_or_default() + "\n";
    write_atomically(&out.join(format!("_summary{suffix}.json")), text.as_bytes())
        .map_err(BatchError)?;
    Ok(summary)
}

/// What the finished games of a shard add up to: the PGN database of them all, and the
/// counts and lists of the summary ([`BatchSummary`]).
#[derive(Default)]
struct Finished {
    pgn: String,
    moves: usize,
    flagged: usize,
    set_aside: Vec<(String, String)>,
    torn_pages: Vec<String>,
    turned_pages: Vec<(String, f64)>,
    small_cell_pages: Vec<(String, f64)>,
    blank_pages: Vec<String>,
    start_doubts: Vec<String>,
    starts_found: Vec<String>,
    continuation_doubts: Vec<String>,
    descriptive: Vec<String>,
    by_game: Vec<GameLine>,
}

impl Finished {
    /// Adds up the JSON of every game of `games` that has one (at `result_path(game)`): a game
    /// whose JSON is missing or unreadable has not finished.
    fn of(games: &[&BatchGame], result_path: impl Fn(&BatchGame) -> PathBuf) -> Finished {
        let mut finished = Finished::default();
        for game in games {
            let json = std::fs::read_to_string(result_path(game))
                .ok()
                .and_then(|text| serde_json::from_str::<Value>(&text).ok());
            if let Some(json) = json {
                finished.add(game, &json);
            }
        }
        finished
    }

    /// Adds `game`, from its JSON.
    fn add(&mut self, game: &BatchGame, json: &Value) {
        let first_page = || game.pages[0].to_string();
        let moves = json["moves"].as_array().map_or(0, Vec::len);
        let flagged = json["flagged"].as_u64().unwrap_or(0) as usize;
        self.moves += moves;
        self.flagged += flagged;
        self.by_game.push(GameLine {
            file: first_page(),
            result: json["result"].as_str().unwrap_or("*").to_string(),
            moves,
            flagged,
        });
        if let Some(error) = json["set_aside"]["error"].as_str() {
            self.set_aside.push((first_page(), error.to_string()));
        }
        if json["start_doubt"].is_string() {
            self.start_doubts.push(first_page());
        }
        if json["start_found"].is_string() {
            self.starts_found.push(first_page());
        }
        if json["continuation_doubts"]
            .as_array()
            .is_some_and(|notes| !notes.is_empty())
        {
            self.continuation_doubts.push(first_page());
        }
        if json["notation"] == "descriptive" {
            self.descriptive.push(first_page());
        }
        if let Some(pages) = json["torn_pages"].as_array() {
            let torn = pages.iter().filter_map(Value::as_str).map(String::from);
            self.torn_pages.extend(torn);
        }
        if let Some(pages) = json["blank_pages"].as_array() {
            let blank = pages.iter().filter_map(Value::as_str).map(String::from);
            self.blank_pages.extend(blank);
        }
        let turned = per_page(json, "pages_turned_upright_degrees");
        self.turned_pages
            .extend(turned.filter(|&(_, degrees)| degrees != 0.0));
        let heights = per_page(json, "pages_cell_height_px");
        self.small_cell_pages
            .extend(heights.filter(|&(_, height)| height < f64::from(SMALL_CELL_HEIGHT)));
        if let Some(game_pgn) = json["pgn"].as_str() {
            self.pgn.push_str(game_pgn.trim_end());
            self.pgn.push_str("\n\n");
        }
    }
}

/// One game's JSON (its copy read as evidence for the same plies), with its tags; without an
/// Event, one naming its first page, so the database can be traced back to the archive.
/// With `report`, the game's review page is written there first.
fn read_one(
    game: &BatchGame,
    reader: &Reader,
    options: &ReadOptions,
    report: Option<&Path>,
) -> Result<String, String> {
    let from_start;
    let options = match &game.start {
        Some(start) => {
            from_start = ReadOptions {
                start: start.clone(),
                search_chess960_start: false,
                ..options.clone()
            };
            &from_start
        }
        None => options,
    };
    let FilesRead { sheets, copy, read } =
        read_game_files(&game.pages, &game.copy, reader, options).map_err(|e| e.to_string())?;
    let tags = game.tags.clone().or(&PgnTags {
        event: Some(game.id.clone()),
        ..PgnTags::default()
    });
    if let Some(path) = report {
        write_atomically(path, read.review_html(&sheets, &copy, &tags).as_bytes())?;
    }
    serde_json::to_string_pretty(&read.to_json(&tags))
        .map(|text| text + "\n")
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse_nonsense() {
        assert_eq!(Shard::parse("0/4"), Ok(Shard { index: 0, count: 4 }));
        assert_eq!(Shard::parse("3/4"), Ok(Shard { index: 3, count: 4 }));
        for bad in ["4/4", "1/0", "x/2", "2", "-1/3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_manifest_lists_games_and_clashing_names_are_refused() {
        let dir = std::env::temp_dir().join(format!("scoresheet-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = dir.join("games.tsv");
        std::fs::write(
            &manifest,
            "# round 1\nr1/a.jpg\tr1/a-2.jpg\n\nr1/b.png\t|\tr1/b-black.png\tchess960=0\n",
        )
        .unwrap();
        let whole = |path: &str| PageFile::whole(dir.join(path));
        let games = plan(&manifest, false).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].id, "a");
        assert_eq!(games[0].pages, [whole("r1/a.jpg"), whole("r1/a-2.jpg")]);
        assert!(games[0].copy.is_empty());
        assert_eq!(games[1].id, "b");
        assert_eq!(games[1].pages, [whole("r1/b.png")]);
        assert_eq!(games[1].copy, [whole("r1/b-black.png")]);
        assert_eq!(games[0].start, None);
        let chess960 = games[1].start.as_ref().unwrap();
        assert_eq!(
            chess960.fen(),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
        );
        assert_eq!(chess960.castling_mode, shakmaty::CastlingMode::Chess960);
        let endgame = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1";
        std::fs::write(&manifest, format!("start={endgame}\tr1/e.jpg\n")).unwrap();
        let games = plan(&manifest, false).unwrap();
        assert_eq!(games[0].pages, [whole("r1/e.jpg")]);
        assert_eq!(
            games[0].start.as_ref().map(StartPosition::fen).as_deref(),
            Some(endgame)
        );
        std::fs::write(
            &manifest,
            "r1/t.jpg\twhite=Tal, Mikhail\tblack=Botvinnik, M.\tround=3\tevent=WCh 1960\n",
        )
        .unwrap();
        let games = plan(&manifest, false).unwrap();
        assert_eq!(games[0].pages, [whole("r1/t.jpg")]);
        let tags = PgnTags {
            event: Some("WCh 1960".into()),
            round: Some("3".into()),
            white: Some("Tal, Mikhail".into()),
            black: Some("Botvinnik, M.".into()),
            ..PgnTags::default()
        };
        assert_eq!(games[0].tags, tags);
        // A field that only looks like a tag is a page.
        std::fs::write(&manifest, "r1/white=me.jpg\n").unwrap();
        assert_eq!(
            plan(&manifest, false).unwrap()[0].pages,
            [whole("r1/white=me.jpg")]
        );
        // Pages of a round scanned into one file: `FILE#N` when FILE exists.
        std::fs::create_dir_all(dir.join("r1")).unwrap();
        std::fs::write(dir.join("r1/round.pdf"), b"%PDF-").unwrap();
        std::fs::write(&manifest, "r1/round.pdf#2\t|\tr1/round.pdf#3\nr1/x.jpg#1\n").unwrap();
        let games = plan(&manifest, false).unwrap();
        let page = |n| PageFile {
            path: dir.join("r1/round.pdf"),
            page: Some(n),
        };
        assert_eq!(
            (games[0].pages.clone(), games[0].copy.clone()),
            (vec![page(1)], vec![page(2)])
        );
        assert_eq!(games[0].id, "round-p2");
        assert_eq!(
            games[0].pages[0].to_string(),
            format!("{}#2", dir.join("r1/round.pdf").display())
        );
        assert_eq!(games[1].pages, [whole("r1/x.jpg#1")]);
        assert!(plan(&manifest, true).unwrap_err().0.contains("--each-page"));
        for (line, cause) in [
            ("r1/c.jpg\twhite=A\twhite=B\n", "more than one white="),
            ("r1/c.jpg\tround=\n", "round= has no value"),
            ("r1/c.jpg\t|\n", "no copy pages"),
            ("r1/c.jpg\t|\tx.jpg\t|\ty.jpg\n", "more than one"),
            ("|\tr1/c.jpg\n", "no page"),
            ("r1/c.jpg\tchess960=960\n", "960 does not exist"),
            ("r1/c.jpg\tchess960=x\n", "a number from 0 to 959"),
            ("r1/c.jpg\tstart=8/8/8 w - - 0 1\n", "not a valid FEN"),
            (
                "r1/c.jpg\tstart=8/8/8/8/8/8/8/8 w - - 0 1\n",
                "not a legal position",
            ),
            ("r1/c.jpg\tchess960=1\tchess960=2\n", "more than one start"),
        ] {
            std::fs::write(&manifest, line).unwrap();
            let err = plan(&manifest, false).unwrap_err().to_string();
            assert!(
                err.contains(":1: ") && err.contains(cause),
                "{line:?}: {err}"
            );
        }
        std::fs::write(&manifest, "r1/a.jpg\nr2/a.jpg\n").unwrap();
        let err = plan(&manifest, false).unwrap_err().to_string();
        assert!(err.contains("a.json"), "{err}");
        let err = plan(&dir.join("none"), false).unwrap_err().to_string();
        assert!(err.contains("none"), "{err}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn each_page_of_a_folder_s_files_is_a_game_when_asked() {
        let dir = std::env::temp_dir().join(format!("scoresheet-pages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut tiff = std::io::Cursor::new(Vec::new());
        let mut encoder = tiff::encoder::TiffEncoder::new(&mut tiff).unwrap();
        for _ in 0..3 {
            encoder
                .write_image::<tiff::encoder::colortype::Gray8>(8, 8, &[200; 64])
                .unwrap();
        }
        std::fs::write(dir.join("round.tif"), tiff.into_inner()).unwrap();
        image::GrayImage::new(8, 8)
            .save(dir.join("single.png"))
            .unwrap();
        let ids = |each_page| -> Vec<String> {
            let games = plan(&dir, each_page).unwrap();
            games.into_iter().map(|game| game.id).collect()
        };
        assert_eq!(ids(false), ["round", "single"]);
        assert_eq!(ids(true), ["round-p1", "round-p2", "round-p3", "single"]);
        let games = plan(&dir, true).unwrap();
        assert_eq!(games[1].pages[0].page, Some(1));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn atomic_writes_leave_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("scoresheet-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.json");
        write_atomically(&path, b"{}").unwrap();
        write_atomically(&path, b"{\"a\":1}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(dir);
    }
}
