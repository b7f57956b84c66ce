//! Piece letters of the languages players write scoresheets in.

use shakmaty::Role;

/// One language's piece letters, as players of that language write them.
///
/// `letters[i]` holds the ways to write the piece of [`PIECE_ORDER`]`[i]`; the first entry is the
/// usual one, the others are accepted variants (Irish players write the knight as `D` or `Rd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language {
    /// ISO 639-1 code, e.g. `"de"`.
    pub code: &'static str,
    /// English name, e.g. `"German"`.
    pub name: &'static str,
    /// King, queen, rook, bishop, knight: usual letter first, then accepted variants.
    pub letters: [&'static [&'static str]; 5],
}

/// The order of pieces in [`Language::letters`].
pub const PIECE_ORDER: [Role; 5] = [
    Role::King,
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
];

/// The characters of a move cell in every language: files, ranks, castling with letters or
/// zeros, the capture, check, mate and promotion marks, long algebraic's dash, `e.p.` and the
/// `(=)` of a draw offer.
pub const NOTATION_MARKS: &str = "abcdefgh12345678O0x:-+#=/().p";

impl Language {
    /// The usual letter(s) for a piece; `None` for the pawn, which has no letter in algebraic
    /// notation.
    pub fn letter(&self, role: Role) -> Option<&'static str> {
        self.variants(role).first().copied()
    }

    /// Every accepted way to write a piece, the usual one first; empty for the pawn.
    pub fn variants(&self, role: Role) -> &'static [&'static str] {
        match role {
            Role::King => self.letters[0],
            Role::Queen => self.letters[1],
            Role::Rook => self.letters[2],
            Role::Bishop => self.letters[3],
            Role::Knight => self.letters[4],
            Role::Pawn => &[],
        }
    }

    /// The pawn's letter where this language's players name a pawn taken (`PxP`, a
    /// descriptive habit): English only, as the HCS players write; other languages' pawn
    /// letters are not known to us from real sheets.
    pub fn pawn_letter(&self) -> Option<&'static str> {
        (self.code == "en").then_some("P")
    }

    /// Two languages that write every piece the same way produce identical scoresheets.
    pub fn same_letters(&self, other: &Language) -> bool {
        self.letters == other.letters
    }

    /// Whether a player of this language may write `c` in a move cell: one of its piece
    /// letters (the pawn's too, where it has one), or a character every language's notation shares ([`NOTATION_MARKS`]).
    pub fn writes(&self, c: char) -> bool {
        NOTATION_MARKS.contains(c)
            || self.pawn_letter().is_some_and(|pawn| pawn.contains(c))
            || self
                .letters
                .iter()
                .flat_map(|variants| variants.iter())
                .any(|letter| letter.contains(c))
    }

    /// Finds a language by its code (case-insensitive), e.g. `"ru"`.
    pub fn by_code(code: &str) -> Option<&'static Language> {
        LANGUAGES.iter().find(|l| l.code.eq_ignore_ascii_case(code))
    }
}

macro_rules! lang {
    ($code:literal, $name:literal, [$($k:literal),+], [$($q:literal),+], [$($r:literal),+], [$($b:literal),+], [$($n:literal),+]) => {
        Language {
            code: $code,
            name: $name,
            letters: [&[$($k),+], &[$($q),+], &[$($r),+], &[$($b),+], &[$($n),+]],
        }
    };
}

/// Every language scoresheet knows. Sources: FIDE Laws appendix C, the Irish article's table in
/// `shared/seeds/003_…` and the federations' own conventions. Where two languages share every
/// letter (German, Swedish, Danish, Norwegian, Croatian, Slovenian) the first one listed is the one
/// reported when a sheet is decoded.
pub const LANGUAGES: &[Language] = &[
    lang!("en", "English", ["K"], ["Q"], ["R"], ["B"], ["N"]),
    lang!("de", "German", ["K"], ["D"], ["T"], ["L"], ["S"]),
    lang!("fr", "French", ["R"], ["D"], ["T"], ["F"], ["C"]),
    lang!("es", "Spanish", ["R"], ["D"], ["T"], ["A"], ["C"]),
    lang!("it", "Italian", ["R"], ["D"], ["T"], ["A"], ["C"]),
    lang!("nl", "Dutch", ["K"], ["D"], ["T"], ["L"], ["P"]),
    lang!("pl", "Polish", ["K"], ["H"], ["W"], ["G"], ["S"]),
    lang!("ru", "Russian", ["Кр"], ["Ф"], ["Л"], ["С"], ["К"]),
    lang!("uk", "Ukrainian", ["Кр"], ["Ф"], ["Т"], ["С"], ["К"]),
    lang!("hy", "Armenian", ["Ա"], ["Թ"], ["Ն"], ["Փ"], ["Ձ"]),
    lang!(
        "ga",
        "Irish",
        ["R"],
        ["Br"],
        ["C"],
        ["E"],
        ["D", "Rd", "Ri"]
    ),
    lang!("eo", "Esperanto", ["R"], ["D"], ["T"], ["K"], ["Ĉ"]),
    lang!("hi", "Hindi", ["R"], ["V"], ["H"], ["O"], ["G"]),
    lang!("pt", "Portuguese", ["R"], ["D"], ["T"], ["B"], ["C"]),
    lang!("ca", "Catalan", ["R"], ["D"], ["T"], ["A"], ["C"]),
    lang!("ro", "Romanian", ["R"], ["D"], ["T"], ["N"], ["C"]),
    lang!("sv", "Swedish", ["K"], ["D"], ["T"], ["L"], ["S"]),
    lang!("da", "Danish", ["K"], ["D"], ["T"], ["L"], ["S"]),
    lang!("no", "Norwegian", ["K"], ["D"], ["T"], ["L"], ["S"]),
    lang!("fi", "Finnish", ["K"], ["D"], ["T"], ["L"], ["R"]),
    lang!("is", "Icelandic", ["K"], ["D"], ["H"], ["B"], ["R"]),
    lang!("et", "Estonian", ["K"], ["L"], ["V"], ["O"], ["R"]),
    lang!("lv", "Latvian", ["K"], ["D"], ["T"], ["L"], ["Z"]),
    lang!("lt", "Lithuanian", ["K"], ["V"], ["B"], ["R"], ["Ž"]),
    lang!("cs", "Czech", ["K"], ["D"], ["V"], ["S"], ["J"]),
    lang!("sk", "Slovak", ["K"], ["D"], ["V"], ["S"], ["J"]),
    lang!("hu", "Hungarian", ["K"], ["V"], ["B"], ["F"], ["H"]),
    lang!("hr", "Croatian", ["K"], ["D"], ["T"], ["L"], ["S"]),
    lang!("sl", "Slovenian", ["K"], ["D"], ["T"], ["L"], ["S"]),
    lang!("sr", "Serbian", ["К"], ["Д"], ["Т"], ["Л"], ["С"]),
    lang!("bg", "Bulgarian", ["Ц"], ["Д"], ["Т"], ["О"], ["К"]),
    lang!("el", "Greek", ["Ρ"], ["Β"], ["Π"], ["Α"], ["Ι"]),
    lang!("tr", "Turkish", ["Ş"], ["V"], ["K"], ["F"], ["A"]),
];

/// The languages that write differently from every earlier one in [`LANGUAGES`]: the choices a
/// decoder has to weigh when the language is not given.
pub fn distinct_languages() -> Vec<&'static Language> {
    let mut out: Vec<&'static Language> = Vec::new();
    for lang in LANGUAGES {
        if !out.iter().any(|l| l.same_letters(lang)) {
            out.push(lang);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_found() {
        for (i, a) in LANGUAGES.iter().enumerate() {
            assert_eq!(Language::by_code(a.code), Some(a));
            for b in &LANGUAGES[i + 1..] {
                assert_ne!(a.code, b.code);
            }
        }
        assert_eq!(Language::by_code("RU").map(|l| l.name), Some("Russian"));
        assert!(Language::by_code("xx").is_none());
    }

    #[test]
    fn letters_within_a_language_are_distinct() {
        for lang in LANGUAGES {
            let all: Vec<&str> = lang
                .letters
                .iter()
                .flat_map(|v| v.iter().copied())
                .collect();
            for (i, a) in all.iter().enumerate() {
                for b in &all[i + 1..] {
                    assert_ne!(a, b, "{} writes two pieces as {a}", lang.code);
                }
            }
        }
    }

    #[test]
    fn developer_guide_letters() {
        let expect = [
            ("en", "K Q R B N"),
            ("de", "K D T L S"),
            ("fr", "R D T F C"),
            ("es", "R D T A C"),
            ("it", "R D T A C"),
            ("nl", "K D T L P"),
            ("pl", "K H W G S"),
            ("ru", "Кр Ф Л С К"),
            ("uk", "Кр Ф Т С К"),
            ("hy", "Ա Թ Ն Փ Ձ"),
            ("ga", "R Br C E D"),
            ("eo", "R D T K Ĉ"),
            ("hi", "R V H O G"),
        ];
        for (code, letters) in expect {
            let lang = Language::by_code(code).unwrap();
            let got: Vec<&str> = PIECE_ORDER
                .iter()
                .map(|&r| lang.letter(r).unwrap())
                .collect();
            assert_eq!(got.join(" "), letters, "{code}");
        }
        assert!(Language::by_code("ga")
            .unwrap()
            .variants(Role::Knight)
            .contains(&"Rd"));
    }

    #[test]
    fn distinct_languages_drop_exact_copies_only() {
        let distinct = distinct_languages();
        assert!(distinct.iter().any(|l| l.code == "de"));
        assert!(!distinct.iter().any(|l| l.code == "sv"));
        assert!(!distinct.iter().any(|l| l.code == "it"));
        assert!(distinct.iter().any(|l| l.code == "uk"));
        assert!(distinct.len() >= 20);
    }
}
