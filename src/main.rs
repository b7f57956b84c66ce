//! The `scoresheet` command line: a thin layer over the library's stages.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use scoresheet::batch::{self, BatchGame, BatchSummary, Shard};
use scoresheet::decode::CellEvidence;
use scoresheet::decode::{
    decode, decode_both_sheets, DecoderConfig, Game, LanguageChoice, PriorMemo, Transcript,
};
use scoresheet::notation::{Language, LANGUAGES};
use scoresheet::page::overlay::draw_overlay;
use scoresheet::page::{find_cells, PageFile, PageOptions, Sheet};
use scoresheet::read::{
    read_game_files, torn_page_note, upright_cells, CellsToRead, FilesRead, GameRead,
    NotationChoice, ReadOptions,
};
use scoresheet::recognize::Reader;
use scoresheet::report::{to_json, to_pgn, PgnTags};
use scoresheet::start::StartPosition;
use scoresheet::synth::layout::Layout;
use serde_json::Value;
use shakmaty::{Color, Position};

#[derive(Parser)]
#[command(
    name = "scoresheet",
    version,
    about = "Turns handwritten chess scoresheets into the legal game that was played (PGN), with evidence behind every move.",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode a transcript of a scoresheet (what was written in each cell) into the legal game.
    ///
    /// The transcript is UTF-8 text with one move number per line and the cells separated by
    /// TABs, e.g. "12<TAB>Nf3<TAB>Nc6". Leave a cell empty if nothing is written, write "?" for
    /// an illegible cell; Black's last cell may be absent. Any notation a player uses is
    /// understood: piece letters of 30+ languages, long algebraic, ":" captures, 0-0, e8Q,
    /// e.p., (=), and English descriptive notation (P-K4, N-KB3, PxP, Q-R5ch). Slips (missing
    /// disambiguation, wrong check marks, skipped or swapped moves, misread letters) are
    /// corrected to the legal game and flagged for review.
    Decode(Box<DecodeArgs>),
    /// Find the move cells of a scoresheet image (photo or scan) and give each its ply.
    ///
    /// No template is needed: the sheet is found in the photo, flattened, and its table of
    /// moves understood from the ruling lines (number, White and Black columns, blocks in
    /// reading order). Prints JSON: the page's corners and every move cell's corners, box,
    /// ply and whether it holds ink, in the input image's pixels.
    Cells(CellsArgs),
    /// Read a photo or scan of a scoresheet into the legal game that was played (PGN or JSON).
    ///
    /// Finds the move cells, reads each with the handwriting model and decodes the legal game
    /// most consistent with what was written, in any notation or language. Moves in doubt are
    /// flagged (a PGN comment, "flagged" in JSON) with their alternatives.
    Read(Box<ReadArgs>),
    /// Read many games into one folder, in parallel and restartably (archive ingestion).
    ///
    /// INPUT is a folder of images (one page per game) or a manifest: one game per line,
    /// its pages separated by TABs, paths relative to the manifest, then optionally a `|`
    /// field and the pages of the other player's copy (as `read --copy`), and anywhere a
    /// `start=FEN` or `chess960=N` field for a game that did not begin from the usual position.
    /// Writes OUT/<stem>.json per game, OUT/games.pgn with every finished game and
    /// OUT/_summary.json (games, moves, flagged moves, failures with causes, games read from
    /// one sheet because the other's could not be read, games whose start is in doubt).
    /// Results are written atomically; a rerun skips finished games; one bad file never stops
    /// the others.
    Batch(BatchArgs),
    /// List the languages (piece letters) the decoder knows.
    Languages,
}

#[derive(Clone, Copy, ValueEnum)]
enum CellsFormat {
    Json,
}

#[derive(clap::Args)]
struct CellsArgs {
    /// The image: JPEG, PNG, TIFF, WebP, BMP or a PDF file of scans.
    image: PathBuf,
    /// The page of a multi-page TIFF or PDF file to find the cells of (1 is the first).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    page: u32,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: CellsFormat,
    /// Write the output here instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also draw the page, the grid and each cell's ply over the image, as PNG.
    #[arg(long, value_name = "OUT.png")]
    overlay: Option<PathBuf>,
    /// The form's layout (the JSON schema of layouts/*.json): confirms row counts. Never
    /// needed for the common forms.
    #[arg(long, value_name = "FILE")]
    layout: Option<PathBuf>,
    /// Also read every cell with the handwriting model: adds "text" (the model's best reading)
    /// and "text_confidence" (its probability, 0-1) to each cell.
    #[arg(long)]
    read: bool,
    /// The cell reader (.onnx with its .json card beside it); default: the shipped
    /// models/reader-int8.onnx.
    #[arg(long, value_name = "FILE", requires = "read")]
    model: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Pgn,
    Json,
}

/// The notation of the sheets (`--notation`).
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum NotationArg {
    /// Told from a sample of the first page's cells.
    Auto,
    /// FIDE's algebraic notation (e4, Nf3), in any language's piece letters.
    Algebraic,
    /// English descriptive notation (P-K4, N-KB3, PxP).
    Descriptive,
}

#[derive(clap::Args)]
struct DecodeArgs {
    /// The transcript file ("-" reads standard input).
    transcript: PathBuf,
    /// The other player's transcript of the same game: both are evidence for every ply, lined
    /// up by ply (each decoded alone first, so a move one player skipped does not shift the
    /// other's), so where one is illegible the other decides, and where the two record
    /// different moves the ply is in doubt. JSON then gives each move read from both its
    /// "copy_written".
    #[arg(long, value_name = "TRANSCRIPT")]
    copy: Option<PathBuf>,
    #[command(flatten)]
    game: GameArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "pgn")]
    format: Format,
    /// Write the output here instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(clap::Args)]
struct ReadArgs {
    /// The pages of one scoresheet, in order (a long game fills two sheets): JPEG, PNG, TIFF,
    /// WebP or BMP; a multi-page TIFF or a PDF file of scans gives all its pages, FILE#N its
    /// page N.
    #[arg(required = true, value_name = "PAGE")]
    pages: Vec<String>,
    /// The other player's scoresheet of the same game (its pages in order): both copies are
    /// evidence for every ply, so where one is illegible the other decides. If one of the two
    /// sheets cannot be read (no grid found, or the copy's file broken), the game is read
    /// from the other alone, with a warning (and `set_aside` in the JSON).
    #[arg(long, num_args = 1.., value_name = "PAGE")]
    copy: Vec<String>,
    #[command(flatten)]
    game: GameArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "pgn")]
    format: Format,
    /// Write the output here instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The cell reader (.onnx with its .json card beside it); default: the shipped
    /// models/reader-int8.onnx.
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// The notation the sheets are written in. "auto" reads a sample of the first page's
    /// cells with the reader of English descriptive notation (`P-K4`, `N-KB3`, `PxP`, as
    /// English and American players wrote until about 1980;
    /// models/reader-descriptive-int8.onnx): a sheet that reads as descriptive is read with
    /// that reader and decoded in English, any other with the algebraic one. With --model,
    /// "auto" reads every sheet with that model as algebraic.
    #[arg(long, value_enum, default_value = "auto")]
    notation: NotationArg,
    /// Short for --notation descriptive.
    #[arg(long, conflicts_with = "notation")]
    descriptive: bool,
    /// Also write the review page: one self-contained HTML file with every move's cell crop,
    /// what was read, the move chosen, its confidence and alternatives, and the board.
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    /// Also draw each page with its cells and plies, the flagged moves' cells in red, as PNG
    /// (a second page goes to FILE-2.png, and so on).
    #[arg(long, value_name = "FILE.png")]
    overlay: Option<PathBuf>,
}

#[derive(clap::Args)]
struct BatchArgs {
    /// A folder of images (each one game: one page, or every page of a multi-page TIFF or a
    /// PDF file), or a manifest file.
    input: PathBuf,
    /// Read every page of a folder's multi-page TIFF and PDF files as a game of its own (a
    /// round of sheets scanned into one file); results are named <file stem>-p<N>.
    #[arg(long)]
    each_page: bool,
    /// The folder results go to (created if needed).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Games read at once (default: one per core). A hard sheet's game can take some 1.5 GB
    /// of memory while it is decoded: on a machine with many cores and little memory, read
    /// fewer at once.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Read only shard I of N (games whose index in the input is I modulo N), so N machines
    /// share an archive; results are named games.I-of-N.pgn and _summary.I-of-N.json.
    #[arg(long, value_name = "I/N", default_value = "0/1")]
    shard: String,
    /// Language of the piece letters: "auto" or a code (see `scoresheet languages`).
    #[arg(long, default_value = "auto")]
    lang: String,
    /// The cell reader (.onnx with its .json card beside it); default: the shipped model.
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// The notation the sheets are written in. "auto" reads a sample of the first page's
    /// cells with the reader of English descriptive notation (`P-K4`, `N-KB3`, `PxP`, as
    /// English and American players wrote until about 1980;
    /// models/reader-descriptive-int8.onnx): a sheet that reads as descriptive is read with
    /// that reader and decoded in English, any other with the algebraic one. With --model,
    /// "auto" reads every sheet with that model as algebraic.
    #[arg(long, value_enum, default_value = "auto")]
    notation: NotationArg,
    /// Short for --notation descriptive.
    #[arg(long, conflicts_with = "notation")]
    descriptive: bool,
    /// PGN Event tag of every game (default: the game's first page's file stem). A manifest
    /// line's `event=` field overrides it, as its `site=`, `date=` and `round=` fields
    /// override the next three.
    #[arg(long)]
    event: Option<String>,
    /// PGN Site tag of every game.
    #[arg(long)]
    site: Option<String>,
    /// PGN Date tag of every game (YYYY.MM.DD).
    #[arg(long)]
    date: Option<String>,
    /// PGN Round tag of every game.
    #[arg(long)]
    round: Option<String>,
    /// Also write every game's review page (as `read --report` does) to DIR/<stem>.html.
    #[arg(long)]
    reports: bool,
}

/// What is known about a game besides what was written: its language, start and PGN tags.
#[derive(clap::Args)]
struct GameArgs {
    /// Language of the piece letters: "auto" lets the evidence decide, or a code such as
    /// en, de, fr, ru (see `scoresheet languages`).
    #[arg(long, default_value = "auto")]
    lang: String,
    /// Start from this position (FEN, X-FEN or Shredder-FEN) instead of the standard one.
    #[arg(long, conflicts_with = "chess960")]
    start_fen: Option<String>,
    /// Start from Chess960 position N (0-959; 518 is the standard setup).
    #[arg(long, value_name = "N")]
    chess960: Option<u32>,
    /// PGN Event tag.
    #[arg(long)]
    event: Option<String>,
    /// PGN Site tag.
    #[arg(long)]
    site: Option<String>,
    /// PGN White tag.
    #[arg(long)]
    white: Option<String>,
    /// PGN Black tag.
    #[arg(long)]
    black: Option<String>,
    /// PGN Round tag.
    #[arg(long)]
    round: Option<String>,
    /// PGN Date tag (YYYY.MM.DD).
    #[arg(long)]
    date: Option<String>,
}

impl GameArgs {
    fn start(&self) -> Result<StartPosition, String> {
        match (&self.start_fen, self.chess960) {
            (Some(fen), _) => StartPosition::from_fen(fen).map_err(|e| format!("--start-fen: {e}")),
            (None, Some(n)) => StartPosition::chess960(n).map_err(|e| format!("--chess960: {e}")),
            (None, None) => Ok(StartPosition::standard()),
        }
    }

    fn start_given(&self) -> bool {
        self.start_fen.is_some() || self.chess960.is_some()
    }

    fn language(&self) -> Result<LanguageChoice, String> {
        language_choice(&self.lang)
    }

    fn tags(&self) -> PgnTags {
        PgnTags {
            event: self.event.clone(),
            site: self.site.clone(),
            date: self.date.clone(),
            round: self.round.clone(),
            white: self.white.clone(),
            black: self.black.clone(),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Decode(args) => run_decode(&args),
        Command::Cells(args) => run_cells(&args),
        Command::Read(args) => run_read(&args),
        Command::Batch(args) => run_batch(&args),
        Command::Languages => {
            for lang in LANGUAGES {
                let letters: Vec<String> = lang.letters.iter().map(|v| v.join("/")).collect();
                println!("{}\t{}\t{}", lang.code, lang.name, letters.join(" "));
            }
            Ok(())
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn read_input(path: &Path) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("standard input: {e}"))?;
        return Ok(bytes);
    }
    const LIMIT: u64 = 16 << 20;
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.len() > LIMIT {
        return Err(format!(
            "{}: {} bytes is far too large for a scoresheet transcript (limit {LIMIT})",
            path.display(),
            meta.len()
        ));
    }
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write_output(output: Option<&Path>, text: &str) -> Result<(), String> {
    match output {
        Some(path) => std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display())),
        None => {
            // A closed pipe (e.g. `| head`) is not an error worth reporting.
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            Ok(())
        }
    }
}

/// How the sheets are read: the reader of their cells (the one `--model` names, loaded into
/// `loaded`; the descriptive reader for descriptive sheets; else the shipped one), how their
/// notation is known, and the language to decode in (English for descriptive sheets, which
/// no other language wrote in our notation tables).
fn chosen_reading<'a>(
    model: Option<&Path>,
    notation: NotationArg,
    language: LanguageChoice,
    loaded: &'a mut Option<Reader>,
) -> Result<(&'a Reader, NotationChoice, LanguageChoice), String> {
    let english = Language::by_code("en").expect("English is a known language");
    let may_be_english = match language {
        LanguageChoice::Fixed(lang) => lang.code == english.code,
        LanguageChoice::Auto => true,
    };
    if let (NotationArg::Descriptive, LanguageChoice::Fixed(lang)) = (notation, language) {
        if !may_be_english {
            return Err(format!(
                "--descriptive (--notation descriptive): descriptive notation is read in \
                 English, not {:?}; drop --lang",
                lang.code
            ));
        }
    }
    let loaded_reader = |path: &Path| Reader::load(path).map_err(|e| e.to_string());
    let descriptive_reader = || Reader::descriptive().map_err(|e| e.to_string());
    let reader = match model {
        Some(path) => &*loaded.insert(loaded_reader(path)?),
        None if notation == NotationArg::Descriptive => descriptive_reader()?,
        None => Reader::shipped().map_err(|e| e.to_string())?,
    };
    let (choice, language) = match notation {
        NotationArg::Descriptive => (NotationChoice::Descriptive, LanguageChoice::Fixed(english)),
        // A sheet in another language's letters is algebraic: descriptive is English only.
        NotationArg::Auto if model.is_none() && may_be_english => match descriptive_reader() {
            Ok(descriptive) => (NotationChoice::Detect(descriptive), language),
            // Not asked for: the algebraic sheets, nearly all, are still read.
            Err(error) => {
                eprintln!(
                    "warning: {error}; sheets in descriptive notation cannot be told, every \
                     sheet is read as algebraic"
                );
                (NotationChoice::Algebraic, language)
            }
        },
        NotationArg::Auto | NotationArg::Algebraic => (NotationChoice::Algebraic, language),
    };
    Ok((reader, choice, language))
}

fn run_cells(args: &CellsArgs) -> Result<(), String> {
    let layout = match &args.layout {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Some(Layout::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        None => None,
    };
    let sheet = Sheet::open_page(&args.image, args.page as usize - 1).map_err(|e| e.to_string())?;
    let options = PageOptions { layout };
    // With the reader the page is also set the right way up ([`upright_cells`]).
    let (cells, readings) = if args.read {
        let mut loaded = None;
        let (reader, _, _) = chosen_reading(
            args.model.as_deref(),
            NotationArg::Algebraic,
            LanguageChoice::Auto,
            &mut loaded,
        )?;
        let (cells, readings) = upright_cells(reader, &sheet, &options, CellsToRead::Every)
            .map_err(|e| e.to_string())?;
        (cells, Some(readings))
    } else {
        (
            find_cells(&sheet, &options).map_err(|e| e.to_string())?,
            None,
        )
    };
    if sheet.torn {
        eprintln!("warning: {}", torn_page_note(&sheet.name));
    }
    if let Some(path) = &args.overlay {
        draw_overlay(&sheet, &cells)
            .save_with_format(path, image::ImageFormat::Png)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let mut json = cells.to_json();
    if let Some(readings) = readings {
        if let Some(Value::Array(entries)) = json.get_mut("cells") {
            for (entry, reading) in entries.iter_mut().zip(&readings) {
                let Some(reading) = reading else { continue };
                entry["text"] = Value::from(reading.text());
                let confidence = (reading.text_confidence() * 1000.0).round() / 1000.0;
                entry["text_confidence"] = Value::from(confidence);
            }
        }
    }
    let text = match args.format {
        CellsFormat::Json => serde_json::to_string_pretty(&json).map_err(|e| e.to_string())? + "\n",
    };
    write_output(args.output.as_deref(), &text)
}

fn run_decode(args: &DecodeArgs) -> Result<(), String> {
    let name = args.transcript.display().to_string();
    let start = args.game.start()?;
    let language = args.game.language()?;
    let bytes = read_input(&args.transcript)?;
    let black_starts = start.position.turn() == Color::Black;
    let transcript = Transcript::parse(&bytes, black_starts).map_err(|e| format!("{name}: {e}"))?;
    let written_result = transcript.written_result.clone();
    let config = DecoderConfig::default();
    let game = match &args.copy {
        None => decode(&transcript.cells, &start, language, &config),
        Some(path) => {
            let copy_name = path.display().to_string();
            let copy_bytes = read_input(path)?;
            let copy = Transcript::parse(&copy_bytes, black_starts)
                .map_err(|e| format!("{copy_name}: {e}"))?;
            decode_both_sheets(
                transcript.cells,
                copy.cells,
                &start,
                language,
                &config,
                &PriorMemo::default(),
            )
        }
    };
    let tags = args.game.tags();
    let text = match args.format {
        Format::Pgn => to_pgn(&game, &tags),
        Format::Json => {
            let mut v = to_json(&game, &tags);
            v["written_result"] = serde_json::json!(written_result);
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n"
        }
    };
    write_output(args.output.as_deref(), &text)?;
    report_doubts(&name, &game);
    Ok(())
}

/// Tells the user on standard error how many moves need a look, when any do.
fn report_doubts(name: &str, game: &Game) {
    let flagged = game.flagged().count();
    if flagged > 0 || !game.unused_cells.is_empty() {
        eprintln!(
            "{name}: {} moves decoded ({}), {flagged} flagged for review{}",
            game.moves.len(),
            game.language.name,
            if game.unused_cells.is_empty() {
                String::new()
            } else {
                format!(", {} cells not used", game.unused_cells.len())
            }
        );
    }
}

fn run_read(args: &ReadArgs) -> Result<(), String> {
    let notation = if args.descriptive {
        NotationArg::Descriptive
    } else {
        args.notation
    };
    let start = args.game.start()?;
    let mut loaded = None;
    let (reader, notation, language) = chosen_reading(
        args.model.as_deref(),
        notation,
        args.game.language()?,
        &mut loaded,
    )?;
    let options = ReadOptions {
        start,
        language,
        notation,
        search_chess960_start: !args.game.start_given(),
        ..ReadOptions::default()
    };
    let page_files = |texts: &[String]| -> Vec<PageFile> {
        texts
            .iter()
            .map(|text| PageFile::parse(text, Path::new("")))
            .collect()
    };
    let (pages, copy) = (page_files(&args.pages), page_files(&args.copy));
    let FilesRead { sheets, copy, read } =
        read_game_files(&pages, &copy, reader, &options).map_err(|e| e.to_string())?;
    write_read_outputs(args, &read, (&sheets, &copy))?;
    print_read_notes(&pages[0].to_string(), &read, &options);
    Ok(())
}

/// Writes the game read as `args` ask: PGN or JSON (to `-o` or standard output), the review
/// page and the overlays of its pages.
fn write_read_outputs(
    args: &ReadArgs,
    read: &GameRead,
    (sheets, copy): (&[Sheet], &[Sheet]),
) -> Result<(), String> {
    let tags = args.game.tags();
    let text = match args.format {
        Format::Pgn => read.to_pgn(&tags),
        Format::Json => {
            serde_json::to_string_pretty(&read.to_json(&tags)).map_err(|e| e.to_string())? + "\n"
        }
    };
    write_output(args.output.as_deref(), &text)?;
    if let Some(path) = &args.report {
        let html = read.review_html(sheets, copy, &tags);
        std::fs::write(path, html).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &args.overlay {
        for (page, image) in read.overlays(sheets).iter().enumerate() {
            let path = numbered_page(path, page);
            image
                .save_with_format(&path, image::ImageFormat::Png)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// The warnings and notes of a game read (`name`: its first page), on standard error: what
/// an arbiter should know before trusting the moves.
fn print_read_notes(name: &str, read: &GameRead, options: &ReadOptions) {
    if let Some(set_aside) = &read.set_aside {
        eprintln!("{name}: warning: {}", set_aside.note());
    }
    for page in &read.torn_pages {
        eprintln!("warning: {}", torn_page_note(page));
    }
    for note in read.turned_page_notes() {
        eprintln!("note: {note}");
    }
    for note in read.small_cell_notes() {
        eprintln!("warning: {note}");
    }
    for note in read.blank_page_notes() {
        eprintln!("warning: {note}");
    }
    if matches!(options.notation, NotationChoice::Detect(_)) {
        if let Some(note) = read.notation_note() {
            eprintln!("{name}: note: {note}");
        }
    }
    if let Some(note) = read.start_found_note() {
        eprintln!("{name}: warning: {note}");
    }
    if let Some(note) = read.start_note() {
        eprintln!("{name}: warning: {note}");
    }
    for note in read.continuation_notes() {
        eprintln!("warning: {note}");
    }
    report_doubts(name, &read.game);
}

/// `path` for the first page; `stem-2.ext`, `stem-3.ext`... beside it for the next ones.
fn numbered_page(path: &Path, page: usize) -> PathBuf {
    if page == 0 {
        return path.to_path_buf();
    }
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{}.{}", page + 1, ext.to_string_lossy()),
        None => format!("{stem}-{}", page + 1),
    };
    path.with_file_name(name)
}

/// What `--lang` asks for: "auto" or a language's code.
fn language_choice(lang: &str) -> Result<LanguageChoice, String> {
    match lang {
        "auto" => Ok(LanguageChoice::Auto),
        code => Language::by_code(code)
            .map(LanguageChoice::Fixed)
            .ok_or_else(|| {
                let codes: Vec<&str> = LANGUAGES.iter().map(|l| l.code).collect();
                format!(
                    "--lang: unknown language {code:?}; known: auto, {}",
                    codes.join(", ")
                )
            }),
    }
}

fn run_batch(args: &BatchArgs) -> Result<(), String> {
    let shard = Shard::parse(&args.shard).map_err(|e| e.to_string())?;
    let language = language_choice(&args.lang)?;
    let notation = if args.descriptive {
        NotationArg::Descriptive
    } else {
        args.notation
    };
    let mut loaded = None;
    let (reader, notation, language) =
        chosen_reading(args.model.as_deref(), notation, language, &mut loaded)?;
    let every_game = PgnTags {
        event: args.event.clone(),
        site: args.site.clone(),
        date: args.date.clone(),
        round: args.round.clone(),
        ..PgnTags::default()
    };
    let games: Vec<BatchGame> = batch::plan(&args.input, args.each_page)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|game| BatchGame {
            tags: game.tags.or(&every_game),
            ..game
        })
        .collect();
    // A manifest line's start, where it gives one, turns the search for a start off.
    let options = ReadOptions {
        language,
        notation,
        search_chess960_start: true,
        ..ReadOptions::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()
        .map_err(|e| format!("--jobs: {e}"))?;
    let summary = pool
        .install(|| batch::run(&games, shard, &args.out, reader, &options, args.reports))
        .map_err(|e| e.to_string())?;
    print_batch_summary(&args.out, &summary);
    if summary.failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {} games could not be read (listed in the summary in {})",
            summary.failures.len(),
            summary.games,
            args.out.display()
        ))
    }
}

/// What a batch did, on standard error: the counts, then every failure and every game or
/// page an archivist should look at (the summary file lists the same).
fn print_batch_summary(out: &Path, summary: &BatchSummary) {
    eprintln!(
        "{}: {} games ({} read now, {} done before), {} moves, {} flagged, {} failed, {:.1} s",
        out.display(),
        summary.games,
        summary.read,
        summary.skipped,
        summary.moves,
        summary.flagged,
        summary.failures.len(),
        summary.seconds
    );
    for (file, cause) in &summary.failures {
        eprintln!(
            "  failed: {cause}{}",
            if cause.contains(file.as_str()) {
                String::new()
            } else {
                format!(" ({file})")
            }
        );
    }
    for (file, cause) in &summary.set_aside {
        eprintln!("  read from one sheet: {file}: the other could not be read: {cause}");
    }
    for page in &summary.torn_pages {
        eprintln!("  torn: {}", torn_page_note(page));
    }
    for (file, pixels) in &summary.small_cell_pages {
        eprintln!(
            "  small cells ({pixels:.0} pixels high; photograph or scan the page larger): {file}"
        );
    }
    for page in &summary.blank_pages {
        eprintln!("  no writing seen (a blank sheet, or too faint?): {page}");
    }
    for file in &summary.starts_found {
        eprintln!("  read from a Chess960 start found from the writing (check it): {file}");
    }
    for file in &summary.start_doubts {
        eprintln!(
            "  start in doubt (Chess960 or a set position? give its start; a later sheet? \
             give the sheets before it): {file}"
        );
    }
    for file in &summary.continuation_doubts {
        eprintln!(
            "  a later page may not continue the game (another game's sheet, or the copy?): \
             {file}"
        );
    }
}
