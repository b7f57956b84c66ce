//! Writing a decoded game out: PGN for chess software, JSON for tools (a contract: fields are
//! only ever added), and the HTML review page for arbiters ([`html`]).

pub mod html;

use serde_json::{json, Value};
use shakmaty::{CastlingMode, Color, Position};

use crate::decode::{DecodedMove, EndState, Game, StepKind, WhichSheet};

/// The PGN header a user may give; missing values are written `?` as the PGN standard asks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PgnTags {
    pub event: Option<String>,
    pub site: Option<String>,
    pub date: Option<String>,
    pub round: Option<String>,
    pub white: Option<String>,
    pub black: Option<String>,
}

impl PgnTags {
    /// The tag a user names `name` (`event`, `site`, `date`, `round`, `white` or `black`,
    /// lower case, as a batch manifest's `name=value` fields do), to be given.
    pub fn named(&mut self, name: &str) -> Option<&mut Option<String>> {
        match name {
            "event" => Some(&mut self.event),
            "site" => Some(&mut self.site),
            "date" => Some(&mut self.date),
            "round" => Some(&mut self.round),
            "white" => Some(&mut self.white),
            "black" => Some(&mut self.black),
            _ => None,
        }
    }

    /// These tags, each missing one taken from `defaults`.
    pub fn or(self, defaults: &PgnTags) -> PgnTags {
        let pick = |own: Option<String>, default: &Option<String>| own.or(default.clone());
        PgnTags {
            event: pick(self.event, &defaults.event),
            site: pick(self.site, &defaults.site),
            date: pick(self.date, &defaults.date),
            round: pick(self.round, &defaults.round),
            white: pick(self.white, &defaults.white),
            black: pick(self.black, &defaults.black),
        }
    }
}

fn escape_tag(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace(['\n', '\r'], " ")
}

fn escape_comment(text: &str) -> String {
    text.replace('}', ")")
        .replace('{', "(")
        .replace(['\n', '\r'], " ")
}

fn percent(p: f32) -> String {
    format!("{:.0}%", (p * 100.0).clamp(0.0, 100.0))
}

/// Why a move is flagged, in words for a PGN comment or a review page.
pub fn review_note(m: &DecodedMove) -> String {
    let mut parts = Vec::new();
    match m.kind {
        StepKind::Skipped => parts.push("not written on the sheet".to_string()),
        StepKind::Swapped => {
            parts.push("written in swapped order with a neighbouring move".to_string())
        }
        StepKind::AfterJunkCell => {
            parts.push("written after a crossed-out or unreadable cell".to_string())
        }
        StepKind::Written => {}
    }
    if let Some(w) = &m.written {
        if w.trim().is_empty() || w.trim() == "?" {
            parts.push("cell unreadable".to_string());
        } else if m.written_fits {
            parts.push(format!("written \"{}\"", w.trim()));
        } else {
            parts.push(format!(
                "written \"{}\", which does not read as this move",
                w.trim()
            ));
        }
    }
    if let Some(copy) = m.written_copy.as_deref().map(str::trim) {
        let own = m.written.as_deref().map_or("", str::trim);
        if !copy.is_empty() && copy != "?" && copy != own {
            parts.push(format!("the other player's sheet \"{copy}\""));
        }
    }
    if let Some(differ) = &m.sheets_differ {
        let sheet = match differ.sheet {
            WhichSheet::Own => "this sheet",
            WhichSheet::Copy => "the other player's sheet",
        };
        parts.push(format!(
            "{sheet} reads as another legal move, {}",
            differ.san
        ));
    }
    if let Some(rival) = &m.written_alike {
        parts.push(format!(
            "the sheet does not say which piece moved: it reads as {rival} as well"
        ));
    }
    if m.in_doubtful_stretch {
        parts.push("most moves around it are in doubt".to_string());
    }
    parts.push(format!("confidence {}", percent(m.confidence)));
    if !m.alternatives.is_empty() {
        let alts: Vec<String> = m
            .alternatives
            .iter()
            .map(|a| format!("{} {}", a.label(), percent(a.confidence)))
            .collect();
        parts.push(format!("or {}", alts.join(", ")));
    }
    parts.join("; ")
}

/// The move number of the game's `index`-th move (from 0) as a scoresheet and PGN count it:
/// from the start position's full-move number, with Black's first move beside an empty White
/// one where Black moves first; and whether that move is Black's.
pub fn move_number(game: &Game, index: usize) -> (usize, bool) {
    let first_number = game.start.position.fullmoves().get() as usize;
    let black_first = game.start.position.turn() == Color::Black;
    let black = (index % 2 == 1) != black_first;
    (first_number + (index + usize::from(black_first)) / 2, black)
}

/// The game as PGN: the Seven Tag Roster (plus `SetUp`/`FEN`/`Variant` for other starts), the
/// moves, a `{? …}` comment on every flagged move and `{draw offer}` where one was written.
pub fn to_pgn(game: &Game, tags: &PgnTags) -> String {
    to_pgn_with_note(game, tags, None)
}

/// [`to_pgn`], with `note` as a comment before the first move (what a reader of the database
/// must know about the whole game, such as a sheet that could not be read).
pub fn to_pgn_with_note(game: &Game, tags: &PgnTags, note: Option<&str>) -> String {
    let q = |v: &Option<String>, default: &str| escape_tag(v.as_deref().unwrap_or(default));
    let mut out = String::new();
    for (name, value) in [
        ("Event", q(&tags.event, "?")),
        ("Site", q(&tags.site, "?")),
        ("Date", q(&tags.date, "????.??.??")),
        ("Round", q(&tags.round, "?")),
        ("White", q(&tags.white, "?")),
        ("Black", q(&tags.black, "?")),
        ("Result", game.result.clone()),
    ] {
        out.push_str(&format!("[{name} \"{value}\"]\n"));
    }
    if let Some(opening) = &game.opening {
        out.push_str(&format!("[ECO \"{}\"]\n", escape_tag(&opening.eco)));
        out.push_str(&format!("[Opening \"{}\"]\n", escape_tag(&opening.name)));
    }
    if !game.start.is_standard() {
        if game.start.castling_mode == CastlingMode::Chess960 {
            out.push_str("[Variant \"Chess960\"]\n");
        }
        out.push_str("[SetUp \"1\"]\n");
        out.push_str(&format!("[FEN \"{}\"]\n", game.start.fen()));
    }
    out.push('\n');

    let mut tokens: Vec<String> = note
        .map(|note| format!("{{{}}}", escape_comment(note)))
        .into_iter()
        .collect();
    for (i, m) in game.moves.iter().enumerate() {
        let (number, black) = move_number(game, i);
        let continues_after_comment = black && tokens.last().is_some_and(|t| t.ends_with('}'));
        if !black {
            tokens.push(format!("{number}. {}", m.san));
        } else if i == 0 || continues_after_comment {
            tokens.push(format!("{number}... {}", m.san));
        } else {
            tokens.push(m.san.clone());
        }
        let mut comments = Vec::new();
        if m.flagged {
            comments.push(format!("? {}", review_note(m)));
        }
        if m.draw_offer {
            comments.push("draw offer".to_string());
        }
        for c in comments {
            tokens.push(format!("{{{}}}", escape_comment(&c)));
        }
    }
    tokens.push(game.result.clone());

    let mut line_len = 0;
    for token in tokens {
        if line_len > 0 && line_len + 1 + token.chars().count() > 79 {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        line_len += token.chars().count();
        out.push_str(&token);
    }
    out.push('\n');
    out
}

fn end_name(end: EndState) -> &'static str {
    match end {
        EndState::Checkmate => "checkmate",
        EndState::Stalemate => "stalemate",
        EndState::InsufficientMaterial => "insufficient material",
        EndState::Ongoing => "ongoing",
    }
}

fn kind_name(kind: StepKind) -> &'static str {
    match kind {
        StepKind::Written => "written",
        StepKind::Skipped => "skipped",
        StepKind::AfterJunkCell => "after_junk_cell",
        StepKind::Swapped => "swapped",
    }
}

/// One move as JSON: `ply, san, uci, written, confidence, alternatives, flagged` (the contract)
/// plus `written_fits`, `cell`, `kind`, `draw_offer`, and, where the move was read from both
/// players' sheets, `copy_written` and `sheets_differ` (`{"sheet": "copy", "san": "Rc7"}`:
/// that sheet alone reads as another legal move); `written_alike` (`"Rfd1"`) where the cell
/// reads as well as another move of the same piece to the same square.
pub fn move_json(m: &DecodedMove) -> Value {
    let mut entry = json!({
        "ply": m.ply,
        "san": m.san,
        "uci": m.uci,
        "written": m.written,
        "confidence": round3(m.confidence),
        "alternatives": m.alternatives.iter()
            .map(|a| {
                let mut alternative = json!({"san": a.san, "confidence": round3(a.confidence)});
                if let Some(from) = &a.from {
                    alternative["from"] = json!(from);
                }
                alternative
            })
            .collect::<Vec<_>>(),
        "flagged": m.flagged,
        "written_fits": m.written_fits,
        "cell": m.cell,
        "kind": kind_name(m.kind),
        "draw_offer": m.draw_offer,
    });
    if let Some(copy) = &m.written_copy {
        entry["copy_written"] = json!(copy);
    }
    if let Some(differ) = &m.sheets_differ {
        entry["sheets_differ"] = json!({"sheet": differ.sheet.name(), "san": differ.san});
    }
    if let Some(rival) = &m.written_alike {
        entry["written_alike"] = json!(rival);
    }
    if m.in_doubtful_stretch {
        entry["doubtful_stretch"] = json!(true);
    }
    entry
}

fn round3(x: f32) -> f64 {
    (x as f64 * 1000.0).round() / 1000.0
}

/// The decode JSON contract: `moves`, `start_fen`, `language`, `result`, `pgn`, plus `end`,
/// `flagged`, `unused_cells`.
pub fn to_json(game: &Game, tags: &PgnTags) -> Value {
    to_json_with_note(game, tags, None)
}

/// [`to_json`], its `pgn` written by [`to_pgn_with_note`].
pub fn to_json_with_note(game: &Game, tags: &PgnTags, note: Option<&str>) -> Value {
    json!({
        "moves": game.moves.iter().map(move_json).collect::<Vec<_>>(),
        "start_fen": game.start.fen(),
        "language": game.language.code,
        "result": game.result,
        "end": end_name(game.end),
        "flagged": game.moves.iter().filter(|m| m.flagged).count(),
        "unused_cells": game.unused_cells,
        "opening": game.opening.as_ref().map(|o| json!({"eco": o.eco, "name": o.name})),
        "pgn": to_pgn_with_note(game, tags, note),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{decode, DecoderConfig, LanguageChoice, SheetsDiffer, TypedCell};
    use crate::notation::Language;
    use crate::start::StartPosition;

    fn decoded(fen: &str, written: &[&str]) -> Game {
        let start = StartPosition::from_fen(fen).unwrap();
        let cells: Vec<TypedCell> = written.iter().map(|w| TypedCell::new(w)).collect();
        let english = LanguageChoice::Fixed(Language::by_code("en").unwrap());
        decode(&cells, &start, english, &DecoderConfig::default())
    }

    #[test]
    fn a_note_quotes_the_other_players_sheet_where_it_differs() {
        let mut game = decoded(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["e4"],
        );
        let m = &mut game.moves[0];
        m.written_copy = Some("e3".into());
        assert!(
            review_note(m).contains("the other player's sheet \"e3\""),
            "{}",
            review_note(m)
        );
        assert_eq!(move_json(m)["copy_written"], "e3");
        m.written_copy = Some(" e4".into());
        assert!(
            !review_note(m).contains("other player"),
            "{}",
            review_note(m)
        );
        m.written_copy = None;
        assert!(move_json(m).get("copy_written").is_none());
        assert!(move_json(m).get("sheets_differ").is_none());
        m.sheets_differ = Some(SheetsDiffer {
            sheet: WhichSheet::Copy,
            san: "e3".into(),
        });
        assert!(
            review_note(m).contains("the other player's sheet reads as another legal move, e3"),
            "{}",
            review_note(m)
        );
        assert_eq!(
            move_json(m)["sheets_differ"],
            serde_json::json!({"sheet": "copy", "san": "e3"})
        );
    }

    #[test]
    fn moves_are_numbered_from_the_start_position() {
        let standard = decoded(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["e4", "e5", "Nf3"],
        );
        let numbers: Vec<_> = (0..3).map(|i| move_number(&standard, i)).collect();
        assert_eq!(numbers, [(1, false), (1, true), (2, false)]);
        let black_first = decoded(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12",
            &["e5", "Nf3", "Nc6"],
        );
        let numbers: Vec<_> = (0..3).map(|i| move_number(&black_first, i)).collect();
        assert_eq!(numbers, [(12, true), (13, false), (13, true)]);
        assert!(to_pgn(&black_first, &PgnTags::default()).contains("12... e5 13. Nf3 Nc6"));
    }
}
