//! A directory of this process's own for targets that read files (a lock file, convergence.json,
//! a project's hooks.toml): under `$TMPDIR` (the fuzz script points it at a RAM disk it removes
//! afterwards).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

static SCRATCH: OnceLock<PathBuf> = OnceLock::new();

/// This process's scratch directory, created on first use.
pub(crate) fn dir() -> &'static Path {
    SCRATCH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("hookhost-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    })
}

/// A subdirectory of the scratch directory, created.
pub(crate) fn subdir(name: &str) -> PathBuf {
    let dir = dir().join(name);
    std::fs::create_dir_all(&dir).expect("a scratch subdirectory");
    dir
}

/// Removes this process's scratch directory (the corpus replay calls it when it is done; a
/// fuzzing process exits without).
pub fn remove_scratch() {
    if let Some(dir) = SCRATCH.get() {
        let _ = std::fs::remove_dir_all(dir);
    }
}
