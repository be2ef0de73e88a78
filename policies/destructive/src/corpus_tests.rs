//! The corpora as floors the engine must stay above: corpus.tsv (written with the engine, in a
//! tuned and a held-out part) and corpus-real.tsv (real commands, each with its source). The
//! full measurement, beside dcg and the component, is `cargo run --release -p policy-bench
//! --example quality` (docs/policies.md).

use crate::Policy;

fn reason(command: &str) -> Option<String> {
    Policy::default().check(command).map(|f| f.reason())
}

/// The corpus's lines: (held out, dangerous, category, command).
fn corpus(text: &str) -> Vec<(bool, bool, String, String)> {
    let mut held_out = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line == "# held-out" {
            held_out = true;
        }
        if line.starts_with('#') || line.starts_with("category\t") {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let command = fields[2]
            .replace("\\\\", "\u{0}")
            .replace("\\n", "\n")
            .replace("\\t", "\t")
            .replace('\u{0}', "\\");
        out.push((
            held_out,
            fields[1] == "dangerous",
            fields[0].to_string(),
            command,
        ));
    }
    out
}

/// The engine's floor on corpus.tsv (the full measurement, beside dcg and the component, is
/// `cargo run --release -p policy-bench --example quality`): it blocks at least 95% of the
/// dangerous lines and at most 2% of the everyday ones, in each part.
#[test]
fn corpus_floor() {
    for part in [false, true] {
        let (mut dangerous, mut blocked, mut everyday, mut false_blocks) = (0, 0, 0, 0);
        for (held_out, is_dangerous, category, command) in corpus(include_str!("../corpus.tsv")) {
            if held_out != part {
                continue;
            }
            let found = reason(&command);
            if is_dangerous {
                dangerous += 1;
                blocked += usize::from(found.is_some());
            } else {
                everyday += 1;
                false_blocks += usize::from(found.is_some());
            }
            if found.is_some() != is_dangerous {
                println!("{category}\t{command:?}\t{found:?}");
            }
        }
        println!(
            "held out {part}: {blocked}/{dangerous} dangerous blocked, {false_blocks}/{everyday} everyday blocked"
        );
        assert!(
            blocked * 100 >= dangerous * 95,
            "held out {part}: {blocked}/{dangerous}"
        );
        assert!(
            false_blocks * 100 <= everyday * 2,
            "held out {part}: {false_blocks}/{everyday}"
        );
    }
}

/// The engine's floor on corpus-real.tsv: at least 85% of the dangerous lines blocked (some
/// read exactly like a cleanup: `rm -rf docs/journeys`) and at most 5% of the everyday ones.
/// Rules were written after its first measurement (docs/policies.md gives both), so this is a
/// regression floor, not a held-out figure.
#[test]
fn real_world_floor() {
    let (mut dangerous, mut blocked, mut everyday, mut false_blocks) = (0, 0, 0, 0);
    for (_, is_dangerous, category, command) in corpus(include_str!("../corpus-real.tsv")) {
        let found = reason(&command);
        if is_dangerous {
            dangerous += 1;
            blocked += usize::from(found.is_some());
        } else {
            everyday += 1;
            false_blocks += usize::from(found.is_some());
        }
        if found.is_some() != is_dangerous {
            println!("{category}\t{command:?}\t{found:?}");
        }
    }
    assert!(
        dangerous >= 20 && everyday >= 30,
        "{dangerous} and {everyday} lines"
    );
    assert!(blocked * 100 >= dangerous * 85, "{blocked}/{dangerous}");
    assert!(
        false_blocks * 100 <= everyday * 5,
        "{false_blocks}/{everyday}"
    );
}
