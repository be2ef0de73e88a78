//! `*` patterns over plain text (branch names, tool and agent names, secrets to allow, command
//! words): `*` matches any text, `/` included; every other character matches itself.

/// `text` matches `pattern`.
pub fn matches(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if text.len() < first.len() + last.len() || !text.starts_with(first) || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_match_any_text() {
        for (pattern, text, expected) in [
            ("main", "main", true),
            ("main", "mainline", false),
            ("release/*", "release/1.2", true),
            ("release/*", "release", false),
            ("*", "", true),
            ("AKIA*EXAMPLE", "AKIAIOSFODNN7EXAMPLE", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "acb", false),
            ("ab*ba", "aba", false),
            ("feature/*", "feature/x/y", true),
        ] {
            assert_eq!(matches(pattern, text), expected, "{pattern} {text}");
        }
    }
}
