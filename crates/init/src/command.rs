//! The command line of hookhost's entries, and how init recognises hookhost in a command
//! someone else wrote (`hookhost agent-hook ...`, `hookhost-client ...`, under any directory,
//! behind `VAR=value` assignments), so that entries written by hand are taken over, not doubled.

use crate::agents::{AgentEvent, AgentSpec};
use crate::options::Options;

/// Whether `command` runs hookhost as an agent's hook: `hookhost agent-hook ...` or
/// `hookhost-client ...`, the program under any directory, after any `VAR=value`
/// assignments (or `env`, `exec`).
pub fn is_hookhost_command(command: &str) -> bool {
    let mut words = shell_words(command).into_iter().skip_while(|word| {
        word == "env"
            || word == "exec"
            || word.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
            })
    });
    let Some(program) = words.next() else {
        return false;
    };
    match program.rsplit('/').next() {
        Some("hookhost-client") => true,
        Some("hookhost") => words.next().as_deref() == Some("agent-hook"),
        _ => false,
    }
}

/// `command` split as a shell would split simple words: whitespace separates, quotes group
/// (enough to find the program and its first argument).
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => word.extend(chars.next()),
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                word.extend(chars.next());
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// `word` as one shell word: as it is when it has nothing a shell would read, else in single
/// quotes.
pub(crate) fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./+:@%=,".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The command line hookhost's entry on `event` runs.
pub(crate) fn command_line(spec: &AgentSpec, event: &AgentEvent, options: &Options) -> String {
    let mut line = if options.use_client {
        format!("{} --format {}", shell_quote(&options.client()), spec.name)
    } else {
        format!(
            "{} agent-hook --format {}",
            shell_quote(&options.hookhost),
            spec.name
        )
    };
    if spec.event_flag {
        line.push_str(" --event ");
        line.push_str(event.name);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hookhost_commands_are_recognised() {
        // (command, runs hookhost)
        let cases: &[(&str, bool)] = &[
            ("hookhost agent-hook --format claude", true),
            (
                "/usr/local/bin/hookhost agent-hook --format copilot --event preToolUse",
                true,
            ),
            ("'/opt/my tools/hookhost' agent-hook --format gemini", true),
            ("hookhost-client --format codex", true),
            (
                "HOOKHOST_DAEMON=on hookhost agent-hook --format cursor",
                true,
            ),
            ("env HOOKHOST_BIN=/x hookhost-client --format claude", true),
            ("hookhost check", false),
            ("hookhost fire PreToolUse", false),
            ("echo hookhost agent-hook", false),
            ("./guard.sh", false),
            ("", false),
        ];
        for (command, expected) in cases {
            assert_eq!(is_hookhost_command(command), *expected, "{command:?}");
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/usr/bin/hookhost"), "/usr/bin/hookhost");
        assert_eq!(
            shell_quote("/opt/my tools/hookhost"),
            "'/opt/my tools/hookhost'"
        );
        assert_eq!(shell_quote("/it's/hookhost"), "'/it'\\''s/hookhost'");
        for path in ["/opt/my tools/hookhost", "/it's/hookhost", "$HOME/hookhost"] {
            let line = format!("{} agent-hook", shell_quote(path));
            assert_eq!(
                shell_words(&line),
                vec![path.to_string(), "agent-hook".to_string()]
            );
            assert!(is_hookhost_command(&line));
        }
    }
}
