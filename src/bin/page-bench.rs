//! Measures the page stage: on generated sheets (made by `scoresheet-synth`, truth beside
//! each image) and on real scans with hand-checked cell boxes, prints the share of move cells
//! found with IoU >= 0.7 and the right ply, cells given a wrong ply, the ink verdict's
//! accuracy, failures, and milliseconds per sheet (decoding the file included).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Parser;
use scoresheet::games::shared_data_dir;
use scoresheet::page::overlay::draw_overlay;
use scoresheet::page::{find_cells, quad_iou, Cells, PageOptions, Quad, Sheet};
use serde_json::Value;

#[derive(Parser)]
#[command(about = "Measures how well the page stage finds the move cells")]
struct Args {
    /// Folders of generated sheets (`scoresheet-synth --out DIR`: images and truth JSON).
    #[arg(long)]
    sheets: Vec<PathBuf>,
    /// Folder of the real-dev scans (default: the shared data folder's real-dev/).
    #[arg(long)]
    real_dev: Option<PathBuf>,
    /// Hand-checked cell boxes of the real-dev scans.
    #[arg(long, default_value = "tests/data/real-dev-cells")]
    real_truth: PathBuf,
    /// Skip the real-dev scans.
    #[arg(long)]
    no_real: bool,
    /// Print every sheet that is not perfect.
    #[arg(long)]
    show_failures: bool,
    /// Write an overlay PNG of every imperfect sheet here.
    #[arg(long)]
    overlays: Option<PathBuf>,
}

/// One move cell of a truth file.
struct TruthCell {
    ply: u32,
    quad: Quad,
    ink: bool,
}

struct Case {
    group: String,
    image: PathBuf,
    cells: Vec<TruthCell>,
}

#[derive(Default)]
struct Tally {
    sheets: usize,
    failed: usize,
    truth_cells: usize,
    found: usize,
    wrong_ply: usize,
    extra: usize,
    ink_right: usize,
    ink_judged: usize,
    millis: Vec<f64>,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.sheets += other.sheets;
        self.failed += other.failed;
        self.truth_cells += other.truth_cells;
        self.found += other.found;
        self.wrong_ply += other.wrong_ply;
        self.extra += other.extra;
        self.ink_right += other.ink_right;
        self.ink_judged += other.ink_judged;
        self.millis.extend(&other.millis);
    }

    fn row(&self, name: &str) -> String {
        let mut ms = self.millis.clone();
        ms.sort_by(f64::total_cmp);
        let pick = |q: f64| {
            if ms.is_empty() {
                f64::NAN
            } else {
                ms[((ms.len() - 1) as f64 * q).round() as usize]
            }
        };
        format!(
            "| {name} | {} | {} | {:.2}% | {} | {} | {:.2}% | {:.0} | {:.0} |",
            self.sheets,
            self.failed,
            100.0 * self.found as f64 / self.truth_cells.max(1) as f64,
            self.wrong_ply,
            self.extra,
            100.0 * self.ink_right as f64 / self.ink_judged.max(1) as f64,
            pick(0.5),
            pick(0.9),
        )
    }
}

fn quad_of(value: &Value) -> Option<Quad> {
    let points = value.as_array()?;
    if points.len() != 4 {
        return None;
    }
    let mut quad = [[0.0f32; 2]; 4];
    for (corner, point) in quad.iter_mut().zip(points) {
        *corner = [point[0].as_f64()? as f32, point[1].as_f64()? as f32];
    }
    Some(quad)
}

fn truth_cells(json: &Value, offset: f32) -> Result<Vec<TruthCell>, String> {
    json["cells"]
        .as_array()
        .ok_or("no cells")?
        .iter()
        .map(|c| {
            let quad = quad_of(&c["quad"]).ok_or("a cell without a quad")?;
            Ok(TruthCell {
                ply: c["ply"].as_u64().ok_or("a cell without a ply")? as u32,
                quad: quad.map(|[x, y]| [x + offset, y + offset]),
                ink: c["ink"].as_bool().unwrap_or(false),
            })
        })
        .collect()
}

fn generated_cases(dir: &Path) -> Result<Vec<Case>, String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    entries.sort();
    let mut cases = Vec::new();
    for path in entries {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let json: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let Some(image) = json["image"].as_str() else {
            continue;
        };
        let group = format!(
            "{} {}",
            json["layout"].as_str().unwrap_or("?"),
            json["flags"]["capture"].as_str().unwrap_or("?")
        );
        cases.push(Case {
            group,
            image: dir.join(image),
            cells: truth_cells(&json, 0.0).map_err(|e| format!("{}: {e}", path.display()))?,
        });
    }
    Ok(cases)
}

fn real_cases(images: &Path, truth: &Path) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for n in 1..=12 {
        let path = truth.join(format!("game{n}.json"));
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let json: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        // The hand-checked boxes put pixel centres on whole numbers; the page stage puts
        // pixel edges there.
        cases.push(Case {
            group: "real-dev scans".into(),
            image: images.join(format!("game{n}/game{n}.png")),
            cells: truth_cells(&json, 0.5).map_err(|e| format!("{}: {e}", path.display()))?,
        });
    }
    Ok(cases)
}

fn score(case: &Case, found: &Cells, tally: &mut Tally) -> Vec<String> {
    let mut problems = Vec::new();
    tally.truth_cells += case.cells.len();
    let by_ply: BTreeMap<u32, &scoresheet::page::Cell> =
        found.cells.iter().map(|c| (c.ply, c)).collect();
    for truth in &case.cells {
        match by_ply.get(&truth.ply) {
            Some(cell) => {
                let iou = quad_iou(&cell.quad, &truth.quad);
                if iou >= 0.7 {
                    tally.found += 1;
                    tally.ink_judged += 1;
                    if cell.ink == truth.ink {
                        tally.ink_right += 1;
                    } else {
                        problems.push(format!(
                            "ply {} ink {} (share {:.3}), truth {}",
                            truth.ply, cell.ink, cell.ink_share, truth.ink
                        ));
                    }
                } else {
                    problems.push(format!("ply {} IoU {iou:.2}", truth.ply));
                }
            }
            None => problems.push(format!("ply {} not found", truth.ply)),
        }
    }
    for cell in &found.cells {
        let best = case
            .cells
            .iter()
            .map(|t| (quad_iou(&cell.quad, &t.quad), t.ply))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        match best {
            Some((iou, ply)) if iou >= 0.5 => {
                if ply != cell.ply {
                    tally.wrong_ply += 1;
                    problems.push(format!("found ply {} on the cell of ply {ply}", cell.ply));
                }
            }
            _ => {
                tally.extra += 1;
                problems.push(format!("ply {} found where no move cell is", cell.ply));
            }
        }
    }
    problems
}

fn main() {
    let args = Args::parse();
    let mut cases = Vec::new();
    for dir in &args.sheets {
        match generated_cases(dir) {
            Ok(c) => cases.extend(c),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
    if !args.no_real {
        let images = args
            .real_dev
            .clone()
            .unwrap_or_else(|| shared_data_dir().join("real-dev"));
        match real_cases(&images, &args.real_truth) {
            Ok(c) => cases.extend(c),
            Err(e) => eprintln!("real-dev skipped: {e}"),
        }
    }
    if cases.is_empty() {
        eprintln!("error: nothing to measure (give --sheets DIR, or have the real-dev scans)");
        std::process::exit(1);
    }
    if let Some(dir) = &args.overlays {
        let _ = std::fs::create_dir_all(dir);
    }
    let mut groups: BTreeMap<String, Tally> = BTreeMap::new();
    for case in &cases {
        let tally = groups.entry(case.group.clone()).or_default();
        tally.sheets += 1;
        let start = Instant::now();
        let outcome = Sheet::open(&case.image).and_then(|sheet| {
            let cells = find_cells(&sheet, &PageOptions::default())?;
            Ok((sheet, cells))
        });
        let millis = start.elapsed().as_secs_f64() * 1000.0;
        tally.millis.push(millis);
        match outcome {
            Ok((sheet, cells)) => {
                let problems = score(case, &cells, tally);
                if !problems.is_empty() {
                    if args.show_failures {
                        println!(
                            "{}: {} problems: {}",
                            case.image.display(),
                            problems.len(),
                            problems
                                .iter()
                                .take(8)
                                .cloned()
                                .collect::<Vec<_>>()
                                .join("; ")
                        );
                    }
                    if let Some(dir) = &args.overlays {
                        let name = case.image.file_stem().unwrap_or_default().to_string_lossy();
                        let _ = draw_overlay(&sheet, &cells).save(dir.join(format!("{name}.png")));
                    }
                }
            }
            Err(e) => {
                tally.failed += 1;
                tally.truth_cells += case.cells.len();
                if args.show_failures {
                    println!("{e}");
                }
            }
        }
    }
    println!("| sheets | n | failed | cells found (IoU >= 0.7, right ply) | wrong ply | extra cells | ink right | median ms | p90 ms |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut generated = Tally::default();
    for (name, tally) in &groups {
        println!("{}", tally.row(name));
        if !name.starts_with("real-dev") {
            generated.add(tally);
        }
    }
    if generated.sheets > 0 {
        println!("{}", generated.row("**all generated**"));
    }
}
