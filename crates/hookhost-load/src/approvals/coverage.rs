//! What an approval covers besides the hooks file: the project's files its hooks run, each
//! with its SHA-256 as it is now. For a command hook, the files its command names
//! ([`super::trace`]); for a wasm hook, its component file (and hooks.lock, which pins an
//! `oci://` reference). `hookhost allow` records them; a later load compares.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::digest;
use super::trace::{Place, Traced, normalize, trace};
use crate::config::{Config, HookSource};

pub use super::trace::NotRecorded;

/// What the hooks of one configuration file run from the project.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// The project's directory: the files under it are recorded.
    pub root: PathBuf,
    /// One entry per hook, in declaration order.
    pub hooks: Vec<HookCoverage>,
}

/// What one hook runs from the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCoverage {
    /// The hook's name.
    pub name: String,
    /// Its events and phase, as `hookhost check` shows them.
    pub label: String,
    /// The files recorded, each with its digest (`None`: absent now; a file that appears
    /// there needs approval).
    pub files: Vec<(PathBuf, Option<String>)>,
    /// Paths it names that are not recorded, and why.
    pub not_recorded: Vec<(PathBuf, NotRecorded)>,
    /// What it runs that cannot be traced to files, as sentences.
    pub untraceable: Vec<String>,
}

impl Coverage {
    /// What the hooks of `config` run, for hooks run from `cwd` (the agent's directory, where
    /// command hooks start and what the project-directory variables hold). Called by `hookhost
    /// allow` to record, and when the layers load under `policy = "approve"` to compare.
    pub fn of(config: &Config, cwd: &Path) -> Coverage {
        let cwd = absolute(cwd);
        let root = Coverage::project_dir(&config.path);
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let base_dir = absolute(config.base_dir());
        let hooks = config
            .hooks
            .iter()
            .map(|hook| {
                let traced = match &hook.source {
                    HookSource::Command(command) => {
                        let start = command
                            .cwd
                            .as_ref()
                            .map_or_else(|| cwd.clone(), |dir| cwd.join(dir));
                        let place = Place {
                            root: &root,
                            cwd: &start,
                            project_dir: &cwd,
                            home: home.as_deref(),
                        };
                        trace(&command.command, &place)
                    }
                    HookSource::Wasm(wasm) => component(&wasm.path, &base_dir, &root),
                };
                HookCoverage {
                    name: hook.name.clone(),
                    label: hook.label(),
                    files: traced
                        .files
                        .into_iter()
                        .map(|path| {
                            let sha256 = digest(&path);
                            (path, sha256)
                        })
                        .collect(),
                    not_recorded: traced.not_recorded,
                    untraceable: traced.untraceable,
                }
            })
            .collect();
        Coverage { root, hooks }
    }

    /// The project's directory for a hooks file: the one that holds it, or that holds its
    /// `.forgeflare` directory (symlinks resolved where it exists, so paths compare). The files
    /// under it are recorded; it is where an agent finds the file, so where its hooks run.
    pub fn project_dir(file: &Path) -> PathBuf {
        let file = absolute(file);
        let dir = file.parent().unwrap_or(Path::new("/"));
        match dir.file_name() {
            Some(name) if name == ".forgeflare" => dir.parent().unwrap_or(dir).to_path_buf(),
            _ => dir.to_path_buf(),
        }
    }

    /// Every file recorded, by absolute path, with its digest.
    pub fn files(&self) -> BTreeMap<String, Option<String>> {
        self.hooks
            .iter()
            .flat_map(|hook| &hook.files)
            .map(|(path, sha256)| (path.to_string_lossy().into_owned(), sha256.clone()))
            .collect()
    }
}

/// A wasm hook's component file, relative to the configuration's directory; for an `oci://`
/// reference, the hooks.lock that pins it.
fn component(path: &Path, base_dir: &Path, root: &Path) -> Traced {
    let mut traced = Traced::default();
    // `policy = "NAME"`: built into hookhost and checked against its catalogue; no file.
    if path
        .to_str()
        .is_some_and(|path| path.starts_with(crate::source::POLICY_SCHEME))
    {
        return traced;
    }
    let file = match locked_by(path) {
        Some(lock) => base_dir.join(lock),
        None => normalize(&base_dir.join(path)),
    };
    if file.starts_with(root) {
        traced.files.push(file);
    } else {
        traced.not_recorded.push((file, NotRecorded::Outside));
    }
    traced
}

/// The lock file that pins `path`, when it is a registry reference.
#[cfg(feature = "wasm")]
fn locked_by(path: &Path) -> Option<&'static str> {
    crate::oci::is_oci(&path.to_string_lossy()).then_some(crate::oci::LOCK_FILE)
}

/// (Without the `wasm` feature no component loads, from a registry or not.)
#[cfg(not(feature = "wasm"))]
fn locked_by(_: &Path) -> Option<&'static str> {
    None
}

/// `path` from the root, symlinks resolved when it exists.
fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}
