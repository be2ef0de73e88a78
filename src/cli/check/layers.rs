//! What `hookhost check` says about the layers besides their hooks: the organisation's file,
//! each file's `[trust]`, where decisions are recorded.

use anyhow::Result;
use hookhost::Config;
use hookhost::config::{ManagedFile, ManagedOrigin, Ownership};

use super::super::render::safe;

/// The organisation's layer, as the first line of the output: where it comes from and that
/// its owner and mode passed.
pub(super) fn managed_line(managed: &ManagedFile, ownership: Ownership) -> String {
    format!(
        "managed layer: {} ({}; owner uid {}, mode {:o}: nobody else can write it): the \
         organisation's hooks run first, and no user or project can disable them",
        safe(&managed.path.display().to_string()),
        match managed.origin {
            ManagedOrigin::System => "the system's",
            ManagedOrigin::Variable =>
                "named by $HOOKHOST_MANAGED_CONFIG, as no system file exists",
        },
        ownership.uid,
        ownership.mode
    )
}

/// Where decisions are recorded: the decision log the layers configure, and the telemetry
/// export of the user's `[telemetry]` or the `OTEL_*` variables, as the runner resolves them (a
/// project's or local file's `[telemetry]` is ignored: a warning).
pub(super) fn recording(
    layers: &hookhost::Layers,
    warnings: &mut Vec<String>,
) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    if let Some(log) = layers.decision_log()? {
        lines.push(format!(
            "decision log: {} (rotated past {} bytes, {} old file(s) kept{})",
            safe(&log.file.path().display().to_string()),
            log.spec.max_bytes,
            log.spec.keep,
            if log.spec.required {
                "; required: tool calls are blocked while it cannot be written"
            } else {
                ""
            }
        ));
        lines.push(format!("decision log keeps: {}", keeps(&log.spec)));
    }
    let (table, ignored) = layers.telemetry()?;
    warnings.extend(ignored.iter().map(|warning| safe(warning)));
    match hookhost::telemetry::Telemetry::configure(table.as_ref(), &|name| {
        std::env::var(name).ok()
    }) {
        Ok(Some(configured)) => lines.push(format!(
            "telemetry: OTLP to {}{}",
            safe(configured.endpoint()),
            if table.as_ref().is_some_and(|spec| spec.spool) {
                "; spooled: agents send nothing, `hookhost log --export` sends the log's records"
            } else {
                "; sent by each process, at most exit_timeout_ms at its end"
            }
        )),
        Ok(None) => {}
        Err(error) => warnings.push(format!(
            "telemetry is off: {}",
            safe(&hookhost::text::error_chain(&error))
        )),
    }
    Ok(lines)
}

/// Each layer's `[trust]`, one line per file that has one: its keys (with their kind), its
/// rules (what each needs), its revoked key ids. What a reviewer checks a policy change by.
pub(super) fn trust_lines(
    managed: Option<&std::path::PathBuf>,
    layers: &hookhost::Layers,
) -> Vec<String> {
    let files = [
        managed,
        layers.user.as_ref(),
        layers.project.as_ref(),
        layers.local.as_ref(),
    ];
    let mut lines = Vec::new();
    for path in files.into_iter().flatten() {
        let Ok(config) = Config::load(path) else {
            continue;
        };
        let trust = &config.trust;
        if trust.keys.is_empty() && trust.rules.is_empty() && trust.revoked.is_empty() {
            continue;
        }
        let mut parts = Vec::new();
        if trust.require_signed {
            parts.push("require_signed".to_string());
        }
        if !trust.keys.is_empty() {
            let keys: Vec<String> = trust
                .keys
                .iter()
                .map(|key| {
                    let who = key.keyless.as_ref().map_or(String::new(), |keyless| {
                        let show = |pattern: &hookhost::config::NamePattern| match pattern {
                            hookhost::config::NamePattern::Exact(text) => safe(text),
                            hookhost::config::NamePattern::Regex(text) => {
                                format!("/{}/", safe(text))
                            }
                        };
                        format!(
                            ": {} from {}{}",
                            show(&keyless.identity),
                            show(&keyless.issuer),
                            if keyless.require_sct { "" } else { ", no SCT" }
                        )
                    });
                    format!(
                        "{} ({}{who}{})",
                        safe(&key.id),
                        key.kind.as_str(),
                        if key.revoked { ", revoked" } else { "" }
                    )
                })
                .collect();
            parts.push(format!("keys {}", keys.join(", ")));
        }
        for rule in &trust.rules {
            let names: Vec<String> = rule.keys.iter().map(|k| safe(k)).collect();
            let need = if rule.min == rule.keys.len() && rule.min > 1 {
                format!("all of {}", names.join(", "))
            } else {
                format!("{} of {}", rule.min, names.join(", "))
            };
            parts.push(format!("rule {} needs {need}", safe(&rule.pattern)));
        }
        if !trust.revoked.is_empty() {
            parts.push(format!("revoked {}", trust.revoked.join(", ")));
        }
        lines.push(format!(
            "trust ({}): {}",
            safe(&path.display().to_string()),
            parts.join("; ")
        ));
    }
    lines
}

/// What a record keeps of an event under `spec`'s masks, in one line.
fn keeps(spec: &hookhost::config::LogSpec) -> String {
    let mut parts = vec!["the tool input and the event's fields".to_string()];
    if spec.drop_contents {
        parts.push("without file contents (every agent's write and edit tools)".to_string());
    } else {
        parts.push("WITH file contents (drop_contents = false)".to_string());
    }
    if !spec.drop.is_empty() {
        parts.push(format!("without {}", safe(&spec.drop.join(", "))));
    }
    if !spec.hash.is_empty() {
        parts.push(format!("hashed: {}", safe(&spec.hash.join(", "))));
    }
    parts.push(if spec.redact {
        "secrets redacted (tokens, keys, passwords) in inputs, fields and reasons".to_string()
    } else {
        "secrets NOT redacted (redact = false)".to_string()
    });
    parts.join("; ")
}
