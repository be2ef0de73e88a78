//! A tool call read once for every rule: its family, its command read into simple commands,
//! its paths resolved, its hosts.

use std::path::{Path, PathBuf};

use crate::parse::LEGACY;
use crate::shell::{self, Command, Script};
use crate::tools::{self, Family};
use crate::{Call, domain, path};

/// The call, read.
pub(crate) struct Subject<'a> {
    pub(crate) call: &'a Call<'a>,
    pub(crate) family: Family,
    /// The call's tool name, legacy names resolved (`Task` is `Agent`).
    pub(crate) name: &'a str,
    /// The Claude Code tool its family stands for, for tool-name patterns (`Web*` holds for
    /// Gemini CLI's `web_fetch`).
    pub(crate) claude: Option<&'static str>,
    pub(crate) script: Option<Script>,
    /// The paths it touches, absolute and normalised.
    pub(crate) paths: Vec<PathBuf>,
    /// A path could not be resolved (`~` without a home): nothing is approved by path.
    pub(crate) unresolved: bool,
    /// The paths are directories (a search's root).
    pub(crate) directory: bool,
    /// Per URL: its host read exactly (for allow rules), and read leniently (for deny and ask).
    pub(crate) hosts: Vec<(Option<String>, Option<String>)>,
}

/// One part of a call an allow rule must cover: every part must be covered for the call to be
/// approved.
pub(crate) enum Item<'a> {
    Command(&'a Command),
    Path(&'a Path),
    Host(&'a str),
}

impl<'a> Subject<'a> {
    pub(crate) fn new(call: &'a Call<'a>) -> Subject<'a> {
        let family = tools::family(call.tool, call.kind, call.input);
        let name = LEGACY
            .iter()
            .find(|(old, _)| *old == call.tool)
            .map_or(call.tool, |(_, current)| current);
        let claude = match family {
            Family::Bash => Some("Bash"),
            Family::PowerShell => Some("PowerShell"),
            Family::Read => Some("Read"),
            Family::Edit => Some("Edit"),
            Family::Write => Some("Write"),
            Family::WebFetch => Some("WebFetch"),
            Family::WebSearch => Some("WebSearch"),
            Family::Search | Family::Mcp | Family::Other => None,
        };
        let mut subject = Subject {
            call,
            family,
            name,
            claude,
            script: None,
            paths: Vec::new(),
            unresolved: false,
            directory: false,
            hosts: Vec::new(),
        };
        match family {
            Family::Bash | Family::PowerShell => {
                subject.script =
                    tools::command(call.tool, call.input).map(|command| shell::read(&command))
            }
            Family::Read | Family::Search | Family::Edit | Family::Write => {
                let mut given = tools::paths(call.tool, call.input);
                subject.directory = family == Family::Search;
                if given.is_empty() && subject.directory {
                    given.push(call.cwd.display().to_string());
                }
                for path in given {
                    match path::resolve(&path, call.cwd, call.home) {
                        Some(resolved) => subject.paths.push(resolved),
                        None => subject.unresolved = true,
                    }
                }
            }
            Family::WebFetch => {
                subject.hosts = tools::urls(call.tool, call.input)
                    .iter()
                    .map(|url| (domain::host_of(url, true), domain::host_of(url, false)))
                    .collect();
            }
            Family::WebSearch | Family::Mcp | Family::Other => {}
        }
        subject
    }

    /// The parts an allow rule must cover one by one, or `None` when the call cannot be
    /// approved part by part (a command that is not plain, a path or host hookhost cannot read
    /// exactly, no part at all).
    pub(crate) fn items(&self) -> Option<Vec<Item<'_>>> {
        let items: Vec<Item<'_>> = match self.family {
            Family::Bash => self
                .script
                .as_ref()?
                .approvable()?
                .iter()
                .map(Item::Command)
                .collect(),
            Family::Read | Family::Search | Family::Edit | Family::Write if !self.unresolved => {
                self.paths.iter().map(|path| Item::Path(path)).collect()
            }
            Family::WebFetch => self
                .hosts
                .iter()
                .map(|(exact, _)| exact.as_deref().map(Item::Host))
                .collect::<Option<_>>()?,
            _ => return None,
        };
        (!items.is_empty()).then_some(items)
    }

    /// The directories path rules resolve against, for a rule written in a file whose `/path`
    /// patterns are anchored at `rule_dir`.
    pub(crate) fn dirs<'d>(&'d self, rule_dir: &'d Path) -> path::Dirs<'d> {
        path::Dirs {
            cwd: self.call.cwd,
            home: self.call.home,
            rule_dir,
        }
    }
}

impl Item<'_> {
    /// How the verdict names the part.
    pub(crate) fn describe(&self) -> String {
        match self {
            Item::Command(command) => command.text.clone(),
            Item::Path(path) => path.display().to_string(),
            Item::Host(host) => host.to_string(),
        }
    }
}
