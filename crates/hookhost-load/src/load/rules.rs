//! The `[[rules]]` of every layer into the one set the runner asks (`runtime::rules`), in
//! layer and declaration order, each rule with where it was written and the directory its
//! `/path` patterns are anchored at (a project's file: the project's directory; the user's
//! and the organisation's: the file's own).
//!
//! A project's `allow` rules approve calls on the user's machine, as a project's hooks run
//! code there, so they follow the `[projects]` policy (`Policy::counts_allow_rules`); its
//! `deny` and `ask` rules only make the session stricter and always count. Under the
//! organisation's `managed_only`, only its own rules count.

use std::path::PathBuf;

use hookhost_rules::{Action, Origin, Rules};

use super::projects::Policy;
use crate::approvals::Coverage;
use crate::config::{Config, Layer};
use crate::recording::Provenance;
use crate::runner::RuleInfo;
use crate::runtime::rules::RuleSet;

/// The rules of `configs` that count, with what the runner reports of each.
pub(super) fn gather(
    configs: &[(Layer, Config)],
    policy: Option<&Policy>,
    managed_only: bool,
) -> (RuleSet, Vec<RuleInfo>) {
    let mut rules = Rules::new();
    let mut infos = Vec::new();
    for (layer, config) in configs {
        if managed_only && *layer != Layer::Managed {
            continue;
        }
        let allow_counts =
            policy.is_none_or(|policy| policy.counts_allow_rules(*layer, &config.path));
        let dir = match layer {
            Layer::Managed | Layer::User => config.base_dir().to_path_buf(),
            _ => Coverage::project_dir(&config.path),
        };
        for rule in &config.rules {
            if rule.action == Action::Allow && !allow_counts {
                continue;
            }
            let origin = Origin {
                file: config.path.clone(),
                line: rule.location.line as u32,
                column: rule.location.column as u32,
                dir: absolute(dir.clone()),
            };
            let source = origin.to_string();
            // Read when the file was parsed: a rule that did not parse never reaches here.
            if rules
                .add(rule.action, &rule.text, &rule.reason, origin)
                .is_err()
            {
                continue;
            }
            infos.push(RuleInfo {
                name: rule.hook_name(),
                mode: rule.mode,
                provenance: Provenance {
                    layer: Some(*layer),
                    source,
                    sha256: None,
                    signers: Vec::new(),
                },
            });
        }
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    (RuleSet::new(rules, home), infos)
}

fn absolute(dir: PathBuf) -> PathBuf {
    if dir.is_absolute() {
        return dir;
    }
    std::env::current_dir()
        .map(|cwd| cwd.join(&dir))
        .unwrap_or(dir)
}
