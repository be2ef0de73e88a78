//! `hookhost check` and the agents' trust gates: for a project whose agent settings call
//! hookhost, whether Copilot CLI, Gemini CLI and Codex CLI will run those hooks, read from each
//! agent's own trust records, and what to do when they will not. (tests/agents_e2e checks the
//! same against the agents themselves.)

use std::process::Command;

use crate::support::Project;

/// `hookhost check` in `project` with `home` as HOME: stdout and stderr.
fn check(project: &Project, home: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .arg("check")
        .current_dir(project.root())
        .env("HOME", home)
        .env("HOOKHOST_CONFIG_DIR", project.path(".no-user-config"))
        .env("HOOKHOST_DATA_DIR", project.path(".no-user-data"))
        .env_remove("CODEX_HOME")
        .env_remove("COPILOT_HOME")
        .env_remove("COPILOT_ALLOW_ALL")
        .env_remove("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS")
        .env_remove("GEMINI_CLI_HOME")
        .env_remove("GEMINI_CLI_TRUST_WORKSPACE")
        .env_remove("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn write(path: std::path::PathBuf, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn check_says_whether_each_agent_runs_the_projects_hooks_and_what_to_do() {
    let project = Project::new();
    project.config("");
    let root = project.root().display().to_string();
    write(
        project.path(".github/hooks/hookhost.json"),
        r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "hookhost agent-hook --format copilot --event preToolUse"}]}}"#,
    );
    write(
        project.path(".gemini/settings.json"),
        r#"{"hooks": {"BeforeTool": [{"hooks": [{"name": "hookhost", "type": "command", "command": "hookhost agent-hook --format gemini"}]}]}}"#,
    );
    let codex_hooks = r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "hookhost agent-hook --format codex"}]}], "Stop": [{"hooks": [{"type": "command", "command": "hookhost agent-hook --format codex"}]}]}}"#;
    write(project.path(".codex/hooks.json"), codex_hooks);
    write(
        project.path(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "hookhost agent-hook --format claude"}]}]}}"#,
    );
    let home = tempfile::tempdir().unwrap();

    // Nothing trusted yet: every gate is closed, and check says how to open it.
    let out = check(&project, home.path());
    for expected in [
        "agent: Claude Code runs the hooks of .claude/settings.json: `claude -p` runs them",
        "warning: Copilot CLI will not run the hooks of .github/hooks/hookhost.json: ",
        "pass --trust-folder",
        "warning: Gemini CLI will not run the hooks of .gemini/settings.json: the folder is not trusted",
        "GEMINI_CLI_TRUST_WORKSPACE=true",
        "warning: Codex CLI will not run the hooks of .codex/hooks.json: the project ",
        "trust_level = \"trusted\"",
    ] {
        assert!(out.contains(expected), "{expected:?} in:\n{out}");
    }

    // The folders trusted as each agent records it; Codex's hooks not yet.
    write(
        home.path().join(".copilot/config.json"),
        &format!(
            "// This file is managed automatically.\n{{\"trustedFolders\": [{:?}]}}\n",
            project.root().parent().unwrap()
        ),
    );
    write(
        home.path().join(".gemini/trustedFolders.json"),
        &format!("{{{root:?}: \"TRUST_FOLDER\"}}"),
    );
    let config = format!("[projects.{root:?}]\ntrust_level = \"trusted\"\n");
    write(home.path().join(".codex/config.toml"), &config);
    let out = check(&project, home.path());
    for expected in [
        "agent: Copilot CLI runs the hooks of .github/hooks/hookhost.json: ",
        "agent: Gemini CLI runs the hooks of .gemini/settings.json: the folder is trusted",
        &format!(
            "not trusted (or changed since): {root}/.codex/hooks.json:pre_tool_use:0:0, {root}/.codex/hooks.json:stop:0:0"
        ),
        "open `/hooks` and trust them",
    ] {
        assert!(out.contains(expected), "{expected:?} in:\n{out}");
    }

    // Each Codex hook trusted by its hash (as `/hooks` records it); a changed entry is not.
    let hash = |event: &str| {
        use sha2::Digest as _;
        let identity = format!(
            r#"{{"event_name":"{event}","hooks":[{{"async":false,"command":"hookhost agent-hook --format codex","timeout":600,"type":"command"}}]}}"#
        );
        let digest = sha2::Sha256::digest(identity.as_bytes());
        format!(
            "sha256:{}",
            digest
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        )
    };
    let trusted = format!(
        "{config}[hooks.state.\"{root}/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"{}\"\n[hooks.state.\"{root}/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"{}\"\n",
        hash("pre_tool_use"),
        hash("stop")
    );
    write(home.path().join(".codex/config.toml"), &trusted);
    let out = check(&project, home.path());
    assert!(
        out.contains("agent: Codex CLI runs the hooks of .codex/hooks.json: the project and each of its hooks are trusted"),
        "{out}"
    );
    write(
        project.path(".codex/hooks.json"),
        &codex_hooks.replacen("--format codex\"}", "--format codex\", \"timeout\": 30}", 1),
    );
    let out = check(&project, home.path());
    assert!(
        out.contains(&format!(
            "not trusted (or changed since): {root}/.codex/hooks.json:pre_tool_use:0:0. "
        )),
        "{out}"
    );

    // A rule that distrusts the folder wins by being the longest match.
    write(
        home.path().join(".gemini/trustedFolders.json"),
        &format!(
            "{{{:?}: \"TRUST_FOLDER\", {root:?}: \"DO_NOT_TRUST\"}}",
            project.root().parent().unwrap()
        ),
    );
    let out = check(&project, home.path());
    assert!(out.contains("the folder is marked DO_NOT_TRUST"), "{out}");
}
