//! How an agent wires every event of its lifecycle to hookhost (docs/library.md, "Using the
//! library"). Run it with `cargo run --example agent_loop`: it writes a small hooks.toml into a
//! temporary directory and drives one session through it.

use hookhost::{
    Decision, Event, HookRunner, NativeHook, RunnerOptions, StopReason, ToolCall, Verdict,
};

const HOOKS: &str = r#"
[[hooks]]
name = "context"
event = "SessionStart"
command = "echo '{\"action\":\"allow\",\"context\":\"the tests live in tests/\"}'"

[[hooks]]
name = "no-rm"
event = "PreToolUse"
matcher = "Bash"
protocol = "claude"
command = "jq -r .tool_input.command | grep -q 'rm -rf' && { echo 'recursive delete' >&2; exit 2; }; exit 0"

[[hooks]]
name = "audit"
event = ["PreToolUse", "PostToolUse", "SessionEnd"]
async = true
command = "cat >> audit.jsonl; echo >> audit.jsonl"
"#;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let project = tempfile::tempdir()?;
    std::fs::write(project.path().join("hooks.toml"), HOOKS)?;

    let mut options = RunnerOptions::new(project.path());
    options.env = vec![("AGENT_NAME".into(), "agent-loop".into())];
    let runner = HookRunner::load(project.path().join("hooks.toml"), options)?;
    runner.register(
        NativeHook::new("no-sudo", "PreToolUse", |input| {
            match input
                .tool_call()
                .and_then(|call| call.input["command"].as_str())
            {
                Some(command) if command.starts_with("sudo") => Verdict::block("no sudo here"),
                _ => Verdict::allow(),
            }
        })?
        .with_matcher("Bash")?,
    );

    let start = runner
        .fire(&Event::session_start("startup").with_session("260215-173319"))
        .await;
    println!("SessionStart context: {:?}", start.context_text());

    for command in ["cargo test", "rm -rf target", "sudo reboot"] {
        let input = serde_json::json!({ "command": command });
        let call = ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 1,
        };
        let pre = runner.fire(&Event::pre_tool_use(call)).await;
        match &pre.decision {
            Decision::Block(block) => println!("{command}: {}", block.message()),
            Decision::Ask(notice) => println!("{command}: ask the user: {}", notice.reason),
            _ => {
                let input = pre.updated_input.as_ref().unwrap_or(&input);
                let result = "test result: ok";
                let post = runner
                    .fire(&Event::post_tool_use(
                        ToolCall { input, ..call },
                        result,
                        false,
                    ))
                    .await;
                println!("{command}: ran; signal: {:?}", post.signal());
            }
        }
    }
    runner
        .fire(&Event::stop(StopReason::EndTurn, 1, 1200))
        .await;
    let end = runner.fire(&Event::session_end("other")).await;
    println!(
        "SessionEnd drained {} async audit calls; audit.jsonl has {} lines",
        end.reports.iter().filter(|r| r.background).count(),
        std::fs::read_to_string(project.path().join("audit.jsonl"))?
            .lines()
            .filter(|l| !l.is_empty())
            .count()
    );
    Ok(())
}
