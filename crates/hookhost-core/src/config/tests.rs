//! hooks.toml as forgeflare writes it and as hookhost widened it: what each key means, and
//! the located problem every mistake gets.
//!
//! Longer than 400 lines: one table of hooks.toml cases per feature of the file, each a line;
//! split, a reader would look for a case in several places.

use std::collections::BTreeMap;

use super::*;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, "proj/.forgeflare/hooks.toml")
}

/// Every problem of an invalid file, as `line:col: message` strings.
fn problems(text: &str) -> Vec<String> {
    match parse(text) {
        Ok(_) => panic!("expected an invalid config:\n{text}"),
        Err(error) => error.problems().iter().map(|p| p.to_string()).collect(),
    }
}

#[test]
fn forgeflare_spec_file_loads_unchanged_with_spec_defaults() {
    let config = parse(
        r#"
[[hooks]]
event = "PreToolUse"
phase = "guard"
match_tool = "Bash"
command = ".claude/hooks/ralph-guard.sh"
timeout_ms = 5000

[[hooks]]
event = "PreToolUse"
phase = "guard"
match_tool = "Edit"
command = ".claude/hooks/edit-guard.sh"
timeout_ms = 5000

[[hooks]]
event = "PreToolUse"
phase = "observe"
command = ".claude/hooks/audit-log.sh"
timeout_ms = 3000

[[hooks]]
event = "PostToolUse"
command = ".claude/hooks/convergence-check.sh"
timeout_ms = 5000

[[hooks]]
event = "Stop"
command = ".claude/hooks/session-end.sh"
timeout_ms = 3000

[[hooks]]
event = "PreToolUse"
command = "guard-without-phase.sh"

[[hooks]]
event = "Stop"
command = "stop-default-timeout.sh"
"#,
    )
    .unwrap();
    let summary: Vec<_> = config
        .hooks
        .iter()
        .map(|h| {
            (
                h.name.as_str(),
                h.label(),
                h.match_tool.as_deref(),
                h.timeout_ms(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                ".claude/hooks/ralph-guard.sh",
                "PreToolUse/guard".to_string(),
                Some("Bash"),
                5000
            ),
            (
                ".claude/hooks/edit-guard.sh",
                "PreToolUse/guard".to_string(),
                Some("Edit"),
                5000
            ),
            (
                ".claude/hooks/audit-log.sh",
                "PreToolUse/observe".to_string(),
                None,
                3000
            ),
            (
                ".claude/hooks/convergence-check.sh",
                "PostToolUse".to_string(),
                None,
                5000
            ),
            (
                ".claude/hooks/session-end.sh",
                "Stop".to_string(),
                None,
                3000
            ),
            (
                "guard-without-phase.sh",
                "PreToolUse/guard".to_string(),
                None,
                5000
            ),
            ("stop-default-timeout.sh", "Stop".to_string(), None, 3000),
        ]
    );
    // The event's defaults apply; the file did not set them (the facade reports None).
    assert!(
        config
            .hooks
            .iter()
            .all(|h| h.enabled && h.on_failure.is_none() && !h.background)
    );
    assert_eq!(config.hooks[5].timeout, None);
    assert_eq!(config.hooks[5].phase_written, None);
    assert_eq!(config.hooks[0].phase_written, Some(Phase::Guard));
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    assert_eq!(config.base_dir(), Path::new("proj/.forgeflare"));
}

#[test]
fn optional_fields() {
    let config = parse(
        r#"
[[hooks]]
name = "advisory-lint"
event = "PreToolUse"
command = "lint.sh"
enabled = false
on_failure = "allow"
cwd = "scripts"
env = { LEVEL = "strict", EMPTY = "" }
"#,
    )
    .unwrap();
    let hook = &config.hooks[0];
    assert_eq!(hook.name, "advisory-lint");
    assert!(!hook.enabled);
    assert_eq!(hook.on_failure, Some(OnFailure::Allow));
    let HookSource::Command(command) = &hook.source else {
        panic!("a command hook")
    };
    assert_eq!(command.cwd.as_deref(), Some(Path::new("scripts")));
    assert_eq!(command.env.get("LEVEL").map(String::as_str), Some("strict"));
    assert_eq!(command.env.get("EMPTY").map(String::as_str), Some(""));
}

#[test]
fn empty_file_and_empty_hooks_are_no_hooks() {
    assert!(parse("").unwrap().hooks.is_empty());
    assert!(parse("hooks = []").unwrap().hooks.is_empty());
}

#[test]
fn each_problem_is_located_and_names_its_hook() {
    // One line per case: the file and the single problem expected (line:col and text).
    let cases: &[(&str, &str, &str)] = &[
        (
            "unknown key",
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\ncomand = \"y\"\n",
            "4:1: hook #1 (x): unknown key `comand`; did you mean `command`?",
        ),
        (
            "unknown event",
            "[[hooks]]\nevent = \"PreTool\"\ncommand = \"x\"\n",
            "2:9: hook #1 (x): unknown event \"PreTool\"",
        ),
        (
            "event case",
            "[[hooks]]\nevent = \"pretooluse\"\ncommand = \"x\"\n",
            "did you mean \"PreToolUse\"?",
        ),
        (
            "unknown phase",
            "[[hooks]]\nevent = \"PreToolUse\"\nphase = \"gaurd\"\ncommand = \"x\"\n",
            "3:9: hook #1 (x): unknown phase \"gaurd\"",
        ),
        (
            "zero timeout",
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\ntimeout_ms = 0\n",
            "4:14: hook #1 (x): `timeout_ms` must be between 1 and",
        ),
        (
            "negative timeout",
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\ntimeout_ms = -5\n",
            "`timeout_ms` must be between 1 and 3600000, found -5",
        ),
        (
            "string timeout",
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\ntimeout_ms = \"5s\"\n",
            "4:14: hook #1 (x): `timeout_ms` must be a whole number of milliseconds, found string",
        ),
        (
            "both command and wasm",
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\nwasm = \"y.wasm\"\n",
            "4:1: hook #1 (x): a hook has exactly one of `command` or `wasm`; this one has both",
        ),
        (
            "neither command nor wasm",
            "[[hooks]]\nname = \"lonely\"\nevent = \"Stop\"\n",
            "hook #1 (lonely): a hook needs exactly one of `command`",
        ),
        (
            "missing event",
            "[[hooks]]\ncommand = \"x\"\n",
            "hook #1 (x): missing `event`",
        ),
        (
            "empty match_tool",
            "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"x\"\nmatch_tool = \"\"\n",
            "4:14: hook #1 (x): `match_tool` must not be empty",
        ),
        (
            "empty command",
            "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \" \"\n",
            "3:11: hook #1: `command` must not be empty",
        ),
        (
            "on_failure on observe",
            "[[hooks]]\nevent = \"PreToolUse\"\nphase = \"observe\"\ncommand = \"x\"\non_failure = \"allow\"\n",
            "5:14: hook #1 (x): `on_failure` applies only to guard hooks",
        ),
        (
            "unknown on_failure",
            "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"x\"\non_failure = \"open\"\n",
            "unknown on_failure \"open\"",
        ),
        (
            "enabled not bool",
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\nenabled = \"no\"\n",
            "4:11: hook #1 (x): `enabled` must be true or false, found string",
        ),
        (
            "env as list",
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\nenv = [\"HOME\"]\n",
            "4:7: hook #1 (x): `env` of a command hook must be a table",
        ),
        (
            "env value not string",
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\nenv = { N = 1 }\n",
            "env variable `N` must be a string, found integer",
        ),
        (
            "unknown top-level key",
            "[hook]\nevent = \"Stop\"\n",
            "1:2: unknown top-level key `hook`",
        ),
        (
            "hooks not an array",
            "hooks = \"x\"\n",
            "1:9: `hooks` must be an array of tables",
        ),
        (
            "syntax error",
            "[[hooks]]\nevent = \"Stop\ncommand = \"x\"\n",
            "2:",
        ),
    ];
    for (name, text, expected) in cases {
        let got = problems(text);
        assert_eq!(
            got.len(),
            1,
            "case {name}: expected one problem, got {got:?}"
        );
        assert!(
            got[0].contains(expected),
            "case {name}: {:?} does not contain {expected:?}",
            got[0]
        );
    }
}

#[test]
fn reports_every_problem_of_a_file_in_file_order() {
    let text = r#"
[[hooks]]
event = "PreToolUse"
command = "ok.sh"

[[hooks]]
name = "second"
event = "Stopp"
command = "x"
timeout_ms = 0

[[hooks]]
event = "PreToolUse"
phase = "gaurd"
command = "third.sh"
extra = 1
"#;
    let error = parse(text).unwrap_err();
    let got: Vec<String> = error.problems().iter().map(|p| p.to_string()).collect();
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(
        got[0]
            .starts_with("8:9: hook #2 (second): unknown event \"Stopp\"; did you mean \"Stop\"?"),
        "{got:?}"
    );
    assert!(
        got[1].starts_with("10:14: hook #2 (second): `timeout_ms`"),
        "{got:?}"
    );
    assert!(
        got[2].starts_with(
            "14:9: hook #3 (third.sh): unknown phase \"gaurd\"; did you mean \"guard\"?"
        ),
        "{got:?}"
    );
    assert!(
        got[3].starts_with("16:1: hook #3 (third.sh): unknown key `extra`"),
        "{got:?}"
    );
    // The whole error names the file on every line.
    let text = error.to_string();
    assert!(
        text.starts_with("invalid hook configuration proj/.forgeflare/hooks.toml (4 problems):"),
        "{text}"
    );
    assert!(
        text.contains("\n  proj/.forgeflare/hooks.toml:8:9: hook #2 (second)"),
        "{text}"
    );
    let one_line = error.one_line();
    assert!(
        one_line.starts_with(
            "proj/.forgeflare/hooks.toml:8:9: hook #2 (second): unknown event \"Stopp\"; did you mean \"Stop\"?"
        ) && one_line.ends_with("(and 3 more)"),
        "{one_line}"
    );
}

#[test]
fn load_optional_distinguishes_missing_from_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        Config::load_optional(dir.path().join("none.toml"))
            .unwrap()
            .is_none()
    );
    let error = Config::load(dir.path().join("none.toml")).unwrap_err();
    assert!(matches!(error, ConfigError::Read { .. }));
    // A directory where the file should be is not "missing": it is an error.
    let error = Config::load_optional(dir.path()).unwrap_err();
    assert!(matches!(error, ConfigError::Read { .. }), "{error:?}");
}

#[test]
fn location_counts_characters_not_bytes() {
    assert_eq!(
        Location::of_offset("é = 1\nab", 7),
        Location { line: 2, column: 1 }
    );
    assert_eq!(
        Location::of_offset("éé", 4),
        Location { line: 1, column: 3 }
    );
}

#[test]
fn wasm_hooks_parse_with_their_grants_and_config() {
    let config = parse(
        r#"
[[hooks]]
event = "PreToolUse"
wasm = "policies/guard.wasm"
read = ["src", "/etc/hookhost"]
write = [".forgeflare/audit"]
env = ["HOME"]
max_memory_mb = 16
fuel = 1000000
timeout_ms = 50

[hooks.config]
deny = ["rm -rf /"]
level = 2
ratio = 0.5
when = 2026-01-02T03:04:05Z
nested = { on = true }

[[hooks]]
event = "Stop"
wasm = "summary.wasm"
env = { MODE = "ci" }
"#,
    )
    .unwrap();
    assert_eq!(config.hooks.len(), 2, "no hook may vanish");
    let first = &config.hooks[0];
    assert_eq!(
        first.name, "policies/guard.wasm",
        "a wasm hook is named by its file by default"
    );
    let HookSource::Wasm(wasm) = &first.source else {
        panic!("a wasm hook")
    };
    assert_eq!(wasm.path, Path::new("policies/guard.wasm"));
    assert_eq!(
        wasm.grants,
        Grants {
            read: vec!["src".into(), "/etc/hookhost".into()],
            write: vec![".forgeflare/audit".into()],
            env_inherit: vec!["HOME".into()],
            env_set: BTreeMap::new(),
            max_memory_mb: 16,
            fuel: Some(1_000_000),
        }
    );
    assert_eq!(
        wasm.config,
        serde_json::json!({"deny": ["rm -rf /"], "level": 2, "ratio": 0.5, "when": "2026-01-02T03:04:05Z", "nested": {"on": true}})
    );
    let HookSource::Wasm(second) = &config.hooks[1].source else {
        panic!()
    };
    assert_eq!(
        second.grants.env_set.get("MODE").map(String::as_str),
        Some("ci")
    );
    assert_eq!(second.grants.max_memory_mb, DEFAULT_MAX_MEMORY_MB);
    assert_eq!(second.config, serde_json::json!({}));
}

#[test]
fn wasm_and_command_keys_do_not_mix() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "read on command",
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\nread = [\"src\"]\n",
            "4:1: hook #1 (x): `read` applies only to wasm hooks; remove it from this command hook",
        ),
        (
            "config on command",
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\n[hooks.config]\na = 1\n",
            "`config` applies only to wasm hooks",
        ),
        (
            "cwd on wasm",
            "[[hooks]]\nevent = \"Stop\"\nwasm = \"x.wasm\"\ncwd = \"src\"\n",
            "4:1: hook #1 (x.wasm): `cwd` applies only to command hooks; remove it from this wasm hook",
        ),
        (
            "memory zero",
            "[[hooks]]\nevent = \"Stop\"\nwasm = \"x.wasm\"\nmax_memory_mb = 0\n",
            "4:17: hook #1 (x.wasm): `max_memory_mb` must be between 1 and 4096, found 0",
        ),
        (
            "fuel string",
            "[[hooks]]\nevent = \"Stop\"\nwasm = \"x.wasm\"\nfuel = \"lots\"\n",
            "`fuel` must be a whole number, found string",
        ),
        (
            "read not a list",
            "[[hooks]]\nevent = \"Stop\"\nwasm = \"x.wasm\"\nread = \"src\"\n",
            "4:8: hook #1 (x.wasm): `read` must be a list of strings",
        ),
        (
            "env number",
            "[[hooks]]\nevent = \"Stop\"\nwasm = \"x.wasm\"\nenv = 3\n",
            "`env` of a wasm hook must be a list of host variables",
        ),
        (
            "config not a table",
            "[[hooks]]\nevent = \"Stop\"\nwasm = \"x.wasm\"\nconfig = 3\n",
            "`config` must be a table",
        ),
        (
            "empty wasm",
            "[[hooks]]\nevent = \"Stop\"\nwasm = \"\"\n",
            "`wasm` must not be empty",
        ),
        (
            "short sha256",
            "[[hooks]]\nevent = \"Stop\"\nwasm = \"x.wasm\"\nsha256 = \"abc\"\n",
            "4:10: hook #1 (x.wasm): `sha256` must be 64 hex digits",
        ),
        (
            "sha256 on a command hook",
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\nsha256 = \"abc\"\n",
            "`sha256` applies only to wasm hooks",
        ),
    ];
    for (name, text, expected) in cases {
        let got = problems(text);
        assert_eq!(
            got.len(),
            1,
            "case {name}: expected one problem, got {got:?}"
        );
        assert!(
            got[0].contains(expected),
            "case {name}: {:?} does not contain {expected:?}",
            got[0]
        );
    }
}

#[test]
fn toml_tables_convert_to_json_like_hooks_config() {
    assert_eq!(
        toml_to_json("deny = [\"a\"]\n[nested]\nlevel = 2\n").unwrap(),
        serde_json::json!({"deny": ["a"], "nested": {"level": 2}})
    );
    let error = toml_to_json("deny = [").unwrap_err();
    assert!(error.starts_with("1:"), "errors are located: {error}");
}
