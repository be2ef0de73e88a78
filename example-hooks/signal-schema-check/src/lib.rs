//! signal-schema-check (seed 002, Hook #29, P0): signal files in `signals/inputs/` must be
//! valid YAML with a known `type` and a non-empty `message` (else BLOCK); a missing `target`, a
//! non-positive `iteration` and a filename other than `signal.<YYMMDD-HHmmss>.yaml` are
//! WARNs. It checks a signal file when a tool is about to write it (PreToolUse) and the files
//! already waiting when a session starts (SessionStart).

mod schema;
mod write;

use std::io::ErrorKind;

use hook_sdk::{Event, Hook, Phase, ToolCall, Verdict, path};
use serde::Deserialize;

pub use schema::{Findings, SIGNAL_TYPES, validate};
pub use write::{Change, FileWrite, file_write};

/// The hook's `[hooks.config]`.
#[derive(Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// A file is a signal when its directory ends with this path.
    pub inputs_dir: String,
    /// Where session directories live (SessionStart looks in `<sessions_dir>/<id>/<inputs_dir>`).
    pub sessions_dir: String,
    /// Tools that write a whole file from `file_path` (or `filePath`, `path`) and `content`.
    pub create_tools: Vec<String>,
    /// Tools that replace `old_str` with `new_str` in a file (also spelled `old_string` /
    /// `oldString`); an empty old text creates the file.
    pub edit_tools: Vec<String>,
}

impl Default for Config {
    fn default() -> Config {
        let names = |names: &[&str]| names.iter().map(|name| name.to_string()).collect();
        Config {
            inputs_dir: "signals/inputs".to_string(),
            sessions_dir: ".ralph-sessions".to_string(),
            create_tools: names(&["Write", "create_file"]),
            edit_tools: names(&["Edit", "replace_string_in_file"]),
        }
    }
}

/// The hook.
#[derive(Debug)]
pub struct SignalSchemaCheck;

impl Hook for SignalSchemaCheck {
    fn handle(event: &Event) -> Verdict {
        let checks = match (event.name(), event.phase(), event.tool_call()) {
            ("PreToolUse", Phase::Guard, Some(call)) => Check::Write(call),
            ("SessionStart", _, _) => Check::Session,
            _ => return hook_sdk::dispatch::<Self>(event),
        };
        let config: Config = match hook_sdk::config() {
            Ok(config) => config,
            Err(error) => {
                // Fail open, as the seed asks of this hook, but say so.
                return Verdict::warn(format!(
                    "signal-schema-check is misconfigured ({error}); signals were not checked"
                ));
            }
        };
        match checks {
            Check::Write(call) => check_write(&call, &config),
            Check::Session => check_session(event, &config),
        }
    }
}

hook_sdk::export!(SignalSchemaCheck);

enum Check {
    Write(ToolCall),
    Session,
}

/// PreToolUse: the file a write tool is about to produce, when it is a signal file.
pub fn check_write(call: &ToolCall, config: &Config) -> Verdict {
    let Some(write) = file_write(call, config) else {
        return Verdict::allow();
    };
    // Outside the workspace is not a session's signal (path-allowlist's business).
    let Ok(target) = path::normalize(&call.cwd, &write.path) else {
        return Verdict::allow();
    };
    let relative = target.relative();
    let Some(file_name) = signal_file_name(relative, &config.inputs_dir) else {
        return Verdict::allow();
    };
    let content = match write.change.apply(target.absolute()) {
        Ok(Some(content)) => content,
        // The old text is not in the file: the edit fails by itself and writes nothing.
        Ok(None) => return Verdict::allow(),
        Err(error) => {
            return Verdict::warn(format!(
                "cannot read {relative} to check the edit ({error}); the signal was not checked (grant the hook `read` on its directory)"
            ));
        }
    };
    validate(file_name, &content).verdict(relative)
}

/// The file's name when `relative` is a file directly inside a directory ending with
/// `inputs_dir`; hidden files (`.gitkeep`) are not signals.
pub fn signal_file_name<'p>(relative: &'p str, inputs_dir: &str) -> Option<&'p str> {
    let (dir, name) = relative.rsplit_once('/')?;
    let inputs_dir = inputs_dir.trim_matches('/');
    let in_inputs = dir == inputs_dir || dir.ends_with(&format!("/{inputs_dir}"));
    (in_inputs && !name.starts_with('.')).then_some(name)
}

/// SessionStart: every signal already waiting in the session's inputs directory.
pub fn check_session(event: &Event, config: &Config) -> Verdict {
    let id = event
        .session_id()
        .map(str::to_string)
        .or_else(|| event.str_field("session_id"));
    // A missing or malformed id is session-directory-guard's to block; never build a path from
    // one that could leave the sessions directory.
    let Some(id) = id.filter(|id| is_one_component(id)) else {
        hook_sdk::log::debug("no usable session id: signals not checked");
        return Verdict::allow();
    };
    let misconfigured = |error: path::PathError| {
        Verdict::warn(format!(
            "signal-schema-check is misconfigured: {error}; signals were not checked"
        ))
    };
    let base = match path::normalize(event.cwd(), &config.sessions_dir) {
        Ok(base) => base,
        Err(error) => return misconfigured(error),
    };
    // In the sandbox, a directory outside every grant looks like one that does not exist: the
    // sessions directory must be visible before a "not found" below it can be trusted.
    if std::fs::metadata(base.absolute()).is_err() {
        return Verdict::warn(format!(
            "cannot see {}; signals were not checked (grant the hook `read = [\"{}\"]`)",
            config.sessions_dir, config.sessions_dir
        ));
    }
    let inputs = format!(
        "{}/{id}/{}",
        base.absolute(),
        config.inputs_dir.trim_matches('/')
    );
    let dir = match path::normalize(event.cwd(), &inputs) {
        Ok(dir) => dir,
        Err(error) => return misconfigured(error),
    };
    let entries = match std::fs::read_dir(dir.absolute()) {
        Ok(entries) => entries,
        Err(error) if error.kind() == ErrorKind::NotFound => return Verdict::allow(),
        Err(error) => {
            return Verdict::warn(format!(
                "cannot list {}: {error}; signals were not checked (grant the hook `read = [\"{}\"]`)",
                dir.relative(),
                config.sessions_dir
            ));
        }
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect();
    names.sort();
    let mut reports = Vec::new();
    for name in &names {
        let shown = format!("{}/{name}", dir.relative());
        let findings = match std::fs::read(format!("{}/{name}", dir.absolute())) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(content) => validate(name, &content),
                Err(_) => Findings::not_yaml("the file is not UTF-8 text"),
            },
            Err(error) => {
                hook_sdk::log::warn(format!("cannot read {shown}: {error}"));
                continue;
            }
        };
        reports.push((shown, findings));
    }
    Findings::merged(&reports)
}

/// True for a single, ordinary path component.
fn is_one_component(id: &str) -> bool {
    !id.is_empty() && id != "." && id != ".." && !id.contains(['/', '\\', '\0'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const VALID: &str = "type: STEER\ntarget: ALL\nmessage: focus on the parser\n";

    fn write(path: &str, content: &str) -> ToolCall {
        ToolCall::new("Write", json!({"file_path": path, "content": content})).with_cwd("/ws")
    }

    #[test]
    fn signal_files_are_those_directly_in_an_inputs_directory() {
        #[rustfmt::skip]
        let cases: &[(&str, Option<&str>)] = &[
            (".ralph-sessions/260215-173319/signals/inputs/signal.260215-180000.yaml", Some("signal.260215-180000.yaml")),
            ("signals/inputs/anything.txt", Some("anything.txt")),
            ("signals/inputs/.gitkeep", None),
            ("signals/processed/signal.260215-180000.yaml", None),
            ("signals/inputs/sub/signal.yaml", None),
            ("my-signals/inputs/signal.yaml", None),
            ("signals/inputs", None),
            ("notes.md", None),
        ];
        for (path, expected) in cases {
            assert_eq!(
                signal_file_name(path, "signals/inputs"),
                *expected,
                "{path}"
            );
        }
    }

    #[test]
    fn writes_of_signal_files_are_validated_and_others_ignored() {
        let config = Config::default();
        let inputs = ".ralph-sessions/260215-173319/signals/inputs";
        #[rustfmt::skip]
        let cases: &[(&str, ToolCall, Verdict)] = &[
            ("valid", write(&format!("{inputs}/signal.260215-180000.yaml"), VALID), Verdict::allow()),
            ("the seed's invalid type", write(&format!("{inputs}/signal.260215-180000.yaml"), "type: INVALID\nmessage: test\ntarget: ALL"),
                Verdict::block(format!("{inputs}/signal.260215-180000.yaml: Invalid signal type 'INVALID'. Must be one of: STEER, PAUSE, ABORT, INFO, APPROVE, SKIP"))),
            ("dot-dot into inputs", write(&format!("{inputs}/../inputs/x.yaml"), VALID),
                Verdict::warn(format!("{inputs}/x.yaml: Signal filename 'x.yaml' does not match signal.<YYMMDD-HHmmss>.yaml (the signal is still processed)"))),
            ("not a signal", write("notes/signal.yaml", "not: [valid"), Verdict::allow()),
            ("outside the workspace", write("/tmp/signals/inputs/x.yaml", "::"), Verdict::allow()),
            ("create_file, Copilot's spelling", ToolCall::new("create_file", json!({"filePath": format!("{inputs}/signal.260215-180000.yaml"), "content": "type: STEER\nmessage: ''\ntarget: ALL"})).with_cwd("/ws"),
                Verdict::block(format!("{inputs}/signal.260215-180000.yaml: Signal message must be non-empty"))),
            ("edit creating a file", ToolCall::edit_file(&format!("{inputs}/signal.260215-180000.yaml"), "", "type: NOPE\nmessage: m\ntarget: ALL").with_cwd("/ws"),
                Verdict::block(format!("{inputs}/signal.260215-180000.yaml: Invalid signal type 'NOPE'. Must be one of: STEER, PAUSE, ABORT, INFO, APPROVE, SKIP"))),
            ("read-only tool", ToolCall::read_file(&format!("{inputs}/x.yaml")).with_cwd("/ws"), Verdict::allow()),
            ("bash is not parsed", ToolCall::bash_command("echo 'type: X' > signals/inputs/x.yaml").with_cwd("/ws"), Verdict::allow()),
        ];
        for (name, call, expected) in cases {
            assert_eq!(check_write(call, &config), *expected, "{name}");
        }
    }

    #[test]
    fn an_edit_of_an_existing_signal_is_checked_on_the_result() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_string_lossy().into_owned();
        let inputs = dir.path().join("s/signals/inputs");
        std::fs::create_dir_all(&inputs).unwrap();
        std::fs::write(inputs.join("signal.260215-180000.yaml"), VALID).unwrap();
        let edit = |old: &str, new: &str| {
            ToolCall::edit_file("s/signals/inputs/signal.260215-180000.yaml", old, new)
                .with_cwd(&cwd)
        };
        let config = Config::default();
        assert_eq!(
            check_write(&edit("STEER", "PAUSE"), &config),
            Verdict::allow()
        );
        assert_eq!(
            check_write(&edit("STEER", "STOP"), &config),
            Verdict::block(
                "s/signals/inputs/signal.260215-180000.yaml: Invalid signal type 'STOP'. Must be one of: STEER, PAUSE, ABORT, INFO, APPROVE, SKIP"
            )
        );
        assert_eq!(
            check_write(&edit("not there", "x"), &config),
            Verdict::allow(),
            "an edit that cannot apply writes nothing"
        );
        let missing = ToolCall::edit_file("s/signals/inputs/signal.260215-190000.yaml", "a", "b")
            .with_cwd(&cwd);
        assert!(
            matches!(&check_write(&missing, &config).answer, hook_sdk::Answer::Warn(r) if r.starts_with("cannot read s/signals/inputs/signal.260215-190000.yaml to check the edit")),
        );
    }

    #[test]
    fn at_session_start_every_waiting_signal_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_string_lossy().into_owned();
        let start = Event::new("SessionStart")
            .with_cwd(&cwd)
            .with_session("260215-173319");
        let config = Config::default();
        assert_eq!(
            check_session(&start, &config),
            Verdict::warn(
                "cannot see .ralph-sessions; signals were not checked (grant the hook `read = [\".ralph-sessions\"]`)"
            ),
            "no sessions directory, or no grant: the sandbox cannot tell which"
        );
        std::fs::create_dir(dir.path().join(".ralph-sessions")).unwrap();
        assert_eq!(
            check_session(&start, &config),
            Verdict::allow(),
            "no inputs directory yet"
        );
        let inputs = dir
            .path()
            .join(".ralph-sessions/260215-173319/signals/inputs");
        std::fs::create_dir_all(&inputs).unwrap();
        std::fs::write(inputs.join(".gitkeep"), "").unwrap();
        std::fs::write(inputs.join("signal.260215-180000.yaml"), VALID).unwrap();
        assert_eq!(check_session(&start, &config), Verdict::allow());
        std::fs::write(inputs.join("note.yaml"), "type: INFO\nmessage: hi\n").unwrap();
        let shown = ".ralph-sessions/260215-173319/signals/inputs";
        assert_eq!(
            check_session(&start, &config),
            Verdict::warn(format!(
                "{shown}/note.yaml: Signal target is missing; it defaults to ALL; Signal filename 'note.yaml' does not match signal.<YYMMDD-HHmmss>.yaml (the signal is still processed)"
            ))
        );
        std::fs::write(inputs.join("signal.260215-170000.yaml"), [0xff, 0xfe]).unwrap();
        assert_eq!(
            check_session(&start, &config),
            Verdict::block(format!(
                "{shown}/note.yaml: warning: Signal target is missing; it defaults to ALL; warning: Signal filename 'note.yaml' does not match signal.<YYMMDD-HHmmss>.yaml (the signal is still processed) | {shown}/signal.260215-170000.yaml: Signal file is not valid YAML: the file is not UTF-8 text"
            ))
        );
        // An id that could leave the sessions directory is never used as a path.
        let escape = Event::new("SessionStart").with_cwd(&cwd).with_session("..");
        assert_eq!(check_session(&escape, &config), Verdict::allow());
    }

    #[test]
    fn the_hook_routes_events_and_reads_its_config() {
        hook_sdk::testing::set_config(json!({"inputs_dir": "inbox"}));
        let call = write(
            "s/inbox/signal.260215-180000.yaml",
            "type: STEER\nmessage: m\ntarget: ALL\n",
        );
        let pre = Event::new("PreToolUse").with_tool(&call).with_cwd("/ws");
        assert_eq!(SignalSchemaCheck::handle(&pre), Verdict::allow());
        let bad = write(
            "s/inbox/signal.260215-180000.yaml",
            "message: m\ntarget: ALL\n",
        );
        let pre = Event::new("PreToolUse").with_tool(&bad).with_cwd("/ws");
        assert!(matches!(
            SignalSchemaCheck::handle(&pre).answer,
            hook_sdk::Answer::Block(_)
        ));
        let observer = pre.observing(hook_sdk::Observed {
            decision: "allow",
            by: None,
            reason: None,
        });
        assert_eq!(SignalSchemaCheck::handle(&observer), Verdict::allow());
        hook_sdk::testing::set_config(json!({"inputs": "typo"}));
        assert!(matches!(
            SignalSchemaCheck::handle(&Event::new("SessionStart")).answer,
            hook_sdk::Answer::Warn(r) if r.contains("misconfigured")
        ));
        assert_eq!(
            SignalSchemaCheck::handle(&Event::new("UserPromptSubmit")),
            Verdict::allow()
        );
    }
}
