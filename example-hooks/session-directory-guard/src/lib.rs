//! session-directory-guard (seed 002, Hook #1, P0): at SessionStart, the session id must be a
//! timestamp (`^\d{6}-\d{6}$`, no path separator) and `.ralph-sessions/<id>/` must exist with
//! its scaffold. A new session's directory and scaffold are created; an existing session with a
//! missing scaffold directory is reported (WARN), never silently repaired, because the
//! Orchestrator's own Session Resolution owns existing sessions.

use std::io::ErrorKind;

use hook_sdk::path;
use hook_sdk::{Event, Hook, Verdict};
use serde::Deserialize;

/// The hook's `[hooks.config]`.
#[derive(Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Where session directories live, relative to the workspace root (the agent's cwd).
    pub sessions_dir: String,
    /// The directories every session holds, relative to its directory.
    pub scaffold: Vec<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            sessions_dir: ".ralph-sessions".to_string(),
            scaffold: ["signals/inputs", "signals/processed", "logs"]
                .map(str::to_string)
                .to_vec(),
        }
    }
}

/// The hook.
#[derive(Debug)]
pub struct SessionDirectoryGuard;

impl Hook for SessionDirectoryGuard {
    fn handle(event: &Event) -> Verdict {
        if event.name() != "SessionStart" {
            return hook_sdk::dispatch::<Self>(event);
        }
        let id = session_id(event);
        // Rules 1 and 2 come first: a bad id is blocked whatever the configuration says.
        if let Err(reason) = check_session_id(id.as_deref()) {
            return Verdict::block(reason);
        }
        let id = id.expect("checked above");
        match hook_sdk::config::<Config>() {
            Ok(config) => ensure_session_dir(event.cwd(), &id, &config),
            // Fail open (the seed's error behaviour), but loudly.
            Err(error) => Verdict::warn(format!(
                "session-directory-guard is misconfigured ({error}); the session directory was not checked"
            )),
        }
    }
}

hook_sdk::export!(SessionDirectoryGuard);

/// The session id: the event's, or else a `session_id` payload field (agents that put it there).
pub fn session_id(event: &Event) -> Option<String> {
    event
        .session_id()
        .map(str::to_string)
        .or_else(|| event.str_field("session_id"))
}

/// Rules 1 and 2: the id is `^\d{6}-\d{6}$` (ASCII digits) and holds no path separator.
pub fn check_session_id(id: Option<&str>) -> Result<(), String> {
    let Some(id) = id else {
        return Err(
            "SessionStart without a session id: the agent must give one of the form YYMMDD-HHmmss"
                .to_string(),
        );
    };
    let shown = shown(id);
    if id.contains(['/', '\\']) {
        return Err(format!(
            "Session ID '{shown}' contains a path separator; it must be a single directory name of the form YYMMDD-HHmmss"
        ));
    }
    if !is_timestamp_id(id) {
        return Err(format!(
            "Session ID '{shown}' does not match required format YYMMDD-HHmmss"
        ));
    }
    Ok(())
}

/// `^\d{6}-\d{6}$`, written out: six ASCII digits, a hyphen, six ASCII digits, nothing else
/// (no trailing newline, no Unicode digits).
pub fn is_timestamp_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    bytes.len() == 13
        && bytes[6] == b'-'
        && bytes[..6].iter().chain(&bytes[7..]).all(u8::is_ascii_digit)
}

/// An untrusted id as it appears in a message: control characters escaped, at most 80
/// characters.
fn shown(id: &str) -> String {
    let escaped: String = id.escape_debug().collect();
    match escaped.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &escaped[..cut]),
        None => escaped,
    }
}

/// Rules 3 and 4, for a valid `id`: creates a new session's directory and scaffold (PASS,
/// with the actions taken as the message), or checks an existing one's scaffold (WARN naming
/// what is missing). Filesystem errors fail open with a WARN that says how to fix them.
pub fn ensure_session_dir(cwd: &str, id: &str, config: &Config) -> Verdict {
    let layout = match Layout::new(cwd, id, config) {
        Ok(layout) => layout,
        Err(reason) => {
            return Verdict::warn(format!(
                "session-directory-guard is misconfigured: {reason}; the session directory was not checked"
            ));
        }
    };
    let cannot = |what: &str, error: std::io::Error| {
        Verdict::warn(format!(
            "cannot {what} {}: {error} (grant the hook `write = [\"{}\"]`; the directory must exist when the runner loads)",
            layout.shown_session, config.sessions_dir
        ))
    };
    match std::fs::symlink_metadata(&layout.session) {
        Ok(meta) if meta.is_dir() => {
            let missing: Vec<String> = layout
                .scaffold
                .iter()
                .filter(|(absolute, _)| !std::path::Path::new(absolute).is_dir())
                .map(|(_, relative)| format!("{relative}/"))
                .collect();
            if missing.is_empty() {
                Verdict::allow()
            } else {
                Verdict::warn(format!(
                    "Session directory {} is missing scaffold directories: {} (left as they are: create them, or let the Orchestrator's Session Resolution do it)",
                    layout.shown_session,
                    missing.join(", ")
                ))
            }
        }
        Ok(_) => Verdict::block(format!(
            "{} exists but is not a directory (a file or a symlink); session artifacts cannot go there",
            layout.shown_session
        )),
        Err(error) if error.kind() == ErrorKind::NotFound => match layout.create() {
            Ok(actions) => {
                for action in &actions {
                    hook_sdk::log::info(action);
                }
                Verdict::allow().with_message(actions.join("; "))
            }
            Err(error) => cannot("create", error),
        },
        Err(error) => cannot("check", error),
    }
}

/// Where one session's directories are: absolute for the filesystem, relative for messages.
struct Layout {
    session: String,
    shown_session: String,
    scaffold: Vec<(String, String)>,
}

impl Layout {
    fn new(cwd: &str, id: &str, config: &Config) -> Result<Layout, String> {
        let base = path::normalize(cwd, &config.sessions_dir)
            .map_err(|error| format!("`sessions_dir`: {error}"))?;
        let session = format!("{}/{id}", base.absolute());
        let shown_session = match base.relative() {
            "" => format!("{id}/"),
            relative => format!("{relative}/{id}/"),
        };
        let mut scaffold = Vec::new();
        for entry in &config.scaffold {
            let inside = path::normalize(&session, entry)
                .ok()
                .filter(|path| !path.relative().is_empty() && !entry.starts_with('/'))
                .ok_or_else(|| {
                    format!("`scaffold` entry {entry:?} must be a relative path inside the session directory")
                })?;
            scaffold.push((inside.absolute().to_string(), inside.relative().to_string()));
        }
        Ok(Layout {
            session,
            shown_session,
            scaffold,
        })
    }

    /// Creates the session directory and its scaffold; returns the actions, in the seed's words.
    fn create(&self) -> std::io::Result<Vec<String>> {
        std::fs::create_dir_all(&self.session)?;
        let mut actions = vec![format!("Created directory: {}", self.shown_session)];
        for (absolute, _) in &self.scaffold {
            std::fs::create_dir_all(absolute)?;
        }
        if !self.scaffold.is_empty() {
            let created: Vec<String> = self
                .scaffold
                .iter()
                .map(|(_, relative)| format!("{relative}/"))
                .collect();
            actions.push(format!("Created scaffold: {}", created.join(", ")));
        }
        Ok(actions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn session_ids_follow_the_seed_rules() {
        #[rustfmt::skip]
        let cases: &[(&str, Option<&str>, Result<(), &str>)] = &[
            ("the seed's example", Some("260215-173319"), Ok(())),
            ("all zeros", Some("000000-000000"), Ok(())),
            ("the seed's invalid id", Some("invalid-id"), Err("Session ID 'invalid-id' does not match required format YYMMDD-HHmmss")),
            ("too short", Some("26021-173319"), Err("Session ID '26021-173319' does not match required format YYMMDD-HHmmss")),
            ("too long", Some("260215-1733190"), Err("Session ID '260215-1733190' does not match required format YYMMDD-HHmmss")),
            ("underscore", Some("260215_173319"), Err("Session ID '260215_173319' does not match required format YYMMDD-HHmmss")),
            ("trailing newline", Some("260215-173319\n"), Err("Session ID '260215-173319\\n' does not match required format YYMMDD-HHmmss")),
            ("unicode digits", Some("٢٦٠٢١٥-173319"), Err("Session ID '٢٦٠٢١٥-173319' does not match required format YYMMDD-HHmmss")),
            ("empty", Some(""), Err("Session ID '' does not match required format YYMMDD-HHmmss")),
            ("slash", Some("../260215-173319"), Err("Session ID '../260215-173319' contains a path separator; it must be a single directory name of the form YYMMDD-HHmmss")),
            ("backslash", Some("260215\\173319"), Err("Session ID '260215\\\\173319' contains a path separator; it must be a single directory name of the form YYMMDD-HHmmss")),
            ("missing", None, Err("SessionStart without a session id: the agent must give one of the form YYMMDD-HHmmss")),
        ];
        for (name, id, expected) in cases {
            assert_eq!(
                check_session_id(*id),
                expected.map_err(str::to_string),
                "{name}"
            );
        }
        let long = "x".repeat(200);
        let message = check_session_id(Some(&long)).unwrap_err();
        assert!(
            message.contains(&format!("'{}…'", "x".repeat(80))),
            "{message}"
        );
    }

    fn workspace() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_string_lossy().into_owned();
        (dir, cwd)
    }

    #[test]
    fn a_new_session_gets_its_directory_and_scaffold() {
        let (dir, cwd) = workspace();
        let verdict = ensure_session_dir(&cwd, "260215-173319", &Config::default());
        assert_eq!(
            verdict,
            Verdict::allow().with_message(
                "Created directory: .ralph-sessions/260215-173319/; Created scaffold: signals/inputs/, signals/processed/, logs/"
            )
        );
        for sub in ["signals/inputs", "signals/processed", "logs"] {
            assert!(
                dir.path()
                    .join(".ralph-sessions/260215-173319")
                    .join(sub)
                    .is_dir(),
                "{sub}"
            );
        }
        // The second time, everything is there.
        assert_eq!(
            ensure_session_dir(&cwd, "260215-173319", &Config::default()),
            Verdict::allow()
        );
    }

    #[test]
    fn an_existing_session_with_a_missing_scaffold_is_reported_not_repaired() {
        let (dir, cwd) = workspace();
        let session = dir.path().join(".ralph-sessions/260215-173319");
        std::fs::create_dir_all(session.join("signals/inputs")).unwrap();
        std::fs::write(session.join("logs"), "a file, not a directory").unwrap();
        assert_eq!(
            ensure_session_dir(&cwd, "260215-173319", &Config::default()),
            Verdict::warn(
                "Session directory .ralph-sessions/260215-173319/ is missing scaffold directories: signals/processed/, logs/ (left as they are: create them, or let the Orchestrator's Session Resolution do it)"
            )
        );
        assert!(!session.join("signals/processed").exists());
    }

    #[test]
    fn a_session_path_that_is_not_a_directory_is_blocked() {
        let (dir, cwd) = workspace();
        std::fs::create_dir_all(dir.path().join(".ralph-sessions")).unwrap();
        std::fs::write(dir.path().join(".ralph-sessions/260215-173319"), "").unwrap();
        assert_eq!(
            ensure_session_dir(&cwd, "260215-173319", &Config::default()),
            Verdict::block(
                ".ralph-sessions/260215-173319/ exists but is not a directory (a file or a symlink); session artifacts cannot go there"
            )
        );
    }

    #[test]
    fn the_base_and_scaffold_are_configurable_and_checked() {
        let (dir, cwd) = workspace();
        let config = Config {
            sessions_dir: "work/sessions".to_string(),
            scaffold: vec!["inbox".to_string()],
        };
        assert_eq!(
            ensure_session_dir(&cwd, "260215-173319", &config),
            Verdict::allow().with_message(
                "Created directory: work/sessions/260215-173319/; Created scaffold: inbox/"
            )
        );
        assert!(
            dir.path()
                .join("work/sessions/260215-173319/inbox")
                .is_dir()
        );
        #[rustfmt::skip]
        let bad: &[(&str, Config, &str)] = &[
            ("base outside", Config { sessions_dir: "../elsewhere".into(), ..Config::default() }, "`sessions_dir`: ../elsewhere resolves to"),
            ("scaffold escapes", Config { scaffold: vec!["../../x".into()], ..Config::default() }, "`scaffold` entry \"../../x\" must be a relative path inside the session directory"),
            ("scaffold absolute", Config { scaffold: vec!["/tmp".into()], ..Config::default() }, "`scaffold` entry \"/tmp\" must be a relative path"),
            ("scaffold empty", Config { scaffold: vec![".".into()], ..Config::default() }, "`scaffold` entry \".\" must be a relative path"),
        ];
        for (name, config, expected) in bad {
            let verdict = ensure_session_dir(&cwd, "260215-173319", config);
            let hook_sdk::Answer::Warn(reason) = &verdict.answer else {
                panic!("{name}: {verdict:?}");
            };
            assert!(
                reason.starts_with("session-directory-guard is misconfigured: ")
                    && reason.contains(expected),
                "{name}: {reason}"
            );
        }
    }

    #[test]
    fn the_hook_reads_the_id_from_the_event_or_its_payload() {
        let (dir, cwd) = workspace();
        hook_sdk::testing::set_config(json!({}));
        let start = Event::new("SessionStart").with_cwd(&cwd);
        assert_eq!(
            SessionDirectoryGuard::handle(&start.clone().with_session("invalid-id")),
            Verdict::block("Session ID 'invalid-id' does not match required format YYMMDD-HHmmss")
        );
        let from_payload = start.clone().with_field("session_id", "260215-173319");
        assert!(
            SessionDirectoryGuard::handle(&from_payload)
                .message
                .is_some()
        );
        assert!(
            dir.path()
                .join(".ralph-sessions/260215-173319/logs")
                .is_dir()
        );
        // The event's id wins over the payload's.
        let both = from_payload.with_session("260215-180000");
        SessionDirectoryGuard::handle(&both);
        assert!(dir.path().join(".ralph-sessions/260215-180000").is_dir());
        // Other events are not its business.
        assert_eq!(
            SessionDirectoryGuard::handle(&Event::new("UserPromptSubmit").with_cwd(&cwd)),
            Verdict::allow()
        );
        // A bad id is blocked even when the configuration is broken.
        hook_sdk::testing::set_config(json!({"sessions": "typo"}));
        assert!(matches!(
            SessionDirectoryGuard::handle(&start.clone().with_session("x/y")).answer,
            hook_sdk::Answer::Block(_)
        ));
        let verdict = SessionDirectoryGuard::handle(&start.with_session("260215-190000"));
        assert!(
            matches!(&verdict.answer, hook_sdk::Answer::Warn(r) if r.contains("misconfigured") && r.contains("unknown field `sessions`")),
            "{verdict:?}"
        );
    }
}
