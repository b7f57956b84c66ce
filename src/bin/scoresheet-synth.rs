//! scoresheet-synth: renders scoresheets from real games, with the truth behind every cell, for
//! training the cell reader and testing the page stage.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use image::codecs::jpeg::JpegEncoder;
use rayon::prelude::*;

use scoresheet::games::{read_pgn_file, shared_data_dir, PgnGame};
use scoresheet::notation::{Language, LANGUAGES};
use scoresheet::synth::camera::Capture;
use scoresheet::synth::cells::{render_cells, CellBatch, CellOptions};
use scoresheet::synth::glyphs::{GlyphBank, Part};
use scoresheet::synth::hand::Scripts;
use scoresheet::synth::layout::Layout;
use scoresheet::synth::sheet::{pick_game, render_sheet, SheetGame, SheetRequest};
use scoresheet::synth::{charset, Rng};

/// Render handwritten chess scoresheets from real games, with ground truth.
///
/// Sheets: `DIR/<id>.jpg` and `DIR/<id>.json` (the truth: start FEN, the game in SAN, what was
/// written in every cell, each cell's quadrilateral and box in image pixels, the effects applied),
/// and `DIR/manifest.tsv`, the sheets as `scoresheet batch` reads them with their starts.
/// With --cells: labelled cell crops only, as `DIR/cells-NNNN.npy` (uint8, N x H x W) and
/// `DIR/labels.tsv`, for training the cell reader.
#[derive(Parser, Debug)]
#[command(name = "scoresheet-synth", version)]
struct Args {
    /// PGN collection (.pgn or .pgn.gz) the games come from.
    #[arg(long)]
    games: PathBuf,
    /// How many sheets (or, with --cells, how many cells) to make.
    #[arg(long)]
    count: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long)]
    out: PathBuf,
    /// A language code (see `scoresheet languages`) or `all` to cycle through every language.
    #[arg(long, default_value = "all")]
    lang: String,
    /// A built-in layout name, a layout JSON file, or `all` to cycle through the built-in ones.
    #[arg(long, default_value = "all")]
    layout: String,
    /// `scan`, `photo` or `mixed`.
    #[arg(long, default_value = "mixed")]
    capture: String,
    /// Page resolution before the camera, in dots per inch.
    #[arg(long, default_value_t = 150.0)]
    dpi: f32,
    /// Write labelled cell crops instead of sheets.
    #[arg(long)]
    cells: bool,
    /// Cell crop size WIDTHxHEIGHT (with --cells).
    #[arg(long, default_value = "192x48")]
    cell_size: String,
    /// The glyph sets (default: shared/data/glyphs beside the repository, or $SCORESHEET_DATA).
    #[arg(long)]
    glyphs: Option<PathBuf>,
    /// Where the fonts are installed.
    #[arg(long, default_value = "/usr/share/fonts")]
    fonts: PathBuf,
    /// Also write a montage of the first sheets (one JPEG) to this file.
    #[arg(long)]
    montage: Option<PathBuf>,
    /// Instead of sheets, write `DIR/glyphs.png`: the first samples of each of these characters
    /// as the renderer sees them (ink masks), for checking the glyph sets by eye.
    #[arg(long)]
    show_glyphs: Option<String>,
    /// Leave out the glyph sets whose images may not be redistributed (Cyrillic-MNIST), for
    /// sheets that are committed or published; Cyrillic then comes from the fonts.
    #[arg(long)]
    shareable: bool,
    /// MNIST digits as `scripts/setup` converts them (with `mnist-labels.txt` beside them);
    /// used when the file exists, never with --shareable.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/.cache/mnist-digits.npy"))]
    mnist: PathBuf,
    /// `all`, or `training` / `validation`: the reader's training and validation cells come from
    /// disjoint glyph samples and font families, so validation measures unseen hands.
    #[arg(long, default_value = "all")]
    part: String,
    /// Games to read from the collection.
    #[arg(long, default_value_t = 5000)]
    max_games: usize,
    /// Also write the other player's copy of every sheet (`<id>-copy.jpg` and `.json`): the
    /// same game, language and form in another hand, with its own slips and capture. The
    /// sheets themselves are the same as without this flag.
    #[arg(long)]
    copies: bool,
    /// With --copies: the piece letters the other player writes in (a language code), or
    /// `same` for the sheet's own.
    #[arg(long, default_value = "same")]
    copy_lang: String,
    /// Sheets written in English descriptive notation (`P-K4`, `N-KB3`, `PxP`), as English and
    /// American players wrote until about 1980; needs `--lang en`. With --cells, every cell's
    /// writer writes descriptive.
    #[arg(long)]
    descriptive: bool,
    /// Write each game over up to this many sheets of the form, as a long game fills more than
    /// one: `<id>.jpg`, then `<id>-p2.jpg`..., each later sheet going on from the last cell of
    /// the one before, its printed move numbers too, in the same writer's hand (games too
    /// short to reach the last sheet are passed over). Each sheet's truth names the next one
    /// (`next_page`); the manifest lists a game's sheets on one line.
    #[arg(long, default_value_t = 1)]
    pages: u32,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn languages(choice: &str) -> Result<Vec<&'static Language>, String> {
    if choice == "all" {
        return Ok(LANGUAGES.iter().collect());
    }
    choice
        .split(',')
        .map(|code| {
            Language::by_code(code.trim()).ok_or(format!(
                "unknown language {code:?} (see `scoresheet languages`)"
            ))
        })
        .collect()
}

fn layouts(choice: &str) -> Result<Vec<Layout>, String> {
    if choice == "all" {
        return Ok(Layout::built_in());
    }
    if let Some(layout) = Layout::by_name(choice) {
        return Ok(vec![layout]);
    }
    let path = Path::new(choice);
    let json = fs::read_to_string(path).map_err(|e| {
        let names: Vec<String> = Layout::built_in().into_iter().map(|l| l.name).collect();
        format!(
            "{choice}: {e} (not a file, nor a built-in layout: {})",
            names.join(", ")
        )
    })?;
    Layout::from_json(&json)
        .map(|l| vec![l])
        .map_err(|e| format!("{choice}: {e}"))
}

/// Writes `bytes` to `path` through a temporary file, so a reader never sees half a file.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = path.with_extension("part");
    fs::write(&tmp, bytes)
        .and_then(|()| fs::rename(&tmp, path))
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn jpeg(image: &image::RgbImage, quality: u8) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    JpegEncoder::new_with_quality(&mut bytes, quality)
        .encode_image(image)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

fn run(args: Args) -> Result<(), String> {
    let langs = languages(&args.lang)?;
    let copy_lang = match args.copy_lang.as_str() {
        "same" => None,
        code => Some(Language::by_code(code).ok_or(format!(
            "--copy-lang {code:?}: unknown language (see `scoresheet languages`)"
        ))?),
    };
    if args.descriptive && langs.iter().any(|lang| lang.code != "en") {
        return Err(
            "--descriptive: descriptive notation is written in English; add --lang en".into(),
        );
    }
    let layouts = layouts(&args.layout)?;
    let capture = match args.capture.as_str() {
        "scan" => Some(Capture::Scan),
        "photo" => Some(Capture::Photo),
        "mixed" => None,
        other => return Err(format!("--capture {other}: expected scan, photo or mixed")),
    };
    if !(1..=4).contains(&args.pages) {
        return Err(format!("--pages {}: expected 1 to 4", args.pages));
    }
    if !(args.dpi >= 50.0 && args.dpi <= 400.0) {
        return Err(format!("--dpi {}: expected 50 to 400", args.dpi));
    }
    if let Some(chars) = &args.show_glyphs {
        return show_glyphs(&args, chars);
    }
    let games = read_pgn_file(&args.games, args.max_games)
        .map_err(|e| format!("{}: {e}", args.games.display()))?;
    if games.is_empty() {
        return Err(format!("{}: no games", args.games.display()));
    }
    let scripts = load_scripts(&args)?;
    fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    if args.cells {
        return write_cells(&args, &scripts, &games, &langs);
    }
    let request = SheetsRequest {
        langs: &langs,
        copy_lang,
        layouts: &layouts,
        capture,
    };
    write_sheets(&args, &scripts, &games, &request)
}

/// `--show-glyphs`: the first 16 samples of each of `chars`, one row each, as
/// `OUT/glyphs.png`.
fn show_glyphs(args: &Args, chars: &str) -> Result<(), String> {
    let bank = GlyphBank::load(&glyph_dir(args)).map_err(|e| e.to_string())?;
    fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let cell = 72u32;
    let chars: Vec<char> = chars.chars().collect();
    let mut sheet =
        image::GrayImage::from_pixel(cell * 16, cell * chars.len() as u32, image::Luma([255]));
    for (row, c) in chars.iter().enumerate() {
        for (i, mask) in bank.samples(*c).iter().take(16).enumerate() {
            let scale = (cell as f32 - 4.0) / mask.width.max(mask.height) as f32;
            for y in 0..cell - 4 {
                for x in 0..cell - 4 {
                    let a = mask.sample((x as f32 + 0.5) / scale, (y as f32 + 0.5) / scale);
                    let v = (255.0 * (1.0 - a)) as u8;
                    sheet.put_pixel(i as u32 * cell + x, row as u32 * cell + y, image::Luma([v]));
                }
            }
        }
    }
    let path = args.out.join("glyphs.png");
    sheet
        .save(&path)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The glyph samples' folder: `--glyphs`, else the shared data's `glyphs/`.
fn glyph_dir(args: &Args) -> PathBuf {
    args.glyphs
        .clone()
        .unwrap_or_else(|| shared_data_dir().join("glyphs"))
}

/// The writers' scripts: the glyph samples (with MNIST digits unless `--shareable`) and the
/// handwriting fonts, of the part of the writers `--part` names.
fn load_scripts(args: &Args) -> Result<Scripts, String> {
    let glyph_dir = glyph_dir(args);
    let mut bank = if args.shareable {
        GlyphBank::load_shareable(&glyph_dir)
    } else {
        GlyphBank::load(&glyph_dir)
    }
    .map_err(|e| e.to_string())?;
    if !args.shareable && args.mnist.exists() {
        // 300 of each digit beside the 72 photographed ones: MNIST adds writers, not weight.
        bank.add_mnist(
            &args.mnist,
            &args.mnist.with_file_name("mnist-labels.txt"),
            20,
        )
        .map_err(|e| e.to_string())?;
    }
    let part = match args.part.as_str() {
        "all" => Part::All,
        "training" => Part::Training,
        "validation" => Part::Validation,
        other => {
            return Err(format!(
                "--part {other}: expected all, training or validation"
            ))
        }
    };
    Ok(Scripts::load(bank, &args.fonts, &charset())
        .map_err(|e| e.to_string())?
        .part(part))
}

/// `--cells`: labelled cell crops, `OUT/cells-NNNN.npy` in shards of 10,000 and
/// `OUT/labels.tsv`.
fn write_cells(
    args: &Args,
    scripts: &Scripts,
    games: &[PgnGame],
    langs: &[&'static Language],
) -> Result<(), String> {
    let started = Instant::now();
    let (width, height) = args
        .cell_size
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
        .filter(|&(w, h): &(u32, u32)| (16..=1024).contains(&w) && (8..=512).contains(&h))
        .ok_or(format!(
            "--cell-size {}: expected WIDTHxHEIGHT, e.g. 192x48",
            args.cell_size
        ))?;
    let options = CellOptions {
        width,
        height,
        descriptive: args.descriptive,
    };
    let shard = 10_000;
    let mut labels = BufWriter::new(
        fs::File::create(args.out.join("labels.tsv.part"))
            .map_err(|e| format!("{}: {e}", args.out.display()))?,
    );
    writeln!(labels, "index\tfile\trow\ttext\tlanguage\tkind").map_err(|e| e.to_string())?;
    for (shard_index, first) in (0..args.count).step_by(shard).enumerate() {
        let n = shard.min(args.count - first);
        let batch: CellBatch = render_cells(scripts, games, langs, first, n, args.seed, &options);
        let file = format!("cells-{shard_index:04}.npy");
        write_atomically(&args.out.join(&file), &batch.to_npy())?;
        for (row, label) in batch.labels.iter().enumerate() {
            writeln!(
                labels,
                "{}\t{file}\t{row}\t{}\t{}\t{}",
                first + row,
                label.text,
                label.language,
                label.kind
            )
            .map_err(|e| e.to_string())?;
        }
    }
    labels.flush().map_err(|e| e.to_string())?;
    drop(labels);
    fs::rename(
        args.out.join("labels.tsv.part"),
        args.out.join("labels.tsv"),
    )
    .map_err(|e| format!("{}: {e}", args.out.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{} cells in {seconds:.1} s ({:.0} cells/s) -> {}",
        args.count,
        args.count as f64 / seconds,
        args.out.display()
    );
    Ok(())
}

/// What the sheets are written in: the languages taken in turn, the copy's language (`None`:
/// the sheet's), the layouts taken in turn, and the capture (`None`: scans and photos mixed).
struct SheetsRequest<'a> {
    langs: &'a [&'static Language],
    copy_lang: Option<&'static Language>,
    layouts: &'a [Layout],
    capture: Option<Capture>,
}

/// Sheets (and with `--copies` the other player's copies), each as a JPEG and its truth
/// (`OUT/<id>.json`), in parallel; `OUT/manifest.tsv` for `scoresheet batch`; and with
/// `--montage` the first 12 side by side.
fn write_sheets(
    args: &Args,
    scripts: &Scripts,
    games: &[PgnGame],
    request: &SheetsRequest,
) -> Result<(), String> {
    let started = Instant::now();
    let results: Vec<Result<Written, String>> = (0..args.count)
        .into_par_iter()
        .map(|i| write_sheet(args, scripts, games, request, i))
        .collect();
    let (mut cells, mut sheets) = (0, 0);
    let mut thumbnails = Vec::new();
    let mut manifest = String::from("# scoresheet batch manifest.tsv --out DIR\n");
    for result in results {
        let written = result?;
        manifest.push_str(&written.line);
        manifest.push('\n');
        cells += written.cells;
        sheets += written.sheets;
        if args.montage.is_some() && thumbnails.len() < 12 {
            thumbnails.push(image::imageops::thumbnail(&written.image, 400, 560));
        }
    }
    write_atomically(&args.out.join("manifest.tsv"), manifest.as_bytes())?;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{sheets} sheets, {cells} written cells in {seconds:.1} s ({:.2} sheets/s, {:.0} cells/s) -> {}",
        sheets as f64 / seconds,
        cells as f64 / seconds,
        args.out.display()
    );
    if let Some(path) = &args.montage {
        write_montage(path, &thumbnails)?;
    }
    Ok(())
}

/// A game's sheets written (its pages, and its copy's with `--copies`).
struct Written {
    /// The game's line of the manifest.
    line: String,
    /// The first page's image, for the montage.
    image: image::RgbImage,
    /// Cells written in.
    cells: usize,
    /// Sheets written (pages of either copy).
    sheets: usize,
}

/// Writes sheet `i` (its later pages with `--pages`, and its copy with `--copies`).
fn write_sheet(
    args: &Args,
    scripts: &Scripts,
    games: &[PgnGame],
    request: &SheetsRequest,
    i: usize,
) -> Result<Written, String> {
    let langs = request.langs;
    let seed = args.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i as u64 + 1);
    let mut rng = Rng::new(seed);
    let lang = langs[i % langs.len()];
    let layout = &request.layouts[(i + i / langs.len()) % request.layouts.len()];
    let game = pick_long_game(games, layout, args.pages, &mut rng)?;
    let id = format!("{:05}-{}-{}", i, lang.code, layout.name);
    let sheets = GameSheets {
        args,
        scripts,
        game: &game,
        layout,
        capture: request.capture,
    };
    let (image, mut cells, files) = sheets.write(&id, lang, rng.next_u64())?;
    let mut written = files.len();
    // One manifest line: the sheet's pages, its copy's, and the start when it is not the usual.
    let mut line = files.join("\t");
    if args.copies {
        let language = request.copy_lang.unwrap_or(lang);
        let (_, copy_cells, copy_files) =
            sheets.write(&format!("{id}-copy"), language, rng.next_u64())?;
        cells += copy_cells;
        written += copy_files.len();
        line.push_str(&format!("\t|\t{}", copy_files.join("\t")));
    }
    if !game.start.is_standard() {
        line.push_str(&format!("\tstart={}", game.start.fen()));
    }
    Ok(Written {
        line,
        image,
        cells,
        sheets: written,
    })
}

/// A game for `pages` sheets of `layout`: one long enough to reach the last of them (any game
/// for one sheet).
fn pick_long_game(
    games: &[PgnGame],
    layout: &Layout,
    pages: u32,
    rng: &mut Rng,
) -> Result<SheetGame, String> {
    let before_last = layout.capacity() * (pages as usize - 1);
    for _ in 0..1000 {
        let game = pick_game(games, rng).ok_or("no game to write")?;
        if pages == 1 || game.moves.len() > before_last + 4 {
            return Ok(game);
        }
    }
    Err(format!(
        "no game of more than {before_last} plies for --pages {pages} of layout {}",
        layout.name
    ))
}

/// One game's sheets in one hand: what every page of a copy shares.
struct GameSheets<'a> {
    args: &'a Args,
    scripts: &'a Scripts,
    game: &'a SheetGame,
    layout: &'a Layout,
    capture: Option<Capture>,
}

impl GameSheets<'_> {
    /// Renders and writes the game's sheets as `id` (up to `--pages`, fewer when the game
    /// ends sooner), in `language` and the hand drawn from `seed`: the first page's image,
    /// the cells written in, and the image files in page order.
    fn write(
        &self,
        id: &str,
        language: &'static Language,
        seed: u64,
    ) -> Result<(image::RgbImage, usize, Vec<String>), String> {
        let args = self.args;
        let mut sheets = Vec::new();
        let mut played = 0;
        for page in 1..=args.pages {
            let rest;
            let game = if page == 1 {
                self.game
            } else {
                match self.game.continued_after(played) {
                    Some(game) => {
                        rest = game;
                        &rest
                    }
                    None => break,
                }
            };
            let page_id = match page {
                1 => id.to_string(),
                _ => format!("{id}-p{page}"),
            };
            let sheet = render_sheet(
                self.scripts,
                &SheetRequest {
                    id: page_id.clone(),
                    game,
                    language,
                    layout: self.layout,
                    seed,
                    dpi: args.dpi,
                    capture: self.capture,
                    descriptive: args.descriptive,
                    page,
                },
            )
            .map_err(|e| format!("sheet {page_id}: {e}"))?;
            played += sheet.truth.moves_san.len();
            sheets.push(sheet);
        }
        for next in 1..sheets.len() {
            sheets[next - 1].truth.next_page = Some(format!("{}.json", sheets[next].truth.id));
        }
        let mut cells = 0;
        let mut files = Vec::new();
        for sheet in &sheets {
            let bytes = jpeg(&sheet.image, sheet.jpeg_quality)?;
            write_atomically(&args.out.join(&sheet.truth.image), &bytes)?;
            let json = serde_json::to_vec_pretty(&sheet.truth).map_err(|e| e.to_string())?;
            write_atomically(&args.out.join(format!("{}.json", sheet.truth.id)), &json)?;
            cells += sheet.truth.cells.iter().filter(|c| c.ink).count();
            files.push(sheet.truth.image.clone());
        }
        let first = sheets.into_iter().next().ok_or("no sheet rendered")?;
        Ok((first.image, cells, files))
    }
}

/// `thumbnails` four to a row, as a JPEG at `path`.
fn write_montage(path: &Path, thumbnails: &[image::RgbImage]) -> Result<(), String> {
    let columns = 4u32;
    let rows = (thumbnails.len() as u32).div_ceil(columns);
    let mut montage =
        image::RgbImage::from_pixel(columns * 410, rows.max(1) * 570, image::Rgb([255; 3]));
    for (i, thumb) in thumbnails.iter().enumerate() {
        let (x, y) = (
            (i as u32 % columns) * 410 + 5,
            (i as u32 / columns) * 570 + 5,
        );
        image::imageops::overlay(&mut montage, thumb, x as i64, y as i64);
    }
    write_atomically(path, &jpeg(&montage, 80)?)
}
