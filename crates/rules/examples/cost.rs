//! What a rule evaluation costs: a 24-rule set (every form) against a compound Bash line, a
//! file read, a fetch and an MCP call; the median of 20,000 evaluations each. Run it in
//! release: `cargo run --release -p hookhost-rules --example cost`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use hookhost_rules::{Action, Call, Origin, Rules};
use serde_json::{Value, json};

fn main() {
    let mut rules = Rules::new();
    let origin = || Origin {
        file: PathBuf::from("hooks.toml"),
        line: 1,
        column: 1,
        dir: PathBuf::from("/w"),
    };
    let table: &[(Action, &[&str])] = &[
        (
            Action::Deny,
            &[
                "Bash(git push --force:*)",
                "Bash(git push -f:*)",
                "Bash(rm -rf *)",
                "Bash(curl * | sh)",
                "Read(./.env)",
                "Read(~/.ssh/**)",
                "Edit(//etc/**)",
                "WebFetch(domain:*.evil.example)",
                "mcp__*__delete_*",
            ],
        ),
        (
            Action::Ask,
            &[
                "Bash(npm publish:*)",
                "Bash(git push *)",
                "WebFetch",
                "mcp__github__create_issue",
            ],
        ),
        (
            Action::Allow,
            &[
                "Bash(npm run test:*)",
                "Bash(cargo test:*)",
                "Bash(git status)",
                "Bash(git diff *)",
                "Bash(ls *)",
                "Read(src/**)",
                "Edit(src/**)",
                "WebFetch(domain:docs.rs)",
                "mcp__github__get_*",
                "Bash(cd *)",
                "Bash(grep *)",
            ],
        ),
    ];
    for (action, texts) in table {
        for text in *texts {
            rules.add(*action, text, "r", origin()).expect("a rule");
        }
    }
    let calls: [(&str, Value); 4] = [
        (
            "Bash",
            json!({"command": "cd web && npm run test -- --watch=false 2>&1 | grep -v warn"}),
        ),
        ("Read", json!({"file_path": "src/lib/parse.rs"})),
        (
            "WebFetch",
            json!({"url": "https://docs.rs/regex/latest/regex/", "prompt": "p"}),
        ),
        ("mcp__github__get_issue", json!({"number": 1})),
    ];
    let only = std::env::var("COST_ONLY").ok();
    for (tool, input) in &calls {
        if only.as_deref().is_some_and(|only| only != *tool) {
            continue;
        }
        let call = Call {
            tool,
            input,
            kind: None,
            cwd: Path::new("/w"),
            home: Some(Path::new("/home/u")),
        };
        let verdict = rules
            .evaluate(&call)
            .map(|v| format!("{} {}", v.action.as_str(), v.rule.text()));
        let mut times: Vec<u128> = (0..std::env::var("COST_RUNS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(20_000))
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(rules.evaluate(std::hint::black_box(&call)));
                start.elapsed().as_nanos()
            })
            .collect();
        times.sort_unstable();
        println!(
            "{tool:<24} {:>6.2} µs median  ({})",
            times[times.len() / 2] as f64 / 1000.0,
            verdict.unwrap_or_else(|| "none".into())
        );
    }
}
