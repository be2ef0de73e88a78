//! The hooks.toml an import writes: every hook named short and unique, then the file itself
//! (a header naming the settings it came from, one `[[hooks]]` table per hook).

use std::fmt::Write as _;

use super::{Hook, Matcher};
use crate::event::catalog;

/// Gives every hook a short, unique name (messages say `blocked by NAME: ...`): its own
/// (Gemini's `name`), else the script it runs (`block-rm.sh`), else `{protocol}-{event}`.
pub(crate) fn name_hooks(hooks: &mut [Hook]) {
    let mut taken: Vec<String> = Vec::with_capacity(hooks.len());
    for hook in hooks {
        let base = hook.name.clone().unwrap_or_else(|| {
            script_name(&hook.command)
                .unwrap_or_else(|| format!("{}-{}", hook.protocol, hook.event))
        });
        let mut name = base.clone();
        let mut n = 1;
        while taken.contains(&name) {
            n += 1;
            name = format!("{base} ({n})");
        }
        taken.push(name.clone());
        hook.name = Some(name);
    }
}

/// The file name of the first word of `command` that looks like a script: a path, or a name
/// with a script's extension.
fn script_name(command: &str) -> Option<String> {
    const EXTENSIONS: &[&str] = &[".sh", ".bash", ".py", ".js", ".mjs", ".ts", ".rb", ".pl"];
    command
        .split_whitespace()
        .map(|word| word.trim_matches(['"', '\'']))
        .find(|word| word.contains('/') || EXTENSIONS.iter().any(|ext| word.ends_with(ext)))
        .and_then(|word| word.rsplit('/').next())
        .filter(|name| !name.is_empty() && !name.contains('$'))
        .map(str::to_string)
}

/// A TOML string literal.
fn quote(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

pub(super) fn write_toml(hooks: &[Hook], sources: &[String]) -> String {
    let mut out = format!(
        "# Imported by `hookhost import` from {}.\n# Each hook keeps its agent's protocol, so that its script runs unchanged. Review, then commit.\n",
        sources.join(", ")
    );
    for hook in hooks {
        let _ = write!(out, "\n# {}\n[[hooks]]\n", hook.origin);
        if let Some(name) = &hook.name {
            let _ = writeln!(out, "name = {}", quote(name));
        }
        let _ = writeln!(out, "event = {}", quote(&hook.event));
        match &hook.matcher {
            Some(Matcher::Claude(m)) => {
                let _ = writeln!(out, "matcher = {}", quote(m));
            }
            Some(Matcher::Regex(m)) => {
                let _ = writeln!(out, "matcher = {{ regex = {} }}", quote(m));
            }
            Some(Matcher::Exact(m)) => {
                let _ = writeln!(out, "matcher = {{ exact = {} }}", quote(m));
            }
            None => {}
        }
        let _ = writeln!(out, "command = {}", quote(&hook.command));
        let _ = writeln!(out, "protocol = {}", quote(hook.protocol));
        let _ = writeln!(out, "timeout_ms = {}", hook.timeout_ms);
        if hook.background {
            out.push_str("async = true\n");
        } else if hook.fail_closed {
            out.push_str(
                "on_failure = \"block\"           # its agent blocked the action when it failed (failClosed)\n",
            );
        } else if catalog::spec(&hook.event).fail_closed {
            out.push_str(
                "on_failure = \"allow\"           # its agent goes on when it fails or times out\n",
            );
        }
        if let Some(cwd) = &hook.cwd {
            let _ = writeln!(out, "cwd = {}", quote(cwd));
        }
        if !hook.env.is_empty() {
            let pairs: Vec<String> = hook
                .env
                .iter()
                .map(|(k, v)| format!("{} = {}", quote(k), quote(v)))
                .collect();
            let _ = writeln!(out, "env = {{ {} }}", pairs.join(", "));
        }
        if !hook.enabled {
            out.push_str("enabled = false\n");
        }
    }
    out
}
