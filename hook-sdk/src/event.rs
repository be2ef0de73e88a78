//! What a hook receives and what it answers.

use serde::de::DeserializeOwned;
use serde_json::Value;

use hookhost_tools::{McpName, ToolKind, ToolView};

use crate::tools::{BashInput, EditInput, GlobInput, GrepInput, ReadInput, ShellInput};

/// A tool call, as PreToolUse and PostToolUse hooks see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The agent's own name for the tool, for example `Bash`, `bash`, `run_shell_command` or
    /// `Shell` ([`ToolCall::kind`] says what it does, whatever the agent).
    pub tool: String,
    /// The tool's input (any JSON; see the typed views such as [`ToolCall::bash`]).
    pub input: Value,
    /// The agent's batch counter: every tool of one model response sees the same value.
    pub tool_iterations: u64,
    /// The agent's working directory, absolute: the workspace root.
    pub cwd: String,
}

impl ToolCall {
    /// A call of `tool` with `input`, in `/workspace`, at iteration 1: for tests.
    pub fn new(tool: impl Into<String>, input: Value) -> ToolCall {
        ToolCall {
            tool: tool.into(),
            input,
            tool_iterations: 1,
            cwd: "/workspace".to_string(),
        }
    }

    /// A `Bash` call of `command`: for tests.
    pub fn bash_command(command: &str) -> ToolCall {
        ToolCall::new("Bash", serde_json::json!({ "command": command }))
    }

    /// An `Edit` call replacing `old_str` with `new_str` in `file_path`: for tests.
    pub fn edit_file(file_path: &str, old_str: &str, new_str: &str) -> ToolCall {
        ToolCall::new(
            "Edit",
            serde_json::json!({ "file_path": file_path, "old_str": old_str, "new_str": new_str }),
        )
    }

    /// A `Read` call of `file_path`: for tests.
    pub fn read_file(file_path: &str) -> ToolCall {
        ToolCall::new("Read", serde_json::json!({ "file_path": file_path }))
    }

    /// The same call in another working directory.
    pub fn with_cwd(mut self, cwd: impl Into<String>) -> ToolCall {
        self.cwd = cwd.into();
        self
    }

    /// The same call at another iteration.
    pub fn with_iterations(mut self, tool_iterations: u64) -> ToolCall {
        self.tool_iterations = tool_iterations;
        self
    }

    /// What the tool does, whatever the agent calls it: `Bash`, `bash`, `run_shell_command` and
    /// `Shell` are all [`ToolKind::Shell`]; a tool no agent's table names is
    /// [`ToolKind::Other`] (its name stays in [`ToolCall::tool`]). See hookhost-tools for the
    /// table and the release of each agent it was checked against.
    pub fn kind(&self) -> ToolKind {
        hookhost_tools::kind(&self.tool)
    }

    /// The call through the vocabulary, borrowed from it: kind, command, paths, contents, URLs,
    /// patterns, MCP server and tool.
    pub fn view(&self) -> ToolView<'_> {
        hookhost_tools::view(&self.tool, &self.input)
    }

    /// The command line of any agent's shell tool (Claude Code's `Bash` and `PowerShell`,
    /// Copilot CLI's `bash`, Gemini CLI's `run_shell_command`, Codex CLI's `Bash` whose
    /// command may be an argv, Cursor's `Shell`, ...), or `None` for other tools. The guard a
    /// policy means to hold under every agent reads this, not [`ToolCall::bash`].
    pub fn shell(&self) -> Option<ShellInput> {
        if self.kind() != ToolKind::Shell {
            return None;
        }
        let command = self.view().command?.into_owned();
        let description = self
            .input
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string);
        Some(ShellInput {
            command,
            description,
        })
    }

    /// The files and directories the call reads, writes or searches, as the input gives them
    /// (relative or absolute: resolve them with [`crate::path::normalize`]); a patch's files
    /// included.
    pub fn paths(&self) -> Vec<String> {
        owned(self.view().paths)
    }

    /// The text the call writes: a file's whole content, the new side of a replacement, a
    /// patch.
    pub fn contents(&self) -> Vec<String> {
        owned(self.view().contents)
    }

    /// The URLs (or domains) the call reaches.
    pub fn urls(&self) -> Vec<String> {
        owned(self.view().urls)
    }

    /// The MCP server and tool, for an MCP tool named after them (`mcp__github__get_issue`,
    /// `mcp_github_get_issue`, `MCP:get_issue`, Copilot's `github-get_issue`).
    pub fn mcp(&self) -> Option<McpName<'_>> {
        hookhost_tools::mcp_name(&self.tool)
    }

    /// The input deserialized into `T`, or `None` when it does not fit.
    pub fn input_as<T: DeserializeOwned>(&self) -> Option<T> {
        // From a borrowed `Value`: no copy of the input is made to be consumed.
        T::deserialize(&self.input).ok()
    }

    /// The input of a call of the tool named `Bash`: Claude Code's name (and Codex's,
    /// forgeflare's) only, so a policy built on it does not hold under Copilot CLI (`bash`),
    /// Gemini CLI (`run_shell_command`) or Cursor (`Shell`). Kept for compatibility: use
    /// [`ToolCall::shell`].
    pub fn bash(&self) -> Option<BashInput> {
        self.typed("Bash")
    }

    /// The input of a call of the tool named `Read` (Claude Code's name; [`ToolCall::kind`]
    /// and [`ToolCall::paths`] see every agent's reads).
    pub fn read(&self) -> Option<ReadInput> {
        self.typed("Read")
    }

    /// The input of a call of the tool named `Edit` (Claude Code's name; [`ToolCall::kind`],
    /// [`ToolCall::paths`] and [`ToolCall::contents`] see every agent's edits).
    pub fn edit(&self) -> Option<EditInput> {
        self.typed("Edit")
    }

    /// The input of a `Glob` call.
    pub fn glob(&self) -> Option<GlobInput> {
        self.typed("Glob")
    }

    /// The input of a `Grep` call.
    pub fn grep(&self) -> Option<GrepInput> {
        self.typed("Grep")
    }

    fn typed<T: DeserializeOwned>(&self, tool: &str) -> Option<T> {
        if self.tool == tool {
            self.input_as()
        } else {
            None
        }
    }
}

fn owned(values: Vec<std::borrow::Cow<'_, str>>) -> Vec<String> {
    values.into_iter().map(|value| value.into_owned()).collect()
}

/// A guard's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Guard {
    /// Let the tool run.
    Allow,
    /// Do not run it; the model sees `blocked by {hook}: {reason}`.
    Block(String),
}

impl Guard {
    /// Blocks with `reason`.
    pub fn block(reason: impl Into<String>) -> Guard {
        Guard::Block(reason.into())
    }
}

/// What an observe hook sees: the call and what the guards decided.
#[derive(Debug, Clone, PartialEq)]
pub struct ObserveEvent {
    /// The call.
    pub call: ToolCall,
    /// `Some` when a guard blocked the call (or failed, which blocks by default).
    pub blocked: Option<Blocked>,
}

/// Who blocked a call, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// The hook that blocked.
    pub by: String,
    /// Its reason, or the failure message.
    pub reason: String,
}

/// What a PostToolUse hook sees: a call that ran, and its result.
#[derive(Debug, Clone, PartialEq)]
pub struct PostEvent {
    /// The call.
    pub call: ToolCall,
    /// The result (over 5120 bytes: the first and last 2560 bytes around a marker).
    pub result: String,
    /// True when the tool reported an error.
    pub is_error: bool,
}

impl PostEvent {
    /// A result of `call`: for tests.
    pub fn new(call: ToolCall, result: impl Into<String>, is_error: bool) -> PostEvent {
        PostEvent {
            call,
            result: result.into(),
            is_error,
        }
    }
}

/// A PostToolUse hook's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Post {
    /// Nothing to report.
    Continue,
    /// A signal: the first one of a call ends the agent's inner loop after its batch, and
    /// every one is recorded in `.forgeflare/convergence.json`.
    Signal {
        /// Its name, for example `converged`; must not be empty.
        name: String,
        /// Why.
        reason: String,
    },
}

impl Post {
    /// Signals `name` with `reason`.
    pub fn signal(name: impl Into<String>, reason: impl Into<String>) -> Post {
        Post::Signal {
            name: name.into(),
            reason: reason.into(),
        }
    }
}

/// Why the agent's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// The model finished its turn.
    EndTurn,
    /// The iteration ceiling was reached.
    IterationLimit,
    /// The model's API failed.
    ApiError,
    /// Too many max-token continuations.
    ContinuationCap,
    /// Three guard blocks in a row.
    BlockLimitConsecutive,
    /// Ten guard blocks in one inner loop.
    BlockLimitTotal,
    /// A PostToolUse signal ended the loop.
    ConvergenceSignal,
}

impl StopReason {
    /// The reason spelled `text` (`end_turn`, ...), if it is one of the seven.
    pub fn parse(text: &str) -> Option<StopReason> {
        [
            StopReason::EndTurn,
            StopReason::IterationLimit,
            StopReason::ApiError,
            StopReason::ContinuationCap,
            StopReason::BlockLimitConsecutive,
            StopReason::BlockLimitTotal,
            StopReason::ConvergenceSignal,
        ]
        .into_iter()
        .find(|reason| reason.as_str() == text)
    }

    /// The contract's string, for example `end_turn`.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::IterationLimit => "iteration_limit",
            StopReason::ApiError => "api_error",
            StopReason::ContinuationCap => "continuation_cap",
            StopReason::BlockLimitConsecutive => "block_limit_consecutive",
            StopReason::BlockLimitTotal => "block_limit_total",
            StopReason::ConvergenceSignal => "convergence_signal",
        }
    }
}

/// What a Stop hook sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopEvent {
    /// Why the run ended.
    pub reason: StopReason,
    /// The batch counter at the end.
    pub tool_iterations: u64,
    /// Tokens the run used.
    pub total_tokens: u64,
    /// The agent's working directory.
    pub cwd: String,
}

impl StopEvent {
    /// A Stop event in `/workspace`: for tests.
    pub fn new(reason: StopReason, tool_iterations: u64, total_tokens: u64) -> StopEvent {
        StopEvent {
            reason,
            tool_iterations,
            total_tokens,
            cwd: "/workspace".to_string(),
        }
    }
}
