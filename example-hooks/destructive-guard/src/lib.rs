//! destructive-guard: a PreToolUse guard for every agent's shell tool (Claude Code's `Bash`,
//! Copilot CLI's `bash`, Gemini CLI's `run_shell_command`, Codex CLI's `Bash`, Cursor's
//! `Shell`, ...: [`ToolCall::shell`]) that blocks commands which destroy work or systems:
//! recursive deletes of `/`, `~`, `$HOME` or `.`, force pushes, hard resets to a remote
//! branch, `git clean -f`, deleting Kubernetes namespaces or everything of a kind, formatting
//! disks, `dd` onto a device, `chmod -R 777 /`, and `DROP TABLE`. Registered for Cursor's
//! `beforeShellExecution` event too, it guards that event's command.
//!
//! Commands are read the way a shell splits them (quotes, `;`, `&&`, `|`, `$(...)`,
//! `bash -c '...'`), with case and whitespace normalised and wrappers such as `sudo` removed,
//! so `RM  -RF /`, `rm -rf -- /`, `rm -fr /` and `sudo /bin/rm -r -f "/"` are all caught.
//! More patterns come from the hook's config: `deny = ["terraform destroy"]`.

mod shell;

use hook_sdk::{Event, Guard, Hook, Phase, ToolCall, Verdict};
use serde::Deserialize;

/// The hook's `[hooks.config]`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Extra phrases to block, matched against the normalised command line (lowercase,
    /// single spaces, quotes removed).
    pub deny: Vec<String>,
}

/// The hook.
#[derive(Debug)]
pub struct DestructiveGuard;

/// Cursor's gate before a shell command runs: an event with the command in its payload and
/// no tool name (Cursor's preToolUse `Shell` reaches [`Hook::guard`] as any tool call does).
const CURSOR_SHELL_GATE: &str = "beforeShellExecution";

impl Hook for DestructiveGuard {
    fn guard(call: &ToolCall) -> Guard {
        let Some(shell) = call.shell() else {
            return Guard::Allow;
        };
        let config: Config = match hook_sdk::config() {
            Ok(config) => config,
            // A guard with a broken config blocks rather than guessing.
            Err(error) => {
                return Guard::block(format!("destructive-guard is misconfigured: {error}"));
            }
        };
        match check(&shell.command, &config) {
            Some(reason) => Guard::Block(reason),
            None => Guard::Allow,
        }
    }

    fn handle(event: &Event) -> Verdict {
        match event.tool_use() {
            Some(call) if event.name() == CURSOR_SHELL_GATE && event.phase() == Phase::Guard => {
                Self::guard(&call).into()
            }
            _ => hook_sdk::dispatch::<Self>(event),
        }
    }
}

hook_sdk::export!(DestructiveGuard);

/// Why `command` is destructive, or `None` if it is not.
pub fn check(command: &str, config: &Config) -> Option<String> {
    let normalised: String = shell::simple_commands(command)
        .iter()
        .map(|words| words.join(" "))
        .collect::<Vec<_>>()
        .join(" ; ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for phrase in &config.deny {
        let phrase = phrase
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        if !phrase.is_empty() && normalised.contains(&phrase) {
            return Some(format!("command matches the deny pattern \"{phrase}\""));
        }
    }
    if normalised.contains("drop table") || normalised.contains("drop database") {
        return Some("DROP TABLE/DATABASE destroys data".to_string());
    }
    check_commands(command, 0)
}

fn check_commands(line: &str, depth: usize) -> Option<String> {
    for words in shell::simple_commands(line) {
        let argv = shell::unwrap_command(&words);
        let Some(program) = argv.first() else {
            continue;
        };
        let args = &argv[1..];
        let found = match program.as_str() {
            "rm" => check_rm(args),
            "git" => check_git(args),
            "kubectl" => check_kubectl(args),
            "dd" => args
                .iter()
                .find(|a| a.starts_with("of=/dev/"))
                .map(|a| format!("dd writing to a device ({a}) destroys its contents")),
            "chmod" => check_chmod(args),
            p if p == "mkfs" || p.starts_with("mkfs.") => Some(format!("{p} formats a filesystem")),
            // A shell running a string runs commands too.
            "sh" | "bash" | "zsh" | "dash" | "ksh" if depth < 4 => args
                .iter()
                .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
                .and_then(|i| args.get(i + 1))
                .and_then(|script| check_commands(script, depth + 1)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Targets whose recursive deletion is never what an agent should do.
fn dangerous_target(operand: &str) -> bool {
    let mut target = operand.to_string();
    while target.contains("//") {
        target = target.replace("//", "/");
    }
    let target = target.strip_suffix("/*").unwrap_or(&target);
    let target = if target.len() > 1 {
        target.trim_end_matches('/')
    } else {
        target
    };
    matches!(
        target,
        "/" | "" | "~" | "$home" | "${home}" | "." | ".." | "*" | "./*" | "~/" | "/*"
    ) || target.starts_with("~/")
        && target
            .trim_start_matches("~/")
            .trim_end_matches('*')
            .is_empty()
}

/// `(recursive, force, no_preserve_root, operands)` of an rm-like argument list.
fn flags_and_operands(args: &[String]) -> (bool, bool, bool, Vec<&str>) {
    let (mut recursive, mut force, mut no_preserve) = (false, false, false);
    let mut operands = Vec::new();
    let mut options_done = false;
    for arg in args {
        if options_done || arg == "-" || !arg.starts_with('-') {
            operands.push(arg.as_str());
        } else if arg == "--" {
            options_done = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            match long {
                "recursive" => recursive = true,
                "force" => force = true,
                "no-preserve-root" => no_preserve = true,
                _ => {}
            }
        } else {
            recursive |= arg.contains('r');
            force |= arg.contains('f');
        }
    }
    (recursive, force, no_preserve, operands)
}

fn check_rm(args: &[String]) -> Option<String> {
    let (recursive, _force, no_preserve, operands) = flags_and_operands(args);
    if !recursive {
        return None;
    }
    if no_preserve {
        return Some("rm --no-preserve-root is never allowed".to_string());
    }
    operands
        .iter()
        .find(|operand| dangerous_target(operand))
        .map(|target| format!("recursive delete of {target} (rm -r)"))
}

fn check_git(args: &[String]) -> Option<String> {
    // Skip git's global options (`-C dir`, `-c key=value`, `--no-pager`, ...).
    let mut rest = args;
    while let Some(first) = rest.first() {
        match first.as_str() {
            "-c" | "-C" | "--git-dir" | "--work-tree" | "--namespace" => {
                rest = &rest[2.min(rest.len())..]
            }
            option if option.starts_with('-') => rest = &rest[1..],
            _ => break,
        }
    }
    let (subcommand, args) = rest.split_first()?;
    let short_flag = |letter: char| {
        args.iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(letter))
    };
    let long_flag = |name: &str| {
        args.iter()
            .any(|a| a == name || a.starts_with(&format!("{name}=")))
    };
    match subcommand.as_str() {
        "push" => {
            if short_flag('f')
                || long_flag("--force")
                || long_flag("--force-with-lease")
                || long_flag("--force-if-includes")
                || long_flag("--mirror")
            {
                Some("force push rewrites shared history (git push --force)".to_string())
            } else if args.iter().any(|a| a.starts_with('+')) {
                Some("force push rewrites shared history (git push +refspec)".to_string())
            } else {
                None
            }
        }
        "reset" if long_flag("--hard") => args
            .iter()
            .find(|a| {
                !a.starts_with('-')
                    && (a.contains("@{u")
                        || a.contains("@{upstream")
                        || a.contains("@{push")
                        || a.starts_with("refs/remotes/")
                        || a.contains('/'))
            })
            .map(|target| {
                format!(
                    "git reset --hard {target} throws away local work in favour of a remote branch"
                )
            }),
        "clean" if short_flag('f') || long_flag("--force") => {
            Some("git clean -f deletes untracked files for good".to_string())
        }
        _ => None,
    }
}

fn check_kubectl(args: &[String]) -> Option<String> {
    let position = args.iter().position(|a| a == "delete")?;
    let rest = &args[position + 1..];
    if rest
        .iter()
        .any(|a| a == "--all" || a == "--all-namespaces" || a == "-a")
    {
        return Some("kubectl delete --all deletes every resource of a kind".to_string());
    }
    let kind = rest.iter().find(|a| !a.starts_with('-'))?;
    let kind = kind.split('/').next().unwrap_or(kind);
    matches!(kind, "namespace" | "namespaces" | "ns")
        .then(|| "kubectl delete namespace deletes everything in it".to_string())
}

fn check_chmod(args: &[String]) -> Option<String> {
    let recursive = args.iter().any(|a| {
        (a.starts_with('-') && !a.starts_with("--") && a.contains('r')) || a == "--recursive"
    });
    let world_writable = args
        .iter()
        .any(|a| matches!(a.as_str(), "777" | "0777" | "a+rwx" | "ugo+rwx" | "a=rwx"));
    let target = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .find(|a| dangerous_target(a))?;
    (recursive && world_writable)
        .then(|| format!("chmod -R 777 {target} opens everything to everyone"))
}

#[cfg(test)]
mod tests;
