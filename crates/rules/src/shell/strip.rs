//! What Claude Code takes off a command before matching rules (2.1.332: its `jR`, `Jlt`,
//! `Xqs` and `bVe` functions; the permissions page, "Wrappers").
//!
//! For every rule: a leading assignment of a variable known to be safe (`NODE_ENV=test`, the
//! list below, with a plain value), then the wrappers `timeout`, `time`, `nice`, `nohup`,
//! `stdbuf`, `command`, `builtin` and `noglob` with their options. Quotes around the first
//! word go too (`"git" push` is `git push`).
//!
//! For deny and ask rules also: any leading assignment, the basename of the program
//! (`/bin/rm` is `rm`), and the exec wrappers that run their arguments as a command: `sudo`,
//! `env`, `doas`, `pkexec`, `watch`, `ionice`, `setsid`, `taskset`, `chrt`, `strace`,
//! `ltrace`, `flock`, `script`, `unshare`, `nsenter`, `sandbox-exec`, `exec` (with the options
//! that take a value, so `sudo -u root rm -rf /` is `rm -rf /`). An allow rule never sees
//! through these: `Bash(rm *)` in allow does not approve `sudo rm -rf /`.

use std::sync::OnceLock;

use regex::Regex;

/// Variables whose leading assignment an allow rule may look past (Claude Code 2.1.332).
const SAFE_VARIABLES: &[&str] = &[
    "GOEXPERIMENT",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "GO111MODULE",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "NODE_ENV",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    "PYTEST_DEBUG",
    "ANTHROPIC_API_KEY",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_TIME",
    "CHARSET",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TZ",
    "LS_COLORS",
    "LSCOLORS",
    "GREP_COLOR",
    "GREP_COLORS",
    "GCC_COLORS",
    "TIME_STYLE",
    "BLOCK_SIZE",
    "BLOCKSIZE",
    "COLUMNS",
    "LINES",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "CI",
    "DEBIAN_FRONTEND",
    "GIT_TERMINAL_PROMPT",
];

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

fn regexes() -> &'static [Regex; 4] {
    static REGEXES: OnceLock<[Regex; 4]> = OnceLock::new();
    REGEXES.get_or_init(|| {
        let compile = |pattern: &str| Regex::new(pattern).expect("a fixed pattern");
        [
            compile(r"^([A-Za-z_][A-Za-z0-9_]*)=([A-Za-z0-9_./:-]+)[ \t]+"),
            compile(r"^(?i:C|POSIX|UTF-?8|[\w-]+\.UTF-?8(@\w+)?)$"),
            compile(r"^[.~]*[/\\]|[/\\][/\\]|:[/\\.]|(?:^|[/\\])\.\.(?:[/\\]|$)"),
            compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=(?:'[^'\n\r]*'|\x22(?:\\.|[^\x22$`\\\n\r])*\x22|\\.|[^ \t\n\r$`;|&()<>\\'\x22])*[ \t]+"),
        ]
    })
}

/// The wrappers every rule looks past; `command`, `builtin` and `noglob` only when what follows
/// is not an option (`command -v` looks a name up).
fn wrappers() -> &'static [(Regex, bool); 8] {
    static WRAPPERS: OnceLock<[(Regex, bool); 8]> = OnceLock::new();
    WRAPPERS.get_or_init(|| {
        let compile = |pattern: &str, not_option: bool| (Regex::new(pattern).expect("a fixed pattern"), not_option);
        [
            compile(r"^timeout[ \t]+(?:(?:--(?:foreground|preserve-status|verbose)|--(?:kill-after|signal)=[A-Za-z0-9_.+-]+|--(?:kill-after|signal)[ \t]+[A-Za-z0-9_.+-]+|-v|-[ks][ \t]+[A-Za-z0-9_.+-]+|-[ks][A-Za-z0-9_.+-]+)[ \t]+)*(?:--[ \t]+)?\d+(?:\.\d+)?[smhd]?[ \t]+", false),
            compile(r"^time[ \t]+(?:--[ \t]+)?", false),
            compile(r"^nice(?:[ \t]+-n[ \t]+-?\d+|[ \t]+-\d+)?[ \t]+(?:--[ \t]+)?", false),
            compile(r"^stdbuf(?:[ \t]+-[ioe][LN0-9]+)+[ \t]+(?:--[ \t]+)?", false),
            compile(r"^nohup[ \t]+(?:--[ \t]+)?", false),
            compile(r"^command(?:[ \t]+-p+)*(?:[ \t]+--)?[ \t]+", true),
            compile(r"^builtin(?:[ \t]+--)?[ \t]+", true),
            compile(r"^noglob[ \t]+", true),
        ]
    })
}

/// Whether `NAME=value` before a command is one an allow rule may look past.
fn safe_assignment(name: &str, value: &str) -> bool {
    let [_, locale, path_like, _] = regexes();
    if !SAFE_VARIABLES.contains(&name) || path_like.is_match(value) {
        return false;
    }
    !matches!(name, "LANG" | "LC_ALL" | "LC_CTYPE") || locale.is_match(value)
}

/// The command with safe assignments, first-word quotes and wrappers taken off (every rule).
pub(crate) fn common(text: &str) -> String {
    let [assignment, ..] = regexes();
    let mut text = text.to_string();
    while let Some(found) = assignment.captures(&text) {
        if !safe_assignment(&found[1], &found[2]) {
            break;
        }
        text = text[found[0].len()..].to_string();
    }
    text = unquote_first(&text);
    loop {
        let before = text.clone();
        for (wrapper, not_option) in wrappers() {
            if let Some(found) = wrapper.find(&text)
                && !(*not_option && text[found.end()..].starts_with('-'))
            {
                text = text[found.end()..].to_string();
            }
        }
        if text == before {
            return text.trim().to_string();
        }
        text = unquote_first(&text);
    }
}

/// The command with every leading assignment taken off (deny and ask rules).
pub(crate) fn assignments(text: &str) -> String {
    let [.., any_assignment] = regexes();
    let mut text = text;
    while let Some(found) = any_assignment.find(text) {
        text = &text[found.end()..];
    }
    text.trim().to_string()
}

/// The first word without its quotes and escapes, when they are balanced.
fn unquote_first(text: &str) -> String {
    let (first, rest) = text.split_at(text.find(char::is_whitespace).unwrap_or(text.len()));
    let mut out = String::new();
    let mut quote = None;
    let mut chars = first.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), c) => out.push(c),
            (Some(_), '\\') => match chars.next() {
                Some(next) if "$`\"\\".contains(next) => out.push(next),
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => return text.to_string(),
            },
            (None, '\\') => match chars.next() {
                Some(next) => out.push(next),
                None => return text.to_string(),
            },
            (None, '"' | '\'') => quote = Some(c),
            (_, c) => out.push(c),
        }
    }
    if quote.is_some() {
        return text.to_string();
    }
    out + rest
}

/// A program's name as a rule names it: no directory, no `.exe`.
pub(crate) fn basename(program: &str) -> &str {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    name.strip_suffix(".exe")
        .or_else(|| name.strip_suffix(".EXE"))
        .unwrap_or(name)
}

fn is_assignment(word: &str) -> bool {
    let name_end = word.find(['=', '+']).unwrap_or(0);
    name_end > 0
        && word[..name_end].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && word[..name_end]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && (word[name_end..].starts_with('=') || word[name_end..].starts_with("+="))
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
    use super::*;

    #[test]
    fn common_wrappers_and_safe_variables_go() {
        for (text, expected) in [
            ("timeout 30 npm test", "npm test"),
            ("timeout -s KILL 5m npm test", "npm test"),
            ("nice -n 10 nohup make", "make"),
            ("NODE_ENV=test npm test", "npm test"),
            ("FOO=bar npm test", "FOO=bar npm test"),
            ("LANG=en_US.UTF-8 ls", "ls"),
            ("LANG=evil ls", "LANG=evil ls"),
            ("\"git\" push", "git push"),
            ("command -v git", "command -v git"),
            ("command git status", "git status"),
            ("sudo rm -rf /", "sudo rm -rf /"),
        ] {
            assert_eq!(common(text), expected, "{text}");
        }
    }

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
        assert_eq!(assignments("A=1 B='x y' rm -rf /"), "rm -rf /");
    }
}
