//! The `git` pack: what loses history or uncommitted work. Force pushes and remote deletions,
//! hard resets, forced cleans, forced branch deletions, history rewrites, expired reflogs and
//! immediate pruning, dropped stashes, and checkouts or restores that discard every change.

use policy_common::shell::Call;

use super::{Flags, Hit, hit};

/// git's own options before the subcommand, and whether each takes a value.
const GLOBAL_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--exec-path",
    "--config-env",
];

/// The subcommand and its arguments, after git's global options.
pub fn subcommand(args: &[String]) -> Option<(&str, &[String])> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if GLOBAL_WITH_VALUE.contains(&arg.as_str()) {
            i += 2;
        } else if arg.starts_with('-') {
            i += 1;
        } else {
            return Some((arg.as_str(), &args[i + 1..]));
        }
    }
    None
}

/// The `git` pack.
pub fn git(call: &Call) -> Option<Hit> {
    if call.program != "git" {
        return None;
    }
    let (sub, args) = subcommand(call.args)?;
    let flags = Flags::parse(
        args,
        &[
            "-m",
            "-o",
            "--push-option",
            "--repo",
            "--receive-pack",
            "--exec",
        ],
    );
    let broad = |p: &&str| matches!(*p, "." | "*" | ":/" | "./" | ":(top)" | "-A");
    // A directory named as one (`lib/`): every file under it (an agent reverting a few files
    // this way lost days of unstaged work; branch names never end in `/`).
    let tree = |p: &&&str| p.len() > 1 && p.ends_with('/') && !broad(p);
    match sub {
        "push" => push(&flags),
        "reset" if flags.long("hard") => hit(
            "reset-hard",
            "git reset --hard throws away uncommitted work",
        ),
        "clean" => {
            let forced = flags.short('f') || flags.long("force");
            let dry = flags.short('n') || flags.long("dry-run");
            (forced && !dry).then(|| Hit {
                rule: "clean-force",
                what: "git clean -f deletes untracked files for good".into(),
            })
        }
        "branch" => {
            let delete = flags.short('d') || flags.long("delete");
            let forced = flags.short('D') || (delete && (flags.short('f') || flags.long("force")));
            forced.then(|| Hit {
                rule: "branch-force-delete",
                what: "git branch -D deletes a branch whether merged or not".into(),
            })
        }
        "filter-branch" | "filter-repo" => hit(
            "history-rewrite",
            format!("git {sub} rewrites every commit"),
        ),
        "reflog" if matches!(flags.operands.first(), Some(&"expire") | Some(&"delete")) => hit(
            "reflog-expire",
            "git reflog expire drops the safety net of lost commits",
        ),
        "gc" if flags.long("prune")
            && args
                .iter()
                .any(|a| a == "--prune=now" || a == "--prune=all") =>
        {
            hit(
                "gc-prune-now",
                "git gc --prune=now deletes unreachable commits at once",
            )
        }
        "stash" if matches!(flags.operands.first(), Some(&"clear") | Some(&"drop")) => hit(
            "stash-drop",
            format!("git stash {} deletes stashed work", flags.operands[0]),
        ),
        "checkout" => {
            if flags.short('f') || flags.long("force") {
                return hit(
                    "discard-changes",
                    "git checkout -f discards every uncommitted change",
                );
            }
            if let Some(dir) = flags.operands.iter().find(|p| tree(p)) {
                return hit(
                    "discard-changes",
                    format!("git checkout {dir} discards every uncommitted change under it"),
                );
            }
            flags.operands.iter().any(broad).then(|| Hit {
                rule: "discard-changes",
                what: "git checkout . discards every uncommitted change".into(),
            })
        }
        "restore" => {
            let staged_only = (flags.short('S') || flags.long("staged"))
                && !(flags.short('W') || flags.long("worktree"));
            if staged_only {
                return None;
            }
            if let Some(dir) = flags.operands.iter().find(|p| tree(p)) {
                return hit(
                    "discard-changes",
                    format!("git restore {dir} discards every uncommitted change under it"),
                );
            }
            flags.operands.iter().any(broad).then(|| Hit {
                rule: "discard-changes",
                what: "git restore . discards every uncommitted change".into(),
            })
        }
        "switch" if flags.long("discard-changes") || flags.short('f') || flags.long("force") => {
            hit(
                "discard-changes",
                "git switch --discard-changes discards uncommitted changes",
            )
        }
        "update-ref" if flags.short('d') => hit("delete-ref", "git update-ref -d deletes a ref"),
        _ => None,
    }
}

fn push(flags: &Flags) -> Option<Hit> {
    if flags.short('f')
        || flags.long("force")
        || flags.long("force-with-lease")
        || flags.long("force-if-includes")
    {
        return hit(
            "force-push",
            "git push --force rewrites the remote's history",
        );
    }
    if flags.operands.iter().skip(1).any(|r| r.starts_with('+')) {
        return hit(
            "force-push",
            "git push +refspec rewrites the remote's history",
        );
    }
    if flags.long("mirror") {
        return hit(
            "push-delete",
            "git push --mirror deletes remote refs that are not local",
        );
    }
    if flags.short('d') || flags.long("delete") || flags.long("prune") {
        return hit("push-delete", "git push --delete deletes remote branches");
    }
    if flags
        .operands
        .iter()
        .skip(1)
        .any(|r| r.starts_with(':') && r.len() > 1)
    {
        return hit("push-delete", "git push :branch deletes a remote branch");
    }
    None
}
