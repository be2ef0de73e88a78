//! `hookhost init` and `--remove` on real files, per agent and scope: fresh files, files with
//! the user's own hooks (kept byte for byte), idempotence, removal round trips, `--dry-run`
//! writing nothing, malformed input refused before anything is written, and a write that
//! cannot finish putting back what it wrote.

mod support;

use std::fs;
use std::path::Path;

use hookhost_init::{
    Agent, FileRole, InitError, Options, Plan, Profile, Scope, is_hookhost_command,
};
use support::{Env, SCOPES, hookhost_commands, snapshot};

#[test]
fn fresh_files_register_every_event() {
    for agent in Agent::ALL {
        for scope in SCOPES {
            let env = Env::new();
            let plan = Plan::new(
                agent,
                scope,
                Profile::Standard,
                &Options::default(),
                &env.roots,
            )
            .unwrap();
            let spec = agent.spec();
            let settings = &plan.files[0];
            assert_eq!(settings.role, FileRole::Settings);
            assert_eq!(settings.before, None);
            let expected = match scope {
                Scope::Project => env.roots.project.join(spec.project_file),
                Scope::User => env.roots.agent_home(agent).join(spec.user_file),
            };
            assert_eq!(settings.path, expected, "{agent} {scope:?}");
            let json: serde_json::Value =
                serde_json::from_str(settings.after.as_deref().unwrap()).unwrap();
            if spec.version_one {
                assert_eq!(json["version"], 1, "{agent}");
            }
            let events = json["hooks"].as_object().unwrap();
            assert_eq!(events.len(), spec.events.len(), "{agent}");
            for event in spec.events {
                let items = events[event.name].as_array().unwrap();
                assert_eq!(items.len(), 1, "{agent} {}", event.name);
                let (group, handler) = match spec.shape {
                    hookhost_init::EntryShape::Grouped => (Some(&items[0]), &items[0]["hooks"][0]),
                    hookhost_init::EntryShape::Flat => (None, &items[0]),
                };
                let command = handler[spec.command_key].as_str().unwrap();
                assert!(is_hookhost_command(command), "{command}");
                assert!(
                    command.contains(&format!("--format {}", spec.name)),
                    "{command}"
                );
                assert_eq!(
                    command.contains(&format!("--event {}", event.name)),
                    spec.event_flag,
                    "{command}"
                );
                assert_eq!(handler["type"], "command");
                // 60 s in the agent's unit, except where the agent fixes the budget.
                let timeout = &handler[spec.timeout_key];
                if spec.fixed_budget.contains(&event.name) {
                    assert!(timeout.is_null(), "{agent} {}", event.name);
                } else {
                    assert_eq!(
                        timeout.as_u64(),
                        Some(60_000 / spec.timeout_unit_ms),
                        "{agent} {}",
                        event.name
                    );
                }
                if let Some((key, literal)) = spec.fail_closed {
                    let expected: serde_json::Value = serde_json::from_str(literal).unwrap();
                    let got = &handler[key];
                    assert_eq!(
                        got == &expected,
                        event.gate,
                        "{agent} {}: {key}",
                        event.name
                    );
                }
                if let Some(group) = group {
                    let wants_matcher = event.tool && spec.catch_all.is_some();
                    assert_eq!(
                        group.get("matcher").and_then(|m| m.as_str()),
                        spec.catch_all.filter(|_| wants_matcher),
                        "{agent} {}",
                        event.name
                    );
                }
            }
            assert_eq!(plan.commands.len(), spec.events.len());
            let toml_file = &plan.files[1];
            assert_eq!(toml_file.role, FileRole::HooksToml);
            let toml_text = toml_file.after.as_deref().unwrap();
            let table: toml::Table = toml::from_str(toml_text).unwrap();
            assert_eq!(
                table["hooks"].as_array().unwrap().len(),
                Profile::Standard.hook_names().len()
            );

            plan.apply().unwrap();
            let written = snapshot(&env.root());
            let again = Plan::new(
                agent,
                scope,
                Profile::Standard,
                &Options::default(),
                &env.roots,
            )
            .unwrap();
            assert!(again.is_noop(), "{agent} {scope:?}: {}", again.diff());
            again.apply().unwrap();
            assert_eq!(
                snapshot(&env.root()),
                written,
                "a second init changes nothing"
            );

            Plan::remove(agent, scope, &env.roots)
                .unwrap()
                .apply()
                .unwrap();
            assert!(
                !settings.path.exists(),
                "{agent} {scope:?}: the file init made is gone"
            );
            assert!(
                !toml_file.path.exists(),
                "{agent} {scope:?}: the hooks.toml init made is gone"
            );
        }
    }
}

/// Each agent's settings as a user might have them: their own hooks, other keys, their own
/// layout (four spaces, tabs and CRLF, one line, Gemini's comments).
fn users_settings(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => {
            "{\n    \"permissions\": {\"allow\": [\"Bash(npm test)\"]},\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./guard.sh\"}]}\n        ],\n        \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\", \"timeout\": 5}]}]\n    },\n    \"model\": \"opus\"\n}\n"
        }
        Agent::Copilot => {
            "{\n  \"version\": 1,\n  \"hooks\": {\n    \"preToolUse\": [{\"type\": \"command\", \"bash\": \"./scripts/check.sh\", \"timeoutSec\": 10}],\n    \"sessionEnd\": [\n      {\"type\": \"command\", \"bash\": \"echo bye\"}\n    ]\n  }\n}"
        }
        Agent::Gemini => {
            "{\n  // my settings\n  \"general\": {\"vimMode\": true},\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\n        \"matcher\": \"write_file\",\n        \"hooks\": [{\"name\": \"lint\", \"type\": \"command\", \"command\": \"npm run lint\", \"timeout\": 30000}]\n      }\n    ]\n  } /* the end */\n}\n"
        }
        Agent::Codex => {
            "{\r\n\t\"hooks\": {\r\n\t\t\"PreToolUse\": [\r\n\t\t\t{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"python3 ~/.codex/guard.py\"}]}\r\n\t\t]\r\n\t}\r\n}\r\n"
        }
        Agent::Cursor => {
            "{\"version\": 1, \"hooks\": {\"afterFileEdit\": [{\"command\": \"./format.sh\"}]}}\n"
        }
    }
}

const USERS_TOML: &str = "# my hooks\n[[hooks]]\nname = \"no-sudo\"\nevent = \"PreToolUse\"\nmatcher = \"Bash\"\ncommand = \"./no-sudo.sh\"\n";

#[test]
fn the_users_files_keep_their_hooks_and_come_back_byte_for_byte() {
    for agent in Agent::ALL {
        for scope in SCOPES {
            let env = Env::new();
            let planned = Plan::new(
                agent,
                scope,
                Profile::Strict,
                &Options::default(),
                &env.roots,
            )
            .unwrap();
            let (settings, hooks_toml) =
                (planned.files[0].path.clone(), planned.files[1].path.clone());
            env.write(&settings, users_settings(agent));
            env.write(&hooks_toml, USERS_TOML);
            let before = snapshot(&env.root());

            let plan = Plan::new(
                agent,
                scope,
                Profile::Strict,
                &Options::default(),
                &env.roots,
            )
            .unwrap();
            let after = plan.files[0].after.clone().unwrap();
            for theirs in [
                "./guard.sh",
                "say done",
                "./scripts/check.sh",
                "echo bye",
                "npm run lint",
                "// my settings",
                "/* the end */",
                "python3 ~/.codex/guard.py",
                "./format.sh",
            ] {
                assert_eq!(
                    after.contains(theirs),
                    users_settings(agent).contains(theirs),
                    "{agent}: {theirs}"
                );
            }
            assert!(
                after.starts_with(&users_settings(agent)[..20]),
                "{agent}: the user's layout stays:\n{after}"
            );
            assert_eq!(
                hookhost_commands(agent, &after).len(),
                agent.spec().events.len(),
                "{agent}:\n{after}"
            );
            let toml_after = plan.files[1].after.clone().unwrap();
            assert!(
                toml_after.starts_with(USERS_TOML),
                "{agent}: the user's hooks come first"
            );
            plan.apply().unwrap();

            let again = Plan::new(
                agent,
                scope,
                Profile::Strict,
                &Options::default(),
                &env.roots,
            )
            .unwrap();
            assert!(again.is_noop(), "{agent} {scope:?}:\n{}", again.diff());

            Plan::remove(agent, scope, &env.roots)
                .unwrap()
                .apply()
                .unwrap();
            assert_eq!(
                snapshot(&env.root()),
                before,
                "{agent} {scope:?}: init then remove gives the files back"
            );
        }
    }
}

#[test]
fn hookhost_entries_already_there_are_taken_over_not_doubled() {
    let env = Env::new();
    let path = env.roots.project.join(".claude/settings.json");
    // Written by hand from docs/agents.md, one of them inside a group of the user's.
    env.write(&path, r#"{"hooks": {
  "PreToolUse": [{"hooks": [{"type": "command", "command": "hookhost agent-hook --format claude"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "./notify.sh"}, {"type": "command", "command": "/opt/bin/hookhost agent-hook --format claude"}]}]
}}"#);
    let plan = Plan::new(
        Agent::Claude,
        Scope::Project,
        Profile::Standard,
        &Options::default(),
        &env.roots,
    )
    .unwrap();
    let after = plan.files[0].after.as_deref().unwrap();
    let json: serde_json::Value = serde_json::from_str(after).unwrap();
    let pre = json["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 1, "replaced where it stood:\n{after}");
    assert_eq!(pre[0]["matcher"], "*");
    assert_eq!(pre[0]["hooks"][0]["timeout"], 60);
    let stop = json["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2, "{after}");
    assert_eq!(
        stop[0]["hooks"].as_array().unwrap().len(),
        1,
        "hookhost out of the user's group"
    );
    assert_eq!(stop[0]["hooks"][0]["command"], "./notify.sh");
    assert_eq!(
        hookhost_commands(Agent::Claude, after).len(),
        Agent::Claude.spec().events.len()
    );
    plan.apply().unwrap();

    // The daemon's client replaces agent-hook in place, on every event.
    let client = Options {
        use_client: true,
        hookhost: "/usr/local/bin/hookhost".into(),
        ..Options::default()
    };
    let plan = Plan::new(
        Agent::Claude,
        Scope::Project,
        Profile::Standard,
        &client,
        &env.roots,
    )
    .unwrap();
    let after = plan.files[0].after.as_deref().unwrap();
    let commands = hookhost_commands(Agent::Claude, after);
    assert_eq!(commands.len(), Agent::Claude.spec().events.len());
    assert!(
        commands
            .iter()
            .all(|c| c == "/usr/local/bin/hookhost-client --format claude"),
        "{commands:?}"
    );

    // Removal takes out every hookhost entry, the user's handler stays.
    plan.apply().unwrap();
    Plan::remove(Agent::Claude, Scope::Project, &env.roots)
        .unwrap()
        .apply()
        .unwrap();
    let left = fs::read_to_string(&path).unwrap();
    assert_eq!(
        left,
        "{\"hooks\": {\n  \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./notify.sh\"}]}]\n}}"
    );
}

#[test]
fn dry_run_shows_a_diff_and_writes_nothing() {
    for agent in Agent::ALL {
        let env = Env::new();
        let settings = env.roots.project.join(agent.spec().project_file);
        env.write(&settings, users_settings(agent));
        let before = snapshot(&env.root());
        let plan = Plan::new(
            agent,
            Scope::Project,
            Profile::Standard,
            &Options::default(),
            &env.roots,
        )
        .unwrap();
        let diff = plan.diff();
        let shown = agent.spec().project_file;
        assert!(
            diff.contains(&format!("--- a/{shown}\n+++ b/{shown}\n")),
            "{agent}:\n{diff}"
        );
        assert!(diff.contains("--- /dev/null\n+++ b/hooks.toml\n"), "{diff}");
        assert!(
            diff.lines()
                .any(|l| l.starts_with('+') && l.contains("agent-hook")),
            "{diff}"
        );
        assert_eq!(
            snapshot(&env.root()),
            before,
            "{agent}: a plan writes nothing"
        );
    }
}

#[test]
fn malformed_settings_are_refused_naming_the_place() {
    // (agent, settings text, line, column, message part)
    let cases: &[(Agent, &str, usize, usize, &str)] = &[
        (
            Agent::Claude,
            "{\n  \"hooks\": {\n    \"Stop\": [}\n}",
            3,
            14,
            "expected a JSON value",
        ),
        (
            Agent::Claude,
            "{\n  // mine\n  \"model\": \"opus\"\n}",
            2,
            3,
            "a comment: this agent reads plain JSON",
        ),
        (
            Agent::Copilot,
            "{\"version\": 1, \"hooks\": {},}",
            1,
            28,
            "a trailing comma",
        ),
        (
            Agent::Copilot,
            "{\"version\": 2, \"hooks\": {}}",
            1,
            13,
            "version 2: Copilot CLI reads version 1 files",
        ),
        (
            Agent::Gemini,
            "{\n  /* ok */ \"hooks\": [],\n}",
            3,
            1,
            "a trailing comma",
        ),
        (
            Agent::Gemini,
            "{\"hooks\": [1]}",
            1,
            11,
            "`hooks` is an array, where Gemini CLI reads an object of events",
        ),
        (Agent::Codex, "[]", 1, 1, "an array at the top"),
        (
            Agent::Codex,
            "{\"hooks\": {\"Stop\": {\"hooks\": []}}}",
            1,
            20,
            "`hooks.Stop` is an object, where Codex CLI reads a list of hooks",
        ),
        (
            Agent::Cursor,
            "{\"version\": 1, \"hooks\": {\"stop\": [{\"command\": \"x\"}]}",
            1,
            53,
            "expected `,` or `}`",
        ),
    ];
    for (agent, text, line, column, message) in cases {
        let env = Env::new();
        let path = env.roots.project.join(agent.spec().project_file);
        env.write(&path, text);
        let before = snapshot(&env.root());
        let error = Plan::new(
            *agent,
            Scope::Project,
            Profile::Standard,
            &Options::default(),
            &env.roots,
        )
        .unwrap_err();
        let InitError::Settings {
            path: at,
            line: l,
            column: c,
            message: m,
        } = &error
        else {
            panic!("{agent}: {error}");
        };
        assert_eq!(
            (at, *l, *c),
            (&path, *line, *column),
            "{agent} {text:?}: {m}"
        );
        assert!(m.contains(message), "{agent} {text:?}: {m}");
        assert!(
            error
                .to_string()
                .starts_with(&format!("{}:{line}:{column}: ", path.display())),
            "{error}"
        );
        assert_eq!(snapshot(&env.root()), before, "nothing written");
    }
}

#[test]
fn gemini_reads_comments_and_init_keeps_them() {
    let env = Env::new();
    let path = env.roots.project.join(".gemini/settings.json");
    env.write(&path, "// top\n{\n  \"hooks\": {} // none yet\n}\n");
    let plan = Plan::new(
        Agent::Gemini,
        Scope::Project,
        Profile::Standard,
        &Options::default(),
        &env.roots,
    )
    .unwrap();
    let after = plan.files[0].after.as_deref().unwrap();
    assert!(after.starts_with("// top\n{\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\n        \"matcher\": \"*\",\n        \"hooks\": [\n          {\n            \"name\": \"hookhost\","), "{after}");
    assert!(after.ends_with("} // none yet\n}\n"), "{after}");
}

#[test]
fn bad_hooks_toml_and_names_are_refused() {
    let env = Env::new();
    env.write(
        &env.roots.project.join("hooks.toml"),
        "[[hooks]\nevent = 1\n",
    );
    let error = Plan::new(
        Agent::Codex,
        Scope::Project,
        Profile::Standard,
        &Options::default(),
        &env.roots,
    )
    .unwrap_err();
    assert!(matches!(error, InitError::HooksToml { .. }), "{error}");
    assert!(error.to_string().contains("line 1"), "{error}");
    assert!(
        !env.roots.project.join(".codex").exists(),
        "nothing written"
    );

    let unknown = Agent::from_name("cursr").unwrap_err().to_string();
    assert_eq!(
        unknown,
        "unknown agent \"cursr\"; did you mean \"cursor\"? (known: claude, copilot, gemini, codex, cursor)"
    );
    let unknown = Profile::from_name("standrad").unwrap_err().to_string();
    assert_eq!(
        unknown,
        "unknown profile \"standrad\"; did you mean \"standard\"? (known: standard, strict)"
    );
    let events = Options {
        events: Some(vec!["PreToolUs".into()]),
        ..Options::default()
    };
    let error = Plan::new(
        Agent::Claude,
        Scope::Project,
        Profile::Standard,
        &events,
        &env.roots,
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("did you mean \"PreToolUse\""),
        "{error}"
    );
    let events = Options {
        events: Some(vec!["WorktreeCreate".into()]),
        ..Options::default()
    };
    let error = Plan::new(
        Agent::Claude,
        Scope::Project,
        Profile::Standard,
        &events,
        &env.roots,
    )
    .unwrap_err();
    assert!(
        error.to_string().starts_with(
            "init leaves Claude Code's WorktreeCreate out: a WorktreeCreate hook replaces"
        ),
        "{error}"
    );
}

#[test]
fn chosen_events_by_either_name() {
    let env = Env::new();
    let events = Options {
        events: Some(vec!["Stop".into(), "PreToolUse".into()]),
        ..Options::default()
    };
    let plan = Plan::new(
        Agent::Gemini,
        Scope::Project,
        Profile::Standard,
        &events,
        &env.roots,
    )
    .unwrap();
    let names: Vec<&str> = plan.commands.iter().map(|(event, _)| *event).collect();
    assert_eq!(names, ["BeforeTool", "AfterAgent"]);
}

#[test]
fn a_write_that_cannot_finish_puts_back_what_it_wrote() {
    let env = Env::new();
    let settings = env.roots.project.join(".cursor/hooks.json");
    env.write(&settings, users_settings(Agent::Cursor));
    let plan = Plan::new(
        Agent::Cursor,
        Scope::Project,
        Profile::Standard,
        &Options::default(),
        &env.roots,
    )
    .unwrap();
    // The hooks.toml appears between the plan and its writing.
    env.write(&env.roots.project.join("hooks.toml"), USERS_TOML);
    let before = snapshot(&env.root());
    let error = plan.apply().unwrap_err();
    assert!(
        matches!(&error, InitError::Changed { path } if path.ends_with("hooks.toml")),
        "{error}"
    );
    assert_eq!(
        snapshot(&env.root()),
        before,
        "the settings written first were put back"
    );
}

#[test]
fn removal_keeps_the_block_another_agent_still_uses() {
    let env = Env::new();
    for agent in [Agent::Claude, Agent::Codex] {
        Plan::new(
            agent,
            Scope::Project,
            Profile::Standard,
            &Options::default(),
            &env.roots,
        )
        .unwrap()
        .apply()
        .unwrap();
    }
    let toml_path = env.roots.project.join("hooks.toml");
    let plan = Plan::remove(Agent::Claude, Scope::Project, &env.roots).unwrap();
    assert_eq!(plan.files.len(), 1, "only Claude's settings change");
    assert!(
        plan.notes
            .iter()
            .any(|n| n.contains("kept hookhost's block") && n.contains(".codex/hooks.json")),
        "{:?}",
        plan.notes
    );
    plan.apply().unwrap();
    assert!(toml_path.exists());
    Plan::remove(Agent::Codex, Scope::Project, &env.roots)
        .unwrap()
        .apply()
        .unwrap();
    assert!(
        !toml_path.exists(),
        "the last agent out takes the block with it"
    );
    assert!(!env.roots.project.join(".codex/hooks.json").exists());
}

#[test]
fn notes_name_what_keeps_hooks_off_or_runs_hookhost_twice() {
    let env = Env::new();
    env.write(&env.roots.project.join(".claude/settings.local.json"), r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "hookhost agent-hook --format claude"}]}]}}"#);
    env.write(
        &env.roots.project.join(".claude/settings.json"),
        r#"{"disableAllHooks": true}"#,
    );
    let plan = Plan::new(
        Agent::Claude,
        Scope::Project,
        Profile::Standard,
        &Options::default(),
        &env.roots,
    )
    .unwrap();
    assert!(
        plan.notes
            .iter()
            .any(|n| n.contains("settings.local.json also runs hookhost")),
        "{:?}",
        plan.notes
    );
    assert!(
        plan.notes
            .iter()
            .any(|n| n.contains("disableAllHooks is true")),
        "{:?}",
        plan.notes
    );
    assert!(plan.trust.contains("trust"), "{}", plan.trust);
}

#[cfg(unix)]
#[test]
fn a_symlinked_settings_file_is_written_where_it_points() {
    let env = Env::new();
    let dotfiles = env.root().join("dotfiles/claude.json");
    env.write(&dotfiles, "{\"model\": \"opus\"}\n");
    let link = env.roots.claude.join("settings.json");
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&dotfiles, &link).unwrap();
    Plan::new(
        Agent::Claude,
        Scope::User,
        Profile::Standard,
        &Options::default(),
        &env.roots,
    )
    .unwrap()
    .apply()
    .unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        fs::read_to_string(&dotfiles)
            .unwrap()
            .contains("agent-hook")
    );
    Plan::remove(Agent::Claude, Scope::User, &env.roots)
        .unwrap()
        .apply()
        .unwrap();
    assert_eq!(
        fs::read_to_string(&dotfiles).unwrap(),
        "{\"model\": \"opus\"}\n"
    );
    assert!(Path::new(&link).exists());
}

#[test]
fn the_project_hooks_toml_is_found_as_hookhosts_layers_find_it() {
    let env = Env::new();
    let forgeflare = env.roots.project.join(".forgeflare/hooks.toml");
    env.write(&forgeflare, USERS_TOML);
    let plan = Plan::new(
        Agent::Claude,
        Scope::Project,
        Profile::Standard,
        &Options::default(),
        &env.roots,
    )
    .unwrap();
    assert_eq!(plan.files[1].path, forgeflare);
    plan.apply().unwrap();
    assert!(!env.roots.project.join("hooks.toml").exists());
    let user = Plan::new(
        Agent::Claude,
        Scope::User,
        Profile::Standard,
        &Options::default(),
        &env.roots,
    )
    .unwrap();
    assert_eq!(
        user.files[1].path,
        env.roots.hookhost_config.join("hooks.toml")
    );
    Plan::remove(Agent::Claude, Scope::Project, &env.roots)
        .unwrap()
        .apply()
        .unwrap();
    assert_eq!(fs::read_to_string(&forgeflare).unwrap(), USERS_TOML);
}
