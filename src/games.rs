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
}
