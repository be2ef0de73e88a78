//! A rule's text read as Claude Code reads it (2.1.332: its `bD`, `ro` and `Jpe` functions):
//! `Tool` or `Tool(specifier)`, the specifier running from the first unescaped `(` to the last
//! unescaped `)`, which must end the rule; `\(`, `\)` and `\\` inside it are a literal `(`,
//! `)` and `\`; `Tool(*)` is `Tool`, and `Tool()` is an error. Tool names are Claude Code's,
//! legacy ones resolved (`Task` is `Agent`). Every mistake is reported with its 1-based
//! column, in characters, within the rule's text.

use std::fmt;

/// Why a rule's text is not a rule: where (1-based column, in characters, within the text)
/// and what, with a suggestion when one is likely (a misspelt tool name or specifier prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// 1-based column, in characters, within the rule's text.
    pub column: usize,
    /// What is wrong, and how to fix it.
    pub message: String,
    /// The likely intended text, for "did you mean".
    pub suggestion: Option<String>,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)?;
        if let Some(suggestion) = &self.suggestion {
            write!(f, " (did you mean `{suggestion}`?)")?;
        }
        Ok(())
    }
}

impl std::error::Error for RuleError {}

impl RuleError {
    pub(crate) fn at(text: &str, byte: usize, message: impl Into<String>) -> RuleError {
        RuleError {
            column: column(text, byte),
            message: message.into(),
            suggestion: None,
        }
    }

    pub(crate) fn suggest(mut self, suggestion: impl Into<String>) -> RuleError {
        self.suggestion = Some(suggestion.into());
        self
    }
}

/// The 1-based character column of byte offset `byte` in `text`.
pub(crate) fn column(text: &str, byte: usize) -> usize {
    text[..byte.min(text.len())].chars().count() + 1
}

/// A rule's text split: the tool name, and the specifier (unescaped) with the byte offset of
/// its first character in the text.
#[derive(Debug)]
pub(crate) struct Split<'a> {
    pub(crate) tool: &'a str,
    pub(crate) spec: Option<(String, usize)>,
}

/// Splits `text` into tool and specifier.
pub(crate) fn split(text: &str) -> Result<Split<'_>, RuleError> {
    if text.trim().is_empty() {
        return Err(RuleError::at(
            text,
            0,
            "a rule cannot be empty: write a tool name such as `Bash`, or `Bash(npm test)`",
        ));
    }
    if text.starts_with(char::is_whitespace) {
        return Err(RuleError::at(text, 0, "a rule has no spaces around it"));
    }
    let end = text.trim_end().len();
    if end < text.len() {
        return Err(RuleError::at(text, end, "a rule has no spaces around it"));
    }
    let open = unescaped(text, '(').next();
    let close = unescaped(text, ')').last();
    let (open, close) = match (open, close) {
        (None, None) => {
            return Ok(Split {
                tool: text,
                spec: None,
            });
        }
        (None, Some(close)) => {
            return Err(RuleError::at(text, close, "`)` without an opening `(`"));
        }
        (Some(open), None) => {
            return Err(RuleError::at(
                text,
                open,
                "`(` is never closed: a rule is `Tool(specifier)`",
            ));
        }
        (Some(open), Some(close)) if close < open => {
            return Err(RuleError::at(
                text,
                open,
                "`(` is never closed: a rule is `Tool(specifier)`",
            ));
        }
        (Some(open), Some(close)) => (open, close),
    };
    if close + 1 != text.len() {
        return Err(RuleError::at(
            text,
            close + 1,
            "nothing may follow the closing `)`; write a `)` inside the specifier as `\\)`",
        ));
    }
    let tool = &text[..open];
    if tool.is_empty() {
        return Err(RuleError::at(
            text,
            0,
            "the tool name is missing before `(`",
        ));
    }
    if let Some(bad) = tool.find(['(', ')']) {
        return Err(RuleError::at(text, bad, "a tool name has no parentheses"));
    }
    let raw = &text[open + 1..close];
    if raw.is_empty() {
        return Err(RuleError::at(
            text,
            open,
            format!("empty parentheses: write `{tool}` for every call, or `{tool}(specifier)`"),
        )
        .suggest(tool));
    }
    if raw == "*" {
        return Ok(Split { tool, spec: None });
    }
    let spec = raw
        .replace("\\(", "(")
        .replace("\\)", ")")
        .replace("\\\\", "\\");
    Ok(Split {
        tool,
        spec: Some((spec, open + 1)),
    })
}

/// Byte offsets of `wanted` not escaped by an odd run of backslashes.
fn unescaped(text: &str, wanted: char) -> impl DoubleEndedIterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    text.char_indices()
        .filter(move |(at, c)| {
            *c == wanted
                && bytes[..*at]
                    .iter()
                    .rev()
                    .take_while(|b| **b == b'\\')
                    .count()
                    .is_multiple_of(2)
        })
        .map(|(at, _)| at)
}

/// Claude Code's tool names (2.1.332), and the names it still reads in rules.
#[rustfmt::skip]
pub(crate) const CLAUDE_TOOLS: &[&str] = &[
    "Agent", "Artifact", "AskUserQuestion", "Bash", "ClaudeDesign", "CronCreate", "CronDelete",
    "CronList", "Edit", "EndConversation", "EnterPlanMode", "EnterWorktree", "ExitPlanMode",
    "ExitWorktree", "Glob", "Grep", "ListAgents", "ListMcpResourcesTool", "LSP", "Monitor",
    "NotebookEdit", "OfferChromeSetup", "PowerShell", "Projects", "propose_skills",
    "PushNotification", "Read", "ReadMcpResourceDirTool", "ReadMcpResourceTool",
    "ReadNotifications", "RemoteTrigger", "ReportFindings", "ScheduleWakeup", "SendFeedback",
    "SendMessage", "SendUserFile", "SendUserMessage", "SetGoal", "ShareOnboardingGuide",
    "ShowOnboardingRolePicker", "Skill", "SubagentHandback", "TaskCreate", "TaskGet", "TaskList",
    "TaskStop", "TaskUpdate", "TodoWrite", "ToolSearch", "WaitForMcpServers", "WebFetch",
    "WebSearch", "Workflow", "Write",
    // Earlier releases' tools, still read in rules.
    "MultiEdit", "NotebookRead", "LS", "Cd", "BashOutput",
];

/// Earlier names Claude Code resolves to current ones.
pub(crate) const LEGACY: &[(&str, &str)] = &[
    ("Task", "Agent"),
    ("KillShell", "TaskStop"),
    ("KillBash", "TaskStop"),
    ("ListPeers", "ListAgents"),
    ("Brief", "SendUserMessage"),
    ("ListMcpResources", "ListMcpResourcesTool"),
    ("ReadMcpResource", "ReadMcpResourceTool"),
    ("ReadMcpResourceDir", "ReadMcpResourceDirTool"),
    ("ProposeGoal", "SetGoal"),
];

/// Other agents' names for tools a Claude Code rule already covers.
#[rustfmt::skip]
const OTHER_AGENTS: &[(&str, &str, &str)] = &[
    ("bash", "Bash", "Copilot CLI"), ("write_bash", "Bash", "Copilot CLI"),
    ("run_shell_command", "Bash", "Gemini CLI"), ("Shell", "Bash", "Cursor"),
    ("shell", "Bash", "Codex CLI"), ("local_shell", "Bash", "Codex CLI"),
    ("shell_command", "Bash", "Codex CLI"), ("exec_command", "Bash", "Codex CLI"),
    ("powershell", "PowerShell", "Copilot CLI"), ("view", "Read", "Copilot CLI"),
    ("read_file", "Read", "Gemini CLI"), ("read_many_files", "Read", "Gemini CLI"),
    ("grep", "Grep", "Copilot CLI"), ("rg", "Grep", "Copilot CLI"), ("glob", "Glob", "Copilot CLI"),
    ("grep_search", "Grep", "Gemini CLI"), ("search_file_content", "Grep", "Gemini CLI"),
    ("list_directory", "LS", "Gemini CLI"), ("edit", "Edit", "Copilot CLI"),
    ("str_replace", "Edit", "Copilot CLI"), ("str_replace_editor", "Edit", "Copilot CLI"),
    ("apply_patch", "Edit", "Codex CLI"), ("replace", "Edit", "Gemini CLI"),
    ("StrReplace", "Edit", "Cursor"), ("create", "Write", "Copilot CLI"),
    ("write_file", "Write", "Gemini CLI"), ("web_fetch", "WebFetch", "Gemini CLI"),
    ("web_search", "WebSearch", "Copilot CLI"), ("google_web_search", "WebSearch", "Gemini CLI"),
];

/// The canonical name of a tool named in a rule (legacy names resolved), or why it is not one.
pub(crate) fn tool_name<'a>(text: &str, tool: &'a str) -> Result<&'a str, RuleError> {
    if let Some((_, current)) = LEGACY.iter().find(|(old, _)| *old == tool) {
        return Ok(current);
    }
    if CLAUDE_TOOLS.contains(&tool) || tool.starts_with("mcp__") || tool.contains('*') {
        return Ok(tool);
    }
    if let Some((_, claude, agent)) = OTHER_AGENTS.iter().find(|(name, ..)| *name == tool) {
        return Err(RuleError::at(
            text,
            0,
            format!("`{tool}` is {agent}'s name for Claude Code's `{claude}`: rules use Claude Code's names, and `{claude}` rules hold for every agent's equivalent"),
        )
        .suggest(renamed(text, tool, claude)));
    }
    if let Some(known) = closest(tool) {
        return Err(RuleError::at(text, 0, format!("unknown tool `{tool}`"))
            .suggest(renamed(text, tool, known)));
    }
    Ok(tool)
}

fn renamed(text: &str, tool: &str, to: &str) -> String {
    format!("{to}{}", &text[tool.len()..])
}

/// The known tool name `name` most likely misspells (case, or one or two letters off).
fn closest(name: &str) -> Option<&'static str> {
    let lower = name.to_lowercase();
    let limit = if name.chars().count() <= 5 { 1 } else { 2 };
    CLAUDE_TOOLS
        .iter()
        .chain(LEGACY.iter().map(|(old, _)| old))
        .map(|known| (distance(&lower, &known.to_lowercase()), *known))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, known)| known)
}

/// Levenshtein distance, in characters.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// A `key:value` specifier (Claude Code's parameter rules, deny and ask only): the key must
/// look like an input field's name.
pub(crate) fn param(spec: &str) -> Option<(String, String)> {
    let (key, value) = spec.split_once(':')?;
    let (key, value) = (key.trim(), value.trim());
    let identifier = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (identifier && !value.is_empty()).then(|| (key.to_string(), value.to_string()))
}

/// A specifier read as a parameter rule: `key:value` on a field that is not the tool's own
/// (Claude Code ignores `Bash(command:...)` and its like, which hookhost refuses).
pub(crate) fn param_rule(spec: &str) -> Option<(String, String)> {
    param(spec).filter(|(key, _)| {
        !["command", "file_path", "path", "notebook_path", "url"].contains(&key.as_str())
    })
}

#[cfg(test)]
mod tests {
    use super::{distance, split};

    #[test]
    fn specifiers_run_to_the_last_unescaped_parenthesis() {
        let spec = |text: &str| split(text).unwrap().spec;
        assert_eq!(spec("Bash"), None);
        assert_eq!(spec("Bash(*)"), None);
        assert_eq!(spec("Bash(echo (a))"), Some(("echo (a)".into(), 5)));
        assert_eq!(spec(r"Bash(echo \(a\))"), Some(("echo (a)".into(), 5)));
        assert_eq!(spec(r"Read(C:\\x)"), Some((r"C:\x".into(), 5)));
        assert_eq!(distance("webfetch", "webfetch"), 0);
        assert_eq!(distance("reed", "read"), 1);
    }
}
