//! No link a hook leaves behind may point outside the grant it lives in.
//!
//! A hook cannot follow a symlink out of its grants, but the next reader (the agent, a command
//! hook, a person) can. Two rules keep every link a hook creates or moves inside:
//!
//! 1. **A new symlink's target goes down only**: relative, without `..` (`notes.md ->
//!    docs/notes.md`, never `../outside/secret.txt`). Such a link resolves at or below its own
//!    directory, wherever it is moved later and through whichever other such links it passes,
//!    so one check when it is created is enough: no bookkeeping, nothing to race with.
//! 2. **A move never brings a directory, or a symlink that goes up, closer to its grant's
//!    root** (rename or hard link). A symlink the host put there (`docs/README.md ->
//!    ../README.md`) is harmless where it is, but one level up it points out of the grant; so
//!    is every such link inside a directory moved up. Moves within a directory, or deeper, keep
//!    every `..` inside.
//!
//! Refusing symlinks unless a grant opts in would be simpler still, but would break hooks that
//! keep links inside their own directory, and hooks.toml has no such switch; rule 1 costs
//! them only the `..` (write the path as text, or copy the file).

use std::io;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Component, Path, PathBuf};

use cap_primitives::fs::FollowSymlinks;
use wasmtime_wasi::filesystem::Dir;
use wasmtime_wasi::p2::FsResult;
use wasmtime_wasi::p2::bindings::filesystem::types::ErrorCode;

use super::FsRules;

/// Whether a symlink target only goes down from the link's directory.
fn goes_down_only(target: &Path) -> bool {
    target.components().next().is_some()
        && target
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Rule 1, for `symlink-at`.
pub(super) fn check_new_symlink(target: &str, link: &str, rules: &FsRules) -> FsResult<()> {
    if goes_down_only(Path::new(target)) {
        return Ok(());
    }
    Err(rules.refuse(format_args!(
        "refused to create symlink `{link} -> {target}`: a hook's symlink must point down from \
         its own directory (a relative path without `..`)"
    )))
}

/// Rule 2, for `rename-at` and `link-at` (`op`) of `old_path` under `old_dir` to `new_path`
/// under `new_dir`.
pub(super) async fn check_move(
    op: &str,
    old_dir: &Dir,
    old_path: &str,
    new_dir: &Dir,
    new_path: &str,
    rules: &FsRules,
) -> FsResult<()> {
    // Read-only grants: wasmtime-wasi refuses the move itself.
    if old_dir.perms.write_not_permitted() || new_dir.perms.write_not_permitted() {
        return Ok(());
    }
    let (old_start, new_start) = (old_dir.dir.clone(), new_dir.dir.clone());
    let (old, new) = (PathBuf::from(old_path), PathBuf::from(new_path));
    let roots = rules.roots.clone();
    let verdict = wasmtime_wasi::runtime::spawn_blocking(move || {
        move_keeps_links_inside(&old_start, &old, &new_start, &new, &roots)
    })
    .await;
    match verdict {
        Ok(None) => Ok(()),
        Ok(Some(what)) => Err(rules.refuse(format_args!(
            "refused to {op} `{old_path}` to `{new_path}`: it is {what}, and the move would bring \
             it closer to its grant's root, where links in it could point outside"
        ))),
        Err(error) => Err(ErrorCode::from(error).into()),
    }
}

/// `None` when the move is safe; else what is moved, for the refusal.
fn move_keeps_links_inside(
    old_start: &std::fs::File,
    old: &Path,
    new_start: &std::fs::File,
    new: &Path,
    roots: &[PathBuf],
) -> io::Result<Option<&'static str>> {
    let metadata = match cap_primitives::fs::stat(old_start, old, FollowSymlinks::No) {
        Ok(metadata) => metadata,
        // Nothing there: the move itself fails, with its own error.
        Err(_) => return Ok(None),
    };
    let what = if metadata.is_dir() {
        "a directory"
    } else if metadata.is_symlink() {
        let target = cap_primitives::fs::read_link_contents(old_start, old)?;
        if goes_down_only(&target) {
            return Ok(None);
        }
        "a symlink that points up"
    } else {
        return Ok(None);
    };
    let (Some(old_parent), Some(new_parent)) = (parent(old), parent(new)) else {
        return Ok(Some(what));
    };
    let old_parent = cap_primitives::fs::open_dir(old_start, old_parent)?;
    let new_parent = cap_primitives::fs::open_dir(new_start, new_parent)?;
    let (a, b) = (old_parent.metadata()?, new_parent.metadata()?);
    if (a.dev(), a.ino()) == (b.dev(), b.ino()) {
        return Ok(None);
    }
    let roots: Vec<PathBuf> = roots
        .iter()
        .filter_map(|root| std::fs::canonicalize(root).ok())
        .collect();
    // With nested grants a directory has a depth below each: the move must be safe for the
    // grant that lets its links reach the furthest up.
    let old_depth = depths(&dir_path(&old_parent)?, &roots).max();
    let new_depth = depths(&dir_path(&new_parent)?, &roots).min();
    match (old_depth, new_depth) {
        (Some(old_depth), Some(new_depth)) if new_depth >= old_depth => Ok(None),
        _ => Ok(Some(what)),
    }
}

/// The directory a path's last component is in (`.` for a bare name); `None` when the path
/// ends in `..` or names no entry.
fn parent(path: &Path) -> Option<&Path> {
    path.file_name()?;
    match path.parent()? {
        p if p.as_os_str().is_empty() => Some(Path::new(".")),
        p => Some(p),
    }
}

/// How many levels below each root (that contains it) a directory is.
fn depths<'a>(dir: &'a Path, roots: &'a [PathBuf]) -> impl Iterator<Item = usize> + 'a {
    roots
        .iter()
        .filter(move |root| dir.starts_with(root))
        .map(move |root| dir.components().count() - root.components().count())
}

/// Where an open directory is now, as the kernel tracks it (through renames).
#[cfg(target_os = "linux")]
fn dir_path(dir: &std::fs::File) -> io::Result<PathBuf> {
    use std::os::fd::AsRawFd as _;
    std::fs::read_link(format!("/proc/self/fd/{}", dir.as_raw_fd()))
}

/// Elsewhere the check cannot place a directory, so moves up are refused.
#[cfg(not(target_os = "linux"))]
fn dir_path(_dir: &std::fs::File) -> io::Result<PathBuf> {
    Ok(PathBuf::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlink_targets_that_go_down_only() {
        let cases = [
            ("a name", "notes.md", true),
            ("a path down", "docs/notes.md", true),
            ("a leading dot", "./docs", true),
            ("a trailing slash", "docs/", true),
            ("up", "../outside/secret.txt", false),
            ("down then up", "docs/../../secret", false),
            ("down, up, down", "docs/../notes.md", false),
            ("absolute", "/etc/passwd", false),
            ("empty", "", false),
        ];
        for (name, target, expected) in cases {
            assert_eq!(goes_down_only(Path::new(target)), expected, "{name}");
        }
    }

    #[test]
    fn parents() {
        let cases = [
            ("a name", "x", Some(".")),
            ("a path", "a/b/x", Some("a/b")),
            ("dot-dot", "a/..", None),
            ("empty", "", None),
        ];
        for (name, path, expected) in cases {
            assert_eq!(parent(Path::new(path)), expected.map(Path::new), "{name}");
        }
    }

    #[test]
    fn depths_below_nested_roots() {
        let roots = [
            PathBuf::from("/p"),
            PathBuf::from("/p/q"),
            PathBuf::from("/r"),
        ];
        let dir = Path::new("/p/q/s");
        assert_eq!(depths(dir, &roots).collect::<Vec<_>>(), [2, 1]);
        assert_eq!(depths(Path::new("/elsewhere"), &roots).count(), 0);
    }
}
