//! The `egress` policy: network tools reaching hosts outside an allowlist. Shell commands
//! (`curl`, `wget`, `nc`, `ssh`, `scp`, `rsync`, `git remote add`/`push`/`clone`/`fetch` with a
//! URL, `pip`/`npm`/`cargo`/`gem` with a custom index or registry) and web-fetch tools' URLs.
//! Loopback is always allowed; a host the policy cannot read (`curl "$URL"`) counts as outside.
//!
//! Options: `allow` (domain globs: `example.com`, `*.example.com`), `builtin_allow` (the code
//! hosts and package registries agents use daily; default true), `mode` (`block`, `ask`,
//! `warn`).

mod hosts;

use hook_sdk::{Event, Hook, Phase, Verdict};
use policy_common::options::{OptionError, Options, misconfigured};
use policy_common::shell;
use policy_common::tools::{Tool, ToolKind};
use serde_json::Value;

pub use hosts::{BUILTIN, host_of};

/// The options the policy takes.
pub const OPTIONS: &[&str] = &["allow", "builtin_allow", "mode"];

/// The policy, configured.
#[derive(Debug, Clone)]
pub struct Egress {
    allow: Vec<String>,
    mode: String,
}

impl Default for Egress {
    fn default() -> Egress {
        Egress {
            allow: BUILTIN.iter().map(|h| h.to_string()).collect(),
            mode: "block".into(),
        }
    }
}

/// A connection the policy refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The program or tool.
    pub by: String,
    /// The host, or what stands for it (`$URL`).
    pub host: String,
}

impl Refused {
    /// The reason the agent reads.
    pub fn reason(&self) -> String {
        if self.host.contains('$') || self.host.is_empty() {
            format!(
                "{} connects to a host it cannot read ({}): only allowed hosts are reachable",
                self.by,
                if self.host.is_empty() {
                    "none given"
                } else {
                    &self.host
                }
            )
        } else {
            format!(
                "{} reaches {}, which is not in the allowlist",
                self.by, self.host
            )
        }
    }
}

impl Egress {
    /// The policy configured by `[hooks.config]` (JSON text).
    pub fn from_config(json: &str) -> Result<Egress, OptionError> {
        let options = Options::parse(json, OPTIONS)?;
        let mut allow: Vec<String> = if options.bool("builtin_allow")?.unwrap_or(true) {
            BUILTIN.iter().map(|h| h.to_string()).collect()
        } else {
            Vec::new()
        };
        for pattern in options.strings("allow")?.unwrap_or_default() {
            let valid = !pattern.is_empty()
                && pattern.chars().all(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '*' | ':' | '[' | ']')
                });
            if !valid || pattern.contains("://") {
                return Err(OptionError(format!(
                    "option `allow` holds `{pattern}`, which is not a domain glob (write `example.com` or `*.example.com`)"
                )));
            }
            allow.push(pattern.to_lowercase());
        }
        let mode = options
            .choice("mode", &["block", "ask", "warn"])?
            .unwrap_or_else(|| "block".into());
        Ok(Egress { allow, mode })
    }

    /// The host is allowed: loopback, or matching an `allow` glob.
    pub fn allowed(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_lowercase();
        if matches!(host.as_str(), "localhost" | "::1" | "[::1]" | "0.0.0.0")
            || host.starts_with("127.")
            || host.ends_with(".localhost")
        {
            return true;
        }
        self.allow
            .iter()
            .any(|pattern| match pattern.strip_prefix("*.") {
                Some(domain) => host.ends_with(&format!(".{domain}")),
                None => *pattern == host,
            })
    }

    /// The first connection `tool(input)` makes to a host outside the allowlist.
    pub fn check(&self, tool: &str, input: &Value) -> Option<Refused> {
        let view = Tool::new(tool, input);
        let mut reached: Vec<(String, String)> = Vec::new();
        match view.kind() {
            ToolKind::Fetch => {
                for url in view.urls() {
                    reached.push((tool.to_string(), host_of(&url).unwrap_or_default()));
                }
            }
            ToolKind::Shell => {
                let script = shell::parse(&view.shell().unwrap_or_default());
                shell::visit::<()>(&script, &mut |call| {
                    for host in hosts::of_call(call) {
                        reached.push((call.program.to_string(), host));
                    }
                    None
                });
            }
            _ => {}
        }
        reached
            .into_iter()
            .find(|(_, host)| !self.allowed(host))
            .map(|(by, host)| Refused { by, host })
    }

    /// The answer for a refusal.
    pub fn verdict(&self, refused: &Refused) -> Verdict {
        match self.mode.as_str() {
            "ask" => Verdict::ask(refused.reason()),
            "warn" => Verdict::warn(refused.reason()),
            _ => Verdict::block(refused.reason()),
        }
    }
}

/// The component.
#[derive(Debug)]
pub struct EgressPolicy;

impl Hook for EgressPolicy {
    fn handle(event: &Event) -> Verdict {
        if event.phase() != Phase::Guard || event.name() != "PreToolUse" {
            return Verdict::allow();
        }
        let Some(call) = event.tool_call() else {
            return Verdict::allow();
        };
        let policy = match Egress::from_config(&hook_sdk::config_json()) {
            Ok(policy) => policy,
            Err(error) => return Verdict::block(misconfigured("egress", &error)),
        };
        match policy.check(&call.tool, &call.input) {
            Some(refused) => policy.verdict(&refused),
            None => Verdict::allow(),
        }
    }
}

hook_sdk::export!(EgressPolicy);

#[cfg(test)]
mod tests;
