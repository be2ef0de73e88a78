//! The file contents a record leaves out whatever the agent calls them (`[log]`
//! `drop_contents`): the fields where each agent's write and edit tools carry the text they
//! write, read from the tool vocabulary's table (hookhost-tools), and the old side of a
//! replacement beside them. Claude Code's `content`, Copilot's `file_text`/`old_str`/`new_str`,
//! Cursor's `contents`, Codex's `apply_patch` body and Gemini's `content`/`new_string` are one
//! rule here, not a list of names per agent.

use hookhost_tools::{Source, ToolKind, ToolSpec, rows};

/// The old side of a replacement, beside a row's content locations (the table lists what a
/// tool writes; what it replaces is file contents too). `edits` holds both sides of each edit.
const OLD_SIDES: &[&str] = &["old_string", "old_str", "edits"];

/// Where a call of one tool carries file contents: its write and edit rows of the table,
/// looked up once per record (not once per field).
pub(super) struct Contents(Vec<&'static ToolSpec>);

impl Contents {
    /// The rows of `tool` (a tool name: [`Source::Tool`] rows).
    pub(super) fn of_tool(tool: &str) -> Contents {
        Contents(
            rows(tool)
                .filter(|spec| spec.source == Source::Tool)
                .collect(),
        )
    }

    /// The rows of `event` (Cursor's file events carry their fields in the payload:
    /// `afterFileEdit`'s `edits`, `beforeReadFile`'s `content`, the file it is about to read).
    pub(super) fn of_event(event: &str) -> Contents {
        Contents(
            rows(event)
                .filter(|spec| spec.source == Source::Event)
                .collect(),
        )
    }

    /// Whether the field `name` holds file contents.
    pub(super) fn holds(&self, name: &str) -> bool {
        self.0.iter().any(|spec| {
            holds_contents(spec, name)
                || (spec.source == Source::Event
                    && spec.kind == ToolKind::Read
                    && name == "content")
        })
    }

    /// Whether an input that is a string, not an object, is itself file contents (Copilot's
    /// freeform `apply_patch`).
    pub(super) fn is_whole_input(&self) -> bool {
        self.0.iter().any(|spec| spec.contents.contains(&""))
    }
}

fn holds_contents(spec: &ToolSpec, name: &str) -> bool {
    spec.kind.changes_files()
        && (OLD_SIDES.contains(&name)
            || spec
                .contents
                .iter()
                .any(|location| location.split('.').next() == Some(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agents_write_and_edit_fields_are_contents_and_commands_and_paths_are_not() {
        for (tool, name) in [
            ("Write", "content"),
            ("Edit", "old_string"),
            ("Edit", "new_string"),
            ("MultiEdit", "edits"),
            ("NotebookEdit", "new_source"),
            ("create", "file_text"),
            ("str_replace", "old_str"),
            ("edit", "new_str"),
            ("write_file", "content"),
            ("replace", "old_string"),
            ("apply_patch", "command"),
            ("apply_patch", "input"),
        ] {
            assert!(
                Contents::of_tool(tool).holds(name),
                "{tool}.{name} is file contents"
            );
        }
        for (tool, name) in [
            ("Write", "file_path"),
            ("create", "path"),
            ("Bash", "command"),
            ("bash", "command"),
            ("run_shell_command", "command"),
            ("Read", "file_path"),
            ("WebFetch", "url"),
        ] {
            assert!(
                !Contents::of_tool(tool).holds(name),
                "{tool}.{name} is kept"
            );
        }
        assert!(Contents::of_tool("apply_patch").is_whole_input());
        assert!(!Contents::of_tool("Bash").is_whole_input());
        assert!(Contents::of_event("afterFileEdit").holds("edits"));
        assert!(Contents::of_event("beforeReadFile").holds("content"));
        assert!(!Contents::of_event("beforeReadFile").holds("file_path"));
        assert!(!Contents::of_event("beforeShellExecution").holds("command"));
    }
}
