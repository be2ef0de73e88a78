//! A rule's specifier, read for the tool the rule names: a shell pattern for `Bash` and
//! `PowerShell`, a path pattern for the file tools, `domain:HOST` for `WebFetch`, an exact
//! search for `WebSearch`, a subagent for `Agent`, and otherwise only `field:value` (Claude
//! Code 2.1.332: its `Jpe` validation, whose errors and warnings hookhost gives with columns).

use crate::parse::{self, RuleError};
use crate::{domain, path, shell};

/// What a rule's specifier says, read for the tool it names.
#[derive(Debug, Clone)]
pub(crate) enum Spec {
    /// Every call of the tool.
    Any,
    Shell {
        pattern: shell::Pattern,
        case_blind: bool,
    },
    Path(path::Pattern),
    Domain(domain::Pattern),
    /// One input field against a `*` glob (`WebSearch(query)`, `Agent(subagent)`).
    Field {
        key: &'static str,
        glob: String,
    },
    /// Only the `key:value` reading.
    Param,
    /// Read, but never holds for a tool call (`Cd` rules govern Claude Code's `/cd`).
    Never,
}

/// Claude Code's file tools, whose specifier is a path pattern.
const PATH_TOOLS: &[&str] = &[
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Glob",
    "Grep",
    "LS",
];

/// A specifier being read: the rule's text, where the specifier starts in it (bytes), and the
/// rule's warnings to add to.
pub(crate) struct Reading<'a> {
    pub(crate) text: &'a str,
    pub(crate) at: usize,
    pub(crate) warnings: &'a mut Vec<String>,
}

impl Reading<'_> {
    /// Reads the specifier `spec` of a rule naming `name` (its Claude Code name).
    pub(crate) fn spec(&mut self, name: &str, spec: &str) -> Result<Spec, RuleError> {
        let (text, at) = (self.text.to_string(), self.at);
        let error = |offset: usize, message: &str| RuleError::at(&text, at + offset, message);
        let primary = parse::param(spec).map(|(key, _)| key);
        let primary_error = |field: &str, instead: String| {
            error(
                0,
                &format!(
                    "`{name}({field}:...)` compares the raw {field} field, which a compound command or another spelling of the path gets past: write `{instead}`"
                ),
            )
        };
        match name {
            "Bash" | "PowerShell" => {
                if primary.as_deref() == Some("command") {
                    return Err(primary_error(
                        "command",
                        format!(
                            "{name}({})",
                            spec.split_once(':').map_or("", |(_, v)| v.trim())
                        ),
                    ));
                }
                if spec == ":*" {
                    return Err(error(
                        0,
                        "a prefix rule needs a command before `:*`: `Bash(npm run test:*)`",
                    ));
                }
                let pattern = shell::Pattern::new(spec);
                if let shell::Pattern::Prefix(prefix) = &pattern
                    && prefix.contains('*')
                {
                    self.warnings.push(format!("`{}` mixes `*` with the trailing `:*`: the `*` is literal (Claude Code reads it so); write `{name}({prefix})` for a wildcard", self.text));
                } else if spec.contains(":*") && !spec.ends_with(":*") {
                    self.warnings.push(format!("`{}` has a `:*` that is not at the end: it is a literal `:` and a wildcard `*`", self.text));
                }
                Ok(Spec::Shell {
                    pattern,
                    case_blind: name == "PowerShell",
                })
            }
            _ if PATH_TOOLS.contains(&name) => {
                if let Some(colon) = spec.find(":*") {
                    return Err(error(
                        colon,
                        "`:*` is only for Bash prefix rules: use `*` (one path segment) or `**` (any depth)",
                    ));
                }
                if let Some(field @ ("file_path" | "path" | "notebook_path")) = primary.as_deref() {
                    return Err(primary_error(
                        field,
                        format!(
                            "{name}({})",
                            spec.split_once(':').map_or("", |(_, v)| v.trim())
                        ),
                    ));
                }
                let pattern = path::Pattern::new(spec).map_err(|why| error(0, &why))?;
                if !["Read", "Edit"].contains(&name) {
                    let instead = if ["Glob", "Grep", "LS", "NotebookRead"].contains(&name) {
                        "Read"
                    } else {
                        "Edit"
                    };
                    self.warnings.push(format!(
                        "Claude Code never consults `{name}(path)` rules (only `{instead}(path)` rules, which cover every tool of the kind): hookhost holds `{}` as `{instead}({spec})` for deny and ask, and never for allow",
                        self.text
                    ));
                }
                Ok(Spec::Path(pattern))
            }
            "WebFetch" => self.domain(spec).map(Spec::Domain),
            "WebSearch" => match spec.find(['*', '?']) {
                Some(wild) => Err(error(
                    wild,
                    "WebSearch rules take an exact search, without `*` or `?`",
                )),
                None => Ok(Spec::Field {
                    key: "query",
                    glob: spec.to_string(),
                }),
            },
            "Agent" => Ok(Spec::Field {
                key: "subagent_type",
                glob: spec.to_string(),
            }),
            "Cd" => {
                self.warnings.push(format!("`{}` governs Claude Code's /cd command, which no hook sees: it never holds for a tool call", self.text));
                Ok(Spec::Never)
            }
            _ if parse::param_rule(spec).is_some() => Ok(Spec::Param),
            _ => Err(error(
                0,
                &format!(
                    "hookhost reads no specifier for `{name}`: write `{name}` for every call, or `{name}(field:value)` (deny and ask) to match a field of its input"
                ),
            )),
        }
    }

    fn domain(&self, spec: &str) -> Result<domain::Pattern, RuleError> {
        let error = |message: &str| RuleError::at(self.text, self.at, message);
        if let Some(host) = spec.strip_prefix("domain:") {
            if host.is_empty() {
                return Err(RuleError::at(
                    self.text,
                    self.at + "domain:".len(),
                    "`domain:` needs a host: `WebFetch(domain:example.com)`",
                ));
            }
            if let Some(bad) = host.find(|c: char| c.is_whitespace() || "/\\?#@".contains(c)) {
                return Err(RuleError::at(
                    self.text,
                    self.at + "domain:".len() + bad,
                    "a host has no path, query or user: `WebFetch(domain:example.com)`",
                ));
            }
            return Ok(domain::Pattern::new(host));
        }
        if spec.contains("://") || spec.to_ascii_lowercase().starts_with("http") {
            let host = domain::host_of(spec, false).unwrap_or_else(|| "example.com".into());
            return Err(error("WebFetch rules take `domain:HOST`, not a URL")
                .suggest(format!("WebFetch(domain:{host})")));
        }
        if let Some((prefix, rest)) = spec.split_once(':')
            && parse::distance(&prefix.to_lowercase(), "domain") <= 2
        {
            return Err(error(&format!(
                "unknown specifier prefix `{prefix}:`: WebFetch rules take `domain:HOST`"
            ))
            .suggest(format!("WebFetch(domain:{rest})")));
        }
        Err(error("WebFetch rules take `domain:HOST`").suggest(format!("WebFetch(domain:{spec})")))
    }
}
