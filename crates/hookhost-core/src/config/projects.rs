//! `[projects]`: what the user allows the hooks of the repositories an agent opens, and
//! `disable`: the project's hooks a local override turns off.
//!
//! ```toml
//! # ~/.config/hookhost/hooks.toml, the user's own
//! [projects]
//! policy = "sandboxed"          # allow (default) | approve | sandboxed
//!
//! [projects.ceiling]            # sandboxed: the most a project's wasm hook may be granted
//! read = ["."]                  # relative to the project's directory
//! write = [".forgeflare"]
//! env = ["CI"]
//! max_memory_mb = 64
//! ```

use std::path::PathBuf;

use toml::Spanned;
use toml::de::DeValue;

use super::fields::Problems;
use super::{DEFAULT_MAX_MEMORY_MB, Location, MAX_MEMORY_MB_LIMIT};

/// What the user allows a project's hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProjectPolicy {
    /// A project's hooks run as configured (forgeflare's behaviour).
    #[default]
    Allow,
    /// A project's hooks run only once the user approved that exact file content, and the
    /// project's files they run (`hookhost allow`, `hookhost::approvals`); until then its guards
    /// block and its other hooks are skipped.
    Approve,
    /// A project's hooks may only be wasm, with grants within the user's ceiling; its command
    /// hooks never run (its guards block).
    Sandboxed,
}

impl ProjectPolicy {
    /// The hooks.toml spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ProjectPolicy::Allow => "allow",
            ProjectPolicy::Approve => "approve",
            ProjectPolicy::Sandboxed => "sandboxed",
        }
    }
}

/// The most a project's wasm hook may be granted under `policy = "sandboxed"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ceiling {
    /// Directories a project hook may read, relative to the project's directory.
    pub read: Vec<PathBuf>,
    /// Directories a project hook may write, relative to the project's directory.
    pub write: Vec<PathBuf>,
    /// Host variables a project hook may be given by name.
    pub env: Vec<String>,
    /// The largest `max_memory_mb` a project hook may ask for.
    pub max_memory_mb: u32,
}

impl Default for Ceiling {
    fn default() -> Ceiling {
        Ceiling {
            read: vec![PathBuf::from(".")],
            write: Vec::new(),
            env: Vec::new(),
            max_memory_mb: DEFAULT_MAX_MEMORY_MB,
        }
    }
}

/// The `[projects]` table of the user's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProjectsSpec {
    /// The policy.
    pub policy: ProjectPolicy,
    /// The ceiling of `sandboxed`.
    pub ceiling: Ceiling,
    /// Where the table is.
    pub location: Location,
}

pub(super) fn parse_projects(
    value: &Spanned<DeValue<'_>>,
    sink: &mut Problems<'_>,
) -> Option<ProjectsSpec> {
    let mut spec = ProjectsSpec {
        location: sink.lines.locate(value.span().start),
        ..ProjectsSpec::default()
    };
    let DeValue::Table(table) = value.get_ref() else {
        sink.push(
            &value.span(),
            None,
            "`projects` must be a table: write it as `[projects]`".to_string(),
        );
        return None;
    };
    let errors = sink.len();
    for (key, value) in table.iter() {
        match (key.get_ref().as_ref(), value.get_ref()) {
            ("policy", DeValue::String(policy)) => {
                spec.policy = match policy.as_ref() {
                    "allow" => ProjectPolicy::Allow,
                    "approve" => ProjectPolicy::Approve,
                    "sandboxed" => ProjectPolicy::Sandboxed,
                    other => {
                        sink.push(
                            &value.span(),
                            None,
                            format!(
                                "unknown projects.policy {}; use \"allow\" (the default), \"approve\" or \"sandboxed\"",
                                crate::text::quote(other)
                            ),
                        );
                        ProjectPolicy::Allow
                    }
                }
            }
            ("ceiling", DeValue::Table(ceiling)) => {
                for (key, value) in ceiling.iter() {
                    let strings = |value: &DeValue<'_>| -> Option<Vec<String>> {
                        match value {
                            DeValue::Array(items) => items
                                .iter()
                                .map(|item| item.get_ref().as_str().map(str::to_string))
                                .collect(),
                            _ => None,
                        }
                    };
                    match (key.get_ref().as_ref(), value.get_ref()) {
                        ("read" | "write" | "env", list) => match strings(list) {
                            Some(items) => match key.get_ref().as_ref() {
                                "read" => spec.ceiling.read = items.into_iter().map(PathBuf::from).collect(),
                                "write" => spec.ceiling.write = items.into_iter().map(PathBuf::from).collect(),
                                _ => spec.ceiling.env = items,
                            },
                            None => sink.push(
                                &value.span(),
                                None,
                                format!(
                                    "`projects.ceiling.{}` must be a list of strings",
                                    crate::text::name(key.get_ref())
                                ),
                            ),
                        },
                        ("max_memory_mb", DeValue::Integer(int)) => {
                            match int.as_str().parse::<u32>() {
                                Ok(mb) if (1..=MAX_MEMORY_MB_LIMIT).contains(&mb) => {
                                    spec.ceiling.max_memory_mb = mb
                                }
                                _ => sink.push(
                                    &value.span(),
                                    None,
                                    format!("`projects.ceiling.max_memory_mb` must be between 1 and {MAX_MEMORY_MB_LIMIT}"),
                                ),
                            }
                        }
                        (other, _) => sink.push(
                            &key.span(),
                            None,
                            format!(
                                "unknown key `projects.ceiling.{}`; the ceiling takes read, write, env and max_memory_mb",
                                crate::text::name(other)
                            ),
                        ),
                    }
                }
            }
            (other, _) => sink.push(
                &key.span(),
                None,
                format!(
                    "unknown key `projects.{}`; [projects] takes `policy` and `[projects.ceiling]`",
                    crate::text::name(other)
                ),
            ),
        }
    }
    (sink.len() == errors).then_some(spec)
}

/// `disable = ["hook name", ...]` (a local override): the names of project hooks to turn off.
pub(super) fn parse_disable(value: &Spanned<DeValue<'_>>, sink: &mut Problems<'_>) -> Vec<String> {
    match value.get_ref() {
        DeValue::Array(items) => items
            .iter()
            .filter_map(|item| match item.get_ref().as_str() {
                Some(name) if !name.trim().is_empty() => Some(name.to_string()),
                _ => {
                    sink.push(
                        &item.span(),
                        None,
                        "every entry of `disable` must be a hook's name".to_string(),
                    );
                    None
                }
            })
            .collect(),
        other => {
            sink.push(
                &value.span(),
                None,
                format!(
                    "`disable` must be a list of hook names, like disable = [\"slow-audit\"]; found {}",
                    other.type_str()
                ),
            );
            Vec::new()
        }
    }
}
