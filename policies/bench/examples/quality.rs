//! How well the destructive policy tells dangerous commands from everyday ones, beside
//! destructive_command_guard (dcg) from crates.io, in one run: every line of `corpus.tsv` goes
//! through the native engine, the wasm component (through hookhost's `HookRunner`, as an agent
//! runs it; the two must agree), and dcg run as a Claude Code PreToolUse hook command (JSON
//! event on stdin, its JSON answer on stdout) in two configurations: its default, and every
//! pack it has enabled.
//!
//! ```sh
//! policies/bench/install-dcg.sh            # dcg 0.16.0 into target/dcg-0.16.0
//! cargo run --release -p policy-bench --example quality            # the tables
//! cargo run --release -p policy-bench --example quality -- --misses tune   # what the tuned part misses
//! ```
//!
//! `--native-only` skips the component and dcg (a quick loop while writing rules); `--no-dcg`
//! skips dcg (its columns read 0).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use policy_destructive::Policy;

struct Case {
    category: String,
    dangerous: bool,
    command: String,
    held_out: bool,
}

#[derive(Default, Clone, Copy)]
struct Tally {
    total: usize,
    native: usize,
    wasm: usize,
    dcg_default: usize,
    dcg_all: usize,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let native_only = args.iter().any(|a| a == "--native-only");
    let no_dcg = args.iter().any(|a| a == "--no-dcg");
    let misses = args
        .iter()
        .position(|a| a == "--misses")
        .map(|i| args.get(i + 1).cloned().unwrap_or_else(|| "tune".into()));
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../destructive");
    let crate_dir = crate_dir.as_path();
    let cases = read_corpus(&crate_dir.join("corpus.tsv"));
    let policy = Policy::default();
    let native: Vec<bool> = cases
        .iter()
        .map(|c| policy.check(&c.command).is_some())
        .collect();

    let (wasm, dcg_default, dcg_all) = if native_only {
        (
            native.clone(),
            vec![false; cases.len()],
            vec![false; cases.len()],
        )
    } else {
        let wasm = wasm_decisions(crate_dir, &cases);
        if no_dcg {
            (wasm, vec![false; cases.len()], vec![false; cases.len()])
        } else {
            let dcg = Dcg::find(crate_dir);
            let dcg_default = cases
                .iter()
                .map(|c| dcg.blocks(&c.command, false))
                .collect();
            let dcg_all = cases.iter().map(|c| dcg.blocks(&c.command, true)).collect();
            (wasm, dcg_default, dcg_all)
        }
    };

    let disagreements: Vec<&str> = cases
        .iter()
        .zip(native.iter().zip(&wasm))
        .filter(|(_, (n, w))| n != w)
        .map(|(c, _)| c.command.as_str())
        .collect();

    for (title, held_out) in [
        ("tuned part", Some(false)),
        ("held-out part", Some(true)),
        ("whole corpus", None),
    ] {
        let mut rows: BTreeMap<(bool, String), Tally> = BTreeMap::new();
        for (i, case) in cases.iter().enumerate() {
            if held_out.is_some_and(|h| h != case.held_out) {
                continue;
            }
            for key in [
                (case.dangerous, case.category.clone()),
                (case.dangerous, "ALL".to_string()),
            ] {
                let tally = rows.entry(key).or_default();
                tally.total += 1;
                tally.native += usize::from(native[i]);
                tally.wasm += usize::from(wasm[i]);
                tally.dcg_default += usize::from(dcg_default[i]);
                tally.dcg_all += usize::from(dcg_all[i]);
            }
        }
        println!("\n## {title}\n");
        for dangerous in [true, false] {
            let what = if dangerous {
                "dangerous: blocked"
            } else {
                "everyday: falsely blocked"
            };
            println!(
                "| {what} | n | policy (native) | policy (wasm) | dcg default | dcg all packs |"
            );
            println!("|---|---:|---:|---:|---:|---:|");
            for ((d, category), t) in rows.iter().filter(|((d, _), _)| *d == dangerous) {
                let _ = d;
                let pct =
                    |n: usize| format!("{n} ({:.0}%)", 100.0 * n as f64 / t.total.max(1) as f64);
                let name = if category == "ALL" {
                    "**all**".to_string()
                } else {
                    category.clone()
                };
                println!(
                    "| {name} | {} | {} | {} | {} | {} |",
                    t.total,
                    pct(t.native),
                    pct(t.wasm),
                    pct(t.dcg_default),
                    pct(t.dcg_all)
                );
            }
            println!();
        }
    }
    println!(
        "native and wasm disagree on {} commands",
        disagreements.len()
    );
    for command in &disagreements {
        println!("  disagree: {command:?}");
    }
    if let Some(part) = misses {
        println!("\n## misses ({part})");
        for (i, case) in cases.iter().enumerate() {
            let wanted = match part.as_str() {
                "held-out" => case.held_out,
                "all" => true,
                _ => !case.held_out,
            };
            if wanted && native[i] != case.dangerous {
                let found = policy
                    .check(&case.command)
                    .map(|f| f.reason())
                    .unwrap_or_default();
                let kind = if case.dangerous {
                    "missed"
                } else {
                    "false block"
                };
                println!("{kind}\t{}\t{:?}\t{found}", case.category, case.command);
            }
        }
    }
    if !disagreements.is_empty() {
        std::process::exit(1);
    }
}

fn read_corpus(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut held_out = false;
    let mut cases = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line == "# held-out" {
            held_out = true;
            continue;
        }
        if line.starts_with('#') || line.starts_with("category\t") || line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            fields.len(),
            4,
            "{}:{}: expected 4 tab-separated columns",
            path.display(),
            number + 1
        );
        assert!(
            matches!(fields[1], "dangerous" | "everyday"),
            "{}:{}: label must be dangerous or everyday",
            path.display(),
            number + 1
        );
        cases.push(Case {
            category: fields[0].to_string(),
            dangerous: fields[1] == "dangerous",
            command: unescape(fields[2]),
            held_out,
        });
    }
    cases
}

/// The corpus's escapes: `\n`, `\t`, `\\`.
fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Builds the component and runs every case through `HookRunner`, as an agent would.
fn wasm_decisions(crate_dir: &Path, cases: &[Case]) -> Vec<bool> {
    let workspace = crate_dir.join("../..");
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--quiet",
            "--release",
            "--target",
            "wasm32-wasip2",
            "-p",
            "policy-destructive",
            "--target-dir",
        ])
        .arg(&target_dir)
        .current_dir(&workspace)
        .env_remove("RUSTFLAGS")
        .status()
        .expect("cargo runs");
    assert!(
        status.success(),
        "cargo build --release --target wasm32-wasip2 -p policy-destructive failed (rustup target add wasm32-wasip2?)"
    );
    let wasm = target_dir.join("wasm32-wasip2/release/policy_destructive.wasm");
    let scratch = std::env::temp_dir().join(format!("policy-quality-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch directory");
    let config = scratch.join("hooks.toml");
    std::fs::write(
        &config,
        format!("[[hooks]]\nname = \"destructive\"\nevent = \"PreToolUse\"\nwasm = {:?}\ntimeout_ms = 5000\n", wasm.display().to_string()),
    )
    .expect("hooks.toml written");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let runner = hookhost::HookRunner::load(&config, hookhost::RunnerOptions::new(&scratch))
        .expect("the component loads");
    let decisions = cases
        .iter()
        .map(|case| {
            let input = serde_json::json!({ "command": case.command });
            let call = hookhost::ToolCall {
                tool: "Bash",
                input: &input,
                tool_iterations: 1,
            };
            let outcome = runtime.block_on(runner.fire(&hookhost::Event::pre_tool_use(call)));
            matches!(
                outcome.decision,
                hookhost::Decision::Block(_) | hookhost::Decision::Ask(_)
            )
        })
        .collect();
    let _ = std::fs::remove_dir_all(&scratch);
    decisions
}

/// destructive_command_guard, run as Claude Code runs a PreToolUse hook command.
struct Dcg {
    binary: PathBuf,
    home: PathBuf,
    all_packs_config: PathBuf,
}

impl Dcg {
    fn find(crate_dir: &Path) -> Dcg {
        let binary = std::env::var_os("DCG")
            .map(PathBuf::from)
            .unwrap_or_else(|| crate_dir.join("../../target/dcg-0.16.0/bin/dcg"));
        assert!(
            binary.exists(),
            "dcg is not installed at {}: run policies/bench/install-dcg.sh (or set DCG=/path/to/dcg 0.16.0)",
            binary.display()
        );
        let home = std::env::temp_dir().join(format!("policy-quality-dcg-{}", std::process::id()));
        std::fs::create_dir_all(home.join(".config")).expect("a home for dcg");
        let packs = Command::new(&binary)
            .args(["packs", "--format", "json"])
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .output()
            .expect("dcg packs runs");
        let listing: serde_json::Value =
            serde_json::from_slice(&packs.stdout).unwrap_or_else(|e| {
                panic!(
                    "dcg packs --format json: {e}: {}",
                    String::from_utf8_lossy(&packs.stdout)
                )
            });
        let mut ids: Vec<String> = Vec::new();
        collect_pack_ids(&listing, &mut ids);
        assert!(ids.len() > 10, "dcg packs listed only {ids:?}");
        let all_packs_config = home.join("all-packs.toml");
        let quoted: Vec<String> = ids.iter().map(|id| format!("{id:?}")).collect();
        std::fs::write(
            &all_packs_config,
            format!("[packs]\nenabled = [{}]\n", quoted.join(", ")),
        )
        .expect("config written");
        eprintln!(
            "dcg: {} ({} packs for the all-packs configuration)",
            binary.display(),
            ids.len()
        );
        Dcg {
            binary,
            home,
            all_packs_config,
        }
    }

    fn blocks(&self, command: &str, all_packs: bool) -> bool {
        let event = serde_json::json!({
            "session_id": "quality",
            "transcript_path": "/dev/null",
            "cwd": self.home,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": { "command": command },
        });
        let mut dcg = Command::new(&self.binary);
        dcg.current_dir(&self.home)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("DCG_NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if all_packs {
            dcg.env("DCG_CONFIG", &self.all_packs_config);
        }
        let mut child = dcg.spawn().expect("dcg starts");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(event.to_string().as_bytes())
            .expect("event written");
        let output = child.wait_with_output().expect("dcg answers");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let decision = serde_json::from_str::<serde_json::Value>(stdout.trim())
            .ok()
            .and_then(|v| {
                v["hookSpecificOutput"]["permissionDecision"]
                    .as_str()
                    .map(str::to_string)
            });
        matches!(decision.as_deref(), Some("deny" | "ask")) || output.status.code() == Some(2)
    }
}

fn collect_pack_ids(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(id) = map.get("id").and_then(|v| v.as_str()) {
                out.push(id.to_string());
            }
            map.values().for_each(|v| collect_pack_ids(v, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_pack_ids(v, out)),
        _ => {}
    }
}

impl Drop for Dcg {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.home);
    }
}
