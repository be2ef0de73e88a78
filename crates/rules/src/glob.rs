//! The one-metacharacter glob Claude Code uses for tool names, `key:value` parameters and the
//! labels of a host: `*` matches any run of characters (none included), everything else
//! matches itself, case-sensitively. (Claude Code 2.1.332: its `pM` matcher.)

/// Whether `text` matches `pattern`, where `*` matches any run of characters.
pub(crate) fn star_match(pattern: &str, text: &str) -> bool {
    let Some((first, rest)) = pattern.split_once('*') else {
        return pattern == text;
    };
    let (middle, last) = rest.rsplit_once('*').unwrap_or(("", rest));
    if text.len() < first.len() + last.len() || !text.starts_with(first) || !text.ends_with(last) {
        return false;
    }
    let end = text.len() - last.len();
    let mut at = first.len();
    for part in middle.split('*').filter(|part| !part.is_empty()) {
        match text[at..end].find(part) {
            Some(found) => at += found + part.len(),
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::star_match;

    #[test]
    fn star_matches_any_run_and_nothing_else_is_special() {
        for (pattern, text, expected) in [
            ("mcp__*", "mcp__github__create_issue", true),
            ("mcp__*", "mcp_", false),
            ("*", "", true),
            ("get_*", "get_issue", true),
            ("get_*", "list_issues", false),
            ("a*b*c", "abc", true),
            ("a*b*c", "acb", false),
            ("ab*ba", "aba", false),
            ("a?c", "abc", false),
            ("Bash", "bash", false),
        ] {
            assert_eq!(star_match(pattern, text), expected, "{pattern} ~ {text}");
        }
    }
}
