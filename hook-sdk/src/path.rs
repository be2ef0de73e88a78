//! Lexical path normalisation against the workspace root: the first thing every path policy
//! needs, and the thing shell-script policies get wrong (`..`, `//`, `./`, relative paths).
//!
//! Lexical means the filesystem is not consulted: symlinks are not resolved. A policy that
//! must see through symlinks needs a `read` grant and [`resolve_symlinks`].

use std::fmt;

/// A path inside the workspace root, normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspacePath {
    absolute: String,
    root_len: usize,
}

impl WorkspacePath {
    /// The absolute path, for example `/workspace/src/main.rs`.
    pub fn absolute(&self) -> &str {
        &self.absolute
    }

    /// The path relative to the root, for example `src/main.rs` (empty for the root itself).
    /// This is what allowlist globs match.
    pub fn relative(&self) -> &str {
        self.absolute[self.root_len..].trim_start_matches('/')
    }
}

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// The root is not an absolute path.
    RootNotAbsolute {
        /// The root given.
        root: String,
    },
    /// The path resolves outside the root.
    OutsideRoot {
        /// The path as given.
        path: String,
        /// What it resolves to.
        resolved: String,
        /// The root.
        root: String,
    },
    /// A symlink chain is too long or loops.
    SymlinkLoop {
        /// Where the loop was detected.
        path: String,
    },
    /// A symlink whose target cannot be read (in a sandbox: an absolute target, which cannot
    /// be followed safely). Treated as leading outside.
    UnreadableSymlink {
        /// The symlink.
        link: String,
    },
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::RootNotAbsolute { root } => {
                write!(f, "the workspace root {root:?} is not an absolute path")
            }
            PathError::OutsideRoot {
                path,
                resolved,
                root,
            } if path == resolved => {
                write!(f, "{path} is outside the workspace root {root}")
            }
            PathError::OutsideRoot {
                path,
                resolved,
                root,
            } => {
                write!(
                    f,
                    "{path} resolves to {resolved}, outside the workspace root {root}"
                )
            }
            PathError::SymlinkLoop { path } => write!(f, "too many symlinks resolving {path}"),
            PathError::UnreadableSymlink { link } => {
                write!(
                    f,
                    "{link} is a symlink whose target cannot be read; refusing to follow it"
                )
            }
        }
    }
}

impl std::error::Error for PathError {}

/// Joins `path` to `root` when it is relative, resolves `.`, `..` and repeated slashes, and
/// refuses the result unless it is `root` or inside it.
///
/// ```
/// use hook_sdk::path::normalize;
/// let p = normalize("/ws", "src/../docs//./a.md").unwrap();
/// assert_eq!((p.absolute(), p.relative()), ("/ws/docs/a.md", "docs/a.md"));
/// assert!(normalize("/ws", "../../etc/passwd").is_err());
/// assert!(normalize("/ws", "/ws-other/file").is_err());
/// ```
pub fn normalize(root: &str, path: &str) -> Result<WorkspacePath, PathError> {
    if !root.starts_with('/') {
        return Err(PathError::RootNotAbsolute {
            root: root.to_string(),
        });
    }
    let root_clean = lexical(root);
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{root_clean}/{path}")
    };
    let resolved = lexical(&joined);
    let inside = resolved == root_clean
        || root_clean == "/"
        || resolved.starts_with(&format!("{root_clean}/"));
    if !inside {
        return Err(PathError::OutsideRoot {
            path: path.to_string(),
            resolved,
            root: root_clean,
        });
    }
    let root_len = if root_clean == "/" {
        0
    } else {
        root_clean.len()
    };
    Ok(WorkspacePath {
        absolute: resolved,
        root_len,
    })
}

/// `.`, `..` and empty segments resolved; always absolute; `..` at `/` stays at `/`.
fn lexical(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Normalises `path` like [`normalize`], then follows every symlink along it (the hook needs
/// a `read` grant covering the workspace), checking after each step that the target is still
/// inside the root. A path that does not exist yet is fine: its existing prefix is resolved.
pub fn resolve_symlinks(root: &str, path: &str) -> Result<WorkspacePath, PathError> {
    let mut current = normalize(root, path)?;
    let original = path.to_string();
    for _ in 0..40 {
        let Some((link, target)) = first_symlink(&current)? else {
            return Ok(current);
        };
        let parent =
            link.rsplit_once('/').map_or(
                "/",
                |(parent, _)| if parent.is_empty() { "/" } else { parent },
            );
        let rest = &current.absolute()[link.len()..];
        let replaced = if target.starts_with('/') {
            format!("{target}{rest}")
        } else {
            format!("{parent}/{target}{rest}")
        };
        current = normalize(root, &replaced).map_err(|error| match error {
            PathError::OutsideRoot { resolved, root, .. } => PathError::OutsideRoot {
                path: original.clone(),
                resolved,
                root,
            },
            other => other,
        })?;
    }
    Err(PathError::SymlinkLoop { path: original })
}

/// The first prefix of `path` below the root that is a symlink, and where it points. (The
/// root's own ancestors are outside what a hook may see, and outside what it guards.)
fn first_symlink(path: &WorkspacePath) -> Result<Option<(String, String)>, PathError> {
    let mut prefix = path.absolute[..path.root_len].to_string();
    for segment in path.relative().split('/').filter(|s| !s.is_empty()) {
        prefix.push('/');
        prefix.push_str(segment);
        match std::fs::symlink_metadata(&prefix) {
            Ok(meta) if meta.file_type().is_symlink() => {
                // A link that exists but cannot be read must not be taken as "no link".
                let target =
                    std::fs::read_link(&prefix).map_err(|_| PathError::UnreadableSymlink {
                        link: prefix.clone(),
                    })?;
                return Ok(Some((prefix, target.to_string_lossy().into_owned())));
            }
            Ok(_) => {}
            // Nothing further down exists yet: nothing more to resolve.
            Err(_) => return Ok(None),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_lexically_and_keeps_inside_the_root() {
        let cases: &[(&str, &str, Result<&str, ()>)] = &[
            ("relative", "src/main.rs", Ok("src/main.rs")),
            ("dot segments", "./src/./main.rs", Ok("src/main.rs")),
            ("double slash", "src//main.rs", Ok("src/main.rs")),
            ("dot-dot inside", "src/../Cargo.toml", Ok("Cargo.toml")),
            ("absolute inside", "/ws/a/b", Ok("a/b")),
            ("the root itself", ".", Ok("")),
            ("absolute root with slash", "/ws/", Ok("")),
            ("escape", "../etc/passwd", Err(())),
            ("deep escape", "a/../../etc", Err(())),
            ("absolute outside", "/etc/passwd", Err(())),
            ("sibling with common prefix", "/ws-evil/x", Err(())),
            ("escape and return", "../ws/a", Ok("a")),
            ("dot-dot above slash", "/../../ws/a", Ok("a")),
            ("trailing dot-dot", "a/b/..", Ok("a")),
        ];
        for (name, path, expected) in cases {
            let got = normalize("/ws", path)
                .map(|p| p.relative().to_string())
                .map_err(|_| ());
            assert_eq!(got, expected.map(str::to_string), "{name}");
        }
    }

    #[test]
    fn errors_explain_themselves() {
        assert_eq!(
            normalize("/ws", "../../etc/passwd")
                .unwrap_err()
                .to_string(),
            "../../etc/passwd resolves to /etc/passwd, outside the workspace root /ws"
        );
        assert_eq!(
            normalize("ws", "a").unwrap_err().to_string(),
            "the workspace root \"ws\" is not an absolute path"
        );
        assert_eq!(normalize("/ws/", "a").unwrap().absolute(), "/ws/a");
    }

    #[test]
    fn follows_symlinks_and_refuses_those_leading_out() {
        let dir = std::env::temp_dir().join(format!("hook-sdk-path-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("ws/real")).unwrap();
        std::fs::create_dir_all(dir.join("outside")).unwrap();
        std::os::unix::fs::symlink(dir.join("outside"), dir.join("ws/escape")).unwrap();
        std::os::unix::fs::symlink("real", dir.join("ws/inside")).unwrap();
        std::os::unix::fs::symlink("loop", dir.join("ws/loop")).unwrap();
        let root = dir.join("ws").to_string_lossy().into_owned();

        assert_eq!(
            resolve_symlinks(&root, "inside/new.txt")
                .unwrap()
                .relative(),
            "real/new.txt"
        );
        assert!(matches!(
            resolve_symlinks(&root, "escape/x.txt"),
            Err(PathError::OutsideRoot { .. })
        ));
        assert!(matches!(
            resolve_symlinks(&root, "loop/x"),
            Err(PathError::SymlinkLoop { .. })
        ));
        assert_eq!(
            resolve_symlinks(&root, "not/there/yet").unwrap().relative(),
            "not/there/yet"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
