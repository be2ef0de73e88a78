//! destructive-guard: a PreToolUse guard for `Bash` that blocks commands which destroy
//! work or systems: recursive deletes of `/`, `~`, `$HOME` or `.`, force pushes, hard resets
//! to a remote branch, `git clean -f`, deleting Kubernetes namespaces or everything of a kind,
//! formatting disks, `dd` onto a device, `chmod -R 777 /`, and `DROP TABLE`.
//!
//! Commands are read the way a shell splits them (quotes, `;`, `&&`, `|`, `$(...)`,
//! `bash -c '...'`), with case and whitespace normalised and wrappers such as `sudo` removed,
//! so `RM  -RF /`, `rm -rf -- /`, `rm -fr /` and `sudo /bin/rm -r -f "/"` are all caught.
//! More patterns come from the hook's config: `deny = ["terraform destroy"]`.

mod shell;

use hook_sdk::{Guard, Hook, ToolCall};
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

impl Hook for DestructiveGuard {
    fn guard(call: &ToolCall) -> Guard {
        let Some(bash) = call.bash() else {
            return Guard::Allow;
        };
        let config: Config = match hook_sdk::config() {
            Ok(config) => config,
            // A guard with a broken config blocks rather than guessing.
            Err(error) => {
                return Guard::block(format!("destructive-guard is misconfigured: {error}"));
            }
        };
        match check(&bash.command, &config) {
            Some(reason) => Guard::Block(reason),
            None => Guard::Allow,
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
mod tests {
    use super::*;

    fn blocked(command: &str) -> bool {
        check(command, &Config::default()).is_some()
    }

    #[test]
    fn blocks_destructive_commands_and_their_disguises() {
        let cases = [
            "rm -rf /",
            "RM  -RF /",
            "rm -rf -- /",
            "rm -fr /",
            "rm -r -f /",
            "rm --recursive --force /",
            "rm -rf /*",
            "rm -rf //",
            "rm -rf '/'",
            "rm -rf \"/\"",
            "sudo rm -rf /",
            "sudo -u root /bin/rm -rf /",
            "\\rm -rf /",
            "r\\m -rf /",
            "echo ok && rm -rf ~",
            "ls; rm -rf $HOME",
            "rm -rf ${HOME}",
            "rm -rf ~/",
            "rm -rf .",
            "rm -rf ./",
            "rm -rf *",
            "x=$(rm -rf /)",
            "bash -c 'rm -rf /'",
            "sh -c \"cd / && rm -rf .\"",
            "env FOO=1 rm -rf /",
            "rm -r /",
            "{ rm -rf /; }",
            "rm --no-preserve-root -rf /tmp/x",
            "git push --force",
            "git push -f origin main",
            "git push origin +main",
            "git push --force-with-lease",
            "git -C repo push -fu origin main",
            "GIT PUSH --FORCE",
            "git reset --hard origin/main",
            "git reset --hard @{u}",
            "git reset --hard upstream/dev",
            "git clean -fd",
            "git clean -xdf",
            "git clean --force",
            "kubectl delete namespace prod",
            "kubectl delete ns prod",
            "kubectl -n x delete pods --all",
            "kubectl delete namespaces/prod",
            "mkfs.ext4 /dev/sda1",
            "mkfs -t ext4 /dev/sdb",
            "dd if=/dev/zero of=/dev/sda bs=1M",
            "chmod -R 777 /",
            "sudo chmod --recursive 0777 /",
            "psql -c 'DROP TABLE users'",
            "mysql -e \"drop   table accounts\"",
            "echo 'DROP DATABASE prod' | psql",
        ];
        for command in cases {
            assert!(blocked(command), "not blocked: {command}");
        }
    }

    #[test]
    fn allows_everyday_commands() {
        let cases = [
            "cargo test",
            "rm -rf target",
            "rm -rf ./build",
            "rm file.txt",
            "rm -f /tmp/x.lock",
            "ls -la /",
            "git push",
            "git push origin main",
            "git push --set-upstream origin feature",
            "git reset --hard HEAD~1",
            "git reset --soft origin/main",
            "git clean -n",
            "git clean -nd",
            "kubectl get ns",
            "kubectl delete pod web-1",
            "dd if=/dev/zero of=disk.img bs=1M count=10",
            "chmod -R 755 src",
            "chmod 777 /tmp/x",
            "echo rm",
            "grep -r 'drop' src",
            "mkdir -p a/b",
        ];
        for command in cases {
            assert!(
                !blocked(command),
                "blocked: {command} ({:?})",
                check(command, &Config::default())
            );
        }
    }

    #[test]
    fn reasons_name_what_was_found() {
        let reason = |command: &str| check(command, &Config::default()).unwrap();
        assert_eq!(reason("rm -rf -- /"), "recursive delete of / (rm -r)");
        assert_eq!(
            reason("git push -f"),
            "force push rewrites shared history (git push --force)"
        );
        assert_eq!(
            reason("kubectl delete ns x"),
            "kubectl delete namespace deletes everything in it"
        );
    }

    #[test]
    fn config_adds_patterns_after_normalisation() {
        let config = Config {
            deny: vec!["Terraform   Destroy".to_string()],
        };
        assert_eq!(
            check("TERRAFORM destroy -auto-approve", &config).as_deref(),
            Some("command matches the deny pattern \"terraform destroy\"")
        );
        assert!(check("terraform plan", &config).is_none());
    }

    #[test]
    fn the_hook_reads_bash_calls_only_and_fails_closed_on_bad_config() {
        hook_sdk::testing::reset();
        assert_eq!(
            DestructiveGuard::guard(&ToolCall::read_file("/")),
            Guard::Allow
        );
        assert!(matches!(
            DestructiveGuard::guard(&ToolCall::bash_command("rm -rf /")),
            Guard::Block(_)
        ));
        hook_sdk::testing::set_config(serde_json::json!({"deny": "not a list"}));
        let Guard::Block(reason) = DestructiveGuard::guard(&ToolCall::bash_command("ls")) else {
            panic!()
        };
        assert!(
            reason.starts_with("destructive-guard is misconfigured"),
            "{reason}"
        );
    }
}
