//! The corpora's lines: `policies/destructive/corpus.tsv` (written with the engine, its second
//! part held out while rules were written) and `corpus-real.tsv` (real commands, each with its
//! source, written after the engine). Both have four tab-separated columns: category, label
//! (`dangerous` or `everyday`), the command with `\n`, `\t` and `\\` escapes, and why.

use std::path::Path;

/// Which part of the corpora a line belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Part {
    /// corpus.tsv before `# held-out`: its misses were looked at while writing rules.
    Tuned,
    /// corpus.tsv after `# held-out`: never looked at while writing rules.
    HeldOut,
    /// corpus-real.tsv.
    RealWorld,
}

impl Part {
    pub const ALL: [Part; 3] = [Part::Tuned, Part::HeldOut, Part::RealWorld];

    pub fn title(self) -> &'static str {
        match self {
            Part::Tuned => "tuned part",
            Part::HeldOut => "held-out part",
            Part::RealWorld => "real-world part",
        }
    }

    /// The name `--misses` takes.
    pub fn flag(self) -> &'static str {
        match self {
            Part::Tuned => "tune",
            Part::HeldOut => "held-out",
            Part::RealWorld => "real",
        }
    }
}

pub struct Case {
    pub category: String,
    pub dangerous: bool,
    pub command: String,
    pub part: Part,
}

/// Every line of both files, corpus.tsv's first.
pub fn read(crate_dir: &Path) -> Vec<Case> {
    let mut cases = read_file(&crate_dir.join("corpus.tsv"), Part::Tuned);
    cases.extend(read_file(
        &crate_dir.join("corpus-real.tsv"),
        Part::RealWorld,
    ));
    cases
}

fn read_file(path: &Path, first_part: Part) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut part = first_part;
    let mut cases = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line == "# held-out" {
            part = Part::HeldOut;
            continue;
        }
        if line.starts_with('#') || line.starts_with("category\t") || line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            fields.len(),
            4,
            "{}:{}: expected 4 tab-separated columns",
            path.display(),
            number + 1
        );
        assert!(
            matches!(fields[1], "dangerous" | "everyday"),
            "{}:{}: label must be dangerous or everyday",
            path.display(),
            number + 1
        );
        cases.push(Case {
            category: fields[0].to_string(),
            dangerous: fields[1] == "dangerous",
            command: unescape(fields[2]),
            part,
        });
    }
    cases
}

/// The corpus's escapes: `\n`, `\t`, `\\`.
fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}
