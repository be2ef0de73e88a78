//! A set of located rules, and the one question asked of it: what do the rules say about this
//! call? Deny rules first, then ask, then allow; the first rule that holds in that order
//! answers (Claude Code's precedence: "rules are evaluated in order: deny, then ask, then
//! allow. The first match in that order determines the outcome, and rule specificity doesn't
//! change the order").

use crate::parse::RuleError;
use crate::rule::Rule;
use crate::subject::Subject;
use crate::{Action, Call, Origin};

/// A rule with its action, its reason and where it was written.
#[derive(Debug, Clone)]
struct Entry {
    rule: Rule,
    action: Action,
    reason: String,
    origin: Origin,
}

/// The rules of every configuration layer, in the order they were written.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    entries: Vec<Entry>,
}

/// What the rules say about a call: the rule that decided, and what it held for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict<'a> {
    /// Deny, ask or allow.
    pub action: Action,
    /// The rule that decided (for an allow covering several commands, paths or hosts, the one
    /// that covered the first).
    pub rule: &'a Rule,
    /// The reason written with the rule (may be empty for an allow rule).
    pub reason: &'a str,
    /// Where the rule was written.
    pub origin: &'a Origin,
    /// What the rule held for: the command, path, host, field or tool, as the call spelt it;
    /// for an allow, every part approved, joined with `; `.
    pub matched: String,
}

impl Rules {
    /// No rules.
    pub fn new() -> Rules {
        Rules::default()
    }

    /// Reads `text` and adds it as an `action` rule written at `origin` with `reason`. The
    /// error is the text's (its column is within `text`; the caller adds the file's line and
    /// column); a rule that reads but cannot mean anything as an `action` rule (a tool-name
    /// glob in allow, a `field:value` allow) is an error too.
    pub fn add(
        &mut self,
        action: Action,
        text: &str,
        reason: &str,
        origin: Origin,
    ) -> Result<&Rule, RuleError> {
        let rule = Rule::parse(text)?;
        rule.check(action)?;
        self.entries.push(Entry {
            rule,
            action,
            reason: reason.to_string(),
            origin,
        });
        Ok(&self.entries[self.entries.len() - 1].rule)
    }

    /// How many rules.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No rules at all.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every rule with its action and origin, in the order added.
    pub fn iter(&self) -> impl Iterator<Item = (Action, &Rule, &Origin)> {
        self.entries
            .iter()
            .map(|entry| (entry.action, &entry.rule, &entry.origin))
    }

    /// What the rules say about `call`: `None` when no rule holds (the hooks and the agent
    /// decide as if there were no rules).
    ///
    /// A deny or ask rule holds when it holds for any part of the call (any command of a
    /// compound line, at any depth; any path; any URL). An allow rule answers only when the
    /// whole call is approved: every top-level command, path or host covered by some allow
    /// rule, and nothing in the call that hookhost cannot read exactly.
    pub fn evaluate(&self, call: &Call<'_>) -> Option<Verdict<'_>> {
        let subject = Subject::new(call);
        for action in [Action::Deny, Action::Ask] {
            for entry in self.entries.iter().filter(|entry| entry.action == action) {
                if entry.rule.names(&subject, action)
                    && let Some(matched) = entry.rule.denies(&subject, &entry.origin.dir)
                {
                    return Some(entry.verdict(matched));
                }
            }
        }
        let allows: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|entry| {
                entry.action == Action::Allow && entry.rule.names(&subject, Action::Allow)
            })
            .collect();
        for entry in &allows {
            if let Some(matched) = entry.rule.allows_whole(&subject) {
                return Some(entry.verdict(matched));
            }
        }
        let items = subject.items()?;
        let mut first = None;
        let mut matched = Vec::new();
        for item in &items {
            let entry = allows
                .iter()
                .find(|entry| entry.rule.allows_item(&subject, item, &entry.origin.dir))?;
            first.get_or_insert(*entry);
            matched.push(item.describe());
        }
        first.map(|entry| entry.verdict(matched.join("; ")))
    }
}

impl Entry {
    fn verdict(&self, matched: String) -> Verdict<'_> {
        Verdict {
            action: self.action,
            rule: &self.rule,
            reason: &self.reason,
            origin: &self.origin,
            matched,
        }
    }
}
