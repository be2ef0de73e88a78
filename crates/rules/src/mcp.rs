//! MCP rules against MCP tool names, as Claude Code 2.1.332 matches them (its `gr`, `HZn`,
//! `ime` and `Dba` functions; the permissions page, "MCP"): `mcp__server` and `mcp__server__*`
//! hold for every tool of the server, `mcp__server__get_*` for its `get_` tools,
//! `mcp__server__tool` for that tool.
//!
//! A server name cannot contain `__`, but a tool name can, so `mcp__a__b__c` is ambiguous
//! (server `a`, or server `a__b`?). A deny or ask rule holds under any reading (`mcp__a__b`
//! denies it); an allow rule only when it covers every reading (`mcp__a` does not approve it).
//!
//! Names are Claude Code's and Codex CLI's spelling, `mcp__server__tool`. Cursor's `MCP:tool`
//! names no server: only a rule naming it exactly, or a tool-name glob such as `*`, holds for
//! it.

use crate::glob::star_match;

/// `mcp__server` or `mcp__server__tool` read: the server, and the tool part if any.
pub(crate) fn split(name: &str) -> Option<(&str, Option<&str>)> {
    let rest = name.strip_prefix("mcp__")?;
    match rest.find("__") {
        None if rest.is_empty() => None,
        None => Some((rest, None)),
        Some(0) => None,
        Some(at) => Some((&rest[..at], Some(&rest[at + 2..]))),
    }
}

/// The server readings of a tool name: every `mcp__...` prefix ending before a `__`.
fn readings(tool: &str) -> Vec<&str> {
    let mut found = Vec::new();
    if !tool.starts_with("mcp__") {
        return found;
    }
    let mut from = "mcp__".len();
    while let Some(at) = tool[from..].find("__") {
        found.push(&tool[..from + at]);
        from += at + 1;
    }
    found
}

/// Whether the rule's server part covers the tool: same server, and every tool of it or a
/// glob on the tool part that matches.
fn covers(rule: &str, tool: &str) -> bool {
    let (Some((server, part)), Some((tool_server, tool_part))) = (split(rule), split(tool)) else {
        return false;
    };
    server == tool_server
        && match part {
            None | Some("*") => true,
            Some(glob) if glob.contains('*') => {
                tool_part.is_some_and(|name| star_match(glob, name))
            }
            Some(_) => false,
        }
}

/// Whether a deny or ask rule named `rule` (no glob in its server part) holds for `tool`.
pub(crate) fn denies(rule: &str, tool: &str) -> bool {
    rule == tool || readings(tool).contains(&rule) || covers(rule, tool)
}

/// Whether an allow rule named `rule` approves `tool`.
pub(crate) fn allows(rule: &str, tool: &str) -> bool {
    rule == tool
        || (covers(rule, tool)
            && readings(tool)
                .iter()
                .all(|server| rule == *server || rule.starts_with(&format!("{server}__"))))
}

#[cfg(test)]
mod tests {
    use super::{allows, denies};

    #[test]
    fn servers_tools_and_globs() {
        // (rule, tool, deny holds, allow holds)
        for (rule, tool, deny, allow) in [
            ("mcp__github", "mcp__github__create_issue", true, true),
            ("mcp__github__*", "mcp__github__create_issue", true, true),
            (
                "mcp__github__create_issue",
                "mcp__github__create_issue",
                true,
                true,
            ),
            (
                "mcp__github__create_issue",
                "mcp__github__delete_repo",
                false,
                false,
            ),
            ("mcp__github__get_*", "mcp__github__get_issue", true, true),
            (
                "mcp__github__get_*",
                "mcp__github__list_issues",
                false,
                false,
            ),
            ("mcp__github", "mcp__githubx__a", false, false),
            ("mcp__a__b", "mcp__a__b__c", true, false),
            ("mcp__a", "mcp__a__b__c", true, false),
        ] {
            assert_eq!(
                (denies(rule, tool), allows(rule, tool)),
                (deny, allow),
                "{rule} ~ {tool}"
            );
        }
    }
}
