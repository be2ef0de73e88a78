//! The table as the other places that carry it spell it: the Python SDK (`hook_sdk.py`) and
//! the JavaScript SDK (`hook-sdk.js`), single files `hookhost new` copies into a new hook, and
//! this crate's README. Each holds a generated section between two marker lines; a test fails
//! when one differs from [`TOOLS`](crate::TOOLS), and `cargo run -p hookhost-tools --example
//! gen-sdk-tables` writes them again.

use crate::table::{MCP_EVENTS, Source, TOOLS, ToolSpec};

/// The text of the line that opens a generated section.
pub const BEGIN: &str = "BEGIN GENERATED TOOL TABLE";
/// The text of the line that closes it.
pub const END: &str = "END GENERATED TOOL TABLE";
/// The command that writes every copy again.
pub const REGENERATE: &str = "cargo run -p hookhost-tools --example gen-sdk-tables";

/// A copy of the table: its path from the repository root, and what renders its section.
pub type Copy = (&'static str, fn() -> String);

/// Each copy.
pub const COPIES: [Copy; 3] = [
    ("sdk/python/hook_sdk.py", python),
    ("sdk/js/hook-sdk.js", javascript),
    ("tools/README.md", markdown),
];

fn source(spec: &ToolSpec) -> &'static str {
    match spec.source {
        Source::Tool => "tool",
        Source::Event => "event",
    }
}

fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

fn locations(spec: &ToolSpec) -> [&'static [&'static str]; 5] {
    [
        spec.command,
        spec.paths,
        spec.contents,
        spec.urls,
        spec.patterns,
    ]
}

/// The Python SDK's section: `_TOOLS`, a tuple of rows, and `_MCP_EVENTS`.
pub fn python() -> String {
    let tuple = |items: &[&str]| match items {
        [one] => format!("({},)", quoted(one)),
        _ => format!(
            "({})",
            items
                .iter()
                .map(|i| quoted(i))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut out = format!("# {BEGIN}: `{REGENERATE}` writes it from tools/src/table.rs.\n");
    out.push_str("# (agent, name, kind, source, command, paths, contents, urls, patterns)\n");
    out.push_str("_TOOLS = (\n");
    for spec in TOOLS {
        let fields: Vec<String> = locations(spec).iter().map(|l| tuple(l)).collect();
        out.push_str(&format!(
            "    ({}, {}, {}, {}, {}),\n",
            quoted(spec.agent.as_str()),
            quoted(spec.name),
            quoted(spec.kind.as_str()),
            quoted(source(spec)),
            fields.join(", ")
        ));
    }
    out.push_str(")\n");
    out.push_str(&format!("_MCP_EVENTS = {}\n", tuple(MCP_EVENTS)));
    out.push_str(&format!("# {END}\n"));
    out
}

/// The JavaScript SDK's section: `TOOLS`, an array of rows, and `MCP_EVENTS`.
pub fn javascript() -> String {
    let array = |items: &[&str]| {
        format!(
            "[{}]",
            items
                .iter()
                .map(|i| quoted(i))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let mut out = format!("// {BEGIN}: `{REGENERATE}` writes it from tools/src/table.rs.\n");
    out.push_str("// [agent, name, kind, source, command, paths, contents, urls, patterns]\n");
    out.push_str("export const TOOLS = [\n");
    for spec in TOOLS {
        let fields: Vec<String> = locations(spec).iter().map(|l| array(l)).collect();
        out.push_str(&format!(
            "  [{}, {}, {}, {}, {}],\n",
            quoted(spec.agent.as_str()),
            quoted(spec.name),
            quoted(spec.kind.as_str()),
            quoted(source(spec)),
            fields.join(", ")
        ));
    }
    out.push_str("];\n");
    out.push_str(&format!(
        "export const MCP_EVENTS = {};\n",
        array(MCP_EVENTS)
    ));
    out.push_str(&format!("// {END}\n"));
    out
}

/// The README's table: a row per agent's tool, with its kind and fields.
pub fn markdown() -> String {
    let cell = |items: &[&str]| {
        items
            .iter()
            .map(|i| match *i {
                "" => "(the input)".to_string(),
                other => format!("`{other}`"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = format!("<!-- {BEGIN}: `{REGENERATE}` writes it from src/table.rs. -->\n");
    out.push_str("| agent | tool | kind | command | paths | contents | urls | patterns |\n");
    out.push_str("|---|---|---|---|---|---|---|---|\n");
    for spec in TOOLS {
        let name = match spec.source {
            Source::Tool => format!("`{}`", spec.name),
            Source::Event => format!("`{}` (event)", spec.name),
        };
        let fields: Vec<String> = locations(spec).iter().map(|l| cell(l)).collect();
        out.push_str(&format!(
            "| {} | {name} | {} | {} |\n",
            spec.agent,
            spec.kind,
            fields.join(" | ")
        ));
    }
    out.push_str(&format!("<!-- {END} -->\n"));
    out
}

/// `text` with its generated section (from the line holding [`BEGIN`] to the line holding
/// [`END`], both included) replaced by `section`; an error says which marker is missing.
pub fn splice(text: &str, section: &str) -> Result<String, String> {
    let begin = text
        .find(BEGIN)
        .ok_or_else(|| format!("no line with \"{BEGIN}\""))?;
    let begin = text[..begin].rfind('\n').map_or(0, |newline| newline + 1);
    let end = text[begin..]
        .find(END)
        .map(|end| begin + end)
        .ok_or_else(|| format!("no line with \"{END}\" after \"{BEGIN}\""))?;
    let end = text[end..]
        .find('\n')
        .map_or(text.len(), |newline| end + newline + 1);
    Ok(format!("{}{section}{}", &text[..begin], &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_is_replaced_between_its_markers_and_a_missing_marker_is_named() {
        let text = format!("a\n# {BEGIN}: x\nold\n# {END}\nb\n");
        assert_eq!(
            splice(&text, "NEW\n").unwrap(),
            "a\nNEW\nb\n",
            "the marker lines go too: the section brings its own"
        );
        assert_eq!(
            splice("a\n", "x").unwrap_err(),
            format!("no line with \"{BEGIN}\"")
        );
    }

    #[test]
    fn one_line_per_row_in_each_spelling() {
        for section in [python(), javascript(), markdown()] {
            assert!(section.lines().count() > TOOLS.len(), "{section}");
            assert_eq!(splice(&section, "").unwrap(), "");
        }
        assert!(
            python()
                .contains(r#"("claude", "Bash", "shell", "tool", ("command",), (), (), (), ()),"#)
        );
        assert!(javascript().contains(
            r#"["gemini", "web_fetch", "fetch", "tool", [], [], [], ["urls:prompt"], []],"#
        ));
    }
}
