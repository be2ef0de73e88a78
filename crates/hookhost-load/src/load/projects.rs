//! The `[projects]` policy that holds for a session's project hooks (the organisation's, else
//! the user's): run as configured (`allow`), only once approved (`approve`), or only sandboxed
//! wasm hooks within the ceiling (`sandboxed`).

use std::path::{Path, PathBuf};

use super::prepare::check_ceiling;
use crate::approvals::{Approval, Approvals, Coverage};
use crate::config::{HookSource, HookSpec, Layer, ProjectPolicy, ProjectsSpec};

/// What the `[projects]` that holds says (the organisation's, else the user's), with what it
/// needs to decide.
pub(super) struct Policy {
    /// Whose it is, for messages: "the user's", or "the organisation's".
    pub(super) owner: &'static str,
    pub(super) projects: ProjectsSpec,
    pub(super) approvals: Approvals,
    /// Under `approve`: each project file's, with what its hooks run.
    pub(super) coverage: Vec<(PathBuf, Coverage)>,
    pub(super) project_dir: PathBuf,
}

impl Policy {
    /// Why a project hook may not run as configured, if it may not.
    pub(super) fn holds(&self, spec: &HookSpec, file: &Path) -> Option<String> {
        if matches!(spec.layer, Layer::Managed | Layer::User | Layer::Runtime) {
            return None;
        }
        match self.projects.policy {
            ProjectPolicy::Allow => None,
            ProjectPolicy::Approve => self.approval(file).held_reason(file),
            ProjectPolicy::Sandboxed => match &spec.source {
                HookSource::Command(_) => Some(format!(
                    "is a command hook, and {} policy runs only wasm hooks from projects (\"sandboxed\")",
                    self.owner
                )),
                HookSource::Wasm(wasm) => {
                    check_ceiling(wasm, &self.project_dir, &self.projects.ceiling).err()
                }
            },
        }
    }
}

impl Policy {
    /// Whether the `allow` rules of `file`, a file of `layer`, count: the organisation's and
    /// the user's always; a project's as its hooks would run (`allow`: yes; `approve`: once
    /// the file is approved, its rules being part of the approved content; `sandboxed`: no,
    /// as an allow rule is no sandboxed component).
    pub(super) fn counts_allow_rules(&self, layer: Layer, file: &Path) -> bool {
        match (layer, self.projects.policy) {
            (Layer::Managed | Layer::User, _) | (_, ProjectPolicy::Allow) => true,
            (_, ProjectPolicy::Approve) => self.approval(file).held_reason(file).is_none(),
            (_, ProjectPolicy::Sandboxed) => false,
        }
    }

    /// Where a project file stands with the user's approvals (never approved without its
    /// coverage).
    fn approval(&self, file: &Path) -> Approval {
        self.coverage
            .iter()
            .find(|(path, _)| path == file)
            .map_or(Approval::NotApproved, |(_, coverage)| {
                self.approvals.check(file, coverage)
            })
    }

    /// Every file the approvals of the project's files cover, present or approved as absent.
    pub(super) fn covered_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self
            .coverage
            .iter()
            .flat_map(|(_, coverage)| &coverage.hooks)
            .flat_map(|hook| hook.files.iter().map(|(path, _)| path.clone()))
            .collect();
        files.sort();
        files.dedup();
        files
    }

    /// What the user should hear although the hooks run (an approval from an older hookhost
    /// that does not cover what they run).
    pub(super) fn notices(&self) -> Vec<String> {
        self.coverage
            .iter()
            .filter_map(|(file, _)| self.approval(file).notice(file))
            .collect()
    }
}
