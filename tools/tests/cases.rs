//! One line per agent tool (tests/cases.jsonl): the tool's name and an input as that agent
//! sends it, and what the view must read from it. The Python and JavaScript SDKs' tests run
//! the same file, so the three readers of the table agree.

use hookhost_tools::{TOOLS, ToolKind, view};
use serde_json::Value;

/// The cases, with their line numbers.
fn cases() -> Vec<(usize, Value)> {
    include_str!("cases.jsonl")
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let case =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("cases.jsonl:{}: {e}", i + 1));
            (i + 1, case)
        })
        .collect()
}

fn strings(case: &Value, field: &str) -> Vec<String> {
    case.get(field).map_or(Vec::new(), |value| {
        serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{field}: {e}"))
    })
}

#[test]
fn every_case_reads_as_its_line_says() {
    for (line, case) in cases() {
        let at = format!("cases.jsonl:{line} ({})", case["tool"]);
        let tool = case["tool"].as_str().unwrap();
        let view = view(tool, &case["input"]);
        assert_eq!(view.tool, tool, "{at}");
        assert_eq!(
            view.kind,
            case["kind"].as_str().unwrap().parse::<ToolKind>().unwrap(),
            "{at}: kind"
        );
        assert_eq!(
            view.command.as_deref(),
            case.get("command").and_then(Value::as_str),
            "{at}: command"
        );
        let own = |values: &[std::borrow::Cow<'_, str>]| -> Vec<String> {
            values.iter().map(|v| v.to_string()).collect()
        };
        assert_eq!(own(&view.paths), strings(&case, "paths"), "{at}: paths");
        assert_eq!(
            own(&view.contents),
            strings(&case, "contents"),
            "{at}: contents"
        );
        assert_eq!(own(&view.urls), strings(&case, "urls"), "{at}: urls");
        assert_eq!(
            own(&view.patterns),
            strings(&case, "patterns"),
            "{at}: patterns"
        );
        let mcp = view
            .mcp
            .map(|mcp| serde_json::json!([mcp.server, mcp.tool]))
            .unwrap_or(Value::Null);
        assert_eq!(
            mcp,
            case.get("mcp").cloned().unwrap_or(Value::Null),
            "{at}: mcp"
        );
    }
}

#[test]
fn every_row_of_the_table_has_a_case() {
    let cases = cases();
    for spec in TOOLS {
        assert!(
            cases
                .iter()
                .any(|(_, case)| case["agent"] == spec.agent.as_str() && case["tool"] == spec.name),
            "tests/cases.jsonl has no line for {}'s {}: add one",
            spec.agent,
            spec.name
        );
    }
}
