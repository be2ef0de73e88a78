//! The agents `hookhost init` writes settings for, as data: one [`AgentSpec`] per agent says
//! which file it reads, which events hookhost serves there (the agent's spelling and
//! hookhost's), and how one entry is spelled (shape, command key, timeout unit, matcher,
//! fail-closed key). Adding an agent is one row here.
//!
//! Each row was checked against the agent's shipped package (`checked`); the event lists are
//! hookhost's dialect tables (src/dialect/*.rs), which `tests/dialects.rs` compares them with,
//! less the events where a registered hook changes what the agent does (`left_out`).
//!
//! Longer than the house's ~400 lines on purpose: one row per agent, each with the reasons
//! for its values, reads best as one table.

use crate::names::{UnknownName, lookup};

/// An agent whose hook settings `hookhost init` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent {
    /// Claude Code: `.claude/settings.json`.
    Claude,
    /// GitHub Copilot CLI: `.github/hooks/hookhost.json`.
    Copilot,
    /// Gemini CLI: `.gemini/settings.json`.
    Gemini,
    /// OpenAI's Codex CLI: `.codex/hooks.json`.
    Codex,
    /// Cursor: `.cursor/hooks.json`.
    Cursor,
}

impl Agent {
    /// Every agent, in the order the docs list them.
    pub const ALL: [Agent; 5] = [
        Agent::Claude,
        Agent::Copilot,
        Agent::Gemini,
        Agent::Codex,
        Agent::Cursor,
    ];

    /// The agent spelled `name` (`claude`, `copilot`, `gemini`, `codex`, `cursor`, or a product
    /// name such as `claude-code`); an unknown name says which it may have meant.
    pub fn from_name(name: &str) -> Result<Agent, UnknownName> {
        const NAMES: &[(Agent, &str, &[&str])] = &[
            (Agent::Claude, "claude", &["claude-code", "claudecode"]),
            (
                Agent::Copilot,
                "copilot",
                &["copilot-cli", "github-copilot"],
            ),
            (Agent::Gemini, "gemini", &["gemini-cli"]),
            (Agent::Codex, "codex", &["codex-cli", "openai-codex"]),
            (Agent::Cursor, "cursor", &[]),
        ];
        lookup("agent", name, NAMES)
    }

    /// What this agent reads and how init writes it.
    pub fn spec(self) -> &'static AgentSpec {
        match self {
            Agent::Claude => &CLAUDE,
            Agent::Copilot => &COPILOT,
            Agent::Gemini => &GEMINI,
            Agent::Codex => &CODEX,
            Agent::Cursor => &CURSOR,
        }
    }

    /// `claude`, `copilot`, `gemini`, `codex` or `cursor` (`agent-hook --format`'s spelling).
    pub fn name(self) -> &'static str {
        self.spec().name
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One event init registers hookhost on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentEvent {
    /// The agent's name for it (`BeforeTool`, `preToolUse`, `PreToolUse`).
    pub name: &'static str,
    /// hookhost's name for it (a built-in event, or the agent's own name for a custom one).
    pub hookhost: &'static str,
    /// The event carries a tool name: its entry gets the agent's catch-all matcher.
    pub tool: bool,
    /// The event that gates tool calls (PreToolUse): where the agent's fail-closed setting
    /// goes, so that a hookhost that cannot start denies instead of allowing.
    pub gate: bool,
}

/// An event of the agent's that hookhost serves but init does not register, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeftOut {
    /// The agent's name for it.
    pub name: &'static str,
    /// Why a hookhost entry there would do harm.
    pub why: &'static str,
}

/// How the agent nests a hook under an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryShape {
    /// `event: [{"matcher": ..., "hooks": [handler]}]`: Claude Code, Gemini CLI, Codex CLI.
    Grouped,
    /// `event: [handler]`, the file under `"version": 1`: Copilot CLI, Cursor.
    Flat,
}

/// Everything init needs to know about one agent's settings.
#[derive(Debug)]
pub struct AgentSpec {
    /// Which agent.
    pub agent: Agent,
    /// `agent-hook --format`'s spelling.
    pub name: &'static str,
    /// The product, for messages.
    pub product: &'static str,
    /// The package whose settings format this row was checked against.
    pub checked: &'static str,
    /// The events init registers hookhost on, in the order written.
    pub events: &'static [AgentEvent],
    /// hookhost's events of this agent that init leaves out.
    pub left_out: &'static [LeftOut],
    /// How entries nest.
    pub shape: EntryShape,
    /// The file starts `"version": 1` (and a file of another version is refused).
    pub version_one: bool,
    /// The handler's key for the shell command (`command`; Copilot: `bash`).
    pub command_key: &'static str,
    /// A `name` the handler gets (Gemini CLI shows and disables hooks by name).
    pub handler_name: Option<&'static str>,
    /// The handler's timeout key.
    pub timeout_key: &'static str,
    /// Milliseconds per unit of that key (1000: seconds; 1: milliseconds).
    pub timeout_unit_ms: u64,
    /// Events whose time budget the agent fixes itself (a timeout there is left unset).
    pub fixed_budget: &'static [&'static str],
    /// The agent's catch-all matcher for tool events (`None`: the entry has no matcher).
    pub catch_all: Option<&'static str>,
    /// The handler key and JSON literal that make the agent deny the gate event when hookhost
    /// itself fails (cannot start, times out).
    pub fail_closed: Option<(&'static str, &'static str)>,
    /// The agent reads its settings with comments (`//`, `/* */`) allowed.
    pub comments: bool,
    /// Each entry's command passes `--event NAME` (Copilot CLI's payloads carry no event name).
    pub event_flag: bool,
    /// The settings file of a project, relative to its root.
    pub project_file: &'static str,
    /// The user's settings file, relative to the agent's home ([`crate::Roots::agent_home`]).
    pub user_file: &'static str,
    /// Other files of the same scope where the agent also reads hooks, relative like the
    /// settings file; `dir/*.json` is every JSON file there. A hookhost entry in one of them
    /// would run hookhost twice: the plan says so.
    pub also_project: &'static [&'static str],
    /// The same for the user's scope.
    pub also_user: &'static [&'static str],
    /// What the user does next so that the agent runs a project's entries (its trust gate).
    pub trust_project: &'static str,
    /// The same for the user's own settings.
    pub trust_user: &'static str,
}

const fn event(name: &'static str, hookhost: &'static str) -> AgentEvent {
    AgentEvent {
        name,
        hookhost,
        tool: false,
        gate: false,
    }
}

const fn tool(name: &'static str, hookhost: &'static str) -> AgentEvent {
    AgentEvent {
        name,
        hookhost,
        tool: true,
        gate: false,
    }
}

const fn gate(name: &'static str, hookhost: &'static str) -> AgentEvent {
    AgentEvent {
        name,
        hookhost,
        tool: true,
        gate: true,
    }
}

/// The same name on both sides.
const fn same(name: &'static str) -> AgentEvent {
    event(name, name)
}

static CLAUDE: AgentSpec = AgentSpec {
    agent: Agent::Claude,
    name: "claude",
    product: "Claude Code",
    checked: "@anthropic-ai/claude-code 2.1.332",
    events: &[
        gate("PreToolUse", "PreToolUse"),
        tool("PermissionRequest", "PermissionRequest"),
        tool("PostToolUse", "PostToolUse"),
        tool("PostToolUseFailure", "PostToolUseFailure"),
        same("PostToolBatch"),
        same("UserPromptSubmit"),
        same("UserPromptExpansion"),
        same("Stop"),
        same("SubagentStop"),
        same("SubagentStart"),
        same("SessionStart"),
        same("SessionEnd"),
        same("Setup"),
        same("PreCompact"),
        same("PostCompact"),
        same("PreModelSwitch"),
        same("PostModelSwitch"),
        same("TaskCreated"),
        same("TaskCompleted"),
        same("TeammateIdle"),
        same("ConfigChange"),
        same("Elicitation"),
        same("ElicitationResult"),
        same("Notification"),
        same("InstructionsLoaded"),
        same("StopFailure"),
    ],
    left_out: &[
        LeftOut {
            name: "WorktreeCreate",
            why: "a WorktreeCreate hook replaces Claude Code's own `git worktree add`: it must create the worktree and print its path",
        },
        LeftOut {
            name: "WorktreeRemove",
            why: "a WorktreeRemove hook replaces Claude Code's own worktree removal",
        },
    ],
    shape: EntryShape::Grouped,
    version_one: false,
    command_key: "command",
    handler_name: None,
    timeout_key: "timeout",
    timeout_unit_ms: 1000,
    // SessionEnd hooks share a budget of 1.5 s.
    fixed_budget: &["SessionEnd"],
    catch_all: Some("*"),
    // 2.1.332: "'block': the failure counts as exit code 2"; older versions ignore the key.
    fail_closed: Some(("onFailure", "\"block\"")),
    // "When a settings.json file fails to parse (invalid JSON, JSON comments, ...), the file
    // is skipped": strict JSON.
    comments: false,
    event_flag: false,
    project_file: ".claude/settings.json",
    user_file: "settings.json",
    also_project: &[".claude/settings.local.json"],
    also_user: &[],
    trust_project: "Claude Code reads a project's .claude/settings.json only once the folder is trusted: accept the trust dialog when claude starts there; `/hooks` lists the entries",
    trust_user: "Claude Code reads ~/.claude/settings.json in every project; `/hooks` lists the entries",
};

static COPILOT: AgentSpec = AgentSpec {
    agent: Agent::Copilot,
    name: "copilot",
    product: "Copilot CLI",
    checked: "@github/copilot 1.0.102",
    events: &[
        gate("preToolUse", "PreToolUse"),
        tool("permissionRequest", "PermissionRequest"),
        tool("postToolUse", "PostToolUse"),
        tool("postToolUseFailure", "PostToolUseFailure"),
        event("userPromptSubmitted", "UserPromptSubmit"),
        event("userPromptTransformed", "UserPromptTransformed"),
        event("agentStop", "Stop"),
        event("subagentStart", "SubagentStart"),
        event("subagentStop", "SubagentStop"),
        event("sessionStart", "SessionStart"),
        event("sessionEnd", "SessionEnd"),
        event("preCompact", "PreCompact"),
        event("errorOccurred", "ErrorOccurred"),
        event("notification", "Notification"),
    ],
    left_out: &[],
    shape: EntryShape::Flat,
    version_one: true,
    command_key: "bash",
    handler_name: None,
    timeout_key: "timeoutSec",
    timeout_unit_ms: 1000,
    fixed_budget: &[],
    // No matcher is every tool; Copilot's matchers are anchored regexes.
    catch_all: None,
    // Copilot already denies a preToolUse whose hook fails.
    fail_closed: None,
    // Its runtime (serde_json) skips a hooks file with a comment in it.
    comments: false,
    event_flag: true,
    project_file: ".github/hooks/hookhost.json",
    user_file: "hooks/hookhost.json",
    also_project: &[".github/hooks/*.json"],
    also_user: &["hooks/*.json"],
    trust_project: "Copilot CLI loads a repository's .github/hooks only in a trusted folder (it reads them at the git root): answer yes when copilot asks to trust the folder, or add it to trustedFolders",
    trust_user: "Copilot CLI loads ~/.copilot/hooks/*.json in every folder",
};

static GEMINI: AgentSpec = AgentSpec {
    agent: Agent::Gemini,
    name: "gemini",
    product: "Gemini CLI",
    checked: "@google/gemini-cli 0.61.0",
    events: &[
        gate("BeforeTool", "PreToolUse"),
        tool("AfterTool", "PostToolUse"),
        event("BeforeAgent", "UserPromptSubmit"),
        event("AfterAgent", "Stop"),
        same("SessionStart"),
        same("SessionEnd"),
        event("PreCompress", "PreCompact"),
        same("Notification"),
        same("BeforeModel"),
        same("AfterModel"),
        same("BeforeToolSelection"),
    ],
    left_out: &[],
    shape: EntryShape::Grouped,
    version_one: false,
    command_key: "command",
    handler_name: Some("hookhost"),
    timeout_key: "timeout",
    timeout_unit_ms: 1,
    fixed_budget: &[],
    catch_all: Some("*"),
    fail_closed: None,
    // `JSON.parse(stripJsonComments(content))`: comments, but no trailing commas.
    comments: true,
    event_flag: false,
    project_file: ".gemini/settings.json",
    user_file: "settings.json",
    also_project: &[],
    also_user: &[],
    trust_project: "Gemini CLI runs a project's hooks only in a trusted folder (`/permissions` trusts it) and warns once about new project hooks; hooksConfig.enabled must not be false",
    trust_user: "Gemini CLI runs ~/.gemini/settings.json's hooks in every project; hooksConfig.enabled must not be false",
};

static CODEX: AgentSpec = AgentSpec {
    agent: Agent::Codex,
    name: "codex",
    product: "Codex CLI",
    checked: "@openai/codex 0.171.0",
    events: &[
        gate("PreToolUse", "PreToolUse"),
        tool("PermissionRequest", "PermissionRequest"),
        tool("PostToolUse", "PostToolUse"),
        same("UserPromptSubmit"),
        same("Stop"),
        same("SubagentStart"),
        same("SubagentStop"),
        same("SessionStart"),
        same("SessionEnd"),
        same("PreCompact"),
        same("PostCompact"),
        same("Interrupt"),
    ],
    left_out: &[],
    shape: EntryShape::Grouped,
    version_one: false,
    command_key: "command",
    handler_name: None,
    timeout_key: "timeout",
    timeout_unit_ms: 1000,
    // Teardown events: 1 s by default, capped at 3 s.
    fixed_budget: &["SessionEnd", "Interrupt"],
    catch_all: Some("*"),
    fail_closed: None,
    // `serde_json::from_str::<HooksFile>`: strict JSON, unknown top-level keys refused.
    comments: false,
    event_flag: false,
    project_file: ".codex/hooks.json",
    user_file: "hooks.json",
    also_project: &[".codex/config.toml"],
    also_user: &["config.toml"],
    trust_project: "Codex reads a project's .codex/ only in a trusted project, and runs a hook only once it is trusted: open `/hooks` in codex and trust hookhost's entries (automation: --dangerously-bypass-hook-trust)",
    trust_user: "Codex runs a hook only once it is trusted: open `/hooks` in codex and trust hookhost's entries (automation: --dangerously-bypass-hook-trust)",
};

static CURSOR: AgentSpec = AgentSpec {
    agent: Agent::Cursor,
    name: "cursor",
    product: "Cursor",
    checked: "cursor.com/docs/agent/hooks (Cursor is closed source)",
    events: &[
        gate("preToolUse", "PreToolUse"),
        tool("postToolUse", "PostToolUse"),
        tool("postToolUseFailure", "PostToolUseFailure"),
        event("beforeSubmitPrompt", "UserPromptSubmit"),
        event("stop", "Stop"),
        event("subagentStart", "SubagentStart"),
        event("subagentStop", "SubagentStop"),
        event("sessionStart", "SessionStart"),
        event("sessionEnd", "SessionEnd"),
        event("preCompact", "PreCompact"),
        same("beforeShellExecution"),
        same("beforeMCPExecution"),
        same("beforeReadFile"),
        same("beforeTabFileRead"),
        same("afterShellExecution"),
        same("afterMCPExecution"),
        same("afterFileEdit"),
        same("afterTabFileEdit"),
        same("afterAgentResponse"),
        same("afterAgentThought"),
        same("workspaceOpen"),
    ],
    left_out: &[],
    shape: EntryShape::Flat,
    version_one: true,
    command_key: "command",
    handler_name: None,
    timeout_key: "timeout",
    timeout_unit_ms: 1000,
    fixed_budget: &[],
    // Cursor's matchers are unanchored regexes ("*" is none): no matcher is every tool.
    catch_all: None,
    fail_closed: Some(("failClosed", "true")),
    // Not documented either way: written and read as strict JSON.
    comments: false,
    event_flag: false,
    project_file: ".cursor/hooks.json",
    user_file: "hooks.json",
    also_project: &[],
    also_user: &[],
    trust_project: "Cursor documents no trust step for hooks: it reads the open project's .cursor/hooks.json (with its third-party option on it also runs Claude Code's hooks: do not init both for one project)",
    trust_user: "Cursor reads ~/.cursor/hooks.json in every project",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_has_one_gate_and_unique_events() {
        for agent in Agent::ALL {
            let spec = agent.spec();
            assert_eq!(spec.agent, agent);
            assert_eq!(Agent::from_name(spec.name), Ok(agent));
            let gates: Vec<_> = spec.events.iter().filter(|e| e.gate).collect();
            assert_eq!(gates.len(), 1, "{agent}: one gate event");
            assert_eq!(gates[0].hookhost, "PreToolUse", "{agent}");
            let mut names: Vec<_> = spec.events.iter().map(|e| e.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), spec.events.len(), "{agent}: an event twice");
            for left in spec.left_out {
                assert!(!names.contains(&left.name), "{agent}: {} both", left.name);
            }
        }
    }

    #[test]
    fn agent_names_suggest() {
        assert_eq!(Agent::from_name("Claude-Code"), Ok(Agent::Claude));
        let unknown = Agent::from_name("gemnii").unwrap_err();
        assert_eq!(unknown.suggestion, Some("gemini"));
        assert_eq!(
            unknown.to_string(),
            "unknown agent \"gemnii\"; did you mean \"gemini\"? (known: claude, copilot, gemini, codex, cursor)"
        );
        assert_eq!(Agent::from_name("vim").unwrap_err().suggestion, None);
    }
}
