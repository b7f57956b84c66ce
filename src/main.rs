//! The `scoresheet` command line: a thin layer over the library's stages.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use scoresheet::decode::{decode, DecoderConfig, LanguageChoice, Transcript};
use scoresheet::notation::{Language, LANGUAGES};
use scoresheet::page::overlay::draw_overlay;
use scoresheet::page::{find_cells, PageOptions, Sheet};
use scoresheet::report::{to_json, to_pgn, PgnTags};
use scoresheet::start::StartPosition;
use scoresheet::synth::layout::Layout;
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
    /// e.p., (=). Slips (missing disambiguation, wrong check marks, skipped or swapped moves,
    /// misread letters) are corrected to the legal game and flagged for review.
    Decode(Box<DecodeArgs>),
    /// Find the move cells of a scoresheet image (photo or scan) and give each its ply.
    ///
    /// No template is needed: the sheet is found in the photo, flattened, and its table of
    /// moves understood from the ruling lines (number, White and Black columns, blocks in
    /// reading order). Prints JSON: the page's corners and every move cell's corners, box,
    /// ply and whether it holds ink, in the input image's pixels.
    Cells(CellsArgs),
    /// List the languages (piece letters) the decoder knows.
    Languages,
}

#[derive(Clone, Copy, ValueEnum)]
enum CellsFormat {
    Json,
}

#[derive(clap::Args)]
struct CellsArgs {
    /// The image: JPEG, PNG, TIFF, WebP or BMP.
    image: PathBuf,
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
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Pgn,
    Json,
}

#[derive(clap::Args)]
struct DecodeArgs {
    /// The transcript file ("-" reads standard input).
    transcript: PathBuf,
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
    /// Output format.
    #[arg(long, value_enum, default_value = "pgn")]
    format: Format,
    /// Write the output here instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// PGN Event tag.
    #[arg(long)]
    event: Option<String>,
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Decode(args) => run_decode(&args),
        Command::Cells(args) => run_cells(&args),
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

fn run_cells(args: &CellsArgs) -> Result<(), String> {
    let layout = match &args.layout {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Some(Layout::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        None => None,
    };
    let sheet = Sheet::open(&args.image).map_err(|e| e.to_string())?;
    let cells = find_cells(&sheet, &PageOptions { layout }).map_err(|e| e.to_string())?;
    if let Some(path) = &args.overlay {
        draw_overlay(&sheet, &cells)
            .save_with_format(path, image::ImageFormat::Png)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let text = match args.format {
        CellsFormat::Json => {
            serde_json::to_string_pretty(&cells.to_json()).map_err(|e| e.to_string())? + "\n"
        }
    };
    write_output(args.output.as_deref(), &text)
}

fn run_decode(args: &DecodeArgs) -> Result<(), String> {
    let name = args.transcript.display().to_string();
    let start = match (&args.start_fen, args.chess960) {
        (Some(fen), _) => StartPosition::from_fen(fen).map_err(|e| format!("--start-fen: {e}"))?,
        (None, Some(n)) => StartPosition::chess960(n).map_err(|e| format!("--chess960: {e}"))?,
        (None, None) => StartPosition::standard(),
    };
    let language = match args.lang.as_str() {
        "auto" => LanguageChoice::Auto,
        code => LanguageChoice::Fixed(Language::by_code(code).ok_or_else(|| {
            let codes: Vec<&str> = LANGUAGES.iter().map(|l| l.code).collect();
            format!(
                "--lang: unknown language {code:?}; known: auto, {}",
                codes.join(", ")
            )
        })?),
    };
    let bytes = read_input(&args.transcript)?;
    let black_starts = start.position.turn() == Color::Black;
    let transcript = Transcript::parse(&bytes, black_starts).map_err(|e| format!("{name}: {e}"))?;
    let game = decode(
        &transcript.cells,
        &start,
        language,
        &DecoderConfig::default(),
    );
    let tags = PgnTags {
        event: args.event.clone(),
        site: None,
        date: args.date.clone(),
        round: args.round.clone(),
        white: args.white.clone(),
        black: args.black.clone(),
    };
    let text = match args.format {
        Format::Pgn => to_pgn(&game, &tags),
        Format::Json => {
            let mut v = to_json(&game, &tags);
            v["written_result"] = serde_json::json!(transcript.written_result);
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n"
        }
    };
    write_output(args.output.as_deref(), &text)?;
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
    Ok(())
}
