//! Measures the cell reader: on labelled generated cells (`scoresheet-synth --cells`, e.g. of
//! the validation writers and fonts) the character error rate and exact-cell rate of the best
//! path, per language; on the real-dev scans (cells found by the page stage, truth from each
//! game's moves) the exact-cell rate and how often the true move scores first among the
//! position's legal moves, and the whole pipeline's move accuracy; and cells read per second.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Parser;
use image::GrayImage;
use scoresheet::decode::{decode_along, search_loss, Calibration, CellEvidence, DecodedMove};
use scoresheet::games::shared_data_dir;
use scoresheet::notation::{for_each_form, legal_moves_with_facts, Language, Style};
use scoresheet::page::{find_cells, PageOptions, Sheet};
use scoresheet::read::{
    read_game, CellReading, GameRead, LaterPageOpening, NotationChoice, ReadError, ReadOptions,
    OPENING_DOUBT_FLAGS, OPENING_PLIES,
};
use scoresheet::recognize::ctc::latin_lookalike;
use scoresheet::recognize::{
    crop_cells, read_crops, shipped_model_path, CtcCell, Reader, DEFAULT_EVIDENCE_SCALE,
    READING_BEAM,
};
use scoresheet::start::StartPosition;
use scoresheet::synth::glyphs::npy_u8_payload;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{Chess, EnPassantMode, Move, Position};

#[derive(Parser)]
#[command(about = "Measures how well the cell reader reads handwritten moves")]
struct Args {
    /// The reader (.onnx with its .json card); default: the shipped model.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Folders of labelled cells (`scoresheet-synth --cells --out DIR`).
    #[arg(long)]
    cells: Vec<PathBuf>,
    /// Read at most this many cells of each folder.
    #[arg(long, default_value_t = 6000)]
    limit: usize,
    /// Folder of the real-dev scans (default: the shared data folder's real-dev/).
    #[arg(long)]
    real_dev: Option<PathBuf>,
    /// Skip the real-dev scans.
    #[arg(long)]
    no_real: bool,
    /// Print every real cell read wrongly, and the decoding (ply by ply: the cell and step
    /// each true and decoded move was read with; the true game's score) of every real sheet
    /// and of every generated sheet read with an error; then how many wrong plies of the
    /// generated sheets the search lost and how many the decoder's model favours.
    #[arg(long)]
    show_errors: bool,
    /// Write the model's input crop of every real cell read wrongly (or whose true move is not
    /// ranked first) here, as `<game>-<ply>-<written>-<read>.png`, to see what the reader saw.
    #[arg(long, value_name = "DIR")]
    save_errors: Option<PathBuf>,
    /// Folders of generated sheets (`scoresheet-synth --out DIR`) to read end to end.
    #[arg(long)]
    sheets: Vec<PathBuf>,
    /// Print each generated sheet's plies read right, plies flagged and seconds taken.
    #[arg(long)]
    per_sheet: bool,
    /// Also read each game of more than one sheet (`scoresheet-synth --pages`) with the next
    /// such game's second sheet in place of its own, and count how many of these pages, which
    /// do not continue the first, are noted so (`continuation_doubts`).
    #[arg(long)]
    swapped_pages: bool,
    /// At most this many sheets of each folder.
    #[arg(long, default_value_t = 60)]
    sheet_limit: usize,
    /// Weight of the reader's evidence in the decoder (see `CtcCell::with_scale`).
    #[arg(long, default_value_t = DEFAULT_EVIDENCE_SCALE)]
    evidence_scale: f32,
    /// Overrides a decoder setting of `DecoderConfig::for_handwriting` (what `read` uses), as
    /// decode-bench's `--set` does for the typed defaults (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    overrides: Vec<String>,
    /// Read every sheet as algebraic. By default, as `scoresheet read` does, a sample of each
    /// sheet's cells is read with the reader of descriptive notation to tell a descriptive
    /// sheet, which is then read with that reader (not with --model).
    #[arg(long)]
    algebraic: bool,
    /// Decode each sheet once, without learning how the reader misreads its writer
    /// (`read::writer`).
    #[arg(long)]
    no_writer_adaptation: bool,
}

fn main() {
    let args = Args::parse();
    if let Err(message) = run(&args) {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> Result<(), String> {
    // Settings are checked before the model loads and the cells are read.
    let mut decoder = ReadOptions::default().decoder;
    for setting in &args.overrides {
        let (name, value) = setting
            .split_once('=')
            .ok_or(format!("--set {setting}: takes NAME=VALUE"))?;
        let value: f32 = value.parse().map_err(|e| format!("--set {setting}: {e}"))?;
        decoder.set(name, value)?;
    }
    let path = args.model.clone().unwrap_or_else(shipped_model_path);
    let reader = Reader::load(&path).map_err(|e| e.to_string())?;
    println!(
        "model {} ({}, {} characters)",
        path.display(),
        reader.card.version,
        reader.charset().classes() - 1
    );
    // The first run pays ONNX Runtime's start-up; keep it out of the speed figures.
    let (width, height) = reader.input_size();
    reader
        .read(&[GrayImage::from_pixel(width, height, image::Luma([255]))])
        .map_err(|e| e.to_string())?;
    for folder in &args.cells {
        generated(&reader, folder, args.limit)?;
    }
    let notation = if args.algebraic || args.model.is_some() {
        NotationChoice::Algebraic
    } else {
        NotationChoice::Detect(Reader::descriptive().map_err(|e| e.to_string())?)
    };
    let options = ReadOptions {
        evidence_scale: args.evidence_scale,
        adapt_to_writer: !args.no_writer_adaptation,
        decoder,
        notation,
        ..ReadOptions::default()
    };
    for folder in &args.sheets {
        generated_sheets(
            &reader,
            folder,
            args.sheet_limit,
            args.show_errors,
            args.per_sheet,
            args.swapped_pages,
            &options,
        )?;
    }
    if !args.no_real {
        let dir = args
            .real_dev
            .clone()
            .unwrap_or_else(|| shared_data_dir().join("real-dev"));
        real(
            &reader,
            &dir,
            args.show_errors,
            args.save_errors.as_deref(),
            &options,
        )?;
    }
    Ok(())
}

#[derive(Default)]
struct Tally {
    cells: usize,
    exact: usize,
    char_errors: usize,
    chars: usize,
}

impl Tally {
    fn add(&mut self, read: &str, truth: &str) {
        // Letters that look alike across scripts (К and K) count as the same: no reader can
        // tell them apart from the ink.
        let (read, truth): (Vec<char>, Vec<char>) = (
            read.chars().map(latin_lookalike).collect(),
            truth.chars().map(latin_lookalike).collect(),
        );
        self.cells += 1;
        self.exact += usize::from(read == truth);
        self.char_errors += edit_distance(&read, &truth);
        self.chars += truth.len().max(1);
    }

    /// Adds the cells `other` counted.
    fn merge(&mut self, other: &Tally) {
        self.cells += other.cells;
        self.exact += other.exact;
        self.char_errors += other.char_errors;
        self.chars += other.chars;
    }

    fn line(&self, name: &str) -> String {
        format!(
            "{name:<10} {:>6} cells  exact {:>6.2}%  CER {:>5.2}%",
            self.cells,
            100.0 * self.exact as f64 / self.cells.max(1) as f64,
            100.0 * self.char_errors as f64 / self.chars.max(1) as f64
        )
    }
}

fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// Labelled crops of a `scoresheet-synth --cells` folder: (crop, text, language).
fn load_cells(
    folder: &Path,
    limit: usize,
    size: (u32, u32),
) -> Result<Vec<(GrayImage, String, String)>, String> {
    let labels_path = folder.join("labels.tsv");
    let labels = std::fs::read_to_string(&labels_path)
        .map_err(|e| format!("{}: {e}", labels_path.display()))?;
    let mut lines = labels.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or(format!("{}: no column {name}", labels_path.display()))
    };
    let (c_file, c_row, c_text, c_lang) = (
        column("file")?,
        column("row")?,
        column("text")?,
        column("language")?,
    );
    let (width, height) = size;
    let plane = (width * height) as usize;
    let mut shards: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut out = Vec::new();
    for line in lines.take(limit) {
        let fields: Vec<&str> = line.split('\t').collect();
        let field = |i: usize| fields.get(i).copied().unwrap_or("");
        let file = field(c_file).to_string();
        if !shards.contains_key(&file) {
            let path = folder.join(&file);
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let pixels = npy_u8_payload(&bytes)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .to_vec();
            shards.insert(file.clone(), pixels);
        }
        let row: usize = field(c_row)
            .parse()
            .map_err(|_| format!("{}: bad row in {line:?}", labels_path.display()))?;
        let pixels = shards[&file]
            .get(row * plane..(row + 1) * plane)
            .ok_or(format!(
                "{}: row {row} is past the end of {file} (is the crop {width}x{height}?)",
                labels_path.display()
            ))?;
        let crop = GrayImage::from_raw(width, height, pixels.to_vec())
            .ok_or("crop size mismatch".to_string())?;
        out.push((crop, field(c_text).to_string(), field(c_lang).to_string()));
    }
    Ok(out)
}

fn generated(reader: &Reader, folder: &Path, limit: usize) -> Result<(), String> {
    let cells = load_cells(folder, limit, reader.input_size())?;
    let crops: Vec<GrayImage> = cells.iter().map(|c| c.0.clone()).collect();
    let started = Instant::now();
    let posteriors = reader.read(&crops).map_err(|e| e.to_string())?;
    let elapsed = started.elapsed();
    let mut by_language: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut all = Tally::default();
    let mut blanks = Tally::default();
    let mut in_letters = Tally::default();
    for ((_, truth, language), posteriors) in cells.iter().zip(&posteriors) {
        let (read, _) = posteriors.best_path();
        all.add(&read, truth);
        if let Some(lang) = Language::by_code(language) {
            let text = posteriors.likeliest_text_in(|c| lang.writes(c), READING_BEAM);
            in_letters.add(&text, truth);
        }
        if truth.is_empty() {
            blanks.add(&read, truth);
        } else {
            by_language.entry(language).or_default().add(&read, truth);
        }
    }
    println!("\n{} ({} cells)", folder.display(), cells.len());
    for (language, tally) in &by_language {
        println!("  {}", tally.line(language));
    }
    println!("  {}", blanks.line("(empty)"));
    println!("  {}", all.line("all"));
    println!("  read in the letters of the cell's language (as a sheet's cells are reported):");
    println!("  {}", in_letters.line("all"));
    print_speed(cells.len(), elapsed);
    Ok(())
}

fn print_speed(cells: usize, elapsed: Duration) {
    println!(
        "  speed: {:.3} ms per cell, {:.0} cells/s ({} threads)",
        elapsed.as_secs_f64() * 1000.0 / cells.max(1) as f64,
        cells as f64 / elapsed.as_secs_f64().max(1e-9),
        rayon::current_num_threads()
    );
}

/// The game a real-dev folder holds, as the positions before each ply and the moves played.
fn real_game(path: &Path) -> Result<Vec<(Chess, Move, String)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut position = Chess::default();
    let mut plies = Vec::new();
    for token in text.split_whitespace() {
        if token.ends_with('.') || ["1-0", "0-1", "1/2-1/2", "*"].contains(&token) {
            continue;
        }
        let san: San = token
            .parse()
            .map_err(|e| format!("{}: {token:?}: {e}", path.display()))?;
        let m = san
            .to_move(&position)
            .map_err(|e| format!("{}: {token:?}: {e}", path.display()))?;
        plies.push((position.clone(), m, token.to_string()));
        position.play_unchecked(m);
    }
    Ok(plies)
}

/// Whether the true move scores strictly above every other legal move when each move is
/// scored as the decoder scores it: its best written form's likelihood plus that form's
/// style weight.
fn true_move_first(cell: &CtcCell, position: &Chess, played: Move, english: &Language) -> bool {
    let style = Style::default();
    let mut best_true = f32::NEG_INFINITY;
    let mut best_other = f32::NEG_INFINITY;
    let mut chars: Vec<char> = Vec::with_capacity(16);
    for (m, facts) in legal_moves_with_facts(position) {
        let mut best = f32::NEG_INFINITY;
        for_each_form(&facts, english, &style, &mut |text, weight| {
            chars.clear();
            chars.extend(text.chars());
            best = best.max(weight + cell.log_likelihood(&chars, "", f32::NEG_INFINITY));
        });
        if m == played {
            best_true = best;
        } else {
            best_other = best_other.max(best);
        }
    }
    best_true > best_other
}

fn real(
    reader: &Reader,
    dir: &Path,
    show_errors: bool,
    save_errors: Option<&Path>,
    options: &ReadOptions,
) -> Result<(), String> {
    if let Some(folder) = save_errors {
        std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    }
    let games = real_dev_games(dir)?;
    println!("\nreal-dev scans ({})", dir.display());
    let mut total = RealCells::default();
    for game in &games {
        let name = game
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let shown = ShownErrors {
            print: show_errors,
            save_to: save_errors,
            game: &name,
        };
        let cells = read_real_cells(reader, game, &shown)?;
        println!("  {}", cells.line(&name));
        total.add(&cells);
    }
    println!("  {}", total.line("all"));
    println!("  (exact: the best path equals the move as the game records it; written form: it is");
    println!("  one of the ways an English player may write the true move)");
    print_speed(total.read, total.read_time);
    println!(
        "  of which cutting the crops from the scans: {:.3} ms per cell",
        total.cut_time.as_secs_f64() * 1000.0 / total.read.max(1) as f64
    );
    decode_real(reader, &games, options, show_errors)
}

/// The real-dev games' folders (`gameN`, each with `gameN.png` and `moves_san.txt`) in the
/// order of their numbers.
fn real_dev_games(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut games: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    games.sort_by_key(|p| {
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        name.trim_start_matches("game")
            .parse::<u32>()
            .unwrap_or(u32::MAX)
    });
    Ok(games)
}

/// What becomes of the real cells read wrongly (or whose true move does not rank first).
struct ShownErrors<'a> {
    /// Printed, a line each (`--show-errors`).
    print: bool,
    /// Their crops saved here (`--save-errors`).
    save_to: Option<&'a Path>,
    /// The game they are of.
    game: &'a str,
}

/// The reader on real cells: the best paths against what the game records, how many are a
/// form of the true move, how often the true move ranks first, and the time taken.
#[derive(Default)]
struct RealCells {
    tally: Tally,
    as_form: usize,
    first: usize,
    /// Cells read, and the time cutting their crops and cutting and reading them took.
    read: usize,
    cut_time: Duration,
    read_time: Duration,
}

impl RealCells {
    fn add(&mut self, other: &RealCells) {
        self.tally.merge(&other.tally);
        self.as_form += other.as_form;
        self.first += other.first;
        self.read += other.read;
        self.cut_time += other.cut_time;
        self.read_time += other.read_time;
    }

    fn line(&self, name: &str) -> String {
        let cells = self.tally.cells.max(1) as f64;
        format!(
            "{}  written form {:>6.2}%  true move first {:>6.2}%",
            self.tally.line(name),
            100.0 * self.as_form as f64 / cells,
            100.0 * self.first as f64 / cells
        )
    }
}

/// Reads the cells the page stage finds on the scan of real-dev game `game` (a folder) and
/// judges each against the game's move of its ply.
fn read_real_cells(reader: &Reader, game: &Path, shown: &ShownErrors) -> Result<RealCells, String> {
    let english = Language::by_code("en").ok_or("no English")?;
    let style = Style::default();
    let image = game.join(format!("{}.png", shown.game));
    let plies = real_game(&game.join("moves_san.txt"))?;
    let sheet = Sheet::open(&image).map_err(|e| e.to_string())?;
    let cells = find_cells(&sheet, &PageOptions::default()).map_err(|e| e.to_string())?;
    // What `read_cells` does, timed in its two parts: cutting the crops, running the model.
    let started = Instant::now();
    let crops = crop_cells(reader, &sheet, &cells);
    let cut_time = started.elapsed();
    let readings = read_crops(reader, &crops).map_err(|e| e.to_string())?;
    let mut judged = RealCells {
        read: readings.len(),
        cut_time,
        read_time: started.elapsed(),
        ..RealCells::default()
    };
    for ((cell, reading), crop) in cells.cells.iter().zip(&readings).zip(&crops) {
        let Some((position, played, san)) = plies.get(cell.ply as usize - 1) else {
            continue;
        };
        let read = reading.text();
        judged.tally.add(read, san);
        let legal = legal_moves_with_facts(position);
        let mut is_form = false;
        if let Some((_, facts)) = legal.iter().find(|(m, _)| m == played) {
            for_each_form(facts, english, &style, &mut |text, _| {
                is_form |= text == read
            });
        }
        let is_first = true_move_first(reading, position, *played, english);
        judged.as_form += usize::from(is_form);
        judged.first += usize::from(is_first);
        if read != san || !is_first {
            show_error(shown, cell.ply, san, reading, is_first, crop)?;
        }
    }
    Ok(judged)
}

/// A real cell of ply `ply` whose move was written `san`, read wrongly as `reading` (or
/// whose true move is not `first`), printed and its `crop` saved as `shown` says.
fn show_error(
    shown: &ShownErrors,
    ply: u32,
    san: &str,
    reading: &CtcCell,
    first: bool,
    crop: &GrayImage,
) -> Result<(), String> {
    let (name, read) = (shown.game, reading.text());
    if shown.print {
        println!(
            "    {name} ply {ply:>3}: wrote {san:<8} read {read:<10} p={:.2} {}",
            reading.text_confidence(),
            if first { "" } else { "(not first)" }
        );
    }
    if let Some(folder) = shown.save_to {
        let safe = |text: &str| text.replace(['/', '\\'], "_");
        let file = folder.join(format!("{name}-{ply:03}-{}-{}.png", safe(san), safe(read)));
        crop.save(&file)
            .map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(())
}

/// The whole pipeline on each real-dev scan (`read::read_game`, language not given): move
/// accuracy against the game's moves as far as the page holds them, ply by ply.
fn decode_real(
    reader: &Reader,
    games: &[PathBuf],
    options: &ReadOptions,
    show_plies: bool,
) -> Result<(), String> {
    println!("\nreal-dev scans read end to end (page, reader, decoder; language not given)");
    let (mut plies, mut right, mut flagged, mut flagged_right) = (0usize, 0usize, 0usize, 0usize);
    let mut reported = Tally::default();
    // True move first as the decoder scores the cells it read: through the writer's
    // confusions where the sheet was decoded again (`read::writer`).
    let (mut decoded_cells, mut decoded_first) = (0usize, 0usize);
    let mut seconds = Vec::new();
    let mut sorted_errors = ErrorSort::default();
    let mut calibration = Calibration::default();
    for game in games {
        let name = game
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let truth = real_game(&game.join("moves_san.txt"))?;
        let started = Instant::now();
        let sheet = Sheet::open(&game.join(format!("{name}.png"))).map_err(|e| e.to_string())?;
        let read = read_game(&[sheet], &[], reader, options).map_err(|e| e.to_string())?;
        seconds.push(started.elapsed().as_secs_f64());
        let on_page = read.cells.len().min(truth.len());
        let search_lost = if show_plies {
            let english = Language::by_code("en").ok_or("no English")?;
            print_decoding(&read, &truth[..on_page], english, options)
        } else {
            false
        };
        for (cell, evidence) in read.cells.iter().zip(&read.evidence) {
            let Some((position, played, san)) = truth.get(cell.cell.ply as usize - 1) else {
                continue;
            };
            if cell.page != 0 {
                continue;
            }
            reported.add(&cell.text, san);
            if let CellReading::Read(reading) = evidence {
                let english = Language::by_code("en").ok_or("no English")?;
                decoded_cells += 1;
                decoded_first += usize::from(true_move_first(reading, position, *played, english));
            }
        }
        let (mut game_right, mut game_flagged) = (0, 0);
        for (ply, (position, played, _)) in truth.iter().take(on_page).enumerate() {
            let decoded = read.game.moves.get(ply);
            let is_right = decoded
                .is_some_and(|m| m.uci == played.to_uci(position.castles().mode()).to_string());
            let is_flagged = decoded.is_none_or(|m| m.flagged);
            if let Some(m) = decoded {
                calibration.add(m.confidence, is_right);
            }
            game_right += usize::from(is_right);
            game_flagged += usize::from(is_flagged);
            flagged_right += usize::from(is_flagged && is_right);
        }
        sorted_errors.add(search_lost, on_page - game_right);
        plies += on_page;
        right += game_right;
        flagged += game_flagged;
        println!(
            "  {name:<8} {on_page:>4} plies  right {:>6.2}%  flagged {:>5.1}%  {:.2} s",
            100.0 * game_right as f64 / on_page.max(1) as f64,
            100.0 * game_flagged as f64 / on_page.max(1) as f64,
            seconds.last().copied().unwrap_or(0.0)
        );
    }
    if show_plies {
        println!("  {}", sorted_errors.line());
    }
    seconds.sort_by(f64::total_cmp);
    let unflagged = plies - flagged;
    println!(
        "  all      {plies:>4} plies  right {:>6.2}%  flagged {:>5.1}%  unflagged right {:>6.2}%  median {:.2} s, mean {:.2} s per sheet",
        100.0 * right as f64 / plies.max(1) as f64,
        100.0 * flagged as f64 / plies.max(1) as f64,
        100.0 * (right - flagged_right) as f64 / unflagged.max(1) as f64,
        seconds.get(seconds.len() / 2).copied().unwrap_or(0.0),
        seconds.iter().sum::<f64>() / seconds.len().max(1) as f64
    );
    println!("  {}", calibration.to_string().replace('\n', "\n  "));
    println!(
        "  cells as the report reads them (likeliest text in the letters of the language decoded):"
    );
    println!("  {}", reported.line("all"));
    println!(
        "  true move first in the evidence decoded (through the writer's confusions where the sheet was decoded again): {:.2}% of {decoded_cells} cells",
        100.0 * decoded_first as f64 / decoded_cells.max(1) as f64
    );
    Ok(())
}

/// Wrong plies sorted by whose error they are (`--show-errors`): plies and sheets where the
/// search lost the true game (it scores better than the game decoded), and where it scores
/// worse or cannot be aligned with the cells (the decoder's model favours the game decoded).
#[derive(Default)]
struct ErrorSort {
    search: (usize, usize),
    model: (usize, usize),
}

impl ErrorSort {
    fn add(&mut self, search_lost: bool, wrong_plies: usize) {
        if wrong_plies == 0 {
            return;
        }
        let errors = if search_lost {
            &mut self.search
        } else {
            &mut self.model
        };
        errors.0 += wrong_plies;
        errors.1 += 1;
    }

    fn line(&self) -> String {
        format!(
            "wrong plies: {} on {} sheets where the search lost the true game (it scores \
             better), {} on {} where it scores worse or cannot be aligned with the cells",
            self.search.0, self.search.1, self.model.0, self.model.1
        )
    }
}

/// How `scoresheet-synth --copies` names the other player's copy of a sheet.
const COPY_SUFFIX: &str = "-copy.json";

/// Each ply's true move beside the decoded one, and the decoded game's score beside the best
/// the decoder's model can give the true game (its moves as far as the page holds them, in
/// language it was written in): a decoded game scoring below the truth is a search error,
/// above it a model error. Returns whether it is a search error.
fn print_decoding(
    read: &GameRead,
    truth: &[(Chess, Move, String)],
    language: &'static Language,
    options: &ReadOptions,
) -> bool {
    let moves: Vec<Move> = truth.iter().map(|(_, m, _)| *m).collect();
    // The true game read along the cells: its score (what `decode::line_score` gives), and
    // where each of its moves was read, its cell and step (a skipped move has no cell).
    let true_read = decode_along(
        &read.evidence,
        &options.start,
        language,
        &moves,
        &options.decoder,
    );
    let truth_score = true_read.as_ref().map(|game| game.score);
    println!(
        "    decoded score {:.2} ({}), true game's score {}",
        read.game.score,
        read.game.language.code,
        truth_score.map_or("none".into(), |s| format!("{s:.2}"))
    );
    if let Some(loss) = search_loss(
        &read.evidence,
        &options.start,
        language,
        &moves,
        &options.decoder,
    ) {
        println!(
            "    the search (in {}) lost the true game: {loss:?}",
            language.code
        );
    }
    let place = |m: Option<&DecodedMove>| {
        m.map_or(String::from("-"), |m| {
            let cell = m.cell.map_or(String::from("--"), |c| (c + 1).to_string());
            format!("{}@{cell}:{:?}", m.san, m.kind)
        })
    };
    for (ply, (_, _, san)) in truth.iter().enumerate() {
        let decoded = read.game.moves.get(ply);
        let text = read.cells.get(ply).map_or("", |c| c.text.as_str());
        let true_place = match &true_read {
            Some(game) => place(game.moves.get(ply)),
            None => san.clone(),
        };
        println!(
            "    ply {:>3} true {true_place:<22} decoded {:<22} read {text:<10} confidence {:.2}{}{}",
            ply + 1,
            place(decoded),
            decoded.map_or(0.0, |m| m.confidence),
            if decoded.is_some_and(|m| m.flagged) {
                " flagged"
            } else {
                ""
            },
            if decoded.is_some_and(|m| &m.san == san) {
                ""
            } else {
                "  <<<"
            }
        );
    }
    truth_score.is_some_and(|truth| truth > read.game.score)
}

/// Generated sheets read end to end (start position from the truth, language not given):
/// move accuracy against the game, ply by ply, per language and layout.
fn generated_sheets(
    reader: &Reader,
    folder: &Path,
    limit: usize,
    show_errors: bool,
    per_sheet: bool,
    swapped_pages: bool,
    options: &ReadOptions,
) -> Result<(), String> {
    let mut truths: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|e| format!("{}: {e}", folder.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| !p.to_string_lossy().ends_with(COPY_SUFFIX))
        .collect();
    truths.sort();
    // A game's later sheets are read with its first (`next_page`), and loaded with it.
    let mut firsts = Vec::new();
    for path in truths {
        if firsts.len() == limit {
            break;
        }
        let json = load_json(&path)?;
        if json["page"].as_u64().unwrap_or(1) <= 1 {
            let truth = SheetTruth::from_first_page(&path, json)?;
            firsts.push((path, truth));
        }
    }
    println!(
        "\n{} ({} sheets read end to end, language not given)",
        folder.display(),
        firsts.len()
    );
    let mut results = SetResults::default();
    let shown = Shown {
        errors: show_errors,
        per_sheet,
    };
    for (path, truth) in &firsts {
        read_generated_sheet(path, truth, folder, reader, options, shown, &mut results)?;
    }
    if swapped_pages {
        results.read_swapped_pages(folder, reader, options)?;
    }
    results.print(show_errors);
    Ok(())
}

/// What `generated_sheets` prints of each sheet besides the set's figures.
#[derive(Clone, Copy)]
struct Shown {
    /// Each sheet read with an error, ply by ply (`--show-errors`).
    errors: bool,
    /// Each sheet's line (`--per-sheet`).
    per_sheet: bool,
}

/// A generated sheet's truth (`scoresheet-synth`'s JSON beside the image): the game's start,
/// its moves in UCI, and each move with the position before it and its SAN.
struct SheetTruth {
    /// The first sheet's truth.
    json: serde_json::Value,
    /// The game's sheets' images, in page order (beside the truth files).
    images: Vec<String>,
    start: StartPosition,
    played: Vec<String>,
    game: Vec<(Chess, Move, String)>,
}

fn load_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

impl SheetTruth {
    /// The truth of the game whose first sheet's truth is `path`, with its later sheets'
    /// (`next_page`), each of which must start where the one before ends.
    fn load(path: &Path) -> Result<SheetTruth, String> {
        SheetTruth::from_first_page(path, load_json(path)?)
    }

    /// [`SheetTruth::load`] with the first sheet's truth (`json`, from `path`) already read.
    fn from_first_page(path: &Path, json: serde_json::Value) -> Result<SheetTruth, String> {
        let start = StartPosition::from_fen(json["start_fen"].as_str().unwrap_or(""))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let (mut images, mut played, mut game) = (Vec::new(), Vec::new(), Vec::new());
        let mut position = start.position.clone();
        let (mut page, mut page_path) = (json.clone(), path.to_path_buf());
        loop {
            let start_fen = Fen::from_position(&position, EnPassantMode::Legal).to_string();
            if page["start_fen"].as_str() != Some(start_fen.as_str()) {
                return Err(format!(
                    "{}: does not start where the sheet before ends",
                    page_path.display()
                ));
            }
            images.push(page["image"].as_str().unwrap_or("").to_string());
            for san in page["moves_san"].as_array().into_iter().flatten() {
                let m = san
                    .as_str()
                    .unwrap_or("")
                    .parse::<San>()
                    .ok()
                    .and_then(|s| s.to_move(&position).ok())
                    .ok_or(format!("{}: bad move {san}", page_path.display()))?;
                played.push(m.to_uci(start.castling_mode).to_string());
                game.push((position.clone(), m, san.as_str().unwrap_or("").to_string()));
                position.play_unchecked(m);
            }
            let Some(next) = page["next_page"].as_str() else {
                break;
            };
            page_path = path.with_file_name(next);
            page = load_json(&page_path)?;
        }
        Ok(SheetTruth {
            json,
            images,
            start,
            played,
            game,
        })
    }

    /// The game's sheets, opened from `folder`.
    fn open_pages(&self, folder: &Path) -> Result<Vec<Sheet>, String> {
        self.images
            .iter()
            .map(|image| Sheet::open(&folder.join(image)).map_err(|e| e.to_string()))
            .collect()
    }

    /// The read game's moves judged over the plies played: a ply the decoded game lacks is
    /// flagged (nothing to trust there), and decoded plies beyond the game are not counted.
    fn judge(&self, read: &Result<GameRead, ReadError>) -> SheetTally {
        let Ok(read) = read else {
            return SheetTally {
                right: 0,
                flagged: self.played.len(),
                flagged_right: 0,
            };
        };
        let judged: Vec<(bool, bool)> = self
            .played
            .iter()
            .enumerate()
            .map(|(ply, uci)| {
                let decoded = read.game.moves.get(ply);
                (
                    decoded.is_some_and(|m| *uci == m.uci),
                    decoded.is_none_or(|m| m.flagged),
                )
            })
            .collect();
        SheetTally {
            right: judged.iter().filter(|(right, _)| *right).count(),
            flagged: judged.iter().filter(|(_, flagged)| *flagged).count(),
            flagged_right: judged.iter().filter(|&&(r, f)| r && f).count(),
        }
    }

    /// The groups a sheet's figures count in: its language, layout, hand, the notation it
    /// was read in, the number of its pages when more than one, and all sheets.
    fn groups(&self, read: &Result<GameRead, ReadError>) -> Vec<String> {
        let json = &self.json;
        let mut groups = vec![
            format!("lang {}", json["language"].as_str().unwrap_or("?")),
            format!("layout {}", json["layout"].as_str().unwrap_or("?")),
            // The hand: the glyph samples' writers (`real glyphs`) or one of the validation
            // fonts no reader was trained on (models/README.md); on seeds 99 and 102 the
            // fonts' sheets hold about half the errors.
            format!("hand {}", json["flags"]["hand"].as_str().unwrap_or("?")),
            // The notation the sheet was read in (told from its cells unless --algebraic).
            format!(
                "read as {}",
                read.as_ref()
                    .map_or("(not read)", |read| read.notation.name())
            ),
            "all".to_string(),
        ];
        if self.images.len() > 1 {
            groups.push(format!("games of {} pages", self.images.len()));
        }
        groups
    }
}

/// One sheet's moves: right, flagged, and flagged but right.
#[derive(Clone, Copy)]
struct SheetTally {
    right: usize,
    flagged: usize,
    flagged_right: usize,
}

/// Sheets' moves added up.
#[derive(Default)]
struct SheetsCount {
    sheets: usize,
    plies: usize,
    right: usize,
    flagged: usize,
    flagged_right: usize,
    exact_games: usize,
}

impl SheetsCount {
    fn add(&mut self, plies: usize, tally: SheetTally) {
        self.sheets += 1;
        self.plies += plies;
        self.right += tally.right;
        self.flagged += tally.flagged;
        self.flagged_right += tally.flagged_right;
        self.exact_games += usize::from(tally.right == plies);
    }
}

/// What a folder of generated sheets adds up to.
#[derive(Default)]
struct SetResults {
    /// The sheets' moves by language, layout, hand, notation, and all.
    groups: BTreeMap<String, SheetsCount>,
    /// Sheets with the other player's copy beside them (`scoresheet-synth --copies`): read
    /// alone and with the copy.
    alone: SheetsCount,
    paired: SheetsCount,
    /// Seconds each sheet took, with its name.
    timed: Vec<(f64, String)>,
    /// Cells the page stage found on the sheets read alone, and crops the reader read.
    cells_found: usize,
    crops_read: usize,
    sorted_errors: ErrorSort,
    /// The confidences of the moves of the sheets read alone.
    calibration: Calibration,
    /// The pages after a game's first, by how many of their first moves were flagged
    /// ([`LaterPageOpening::flagged`]): the continuation rule's evidence on true pages.
    later_pages: OpeningFlags,
    /// The images of each game of more than one page, for `--swapped-pages`.
    paged_games: Vec<Vec<String>>,
    /// With `--swapped-pages`: the second pages of other games read in place of a game's own,
    /// by how many of their first moves were flagged (a game that cannot be read so is left
    /// out).
    swapped_pages: OpeningFlags,
}

/// Later pages counted by how many of their first [`OPENING_PLIES`] moves were flagged, so
/// that the continuation rule's bar ([`OPENING_DOUBT_FLAGS`]) can be seen against true and
/// swapped pages.
#[derive(Default)]
struct OpeningFlags {
    pages_by_flags: [usize; OPENING_PLIES + 1],
    /// The pages the rule notes ([`LaterPageOpening::is_doubtful`]).
    noted: usize,
}

impl OpeningFlags {
    fn add(&mut self, pages: &[LaterPageOpening]) {
        for page in pages {
            self.pages_by_flags[page.flagged.min(OPENING_PLIES)] += 1;
            self.noted += usize::from(page.is_doubtful());
        }
    }

    fn pages(&self) -> usize {
        self.pages_by_flags.iter().sum()
    }

    /// `N of M (pages by flagged opening moves, 12: 0:n 1:n ...)`: the pages noted, all
    /// pages, and the pages by their flagged moves, the empty counts left out.
    fn line(&self) -> String {
        let counts: Vec<String> = (self.pages_by_flags.iter().enumerate())
            .filter(|&(_, &pages)| pages > 0)
            .map(|(flags, pages)| format!("{flags}:{pages}"))
            .collect();
        format!(
            "{} of {} (pages by flagged opening moves, {OPENING_PLIES}: {}; noted from {OPENING_DOUBT_FLAGS})",
            self.noted,
            self.pages(),
            counts.join(" ")
        )
    }
}

/// Reads the generated sheet whose truth is `path` (in `folder`), alone and, when its
/// other player's copy lies beside it, with the copy, and adds it to `results`.
fn read_generated_sheet(
    path: &Path,
    truth: &SheetTruth,
    folder: &Path,
    reader: &Reader,
    options: &ReadOptions,
    shown: Shown,
    results: &mut SetResults,
) -> Result<(), String> {
    let options = ReadOptions {
        start: truth.start.clone(),
        ..options.clone()
    };
    let image = folder.join(&truth.images[0]);
    let started = Instant::now();
    let crops_before = reader.crops_read();
    let pages = truth.open_pages(folder)?;
    let read = read_game(&pages, &[], reader, &options);
    let stem = image.file_stem().unwrap_or_default().to_string_lossy();
    let seconds = started.elapsed().as_secs_f64();
    results.timed.push((seconds, stem.to_string()));
    results.crops_read += reader.crops_read() - crops_before;
    let plies = truth.played.len();
    let tally = truth.judge(&read);
    if let Ok(read) = &read {
        results.later_pages.add(&read.later_pages);
        if pages.len() > 1 {
            results.paged_games.push(truth.images.clone());
        }
        results.cells_found += read.pages.iter().map(|p| p.cells.len()).sum::<usize>();
        for (uci, decoded) in truth.played.iter().zip(&read.game.moves) {
            results
                .calibration
                .add(decoded.confidence, *uci == decoded.uci);
        }
    }
    if shown.per_sheet {
        let notation = read
            .as_ref()
            .map_or("not read", |read| read.notation.name());
        let noted = match &read {
            Ok(read) if read.continuation_doubts().next().is_some() => "  a later page noted",
            _ => "",
        };
        println!(
            "  {stem:<28} {:>3} of {plies:>3} plies right  {:>3} flagged  {seconds:>6.2} s  {notation}{noted}",
            tally.right, tally.flagged
        );
    }
    if let (true, Ok(read)) = (shown.errors && tally.right < plies, &read) {
        let code = truth.json["language"].as_str().unwrap_or("en");
        let language = Language::by_code(code).ok_or(format!("no language {code}"))?;
        println!("  {}", image.display());
        let on_page = read.cells.len().min(truth.game.len());
        let search_lost = print_decoding(read, &truth.game[..on_page], language, &options);
        results.sorted_errors.add(search_lost, plies - tally.right);
    }
    let copy_path = path.with_file_name(format!(
        "{}{COPY_SUFFIX}",
        path.file_stem().unwrap_or_default().to_string_lossy()
    ));
    if copy_path.is_file() {
        let with_copy = read_with_copy(truth, &pages, &copy_path, folder, reader, &options)?;
        if shown.errors && with_copy.right != tally.right {
            println!(
                "  {}: {} of {plies} plies right alone, {} with the copy",
                image.display(),
                tally.right,
                with_copy.right
            );
        }
        results.alone.add(plies, tally);
        results.paired.add(plies, with_copy);
    }
    for key in truth.groups(&read) {
        results.groups.entry(key).or_default().add(plies, tally);
    }
    Ok(())
}

/// The game of `sheet` read with the other player's copy (whose truth is `copy_path`, in
/// `folder`), judged against `truth`.
fn read_with_copy(
    truth: &SheetTruth,
    pages: &[Sheet],
    copy_path: &Path,
    folder: &Path,
    reader: &Reader,
    options: &ReadOptions,
) -> Result<SheetTally, String> {
    let copy = SheetTruth::load(copy_path)?.open_pages(folder)?;
    let both = read_game(pages, &copy, reader, options);
    Ok(truth.judge(&both))
}

impl SetResults {
    /// Reads each game of more than one page with the next such game's second page in place
    /// of its own (the last with the first's), and counts how many of these pages are noted
    /// as perhaps not continuing the first.
    fn read_swapped_pages(
        &mut self,
        folder: &Path,
        reader: &Reader,
        options: &ReadOptions,
    ) -> Result<(), String> {
        let games = &self.paged_games;
        for (i, images) in games.iter().enumerate() {
            let other = &games[(i + 1) % games.len()];
            if other == images {
                continue;
            }
            let pages = [&images[0], &other[1]]
                .map(|image| Sheet::open(&folder.join(image)).map_err(|e| e.to_string()));
            let [first, second] = pages;
            if let Ok(read) = read_game(&[first?, second?], &[], reader, options) {
                self.swapped_pages.add(&read.later_pages);
            }
        }
        Ok(())
    }

    /// Prints the set's figures: each group's moves, the wrong plies sorted (with
    /// `show_errors`), the calibration and the times.
    fn print(mut self, show_errors: bool) {
        if self.paired.sheets > 0 {
            let (alone, paired) = (
                std::mem::take(&mut self.alone),
                std::mem::take(&mut self.paired),
            );
            self.groups.insert("paired, own sheet alone".into(), alone);
            self.groups.insert("paired, with the copy".into(), paired);
        }
        for (name, c) in &self.groups {
            println!(
                "  {name:<24} {:>3} sheets {:>5} plies  right {:>6.2}%  exact games {:>3}  flagged {:>5.1}%  unflagged right {:>6.2}%",
                c.sheets,
                c.plies,
                100.0 * c.right as f64 / c.plies.max(1) as f64,
                c.exact_games,
                100.0 * c.flagged as f64 / c.plies.max(1) as f64,
                100.0 * (c.right - c.flagged_right) as f64 / c.plies.saturating_sub(c.flagged).max(1) as f64
            );
        }
        if self.later_pages.pages() > 0 {
            println!(
                "  later pages noted as perhaps not continuing the game: {}",
                self.later_pages.line()
            );
        }
        if self.swapped_pages.pages() > 0 {
            println!(
                "  another game's second page in place of the game's own, noted: {}",
                self.swapped_pages.line()
            );
        }
        if show_errors {
            println!("  {}", self.sorted_errors.line());
        }
        if !self.calibration.is_empty() {
            println!("  {}", self.calibration.to_string().replace('\n', "\n  "));
        }
        if !self.timed.is_empty() {
            self.print_times();
        }
    }

    /// The sheets' times: median, 90th percentile, mean and the slowest, which make the mean.
    fn print_times(&mut self) {
        let timed = &mut self.timed;
        let mut seconds: Vec<f64> = timed.iter().map(|(s, _)| *s).collect();
        seconds.sort_by(f64::total_cmp);
        println!(
            "  median {:.2} s, p90 {:.2} s, mean {:.2} s per sheet",
            seconds.get(seconds.len() / 2).copied().unwrap_or(0.0),
            seconds.get(seconds.len() * 9 / 10).copied().unwrap_or(0.0),
            seconds.iter().sum::<f64>() / seconds.len().max(1) as f64
        );
        timed.sort_by(|a, b| b.0.total_cmp(&a.0));
        let slowest: Vec<String> = timed
            .iter()
            .take(5)
            .map(|(s, name)| format!("{name} {s:.1} s"))
            .collect();
        println!("  slowest: {}", slowest.join(", "));
        println!(
            "  per sheet: {:.1} cells found, {:.1} crops read (turned-over samples included)",
            self.cells_found as f64 / timed.len().max(1) as f64,
            self.crops_read as f64 / timed.len().max(1) as f64
        );
    }
}
