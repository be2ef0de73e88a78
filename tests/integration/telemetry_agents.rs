//! OpenTelemetry export from `hookhost agent-hook`, one process per tool call, to a real OTLP
//! receiver on loopback: the event's span and its hooks' spans with the decision log's id as
//! their trace id, configured by `[telemetry]` or by the `OTEL_*` variables alone; and an agent
//! that gets its answer, within the exit bound, when the collector is dead or silent.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::telemetry::otlp::{self, Behaviour, Receiver};
use crate::telemetry::{spans, string};

use crate::support::{Project, hook};

const BLOCKS_RM: &str = r#"if grep -q 'rm -rf'; then echo '{"action":"block","reason":"no rm"}'; else echo '{"action":"allow"}'; fi"#;

struct Reply {
    stdout: String,
    stderr: String,
    took: Duration,
}

/// `hookhost agent-hook --format claude` on a Bash call of `command`, with `env` set.
fn agent_hook(project: &Project, command: &str, env: &[(&str, &str)]) -> Reply {
    let mut agent = crate::support::agent_hook_command(project);
    agent.envs(env.iter().copied());
    let started = Instant::now();
    let event = crate::support::claude_bash_event(project, "s-7", command);
    let out = crate::support::with_stdin(&mut agent, event)
        .wait_with_output()
        .unwrap();
    Reply {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        took: started.elapsed(),
    }
}

/// Writes the user's own hooks.toml (where `[telemetry]` is read from).
fn user_config(project: &Project, toml: &str) {
    let dir = project.path(".no-user-config");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hooks.toml"), toml).unwrap();
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn an_agent_hook_process_exports_its_decision_before_it_exits() {
    for protocol in ["http/protobuf", "grpc"] {
        let receiver = match protocol {
            "grpc" => Receiver::grpc(Behaviour::Accept),
            _ => Receiver::http(Behaviour::Accept),
        };
        let project = Project::new();
        user_config(
            &project,
            &format!(
                "[telemetry]\nendpoint = \"{}\"\nprotocol = \"{protocol}\"\n",
                receiver.url()
            ),
        );
        project.config(&format!(
            "[log]\npath = \"decisions.jsonl\"\n\n{}",
            hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\"")
        ));
        let reply = agent_hook(&project, "rm -rf /", &[]);
        assert!(reply.stdout.contains("\"deny\""), "{}", reply.stdout);
        assert!(reply.stderr.is_empty(), "{protocol}: {}", reply.stderr);
        // Sent before the process exited: nothing to wait for.
        let spans = spans(&receiver);
        let event = spans
            .iter()
            .find(|span| span.name == "hookhost PreToolUse")
            .unwrap_or_else(|| panic!("{protocol}: the event's span in {spans:#?}"));
        assert_eq!(string(&event.attributes, "gen_ai.tool.name"), Some("Bash"));
        assert_eq!(
            string(&event.attributes, "hookhost.decision"),
            Some("block")
        );
        assert_eq!(
            string(&event.attributes, "hookhost.decided_by"),
            Some("no-rm")
        );
        let child = spans
            .iter()
            .find(|span| span.parent_span_id == event.span_id)
            .expect("the hook's span");
        assert_eq!(child.trace_id, event.trace_id);
        assert!(child.name.contains("no-rm"), "{}", child.name);
        // The log's record and the trace are one decision.
        let record: Value = serde_json::from_str(
            project
                .read(".forgeflare/decisions.jsonl")
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            record["id"].as_str().unwrap().replace('-', ""),
            hex(&event.trace_id),
            "{protocol}"
        );
    }
}

#[test]
fn the_otel_variables_alone_turn_the_export_on() {
    let receiver = Receiver::http(Behaviour::Accept);
    let project = Project::new();
    project.config(&hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\""));
    let url = receiver.url();
    let reply = agent_hook(
        &project,
        "ls",
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &url),
            ("OTEL_SERVICE_NAME", "agents-of-team-a"),
        ],
    );
    assert!(!reply.stdout.contains("\"deny\""), "{}", reply.stdout);
    let spans = spans(&receiver);
    assert!(
        spans
            .iter()
            .any(|span| string(&span.attributes, "hookhost.decision") == Some("allow")),
        "{spans:#?}"
    );
    let service = receiver.with(|received| {
        received.traces[0].resource_spans[0]
            .resource
            .as_ref()
            .and_then(|resource| string(&resource.attributes, "service.name"))
            .map(str::to_string)
    });
    assert_eq!(service.as_deref(), Some("agents-of-team-a"));
    // Off unless configured: no variable, no table, no request.
    let quiet = Receiver::http(Behaviour::Accept);
    agent_hook(&project, "ls", &[]);
    assert_eq!(quiet.with(|received| received.requests), 0);
}

#[test]
fn a_dead_or_silent_collector_costs_the_agent_at_most_the_exit_bound() {
    let silent = Receiver::http(Behaviour::Hang);
    for endpoint in [format!("http://{}", otlp::closed_port()), silent.url()] {
        let project = Project::new();
        user_config(
            &project,
            &format!("[telemetry]\nendpoint = \"{endpoint}\"\nexit_timeout_ms = 300\n"),
        );
        project.config(&format!(
            "[log]\npath = \"decisions.jsonl\"\n\n{}",
            hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\"")
        ));
        let reply = agent_hook(&project, "rm -rf /", &[]);
        // The decision stands, the log has it, and the loss is said.
        assert!(reply.stdout.contains("\"deny\""), "{}", reply.stdout);
        assert!(
            project
                .read(".forgeflare/decisions.jsonl")
                .contains("\"block\"")
        );
        assert!(
            reply.stderr.contains("telemetry:") && reply.stderr.contains("not exported"),
            "{endpoint}: {}",
            reply.stderr
        );
        assert!(
            reply.took < Duration::from_millis(300) + Duration::from_secs(3),
            "{endpoint}: {:?}",
            reply.took
        );
    }
}

#[test]
fn a_projects_telemetry_table_sends_nothing_and_says_so() {
    let receiver = Receiver::http(Behaviour::Accept);
    let project = Project::new();
    project.config(&format!(
        "[telemetry]\nendpoint = \"{}\"\nlogs = true\n\n{}",
        receiver.url(),
        hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\"")
    ));
    let reply = agent_hook(&project, "rm -rf /", &[]);
    assert!(reply.stdout.contains("\"deny\""), "{}", reply.stdout);
    assert!(
        reply.stderr.contains("[telemetry] in ")
            && reply
                .stderr
                .contains("is ignored: only your own hooks.toml")
            && reply
                .stderr
                .contains(") says where decisions are sent, not a project's"),
        "{}",
        reply.stderr
    );
    assert_eq!(receiver.with(|received| received.requests), 0);
}

/// `hookhost log --export` for the project, with the user's configuration.
fn export(project: &Project) -> std::process::Output {
    hookhost(project, &["log", "--export"])
}

/// `hookhost ARGS` in the project, with the user's configuration and no `OTEL_*` variables.
fn hookhost(project: &Project, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(args)
        .current_dir(project.root())
        .env("HOOKHOST_CONFIG_DIR", project.path(".no-user-config"))
        .env("HOOKHOST_DATA_DIR", project.path(".no-user-data"))
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .output()
        .unwrap()
}

#[test]
fn spooled_records_wait_in_the_log_and_log_export_sends_each_once() {
    let receiver = Receiver::http(Behaviour::Accept);
    let project = Project::new();
    let user_toml = |endpoint: &str| {
        format!(
            "[log]\npath = \"decisions.jsonl\"\nmax_bytes = 65536\nkeep = 3\n\n\
             [telemetry]\nendpoint = \"{endpoint}\"\nspool = true\n"
        )
    };
    user_config(&project, &user_toml(&receiver.url()));
    project.config(&hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\""));
    for command in ["ls", "rm -rf /", "pwd"] {
        let reply = agent_hook(&project, command, &[]);
        assert!(reply.stderr.is_empty(), "{}", reply.stderr);
    }
    // The agents sent nothing: the records wait in the log.
    assert_eq!(receiver.with(|received| received.requests), 0);
    let log = project.path(".no-user-config/decisions.jsonl");
    let ids = |text: &str| -> Vec<String> {
        text.lines()
            .map(|line| {
                let record: Value = serde_json::from_str(line).unwrap();
                record["id"].as_str().unwrap().replace('-', "")
            })
            .collect()
    };
    let written = ids(&std::fs::read_to_string(&log).unwrap());
    assert_eq!(written.len(), 3);

    let out = export(&project);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("exported 3 record(s)"));
    let traced = |receiver: &Receiver| -> Vec<String> {
        let mut ids: Vec<String> = spans(receiver)
            .iter()
            .filter(|span| span.name == "hookhost PreToolUse")
            .map(|span| hex(&span.trace_id))
            .collect();
        ids.sort();
        ids
    };
    let mut expected = written.clone();
    expected.sort();
    assert_eq!(traced(&receiver), expected);

    // Nothing new: nothing sent. Then one more event, across a rotation (64 KiB files).
    let out = export(&project);
    assert!(String::from_utf8_lossy(&out.stdout).contains("exported 0 record(s)"));
    agent_hook(&project, &format!("echo {}", "x".repeat(70_000)), &[]);
    agent_hook(&project, "date", &[]);
    let out = export(&project);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("exported 2 record(s)"),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(traced(&receiver).len(), 5);

    // A dead collector: the export fails, says so, and the next one sends the same records.
    agent_hook(&project, "whoami", &[]);
    user_config(
        &project,
        &user_toml(&format!("http://{}", otlp::closed_port())),
    );
    let out = export(&project);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the next `hookhost log --export` sends"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    user_config(&project, &user_toml(&receiver.url()));
    // Exports take turns: one that finds another running stops.
    {
        use std::os::fd::AsRawFd as _;
        let lock =
            std::fs::File::create(project.path(".no-user-config/decisions.jsonl.exported.lock"))
                .unwrap();
        // SAFETY: `lock` is open until the end of this block, which releases the lock.
        assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
        let out = export(&project);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("another `hookhost log --export` is running"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = export(&project);
    assert!(String::from_utf8_lossy(&out.stdout).contains("exported 1 record(s)"));
    assert_eq!(traced(&receiver).len(), 6);
}

#[test]
fn check_says_where_decisions_go_and_which_telemetry_table_is_ignored() {
    let project = Project::new();
    user_config(
        &project,
        "[log]\npath = \"decisions.jsonl\"\nrequired = true\n\n[telemetry]\nendpoint = \"http://collector.internal:4318\"\nspool = true\n",
    );
    project.config(&format!(
        "[telemetry]\nendpoint = \"http://elsewhere.example:4318\"\n\n{}",
        hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\"")
    ));
    let out = hookhost(&project, &["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("decision log: ")
            && stdout.contains(".no-user-config/decisions.jsonl (rotated past 10485760 bytes, 5 old file(s) kept; required"),
        "{stdout}"
    );
    assert!(
        stdout.contains("telemetry: OTLP to http://collector.internal:4318; spooled"),
        "{stdout}"
    );
    assert!(
        stdout.contains("warning: [telemetry] in ")
            && stdout.contains(".forgeflare/hooks.toml is ignored"),
        "{stdout}"
    );
}

#[test]
fn an_unusable_otel_variable_turns_telemetry_off_with_a_warning_and_the_decision_stands() {
    let receiver = Receiver::http(Behaviour::Accept);
    let project = Project::new();
    user_config(
        &project,
        &format!("[telemetry]\nendpoint = \"{}\"\n", receiver.url()),
    );
    project.config(&hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\""));
    let reply = agent_hook(
        &project,
        "rm -rf /",
        &[("OTEL_EXPORTER_OTLP_PROTOCOL", "carrier-pigeon")],
    );
    assert!(reply.stdout.contains("\"deny\""), "{}", reply.stdout);
    assert!(
        reply.stderr.contains("telemetry is off: ")
            && reply.stderr.contains("OTEL_EXPORTER_OTLP_PROTOCOL"),
        "{}",
        reply.stderr
    );
    assert_eq!(receiver.with(|received| received.requests), 0);
}
