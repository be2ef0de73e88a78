//! Writing to granted directories.

use std::io::Write as _;

/// Appends `text` to the file at `path` (created if missing) with a single write on a file
/// opened for appending: the host appends it atomically, so lines from concurrent calls never
/// interleave. `path` may be relative to `cwd` (the workspace root). The file's directory must
/// be granted with `write` in the hook's hooks.toml entry.
pub fn append(cwd: &str, path: &str, text: &str) -> std::io::Result<()> {
    let path = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{cwd}/{path}")
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    file.write_all(text.as_bytes())
}
