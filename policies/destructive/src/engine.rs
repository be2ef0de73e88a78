//! The policy over plain text: a command line in, the first rule it breaks out (pack, rule,
//! what it would do, and whether the pack is answered with a block or an ask). Options come in
//! as the `[hooks.config]` JSON and are checked strictly.

use policy_common::options::{OptionError, Options};
use policy_common::shell::{self, Call};
use policy_common::wildcard::matches as glob;

use crate::rules::{self, Hit, LineState};

/// The packs, in the order they are checked, with what each covers.
pub const PACKS: &[(&str, &str)] = &[
    (
        "filesystem",
        "recursive deletes and moves of /, ~, system directories, .., ., .git",
    ),
    (
        "system",
        "overwritten system files, chmod/chown -R of system trees, power, kill -1, fork bombs",
    ),
    (
        "disks",
        "mkfs, dd/cat/cp onto devices, wipefs, partitioning, pools and volumes destroyed",
    ),
    (
        "git",
        "force pushes, remote deletions, reset --hard, clean -f, branch -D, history rewrites, dropped stashes",
    ),
    (
        "database",
        "DROP, TRUNCATE, DELETE/UPDATE without WHERE, FLUSHALL, dropDatabase() given to a database CLI; ORM resets (prisma migrate reset, rails db:reset, ...)",
    ),
    (
        "containers",
        "docker/podman prunes with -a, volume deletion, removal of every container or image",
    ),
    (
        "kubernetes",
        "kubectl delete of namespaces, --all, volumes, CRDs, nodes; helm uninstall",
    ),
    (
        "cloud",
        "aws/gcloud/gsutil/az/doctl deletions of buckets, instances, databases, projects",
    ),
    (
        "iac",
        "terraform/tofu/pulumi/cdk destroy, apply -auto-approve, state rm",
    ),
    (
        "rce",
        "downloads run unread: curl | sh, bash <(curl), sh -c \"$(curl)\", reverse shells",
    ),
    (
        "exfiltration",
        "secrets or the environment sent out by curl, wget, nc, scp, rsync, /dev/tcp",
    ),
];

/// Every rule, as `pack/rule` (what `skip_rules` takes).
pub const RULES: &[&str] = &[
    "filesystem/rm-recursive",
    "filesystem/find-delete",
    "filesystem/rsync-delete",
    "filesystem/mv-away",
    "system/overwrite-system-file",
    "system/permissions",
    "system/power",
    "system/lockout",
    "system/kill-all",
    "system/crontab-remove",
    "system/delete-user",
    "system/fork-bomb",
    "disks/device-write",
    "disks/format",
    "disks/wipe",
    "disks/volume-destroy",
    "git/force-push",
    "git/push-delete",
    "git/reset-hard",
    "git/clean-force",
    "git/branch-force-delete",
    "git/history-rewrite",
    "git/reflog-expire",
    "git/gc-prune-now",
    "git/stash-drop",
    "git/discard-changes",
    "git/delete-ref",
    "database/drop",
    "database/truncate",
    "database/delete-all",
    "database/update-all",
    "database/flush",
    "database/reset",
    "containers/prune-all",
    "containers/volume-delete",
    "containers/remove-all",
    "kubernetes/delete-all",
    "kubernetes/delete-critical",
    "kubernetes/drain",
    "kubernetes/helm-uninstall",
    "cloud/bucket-delete",
    "cloud/resource-delete",
    "iac/destroy",
    "iac/unreviewed-apply",
    "iac/state-edit",
    "rce/pipe-to-shell",
    "rce/download-exec",
    "rce/reverse-shell",
    "exfiltration/send-secret",
];

/// The options the policy takes.
pub const OPTIONS: &[&str] = &["packs", "allow", "ask", "skip_rules"];

/// How the policy answers a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Refuse the command.
    Block,
    /// Let the user decide.
    Ask,
}

/// A rule the command breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The pack (`git`).
    pub pack: &'static str,
    /// The rule (`force-push`).
    pub rule: &'static str,
    /// What the command would do.
    pub what: String,
    /// Block or ask.
    pub action: Action,
}

impl Finding {
    /// The reason the agent and the user read: the pack and rule, then what it would do.
    pub fn reason(&self) -> String {
        format!("{}/{}: {}", self.pack, self.rule, self.what)
    }
}

/// The policy, configured.
#[derive(Debug, Clone)]
pub struct Policy {
    packs: Vec<&'static str>,
    ask: Vec<String>,
    allow: Vec<Vec<String>>,
    skip: Vec<String>,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            packs: PACKS.iter().map(|(name, _)| *name).collect(),
            ask: Vec::new(),
            allow: Vec::new(),
            skip: Vec::new(),
        }
    }
}

impl Policy {
    /// The policy configured by `[hooks.config]` (as JSON text).
    pub fn from_config(json: &str) -> Result<Policy, OptionError> {
        let options = Options::parse(json, OPTIONS)?;
        let names: Vec<&str> = PACKS.iter().map(|(name, _)| *name).collect();
        let mut policy = Policy::default();
        if let Some(packs) = options.names("packs", "pack", &names)? {
            policy.packs = names
                .iter()
                .copied()
                .filter(|n| packs.iter().any(|p| p == n))
                .collect();
        }
        policy.ask = options.names("ask", "pack", &names)?.unwrap_or_default();
        policy.skip = options
            .names("skip_rules", "rule", RULES)?
            .unwrap_or_default();
        for pattern in options.strings("allow")?.unwrap_or_default() {
            let words: Vec<String> = pattern.split_whitespace().map(str::to_string).collect();
            if words.is_empty() {
                return Err(OptionError(
                    "option `allow` holds an empty pattern".to_string(),
                ));
            }
            policy.allow.push(words);
        }
        Ok(policy)
    }

    /// The first rule `command` breaks, or `None` when it may run.
    pub fn check(&self, command: &str) -> Option<Finding> {
        self.check_at(command, 0)
    }

    /// `depth`: how many shell startup files deep `command` was written (see `startup_code`).
    fn check_at(&self, command: &str, depth: usize) -> Option<Finding> {
        if self.on("system")
            && let Some(hit) = rules::system::fork_bomb(command)
            && let Some(finding) = self.finding("system", hit)
        {
            return Some(finding);
        }
        let script = shell::parse(command);
        let mut state = LineState::default();
        shell::visit(&script, &mut |call| {
            let found = self.check_call(call, &state, depth);
            if call.program == "cd" {
                state.cd = call
                    .args
                    .iter()
                    .find(|a| !a.starts_with('-'))
                    .cloned()
                    .or(Some("~".into()));
            }
            rules::remote::note_download(call, &mut state);
            found
        })
    }

    fn check_call(&self, call: &Call, state: &LineState, depth: usize) -> Option<Finding> {
        if self.allowed(call) {
            return None;
        }
        if let Some(finding) = self.startup_code(call, depth) {
            return Some(finding);
        }
        let checks: [(&'static str, &dyn Fn() -> Option<Hit>); 15] = [
            ("filesystem", &|| rules::filesystem::filesystem(call, state)),
            ("system", &|| rules::system::system(call)),
            ("system", &|| rules::system::spawn_flood(call)),
            ("system", &|| rules::system::fork_bomb_call(call)),
            ("disks", &|| rules::system::device_write(call)),
            ("disks", &|| rules::cloud::disks(call)),
            ("git", &|| rules::git::git(call)),
            ("database", &|| rules::data::database(call)),
            ("database", &|| rules::migrations::framework_reset(call)),
            ("containers", &|| rules::data::containers(call)),
            ("kubernetes", &|| rules::data::kubernetes(call)),
            ("cloud", &|| rules::cloud::cloud(call)),
            ("iac", &|| rules::cloud::iac(call)),
            ("rce", &|| rules::remote::rce(call, state)),
            ("exfiltration", &|| rules::remote::exfiltration(call)),
        ];
        checks
            .iter()
            .filter(|(pack, _)| self.on(pack))
            .find_map(|(pack, check)| check().and_then(|hit| self.finding(pack, hit)))
    }

    /// Text `echo`, `printf`, `cat` or `tee` writes into a shell startup file (`~/.bashrc`) is
    /// a command every new shell runs (the Nx "s1ngularity" attack appended `sudo shutdown -h
    /// 0`): it is checked as a command line, under the rule it breaks there.
    fn startup_code(&self, call: &Call, depth: usize) -> Option<Finding> {
        if depth >= 4 {
            return None;
        }
        let redirected = call
            .command
            .redirects
            .iter()
            .filter(|r| r.writes_file())
            .map(|r| r.target.text.as_str())
            .find(|target| rules::startup_file(target));
        let target = match call.program {
            "tee" => call
                .args
                .iter()
                .map(String::as_str)
                .find(|a| rules::startup_file(a)),
            "echo" | "printf" | "cat" => redirected,
            _ => None,
        }?;
        let text = match call.program {
            "echo" | "printf" => call
                .args
                .iter()
                .skip_while(|a| a.starts_with('-'))
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(" ")
                .replace("\\n", "\n"),
            _ => call.stdin_text().map(str::to_string).or_else(|| {
                let (feeder, args) = call.upstream().into_iter().next()?;
                matches!(feeder.as_str(), "echo" | "printf").then(|| args.join(" "))
            })?,
        };
        let finding = self.check_at(&text, depth + 1)?;
        Some(Finding {
            what: format!(
                "written into {target}, every new shell runs it: {}",
                finding.what
            ),
            ..finding
        })
    }

    fn on(&self, pack: &str) -> bool {
        self.packs.contains(&pack)
    }

    fn finding(&self, pack: &'static str, hit: Hit) -> Option<Finding> {
        if self
            .skip
            .iter()
            .any(|s| s.split_once('/') == Some((pack, hit.rule)))
        {
            return None;
        }
        let action = if self.ask.iter().any(|p| p == pack) {
            Action::Ask
        } else {
            Action::Block
        };
        Some(Finding {
            pack,
            rule: hit.rule,
            what: hit.what,
            action,
        })
    }

    /// The call matches an `allow` pattern: word by word, `*` standing for any text within a
    /// word, a trailing `*` word for any remaining words.
    fn allowed(&self, call: &Call) -> bool {
        let mut words = vec![call.program.to_string()];
        words.extend(call.args.iter().cloned());
        self.allow
            .iter()
            .any(|pattern| words_match(pattern, &words))
    }
}

fn words_match(pattern: &[String], words: &[String]) -> bool {
    match (pattern.split_first(), words.split_first()) {
        (None, None) => true,
        (Some((p, rest)), _) if p == "*" && rest.is_empty() => true,
        (Some((p, prest)), Some((w, wrest))) => glob(p, w) && words_match(prest, wrest),
        _ => false,
    }
}
