//! The `protected-paths` policy: reads and writes of secrets and credentials (`.env` files, SSH
//! keys, cloud CLIs' credentials, kube configs, registry tokens, private keys, keychains, a
//! `.git/config` with a password in a remote URL) through every tool that touches files: the
//! read, write, edit and search tools of every agent, MCP tools (any input string that is a
//! path), and shell commands (`cat`, `cp`, `scp`, `base64`, `tar`, `grep`, redirections, ...).
//!
//! Options: `paths` (more globs to protect), `allow` (globs never protected), `mode` (per list:
//! `secrets`, the built-in one, and `paths`, the user's: `block` or `ask`).

use hook_sdk::glob::Glob;
use hook_sdk::{Event, Hook, Phase, Verdict};
use policy_common::options::{OptionError, Options, misconfigured};
use policy_common::paths::{canonical, secret_kind};
use policy_common::shell;
use policy_common::tools::{Tool, ToolKind};
use serde_json::Value;

/// The options the policy takes.
pub const OPTIONS: &[&str] = &["paths", "allow", "mode"];

/// Programs that look at a path without reading what it holds (or use a key as a key).
const HARMLESS: &[&str] = &[
    "ls",
    "stat",
    "chmod",
    "chown",
    "chgrp",
    "test",
    "[",
    "[[",
    "du",
    "mkdir",
    "which",
    "realpath",
    "dirname",
    "basename",
    "echo",
    "printf",
    "rm",
    "ssh",
    "ssh-add",
    "ssh-keygen",
    "touch",
    "cd",
    "exa",
    "eza",
    "tree",
    "file",
];

/// Where a path was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read (or searched, listed by content, copied from).
    Read,
    /// Written or edited.
    Write,
    /// Named on a shell command line.
    Shell,
}

/// A protected path a call touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touch {
    /// The path as the call names it.
    pub path: String,
    /// What it is (`SSH private key`, or `protected by paths` for the user's list).
    pub what: String,
    /// `block` or `ask`.
    pub ask: bool,
}

impl Touch {
    /// The reason the agent reads.
    pub fn reason(&self) -> String {
        format!("{} is protected ({})", self.path, self.what)
    }
}

/// The policy, configured.
#[derive(Debug, Clone, Default)]
pub struct ProtectedPaths {
    paths: Vec<Glob>,
    allow: Vec<Glob>,
    ask_secrets: bool,
    ask_paths: bool,
}

impl ProtectedPaths {
    /// The policy configured by `[hooks.config]` (JSON text).
    pub fn from_config(json: &str) -> Result<ProtectedPaths, OptionError> {
        let options = Options::parse(json, OPTIONS)?;
        let globs = |name: &str| -> Result<Vec<Glob>, OptionError> {
            options
                .strings(name)?
                .unwrap_or_default()
                .iter()
                .map(|p| Glob::new(p).map_err(|e| OptionError(format!("option `{name}`: {e}"))))
                .collect()
        };
        let mut policy = ProtectedPaths {
            paths: globs("paths")?,
            allow: globs("allow")?,
            ..Default::default()
        };
        for (list, mode) in
            options.choice_table("mode", &["secrets", "paths"], &["block", "ask"])?
        {
            let ask = mode == "ask";
            if list == "secrets" {
                policy.ask_secrets = ask
            } else {
                policy.ask_paths = ask
            }
        }
        Ok(policy)
    }

    /// The first protected path the call `tool(input)` touches, in `cwd`. `read` reads a file
    /// when the hook may (for the files protected only when they hold credentials).
    pub fn check(
        &self,
        tool: &str,
        input: &Value,
        cwd: &str,
        read: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Touch> {
        let view = Tool::new(tool, input);
        let written = view.contents().join("\n");
        let mut touched: Vec<(String, Access)> = Vec::new();
        match view.kind() {
            ToolKind::Shell => {
                let script = shell::parse(&view.shell().unwrap_or_default());
                shell::visit::<()>(&script, &mut |call| {
                    for redirect in &call.command.redirects {
                        let access = if redirect.writes_file() {
                            Access::Write
                        } else {
                            Access::Read
                        };
                        touched.push((redirect.target.text.clone(), access));
                    }
                    if !HARMLESS.contains(&call.program) {
                        for arg in call.args {
                            let value = arg
                                .split_once('=')
                                .filter(|(k, _)| k.starts_with('-') || *k == "if" || *k == "of")
                                .map_or(arg.as_str(), |(_, v)| v);
                            let value = value.strip_prefix('@').unwrap_or(value);
                            if (!value.starts_with('-') || value.len() == 1)
                                && !value.contains(char::is_whitespace)
                            {
                                touched.push((value.to_string(), Access::Shell));
                            }
                        }
                    }
                    None
                });
            }
            ToolKind::Write | ToolKind::Edit => {
                touched.extend(view.paths().into_iter().map(|p| (p, Access::Write)))
            }
            ToolKind::Read | ToolKind::Search | ToolKind::Mcp => {
                touched.extend(view.paths().into_iter().map(|p| (p, Access::Read)))
            }
            ToolKind::Fetch | ToolKind::Other => {}
        }
        touched
            .into_iter()
            .find_map(|(path, access)| self.protect(&path, access, cwd, &written, read))
    }

    fn protect(
        &self,
        path: &str,
        access: Access,
        cwd: &str,
        written: &str,
        read: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Touch> {
        if path.is_empty() {
            return None;
        }
        let forms = forms(path, cwd);
        if self
            .allow
            .iter()
            .any(|g| forms.iter().any(|f| g.matches(f)))
        {
            return None;
        }
        if let Some(glob) = self
            .paths
            .iter()
            .find(|g| forms.iter().any(|f| g.matches(f)))
        {
            return Some(Touch {
                path: path.to_string(),
                what: format!("matches `{}` of paths", glob.as_str()),
                ask: self.ask_paths,
            });
        }
        let home_level = canonical(path, None).starts_with("~/");
        let name = path.rsplit('/').next().unwrap_or(path);
        let with_credentials = |text: &str| credentials_in(name, text);
        let content_checked = name == "config" && path.ends_with(".git/config")
            || (!home_level && matches!(name, ".npmrc" | ".pypirc"));
        if content_checked {
            let holds = match access {
                Access::Write => with_credentials(written),
                _ => {
                    let absolute = if path.starts_with('/') {
                        path.to_string()
                    } else {
                        format!("{}/{path}", cwd.trim_end_matches('/'))
                    };
                    read(&absolute).is_some_and(|text| with_credentials(&text))
                }
            };
            return holds.then(|| Touch {
                path: path.to_string(),
                what: format!("{name} with credentials"),
                ask: self.ask_secrets,
            });
        }
        let kind = forms.iter().find_map(|f| secret_kind(f, None))?;
        Some(Touch {
            path: path.to_string(),
            what: kind.to_string(),
            ask: self.ask_secrets,
        })
    }
}

/// The spellings of a path a glob may be written against: as given, relative to the
/// workspace, absolute, and under `~/`.
fn forms(path: &str, cwd: &str) -> Vec<String> {
    let cwd = cwd.trim_end_matches('/');
    let absolute = if path.starts_with('/') {
        path.to_string()
    } else if path.starts_with('~') || path.starts_with('$') {
        canonical(path, None)
    } else {
        format!("{cwd}/{}", path.trim_start_matches("./"))
    };
    let mut out = vec![
        path.to_string(),
        absolute.clone(),
        canonical(path, None),
        canonical(&absolute, None),
    ];
    if let Some(relative) = absolute.strip_prefix(&format!("{cwd}/")) {
        out.push(relative.to_string());
    }
    out.dedup();
    out
}

/// A `.git/config` with a password in a remote URL, an `.npmrc` with an auth token, a
/// `.pypirc` with a password.
fn credentials_in(name: &str, text: &str) -> bool {
    match name {
        ".npmrc" => {
            text.contains("_authToken") || text.contains("_auth=") || text.contains("_password")
        }
        ".pypirc" => text.lines().any(|l| l.trim_start().starts_with("password")),
        _ => hookhost_url_password(text),
    }
}

fn hookhost_url_password(text: &str) -> bool {
    text.split_whitespace().any(|word| {
        word.split_once("://").is_some_and(|(_, rest)| {
            let authority = rest.split('/').next().unwrap_or(rest);
            authority
                .rsplit_once('@')
                .is_some_and(|(userinfo, _)| userinfo.contains(':'))
        })
    })
}

/// The component.
#[derive(Debug)]
pub struct ProtectedPathsPolicy;

impl Hook for ProtectedPathsPolicy {
    fn handle(event: &Event) -> Verdict {
        if event.phase() != Phase::Guard || event.name() != "PreToolUse" {
            return Verdict::allow();
        }
        let Some(call) = event.tool_call() else {
            return Verdict::allow();
        };
        let policy = match ProtectedPaths::from_config(&hook_sdk::config_json()) {
            Ok(policy) => policy,
            Err(error) => return Verdict::block(misconfigured("protected-paths", &error)),
        };
        let read = |path: &str| std::fs::read_to_string(path).ok();
        match policy.check(&call.tool, &call.input, &call.cwd, &read) {
            None => Verdict::allow(),
            Some(touch) if touch.ask => Verdict::ask(touch.reason()),
            Some(touch) => Verdict::block(touch.reason()),
        }
    }
}

hook_sdk::export!(ProtectedPathsPolicy);

#[cfg(test)]
mod tests;
