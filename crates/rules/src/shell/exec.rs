//! What a deny or ask rule also looks past (Claude Code 2.1.332: its `Jlt` and `Xqs`
//! functions): leading assignments, `time`, `nohup`, `timeout` and `nice`, and the exec wrappers
//! that run their arguments as a command, with their options that take a value, so that
//! `sudo -u root rm -rf /` is `rm -rf /` to `Bash(rm *)` in deny. An allow rule never looks
//! past these (`Bash(rm *)` in allow does not approve `sudo rm -rf /`).

use super::strip::basename;

/// Exec wrappers and their options that take a value.
#[rustfmt::skip]
const EXEC_WRAPPERS: &[(&str, &[&str])] = &[
    ("env", &["-u", "-C", "--unset", "--chdir"]),
    ("sudo", &["-u", "-g", "-U", "-C", "-D", "-h", "-p", "-r", "-R", "-t", "-T", "--user", "--group",
        "--other-user", "--close-from", "--chdir", "--host", "--prompt", "--role", "--chroot", "--type",
        "--command-timeout", "-a", "--auth-type"]),
    ("doas", &["-a", "-u", "-C"]),
    ("pkexec", &["--user"]),
    ("watch", &["-n", "--interval", "--equexit"]),
    ("ionice", &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid", "--pgid", "--uid"]),
    ("setsid", &[]),
    ("taskset", &["-c", "--cpu-list"]),
    ("chrt", &["-p", "--pid", "-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"]),
    ("strace", &["-e", "-o", "-p", "-s", "-E", "-P", "-S", "-a", "-b", "-I", "-u", "-X", "-O", "-U",
        "--output", "--trace", "--expr", "--attach", "--string-limit", "--env", "--trace-path",
        "--columns", "--user", "--interruptible", "--detach-on", "--const-print-style",
        "--summary-sort-by", "--summary-syscall-overhead", "--summary-columns"]),
    ("ltrace", &["-a", "-A", "-e", "-l", "-n", "-o", "-p", "-s", "-u", "-x", "-D", "-F", "--align",
        "--config", "--debug", "--indent", "--library", "--output", "--string-max", "-w", "--where"]),
    ("flock", &["-w", "-E", "--timeout", "--wait", "--conflict-exit-code"]),
    ("script", &["-E", "-T", "-m", "-o", "-O", "-B", "-I", "--echo", "--log-timing", "--logging-format",
        "--output-limit", "--log-out", "--log-io", "--log-in"]),
    ("unshare", &["-R", "-w", "-S", "-G", "--setuid", "--setgid", "--root", "--wd", "--propagation",
        "--setgroups", "--monotonic", "--boottime"]),
    ("nsenter", &["-t", "-S", "-G", "--target", "--setuid", "--setgid"]),
    ("sandbox-exec", &["-f", "-n", "-p", "-D"]),
    ("exec", &["-a"]),
    ("command", &[]),
    ("builtin", &[]),
    ("noglob", &[]),
    ("nocorrect", &[]),
];

/// Options whose value is itself a command line (`env -S "rm -rf /"`, `flock -c CMD`).
const COMMAND_OPTIONS: &[(&str, &[&str])] = &[
    ("env", &["-S", "--split-string"]),
    ("flock", &["-c", "--command"]),
    ("script", &["-c", "--command"]),
];

fn is_assignment(word: &str) -> bool {
    let name_end = word.find(['=', '+']).unwrap_or(0);
    name_end > 0
        && word[..name_end].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && word[..name_end]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && (word[name_end..].starts_with('=') || word[name_end..].starts_with("+="))
}

/// Whether `exec_wrappers` could take anything off an argv starting with `first`.
pub(crate) fn wraps(first: &str) -> bool {
    let program = basename(first);
    is_assignment(first)
        || ["time", "nohup", "timeout", "nice"].contains(&program)
        || EXEC_WRAPPERS.iter().any(|(name, _)| *name == program)
}

/// The argv with assignments, `time`/`nohup`/`timeout`/`nice` and exec wrappers taken off
/// (deny and ask rules).
pub(crate) fn exec_wrappers(argv: &[String]) -> Vec<String> {
    let mut argv = argv.to_vec();
    for _ in 0..16 {
        while argv.first().is_some_and(|word| is_assignment(word)) {
            argv.remove(0);
        }
        argv = simple_wrappers(argv);
        let Some(program) = argv.first().map(|word| basename(word).to_string()) else {
            return argv;
        };
        let Some((_, valued)) = EXEC_WRAPPERS.iter().find(|(name, _)| *name == program) else {
            return argv;
        };
        let command_options = COMMAND_OPTIONS
            .iter()
            .find(|(name, _)| *name == program)
            .map(|(_, options)| *options);
        let positional = |word: &str| match program.as_str() {
            "chrt" => word.chars().all(|c| c.is_ascii_digit()) && !word.is_empty(),
            "taskset" => {
                !word.is_empty()
                    && (word.chars().all(|c| c.is_ascii_digit()) || word.starts_with("0x"))
            }
            "flock" | "script" => true,
            _ => false,
        };
        let mut at = 1;
        let mut took_positional = false;
        let mut inner = None;
        while at < argv.len() {
            let word = argv[at].as_str();
            if word == "--" {
                at += 1;
                if !took_positional && at + 1 < argv.len() && positional(&argv[at]) {
                    at += 1;
                }
                break;
            }
            if let Some(options) = command_options {
                let (name, glued) = word
                    .split_once('=')
                    .map_or((word, None), |(n, v)| (n, Some(v)));
                if options.contains(&name) {
                    match glued
                        .or(argv.get(at + 1).map(String::as_str))
                        .map(str::trim)
                    {
                        Some(value) if !value.is_empty() => {
                            inner = Some(value.to_string());
                            break;
                        }
                        _ => {}
                    }
                }
            }
            if word.starts_with('-') && word != "-" {
                if program == "command" && matches!(word, "-v" | "-V") {
                    return argv;
                }
                at += if valued.contains(&word) && at + 1 < argv.len() {
                    2
                } else {
                    1
                };
                continue;
            }
            if program == "env" && is_assignment(word) {
                at += 1;
                continue;
            }
            if !took_positional && positional(word) && at + 1 < argv.len() {
                took_positional = true;
                at += 1;
                continue;
            }
            break;
        }
        if let Some(inner) = inner {
            argv = inner.split_whitespace().map(str::to_string).collect();
            continue;
        }
        if at >= argv.len() {
            return argv;
        }
        argv.drain(..at);
    }
    argv
}

/// `time [-p]`, `nohup`, `timeout [options] DURATION` and `nice -n N` at the front.
fn simple_wrappers(mut argv: Vec<String>) -> Vec<String> {
    loop {
        let program = argv
            .first()
            .map(|word| basename(word).to_string())
            .unwrap_or_default();
        let arg = |i: usize| argv.get(i).map(String::as_str);
        let skip = match program.as_str() {
            "time" | "nohup" => {
                let at = if program == "time" && arg(1) == Some("-p") {
                    2
                } else {
                    1
                };
                match arg(at) {
                    Some("--") => at + 1,
                    Some(word) if word.starts_with('-') => return argv,
                    _ => at,
                }
            }
            "timeout" => {
                let mut at = 1;
                while let Some(word) = arg(at) {
                    if matches!(
                        word,
                        "--foreground" | "--preserve-status" | "--verbose" | "-v"
                    ) || word.starts_with("--kill-after=")
                        || word.starts_with("--signal=")
                        || (word.len() > 2
                            && (word.starts_with("-k") || word.starts_with("-s"))
                            && !word.starts_with("--"))
                    {
                        at += 1;
                    } else if matches!(word, "--kill-after" | "--signal" | "-k" | "-s")
                        && arg(at + 1).is_some()
                    {
                        at += 2;
                    } else if word == "--" {
                        at += 1;
                        break;
                    } else if word.starts_with('-') {
                        return argv;
                    } else {
                        break;
                    }
                }
                let duration = arg(at).unwrap_or_default();
                let digits = duration.trim_end_matches(['s', 'm', 'h', 'd']);
                if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit() || c == '.') {
                    return argv;
                }
                at + 1
            }
            "nice"
                if arg(1) == Some("-n")
                    && arg(2).is_some_and(|n| {
                        n.trim_start_matches('-')
                            .chars()
                            .all(|c| c.is_ascii_digit())
                    }) =>
            {
                if arg(3) == Some("--") {
                    4
                } else {
                    3
                }
            }
            _ => return argv,
        };
        if skip > argv.len() {
            return argv;
        }
        argv.drain(..skip);
    }
}

#[cfg(test)]
mod tests {
    use super::exec_wrappers;

    #[test]
    fn deny_sees_through_exec_wrappers() {
        let words = |text: &str| text.split(' ').map(str::to_string).collect::<Vec<_>>();
        for (argv, expected) in [
            ("sudo -u root rm -rf /", "rm -rf /"),
            ("sudo -- rm x", "rm x"),
            ("env FOO=1 rm x", "rm x"),
            ("env -i rm x", "rm x"),
            ("FOO=1 BAR=2 rm x", "rm x"),
            ("timeout 5 sudo rm x", "rm x"),
            ("taskset 0x3 rm x", "rm x"),
            ("flock /tmp/l rm x", "rm x"),
            ("/usr/bin/sudo rm x", "rm x"),
            ("sudo", "sudo"),
        ] {
            assert_eq!(exec_wrappers(&words(argv)).join(" "), expected, "{argv}");
        }
    }
}
