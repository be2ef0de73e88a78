//! The `git-safety` policy: force pushes to protected branches (`--force-with-lease` too,
//! unless `allow_force_with_lease`), commits and pushes straight to a protected branch,
//! `--no-verify` (and `core.hooksPath` overrides) on commit and push, and commands that discard
//! uncommitted work (`reset --hard`, `clean -f`, `checkout -- .`, `restore .`: a warning by
//! default, since the policy cannot see whether there is work to lose).
//!
//! The current branch comes from `.git/HEAD`, read when the hook is granted read access to the
//! project; without it, only branches named on the command line are known, and a push that
//! names none is refused with a message saying so when it forces.

use hook_sdk::{Event, Hook, Phase, Verdict};
use policy_common::options::{OptionError, Options, misconfigured};
use policy_common::shell::{self, Call};
use policy_common::tools::Tool;
use policy_common::wildcard::matches as glob;

/// The options the policy takes.
pub const OPTIONS: &[&str] = &[
    "protected",
    "allow_force_with_lease",
    "no_verify",
    "discard",
    "direct_to_protected",
];

/// What the policy does about a kind of finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Refuse.
    Block,
    /// Let the user decide.
    Ask,
    /// Go on, saying why.
    Warn,
    /// Nothing.
    Allow,
}

impl Action {
    fn parse(text: Option<String>, default: Action) -> Action {
        match text.as_deref() {
            Some("block") => Action::Block,
            Some("ask") => Action::Ask,
            Some("warn") => Action::Warn,
            Some("allow") => Action::Allow,
            _ => default,
        }
    }
}

/// The policy, configured.
#[derive(Debug, Clone)]
pub struct GitSafety {
    protected: Vec<String>,
    allow_force_with_lease: bool,
    no_verify: Action,
    discard: Action,
    direct: Action,
}

impl Default for GitSafety {
    fn default() -> GitSafety {
        GitSafety {
            protected: vec!["main".into(), "master".into(), "release/*".into()],
            allow_force_with_lease: false,
            no_verify: Action::Block,
            discard: Action::Warn,
            direct: Action::Block,
        }
    }
}

const ACTIONS: &[&str] = &["block", "ask", "warn", "allow"];

impl GitSafety {
    /// The policy configured by `[hooks.config]` (JSON text).
    pub fn from_config(json: &str) -> Result<GitSafety, OptionError> {
        let options = Options::parse(json, OPTIONS)?;
        let default = GitSafety::default();
        Ok(GitSafety {
            protected: options.strings("protected")?.unwrap_or(default.protected),
            allow_force_with_lease: options.bool("allow_force_with_lease")?.unwrap_or(false),
            no_verify: Action::parse(options.choice("no_verify", ACTIONS)?, default.no_verify),
            discard: Action::parse(options.choice("discard", ACTIONS)?, default.discard),
            direct: Action::parse(
                options.choice("direct_to_protected", ACTIONS)?,
                default.direct,
            ),
        })
    }

    fn protected(&self, branch: &str) -> bool {
        let branch = branch.strip_prefix("refs/heads/").unwrap_or(branch);
        self.protected.iter().any(|p| glob(p, branch))
    }

    /// What `command` does that the policy objects to, given the current branch when known.
    pub fn check(&self, command: &str, current: Option<&str>) -> Option<(Action, String)> {
        let script = shell::parse(command);
        let mut found = None;
        shell::visit::<()>(&script, &mut |call| {
            if call.program == "git"
                && let Some((action, reason)) = self.check_git(call, current)
                && action != Action::Allow
            {
                found = Some((action, reason));
                return Some(());
            }
            None
        });
        found
    }

    fn check_git(&self, call: &Call, current: Option<&str>) -> Option<(Action, String)> {
        let hooks_off = call
            .args
            .windows(2)
            .any(|w| w[0] == "-c" && w[1].to_lowercase().starts_with("core.hookspath="));
        let mut i = 0;
        while let Some(arg) = call.args.get(i) {
            if matches!(arg.as_str(), "-C" | "-c" | "--git-dir" | "--work-tree") {
                i += 2;
            } else if arg.starts_with('-') {
                i += 1;
            } else {
                break;
            }
        }
        let sub = call.args.get(i)?.as_str();
        let args = &call.args[i + 1..];
        let has = |names: &[&str]| {
            args.iter().any(|a| {
                names.contains(&a.as_str())
                    || (a.starts_with('-')
                        && !a.starts_with("--")
                        && names
                            .iter()
                            .any(|n| n.len() == 2 && !n.starts_with("--") && a.contains(&n[1..])))
            })
        };
        if matches!(
            sub,
            "commit" | "push" | "merge" | "rebase" | "am" | "cherry-pick"
        ) && (has(&["--no-verify"]) || (sub == "commit" && has(&["-n"])) || hooks_off)
        {
            return Some((
                self.no_verify,
                format!("git {sub} --no-verify skips the repository's hooks"),
            ));
        }
        match sub {
            "push" => self.push(args, current),
            "commit" => {
                let branch = current?;
                self.protected(branch).then(|| (self.direct, format!("commits straight to the protected branch {branch}")))
            }
            "reset" if has(&["--hard"]) => Some((self.discard, "git reset --hard discards uncommitted work (the policy cannot see whether there is any)".into())),
            "clean" if has(&["-f", "--force"]) && !has(&["-n", "--dry-run"]) => Some((self.discard, "git clean -f deletes untracked files".into())),
            "checkout" | "restore" if args.iter().any(|a| matches!(a.as_str(), "." | "*" | ":/")) && !(sub == "restore" && has(&["--staged", "-S"]) && !has(&["--worktree", "-W"])) => {
                Some((self.discard, format!("git {sub} . discards every uncommitted change")))
            }
            _ => None,
        }
    }

    fn push(&self, args: &[String], current: Option<&str>) -> Option<(Action, String)> {
        let with_value = ["-o", "--push-option", "--repo", "--receive-pack", "--exec"];
        let mut operands = Vec::new();
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            if with_value.contains(&arg.as_str()) {
                i += 1;
            } else if !arg.starts_with('-') {
                operands.push(arg.as_str());
            }
            i += 1;
        }
        let flag = |names: &[&str]| {
            args.iter().any(|a| {
                names
                    .iter()
                    .any(|n| a == n || a.starts_with(&format!("{n}=")))
                    || (a.starts_with('-')
                        && !a.starts_with("--")
                        && names.contains(&"-f")
                        && a.contains('f'))
            })
        };
        let lease = flag(&["--force-with-lease", "--force-if-includes"]);
        let force = flag(&["--force", "-f"]);
        let refspecs = operands.get(1..).unwrap_or_default();
        let targets: Vec<(String, bool)> = if refspecs.is_empty() {
            match current {
                Some(branch) => vec![(branch.to_string(), false)],
                None if force || lease => return Some((Action::Block, "git push --force without a branch: the policy cannot see the current branch (grant it read access to the project, or name the branch)".into())),
                None => Vec::new(),
            }
        } else {
            refspecs
                .iter()
                .filter(|r| !r.starts_with("--"))
                .map(|r| {
                    let plus = r.starts_with('+');
                    let r = r.trim_start_matches('+');
                    let dst = r.rsplit_once(':').map_or(r, |(_, d)| d);
                    let dst = if dst == "HEAD" {
                        current.unwrap_or("HEAD")
                    } else {
                        dst
                    };
                    (dst.to_string(), plus)
                })
                .collect()
        };
        for (branch, plus) in targets {
            if !self.protected(&branch) {
                continue;
            }
            if force || plus {
                return Some((
                    Action::Block,
                    format!("force push to the protected branch {branch}"),
                ));
            }
            if lease && !self.allow_force_with_lease {
                return Some((
                    Action::Block,
                    format!("force push (with lease) to the protected branch {branch}"),
                ));
            }
            if !lease {
                return Some((
                    self.direct,
                    format!("pushes straight to the protected branch {branch}"),
                ));
            }
        }
        None
    }
}

/// The current branch of the repository at `cwd`, from `.git/HEAD` (following a worktree's
/// `.git` file); `None` when it cannot be read (no grant) or HEAD is detached.
pub fn current_branch(cwd: &str) -> Option<String> {
    let dot_git = format!("{}/.git", cwd.trim_end_matches('/'));
    let git_dir = match std::fs::read_to_string(&dot_git) {
        Ok(text) => text.trim().strip_prefix("gitdir:")?.trim().to_string(),
        Err(_) => dot_git,
    };
    let head = std::fs::read_to_string(format!("{git_dir}/HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_string)
}

/// The component.
#[derive(Debug)]
pub struct GitSafetyPolicy;

impl Hook for GitSafetyPolicy {
    fn handle(event: &Event) -> Verdict {
        if event.phase() != Phase::Guard || event.name() != "PreToolUse" {
            return Verdict::allow();
        }
        let Some(call) = event.tool_call() else {
            return Verdict::allow();
        };
        let Some(command) = Tool::new(&call.tool, &call.input).shell() else {
            return Verdict::allow();
        };
        if !command.contains("git") {
            return Verdict::allow();
        }
        let policy = match GitSafety::from_config(&hook_sdk::config_json()) {
            Ok(policy) => policy,
            Err(error) => return Verdict::block(misconfigured("git-safety", &error)),
        };
        let branch = current_branch(&call.cwd);
        match policy.check(&command, branch.as_deref()) {
            Some((Action::Block, reason)) => Verdict::block(reason),
            Some((Action::Ask, reason)) => Verdict::ask(reason),
            Some((Action::Warn, reason)) => Verdict::warn(reason),
            _ => Verdict::allow(),
        }
    }
}

hook_sdk::export!(GitSafetyPolicy);

#[cfg(test)]
mod tests;
