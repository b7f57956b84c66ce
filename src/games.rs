//! Reading real games from PGN collections (plain or gzip), for tests, benchmarks, the move
//! prior and the sheet generator.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::ops::ControlFlow;
use std::path::Path;

use flate2::read::MultiGzDecoder;
use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::{Chess, Move, Position};

/// A game from a PGN collection: its tags and its legal moves from the standard start.
#[derive(Debug, Clone)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<Move>,
}

impl PgnGame {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Collector;

struct Movetext {
    tags: Vec<(String, String)>,
    pos: Chess,
    moves: Vec<Move>,
    broken: bool,
}

impl Visitor for Collector {
    type Tags = Vec<(String, String)>;
    type Movetext = Movetext;
    type Output = Option<PgnGame>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        if name == b"FEN" || name == b"SetUp" || name == b"Variant" {
            // Only games from the standard start are collected.
            return ControlFlow::Break(None);
        }
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(Movetext {
            tags,
            pos: Chess::default(),
            moves: Vec::new(),
            broken: false,
        })
    }

    fn san(
        &mut self,
        movetext: &mut Self::Movetext,
        san_plus: SanPlus,
    ) -> ControlFlow<Self::Output> {
        match san_plus.san.to_move(&movetext.pos) {
            Ok(m) => {
                movetext.pos.play_unchecked(m);
                movetext.moves.push(m);
                ControlFlow::Continue(())
            }
            Err(_) => {
                movetext.broken = true;
                ControlFlow::Break(None)
            }
        }
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        (!movetext.broken && !movetext.moves.is_empty()).then_some(PgnGame {
            tags: movetext.tags,
            moves: movetext.moves,
        })
    }
}

/// Reads up to `limit` legal games with a standard start from a `.pgn` or `.pgn.gz` file,
/// skipping games it cannot replay.
pub fn read_pgn_file(path: &Path, limit: usize) -> io::Result<Vec<PgnGame>> {
    let file = BufReader::new(File::open(path)?);
    let source: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    read_pgn(source, limit)
}

/// Reads up to `limit` games from PGN text.
pub fn read_pgn(source: impl Read, limit: usize) -> io::Result<Vec<PgnGame>> {
    let mut reader = Reader::new(source);
    let mut out = Vec::new();
    while out.len() < limit {
        match reader.read_game(&mut Collector)? {
            Some(Some(game)) => out.push(game),
            Some(None) => {}
            None => break,
        }
    }
    Ok(out)
}

/// One scoresheet of the HCS transcriptions: what a player wrote, cell by cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HcsGame {
    /// The game's number in the dataset, e.g. `"001"`.
    pub name: String,
    /// Which player's sheet of the game (the tags' page field: 50 of the training split's 157
    /// games have both players' sheets, 0 and 1, each transcribed with its own slips); `None`
    /// in the test split, whose labels stand for the game.
    pub copy: Option<u32>,
    /// The cells in ply order, White's first; a cell with no label is empty (blank).
    pub cells: Vec<String>,
}

/// Reads an HCS tags file (`GGG_P_M_colour.png LABEL` a line, P the player's sheet, or
/// `GGG_M_colour.png LABEL` in its test split) into sheets in the order of their game and
/// sheet numbers. A missing cell becomes a blank one, except Black's after the last move.
pub fn read_hcs_tags(text: &str) -> Result<Vec<HcsGame>, String> {
    use std::collections::BTreeMap;
    // (Game, sheet) -> (move number, 0 for White or 1 for Black) -> what was written.
    type Labels<'a> = BTreeMap<(u32, u8), &'a str>;
    let mut games: BTreeMap<(&str, Option<u32>), Labels> = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (name, label) = line.split_once(' ').unwrap_or((line, ""));
        let fields: Vec<&str> = name.trim_end_matches(".png").split('_').collect();
        let (game, copy, move_number) = match fields[..] {
            [game, copy, move_number, "white" | "black"] => (game, Some(copy), move_number),
            [game, move_number, "white" | "black"] => (game, None, move_number),
            _ => return Err(format!("line {}: not an HCS tag: {line:?}", number + 1)),
        };
        let number_in = |field: &str, what: &str| {
            field
                .parse::<u32>()
                .map_err(|e| format!("line {}: {what} {field:?}: {e}", number + 1))
        };
        let move_number = number_in(move_number, "move number")?;
        let copy = copy.map(|c| number_in(c, "page")).transpose()?;
        let black = u8::from(fields.last() == Some(&"black"));
        games
            .entry((game, copy))
            .or_default()
            .insert((move_number, black), label.trim());
    }
    Ok(games
        .into_iter()
        .map(|((name, copy), labels)| {
            let last = labels.keys().map(|k| k.0).max().unwrap_or(0);
            let mut cells = Vec::new();
            for move_number in 1..=last {
                for side in 0..2u8 {
                    match labels.get(&(move_number, side)) {
                        Some(label) => cells.push(label.to_string()),
                        None if move_number < last || side == 0 => cells.push(String::new()),
                        None => {}
                    }
                }
            }
            HcsGame {
                name: name.to_string(),
                copy,
                cells,
            }
        })
        .collect())
}

/// The shared data folder (`../shared/data` beside the repository), where the tests and
/// benchmarks find real games; for a clone made elsewhere, the link `scripts/setup` leaves in
/// `.cache/shared-data`. `SCORESHEET_DATA` overrides both.
pub fn shared_data_dir() -> std::path::PathBuf {
    if let Ok(dir) = std::env::var("SCORESHEET_DATA") {
        return dir.into();
    }
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    let beside = repository.join("../shared/data");
    let linked = repository.join(".cache/shared-data");
    if !beside.is_dir() && linked.is_dir() {
        return linked;
    }
    beside
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_games_and_skips_broken_ones() {
        let pgn = b"[White \"A\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n[White \"B\"]\n\n1. e4 Ke7 Nf6 *\n\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n\n1. Kb1 *\n\n1. d4 d5 *\n";
        let games = read_pgn(&pgn[..], 10).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves.len(), 4);
        assert_eq!(games[0].tag("White"), Some("A"));
        assert_eq!(games[1].moves.len(), 2);
    }

    #[test]
    fn hcs_tags_become_cells_in_ply_order() {
        let text = "002_0_2_black.png Nc6\n002_0_1_white.png e4\n002_0_2_white.png Nf3\n\
                    001_1_1_white.png d4\n001_1_1_black.png d5\n\
                    001_0_1_white.png d4\n001_0_1_black.png\n001_0_2_white.png c4\n";
        let games = read_hcs_tags(text).unwrap();
        let cells: Vec<(&str, Option<u32>, Vec<&str>)> = games
            .iter()
            .map(|g| {
                (
                    g.name.as_str(),
                    g.copy,
                    g.cells.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        // Game 2's 1... is missing: a blank cell. The first sheet of game 1 ends with White's
        // move; each player's sheet is read apart.
        assert_eq!(
            cells,
            [
                ("001", Some(0), vec!["d4", "", "c4"]),
                ("001", Some(1), vec!["d4", "d5"]),
                ("002", Some(0), vec!["e4", "", "Nf3", "Nc6"])
            ]
        );
        // The test split has no page field.
        let split = read_hcs_tags("003_1_white.png e4\n003_1_black.png e5\n").unwrap();
        assert_eq!(split[0].cells, ["e4", "e5"]);
        assert_eq!((split[0].name.as_str(), split[0].copy), ("003", None));
    }

    #[test]
    fn a_line_that_is_no_hcs_tag_is_refused_with_its_number() {
        let error = read_hcs_tags("001_0_1_white.png e4\n# notes\n").unwrap_err();
        assert!(error.starts_with("line 2:"), "{error}");
        assert!(read_hcs_tags("001_0_x_white.png e4").is_err());
        assert!(read_hcs_tags("001_p_1_white.png e4").is_err());
        assert!(read_hcs_tags("001_0_1_1_white.png e4").is_err());
    }
}
