//! init's event tables against hookhost's: every event of each agent's dialect table
//! (crates/hookhost-core/src/dialect/*.rs, the `EVENTS` hookhost answers) is one init registers or one it leaves
//! out with a reason, under the same pair of names, and init registers nothing hookhost does
//! not serve.
//!
//! The dialect sources are read as text, so that this crate stays independent of hookhost's;
//! when the tables move (or become reachable through a crate this one may depend on), point
//! `dialect_pairs` at them.

use std::path::PathBuf;

use hookhost_init::Agent;

/// `(agent's name, hookhost's name)` of every row of `EVENTS` in hookhost's dialect module of
/// `agent`.
fn dialect_pairs(agent: Agent) -> Vec<(String, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../hookhost-core/src/dialect")
        .join(format!("{}.rs", agent.name()));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "hookhost's dialect table {} cannot be read ({e}): if it moved, point this test at it",
            path.display()
        )
    });
    let start = text.find("pub static EVENTS").expect("an EVENTS table");
    let end = text[start..]
        .find("pub static OTHER")
        .map_or(text.len(), |i| start + i);
    let quoted = |line: &str, key: &str| -> Option<String> {
        let rest = line.trim().strip_prefix(key)?.trim().strip_prefix('"')?;
        Some(rest[..rest.find('"')?].to_string())
    };
    let mut pairs = Vec::new();
    let mut agent_name = None;
    for line in text[start..end].lines() {
        if let Some(name) = quoted(line, "agent:") {
            agent_name = Some(name);
        } else if let Some(hookhost) = quoted(line, "hookhost:") {
            pairs.push((
                agent_name.take().expect("agent: before hookhost:"),
                hookhost,
            ));
        }
    }
    assert!(!pairs.is_empty(), "no rows read from {}", path.display());
    pairs
}

#[test]
fn init_registers_every_event_hookhost_serves() {
    for agent in Agent::ALL {
        let spec = agent.spec();
        let mut served = dialect_pairs(agent);
        served.sort();
        let mut ours: Vec<(String, String)> = spec
            .events
            .iter()
            .map(|e| (e.name.to_string(), e.hookhost.to_string()))
            .collect();
        for left in spec.left_out {
            let row = served
                .iter()
                .find(|(name, _)| name == left.name)
                .unwrap_or_else(|| {
                    panic!(
                        "{agent}: {} is left out but hookhost does not serve it",
                        left.name
                    )
                });
            ours.push(row.clone());
        }
        ours.sort();
        assert_eq!(
            ours, served,
            "{agent}: init's events and hookhost's dialect table differ"
        );
    }
}
