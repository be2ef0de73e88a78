//! The results as JUnit XML, the report format CI systems show (GitLab, Jenkins, GitHub
//! actions that read test reports): a `<testsuite>` per test file, a `<testcase>` per case, a
//! `<failure>` with the diff of what differs, an `<error>` for a case that could not run.

use std::fmt::Write as _;

use super::{CaseResult, Status};

/// One test file's results.
#[derive(Debug, Clone, Copy)]
pub struct Suite<'a> {
    /// The file, as reports name it.
    pub name: &'a str,
    /// Its cases' results, in file order.
    pub results: &'a [CaseResult],
}

/// The XML document for `suites`.
pub fn to_xml(suites: &[Suite<'_>]) -> String {
    let count = |status: fn(&Status) -> bool| -> usize {
        suites
            .iter()
            .flat_map(|suite| suite.results)
            .filter(|result| status(&result.status))
            .count()
    };
    let seconds =
        |results: &[CaseResult]| -> f64 { results.iter().map(|r| r.duration.as_secs_f64()).sum() };
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"hookhost test\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">",
        suites
            .iter()
            .map(|suite| suite.results.len())
            .sum::<usize>(),
        count(|status| matches!(status, Status::Failed(_))),
        count(|status| matches!(status, Status::Error(_))),
        suites
            .iter()
            .map(|suite| seconds(suite.results))
            .sum::<f64>(),
    );
    for suite in suites {
        let failures = suite
            .results
            .iter()
            .filter(|r| matches!(r.status, Status::Failed(_)))
            .count();
        let errors = suite
            .results
            .iter()
            .filter(|r| matches!(r.status, Status::Error(_)))
            .count();
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{:.3}\">",
            escape(suite.name),
            suite.results.len(),
            seconds(suite.results),
        );
        for result in suite.results {
            let _ = write!(
                xml,
                "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" line=\"{}\" time=\"{:.3}\"",
                escape(&result.name),
                escape(suite.name),
                escape(suite.name),
                result.location.line,
                result.duration.as_secs_f64(),
            );
            match &result.status {
                Status::Passed => xml.push_str("/>\n"),
                Status::Failed(mismatches) => {
                    let message: Vec<String> = mismatches
                        .iter()
                        .map(|m| format!("{}: expected {}", m.key, first_line(&m.expected)))
                        .collect();
                    let mut body = String::new();
                    for mismatch in mismatches {
                        let _ = writeln!(body, "{}:", mismatch.key);
                        for line in mismatch.diff() {
                            let _ = writeln!(body, "  {line}");
                        }
                    }
                    let _ = write!(
                        xml,
                        ">\n      <failure message=\"{}\" type=\"mismatch\">{}</failure>\n    </testcase>\n",
                        escape(&message.join("; ")),
                        escape(&body)
                    );
                }
                Status::Error(error) => {
                    let _ = write!(
                        xml,
                        ">\n      <error message=\"{}\" type=\"error\">{}</error>\n    </testcase>\n",
                        escape(&first_line(error)),
                        escape(error)
                    );
                }
            }
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

/// Text as XML 1.0 attribute or element content: markup characters as entities, and the
/// control characters XML 1.0 cannot hold at all (a hook's output may have them) as `\u{..}`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(c),
            c if c.is_control() || matches!(c, '\u{fffe}' | '\u{ffff}') => {
                out.extend(c.escape_unicode())
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::Mismatch;
    use super::*;
    use crate::config::Location;
    use std::time::Duration;

    fn result(name: &str, status: Status) -> CaseResult {
        CaseResult {
            name: name.to_string(),
            location: Location { line: 3, column: 1 },
            event: "PreToolUse Bash".to_string(),
            actual: None,
            duration: Duration::from_millis(12),
            status,
        }
    }

    #[test]
    fn failures_and_errors_are_reported_with_their_diffs() {
        let results = [
            result("blocks <rm>", Status::Passed),
            result(
                "allows ls",
                Status::Failed(vec![Mismatch {
                    key: "decision".to_string(),
                    expected: "allow".to_string(),
                    actual: "block: blocked by g: \"no\" \u{1b}[2J".to_string(),
                }]),
            ),
            result(
                "broken",
                Status::Error("the case's layers do not load".to_string()),
            ),
        ];
        let xml = to_xml(&[Suite {
            name: "hooks.test.toml",
            results: &results,
        }]);
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"hookhost test\" tests=\"3\" failures=\"1\" errors=\"1\" time=\"0.036\">\n"), "{xml}");
        assert!(xml.contains("<testsuite name=\"hooks.test.toml\" tests=\"3\" failures=\"1\" errors=\"1\" time=\"0.036\">"), "{xml}");
        assert!(xml.contains("<testcase name=\"blocks &lt;rm&gt;\" classname=\"hooks.test.toml\" file=\"hooks.test.toml\" line=\"3\" time=\"0.012\"/>"), "{xml}");
        assert!(xml.contains("<failure message=\"decision: expected allow\" type=\"mismatch\">decision:\n  - allow\n  + block: blocked by g: &quot;no&quot; \\u{1b}[2J\n</failure>"), "{xml}");
        assert!(
            xml.contains("<error message=\"the case&apos;s layers do not load\" type=\"error\">"),
            "{xml}"
        );
        assert!(xml.ends_with("  </testsuite>\n</testsuites>\n"));
    }
}
