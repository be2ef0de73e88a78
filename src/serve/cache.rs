//! The daemon's loaded runners, one per caller context, and the check that makes them safe to
//! reuse.
//!
//! **Never a stale configuration.** Before a cached runner answers a call, every file it was
//! built from is stat'ed again: the managed file, the user's, the project's and its local
//! override (and whether each of them, or a project file that did not exist, exists now), the
//! hooks.lock beside each, the approvals file, every file an approval covers (the scripts and
//! programs a project's hooks run, present or approved as absent), and each wasm hook's
//! component. Inode, size, mtime and ctime must all be what they were when the runner was
//! loaded; if anything changed, or cannot be stat'ed, the runner is built again from the files
//! as they are now, exactly as `agent-hook` would build it, and a configuration that no longer
//! loads fails closed as it does there. This per-call check costs a few `stat`s, and it is the
//! guarantee; no file watcher has to be trusted to have fired in time.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

use crate::agent::{AgentCall, AgentFormat, Caller};
use crate::config::{HookSource, Layer, ManagedFile};
use crate::load::Layers;
use crate::runner::HookRunner;

/// What one file looked like: absent, or its identity and version.
#[derive(Debug, Clone, PartialEq, Eq)]
enum FileState {
    Absent,
    Present {
        dev: u64,
        ino: u64,
        size: u64,
        mtime: (i64, i64),
        ctime: (i64, i64),
    },
}

/// Every file a runner was built from, as it was. `None` from [`Fingerprint::take`]: something
/// could not be checked, so the runner must not be cached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Fingerprint {
    layers: Layers,
    managed: Option<PathBuf>,
    files: Vec<(PathBuf, FileState)>,
}

impl Fingerprint {
    /// The files of `layers` (as discovered from `cwd` now) and of the components `runner`
    /// (when given) loads.
    pub(super) fn take(cwd: &Path, runner: Option<&HookRunner>) -> Option<Fingerprint> {
        let layers = Layers::discover(cwd);
        let managed = ManagedFile::locate().map(|file| file.path);
        let mut paths: Vec<PathBuf> = Vec::new();
        let configs = [
            (Layer::Managed, managed.clone()),
            (
                Layer::User,
                layers.user.clone().or_else(Layers::user_config),
            ),
            (Layer::Project, layers.project.clone()),
            (Layer::Local, layers.local.clone()),
        ];
        for (_, config) in configs.iter() {
            if let Some(config) = config {
                paths.push(config.clone());
                paths.push(config.with_file_name("hooks.lock"));
            }
        }
        // A project file that does not exist yet, and the local override beside one that does.
        paths.extend(
            [".forgeflare/hooks.toml", "hooks.toml"]
                .iter()
                .map(|name| cwd.join(name)),
        );
        if let Some(project) = &layers.project {
            paths.push(project.with_file_name("hooks.local.toml"));
        }
        paths.extend(layers.approvals.clone());
        // What the user's approvals cover: an approved script edited, or one approved as absent
        // created, must be checked against the approval again, as agent-hook would.
        paths.extend(
            runner
                .into_iter()
                .flat_map(|r| r.watched_files().iter().cloned()),
        );
        for spec in runner
            .into_iter()
            .flat_map(|runner| runner.configured_hooks())
        {
            let HookSource::Wasm(wasm) = &spec.source else {
                continue;
            };
            let base = configs
                .iter()
                .find(|(layer, _)| *layer == spec.layer)
                .and_then(|(_, path)| path.as_deref())
                .and_then(Path::parent);
            if let Some(base) = base {
                paths.push(base.join(&wasm.path));
            }
        }
        let files = paths
            .into_iter()
            .map(|path| Some((state(&path)?, path)))
            .map(|found| found.map(|(state, path)| (path, state)))
            .collect::<Option<Vec<_>>>()?;
        Some(Fingerprint {
            layers,
            managed,
            files,
        })
    }
}

fn state(path: &Path) -> Option<FileState> {
    match std::fs::metadata(path) {
        Ok(meta) => Some(FileState::Present {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Some(FileState::Absent),
        Err(_) => None,
    }
}

/// Which runner a call may use: its cwd, its agent (the project-directory variables differ) and
/// the caller's whole environment (command hooks start from it).
pub(super) fn key(format: AgentFormat, cwd: &Path, caller: &Caller) -> [u8; 32] {
    let mut hasher = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_be_bytes());
        hasher.update(bytes);
    };
    use std::os::unix::ffi::OsStrExt as _;
    field(format.as_str().as_bytes());
    field(cwd.as_os_str().as_bytes());
    for (name, value) in caller.env.iter().flat_map(|env| env.iter()) {
        field(name.as_bytes());
        field(value.as_bytes());
    }
    hasher.finalize().into()
}

/// The most runners kept at once; a new one beyond it drops the least recently used. The key
/// is the caller's whole environment, so an agent whose environment changes on every call would
/// otherwise fill the memory until eviction.
const MAX_RUNNERS: usize = 32;

struct Entry {
    runner: HookRunner,
    fingerprint: Fingerprint,
    last_used: Instant,
}

/// The loaded runners, by [`key`].
#[derive(Default)]
pub(super) struct RunnerCache {
    entries: Mutex<HashMap<[u8; 32], Entry>>,
}

impl std::fmt::Debug for RunnerCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunnerCache")
            .field("runners", &self.len())
            .finish()
    }
}

impl RunnerCache {
    /// The runner for `call`: the cached one when nothing it was built from changed, else a new
    /// one (cached when it loads and its files could all be checked). A configuration that does
    /// not load is an error, as in `agent-hook`; it is never cached.
    pub(super) fn runner(
        &self,
        key: [u8; 32],
        call: &AgentCall,
    ) -> Result<HookRunner, crate::ConfigError> {
        if let Some(runner) = self.fresh(key, &call.cwd) {
            return Ok(runner);
        }
        // Taken before loading: a file changed while the runner loads is seen next call.
        let before = Fingerprint::take(&call.cwd, None);
        let runner = call.load()?;
        let after = Fingerprint::take(&call.cwd, Some(&runner));
        if let (Some(before), Some(after)) = (before, after) {
            let unchanged = before.layers == after.layers
                && before.managed == after.managed
                && after.files.starts_with(&before.files);
            if unchanged {
                let mut entries = self.lock();
                if entries.len() >= MAX_RUNNERS
                    && let Some(oldest) = entries
                        .iter()
                        .min_by_key(|(_, entry)| entry.last_used)
                        .map(|(key, _)| *key)
                {
                    entries.remove(&oldest);
                }
                entries.insert(
                    key,
                    Entry {
                        runner: runner.clone(),
                        fingerprint: after,
                        last_used: Instant::now(),
                    },
                );
            }
        }
        Ok(runner)
    }

    /// The cached runner of `key`, when its files are as they were (a few `stat`s: cheap
    /// enough for an async worker, so a call whose runner is cached needs no thread hop).
    pub(super) fn fresh(&self, key: [u8; 32], cwd: &Path) -> Option<HookRunner> {
        let (runner, fingerprint) = {
            let entries = self.lock();
            let entry = entries.get(&key)?;
            (entry.runner.clone(), entry.fingerprint.clone())
        };
        if Fingerprint::take(cwd, Some(&runner)).as_ref() != Some(&fingerprint) {
            self.lock().remove(&key);
            return None;
        }
        if let Some(entry) = self.lock().get_mut(&key) {
            entry.last_used = Instant::now();
        }
        Some(runner)
    }

    /// Drops the runners not used for `idle`.
    pub(super) fn evict(&self, idle: Duration) {
        self.lock()
            .retain(|_, entry| entry.last_used.elapsed() < idle);
    }

    /// How many runners are loaded.
    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Entry>> {
        // A panic while the map was held leaves it consistent (every change is one call).
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_changes_with_every_file_a_runner_is_built_from() {
        let project = tempfile::tempdir().unwrap();
        let cwd = project.path();
        let take = || Fingerprint::take(cwd, None).unwrap();
        let mut seen = vec![take()];
        assert_eq!(take(), seen[0], "nothing changed");
        #[rustfmt::skip]
        let steps: [(&str, &str); 4] = [
            ("hooks.toml", "# created\n"),
            ("hooks.toml", "# edited, longer\n"),
            ("hooks.local.toml", "# the local override appears\n"),
            ("hooks.lock", "# locked\n"),
        ];
        for (file, text) in steps {
            std::fs::write(cwd.join(file), text).unwrap();
            let now = take();
            assert!(!seen.contains(&now), "{file}: {text}");
            seen.push(now);
        }
        std::fs::create_dir(cwd.join(".forgeflare")).unwrap();
        std::fs::write(
            cwd.join(".forgeflare/hooks.toml"),
            "# wins over hooks.toml\n",
        )
        .unwrap();
        assert!(!seen.contains(&take()), "a .forgeflare/hooks.toml appears");
    }
}
