//! What several test files share: the handwriting material and real games of `../shared`.

use std::path::Path;
use std::sync::OnceLock;

use scoresheet::games::{read_pgn_file, shared_data_dir, PgnGame};
use scoresheet::synth::charset;
use scoresheet::synth::glyphs::GlyphBank;
use scoresheet::synth::hand::Scripts;

/// The real glyphs and the handwriting fonts, loaded once per test binary.
pub fn scripts() -> &'static Scripts {
    static SCRIPTS: OnceLock<Scripts> = OnceLock::new();
    SCRIPTS.get_or_init(|| {
        let bank = GlyphBank::load(&shared_data_dir().join("glyphs")).expect("shared glyphs");
        Scripts::load(bank, Path::new("/usr/share/fonts"), &charset())
            .expect("fonts installed by scripts/setup")
    })
}

/// The first 300 master games.
pub fn games() -> &'static [PgnGame] {
    static GAMES: OnceLock<Vec<PgnGame>> = OnceLock::new();
    GAMES.get_or_init(|| {
        read_pgn_file(&shared_data_dir().join("games/masters.pgn.gz"), 300).expect("games")
    })
}
