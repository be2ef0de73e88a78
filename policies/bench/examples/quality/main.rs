//! How well the destructive policy tells dangerous commands from everyday ones, beside
//! destructive_command_guard (dcg) from crates.io, in one run: every line of `corpus.tsv` and
//! `corpus-real.tsv` (policies/destructive) goes through the native engine with its default
//! options (every pack) and with the packs `hookhost init`'s standard profile turns on, the wasm
//! component (default options, through hookhost's `HookRunner`, as an agent runs it; it must
//! agree with the native engine), and dcg run as a Claude Code PreToolUse hook command in two
//! configurations: its default, and every pack it has enabled.
//!
//! ```sh
//! policies/bench/install-dcg.sh            # dcg 0.16.0 into target/dcg-0.16.0
//! cargo run --release -p policy-bench --example quality            # the tables
//! cargo run --release -p policy-bench --example quality -- --misses real   # what a part misses
//! ```
//!
//! `--native-only` skips the component and dcg (a quick loop while writing rules); `--no-dcg`
//! skips dcg (its columns read "not run"). `--misses tune|held-out|real|all` lists the lines
//! the default policy gets wrong. dcg's licence (MIT with a rider) withholds every right,
//! running and benchmarking included, from some parties: read `LICENSE` in its crate before
//! installing it.

mod corpus;
mod dcg;
mod wasm;

use std::collections::BTreeMap;
use std::path::Path;

use corpus::{Case, Part};
use policy_destructive::Policy;

/// The packs `hookhost init --profile standard` gives the destructive policy
/// (crates/init/src/profile.rs); git is git-safety's there.
const STANDARD_PACKS: &str =
    r#"{"packs": ["filesystem", "system", "disks", "rce", "exfiltration"]}"#;

/// One configuration's decisions, line by line; `None` when it was not run.
struct Column {
    title: &'static str,
    blocks: Option<Vec<bool>>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let native_only = args.iter().any(|a| a == "--native-only");
    let no_dcg = native_only || args.iter().any(|a| a == "--no-dcg");
    let misses = args
        .iter()
        .position(|a| a == "--misses")
        .map(|i| args.get(i + 1).cloned().unwrap_or_else(|| "tune".into()));
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../destructive");
    let cases = corpus::read(&crate_dir);

    let policy = Policy::default();
    let standard = Policy::from_config(STANDARD_PACKS).expect("the standard profile's packs");
    let native: Vec<bool> = cases
        .iter()
        .map(|c| policy.check(&c.command).is_some())
        .collect();
    let wasm = (!native_only).then(|| wasm::decisions(&crate_dir, &cases));
    let (dcg_default, dcg_all) = if no_dcg {
        (None, None)
    } else {
        let dcg = dcg::Dcg::find(&crate_dir);
        let default = cases.iter().map(|c| dcg.blocks(&c.command, false));
        let all = cases.iter().map(|c| dcg.blocks(&c.command, true));
        (Some(default.collect()), Some(all.collect()))
    };
    let disagreements: Vec<&str> = match &wasm {
        Some(wasm) => cases
            .iter()
            .zip(native.iter().zip(wasm))
            .filter(|(_, (n, w))| n != w)
            .map(|(c, _)| c.command.as_str())
            .collect(),
        None => Vec::new(),
    };
    let columns = [
        Column {
            title: "destructive, every pack (native)",
            blocks: Some(native.clone()),
        },
        Column {
            title: "destructive, init standard packs",
            blocks: Some(
                cases
                    .iter()
                    .map(|c| standard.check(&c.command).is_some())
                    .collect(),
            ),
        },
        Column {
            title: "destructive, every pack (wasm)",
            blocks: wasm,
        },
        Column {
            title: "dcg default",
            blocks: dcg_default,
        },
        Column {
            title: "dcg all packs",
            blocks: dcg_all,
        },
    ];

    summary(&cases, &columns);
    for part in Part::ALL {
        by_category(part, &cases, &columns);
    }
    println!(
        "native and wasm disagree on {} commands",
        disagreements.len()
    );
    for command in &disagreements {
        println!("  disagree: {command:?}");
    }
    if let Some(part) = misses {
        print_misses(&part, &cases, &policy, &native);
    }
    if !disagreements.is_empty() {
        std::process::exit(1);
    }
}

/// `blocked/total` for the lines `pick` selects, or "not run".
fn count(cases: &[Case], column: &Column, pick: impl Fn(&Case) -> bool) -> String {
    let Some(blocks) = &column.blocks else {
        return "not run".into();
    };
    let (mut total, mut blocked) = (0, 0);
    for (case, &block) in cases.iter().zip(blocks) {
        if pick(case) {
            total += 1;
            blocked += usize::from(block);
        }
    }
    format!(
        "{blocked}/{total} ({:.0}%)",
        100.0 * blocked as f64 / total.max(1) as f64
    )
}

/// One table: per part and in all, dangerous lines blocked and everyday lines falsely blocked.
fn summary(cases: &[Case], columns: &[Column]) {
    println!("\n## summary\n");
    let titles: Vec<&str> = columns.iter().map(|c| c.title).collect();
    println!("| lines | {} |", titles.join(" | "));
    println!("|---|{}", "---:|".repeat(columns.len()));
    let parts: Vec<(String, Option<Part>)> = Part::ALL
        .iter()
        .map(|p| (p.title().to_string(), Some(*p)))
        .chain([("all".to_string(), None)])
        .collect();
    for dangerous in [true, false] {
        for (title, part) in &parts {
            let what = if dangerous {
                "dangerous blocked"
            } else {
                "everyday falsely blocked"
            };
            let cells: Vec<String> = columns
                .iter()
                .map(|column| {
                    count(cases, column, |c| {
                        c.dangerous == dangerous && part.is_none_or(|p| p == c.part)
                    })
                })
                .collect();
            println!("| {what}, {title} | {} |", cells.join(" | "));
        }
    }
}

/// One part's lines by category.
fn by_category(part: Part, cases: &[Case], columns: &[Column]) {
    println!("\n## {}\n", part.title());
    let titles: Vec<&str> = columns.iter().map(|c| c.title).collect();
    for dangerous in [true, false] {
        let what = if dangerous {
            "dangerous: blocked"
        } else {
            "everyday: falsely blocked"
        };
        println!("| {what} | {} |", titles.join(" | "));
        println!("|---|{}", "---:|".repeat(columns.len()));
        let mut categories: BTreeMap<&str, ()> = BTreeMap::new();
        for case in cases
            .iter()
            .filter(|c| c.part == part && c.dangerous == dangerous)
        {
            categories.insert(&case.category, ());
        }
        for category in categories.keys() {
            let cells: Vec<String> = columns
                .iter()
                .map(|column| {
                    count(cases, column, |c| {
                        c.part == part && c.dangerous == dangerous && c.category == *category
                    })
                })
                .collect();
            println!("| {category} | {} |", cells.join(" | "));
        }
        println!();
    }
}

fn print_misses(part: &str, cases: &[Case], policy: &Policy, native: &[bool]) {
    println!("\n## misses ({part})");
    for (case, &blocked) in cases.iter().zip(native) {
        if part != "all" && part != case.part.flag() {
            continue;
        }
        if blocked != case.dangerous {
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
