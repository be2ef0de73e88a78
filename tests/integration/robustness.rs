//! Several agents in one project: convergence.json shared by writer processes.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use hookhost::ToolCall;
use hookhost::convergence::{ConvergenceError, ConvergenceStore, LOCK_WAIT, Observation};
use serde_json::json;

use crate::support::{Project, child_test, hook};

const WRITERS: usize = 4;
const APPENDS: usize = 200;

/// One writer process, started by the next test: appends APPENDS observations named
/// `w{writer}-{n}` one by one, and prints the ones that were acknowledged (an append that
/// returned Ok acknowledges its own observations and any an earlier busy append kept).
#[ignore = "a child process the test after it starts (support::child_test)"]
#[test]
fn convergence_writer_child() {
    let Some(dir) = std::env::var_os("HOOKHOST_CONVERGENCE_DIR") else {
        return;
    };
    let writer = std::env::var("HOOKHOST_CONVERGENCE_WRITER").unwrap();
    let store = ConvergenceStore::new(dir);
    let mut acknowledged = Vec::new();
    let mut kept = Vec::new();
    let mut busy = 0;
    for n in 0..APPENDS {
        let signal = format!("w{writer}-{n}");
        let observation = Observation {
            signal: signal.clone(),
            reason: "parallel agent".into(),
            tool_iterations: n,
        };
        match store.append_observations(&[observation]) {
            Ok(warnings) => {
                assert!(warnings.is_empty(), "{warnings:?}");
                acknowledged.append(&mut kept);
                acknowledged.push(signal);
            }
            Err(ConvergenceError::Locked { .. }) => {
                busy += 1;
                kept.push(signal);
            }
            Err(error) => panic!("{error}"),
        }
    }
    // The harness has printed "test NAME ... " without a newline.
    println!("\nbusy {busy}");
    println!("acknowledged {}", acknowledged.join(" "));
}

fn spawn_writer(dir: &Path, writer: usize) -> Child {
    child_test("robustness::convergence_writer_child")
        .env("HOOKHOST_CONVERGENCE_DIR", dir)
        .env("HOOKHOST_CONVERGENCE_WRITER", writer.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn parallel_writer_processes_lose_no_acknowledged_observation() {
    let project = Project::new();
    let dir = project.path(".forgeflare");
    let file = dir.join("convergence.json");
    let mut children: Vec<Child> = (0..WRITERS).map(|w| spawn_writer(&dir, w)).collect();

    // While they write, every look at the file finds whole JSON, and once the file exists it
    // never disappears (the rename replaces it in one step).
    let mut looks = 0;
    let mut existed = false;
    while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
        match std::fs::read(&file) {
            Ok(bytes) => {
                existed = true;
                looks += 1;
                if let Err(error) = serde_json::from_slice::<serde_json::Value>(&bytes) {
                    panic!("torn convergence.json after {looks} looks: {error}");
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                assert!(!existed, "convergence.json vanished during the writes");
            }
            Err(error) => panic!("{error}"),
        }
        std::thread::sleep(Duration::from_millis(2));
    }

    let mut acknowledged = BTreeSet::new();
    let mut busy = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "a writer failed:\n{stdout}");
        for line in stdout.lines() {
            if let Some(signals) = line.strip_prefix("acknowledged ") {
                acknowledged.extend(signals.split(' ').map(str::to_string));
            } else if let Some(count) = line.strip_prefix("busy ") {
                busy += count.parse::<usize>().unwrap();
            }
        }
    }
    println!(
        "{looks} looks at the file; {} acknowledged; {busy} appends found the lock busy",
        acknowledged.len()
    );

    let state = ConvergenceStore::read(&file).unwrap();
    let mut written = BTreeSet::new();
    let mut last_of_writer: BTreeMap<String, usize> = BTreeMap::new();
    for observation in &state.observations {
        assert!(
            written.insert(observation.signal.clone()),
            "{} written twice",
            observation.signal
        );
        // Each writer's observations keep their order.
        let writer = observation.signal.split('-').next().unwrap().to_string();
        if let Some(last) = last_of_writer.insert(writer, observation.tool_iterations) {
            assert!(last < observation.tool_iterations, "{}", observation.signal);
        }
    }
    // The file keeps the first observation and the newest, and counts the ones it dropped
    // (issue 32): an update lost to a concurrent writer would be neither kept nor counted.
    let unacknowledged: Vec<_> = written.difference(&acknowledged).collect();
    assert!(
        unacknowledged.is_empty(),
        "written, never acknowledged: {unacknowledged:?}"
    );
    assert_eq!(
        state.observations.len() as u64 + state.dropped_observations,
        acknowledged.len() as u64,
        "every acknowledged observation is kept or counted as dropped"
    );
    assert!(
        acknowledged.len() + busy >= WRITERS * APPENDS,
        "every append was acknowledged or reported busy"
    );
    assert!(
        !dir.join("convergence.json.corrupt").exists(),
        "no writer ever read a torn file"
    );
}

#[tokio::test]
async fn a_lock_held_by_another_process_is_a_warning_naming_the_signal_within_the_bound() {
    let project = Project::new();
    let runner = project.runner(&hook(
        "PostToolUse",
        r#"echo '{"action":"signal","signal":"tests_pass","reason":"green"}'"#,
        "name = \"ci\"",
    ));
    let lock = project.path(".forgeflare/convergence.json.lock");
    // A real second process holds the lock (util-linux flock(1) takes the same flock(2)) until
    // its stdin closes; `-o`: only flock itself holds the lock, not the command it runs.
    let mut holder = std::process::Command::new("flock")
        .args(["-o".as_ref(), lock.as_os_str()])
        .args(["-c", "echo locked; exec cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("flock(1) from util-linux is needed for this test");
    let mut line = String::new();
    BufReader::new(holder.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "locked\n");

    let input = json!({"command": "cargo test"});
    let call = ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 4,
    };
    let started = Instant::now();
    let outcome = runner.post_tool_use(call, "ok", false).await;
    let took = started.elapsed();
    drop(holder.stdin.take());
    assert!(holder.wait().unwrap().success());

    assert_eq!(
        outcome.signal().unwrap().signal,
        "tests_pass",
        "R8: unchanged"
    );
    assert_eq!(outcome.warnings.len(), 1, "{:?}", outcome.warnings);
    let warning = &outcome.warnings[0];
    assert!(
        warning.starts_with(&format!("could not lock {} within ", lock.display())),
        "{warning}"
    );
    assert!(
        warning.ends_with(
            "another process holds it; not written: 1 observation (\"tests_pass\" at \
             tool_iterations 4); this runner keeps the observations and writes them with its \
             next write"
        ),
        "{warning}"
    );
    // Generous: the bound is LOCK_WAIT, a hung peer must not hold the agent much longer.
    assert!(took < LOCK_WAIT * 10, "took {took:?}");
    assert!(!project.path(".forgeflare/convergence.json").exists());

    // The lock is free again: the kept observation goes in with the next one.
    let outcome = runner.post_tool_use(call, "ok", false).await;
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    let json = project.read_json(".forgeflare/convergence.json");
    assert_eq!(json["observations"].as_array().unwrap().len(), 2, "{json}");
}
