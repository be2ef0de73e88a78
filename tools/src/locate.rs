//! Reading a location of the table (`file_path`, `edits.new_string`, `patch:command`,
//! `urls:prompt`, ...) out of a tool's input, borrowing from it.

use std::borrow::Cow;

use serde_json::Value;

/// Every string at `location` in `input`, in order.
pub(crate) fn strings<'a>(input: &'a Value, location: &str, out: &mut Vec<Cow<'a, str>>) {
    if let Some(path) = location.strip_prefix("patch:") {
        let mut texts = Vec::new();
        walk(input, path, &mut texts);
        for text in texts {
            out.extend(patch_paths(text).map(Cow::Borrowed));
        }
    } else if let Some(path) = location.strip_prefix("urls:") {
        let mut texts = Vec::new();
        walk(input, path, &mut texts);
        for text in texts {
            out.extend(urls_in(text).map(Cow::Borrowed));
        }
    } else {
        let mut found = Vec::new();
        walk(input, location, &mut found);
        out.extend(found.into_iter().map(Cow::Borrowed));
    }
}

/// The command line at `location`: a string as it is, an array of strings (an argv) joined
/// with shell quoting.
pub(crate) fn command<'a>(input: &'a Value, location: &str) -> Option<Cow<'a, str>> {
    match at(input, location)? {
        Value::String(text) => Some(Cow::Borrowed(text)),
        Value::Array(argv) if !argv.is_empty() && argv.iter().all(Value::is_string) => Some(
            Cow::Owned(shell_join(argv.iter().filter_map(Value::as_str))),
        ),
        _ => None,
    }
}

/// The value at a plain path (no array in the way), for [`command`].
fn at<'a>(input: &'a Value, path: &str) -> Option<&'a Value> {
    if path.is_empty() {
        return Some(input);
    }
    path.split('.').try_fold(input, |value, key| value.get(key))
}

/// The strings at `path`: an array met on the way maps over its elements; at the end a string
/// is taken, an array gives its strings.
fn walk<'a>(value: &'a Value, path: &str, out: &mut Vec<&'a str>) {
    if let Value::Array(items) = value {
        for item in items {
            walk(item, path, out);
        }
        return;
    }
    if path.is_empty() {
        if let Value::String(text) = value {
            out.push(text);
        }
        return;
    }
    let (key, rest) = path.split_once('.').unwrap_or((path, ""));
    if let Some(next) = value.get(key) {
        walk(next, rest, out);
    }
}

/// The files an apply_patch text names: `*** Add File: PATH`, `*** Update File: PATH`,
/// `*** Delete File: PATH`, `*** Move to: PATH` (Codex's patch format, also Copilot's).
pub fn patch_paths(patch: &str) -> impl Iterator<Item = &str> {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    patch.lines().filter_map(|line| {
        let line = line.trim_end_matches('\r');
        HEADERS
            .iter()
            .find_map(|header| line.strip_prefix(header))
            .map(str::trim)
            .filter(|path| !path.is_empty())
    })
}

/// The `http://` and `https://` URLs written in `text`: each runs to the next space, quote or
/// bracket, without trailing punctuation.
pub fn urls_in(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        loop {
            let start = match (rest.find("http://"), rest.find("https://")) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => return None,
            };
            let candidate = &rest[start..];
            let end = candidate
                .find(|c: char| c.is_whitespace() || "\"'<>()[]{}`".contains(c))
                .unwrap_or(candidate.len());
            let url = candidate[..end].trim_end_matches(['.', ',', ';', ':', '!', '?']);
            rest = &candidate[end..];
            let scheme = if url.starts_with("https://") { 8 } else { 7 };
            if url.len() > scheme {
                return Some(url);
            }
        }
    })
}

/// `argv` as one command line a POSIX shell splits back into it: a word of safe characters
/// stays bare, any other is single-quoted (a `'` inside written `'"'"'`).
pub fn shell_join<'a>(argv: impl IntoIterator<Item = &'a str>) -> String {
    let mut line = String::new();
    for word in argv {
        if !line.is_empty() {
            line.push(' ');
        }
        let safe = !word.is_empty()
            && word
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b));
        if safe {
            line.push_str(word);
        } else {
            line.push('\'');
            line.push_str(&word.replace('\'', "'\"'\"'"));
            line.push('\'');
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn locations_read_fields_arrays_and_texts() {
        #[rustfmt::skip]
        let cases: [(&str, Value, &str, &[&str]); 8] = [
            ("a field", json!({"file_path": "/a"}), "file_path", &["/a"]),
            ("a nested field", json!({"ws": {"url": "wss://x"}}), "ws.url", &["wss://x"]),
            ("every element's field", json!({"edits": [{"new_string": "a"}, {"new_string": "b"}]}), "edits.new_string", &["a", "b"]),
            ("a string or an array", json!({"paths": ["src", "docs"]}), "paths", &["src", "docs"]),
            ("the input itself", json!("*** Begin Patch"), "", &["*** Begin Patch"]),
            ("a patch's files", json!({"command": "*** Begin Patch\n*** Update File: src/a.rs\n@@\n*** Move to: src/b.rs\n*** Add File: c.txt\n+x\n*** Delete File: d\n*** End Patch"}), "patch:command", &["src/a.rs", "src/b.rs", "c.txt", "d"]),
            ("URLs in a prompt", json!({"prompt": "Summarize https://example.com/a, and (http://localhost:8080/b)."}), "urls:prompt", &["https://example.com/a", "http://localhost:8080/b"]),
            ("nothing there", json!({"other": 1}), "file_path", &[]),
        ];
        for (name, input, location, expected) in cases {
            let mut found = Vec::new();
            strings(&input, location, &mut found);
            assert_eq!(found, expected, "{name}");
        }
    }

    #[test]
    fn an_argv_is_joined_so_that_a_shell_splits_it_back() {
        assert_eq!(shell_join(["rm", "-rf", "/"]), "rm -rf /");
        assert_eq!(
            shell_join(["bash", "-lc", "echo 'hi' && rm -rf ~"]),
            r#"bash -lc 'echo '"'"'hi'"'"' && rm -rf ~'"#
        );
        assert_eq!(shell_join(["printf", ""]), "printf ''");
        assert_eq!(
            command(&json!({"command": ["git", "push", "--force"]}), "command").as_deref(),
            Some("git push --force")
        );
        assert_eq!(command(&json!({"command": 3}), "command"), None);
    }
}
