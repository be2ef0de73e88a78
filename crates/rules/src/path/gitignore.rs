//! One gitignore pattern, compiled as Claude Code 2.1.332 compiles it (its vendored `ignore`
//! library: the `Ti` function and the `Fi` class, constructed with `ignorecase` on):
//!
//! - a pattern with no `/` but at its end matches a name at any depth; one with a `/` at its
//!   start or in its middle is anchored; a leading `**/` matches at any depth;
//! - `*` and `?` stay within one path segment; `/**/` matches zero or more directories; a
//!   trailing `/**` everything below; a trailing `/*` one non-empty name;
//! - a trailing `/` matches directories only;
//! - **case-insensitive** (the library's default, which Claude Code keeps on every platform);
//! - a path matches when it or any of its parent directories does (ignoring a directory ignores
//!   what is in it).
//!
//! Bracket classes follow git's fnmatch (`[abc]`, `[a-z]`, `[!a]`); Claude Code's regex port
//! reads a `*` or `?` inside brackets differently, a corner hookhost does not follow.

use regex::Regex;

/// A compiled pattern.
#[derive(Debug, Clone)]
pub(crate) struct Gitignore {
    regex: Regex,
}

impl Gitignore {
    /// Compiles `pattern`, or says why it can never match.
    pub(crate) fn new(pattern: &str) -> Result<Gitignore, String> {
        let source = translate(pattern)?;
        Regex::new(&format!("(?i){source}"))
            .map(|regex| Gitignore { regex })
            .map_err(|error| format!("the pattern does not compile: {error}"))
    }

    /// Whether `relative` (a `/`-separated path below the pattern's root, never empty) matches,
    /// itself or through a parent directory; `directory` when it names one.
    pub(crate) fn matches(&self, relative: &str, directory: bool) -> bool {
        let mut from = 0;
        while let Some(slash) = relative[from..].find('/') {
            let parent = &relative[..from + slash + 1];
            if self.regex.is_match(parent) {
                return true;
            }
            from += slash + 1;
        }
        if directory {
            self.regex.is_match(&format!("{relative}/"))
        } else {
            self.regex.is_match(relative)
        }
    }
}

/// The regex source of a gitignore pattern.
fn translate(pattern: &str) -> Result<String, String> {
    let pattern = pattern.strip_prefix('\u{feff}').unwrap_or(pattern);
    let trimmed = pattern.trim_end();
    if trimmed.is_empty() {
        return Err("the pattern is empty".into());
    }
    if trimmed.starts_with('#') {
        return Err("a pattern starting with `#` is a comment in gitignore syntax; write `\\#` for a name that starts with #".into());
    }
    if trimmed.ends_with('\\') && trimmed.len() == pattern.len() && !trimmed.ends_with("\\\\") {
        return Err("a pattern cannot end with a single backslash".into());
    }
    // An escaped trailing space stays.
    let mut body = trimmed.to_string();
    if trimmed.len() < pattern.len() && trimmed.ends_with('\\') {
        body.push(' ');
    }
    let (mut out, rest) = if let Some(rest) = body
        .strip_prefix("/**/")
        .or_else(|| body.strip_prefix("**/"))
    {
        ("^(?:.*/)?".to_string(), rest.to_string())
    } else if let Some(rest) = body.strip_prefix('/') {
        ("^".to_string(), rest.to_string())
    } else if pattern.trim_end_matches('/').contains('/') {
        ("^".to_string(), body.clone())
    } else {
        ("(?:^|/)".to_string(), body.clone())
    };
    let chars: Vec<char> = rest.chars().collect();
    let mut i = 0;
    let mut last_was_slash = false;
    while i < chars.len() {
        let c = chars[i];
        let at_end = |j: usize| j >= chars.len();
        match c {
            '\\' if i + 1 < chars.len() => {
                out.push_str(&regex::escape(&chars[i + 1].to_string()));
                i += 2;
                last_was_slash = false;
                continue;
            }
            '*' => {
                let mut j = i;
                while j < chars.len() && chars[j] == '*' {
                    j += 1;
                }
                if at_end(j) && j - i == 1 && last_was_slash {
                    out.push_str("[^/]+");
                } else {
                    out.push_str("[^/]*");
                }
                i = j;
            }
            '?' => {
                out.push_str("[^/]");
                i += 1;
            }
            '/' if chars.get(i + 1) == Some(&'*')
                && chars.get(i + 2) == Some(&'*')
                && (at_end(i + 3) || chars[i + 3] == '/') =>
            {
                out.push_str(if at_end(i + 3) { "/.+" } else { "(?:/[^/]+)*" });
                i += 3;
                last_was_slash = false;
                continue;
            }
            '/' => {
                out.push('/');
                i += 1;
                last_was_slash = true;
                continue;
            }
            '[' => match class(&chars[i..]) {
                Some((class, used)) => {
                    out.push_str(&class);
                    i += used;
                }
                None => {
                    out.push_str(r"\[");
                    i += 1;
                }
            },
            c => {
                out.push_str(&regex::escape(&c.to_string()));
                i += 1;
            }
        }
        last_was_slash = false;
    }
    out.push_str(if rest.ends_with('/') { "$" } else { "/?$" });
    Ok(out)
}

/// A bracket class at the start of `chars`: its regex and how many characters it took.
fn class(chars: &[char]) -> Option<(String, usize)> {
    let mut i = 1;
    let negated = matches!(chars.get(1), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let start = i;
    // A `]` right after the opening (or `[!`) is a member.
    if chars.get(i) == Some(&']') {
        i += 1;
    }
    while chars.get(i)? != &']' {
        i += 1;
    }
    let members = &chars[start..i];
    let mut out = String::from(if negated { "[^/" } else { "[" });
    let mut j = 0;
    while j < members.len() {
        let c = members[j];
        if j + 2 < members.len() && members[j + 1] == '-' {
            let end = members[j + 2];
            if c <= end {
                out.push_str(&format!("{}-{}", escape_in_class(c), escape_in_class(end)));
            }
            j += 3;
        } else {
            out.push_str(&escape_in_class(c));
            j += 1;
        }
    }
    out.push(']');
    if out == "[]" {
        return None;
    }
    Some((out, i + 1))
}

fn escape_in_class(c: char) -> String {
    if c.is_alphanumeric() {
        c.to_string()
    } else {
        format!("\\{c}")
    }
}

#[cfg(test)]
mod tests {
    use super::Gitignore;

    #[test]
    fn patterns_match_as_gitignore_and_claude_code_read_them() {
        // (pattern, path, directory, matches)
        for (pattern, path, directory, expected) in [
            (".env", ".env", false, true),
            (".env", "a/b/.env", false, true),
            (".env", ".env.local", false, false),
            (".ENV", ".env", false, true),
            ("**/.env", "x/.env", false, true),
            ("/src", "src/app.ts", false, true),
            ("/src", "vendor/src/lib.js", false, false),
            ("src", "vendor/pkg/src/lib.js", false, true),
            ("src/components", "src/components/a.tsx", false, true),
            ("src/components", "x/src/components/a.tsx", false, false),
            ("*.ts", "src/a.ts", false, true),
            ("*.ts", "src/a.tsx", false, false),
            ("/src/**/*.ts", "src/a/b/c.ts", false, true),
            ("/src/**/*.ts", "src/c.ts", false, true),
            ("/.ssh/**", ".ssh/id_rsa", false, true),
            ("/docs/*", "docs/a/b.md", false, true),
            ("/docs/*", "docs", true, false),
            ("build/", "build", false, false),
            ("build/", "build", true, true),
            ("build/", "build/out.o", false, true),
            ("a?c", "abc", false, true),
            ("a?c", "a/c", false, false),
            ("[ab].txt", "b.txt", false, true),
            ("[!ab].txt", "c.txt", false, true),
            ("[!ab].txt", "a.txt", false, false),
            ("\\#notes", "#notes", false, true),
        ] {
            let compiled =
                Gitignore::new(pattern).unwrap_or_else(|error| panic!("{pattern}: {error}"));
            assert_eq!(
                compiled.matches(path, directory),
                expected,
                "{pattern} ~ {path}"
            );
        }
    }

    #[test]
    fn patterns_that_cannot_match_are_refused() {
        for pattern in ["", "   ", "#x", "a\\"] {
            assert!(Gitignore::new(pattern).is_err(), "{pattern:?}");
        }
    }
}
