//! Decoder benchmark: move accuracy, speed and calibration on transcripts generated from real
//! games, beside a naive decoder, by noise level and language.
//!
//! `cargo run --release --bin decode-bench -- [--games N] [--langs en,de,…|all] [--seed S]`

use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;
use scoresheet::decode::{
    decode, decode_both_sheets, Calibration, CellEvidence, Channel, DecoderConfig, Game,
    LanguageChoice, MovePrior, PriorMemo, TypedCell,
};
use scoresheet::games::{read_hcs_tags, read_pgn_file, shared_data_dir, HcsGame, PgnGame};
use scoresheet::notation::{for_each_form, legal_moves_with_facts, Language, LANGUAGES};
use scoresheet::start::StartPosition;
use scoresheet::synth::{write_transcript, Noise, Rng, Writer};
use shakmaty::{uci::UciMove, CastlingMode, Chess, Move, Position};

struct Args {
    games: usize,
    langs: Vec<&'static Language>,
    seed: u64,
    pgn: PathBuf,
    skip_games: usize,
    naive: bool,
    show_failures: bool,
    fit_prior: Option<PathBuf>,
    make_book: Option<(PathBuf, PathBuf)>,
    make_tree: Option<PathBuf>,
    hcs_slips: Option<PathBuf>,
    beam: Option<usize>,
    levels: Vec<&'static str>,
    overrides: Vec<(String, f32)>,
    /// One game of the full run (language code, game index), replayed alone with the same
    /// transcript as in the full run, to debug it.
    only: Option<(String, usize)>,
    /// English games written in descriptive notation (`P-K4`, `N-KB3`) instead of algebraic.
    descriptive: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        games: 12,
        langs: LANGUAGES.iter().collect(),
        seed: 1,
        pgn: shared_data_dir().join("games/masters.pgn.gz"),
        skip_games: 0,
        naive: true,
        show_failures: false,
        fit_prior: None,
        make_book: None,
        make_tree: None,
        hcs_slips: None,
        beam: None,
        levels: Noise::LEVELS.iter().map(|n| n.name).collect(),
        overrides: Vec::new(),
        only: None,
        descriptive: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--games" => args.games = value()?.parse().map_err(|e| format!("--games: {e}"))?,
            "--seed" => args.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--pgn" => args.pgn = value()?.into(),
            "--skip-games" => {
                args.skip_games = value()?.parse().map_err(|e| format!("--skip-games: {e}"))?
            }
            "--no-naive" => args.naive = false,
            "--show-failures" => args.show_failures = true,
            "--fit-prior" => args.fit_prior = Some(value()?.into()),
            "--make-book" => {
                let dir = value()?;
                args.make_book = Some((dir.into(), value()?.into()));
            }
            "--make-tree" => args.make_tree = Some(value()?.into()),
            "--hcs-slips" => args.hcs_slips = Some(value()?.into()),
            "--set" => {
                let v = value()?;
                let (k, x) = v.split_once('=').ok_or("--set takes NAME=VALUE")?;
                args.overrides.push((
                    k.to_string(),
                    x.parse().map_err(|e| format!("--set {k}: {e}"))?,
                ));
            }
            "--only" => {
                let v = value()?;
                let (code, game) = v
                    .split_once(':')
                    .ok_or("--only takes LANG:GAME, e.g. no:7")?;
                let game = game.parse().map_err(|e| format!("--only {v}: {e}"))?;
                args.only = Some((code.to_string(), game));
            }
            "--beam" => args.beam = Some(value()?.parse().map_err(|e| format!("--beam: {e}"))?),
            "--levels" => {
                let v = value()?;
                args.levels = v
                    .split(',')
                    .map(|name| {
                        Noise::ALL
                            .iter()
                            .map(|n| n.name)
                            .find(|&n| n == name)
                            .ok_or(format!(
                                "unknown noise level {name} (clean, medium, heavy, players)"
                            ))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--descriptive" => args.descriptive = true,
            "--langs" => {
                let v = value()?;
                if v != "all" {
                    args.langs = v
                        .split(',')
                        .map(|c| Language::by_code(c).ok_or(format!("unknown language {c}")))
                        .collect::<Result<_, _>>()?;
                }
            }
            "--help" | "-h" => {
                println!("decode-bench [--games N per language and level] [--langs all|en,de,…] [--seed S] [--pgn FILE] [--levels clean,medium,heavy,players] [--skip-games N] [--no-naive] [--show-failures] [--set KNOB=VALUE] [--beam W] [--only LANG:GAME (one game of the run, e.g. no:7)] [--descriptive (English games in descriptive notation, P-K4)]\n       decode-bench --hcs-slips HCS_TAGS (what the HCS players wrote: how often both players' sheets of a game decode alike, the review load, the rates of wrong ranks and files)");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if args.descriptive {
        args.langs = vec![Language::by_code("en").expect("English is a language")];
    }
    Ok(args)
}

/// Where both players' sheets of a game were transcribed, each decoded alone should give the
/// same game: a ply the two decodings disagree on is wrong in at least one of them, whatever
/// the game was. Prints how often they agree, how often both were sure and disagreed, and
/// what reading both sheets together (`decode_both_sheets`) leaves to review.
fn print_copies_agreement(
    games: &[HcsGame],
    decoded: &[(&[String], Game)],
    config: &DecoderConfig,
) {
    let english = LanguageChoice::Fixed(Language::by_code("en").expect("English is a language"));
    let start = StartPosition::standard();
    let pairs: Vec<(usize, usize)> = (0..games.len())
        .filter_map(|i| {
            let j = games
                .iter()
                .position(|g| g.name == games[i].name && g.copy > games[i].copy)?;
            Some((i, j))
        })
        .collect();
    if pairs.is_empty() {
        return;
    }
    let fused: Vec<Game> = pairs
        .par_iter()
        .map(|&(i, j)| {
            let typed = |g: &HcsGame| -> Vec<TypedCell> {
                g.cells.iter().map(|t| TypedCell::new(t)).collect()
            };
            let priors = PriorMemo::default();
            decode_both_sheets(
                typed(&games[i]),
                typed(&games[j]),
                &start,
                english,
                config,
                &priors,
            )
        })
        .collect();
    let (mut same_games, mut plies, mut agreed, mut both_sure, mut sure_apart) = (0, 0, 0, 0, 0);
    let (mut fused_moves, mut fused_flagged, mut sheet_plies, mut sheet_as_fused) = (0, 0, 0, 0);
    // Flags of each sheet alone, and those of them for a doubtful stretch, on the plies both
    // decoded: how many, and how many where the other sheet's decoding differs.
    let (mut flags, mut stretch_flags) = (FlagsOnDiffering::default(), FlagsOnDiffering::default());
    for (&(i, j), together) in pairs.iter().zip(&fused) {
        let (a, b) = (&decoded[i].1.moves, &decoded[j].1.moves);
        let common = a.len().min(b.len());
        plies += common;
        let same = (0..common).filter(|&p| a[p].uci == b[p].uci).count();
        agreed += same;
        same_games += usize::from(same == common);
        for p in 0..common {
            let differ = a[p].uci != b[p].uci;
            if !a[p].flagged && !b[p].flagged {
                both_sure += 1;
                sure_apart += usize::from(differ);
            }
            for m in [&a[p], &b[p]] {
                flags.count(m.flagged, differ);
                stretch_flags.count(m.in_doubtful_stretch, differ);
            }
        }
        fused_moves += together.moves.len();
        fused_flagged += together.flagged().count();
        for alone in [a, b] {
            for (m, f) in alone.iter().zip(&together.moves) {
                sheet_plies += 1;
                sheet_as_fused += usize::from(m.uci == f.uci);
            }
        }
    }
    let pct = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
    println!(
        "both players' sheets: {} games, each sheet decoded alone; they agree on {agreed} of {plies} plies ({:.2}%), on every ply in {same_games} games; of the {both_sure} plies neither flagged, {sure_apart} disagree ({:.2}%)",
        pairs.len(),
        pct(agreed, plies),
        pct(sure_apart, both_sure)
    );
    println!(
        "  flags of each sheet alone: {} of {} plies ({:.2}%), {} of them where the other sheet decodes differently ({:.1}%; {:.1}% of the plies differ); for a doubtful stretch {}, {} of them ({:.1}%)",
        flags.flagged,
        2 * plies,
        pct(flags.flagged, 2 * plies),
        flags.on_differing,
        pct(flags.on_differing, flags.flagged),
        pct(plies - agreed, plies),
        stretch_flags.flagged,
        stretch_flags.on_differing,
        pct(stretch_flags.on_differing, stretch_flags.flagged)
    );
    println!(
        "  both sheets read together: {fused_flagged} of {fused_moves} moves flagged ({:.2}%); each sheet alone decodes {:.2}% of its plies as the two together do",
        pct(fused_flagged, fused_moves),
        pct(sheet_as_fused, sheet_plies)
    );
}

/// Flags counted against the plies where the two players' sheets decode differently.
#[derive(Default)]
struct FlagsOnDiffering {
    flagged: usize,
    on_differing: usize,
}

impl FlagsOnDiffering {
    fn count(&mut self, flagged: bool, differ: bool) {
        self.flagged += usize::from(flagged);
        self.on_differing += usize::from(flagged && differ);
    }
}

/// The rates at which the HCS players wrote a wrong rank or file, for the typed channel's
/// costs ([`scoresheet::decode::ChannelCosts`]). Each game of an HCS tags file
/// (`GGG_P_M_colour.png LABEL` a line) is decoded in English letters; where a cell's last
/// square differs from the decoded move's destination in its rank alone (or file alone), the
/// pair (true, written) is counted. A category's rate is the mean over its ordered pairs of
/// the share of cells with that true rank (file) written with that other one; its cost is
/// the rate's negative log.
fn hcs_slips(path: &std::path::Path, config: &DecoderConfig) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let games = read_hcs_tags(&text)?;
    let english = Language::by_code("en").expect("English is a language");
    let start = StartPosition::standard();
    let decoded: Vec<(&[String], Game)> = games
        .par_iter()
        .map(|game| {
            let typed: Vec<TypedCell> = game.cells.iter().map(|t| TypedCell::new(t)).collect();
            let decoded = decode(&typed, &start, LanguageChoice::Fixed(english), config);
            (game.cells.as_slice(), decoded)
        })
        .collect();
    print_copies_agreement(&games, &decoded, config);
    print_flag_shares(&decoded);
    let slips = SquareSlips::of(&decoded);
    println!("{} moves read from a cell", slips.cells);
    slips.print();
    Ok(())
}

/// How many of the decoded moves are flagged, do not read as their cell, or were taken as
/// unwritten.
fn print_flag_shares(decoded: &[(&[String], Game)]) {
    let moves: Vec<_> = decoded.iter().flat_map(|(_, game)| &game.moves).collect();
    let count = |keep: &dyn Fn(&&scoresheet::decode::DecodedMove) -> bool| {
        moves.iter().filter(|m| keep(m)).count()
    };
    let pct = |n: usize| 100.0 * n as f64 / moves.len().max(1) as f64;
    let (flagged, misfits, unwritten) = (
        count(&|m| m.flagged),
        count(&|m| !m.written_fits),
        count(&|m| m.cell.is_none()),
    );
    println!(
        "{} games, {} moves decoded: {flagged} flagged ({:.1}%), {misfits} whose cell does not read as the move ({:.1}%), {unwritten} taken as unwritten ({:.1}%)",
        decoded.len(),
        moves.len(),
        pct(flagged),
        pct(misfits),
        pct(unwritten)
    );
}

/// The file and rank of the last square written in `s` (`(0, 0)` for a1).
fn last_square(s: &str) -> Option<(u8, u8)> {
    let b = s.as_bytes();
    (1..b.len())
        .rev()
        .find(|&i| (b'a'..=b'h').contains(&b[i - 1]) && (b'1'..=b'8').contains(&b[i]))
        .map(|i| (b[i - 1] - b'a', b[i] - b'1'))
}

/// Cells whose last square differs from the decoded move's destination in its rank alone
/// (`ranks[true][written]`) or its file alone, and the cells of each true rank and file.
struct SquareSlips {
    ranks: [[usize; 8]; 8],
    files: [[usize; 8]; 8],
    rank_cells: [usize; 8],
    file_cells: [usize; 8],
    /// Moves read from a cell.
    cells: usize,
}

impl SquareSlips {
    fn of(decoded: &[(&[String], Game)]) -> SquareSlips {
        let mut slips = SquareSlips {
            ranks: [[0; 8]; 8],
            files: [[0; 8]; 8],
            rank_cells: [0; 8],
            file_cells: [0; 8],
            cells: 0,
        };
        for (texts, game) in decoded {
            for m in &game.moves {
                let (Some(cell), Some((to_file, to_rank))) =
                    (m.cell, m.uci.get(2..4).and_then(last_square))
                else {
                    continue;
                };
                let Some(written) = texts.get(cell) else {
                    continue;
                };
                slips.cells += 1;
                slips.rank_cells[to_rank as usize] += 1;
                slips.file_cells[to_file as usize] += 1;
                let Some((file, rank)) = last_square(written) else {
                    continue;
                };
                if file == to_file && rank != to_rank {
                    slips.ranks[to_rank as usize][rank as usize] += 1;
                }
                if rank == to_rank && file != to_file {
                    slips.files[to_file as usize][file as usize] += 1;
                }
            }
        }
        slips
    }

    /// Each category's rate and cost: ranks a neighbour, mirrored or any other off; files
    /// a look-alike (by the typed channel), a neighbour or any other off.
    fn print(&self) {
        let all: Vec<(usize, usize)> = (0..8)
            .flat_map(|t| (0..8).map(move |w| (t, w)))
            .filter(|(t, w)| t != w)
            .collect();
        let pairs_where = |keep: &dyn Fn(usize, usize) -> bool| -> Vec<(usize, usize)> {
            all.iter().copied().filter(|&(t, w)| keep(t, w)).collect()
        };
        let (ranks, rank_cells) = (&self.ranks, &self.rank_cells);
        print_slip_rate(
            "rank: neighbour (d4 for d5)",
            &pairs_where(&|t, w| t.abs_diff(w) == 1),
            ranks,
            rank_cells,
        );
        print_slip_rate(
            "rank: mirrored (Nf3 for Nf6)",
            &pairs_where(&|t, w| t.abs_diff(w) != 1 && t + w == 7),
            ranks,
            rank_cells,
        );
        print_slip_rate(
            "rank: any other",
            &pairs_where(&|t, w| t.abs_diff(w) != 1 && t + w != 7),
            ranks,
            rank_cells,
        );
        let channel = Channel::shared();
        let file_char = |f: usize| (b'a' + f as u8) as char;
        let looks_alike = |t: usize, w: usize| {
            channel.substitution(file_char(t), file_char(w)) < channel.costs().substitution
        };
        let (files, file_cells) = (&self.files, &self.file_cells);
        print_slip_rate(
            "file: look-alike (c for e)",
            &pairs_where(&|t, w| looks_alike(t, w)),
            files,
            file_cells,
        );
        print_slip_rate(
            "file: neighbour (e for f)",
            &pairs_where(&|t, w| !looks_alike(t, w) && t.abs_diff(w) == 1),
            files,
            file_cells,
        );
        print_slip_rate(
            "file: any other",
            &pairs_where(&|t, w| !looks_alike(t, w) && t.abs_diff(w) != 1),
            files,
            file_cells,
        );
    }
}

/// A category of slips (`pairs` of true and written rank or file): the mean over its pairs of
/// the share of cells of the true one (`of`) written as the other (`table`), and that rate's
/// negative log, its cost.
fn print_slip_rate(name: &str, pairs: &[(usize, usize)], table: &[[usize; 8]; 8], of: &[usize; 8]) {
    let rate = pairs
        .iter()
        .map(|&(t, w)| table[t][w] as f64 / of[t].max(1) as f64)
        .sum::<f64>()
        / pairs.len().max(1) as f64;
    let written: usize = pairs.iter().map(|&(t, w)| table[t][w]).sum();
    println!(
        "{name:<34} {:>2} pairs {written:>4} cells, rate {:.5} a pair, cost {:.2} nats",
        pairs.len(),
        rate,
        -rate.ln()
    );
}

/// Writes the opening book the decoder ships (`src/decode/openings.tsv`) from the CC0
/// lichess-org/chess-openings tables (`eco`, `name`, `pgn` columns): ECO, name and the line
/// in UCI, one opening a line.
fn make_book(dir: &std::path::Path, out: &std::path::Path) -> Result<(), String> {
    let mut lines = Vec::new();
    for part in ["a", "b", "c", "d", "e"] {
        let path = dir.join(format!("{part}.tsv"));
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for row in text.lines().skip(1) {
            let fields: Vec<&str> = row.split('\t').collect();
            let [eco, name, pgn] = fields[..] else {
                return Err(format!("{}: bad row {row:?}", path.display()));
            };
            let mut pos = Chess::default();
            let mut ucis = Vec::new();
            for token in pgn.split_whitespace().filter(|t| !t.ends_with('.')) {
                let san: shakmaty::san::San = token
                    .parse()
                    .map_err(|_| format!("{}: bad move {token}", path.display()))?;
                let m = san
                    .to_move(&pos)
                    .map_err(|_| format!("{}: illegal {token} in {pgn}", path.display()))?;
                ucis.push(UciMove::from_move(m, CastlingMode::Standard).to_string());
                pos.play_unchecked(m);
            }
            lines.push(format!("{eco}\t{name}\t{}", ucis.join(" ")));
        }
    }
    let header = "# Opening lines from lichess-org/chess-openings (CC0 1.0), moves in UCI.\n";
    std::fs::write(out, header.to_string() + &lines.join("\n") + "\n")
        .map_err(|e| format!("{}: {e}", out.display()))?;
    println!("wrote {} openings to {}", lines.len(), out.display());
    Ok(())
}

/// Masters games the tree leaves out: the benchmarks and tests decode the first of them.
const TREE_SKIPS_MASTERS: usize = 4000;

/// Writes the opening tree the decoder ships (`src/decode/tree.tsv.gz`) from the Lichess games
/// and the masters games after the first [`TREE_SKIPS_MASTERS`], then prints how well the move
/// prior predicts the first plies of the masters games it left out, with and without the tree.
fn make_tree(out: &std::path::Path) -> Result<(), String> {
    use std::io::Write;
    let data = shared_data_dir().join("games");
    let read = |name: &str| {
        let path = data.join(name);
        read_pgn_file(&path, usize::MAX).map_err(|e| format!("{}: {e}", path.display()))
    };
    let lichess = read("lichess.pgn.gz")?;
    let masters = read("masters.pgn.gz")?;
    let counted: Vec<&[Move]> = lichess
        .iter()
        .chain(masters.iter().skip(TREE_SKIPS_MASTERS))
        .map(|g| g.moves.as_slice())
        .collect();
    let tree = scoresheet::decode::OpeningTree::count(counted.iter().copied());
    let header = format!(
        "# Move counts in positions reached in at least {} of {} games (the Lichess games and \
         the masters games after the first {TREE_SKIPS_MASTERS} of ../shared/data/games), over \
         their first {} plies; moves chosen fewer than {} times count only in the total. \
         Made by decode-bench --make-tree.\n",
        scoresheet::decode::TREE_MIN_GAMES,
        counted.len(),
        scoresheet::decode::TREE_PLIES,
        scoresheet::decode::TREE_MIN_MOVE,
    );
    let file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::best());
    gz.write_all(header.as_bytes())
        .and_then(|_| gz.write_all(tree.to_text().as_bytes()))
        .and_then(|_| gz.finish().map(|_| ()))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    println!(
        "wrote {} positions from {} games to {}",
        tree.len(),
        counted.len(),
        out.display()
    );
    let held_out: Vec<&[Move]> = masters
        .iter()
        .take(TREE_SKIPS_MASTERS)
        .map(|g| g.moves.as_slice())
        .collect();
    for strength in [0.0f32, 3.0, 10.0, 30.0, 100.0] {
        let (mut sum, mut plies) = (0.0f64, 0usize);
        for game in &held_out {
            let mut pos = Chess::default();
            let mut last_to = None;
            for &played in game.iter().take(scoresheet::decode::TREE_PLIES) {
                let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
                let mut priors = Vec::new();
                MovePrior::default().log_probs(&pos, &moves, last_to, &mut priors);
                if strength > 0.0 {
                    tree.blend(&pos, &moves, &mut priors, strength);
                }
                if let Some(i) = moves.iter().position(|m| *m == played) {
                    sum += priors[i] as f64;
                    plies += 1;
                }
                pos.play_unchecked(played);
                last_to = Some(played.to());
            }
        }
        println!(
            "  strength {strength:>5}: mean log-prior of the played move over the first {} plies of {} held-out masters games: {:.3}",
            scoresheet::decode::TREE_PLIES,
            held_out.len(),
            sum / plies.max(1) as f64
        );
    }
    Ok(())
}

/// Fits the move prior on the first `games` games of a PGN file and prints the weights, and
/// how well the fitted and the shipped prior predict games neither was fitted on: the 2,000
/// after them in the file and the first 400 of `masters` (the games the benchmarks decode).
fn fit_prior_on(path: &std::path::Path, games: usize, masters: &std::path::Path) {
    let read = |path: &std::path::Path, count: usize| match read_pgn_file(path, count) {
        Ok(g) => g.into_iter().map(|g| g.moves).collect::<Vec<Vec<Move>>>(),
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            std::process::exit(1);
        }
    };
    let mut moves = read(path, games + HELD_OUT_GAMES);
    let later = moves.split_off(games.min(moves.len()));
    let master_games = read(masters, HELD_OUT_MASTERS);
    let positions: usize = moves.iter().map(Vec::len).sum();
    let (weights, ll) = scoresheet::decode::fit_prior(&moves, 300);
    let mut uniform = 0.0;
    for game in &moves {
        let mut pos = Chess::default();
        for m in game {
            uniform -= (pos.legal_moves().len() as f64).ln();
            pos.play_unchecked(*m);
        }
    }
    println!(
        "fitted on {} games, {positions} positions: mean log-likelihood per move {ll:.3} (uniform choice {:.3})",
        moves.len(),
        uniform / positions.max(1) as f64
    );
    let fitted = MovePrior { weights };
    let shipped = MovePrior::default();
    for (name, held_out) in [
        (format!("the {} games after them", later.len()), &later),
        (
            format!("the first {} of {}", master_games.len(), masters.display()),
            &master_games,
        ),
    ] {
        println!(
            "  on {name}: fitted {:.3}, shipped {:.3}",
            scoresheet::decode::mean_log_likelihood(&fitted, held_out),
            scoresheet::decode::mean_log_likelihood(&shipped, held_out),
        );
    }
    for (name, w) in scoresheet::decode::PRIOR_FEATURE_NAMES.iter().zip(weights) {
        println!("  {name:<40} {w:>7.3}");
    }
    println!("weights: {weights:?}");
}

/// Games after the fitted ones that `--fit-prior` judges the prior on.
const HELD_OUT_GAMES: usize = 2000;
/// Master games `--fit-prior` judges the prior on: the first, which the benchmarks decode.
const HELD_OUT_MASTERS: usize = 400;

/// Greedy nearest legal move by edit distance, told the language: the baseline.
fn naive_decode(cells: &[TypedCell], lang: &Language, descriptive: bool) -> Vec<Move> {
    let channel = Channel::shared();
    let mut style = DecoderConfig::default().style;
    if descriptive {
        style.descriptive = 0.0;
        style.check_ch = 0.0;
    }
    let prior = MovePrior::default();
    let mut pos = Chess::default();
    let mut out = Vec::new();
    let mut last_to = None;
    for cell in cells {
        let legal = legal_moves_with_facts(&pos);
        if legal.is_empty() {
            break;
        }
        let moves: Vec<Move> = legal.iter().map(|(m, _)| *m).collect();
        let mut priors = Vec::new();
        prior.log_probs(&pos, &moves, last_to, &mut priors);
        let read: Vec<char> = cell.cleaned().chars().collect();
        let mut best = (f32::INFINITY, f32::NEG_INFINITY, 0);
        for (i, (_, f)) in legal.iter().enumerate() {
            let mut d = f32::INFINITY;
            if !cell.is_illegible() {
                for_each_form(f, lang, &style, &mut |t, _| {
                    let t: Vec<char> = t.chars().collect();
                    d = d.min(channel.distance(&t, &read, f32::INFINITY));
                });
            } else {
                d = 0.0;
            }
            if d < best.0 || (d == best.0 && priors[i] > best.1) {
                best = (d, priors[i], i);
            }
        }
        let m = legal[best.2].0;
        last_to = Some(m.to());
        pos.play_unchecked(m);
        out.push(m);
    }
    out
}

#[derive(Default, Clone)]
struct Tally {
    plies: usize,
    correct: usize,
    naive_correct: usize,
    games: usize,
    exact_games: usize,
    altered: usize,
    cells: usize,
    flagged: usize,
    unflagged: usize,
    unflagged_correct: usize,
    millis: Vec<f64>,
    /// Milliseconds per 80 plies of each game: the speed bar is stated for an 80-ply game.
    millis_per_80_plies: Vec<f64>,
    /// Plies that match the truth in a longest common subsequence: what ply-by-ply accuracy
    /// would be without offsets.
    aligned_correct: usize,
    /// Every decoded move's confidence and whether it was right.
    calibration: Calibration,
    language_right: usize,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.plies += o.plies;
        self.correct += o.correct;
        self.aligned_correct += o.aligned_correct;
        self.naive_correct += o.naive_correct;
        self.games += o.games;
        self.exact_games += o.exact_games;
        self.altered += o.altered;
        self.cells += o.cells;
        self.flagged += o.flagged;
        self.unflagged += o.unflagged;
        self.unflagged_correct += o.unflagged_correct;
        self.millis.extend(&o.millis);
        self.millis_per_80_plies.extend(&o.millis_per_80_plies);
        self.calibration.merge(&o.calibration);
        self.language_right += o.language_right;
    }
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// One line of the per-language table.
fn table_row(label: &str, t: &Tally) -> String {
    format!(
        "{:<5} {:>5} {:>6} {:>8.2}% {:>6.1}% {:>10.1}% {:>10.1}% {:>7.1}% {:>15.2}% {:>9.1}",
        label,
        t.games,
        t.plies,
        pct(t.correct, t.plies),
        pct(t.naive_correct, t.plies),
        pct(t.exact_games, t.games),
        pct(t.language_right, t.games),
        pct(t.flagged, t.flagged + t.unflagged),
        pct(t.unflagged_correct, t.unflagged),
        median(&t.millis),
    )
}

fn score_game(game: &Game, truth: &[Move], tally: &mut Tally) {
    let truth_uci: Vec<String> = truth
        .iter()
        .map(|m| UciMove::from_move(*m, CastlingMode::Standard).to_string())
        .collect();
    let mut all = true;
    for (i, t) in truth_uci.iter().enumerate() {
        let decoded = game.moves.get(i);
        let right = decoded.is_some_and(|m| &m.uci == t);
        all &= right;
        tally.correct += right as usize;
        if let Some(m) = decoded {
            tally.calibration.add(m.confidence, right);
            if m.flagged {
                tally.flagged += 1;
            } else {
                tally.unflagged += 1;
                tally.unflagged_correct += right as usize;
            }
        }
    }
    all &= game.moves.len() == truth.len();
    tally.exact_games += all as usize;
    let decoded: Vec<&str> = game.moves.iter().map(|m| m.uci.as_str()).collect();
    let mut lcs = vec![vec![0usize; decoded.len() + 1]; truth_uci.len() + 1];
    for i in 0..truth_uci.len() {
        for j in 0..decoded.len() {
            lcs[i + 1][j + 1] = if truth_uci[i] == decoded[j] {
                lcs[i][j] + 1
            } else {
                lcs[i][j + 1].max(lcs[i + 1][j])
            };
        }
    }
    tally.aligned_correct += lcs[truth_uci.len()][decoded.len()];
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let mut config = DecoderConfig::default();
    for (name, value) in &args.overrides {
        if let Err(e) = config.set(name, *value) {
            eprintln!("error: --set: {e}");
            std::process::exit(2);
        }
    }
    if let Some(w) = args.beam {
        // A search near exhaustive, to tell search errors from model errors.
        config.beam_width = w;
        config.beam_margin = 60.0;
        config.repair_from_best = 6;
    }
    if let Some((dir, out)) = &args.make_book {
        if let Err(e) = make_book(dir, out) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        return;
    }
    if let Some(out) = &args.make_tree {
        if let Err(e) = make_tree(out) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        return;
    }
    if let Some(path) = &args.hcs_slips {
        if let Err(e) = hcs_slips(path, &config) {
            eprintln!("error: {}: {e}", path.display());
            std::process::exit(1);
        }
        return;
    }
    if let Some(path) = &args.fit_prior {
        fit_prior_on(path, args.games, &args.pgn);
        return;
    }
    let wanted = args.skip_games + args.games * args.langs.len().max(1);
    let games: Vec<PgnGame> = match read_pgn_file(&args.pgn, wanted * 2) {
        Ok(g) => g
            .into_iter()
            .filter(|g| g.moves.len() >= 16)
            .skip(args.skip_games)
            .take(wanted)
            .collect(),
        Err(e) => {
            eprintln!("error: {}: {e}", args.pgn.display());
            std::process::exit(1);
        }
    };
    println!(
        "decode-bench: {} games from {} ({} per language and level, at most 120 plies each), seed {}",
        games.len(),
        args.pgn.display(),
        args.games,
        args.seed
    );
    let mut overall_by_level = Vec::new();
    for noise in Noise::ALL.iter().filter(|n| args.levels.contains(&n.name)) {
        let per_lang = run_level(&args, &games, &config, noise);
        overall_by_level.push((noise.name, print_level(noise, &per_lang)));
    }
    print_summary(&overall_by_level);
}

/// Each language's transcripts at `noise` decoded, language not given: its tally.
fn run_level(
    args: &Args,
    games: &[PgnGame],
    config: &DecoderConfig,
    noise: &Noise,
) -> Vec<(&'static Language, Tally)> {
    args.langs
        .par_iter()
        .enumerate()
        .map(|(li, &lang)| {
            let mut tally = Tally::default();
            for gi in 0..args.games {
                if args
                    .only
                    .as_ref()
                    .is_some_and(|(code, only)| code != lang.code || *only != gi)
                {
                    continue;
                }
                let game = &games[(li * args.games + gi) % games.len()];
                let moves = &game.moves[..game.moves.len().min(120)];
                let seed =
                    args.seed ^ ((li as u64) << 32) ^ gi as u64 ^ (noise.name.len() as u64 * 977);
                let transcript = TranscriptOf { lang, noise, gi };
                decode_game(args, config, moves, &transcript, seed, &mut tally);
            }
            (lang, tally)
        })
        .collect()
}

/// Which transcript of a run a game is: its language, noise and index.
struct TranscriptOf<'a> {
    lang: &'static Language,
    noise: &'a Noise,
    gi: usize,
}

/// Writes `moves` as a random writer of `of.lang` would at `of.noise` (drawn from `seed`),
/// decodes the transcript (and with `--naive` reads it naively) and adds the outcome to
/// `tally`; with `--show-failures` prints a game decoded wrong, ply by ply.
fn decode_game(
    args: &Args,
    config: &DecoderConfig,
    moves: &[Move],
    of: &TranscriptOf,
    seed: u64,
    tally: &mut Tally,
) {
    let start = StartPosition::standard();
    let mut rng = Rng::new(seed);
    let writer = Writer::drawn(args.descriptive, &mut rng);
    let t = write_transcript(&start.position, moves, of.lang, &writer, of.noise, &mut rng);
    let cells: Vec<TypedCell> = t.cells.iter().map(|c| TypedCell::new(c)).collect();
    let clock = Instant::now();
    let decoded = decode(&cells, &start, LanguageChoice::Auto, config);
    let millis = clock.elapsed().as_secs_f64() * 1000.0;
    tally.millis.push(millis);
    tally
        .millis_per_80_plies
        .push(millis * 80.0 / moves.len().max(1) as f64);
    tally.language_right += decoded.language.same_letters(of.lang) as usize;
    tally.games += 1;
    tally.plies += moves.len();
    tally.cells += t.cells.len();
    tally.altered += t.altered_cells;
    let before = tally.correct;
    score_game(&decoded, moves, tally);
    if args.show_failures && tally.correct - before < moves.len() {
        let heading = format!(
            "FAIL {} {} game {} writer: {}",
            of.lang.code, of.noise.name, of.gi, writer.description
        );
        print_failure(
            &heading,
            &decoded,
            moves,
            (&t.cells, &cells),
            of.lang,
            config,
        );
    }
    if args.naive {
        let naive = naive_decode(&cells, of.lang, args.descriptive);
        tally.naive_correct += moves.iter().zip(&naive).filter(|(a, b)| a == b).count();
    }
}

/// A game decoded wrong (`--show-failures`): each ply's true and decoded move, the
/// transcript's cells (as written, and as decoded), the decoded and true games' scores and
/// where the search lost the true game.
fn print_failure(
    heading: &str,
    decoded: &Game,
    moves: &[Move],
    (written, cells): (&[String], &[TypedCell]),
    lang: &'static Language,
    config: &DecoderConfig,
) {
    let start = StartPosition::standard();
    let mut pos = Chess::default();
    let mut lines = vec![heading.to_string()];
    for (i, m) in moves.iter().enumerate() {
        let truth = shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut pos, *m).to_string();
        let d = decoded.moves.get(i);
        lines.push(format!(
            "  ply {:>3} truth {:<8} decoded {:<8} conf {:.3} written {:?} {:?}{}{}",
            i + 1,
            truth,
            d.map_or("-", |d| d.san.as_str()),
            d.map_or(0.0, |d| d.confidence),
            d.and_then(|d| d.written.clone()),
            d.map(|d| d.kind),
            if d.is_some_and(|d| d.flagged) {
                " flagged"
            } else {
                ""
            },
            if d.is_some_and(|d| d.san == truth) {
                ""
            } else {
                "   <<<"
            }
        ));
    }
    lines.push(format!("  cells: {written:?}"));
    lines.push(format!(
        "  decoded score {:.2}, truth score {:?}",
        decoded.score,
        scoresheet::decode::line_score(cells, &start, lang, moves, config)
    ));
    lines.push(format!(
        "  search loss {:?}",
        scoresheet::decode::search_loss(cells, &start, lang, moves, config)
    ));
    println!("{}", lines.join("\n"));
}

/// Prints a level's table (a row per language and the total) and calibration; returns the
/// total.
fn print_level(noise: &Noise, per_lang: &[(&'static Language, Tally)]) -> Tally {
    println!(
        "\n== {} noise: {:.1}% of cells differ from a correct form of the move ==",
        noise.name,
        pct(
            per_lang.iter().map(|t| t.1.altered).sum(),
            per_lang.iter().map(|t| t.1.cells).sum()
        )
    );
    println!("lang  games  plies  accuracy  naive   exact-games  lang-found  flagged  unflagged-right  median-ms");
    let mut total = Tally::default();
    for (lang, t) in per_lang {
        println!("{}", table_row(lang.code, t));
        total.add(t);
    }
    println!("{}", table_row("ALL", &total));
    println!("{}", total.calibration);
    total
}

/// One line per level: accuracy, naive accuracy, times, flags.
fn print_summary(overall_by_level: &[(&str, Tally)]) {
    println!(
        "\nsummary: level accuracy naive median-ms p90-ms median-ms-per-80-plies flagged unflagged-right lcs-accuracy"
    );
    for (name, t) in overall_by_level {
        let mut ms = t.millis.clone();
        ms.sort_by(|a, b| a.total_cmp(b));
        let p90 = ms.get(ms.len() * 9 / 10).copied().unwrap_or(0.0);
        println!(
            "  {name:<7} {:.2}% {:.1}% {:.1} {:.1} {:.1} {:.2}% {:.2}% {:.2}%",
            pct(t.correct, t.plies),
            pct(t.naive_correct, t.plies),
            median(&t.millis),
            p90,
            median(&t.millis_per_80_plies),
            pct(t.flagged, t.flagged + t.unflagged),
            pct(t.unflagged_correct, t.unflagged),
            pct(t.aligned_correct, t.plies)
        );
    }
}
