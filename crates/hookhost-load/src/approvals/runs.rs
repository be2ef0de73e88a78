//! Whether what a command hook runs is there: the programs and scripts its command names (read
//! as [`super::trace`] reads them, with the project-directory variables set to the agent's
//! directory, as every agent and `hookhost` set them), looked for on disk and on `PATH`.
//!
//! A hook whose script is missing exits 127 at every call; a guard imported from an agent that
//! goes on when a hook fails (`on_failure = "allow"`) then allows everything, in silence.
//! `hookhost check` reports it instead.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use super::trace::{Place, Run, Runs, trace};
use crate::config::{Config, HookSource};

/// Why a hook's command cannot start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrunnable {
    /// The hook's position in its file (`Config::hooks`).
    pub hook: usize,
    /// The program it starts with (or that program's script) is missing or cannot be
    /// executed: an error, the hook fails at every call. Otherwise a warning: a program missing
    /// from this machine's `PATH` (another machine may have it), or a file the command runs
    /// after its first program (perhaps behind a condition).
    pub missing_file: bool,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// The enabled command hooks of `config` whose programs or scripts cannot be found, for an
/// agent working in `cwd` (where commands start, and what `$CLAUDE_PROJECT_DIR` and the other
/// project-directory variables hold).
pub fn unrunnable(config: &Config, cwd: &Path) -> Vec<Unrunnable> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let root = super::Coverage::project_dir(&config.path);
    let mut found = Vec::new();
    for (position, hook) in config.hooks.iter().enumerate() {
        let HookSource::Command(command) = &hook.source else {
            continue;
        };
        if !hook.enabled {
            continue;
        }
        let start = command
            .cwd
            .as_ref()
            .map_or_else(|| cwd.to_path_buf(), |dir| cwd.join(dir));
        let place = Place {
            root: &root,
            cwd: &start,
            project_dir: cwd,
            home: home.as_deref(),
        };
        let search = command
            .env
            .get("PATH")
            .map(std::ffi::OsString::from)
            .or_else(|| std::env::var_os("PATH"))
            .unwrap_or_default();
        let hint = if crate::dialect::ALL_PROJECT_DIR_VARIABLES
            .iter()
            .any(|name| command.command.contains(name))
        {
            format!(
                " (the project-directory variables hold the agent's directory, {})",
                cwd.display()
            )
        } else {
            String::new()
        };
        for Run {
            target: runs,
            first,
        } in trace(&command.command, &place).runs
        {
            let problem = match &runs {
                Runs::Program(path) => file_problem(path, true),
                Runs::Script(path) => file_problem(path, false),
                Runs::Named(name) => (!on_path(name, &search)).then(|| {
                    format!(
                        "its command runs `{}`, which is not on PATH: install it, or name it \
                         by its path",
                        crate::text::name(name)
                    )
                }),
            };
            if let Some(mut message) = problem {
                if message.contains("does not exist") {
                    message.push_str(&hint);
                }
                found.push(Unrunnable {
                    hook: position,
                    missing_file: first && !matches!(runs, Runs::Named(_)),
                    message,
                });
            }
        }
    }
    found
}

/// What is wrong with a file a command runs (`executed`: as the program itself), if anything.
fn file_problem(path: &Path, executed: bool) -> Option<String> {
    let what = if executed { "" } else { "the script " };
    let shown = crate::text::name(&path.to_string_lossy()).into_owned();
    match std::fs::metadata(path) {
        Err(_) => Some(format!(
            "its command runs {what}{shown}, which does not exist: the hook would fail at every \
             call (exit 127); create it, or correct the command"
        )),
        Ok(meta) if meta.is_dir() => Some(format!(
            "its command runs {what}{shown}, which is a directory"
        )),
        Ok(meta) if executed && meta.permissions().mode() & 0o111 == 0 => Some(format!(
            "its command runs {shown}, which is not executable (the hook would fail at every \
             call, exit 126): chmod +x {shown}"
        )),
        Ok(_) => None,
    }
}

/// Whether an executable file `name` is in a directory of `search` (a `PATH` value).
fn on_path(name: &str, search: &std::ffi::OsStr) -> bool {
    std::env::split_paths(search).any(|dir| {
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        std::fs::metadata(dir.join(name))
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    })
}
