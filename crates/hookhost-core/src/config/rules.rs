//! `[[rules]]`: permission rules without code, in Claude Code's syntax (docs/rules.md). Each
//! table holds one decision (`deny`, `ask` or `allow`: a list of rule strings), the `reason`
//! the model and the user read, and an optional `mode`:
//!
//! ```toml
//! [[rules]]
//! deny = ["Bash(git push --force:*)", "Bash(git push -f:*)"]
//! reason = "force pushes rewrite shared history"
//! ```
//!
//! Every string is read by `hookhost-rules` here, so that a rule that does not parse is a
//! problem of the file located at its own column (the column of the mistake inside the
//! string), and the file does not load: its guards fail closed as for any invalid hooks.toml.
//! Rules that read but do less than they seem to are warnings.

use std::ops::Range;
use std::path::PathBuf;

use hookhost_rules::{Action, Origin, Rules};
use toml::Spanned;
use toml::de::DeValue;

use super::fields::{Problems, close_to};
use super::when::mode_named;
use super::{Location, Mode};
use crate::text::quote;

const KEYS: &[&str] = &["deny", "ask", "allow", "reason", "mode"];

/// One rule of a `[[rules]]` table, read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    /// What it does when it holds: deny (block), ask, allow (approve).
    pub action: Action,
    /// The rule as written (`Bash(git push --force:*)`).
    pub text: String,
    /// Its table's `reason` (empty for an allow table without one).
    pub reason: String,
    /// Its table's `mode`, else the file's.
    pub mode: Mode,
    /// Where its string starts in the file (the first character of the rule's text).
    pub location: Location,
}

impl PermissionRule {
    /// The name its verdicts, reports and the decision log give it: `rule: TEXT`.
    pub fn hook_name(&self) -> String {
        format!("rule: {}", self.text)
    }
}

/// Reads the `rules` key of a file whose text is `text`.
pub(super) fn parse_rules(
    text: &str,
    value: &Spanned<DeValue<'_>>,
    file_mode: Mode,
    sink: &mut Problems<'_>,
) -> Vec<PermissionRule> {
    let DeValue::Array(tables) = value.get_ref() else {
        sink.push(
            &value.span(),
            None,
            format!(
                "`rules` must be an array of tables (write each as a `[[rules]]` table with one of `deny`, `ask` or `allow`), found {}",
                value.get_ref().type_str()
            ),
        );
        return Vec::new();
    };
    let mut rules = Vec::new();
    for table in tables {
        parse_table(text, table, file_mode, sink, &mut rules);
    }
    rules
}

fn parse_table(
    text: &str,
    item: &Spanned<DeValue<'_>>,
    file_mode: Mode,
    sink: &mut Problems<'_>,
    rules: &mut Vec<PermissionRule>,
) {
    let DeValue::Table(table) = item.get_ref() else {
        sink.push(
            &item.span(),
            None,
            format!(
                "each `[[rules]]` entry must be a table, found {}",
                item.get_ref().type_str()
            ),
        );
        return;
    };
    let mut decisions = Vec::new();
    let mut reason = None;
    let mut mode = file_mode;
    for (key, value) in table.iter() {
        let name = key.get_ref().as_ref();
        match name {
            "deny" | "ask" | "allow" => {
                let action = Action::ALL
                    .into_iter()
                    .find(|action| action.as_str() == name)
                    .unwrap_or(Action::Deny);
                decisions.push((action, key.span(), value));
            }
            "reason" => match value.get_ref() {
                DeValue::String(text) => reason = Some(text.to_string()),
                other => sink.push(
                    &value.span(),
                    None,
                    format!("`reason` must be a string, found {}", other.type_str()),
                ),
            },
            "mode" => match value.get_ref() {
                DeValue::String(text) => match mode_named(text) {
                    Ok(named) => mode = named,
                    Err(message) => sink.push(&value.span(), None, message),
                },
                other => sink.push(
                    &value.span(),
                    None,
                    format!("`mode` must be a string, found {}", other.type_str()),
                ),
            },
            other => sink.push(
                &key.span(),
                None,
                format!(
                    "unknown key `{}` in a `[[rules]]` table{}",
                    crate::text::name(other),
                    close_to(KEYS, other)
                        .map(|known| format!("; did you mean `{known}`?"))
                        .unwrap_or_else(|| format!(" (its keys are {})", KEYS.join(", ")))
                ),
            ),
        }
    }
    // In file order (the table's keys come sorted), so that a second decision is the later one.
    decisions.sort_by_key(|(_, span, _)| span.start);
    let (action, key_span, list) = match decisions.as_slice() {
        [one] => one.clone(),
        [] => {
            sink.push(
                &item.span(),
                None,
                "a `[[rules]]` table needs one of `deny`, `ask` or `allow`: a list of rules such as [\"Bash(git push --force:*)\"]".to_string(),
            );
            return;
        }
        [_, (_, second, _), ..] => {
            sink.push(
                second,
                None,
                "a `[[rules]]` table holds one decision (`deny`, `ask` or `allow`): one reason cannot explain two; write a table for each".to_string(),
            );
            return;
        }
    };
    let reason = reason.unwrap_or_default();
    if action != Action::Allow && reason.trim().is_empty() {
        sink.push(
            &key_span,
            None,
            format!(
                "a `{}` table needs a `reason`: the model and the user read it as the {}'s message",
                action.as_str(),
                action.answer()
            ),
        );
    }
    let DeValue::Array(strings) = list.get_ref() else {
        sink.push(
            &list.span(),
            None,
            format!(
                "`{}` must be a list of rule strings (`{} = [\"Bash(rm -rf:*)\"]`), found {}",
                action.as_str(),
                action.as_str(),
                list.get_ref().type_str()
            ),
        );
        return;
    };
    if strings.is_empty() {
        sink.push(
            &list.span(),
            None,
            format!(
                "`{}` is empty: list at least one rule, or remove the table",
                action.as_str()
            ),
        );
    }
    for string in strings {
        let DeValue::String(rule) = string.get_ref() else {
            sink.push(
                &string.span(),
                None,
                format!(
                    "a rule is a string such as \"Bash(git push --force:*)\", found {}",
                    string.get_ref().type_str()
                ),
            );
            continue;
        };
        let span = string.span();
        let start = text_start(text, &span, rule);
        let origin = Origin {
            file: PathBuf::new(),
            line: 0,
            column: 0,
            dir: PathBuf::new(),
        };
        // A scratch set: the one that runs is built at load time, with each rule's file and
        // anchor directory.
        match Rules::new().add(action, rule, "", origin) {
            Ok(parsed) => {
                for warning in parsed.warnings() {
                    sink.warn(&span, None, format!("rule {}: {warning}", quote(rule)));
                }
            }
            Err(error) => {
                let at = start.map_or(span.start, |start| {
                    start
                        + rule
                            .char_indices()
                            .nth(error.column.saturating_sub(1))
                            .map_or(rule.len(), |(byte, _)| byte)
                });
                let meant = error
                    .suggestion
                    .as_deref()
                    .map(|text| format!("; did you mean `{}`?", crate::text::line(text)))
                    .unwrap_or_default();
                sink.push(
                    &(at..at),
                    None,
                    format!("rule {}: {}{meant}", quote(rule), error.message),
                );
                continue;
            }
        }
        rules.push(PermissionRule {
            action,
            text: rule.to_string(),
            reason: reason.clone(),
            mode,
            location: sink.lines.locate(start.unwrap_or(span.start)),
        });
    }
}

/// The byte offset in the file of the first character of the string `value` whose TOML
/// literal spans `span`, when the literal holds it verbatim (no escapes); `None` otherwise,
/// and mistakes are then located at the literal's start.
fn text_start(text: &str, span: &Range<usize>, value: &str) -> Option<usize> {
    let literal = text.get(span.clone())?;
    let open = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|quote| literal.starts_with(quote))?;
    let mut start = span.start + open.len();
    // A multi-line literal drops the newline right after its opening quotes.
    if open.len() == 3 {
        let rest = &text[start..];
        start += if rest.starts_with("\r\n") {
            2
        } else {
            usize::from(rest.starts_with('\n'))
        };
    }
    text.get(start..)?.starts_with(value).then_some(start)
}

#[cfg(test)]
mod tests {
    use super::super::Config;
    use super::*;

    fn problems(text: &str) -> Vec<String> {
        match Config::parse(text, "hooks.toml") {
            Ok(_) => panic!("expected problems:\n{text}"),
            Err(error) => error.problems().iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn tables_read_into_rules_with_their_reason_mode_and_place() {
        let text = "mode = \"monitor\"\n\n[[rules]]\ndeny = [\"Bash(git push --force:*)\", 'Read(./.env)']\nreason = \"no\"\n\n[[rules]]\nallow = [\"Bash(npm run test:*)\"]\nmode = \"enforce\"\n";
        let config = Config::parse(text, "hooks.toml").unwrap();
        let read: Vec<(Action, &str, &str, Mode, usize, usize)> = config
            .rules
            .iter()
            .map(|rule| {
                let at = rule.location;
                (
                    rule.action,
                    rule.text.as_str(),
                    rule.reason.as_str(),
                    rule.mode,
                    at.line,
                    at.column,
                )
            })
            .collect();
        assert_eq!(
            read,
            [
                (
                    Action::Deny,
                    "Bash(git push --force:*)",
                    "no",
                    Mode::Monitor,
                    4,
                    10
                ),
                (Action::Deny, "Read(./.env)", "no", Mode::Monitor, 4, 38),
                (
                    Action::Allow,
                    "Bash(npm run test:*)",
                    "",
                    Mode::Enforce,
                    8,
                    11
                ),
            ]
        );
        assert_eq!(
            config.rules[0].hook_name(),
            "rule: Bash(git push --force:*)"
        );
    }

    #[test]
    fn a_rule_that_does_not_parse_is_located_at_its_column() {
        #[rustfmt::skip]
        let cases: &[(&str, &str)] = &[
            ("[[rules]]\ndeny = [\"Webfetch(domain:evil.example)\"]\nreason = \"x\"\n",
             "2:10: rule \"Webfetch(domain:evil.example)\": unknown tool `Webfetch`"),
            ("[[rules]]\nask = [\"Bash(ls)\", \"WebFetch(domian:x.com)\"]\nreason = \"x\"\n",
             "2:30: rule \"WebFetch(domian:x.com)\": "),
            ("[[rules]]\ndeny = [\"Bash(rm\"]\nreason = \"x\"\n", "2:14: rule \"Bash(rm\": `(` is never closed"),
            ("[[rules]]\ndeny = [\"Bash(rm *)\"]\n", "2:1: a `deny` table needs a `reason`"),
            ("[[rules]]\ndney = [\"Bash(rm *)\"]\nreason = \"x\"\n", "2:1: unknown key `dney` in a `[[rules]]` table; did you mean `deny`?"),
            ("[[rules]]\ndeny = [\"Bash(rm *)\"]\nallow = [\"Bash(ls)\"]\nreason = \"x\"\n", "3:1: a `[[rules]]` table holds one decision"),
            ("[[rules]]\nreason = \"x\"\n", "1:1: a `[[rules]]` table needs one of `deny`, `ask` or `allow`"),
            ("[[rules]]\ndeny = []\nreason = \"x\"\n", "2:8: `deny` is empty"),
            ("rules = \"Bash\"\n", "1:9: `rules` must be an array of tables"),
        ];
        for (text, expected) in cases {
            let problems = problems(text);
            assert!(
                problems.iter().any(|problem| problem.starts_with(expected)),
                "{text}\n{problems:#?}"
            );
        }
        let problems =
            problems("[[rules]]\ndeny = [\"Webfetch(domain:evil.example)\"]\nreason = \"x\"\n");
        assert!(
            problems[0].ends_with("did you mean `WebFetch(domain:evil.example)`?"),
            "{problems:?}"
        );
    }

    #[test]
    fn an_escaped_string_is_located_at_its_start() {
        let problems = problems("[[rules]]\ndeny = [\"Bash(\\u0072m\"]\nreason = \"x\"\n");
        assert!(
            problems[0].starts_with("2:9: rule \"Bash(rm\""),
            "{problems:?}"
        );
    }
}
