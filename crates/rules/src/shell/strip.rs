//! What Claude Code takes off a command before matching rules (2.1.332: its `jR`, `Jlt`,
//! `Xqs` and `bVe` functions; the permissions page, "Wrappers").
//!
//! For every rule: a leading assignment of a variable known to be safe (`NODE_ENV=test`, the
//! list below, with a plain value), then the wrappers `timeout`, `time`, `nice`, `nohup`,
//! `stdbuf`, `command`, `builtin` and `noglob` with their options. Quotes around the first
//! word go too (`"git" push` is `git push`).
//!
//! For deny and ask rules also: any leading assignment, the basename of the program
//! (`/bin/rm` is `rm`), and (`exec`) the exec wrappers that run their arguments as a command:
//! `sudo`, `env`, `doas`, `pkexec`, `watch`, `ionice`, `setsid`, `taskset`, `chrt`, `strace`,
//! `ltrace`, `flock`, `script`, `unshare`, `nsenter`, `sandbox-exec`, `exec`.

use std::borrow::Cow;
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
pub(crate) fn common(text: &str) -> Cow<'_, str> {
    let first = text.split([' ', '\t']).next().unwrap_or_default();
    if !first.contains(['=', '\'', '"', '\\'])
        && !WRAPPER_WORDS.iter().any(|word| text.starts_with(word))
    {
        return Cow::Borrowed(text.trim());
    }
    let [assignment, ..] = regexes();
    let mut text = text.to_string();
    while let Some(found) = assigns(&text).then(|| assignment.captures(&text)).flatten() {
        if !safe_assignment(&found[1], &found[2]) {
            break;
        }
        text = text[found[0].len()..].to_string();
    }
    text = unquote_first(&text);
    loop {
        let before = text.clone();
        for (wrapper, not_option) in wrappers() {
            if !WRAPPER_WORDS.iter().any(|word| text.starts_with(word)) {
                break;
            }
            if let Some(found) = wrapper.find(&text)
                && !(*not_option && text[found.end()..].starts_with('-'))
            {
                text = text[found.end()..].to_string();
            }
        }
        if text == before {
            return Cow::Owned(text.trim().to_string());
        }
        text = unquote_first(&text);
    }
}

/// The words the wrappers start with: a cheap test before their regexes.
const WRAPPER_WORDS: &[&str] = &[
    "timeout", "time", "nice", "stdbuf", "nohup", "command", "builtin", "noglob",
];

/// Whether the first word could be an assignment (`NAME=`).
fn assigns(text: &str) -> bool {
    text.split([' ', '\t'])
        .next()
        .is_some_and(|word| word.contains('='))
}

/// The command with every leading assignment taken off (deny and ask rules).
pub(crate) fn assignments(text: &str) -> &str {
    let [.., any_assignment] = regexes();
    let mut text = text;
    while let Some(found) = assigns(text).then(|| any_assignment.find(text)).flatten() {
        text = &text[found.end()..];
    }
    text.trim()
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
        assert_eq!(assignments("A=1 B='x y' rm -rf /"), "rm -rf /");
    }
}
