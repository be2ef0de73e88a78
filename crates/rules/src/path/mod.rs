//! `Read(...)` and `Edit(...)` rules against the paths a file tool touches, as Claude Code
//! 2.1.332 matches them (its `Fc`, `xt`, `wt` and `ic` functions; the permissions page, "Read
//! and Edit"):
//!
//! | rule | anchored at | example |
//! |---|---|---|
//! | `//path` | the filesystem root | `Read(//etc/**)` |
//! | `~/path` | the home directory | `Read(~/.ssh/**)` |
//! | `/path` | the directory of the file the rule is in ([`crate::Origin::dir`]) | `Edit(/src/**)` |
//! | `path`, `./path` | the agent's working directory | `Read(.env)` |
//!
//! Below its anchor the rule is a gitignore pattern (`gitignore`). A single-segment directory
//! rule such as `src/**` is anchored for an allow rule (`<cwd>/src` only) and matches a `src`
//! at any depth for a deny or ask rule. A path outside the anchor never matches.
//!
//! Paths are resolved lexically: `~/` expanded, relative paths joined to the working directory,
//! `.` and `..` folded. Symbolic links are not followed (Claude Code checks both a link and its
//! target); the crate docs say what that leaves open.

mod gitignore;

use std::path::{Component, Path, PathBuf};

use gitignore::Gitignore;

/// Where a path rule is anchored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    Root,
    Home,
    RuleDir,
    Cwd,
}

/// A path rule's specifier, compiled for both kinds of rule.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    anchor: Anchor,
    /// As a deny or ask rule.
    strict: Gitignore,
    /// As an allow rule.
    allow: Gitignore,
}

/// The directories a path rule is resolved against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dirs<'a> {
    pub(crate) cwd: &'a Path,
    pub(crate) home: Option<&'a Path>,
    pub(crate) rule_dir: &'a Path,
}

impl Pattern {
    /// Reads a specifier; the error says why it can never match.
    pub(crate) fn new(spec: &str) -> Result<Pattern, String> {
        let (anchor, relative) = if let Some(rest) = spec.strip_prefix("//") {
            (Anchor::Root, format!("/{rest}"))
        } else if let Some(rest) = spec.strip_prefix("~/") {
            (Anchor::Home, format!("/{rest}"))
        } else if spec.starts_with('/') {
            (Anchor::RuleDir, spec.to_string())
        } else {
            (
                Anchor::Cwd,
                spec.strip_prefix("./").unwrap_or(spec).to_string(),
            )
        };
        let relative = collapse_slashes(&relative);
        if relative.trim_matches('/').is_empty() && !relative.ends_with("**") {
            return Err("the pattern names no file below its anchor (`//**` is every file)".into());
        }
        if relative.trim_start_matches('/').starts_with('!') {
            return Err("negated patterns (`!path`) are not supported in rules: write the exception as a narrower rule".into());
        }
        Ok(Pattern {
            anchor,
            strict: Gitignore::new(&widen(&relative, false))?,
            allow: Gitignore::new(&widen(&relative, true))?,
        })
    }

    /// Whether the absolute, normalised `path` matches; `directory` when it names one;
    /// `allow` for an allow rule.
    pub(crate) fn matches(
        &self,
        path: &Path,
        directory: bool,
        allow: bool,
        dirs: Dirs<'_>,
    ) -> bool {
        let root = match self.anchor {
            Anchor::Root => PathBuf::from("/"),
            Anchor::Home => match dirs.home {
                Some(home) => normalize(home),
                None => return false,
            },
            Anchor::RuleDir => normalize(dirs.rule_dir),
            Anchor::Cwd => normalize(dirs.cwd),
        };
        let Ok(below) = path.strip_prefix(&root) else {
            return false;
        };
        let relative: Vec<String> = below
            .components()
            .map(|part| part.as_os_str().to_string_lossy().into_owned())
            .collect();
        if relative.is_empty() {
            return false;
        }
        let pattern = if allow { &self.allow } else { &self.strict };
        pattern.matches(&relative.join("/"), directory)
    }
}

fn collapse_slashes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    out
}

/// Claude Code's `wt`: a trailing `/**` goes (the directory stands for what is in it); a
/// single-segment directory is anchored for an allow rule.
fn widen(pattern: &str, allow: bool) -> String {
    let Some(directory) = pattern.strip_suffix("/**") else {
        return pattern.to_string();
    };
    if !directory.contains(|c| c != '/') {
        return "/**".to_string();
    }
    if directory.contains('/') || !allow {
        directory.to_string()
    } else {
        format!("/{directory}")
    }
}

/// `path` as an absolute, lexically normalised path: `~` and `~/` expanded with `home`,
/// relative to `cwd`, `.` and `..` folded (never above the root). `None` for `~` without a
/// home.
pub(crate) fn resolve(path: &str, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let joined = if path == "~" {
        home?.to_path_buf()
    } else if let Some(rest) = path.strip_prefix("~/") {
        home?.join(rest)
    } else {
        cwd.join(path)
    };
    Some(normalize(&joined))
}

/// `.` and `..` folded without asking the filesystem.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for part in path.components() {
        match part {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{Dirs, Pattern, resolve};

    #[test]
    fn anchors_and_depths_follow_the_rule_type() {
        let dirs = Dirs {
            cwd: Path::new("/p"),
            home: Some(Path::new("/home/u")),
            rule_dir: Path::new("/p"),
        };
        // (rule, path, allow, matches)
        for (rule, path, allow, expected) in [
            ("src/**", "/p/src/app.ts", true, true),
            ("src/**", "/p/vendor/pkg/src/lib.js", true, false),
            ("src/**", "/p/vendor/pkg/src/lib.js", false, true),
            ("/src/**", "/p/vendor/pkg/src/lib.js", false, false),
            ("**/src/**", "/p/vendor/pkg/src/lib.js", true, true),
            (".env", "/p/a/.env", true, true),
            (".env", "/elsewhere/.env", false, false),
            ("//**/.env", "/elsewhere/.env", false, true),
            ("~/.ssh/**", "/home/u/.ssh/id_rsa", false, true),
            ("//etc/**", "/etc/passwd", false, true),
            ("//etc/**", "/p/etc/passwd", false, false),
            ("./.env", "/p/.env", false, true),
            ("*.pdf", "/p/docs/A.PDF", false, true),
        ] {
            let pattern = Pattern::new(rule).unwrap();
            let resolved = resolve(path, dirs.cwd, dirs.home).unwrap();
            assert_eq!(
                pattern.matches(&resolved, false, allow, dirs),
                expected,
                "{rule} ~ {path} (allow: {allow})"
            );
        }
    }

    #[test]
    fn paths_are_resolved_lexically() {
        let home = Some(Path::new("/home/u"));
        for (path, expected) in [
            ("a/../b", "/p/b"),
            ("./x/./y", "/p/x/y"),
            ("../../../etc/passwd", "/etc/passwd"),
            ("/etc/../root/.ssh", "/root/.ssh"),
            ("~/.ssh/id_rsa", "/home/u/.ssh/id_rsa"),
            ("~", "/home/u"),
        ] {
            assert_eq!(
                resolve(path, Path::new("/p"), home).unwrap(),
                Path::new(expected),
                "{path}"
            );
        }
        assert_eq!(resolve("~/x", Path::new("/p"), None), None);
    }
}
