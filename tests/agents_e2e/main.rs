//! End to end with the agents' own CLIs: Claude Code, Copilot CLI, Codex CLI and Gemini CLI, at
//! pinned versions (installed by `.ci/run` from npm into `.ci/agents/`), each run
//! non-interactively against a scripted model on loopback, its hook settings written as
//! docs/agents.md says, calling `hookhost agent-hook` and, in a second set of runs,
//! `hookhost-client` with a daemon. What each agent did with hookhost's answers is the matrix
//! of docs/agents.md ("What each agent does with hookhost's answers"), generated here: the test
//! writes it to `target/agents-matrix.md` and fails when the docs' copy differs, naming the
//! command that refreshes it.
//!
//! A test of its own binary so that `cargo test --test agents_e2e` runs it alone (it takes
//! minutes: sixteen agent runs). Nothing leaves the machine: where the test runs as root each
//! agent runs in a network namespace with only `lo` up ([`netns`]), and every agent's
//! telemetry, update and non-essential traffic switches are off ([`agents`]).

mod agents;
mod model;
mod netns;
mod run;
mod scenario;

#[path = "../common/wasm_build.rs"]
mod wasm_build;

use std::path::Path;
use std::time::Instant;

use agents::{AGENTS, Agent};
use run::{Harness, Run, Via};
use scenario::{ROWS, cells, client_cell};

/// What each agent must do with each answer: the rows of [`ROWS`] but the last, which says how
/// its trust gates were passed. A change here is a change of the matrix in docs/agents.md.
fn expected(agent: &Agent) -> [&'static str; 15] {
    let refused = "refused; the model reads why";
    // Claude Code and Copilot CLI refuse an ask they cannot put under `-p`; Codex cannot ask,
    // and Gemini's `gemini -p` would wait for ever: hookhost refuses those. Every one of them
    // gives the model the guard's question.
    let ask = "refused; the model reads the guard's question";
    let (pre_context, failure_context) = match agent.format {
        "claude" | "copilot" => ("reaches the model", "reaches the model"),
        "codex" => ("reaches the model", "- (no such event)"),
        // Gemini reads no context on BeforeTool.
        "gemini" => ("not read (said on stderr)", "- (no such event)"),
        other => unreachable!("{other}"),
    };
    let rewrite_allowed = match agent.format {
        // Claude Code applies a rewrite only with a permission decision, and hookhost never
        // allows on a guard's behalf: it asks, which `claude -p` denies.
        "claude" => "refused",
        _ => "runs rewritten",
    };
    [
        refused,
        refused,
        "runs",
        "runs rewritten",
        rewrite_allowed,
        ask,
        "reaches the model",
        "reaches the model",
        pre_context,
        "reaches the model",
        failure_context,
        "the prompt never reaches the model",
        "the agent goes on once, the reason its next prompt",
        "every decision",
        "the same answers, every call by the daemon",
    ]
}

/// Both runs of one agent through one hook path.
struct Runs {
    tools: Run,
    prompt: Run,
}

#[test]
fn each_agent_does_what_hookhost_answers() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Missing agents fail here, naming the install command, before anything is built.
    let binaries: Vec<_> = AGENTS.iter().map(|agent| agent.binary(repo)).collect();
    let wasm = wasm_build::build_wasm(
        &repo.join("tests/fixtures/phrase-guard/Cargo.toml"),
        &[],
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("../fixtures"),
    )
    .join("phrase_guard.wasm");
    let harness = Harness::new(scenario::hooks_toml(&wasm));
    let started = Instant::now();
    // Two agents at a time: each run is mostly a node process starting and waiting.
    let results: Vec<(usize, [Runs; 2], Vec<String>)> = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for pair in (0..AGENTS.len()).collect::<Vec<_>>().chunks(2) {
            let runs: Vec<_> = pair
                .iter()
                .map(|&i| {
                    let (harness, binary) = (&harness, &binaries[i]);
                    scope.spawn(move || run_agent(harness, &AGENTS[i], binary, i))
                })
                .collect();
            handles.extend(runs.into_iter().map(|handle| handle.join().unwrap()));
        }
        handles
    });
    eprintln!(
        "agents_e2e: all runs took {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let mut failures = Vec::new();
    let mut columns = Vec::new();
    for (i, [direct, client], gate_failures) in &results {
        let agent = &AGENTS[*i];
        let mut column = cells(agent.events, &direct.tools, &direct.prompt);
        let through_client = cells(agent.events, &client.tools, &client.prompt);
        column.push(client_cell(
            &column,
            &through_client,
            [&client.tools, &client.prompt],
        ));
        for ((row, got), want) in ROWS.iter().zip(&column).zip(expected(agent)) {
            if !got.starts_with(want) {
                failures.push(format!("{}: {row}: {got:?}, expected {want:?}", agent.name));
            }
        }
        failures.extend(gate_failures.iter().map(|f| format!("{}: {f}", agent.name)));
        column.push(agent.trust.to_string());
        columns.push((agent, column));
        if failures.iter().any(|f| f.starts_with(agent.name)) {
            for (label, run) in [
                ("agent-hook, tools", &direct.tools),
                ("agent-hook, prompt", &direct.prompt),
                ("client, tools", &client.tools),
                ("client, prompt", &client.prompt),
            ] {
                eprintln!(
                    "--- {} ({label}): status {:?}, {:.1} s, {} requests\nstdout:\n{}\nstderr:\n{}\ndecisions:\n{}",
                    agent.name,
                    run.status,
                    run.elapsed.as_secs_f64(),
                    run.requests.len(),
                    tail(&run.stdout),
                    tail(&run.stderr),
                    run.decisions
                        .iter()
                        .map(|record| format!(
                            "  {} {} {} {}",
                            record["event"],
                            record["decision"],
                            record["decided_by"],
                            record["input"]
                        ))
                        .collect::<Vec<_>>()
                        .join("\n")
                );
            }
        }
    }
    let network = &results[0].1[0].tools.network;
    let matrix = matrix(&columns, network);
    let written = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../agents-matrix.md");
    std::fs::write(&written, &matrix).unwrap();
    if let Err(problem) = docs_matrix_is(repo, &matrix) {
        failures.push(problem);
    }
    assert!(
        failures.is_empty(),
        "{} mismatch{}:\n{}\n\nthe matrix as observed: {}",
        failures.len(),
        if failures.len() == 1 { "" } else { "es" },
        failures.join("\n"),
        written.display()
    );
}

/// The last lines of an agent's output, for a failure's report.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// One agent's four runs: agent-hook then the client, each the tool run and the prompt run;
/// `hookhost check` around the trust gates in the first. Returns the runs and what `check`
/// got wrong.
fn run_agent(
    harness: &Harness,
    agent: &Agent,
    binary: &Path,
    index: usize,
) -> (usize, [Runs; 2], Vec<String>) {
    let prompt = scenario::tools_prompt();
    let mut runs = Vec::new();
    let mut gate_failures = Vec::new();
    for via in [Via::AgentHook, Via::Client] {
        let tools = harness.run(agent, binary, via, &prompt, via == Via::AgentHook);
        gate_failures.extend(gate_problems(agent, &tools.checks));
        let blocked = harness.run(agent, binary, via, scenario::BLOCKED_PROMPT, false);
        eprintln!(
            "agents_e2e: {} via {via:?}: tool run {:.1} s ({} requests), prompt run {:.1} s",
            agent.name,
            tools.elapsed.as_secs_f64(),
            tools.requests.len(),
            blocked.elapsed.as_secs_f64()
        );
        runs.push(Runs {
            tools,
            prompt: blocked,
        });
    }
    let [direct, client]: [Runs; 2] = runs.try_into().ok().unwrap();
    (index, [direct, client], gate_failures)
}

/// What `hookhost check` said wrong about the agent's trust gates: before they were passed it
/// must say the agent will not run the project's hooks (Claude Code has no gate under `-p`),
/// after, that it runs them.
fn gate_problems(agent: &Agent, checks: &[(String, String)]) -> Vec<String> {
    let runs = format!(
        "agent: {} runs the hooks of {}",
        agent.name, agent.settings_file
    );
    let skips = format!(
        "{} will not run the hooks of {}",
        agent.name, agent.settings_file
    );
    checks
        .iter()
        .filter_map(|(when, output)| {
            let want = match (agent.format, when.as_str()) {
                (_, "after") | ("claude", _) => &runs,
                _ => &skips,
            };
            (!output.contains(want.as_str())).then(|| {
                format!("hookhost check {when} the trust gates were passed does not say {want:?}:\n{output}")
            })
        })
        .collect()
}

/// The matrix, as docs/agents.md holds it between its markers.
fn matrix(columns: &[(&Agent, Vec<String>)], network: &str) -> String {
    let mut text = String::from(
        "<!-- agents-matrix: generated by tests/agents_e2e (HOOKHOST_AGENTS_MATRIX=write cargo test --test agents_e2e) -->\n",
    );
    text.push_str(&format!(
        "| answer (hookhost's default protocol) | {} |\n|---|{}\n",
        columns
            .iter()
            .map(|(agent, _)| format!("{} {}", agent.name, agent.version))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(columns.len())
    ));
    for (r, row) in ROWS.iter().enumerate() {
        text.push_str(&format!(
            "| {row} | {} |\n",
            columns
                .iter()
                .map(|(_, column)| column[r].replace('|', "\\|"))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    }
    text.push_str(&format!(
        "\nChecked against the versions in the header, each run with `-p` (Codex: `exec`), against a scripted model on loopback in {network}.\n"
    ));
    text.push_str("<!-- agents-matrix: end -->\n");
    text
}

/// Whether docs/agents.md holds `matrix`; with `HOOKHOST_AGENTS_MATRIX=write`, writes it there.
fn docs_matrix_is(repo: &Path, matrix: &str) -> Result<(), String> {
    let path = repo.join("docs/agents.md");
    let docs = std::fs::read_to_string(&path).unwrap();
    let start_marker = "<!-- agents-matrix: generated";
    let end_marker = "<!-- agents-matrix: end -->\n";
    let (Some(start), Some(end)) = (docs.find(start_marker), docs.find(end_marker)) else {
        return Err(format!(
            "docs/agents.md has no generated matrix (its markers {start_marker:?} and {end_marker:?})"
        ));
    };
    let current = &docs[start..end + end_marker.len()];
    if current == matrix {
        return Ok(());
    }
    if std::env::var("HOOKHOST_AGENTS_MATRIX").as_deref() == Ok("write") {
        let updated = format!(
            "{}{matrix}{}",
            &docs[..start],
            &docs[end + end_marker.len()..]
        );
        std::fs::write(&path, updated).unwrap();
        return Ok(());
    }
    Err("docs/agents.md's matrix is not what the agents did: refresh it with\n  HOOKHOST_AGENTS_MATRIX=write cargo test --test agents_e2e".to_string())
}
