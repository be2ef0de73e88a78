//! A plan: every file `hookhost init` (or `--remove`) would change, what it holds now and what
//! it will hold, computed before anything is written. `--dry-run` prints [`Plan::diff`];
//! [`Plan::apply`] writes the files, all of them or none.

use std::fs;
use std::path::{Path, PathBuf};

use crate::agents::{Agent, AgentEvent, AgentSpec};
use crate::command;
use crate::diff;
use crate::error::InitError;
use crate::json::Json;
use crate::names::lookup;
use crate::options::{Options, Scope};
use crate::profile::Profile;
use crate::roots::Roots;
use crate::settings;
use crate::toml_block;
use crate::write;

/// What a planned file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRole {
    /// The agent's hook settings.
    Settings,
    /// A hooks.toml.
    HooksToml,
}

/// One file of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// The file.
    pub path: PathBuf,
    /// What it is.
    pub role: FileRole,
    /// Its text now (`None`: it does not exist).
    pub before: Option<String>,
    /// Its text after the plan (`None`: it is deleted, or stays absent).
    pub after: Option<String>,
}

impl FileChange {
    /// Whether applying the plan changes this file.
    pub fn changes(&self) -> bool {
        self.before != self.after
    }
}

/// What `hookhost init` (or `--remove`) will do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// For which agent.
    pub agent: Agent,
    /// In which scope.
    pub scope: Scope,
    /// The files, settings first.
    pub files: Vec<FileChange>,
    /// What the user should know: settings that keep hooks off, other files that also run
    /// hookhost, a profile hook left out for a name already taken, a block kept for another
    /// agent.
    pub notes: Vec<String>,
    /// The agent's trust gate: what to do so that it runs the entries (empty for a removal).
    pub trust: &'static str,
    /// The command line written for each event (the agent's event name first; empty for a
    /// removal).
    pub commands: Vec<(&'static str, String)>,
    /// The project, for shorter paths in the diff.
    project: PathBuf,
}

/// The largest file init reads (settings files are a few kilobytes).
const MAX_BYTES: u64 = 4 << 20;

/// `path`'s text; `None` when it does not exist.
fn read(path: &Path) -> Result<Option<String>, InitError> {
    let error = |source| InitError::Read {
        path: path.to_path_buf(),
        source,
    };
    match fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(error(e)),
        Ok(meta) if meta.len() > MAX_BYTES => {
            return Err(error(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("larger than {MAX_BYTES} bytes: not a settings file"),
            )));
        }
        Ok(_) => {}
    }
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(error(e)),
    }
}

fn settings_path(spec: &AgentSpec, scope: Scope, roots: &Roots) -> PathBuf {
    match scope {
        Scope::Project => roots.project.join(spec.project_file),
        Scope::User => roots.agent_home(spec.agent).join(spec.user_file),
    }
}

/// The events of `options.events` (every one init registers when `None`).
fn select_events(
    spec: &'static AgentSpec,
    options: &Options,
) -> Result<Vec<&'static AgentEvent>, InitError> {
    let Some(wanted) = &options.events else {
        return Ok(spec.events.iter().collect());
    };
    let rows: Vec<(usize, &'static str, &'static [&'static str])> = spec
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| (i, e.name, &[][..]))
        .collect();
    let mut chosen: Vec<&'static AgentEvent> = Vec::new();
    for name in wanted {
        if let Some(left) = spec
            .left_out
            .iter()
            .find(|l| l.name.eq_ignore_ascii_case(name))
        {
            return Err(InitError::LeftOut {
                product: spec.product,
                event: left.name,
                why: left.why,
            });
        }
        let found = spec
            .events
            .iter()
            .position(|e| e.hookhost.eq_ignore_ascii_case(name))
            .map_or_else(|| lookup("event", name, &rows), Ok)?;
        let event = &spec.events[found];
        if !chosen.contains(&event) {
            chosen.push(event);
        }
    }
    // In the table's order, whatever the order asked.
    chosen.sort_by_key(|e| spec.events.iter().position(|x| x == *e));
    Ok(chosen)
}

/// Other files of the agent in this scope that run hookhost too.
fn also_running(spec: &AgentSpec, scope: Scope, roots: &Roots, own: &Path) -> Vec<PathBuf> {
    let (base, list) = match scope {
        Scope::Project => (roots.project.as_path(), spec.also_project),
        Scope::User => (roots.agent_home(spec.agent), spec.also_user),
    };
    let mut paths = Vec::new();
    for relative in list {
        match relative.strip_suffix("/*.json") {
            Some(dir) => {
                let mut found: Vec<PathBuf> = fs::read_dir(base.join(dir))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|entry| entry.path())
                    .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
                    .collect();
                found.sort();
                paths.extend(found);
            }
            None => paths.push(base.join(relative)),
        }
    }
    paths
        .into_iter()
        .filter(|path| path != own)
        .filter(|path| {
            fs::read_to_string(path).is_ok_and(|text| settings::mentions_hookhost(&text))
        })
        .collect()
}

impl Plan {
    /// What `hookhost init` writes for `agent` in `scope`: the agent's settings with
    /// hookhost's entry on every event it serves there, merged into what the file holds, and
    /// `profile`'s block in the hooks.toml of the scope. Reads files, writes nothing.
    pub fn new(
        agent: Agent,
        scope: Scope,
        profile: Profile,
        options: &Options,
        roots: &Roots,
    ) -> Result<Plan, InitError> {
        let spec = agent.spec();
        let events = select_events(spec, options)?;
        let entries: Vec<(&'static AgentEvent, Json)> = events
            .iter()
            .map(|event| (*event, settings::entry(spec, event, options)))
            .collect();
        let path = settings_path(spec, scope, roots);
        let before = read(&path)?;
        let (after, mut notes) = settings::merge(spec, &path, before.as_deref(), &entries)?;
        for other in also_running(spec, scope, roots, &path) {
            notes.push(format!("{} also runs hookhost: {} would run it twice on those events; take hookhost's entries out of it", other.display(), spec.product));
        }
        if agent == Agent::Gemini
            && scope == Scope::Project
            && roots.gemini.parent() == Some(roots.project.as_path())
        {
            notes.push("Gemini CLI reads no project settings in the home directory: use the user's scope there".to_string());
        }
        let toml_path = match scope {
            Scope::Project => roots.project_hooks_toml(),
            Scope::User => roots.user_hooks_toml(),
        };
        let toml_before = read(&toml_path)?;
        let (toml_after, toml_notes) =
            toml_block::add(&toml_path, toml_before.as_deref(), profile)?;
        notes.extend(toml_notes);
        Ok(Plan {
            agent,
            scope,
            files: vec![
                FileChange {
                    path,
                    role: FileRole::Settings,
                    before,
                    after: Some(after),
                },
                FileChange {
                    path: toml_path,
                    role: FileRole::HooksToml,
                    before: toml_before,
                    after: Some(toml_after),
                },
            ],
            notes,
            trust: match scope {
                Scope::Project => spec.trust_project,
                Scope::User => spec.trust_user,
            },
            commands: events
                .iter()
                .map(|event| (event.name, command::command_line(spec, event, options)))
                .collect(),
            project: roots.project.clone(),
        })
    }

    /// What `hookhost init --remove` does: every hookhost entry out of the agent's settings
    /// (a file left with nothing else is deleted), and hookhost's block out of the scope's
    /// hooks.toml unless another agent's settings in the scope still run hookhost.
    pub fn remove(agent: Agent, scope: Scope, roots: &Roots) -> Result<Plan, InitError> {
        let spec = agent.spec();
        let path = settings_path(spec, scope, roots);
        let before = read(&path)?;
        let after = match &before {
            None => None,
            Some(text) => {
                let (stripped, empty) = settings::strip(spec, &path, text)?;
                // A symlinked file is kept, emptied: its target belongs to someone else.
                (!empty || write::is_symlink(&path)).then_some(stripped)
            }
        };
        let mut files = vec![FileChange {
            path,
            role: FileRole::Settings,
            before,
            after,
        }];
        let mut notes: Vec<String> = also_running(spec, scope, roots, &files[0].path)
            .into_iter()
            .map(|other| {
                format!(
                    "{} still runs hookhost: take its entries out by hand",
                    other.display()
                )
            })
            .collect();
        let candidates = match scope {
            Scope::Project => vec![
                roots.project.join(".forgeflare/hooks.toml"),
                roots.project.join("hooks.toml"),
            ],
            Scope::User => vec![roots.user_hooks_toml()],
        };
        let others: Vec<PathBuf> = Agent::ALL
            .into_iter()
            .filter(|other| *other != agent)
            .map(|other| settings_path(other.spec(), scope, roots))
            .filter(|other| {
                fs::read_to_string(other).is_ok_and(|text| settings::mentions_hookhost(&text))
            })
            .collect();
        for toml_path in candidates {
            let Some(text) = read(&toml_path)?.filter(|text| toml_block::has_block(text)) else {
                continue;
            };
            if let Some(other) = others.first() {
                notes.push(format!("kept hookhost's block in {}: {} still runs hookhost (remove it for that agent too, and the block goes)", toml_path.display(), other.display()));
                continue;
            }
            let after = toml_block::remove(&toml_path, &text)?;
            files.push(FileChange {
                path: toml_path,
                role: FileRole::HooksToml,
                before: Some(text),
                after,
            });
        }
        Ok(Plan {
            agent,
            scope,
            files,
            notes,
            trust: "",
            commands: Vec::new(),
            project: roots.project.clone(),
        })
    }

    /// Whether applying the plan changes nothing (`init` run a second time).
    pub fn is_noop(&self) -> bool {
        !self.files.iter().any(FileChange::changes)
    }

    /// `--dry-run`: a unified diff per file that changes (paths relative to the project when
    /// under it).
    pub fn diff(&self) -> String {
        self.files
            .iter()
            .map(|file| {
                let shown = file.path.strip_prefix(&self.project).unwrap_or(&file.path);
                diff::unified(shown, file.before.as_deref(), file.after.as_deref())
            })
            .collect()
    }

    /// Writes every file that changes, each atomically. A file that changed since the plan
    /// was made, or a write that fails, stops it: the files already written are put back as
    /// they were, and the error names the file.
    pub fn apply(&self) -> Result<(), InitError> {
        let mut done: Vec<&FileChange> = Vec::new();
        for file in self.files.iter().filter(|file| file.changes()) {
            let result = match read(&file.path) {
                Ok(now) if now != file.before => Err(InitError::Changed {
                    path: file.path.clone(),
                }),
                Err(error) => Err(error),
                Ok(_) => match &file.after {
                    Some(text) => write::write_atomic(&file.path, text),
                    None => write::delete(&file.path),
                }
                .map_err(|source| InitError::Write {
                    path: file.path.clone(),
                    source,
                }),
            };
            if let Err(error) = result {
                for written in done.iter().rev() {
                    let _ = match &written.before {
                        Some(text) => write::write_atomic(&written.path, text),
                        None => write::delete(&written.path),
                    };
                }
                return Err(error);
            }
            done.push(file);
        }
        Ok(())
    }
}
