//! Events are data: one table says, per built-in event, what its payload holds, what a
//! `matcher` compares against, which answers a hook may give and what a block means. The
//! runner, the config validation, the protocols and the table in docs/events.md all read this
//! table; none of them has a `match` arm per event.
//!
//! The names are Claude Code's (which Copilot CLI, Gemini CLI and Codex copied). Any other
//! name is a custom event (Fresher's `started`, Code-Forge's `llm:pre_request`): every answer
//! is allowed, its hooks fail open, and the agent that fires it says what each answer means.
//!
//! Longer than the house's ~500 lines on purpose: the table is one piece, read top to bottom
//! beside Claude Code's hooks reference, and splitting it would split the events.

use std::fmt;

/// Which answers a hook may give to an event (a set of flags).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Answers(u16);

impl Answers {
    /// Stop what the event is about (see [`EventSpec::block_means`]).
    pub const BLOCK: Answers = Answers(1);
    /// Defer to the agent's user.
    pub const ASK: Answers = Answers(1 << 1);
    /// Explicit permission: an agent with permission prompts may skip its prompt.
    pub const APPROVE: Answers = Answers(1 << 2);
    /// Go on, and surface a reason.
    pub const WARN: Answers = Answers(1 << 3);
    /// Replace the tool input.
    pub const REWRITE: Answers = Answers(1 << 4);
    /// Add context for the model.
    pub const CONTEXT: Answers = Answers(1 << 5);
    /// End the agent's run.
    pub const STOP: Answers = Answers(1 << 6);
    /// Raise a named signal (forgeflare's convergence signals).
    pub const SIGNAL: Answers = Answers(1 << 7);
    /// Every answer.
    pub const ALL: Answers = Answers((1 << 8) - 1);
    /// No answer but "no objection".
    pub const NOTHING: Answers = Answers(0);

    const NAMES: [(Answers, &'static str); 8] = [
        (Answers::BLOCK, "block"),
        (Answers::ASK, "ask"),
        (Answers::APPROVE, "approve"),
        (Answers::WARN, "warn"),
        (Answers::REWRITE, "updated input"),
        (Answers::CONTEXT, "context"),
        (Answers::STOP, "stop"),
        (Answers::SIGNAL, "signal"),
    ];

    /// True when every answer of `other` is in this set.
    pub const fn allows(self, other: Answers) -> bool {
        self.0 & other.0 == other.0
    }

    const fn with(self, other: Answers) -> Answers {
        Answers(self.0 | other.0)
    }

    /// Both sets.
    pub fn union(self, other: Answers) -> Answers {
        self.with(other)
    }

    /// The names of the answers in this set, for messages and tables.
    pub fn names(self) -> Vec<&'static str> {
        Answers::NAMES
            .iter()
            .filter(|(flag, _)| self.allows(*flag))
            .map(|(_, name)| *name)
            .collect()
    }
}

impl fmt::Debug for Answers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

/// What a hook's `matcher` (or `match_tool`) is compared against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchOn {
    /// The tool's name.
    Tool,
    /// A payload field, such as SessionStart's `source`.
    Field(&'static str),
    /// Nothing: hooks of this event always fire; a matcher on them is ignored (with a warning).
    Nothing,
}

/// What Claude Code does with a command hook's exit status 2 on an event (`protocol = "claude"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaudeExit2 {
    /// Blocks, with stderr as the reason.
    Block,
    /// Shows stderr to the model, as context.
    Context,
    /// Shows stderr to the user only: a warning.
    Warn,
    /// Ignored.
    Ignore,
}

/// One documented payload field of an event.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The field's name in hookhost's JSON (and in Claude's, unless renamed by the protocol).
    pub name: &'static str,
    /// What it holds.
    pub about: &'static str,
}

const fn field(name: &'static str, about: &'static str) -> Field {
    Field { name, about }
}

/// One event: its payload, its matcher, the answers it takes and how its hooks fail.
#[derive(Debug)]
pub struct EventSpec {
    /// The event's name, as hooks.toml and the payload spell it.
    pub name: &'static str,
    /// When the agent fires it.
    pub about: &'static str,
    /// What a `matcher` compares against.
    pub match_on: MatchOn,
    /// The answers a hook may give; anything else is an invalid verdict.
    pub answers: Answers,
    /// What a block asks the agent to do.
    pub block_means: &'static str,
    /// Whether the event gates something that has not happened yet: guards run in declaration
    /// order and stop at the first block; observers (`phase = "observe"`) run afterwards and see
    /// the outcome.
    pub gate: bool,
    /// Whether a guard that fails (times out, crashes, answers garbage) blocks by default.
    pub fail_closed: bool,
    /// `timeout_ms` when the hook does not set one.
    pub default_timeout_ms: u64,
    /// The fields of the event's own payload, besides the common ones (event, session id, cwd,
    /// and the tool call for tool events).
    pub payload: &'static [Field],
    /// What exit status 2 of a `protocol = "claude"` command hook means here.
    pub claude_exit2: ClaudeExit2,
    /// Words of forgeflare's `{"action": ...}` protocol that mean "no objection".
    pub no_objection: &'static [&'static str],
    /// forgeflare's protocol recognises only the `no_objection` words here; any other action is
    /// logged and treated as no objection (R3, for Stop).
    pub lenient: bool,
}

impl EventSpec {
    /// True for events about a tool call (the payload carries `tool` and `input`).
    pub fn has_tool(&self) -> bool {
        self.match_on == MatchOn::Tool
    }

    /// True when this is not a built-in event.
    pub fn is_custom(&self) -> bool {
        std::ptr::eq(self, &CUSTOM)
    }
}

const DECIDE: Answers = Answers::BLOCK.with(Answers::WARN).with(Answers::STOP);
const ALLOW_WORDS: &[&str] = &["allow", "continue"];

/// The built-in events, in lifecycle order.
pub static BUILTIN: [EventSpec; 12] = [
    EventSpec {
        name: "SessionStart",
        about: "a session begins or resumes",
        match_on: MatchOn::Field("source"),
        answers: DECIDE.with(Answers::CONTEXT),
        block_means: "do not start the session",
        gate: true,
        fail_closed: false,
        default_timeout_ms: 5000,
        payload: &[
            field("source", "startup, resume, clear or compact"),
            field("model", "the model, when the agent says"),
        ],
        claude_exit2: ClaudeExit2::Warn,
        no_objection: ALLOW_WORDS,
        lenient: false,
    },
    EventSpec {
        name: "UserPromptSubmit",
        about: "the user submitted a prompt, before the model sees it",
        match_on: MatchOn::Nothing,
        answers: DECIDE.with(Answers::CONTEXT),
        block_means: "drop the prompt; show the reason to the user",
        gate: true,
        fail_closed: false,
        default_timeout_ms: 5000,
        payload: &[field("prompt", "the prompt's text")],
        claude_exit2: ClaudeExit2::Block,
        no_objection: ALLOW_WORDS,
        lenient: false,
    },
    EventSpec {
        name: "PreToolUse",
        about: "before a tool runs",
        match_on: MatchOn::Tool,
        answers: DECIDE
            .with(Answers::ASK)
            .with(Answers::APPROVE)
            .with(Answers::REWRITE)
            .with(Answers::CONTEXT),
        block_means: "do not run the tool; the model sees the reason",
        gate: true,
        fail_closed: true,
        default_timeout_ms: 5000,
        payload: &[field(
            "tool_iterations",
            "the agent's batch counter (forgeflare)",
        )],
        claude_exit2: ClaudeExit2::Block,
        no_objection: &["allow"],
        lenient: false,
    },
    EventSpec {
        name: "PermissionRequest",
        about: "the agent is about to ask its user for permission to run a tool",
        match_on: MatchOn::Tool,
        answers: DECIDE
            .with(Answers::ASK)
            .with(Answers::APPROVE)
            .with(Answers::REWRITE),
        block_means: "deny the permission; the model sees the reason",
        gate: true,
        fail_closed: false,
        default_timeout_ms: 5000,
        payload: &[field(
            "permission_suggestions",
            "the rules the agent would offer the user, when it says",
        )],
        claude_exit2: ClaudeExit2::Ignore,
        no_objection: ALLOW_WORDS,
        lenient: false,
    },
    EventSpec {
        name: "PostToolUse",
        about: "after a tool ran",
        match_on: MatchOn::Tool,
        answers: DECIDE.with(Answers::CONTEXT).with(Answers::SIGNAL),
        block_means: "the tool already ran: tell the model the reason",
        gate: false,
        fail_closed: false,
        default_timeout_ms: 5000,
        payload: &[
            field(
                "result",
                "the tool's result (over 5120 bytes: its first and last 2560 bytes)",
            ),
            field("is_error", "true when the tool reported an error"),
            field("tool_iterations", "the agent's batch counter (forgeflare)"),
        ],
        claude_exit2: ClaudeExit2::Block,
        no_objection: &["continue"],
        lenient: false,
    },
    EventSpec {
        name: "PostToolUseFailure",
        about: "after a tool failed",
        match_on: MatchOn::Tool,
        answers: Answers::WARN.with(Answers::CONTEXT).with(Answers::STOP),
        block_means: "(cannot block)",
        gate: false,
        fail_closed: false,
        default_timeout_ms: 5000,
        payload: &[
            field("error", "what went wrong"),
            field("is_interrupt", "true when the user interrupted the tool"),
        ],
        claude_exit2: ClaudeExit2::Context,
        no_objection: ALLOW_WORDS,
        lenient: false,
    },
    EventSpec {
        name: "Notification",
        about: "the agent notifies its user (it needs permission, it is idle, ...)",
        match_on: MatchOn::Field("notification_type"),
        answers: Answers::WARN,
        block_means: "(cannot block)",
        gate: false,
        fail_closed: false,
        default_timeout_ms: 5000,
        payload: &[
            field("message", "the notification's text"),
            field("title", "its title, when there is one"),
            field(
                "notification_type",
                "permission_prompt, idle_prompt, auth_success, ...",
            ),
        ],
        claude_exit2: ClaudeExit2::Ignore,
        no_objection: ALLOW_WORDS,
        lenient: false,
    },
    EventSpec {
        name: "Stop",
        about: "the agent finished (forgeflare: its run ended)",
        match_on: MatchOn::Nothing,
        answers: DECIDE.with(Answers::CONTEXT),
        block_means: "do not stop: the model goes on, with the reason as its next instruction",
        gate: false,
        fail_closed: false,
        default_timeout_ms: 3000,
        payload: &[
            field(
                "reason",
                "forgeflare: one of the seven stop reasons (end_turn, ...)",
            ),
            field(
                "tool_iterations",
                "forgeflare: the batch counter at the end",
            ),
            field("total_tokens", "forgeflare: tokens the run used"),
            field(
                "stop_hook_active",
                "Claude Code: true when a Stop hook already kept the agent going",
            ),
        ],
        claude_exit2: ClaudeExit2::Block,
        // R3: only "continue" is recognised; other actions are logged and treated as continue.
        no_objection: &["continue"],
        lenient: true,
    },
    EventSpec {
        name: "SubagentStart",
        about: "the agent starts a subagent",
        match_on: MatchOn::Field("agent_type"),
        answers: Answers::WARN.with(Answers::CONTEXT),
        block_means: "(cannot block)",
        gate: false,
        fail_closed: false,
        default_timeout_ms: 5000,
        payload: &[
            field("agent_id", "the subagent's id"),
            field("agent_type", "its kind (general-purpose, Explore, ...)"),
        ],
        claude_exit2: ClaudeExit2::Warn,
        no_objection: ALLOW_WORDS,
        lenient: false,
    },
    EventSpec {
        name: "SubagentStop",
        about: "a subagent finished",
        match_on: MatchOn::Field("agent_type"),
        answers: DECIDE.with(Answers::CONTEXT),
        block_means: "the subagent does not stop: the reason is its next instruction",
        gate: false,
        fail_closed: false,
        default_timeout_ms: 5000,
        payload: &[
            field("agent_id", "the subagent's id"),
            field("agent_type", "its kind"),
            field("stop_hook_active", "true when a hook already kept it going"),
        ],
        claude_exit2: ClaudeExit2::Block,
        no_objection: ALLOW_WORDS,
        lenient: false,
    },
    EventSpec {
        name: "PreCompact",
        about: "before the agent compacts its context",
        match_on: MatchOn::Field("trigger"),
        answers: Answers::BLOCK.with(Answers::WARN),
        block_means: "do not compact",
        gate: true,
        fail_closed: false,
        default_timeout_ms: 5000,
        payload: &[
            field("trigger", "manual or auto"),
            field(
                "custom_instructions",
                "what the user asked the compaction to keep",
            ),
        ],
        claude_exit2: ClaudeExit2::Block,
        no_objection: ALLOW_WORDS,
        lenient: false,
    },
    EventSpec {
        name: "SessionEnd",
        about: "the session ends; the runner then drains its async hooks",
        match_on: MatchOn::Field("reason"),
        answers: Answers::WARN,
        block_means: "(cannot block)",
        gate: false,
        fail_closed: false,
        default_timeout_ms: 5000,
        payload: &[field("reason", "clear, logout, prompt_input_exit or other")],
        claude_exit2: ClaudeExit2::Warn,
        no_objection: ALLOW_WORDS,
        lenient: false,
    },
];

/// Every event that is not built in.
pub static CUSTOM: EventSpec = EventSpec {
    name: "(custom)",
    about: "fired by the agent by name, with its own JSON payload",
    match_on: MatchOn::Tool,
    answers: Answers::ALL,
    block_means: "what the agent that fires the event says",
    gate: true,
    fail_closed: false,
    default_timeout_ms: 5000,
    payload: &[],
    claude_exit2: ClaudeExit2::Block,
    no_objection: ALLOW_WORDS,
    lenient: false,
};

/// The spec of the event named `name`: a built-in one, or [`CUSTOM`].
pub fn spec(name: &str) -> &'static EventSpec {
    builtin(name).unwrap_or(&CUSTOM)
}

/// The built-in event named exactly `name`.
pub fn builtin(name: &str) -> Option<&'static EventSpec> {
    BUILTIN.iter().find(|spec| spec.name == name)
}

/// Events other agents define that hookhost runs as custom events (fired by name, any answer
/// allowed, failures logged), and that are never taken for a misspelt built-in one: Claude Code's
/// and the Go agent SDK's `Setup` is two edits from `Stop`.
pub const OTHER_AGENTS_EVENTS: &[&str] = &["Setup", "TeammateIdle", "TaskCompleted"];

/// The built-in event a custom name was probably meant to be: ignoring case, at most two edits
/// away (`PreToolUSE`, `preToolUse`, `PostToolUsed`), or one of the two a prefix of the other
/// within three characters (`PreTool`, Copilot's `userPromptSubmitted`). A custom event with
/// such a name would silently never fire, so configuration refuses it. A name with a separator
/// (`:`, `/`, `.`, `_`, `-`) is deliberately another agent's (`session:start`,
/// `next_iteration`) and never a lookalike.
pub fn lookalike(name: &str) -> Option<&'static EventSpec> {
    if builtin(name).is_some()
        || name.contains([':', '/', '.', '_', '-'])
        || OTHER_AGENTS_EVENTS.contains(&name)
    {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    BUILTIN.iter().find(|spec| {
        let builtin = spec.name.to_ascii_lowercase();
        let (short, long) = if builtin.len() <= lower.len() {
            (&builtin, &lower)
        } else {
            (&lower, &builtin)
        };
        within_two_edits(&builtin, &lower)
            || (short.len() >= 4
                && long.starts_with(short.as_str())
                && long.len() - short.len() <= 3)
    })
}

/// True when `a` and `b` are at most two insertions, deletions or substitutions apart, in
/// time proportional to their length (a long name is rejected by its length alone).
pub fn within_two_edits(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > 2 || a.len().max(b.len()) > 256 {
        return false;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()] <= 2
}

/// The catalog as the "Events" table of docs/events.md, so that the documentation cannot drift from
/// what the runner does (a test compares them).
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| event | when | `matcher` compares | a hook may answer | a block means | a guard's failure |\n|---|---|---|---|---|---|\n",
    );
    for spec in BUILTIN.iter().chain(std::iter::once(&CUSTOM)) {
        let name = if spec.is_custom() {
            "any other name".to_string()
        } else {
            format!("`{}`", spec.name)
        };
        let matcher = match spec.match_on {
            MatchOn::Tool => "the tool's name".to_string(),
            MatchOn::Field(field) => format!("`{field}`"),
            MatchOn::Nothing => "(always fires)".to_string(),
        };
        let mut answers = vec!["allow"];
        answers.extend(spec.answers.names());
        let failure = if spec.fail_closed {
            "blocks (fail closed)"
        } else {
            "is logged (fail open)"
        };
        out.push_str(&format!(
            "| {name} | {} | {matcher} | {} | {} | {failure} |\n",
            spec.about,
            answers.join(", "),
            spec.block_means
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_table_is_the_catalog() {
        let readme = include_str!("../../../../docs/events.md");
        let table = markdown_table();
        assert!(
            readme.contains(&table),
            "docs/events.md's Events table is out of date; replace it with:\n{table}"
        );
    }

    #[test]
    fn every_builtin_has_a_unique_name_and_documented_payload() {
        for (i, spec) in BUILTIN.iter().enumerate() {
            assert!(
                BUILTIN[i + 1..].iter().all(|other| other.name != spec.name),
                "{} twice",
                spec.name
            );
            assert!(!spec.about.is_empty() && !spec.block_means.is_empty());
            assert_eq!(
                spec.answers.allows(Answers::BLOCK),
                !spec.block_means.starts_with('('),
                "{}: block_means says whether it can block",
                spec.name
            );
            assert!(!spec.fail_closed || spec.gate, "{}", spec.name);
        }
        assert_eq!(spec("PreToolUse").name, "PreToolUse");
        assert!(spec("llm:pre_request").is_custom());
        assert!(!spec("Stop").is_custom());
    }

    #[test]
    fn forgeflare_events_keep_their_contract() {
        let pre = spec("PreToolUse");
        assert!(pre.gate && pre.fail_closed && pre.default_timeout_ms == 5000);
        let post = spec("PostToolUse");
        assert!(!post.gate && !post.fail_closed && post.answers.allows(Answers::SIGNAL));
        let stop = spec("Stop");
        assert_eq!(stop.default_timeout_ms, 3000);
        assert_eq!(stop.no_objection, ["continue"]);
    }

    #[test]
    fn lookalikes_of_builtin_names() {
        let cases = [
            ("PreToolUSE", Some("PreToolUse")),
            ("preToolUse", Some("PreToolUse")),
            ("PostToolUsed", Some("PostToolUse")),
            ("Stopp", Some("Stop")),
            ("PreToolUse", None),
            ("started", None),
            ("llm:pre_request", None),
            ("tool:pre_execute", None),
            ("Stopped", Some("Stop")),
            ("PreTool", Some("PreToolUse")),
            ("userPromptSubmitted", Some("UserPromptSubmit")),
            ("errorOccurred", None),
            ("StopFailure", None),
            ("next_iteration", None),
            // Claude Code's events that hookhost runs as custom ones.
            ("Setup", None),
            ("TeammateIdle", None),
            ("TaskCompleted", None),
        ];
        for (name, expected) in cases {
            assert_eq!(lookalike(name).map(|s| s.name), expected, "{name}");
        }
        assert!(!within_two_edits(&"x".repeat(1 << 20), "Stop"));
    }

    #[test]
    fn answer_names() {
        assert_eq!(
            Answers::BLOCK.with(Answers::CONTEXT).names(),
            ["block", "context"]
        );
        assert!(Answers::ALL.allows(Answers::SIGNAL.with(Answers::REWRITE)));
        assert!(!Answers::WARN.allows(Answers::BLOCK));
    }
}
