//! What the agents are put through, and how what they did is read back.
//!
//! One project's hooks.toml holds a hook for every answer, each keyed to a word of the command
//! (the scripted model runs, one by one, the commands the prompt lists): a command guard and a
//! wasm guard that deny, a guard that rewrites (approving the rewrite, or not), one that asks,
//! a hook that adds context on every event that takes it, a prompt guard, and a Stop hook that
//! keeps the agent going once, all in the default (forgeflare) protocol, with the decision log
//! on. Two runs per agent and hook path: the tool calls, then a prompt the prompt guard blocks.
//! Each observation is a cell of the matrix in docs/agents.md.

use std::path::Path;

use serde_json::Value;

use crate::run::Run;

/// The commands of the tool run, in the order the model calls them, each with the word its
/// hook keys on.
pub const COMMANDS: [(&str, &str); 7] = [
    ("deny-by-command", "touch deny-by-command.marker"),
    ("deny-by-wasm", "touch deny-by-wasm.marker"),
    ("allowed", "touch allowed.marker"),
    (
        "rewrite-approved",
        "echo rewrite-approved-original > rewrite-approved.marker",
    ),
    (
        "rewrite-allowed",
        "echo rewrite-allowed-original > rewrite-allowed.marker",
    ),
    // A failing call: Claude Code's Bash fails with the command; Copilot CLI's shell reports
    // a failing command as a success, so the model reads the file with `view` there.
    (
        "hookhost-e2e-missing-file",
        "cat /nonexistent/hookhost-e2e-missing-file",
    ),
    // Last: an agent that hangs on an ask must not hide what came before.
    ("ask-me", "touch ask-me.marker"),
];

/// The prompt of the tool run.
pub fn tools_prompt() -> String {
    let mut prompt =
        "Run each command below with your shell tool, one at a time, then answer DONE.\n"
            .to_string();
    for (_, command) in COMMANDS {
        prompt.push_str(&format!("RUN: {command}\n"));
    }
    prompt
}

/// The prompt the prompt guard blocks.
pub const BLOCKED_PROMPT: &str = "BLOCK-THIS-PROMPT\nRUN: touch prompt-blocked.marker\n";

/// What each guard answers, for the model to read.
pub const DENY_COMMAND_REASON: &str = "DENIED-BY-COMMAND-GUARD";
pub const DENY_WASM_REASON: &str = "the input holds deny-by-wasm";
pub const ASK_QUESTION: &str = "ASK-GUARD-QUESTION";
pub const PROMPT_REFUSAL: &str = "PROMPT-GUARD-REFUSAL";
pub const STOP_REASON: &str = "KEEP-GOING-ONCE";
/// The events the context hook answers on, and the context it adds on each.
pub const CONTEXT_EVENTS: [&str; 5] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
];

pub fn context_of(event: &str) -> String {
    format!("CONTEXT-FROM-{event}")
}

/// The project's hooks.toml; `wasm` is the phrase guard's component.
pub fn hooks_toml(wasm: &Path) -> String {
    format!(
        r#"# tests/agents_e2e: a hook for every answer, in hookhost's default protocol.
[log]
path = "decisions.jsonl"

[[hooks]]
name = "context"
event = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"]
command = '''jq -c '{{action: (if .event == "PostToolUse" then "continue" else "allow" end), context: ("CONTEXT-FROM-" + .event)}}' '''

[[hooks]]
name = "command-guard"
event = "PreToolUse"
command = '''grep -q deny-by-command && echo '{{"action":"block","reason":"{DENY_COMMAND_REASON}"}}' || echo '{{"action":"allow"}}' '''

[[hooks]]
name = "wasm-guard"
event = "PreToolUse"
wasm = '{wasm}'
[hooks.config]
deny = ["deny-by-wasm"]

[[hooks]]
name = "rewrite-guard"
event = "PreToolUse"
command = '''jq -c 'if (.input | tostring | test("rewrite-(approved|allowed)-original")) then {{action: (if (.input | tostring | contains("approved")) then "approve" else "allow" end), updated_input: (.input | walk(if type == "string" then sub("-original"; "-rewritten") else . end))}} else {{action: "allow"}} end' '''

[[hooks]]
name = "ask-guard"
event = "PreToolUse"
command = '''grep -q ask-me && echo '{{"action":"ask","reason":"{ASK_QUESTION}"}}' || echo '{{"action":"allow"}}' '''

[[hooks]]
name = "prompt-guard"
event = "UserPromptSubmit"
command = '''grep -q BLOCK-THIS-PROMPT && echo '{{"action":"block","reason":"{PROMPT_REFUSAL}"}}' || echo '{{"action":"allow"}}' '''

[[hooks]]
name = "stop-once"
event = "Stop"
command = '''if [ -e .stop-once ]; then echo '{{"action":"continue"}}'; else touch .stop-once; echo '{{"action":"block","reason":"{STOP_REASON}: check your work, then answer again"}}'; fi'''
"#,
        wasm = wasm.display()
    )
}

/// The rows of the matrix, in order.
pub const ROWS: [&str; 16] = [
    "deny, command guard",
    "deny, wasm guard",
    "allow",
    "rewrite, the guard approves it",
    "rewrite, the guard only allows",
    "ask",
    "context, SessionStart",
    "context, UserPromptSubmit",
    "context, PreToolUse",
    "context, PostToolUse",
    "context, PostToolUseFailure",
    "prompt block",
    "Stop block (forgeflare protocol)",
    "decision log",
    "through hookhost-client",
    "trust gates, passed by",
];

/// The PreToolUse records of the call keyed by `word`.
fn records<'a>(run: &'a Run, event: &str, word: &str) -> Vec<&'a Value> {
    run.decisions
        .iter()
        .filter(|record| record["event"] == event)
        .filter(|record| record["input"].to_string().contains(word))
        .collect()
}

fn fired(run: &Run, event: &str) -> bool {
    run.decisions.iter().any(|record| record["event"] == event)
}

/// What became of the call keyed by `word`: refused (and whether the model read `reason`), or
/// ran.
fn refusal(run: &Run, word: &str, marker: &str, reason: &str) -> String {
    if records(run, "PreToolUse", word).is_empty() {
        return not_called(run);
    }
    match (run.file(marker).is_some(), run.model_saw(reason)) {
        (true, _) => "RAN: not refused".into(),
        (false, true) => "refused; the model reads why".into(),
        (false, false) => "refused; the model is not told why".into(),
    }
}

fn not_called(run: &Run) -> String {
    if run.timed_out {
        "NOT CALLED: the run hung before".into()
    } else {
        "NOT CALLED: the run ended before".into()
    }
}

fn rewrite(run: &Run, kind: &str) -> String {
    let word = format!("rewrite-{kind}");
    if records(run, "PreToolUse", &word).is_empty() {
        return not_called(run);
    }
    match run
        .file(&format!("{word}.marker"))
        .map(|text| text.trim().to_string())
    {
        Some(text) if text.ends_with("-rewritten") => "runs rewritten".into(),
        Some(_) => "RAN UNREWRITTEN".into(),
        None if run.model_saw(&format!("{word}-rewritten")) => {
            "refused; the model reads the rewrite".into()
        }
        None => "refused".into(),
    }
}

/// The cells of one agent's column, from its tool run and its prompt run. `events` is the
/// agent's table (hookhost's event names it has).
pub fn cells(agent_events: &[&str], tools: &Run, prompt: &Run) -> Vec<String> {
    let mut cells = vec![
        refusal(
            tools,
            "deny-by-command",
            "deny-by-command.marker",
            DENY_COMMAND_REASON,
        ),
        refusal(
            tools,
            "deny-by-wasm",
            "deny-by-wasm.marker",
            DENY_WASM_REASON,
        ),
        match (
            records(tools, "PreToolUse", "touch allowed.marker").is_empty(),
            tools.file("allowed.marker"),
        ) {
            (true, _) => not_called(tools),
            (false, Some(_)) => "runs".into(),
            (false, None) => "DID NOT RUN".into(),
        },
        rewrite(tools, "approved"),
        rewrite(tools, "allowed"),
        if tools.timed_out
            && tools.file("ask-me.marker").is_none()
            && !records(tools, "PreToolUse", "ask-me").is_empty()
        {
            format!(
                "HANGS (killed after {} s)",
                crate::run::RUN_TIMEOUT.as_secs()
            )
        } else if records(tools, "PreToolUse", "ask-me").is_empty() {
            not_called(tools)
        } else if tools.file("ask-me.marker").is_some() {
            "runs (confirmed)".into()
        } else if tools.model_saw(ASK_QUESTION) {
            "refused; the model reads the guard's question".into()
        } else {
            "refused".into()
        },
    ];
    for event in CONTEXT_EVENTS {
        cells.push(if !agent_events.contains(&event) {
            "- (no such event)".into()
        } else if !fired(tools, event) {
            "DID NOT FIRE".into()
        } else if tools.model_saw(&context_of(event)) {
            "reaches the model".into()
        } else {
            "not read (said on stderr)".into()
        });
    }
    cells.push(
        match (
            prompt.model_saw("BLOCK-THIS-PROMPT"),
            prompt.file("prompt-blocked.marker"),
            fired(prompt, "UserPromptSubmit"),
        ) {
            (_, _, false) => "DID NOT FIRE".into(),
            (false, None, true) => "the prompt never reaches the model".into(),
            _ => "THE PROMPT REACHED THE MODEL".into(),
        },
    );
    let stops: Vec<&Value> = tools
        .decisions
        .iter()
        .filter(|record| record["event"] == "Stop")
        .collect();
    cells.push(if stops.is_empty() {
        "DID NOT FIRE".into()
    } else if tools.model_saw(STOP_REASON) {
        "the agent goes on once, the reason its next prompt".into()
    } else {
        "THE AGENT STOPPED".into()
    });
    cells.push(log_cell(tools, prompt));
    cells
}

/// The decisions the log must hold, given what the runs did.
fn log_cell(tools: &Run, prompt: &Run) -> String {
    let mut missing = Vec::new();
    let mut expect = |run: &Run, event: &str, word: Option<&str>, decision: &str, by: &str| {
        let found = run.decisions.iter().any(|record| {
            record["event"] == event
                && word.is_none_or(|word| record["input"].to_string().contains(word))
                && record["decision"] == decision
                && record["decided_by"] == by
        });
        if !found {
            missing.push(format!("{event} {decision} by {by}"));
        }
    };
    for (word, decision, by) in [
        ("deny-by-command", "block", "command-guard"),
        ("deny-by-wasm", "block", "wasm-guard"),
        ("rewrite-approved", "approve", "rewrite-guard"),
        ("ask-me", "ask", "ask-guard"),
    ] {
        if !records(tools, "PreToolUse", word).is_empty()
            || tools.file(&format!("{word}.marker")).is_some()
        {
            expect(tools, "PreToolUse", Some(word), decision, by);
        }
    }
    if fired(tools, "Stop") {
        expect(tools, "Stop", None, "block", "stop-once");
    }
    if fired(prompt, "UserPromptSubmit") {
        expect(prompt, "UserPromptSubmit", None, "block", "prompt-guard");
    }
    let unnamed = tools
        .decisions
        .iter()
        .chain(&prompt.decisions)
        .filter(|record| {
            record["agent"]
                .as_str()
                .is_none_or(|agent| agent.starts_with("hookhost"))
        })
        .count();
    if unnamed > 0 {
        missing.push(format!("{unnamed} records without the agent's name"));
    }
    if missing.is_empty() {
        "every decision recorded".to_string()
    } else {
        format!("MISSING: {}", missing.join(", "))
    }
}

/// The client path's row: the same cells as through agent-hook, every call answered by the
/// daemon.
pub fn client_cell(direct: &[String], through_client: &[String], logs: [&Run; 2]) -> String {
    let differing: Vec<String> = ROWS
        .iter()
        .zip(direct.iter().zip(through_client))
        .filter(|(_, (a, b))| a != b)
        .map(|(row, (a, b))| format!("{row}: {b:?} (agent-hook: {a:?})"))
        .collect();
    let answered: Vec<&str> = logs
        .iter()
        .filter_map(|run| run.client_log.as_deref())
        .flat_map(str::lines)
        .collect();
    let in_process = answered
        .iter()
        .filter(|line| !line.starts_with("daemon"))
        .count();
    if !differing.is_empty() {
        format!("DIFFERS: {}", differing.join("; "))
    } else if answered.is_empty() {
        "NO CALL REACHED hookhost-client".into()
    } else if in_process > 0 {
        format!(
            "the same; {in_process} of {} calls NOT BY THE DAEMON: {}",
            answered.len(),
            answered
                .iter()
                .find(|line| !line.starts_with("daemon"))
                .unwrap()
        )
    } else {
        "the same answers, every call by the daemon".into()
    }
}
