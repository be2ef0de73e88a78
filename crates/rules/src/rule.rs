//! One rule: its tool part and its specifier, read and checked ([`Rule::parse`]), and whether
//! it holds for a call.

use std::path::Path;

use crate::parse::{self, RuleError, Split};
use crate::spec::{Reading, Spec};
use crate::subject::{Item, Subject};
use crate::tools::{self, Family};
use crate::{Action, glob, mcp, shell};

/// One rule, as written in Claude Code's permission syntax: `Bash(git push --force:*)`,
/// `Read(./.env)`, `WebFetch(domain:example.com)`, `mcp__github__*`, `Bash`.
#[derive(Debug, Clone)]
pub struct Rule {
    text: String,
    tool: Tool,
    spec: Spec,
    /// The specifier read as `key:value` on an input field (deny and ask rules).
    param: Option<(String, String)>,
    /// Byte offset of the specifier in the text.
    spec_at: usize,
    warnings: Vec<String>,
}

#[derive(Debug, Clone)]
enum Tool {
    /// A tool by its Claude Code name (legacy names resolved).
    Named(String),
    /// `mcp__server`, `mcp__server__tool`, `mcp__server__get_*`.
    Mcp(String),
    /// A glob over tool names (`*`, `mcp__*`): deny and ask rules only.
    Glob(String),
}

/// Two rules are the same rule when they are written the same.
impl PartialEq for Rule {
    fn eq(&self, other: &Rule) -> bool {
        self.text == other.text
    }
}

impl Eq for Rule {}

impl Rule {
    /// Reads a rule's text. The error names the column (1-based, in characters) and what is
    /// wrong, with a "did you mean" for a misspelt tool name or specifier prefix.
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let Split { tool, spec } = parse::split(text)?;
        let (spec, spec_at) = match spec {
            Some((spec, at)) => (Some(spec), at),
            None => (None, text.len()),
        };
        let mut rule = Rule {
            text: text.to_string(),
            tool: Tool::Named(String::new()),
            spec: Spec::Any,
            param: None,
            spec_at,
            warnings: Vec::new(),
        };
        if tool.starts_with("mcp__") {
            if spec.is_some() {
                return Err(RuleError::at(
                    text,
                    spec_at - 1,
                    "MCP rules take no parentheses: `mcp__server` or `mcp__server__*` for every tool of a server, `mcp__server__tool` for one",
                ));
            }
            let Some((server, _)) = mcp::split(tool) else {
                return Err(RuleError::at(
                    text,
                    0,
                    "an MCP rule names a server: `mcp__server`, `mcp__server__tool`",
                ));
            };
            rule.tool = if server.contains('*') {
                Tool::Glob(tool.into())
            } else {
                Tool::Mcp(tool.into())
            };
            return Ok(rule);
        }
        if let Some(space) = tool.find(char::is_whitespace) {
            return Err(RuleError::at(
                text,
                space,
                "a tool name has no spaces: rules name tools as Claude Code's tools reference spells them (`TaskStop`, not `Stop Task`)",
            ));
        }
        if tool.contains('*') {
            if spec.is_some() {
                return Err(RuleError::at(
                    text,
                    spec_at - 1,
                    "a tool-name pattern takes no specifier",
                ));
            }
            rule.tool = Tool::Glob(tool.into());
            return Ok(rule);
        }
        let name = parse::tool_name(text, tool)?;
        rule.tool = Tool::Named(name.into());
        let Some(spec) = spec else {
            return Ok(rule);
        };
        rule.param = parse::param_rule(&spec);
        let mut reading = Reading {
            text,
            at: spec_at,
            warnings: &mut rule.warnings,
        };
        rule.spec = reading.spec(name, &spec)?;
        Ok(rule)
    }

    /// Checks that the rule means something as an `action` rule.
    pub(crate) fn check(&self, action: Action) -> Result<(), RuleError> {
        if action != Action::Allow {
            return Ok(());
        }
        let at_spec = |message: &str| RuleError::at(&self.text, self.spec_at, message);
        match (&self.tool, &self.spec) {
            (Tool::Glob(name), _) => Err(RuleError::at(
                &self.text,
                name.find('*').unwrap_or(0),
                "an allow rule's tool name may use `*` only after a literal `mcp__<server>__` (`mcp__github__*`): it must name what it approves",
            )),
            (_, Spec::Param) => Err(at_spec(
                "`field:value` rules are for deny and ask: an allow rule on this tool takes no specifier",
            )),
            (
                _,
                Spec::Shell {
                    case_blind: true, ..
                },
            ) => Err(at_spec(
                "hookhost reads bash syntax only and approves no PowerShell command by pattern; `PowerShell(...)` works in deny and ask",
            )),
            _ => Ok(()),
        }
    }

    /// The rule as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// How the merged decision and the decision log name the rule: `rule: Bash(rm -rf:*)`.
    pub fn hook_name(&self) -> String {
        format!("rule: {}", self.text)
    }

    /// What the rule does not do as its text may suggest (a `Write(path)` rule Claude Code
    /// never consults, a `*` that is literal): for `hookhost check` to show.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The families the rule reaches for `action`, and whether it also names a tool exactly.
    fn reach(&self, action: Action) -> (&'static [Family], bool) {
        use Family::*;
        let Tool::Named(name) = &self.tool else {
            return (&[], false);
        };
        let path = matches!(self.spec, Spec::Path(_));
        let allow = action == Action::Allow;
        match (name.as_str(), path) {
            ("Bash", _) => (&[Bash], true),
            ("PowerShell", _) => (&[PowerShell], true),
            ("Read", false) => (&[Read], true),
            // A Read deny also keeps Edit and Write off the path (Claude Code 2.1.208+, 2.1.228+).
            ("Read", true) if action == Action::Deny => (&[Read, Search, Edit, Write], true),
            ("Read", true) => (&[Read, Search], true),
            ("Edit", false) => (&[Edit], true),
            ("Edit", true) => (&[Edit, Write], true),
            ("Write", false) => (&[Write], true),
            ("Glob" | "Grep" | "LS", false) => (&[Search], true),
            (_, true) if allow => (&[], false),
            ("Write" | "MultiEdit" | "NotebookEdit", true) => (&[Edit, Write], true),
            ("Glob" | "Grep" | "LS" | "NotebookRead", true) => (&[Read, Search], true),
            ("WebFetch", _) => (&[WebFetch], true),
            ("WebSearch", _) => (&[WebSearch], true),
            _ => (&[], true),
        }
    }

    /// Whether the tool part names the call's tool.
    pub(crate) fn names(&self, subject: &Subject<'_>, action: Action) -> bool {
        match &self.tool {
            Tool::Glob(pattern) => {
                action != Action::Allow
                    && [Some(subject.call.tool), Some(subject.name), subject.claude]
                        .into_iter()
                        .flatten()
                        .any(|name| glob::star_match(pattern, name))
            }
            Tool::Mcp(rule) => match action {
                Action::Allow => mcp::allows(rule, subject.call.tool),
                _ => mcp::denies(rule, subject.call.tool),
            },
            Tool::Named(name) => {
                let (families, by_name) = self.reach(action);
                families.contains(&subject.family) || (by_name && name == subject.name)
            }
        }
    }

    /// For a deny or ask rule that names the call's tool: what it holds for, if it does.
    pub(crate) fn denies(&self, subject: &Subject<'_>, rule_dir: &Path) -> Option<String> {
        if let Some((key, value)) = &self.param
            && let Some(actual) = tools::scalar(subject.call.input, key)
            && glob::star_match(value, actual.trim())
        {
            return Some(format!("{key}: {actual}"));
        }
        match &self.spec {
            Spec::Any => Some(subject.call.tool.to_string()),
            Spec::Shell {
                pattern,
                case_blind,
            } => subject.script.as_ref()?.denied_by(pattern, *case_blind),
            Spec::Path(pattern) => subject
                .paths
                .iter()
                .find(|path| {
                    pattern.matches(path, subject.directory, false, subject.dirs(rule_dir))
                })
                .map(|path| path.display().to_string()),
            Spec::Domain(pattern) => subject.hosts.iter().find_map(|(_, loose)| {
                loose.as_ref().filter(|host| pattern.matches(host)).cloned()
            }),
            Spec::Field { .. } => self.field(subject),
            Spec::Param | Spec::Never => None,
        }
    }

    /// For an allow rule that names the call's tool: whether it approves the whole call.
    pub(crate) fn allows_whole(&self, subject: &Subject<'_>) -> Option<String> {
        match &self.spec {
            Spec::Any => Some(subject.call.tool.to_string()),
            Spec::Shell {
                pattern,
                case_blind: false,
            } => subject
                .script
                .as_ref()
                .filter(|script| script.exactly(pattern))
                .map(|script| script.whole.clone()),
            Spec::Field { .. } => self.field(subject),
            _ => None,
        }
    }

    /// For an allow rule that names the call's tool: whether it approves one item of the call.
    pub(crate) fn allows_item(
        &self,
        subject: &Subject<'_>,
        item: &Item<'_>,
        rule_dir: &Path,
    ) -> bool {
        match (&self.spec, item) {
            (
                Spec::Shell {
                    pattern,
                    case_blind: false,
                },
                Item::Command(command),
            ) => shell::allows(pattern, command),
            (Spec::Path(pattern), Item::Path(path)) => {
                pattern.matches(path, subject.directory, true, subject.dirs(rule_dir))
            }
            (Spec::Domain(pattern), Item::Host(host)) => pattern.matches(host),
            _ => false,
        }
    }

    fn field(&self, subject: &Subject<'_>) -> Option<String> {
        let Spec::Field { key, glob } = &self.spec else {
            return None;
        };
        let value = tools::scalar(subject.call.input, key)?;
        glob::star_match(glob, value.trim()).then_some(value)
    }
}
