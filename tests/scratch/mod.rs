//! A test's own scratch folder, removed when the test ends, passed or failed, so that test
//! runs leave nothing behind in the system's temporary folder.

// Each test crate includes this module and uses only some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// An empty folder `$TMPDIR/scoresheet-<test>-<process id>`, removed with everything in it
/// when dropped. Tests of one crate run side by side in one process: each names its own.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("scoresheet-{test}-{}", std::process::id()));
        // A folder left by an earlier process with the same id would hold stale files.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder in the temporary folder");
        Scratch(dir)
    }

    pub fn dir(&self) -> &Path {
        &self.0
    }

    /// Where a file `name` would be in the folder (not created).
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Writes `bytes` to the file `name` in the folder; its path.
    pub fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, bytes).expect("a file in the scratch folder");
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
