//! The documentation holds together: every relative link of README.md and `docs/*.md` points
//! to a file that exists and, with an anchor, to a heading of that file; README.md stays a
//! front door (at most 300 lines), with the manual in `docs/`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// README.md's length at most: what hookhost is, the quick start, an example per audience and
/// links, not the manual.
const README_MAX_LINES: usize = 300;

/// README.md and every `docs/*.md`, in a stable order.
fn documents(repo: &Path) -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo.join("docs"))
        .expect("docs/ holds the manual")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    docs.insert(0, repo.join("README.md"));
    docs
}

/// The lines of `text` outside fenced code blocks, numbered from 1.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push((i + 1, line));
        }
    }
    lines
}

/// `line` without its code spans (a run of backticks up to the next run of the same length),
/// so that a link shown as code is not taken for a link.
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].len() - rest[start..].trim_start_matches('`').len();
        let after = &rest[start + ticks..];
        let fence = "`".repeat(ticks);
        // The span closes at a run of exactly `ticks` backticks.
        let close = after
            .match_indices(&fence)
            .find(|(at, _)| !after[..*at].ends_with('`') && !after[at + ticks..].starts_with('`'));
        match close {
            Some((at, _)) => rest = &after[at + ticks..],
            None => {
                out.push_str(&rest[start..]);
                return out;
            }
        }
    }
    out.push_str(rest);
    out
}

/// GitHub's anchor for a heading: lowercase, spaces to `-`, every other character that is not
/// a letter, a digit, `-` or `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors the headings of `text` produce; a repeated one gets `-1`, `-2`, ... as on
/// GitHub.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for (_, line) in prose(text) {
        let hashes = line.len() - line.trim_start_matches('#').len();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = anchor(line[hashes..].trim_end_matches('#'));
        let mut candidate = base.clone();
        let mut n = 0;
        while seen.contains(&candidate) {
            n += 1;
            candidate = format!("{base}-{n}");
        }
        seen.insert(candidate);
    }
    seen
}

/// The relative links of `text` (`[text](path)`, `[text](path#anchor)`, `[text](#anchor)`)
/// outside code, with their line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in prose(text) {
        let line = without_code(line);
        for (at, _) in line.match_indices("](") {
            let target = &line[at + 2..];
            let Some(end) = target.find(')') else {
                continue;
            };
            let target = target[..end].split_whitespace().next().unwrap_or("");
            let external = ["http://", "https://", "mailto:"]
                .iter()
                .any(|scheme| target.starts_with(scheme));
            if !target.is_empty() && !external {
                found.push((number, target.to_string()));
            }
        }
    }
    found
}

#[test]
fn every_relative_link_of_the_docs_reaches_a_file_and_a_heading() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    for doc in documents(repo) {
        let text = std::fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(repo).unwrap().display().to_string();
        for (line, target) in links(&text) {
            let (path, fragment) = match target.split_once('#') {
                Some((path, fragment)) => (path, Some(fragment)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap().join(path)
            };
            if !file.exists() {
                problems.push(format!("{name}:{line}: ({target}): no file {path}"));
                continue;
            }
            let Some(fragment) = fragment else {
                continue;
            };
            let headings = if file.extension().is_some_and(|ext| ext == "md") {
                anchors(&std::fs::read_to_string(&file).unwrap())
            } else {
                HashSet::new()
            };
            if !headings.contains(fragment) {
                problems.push(format!(
                    "{name}:{line}: ({target}): no heading of {} makes the anchor #{fragment}",
                    if path.is_empty() { &name } else { path }
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "broken links in the docs:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_readme_is_a_front_door() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: move the detail into docs/"
    );
}

#[test]
fn headings_make_githubs_anchors() {
    let cases = [
        ("a word", "Events", "events"),
        (
            "an apostrophe",
            "forgeflare's contract",
            "forgeflares-contract",
        ),
        (
            "a comma",
            "Layers, and repositories you don't trust",
            "layers-and-repositories-you-dont-trust",
        ),
        (
            "code and a colon",
            "An agent's hook command: `hookhost agent-hook`",
            "an-agents-hook-command-hookhost-agent-hook",
        ),
        ("a dot", "Loading a hooks.toml", "loading-a-hookstoml"),
        ("a slash", "Layout outside `src/`", "layout-outside-src"),
        (
            "an underscore",
            "the `on_failure` key",
            "the-on_failure-key",
        ),
    ];
    for (case, heading, expected) in cases {
        assert_eq!(anchor(heading), expected, "{case}");
    }
    let repeated = anchors("# Rust\n\n```\n# not a heading\n```\n\n## Rust\n### Python ###\n");
    let expected: HashSet<String> = ["rust", "rust-1", "python"].map(String::from).into();
    assert_eq!(repeated, expected);
}

#[test]
fn links_in_code_are_not_links() {
    let text = "See [Events](events.md#events) and `[not](a-link.md)`.\n\
                ``a `[nested](code.md)` span`` then [x](#y) and [web](https://example.com)\n\
                ```\n[in a block](block.md)\n```\n";
    let expected = vec![(1, "events.md#events".to_string()), (2, "#y".to_string())];
    assert_eq!(links(text), expected);
}
