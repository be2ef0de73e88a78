//! `[projects] policy = "approve"`: an approval covers what the approved hooks run from the
//! project (the scripts their commands name, their components), through the real `hookhost`
//! binary and real bash: a `git pull` that changes a script holds the hooks again.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{Project, hook};

/// A user whose policy is "approve", and a project.
struct Setup {
    user: tempfile::TempDir,
    project: Project,
}

impl Setup {
    fn new() -> Setup {
        let user = tempfile::tempdir().unwrap();
        std::fs::write(
            user.path().join("hooks.toml"),
            "[projects]\npolicy = \"approve\"\n",
        )
        .unwrap();
        Setup {
            user,
            project: Project::new(),
        }
    }

    /// `hookhost ARGS` in the project, as this user.
    fn run(&self, args: &[&str]) -> Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
            .args(args)
            .current_dir(self.project.root())
            .env("HOOKHOST_CONFIG_DIR", self.user.path())
            .env("HOOKHOST_DATA_DIR", self.user.path())
            .envs(crate::support::test_cache_env())
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("GEMINI_PROJECT_DIR")
            .output()
            .unwrap()
    }

    /// `hookhost allow`, which must succeed; its stdout.
    fn allow(&self) -> String {
        let out = self.run(&["allow"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    }

    /// A Bash call through the project's hooks: the exit status and what `fire` printed.
    fn fire(&self) -> (Option<i32>, String) {
        // As agent-hook sets it for Claude Code's scripts.
        let project_dir = format!("CLAUDE_PROJECT_DIR={}", self.project.root().display());
        let out = self.run(&[
            "fire",
            "PreToolUse",
            "--tool",
            "Bash",
            "--input",
            r#"{"command":"ls"}"#,
            "--env",
            &project_dir,
        ]);
        (
            out.status.code(),
            format!("{}{}", stdout(&out), stderr(&out)),
        )
    }

    /// Writes an executable script of the project that logs `tag` and allows.
    fn script(&self, relative: &str, tag: &str) -> PathBuf {
        let path = self.project.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            format!("#!/bin/bash\necho {tag} >> ran.log\necho '{{\"action\":\"allow\"}}'\n"),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn ran(&self) -> String {
        std::fs::read_to_string(self.project.path("ran.log")).unwrap_or_default()
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn guard(name: &str, command: &str) -> String {
    hook("PreToolUse", command, &format!("name = \"{name}\""))
}

fn short_digest(path: &Path) -> String {
    hookhost::approvals::digest(path).unwrap()[..12].to_string()
}

#[test]
fn a_changed_script_holds_the_hooks_until_approved_again() {
    let setup = Setup::new();
    let config = setup.project.config(&guard("guard", "./check.sh"));
    let script = setup.script("check.sh", "v1");

    let listed = setup.allow();
    assert!(
        listed.contains(&format!(
            "covers check.sh (sha256 {})",
            short_digest(&script)
        )),
        "{listed}"
    );
    assert_eq!(setup.fire().0, Some(0));
    assert_eq!(setup.ran(), "v1\n");

    // The repository changes the script (a `git pull`): the new one does not run.
    setup.script("check.sh", "v2");
    let (status, text) = setup.fire();
    assert_eq!(status, Some(2), "the guard blocks: {text}");
    assert!(
        text.contains(&format!(
            "guard is not allowed to run: the project's hooks in {} were approved, but {} changed since (an approval covers the files its hooks run); review the change, then run `hookhost allow --config {}`",
            config.display(),
            std::fs::canonicalize(&script).unwrap().display(),
            config.display()
        )),
        "{text}"
    );
    assert_eq!(setup.ran(), "v1\n", "the changed script did not run");
    let check = stdout(&setup.run(&["check"]));
    assert!(
        check.contains("held: #1 guard:") && check.contains("check.sh changed"),
        "{check}"
    );

    setup.allow();
    assert_eq!(setup.fire().0, Some(0));
    assert_eq!(
        setup.ran(),
        "v1\nv2\n",
        "approved again, the new script runs"
    );
}

#[test]
fn a_deleted_script_and_a_script_named_by_the_local_override_are_covered() {
    let setup = Setup::new();
    setup
        .project
        .config(&guard("guard", "bash scripts/guard.sh"));
    let local = setup.project.path(".forgeflare/hooks.local.toml");
    std::fs::write(
        &local,
        guard(
            "mine",
            r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/local.sh --strict"#,
        ),
    )
    .unwrap();
    let guard_script = setup.script("scripts/guard.sh", "guard");
    let local_script = setup.script(".claude/hooks/local.sh", "local");
    let listed = setup.allow();
    assert!(
        listed.contains("covers scripts/guard.sh (sha256"),
        "{listed}"
    );
    assert!(
        listed.contains("covers .claude/hooks/local.sh (sha256"),
        "{listed}"
    );
    assert_eq!(setup.fire().0, Some(0));
    assert_eq!(setup.ran(), "guard\nlocal\n");

    std::fs::write(&local_script, "#!/bin/bash\nexit 0\n").unwrap();
    let (status, text) = setup.fire();
    assert_eq!(status, Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "the project's hooks in {} were approved, but {} changed since",
            local.display(),
            std::fs::canonicalize(&local_script).unwrap().display()
        )),
        "{text}"
    );
    assert!(
        !text.contains("guard is not allowed"),
        "the project file's hooks still run: {text}"
    );

    setup.allow();
    std::fs::remove_file(&guard_script).unwrap();
    let (status, text) = setup.fire();
    assert_eq!(status, Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "{} was deleted since",
            setup
                .project
                .root()
                .canonicalize()
                .unwrap()
                .join("scripts/guard.sh")
                .display()
        )),
        "{text}"
    );
}

#[test]
fn a_changed_component_holds_its_hook() {
    let setup = Setup::new();
    // The component is not loaded before it is approved: any file shows what is recorded.
    let component = setup.project.path(".forgeflare/policies/guard.wasm");
    std::fs::create_dir_all(component.parent().unwrap()).unwrap();
    std::fs::write(&component, b"\0asm first").unwrap();
    setup.project.config(
        "[[hooks]]\nname = \"wasm-guard\"\nevent = \"PreToolUse\"\nwasm = \"policies/guard.wasm\"\n",
    );
    let listed = setup.allow();
    assert!(
        listed.contains(&format!(
            "covers .forgeflare/policies/guard.wasm (sha256 {})",
            short_digest(&component)
        )),
        "{listed}"
    );
    std::fs::copy(setup.project.path(".forgeflare/hooks.toml"), &component).unwrap();
    let check = stdout(&setup.run(&["check"]));
    assert!(
        check.contains("held: #1 wasm-guard:")
            && check.contains("policies/guard.wasm changed since"),
        "{check}"
    );
}

#[test]
fn allow_says_what_it_cannot_trace_and_what_lies_outside_the_project() {
    let setup = Setup::new();
    let outside = tempfile::tempdir().unwrap();
    let tool = outside.path().join("tool.sh");
    std::fs::write(&tool, "#!/bin/bash\necho '{\"action\":\"allow\"}'\n").unwrap();
    setup.project.config(&format!(
        "{}{}",
        guard(
            "built",
            r#"bash "$(dirname "$0")/x.sh" || true; echo '{"action":"allow"}'"#
        ),
        guard("outside", &format!("bash {}", tool.display())),
    ));
    let listed = setup.allow();
    assert!(
        listed.contains(
            "built (PreToolUse/guard): runs `bash \"$(dirname \"$0\")/x.sh\" || true; echo '{\"action\":\"allow\"}'`\n    warning: built: its command builds a path at run time: `\"$(dirname \"$0\")/x.sh\"`; hookhost cannot tell which files it runs, and changes to them will not need a new approval\n"
        ),
        "{listed}"
    );
    let outside_path = std::fs::canonicalize(&tool).unwrap();
    assert!(
        listed.contains(&format!(
            "outside (PreToolUse/guard): runs `bash {}`\n    covers no file of the project\n    not covered: {} (outside the project, not the repository's to change)\n",
            tool.display(),
            outside_path.display()
        )),
        "{listed}"
    );
    assert_eq!(setup.fire().0, Some(0));
    // Not the repository's: a change there needs no approval.
    std::fs::write(&tool, "#!/bin/bash\necho '{\"action\":\"allow\"}' # v2\n").unwrap();
    assert_eq!(setup.fire().0, Some(0));
}

#[test]
fn an_approval_from_before_still_approves_and_asks_to_allow_again() {
    let setup = Setup::new();
    let config = setup.project.config(&guard("guard", "./check.sh"));
    setup.script("check.sh", "v1");
    // approvals.json as hookhost wrote it before it covered scripts.
    let key = std::fs::canonicalize(&config).unwrap();
    std::fs::write(
        setup.user.path().join("approvals.json"),
        serde_json::json!({
            "approved": { key.to_str().unwrap(): hookhost::approvals::digest(&config).unwrap() }
        })
        .to_string(),
    )
    .unwrap();
    let notice = format!(
        "hookhost: the approval of {} was recorded by an older hookhost and covers that file only, not the scripts and components its hooks run; review them, then run `hookhost allow --config {}` so that a change to them needs a new approval",
        config.display(),
        config.display()
    );
    let (status, text) = setup.fire();
    assert_eq!(status, Some(0), "{text}");
    assert!(text.contains(&notice), "{text}");
    assert_eq!(setup.ran(), "v1\n");
    let check = setup.run(&["check"]);
    assert!(!stdout(&check).contains("HELD"), "{}", stdout(&check));
    assert!(stderr(&check).contains(&notice), "{}", stderr(&check));

    setup.allow();
    let (status, text) = setup.fire();
    assert_eq!(status, Some(0), "{text}");
    assert!(!text.contains("older hookhost"), "{text}");
    let approvals = std::fs::read_to_string(setup.user.path().join("approvals.json")).unwrap();
    assert!(approvals.contains("\"covers\""), "{approvals}");
}

#[test]
fn claude_codes_scripts_are_covered_where_agent_hook_runs_them() {
    let setup = Setup::new();
    // Claude Code's way of naming a script (what `hookhost import` carries over).
    setup.project.config(&guard(
        "claude-guard",
        r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh"#,
    ));
    let script = setup.script(".claude/hooks/guard.sh", "v1");
    let listed = setup.allow();
    assert!(
        listed.contains(&format!(
            "covers .claude/hooks/guard.sh (sha256 {})",
            short_digest(&script)
        )),
        "{listed}"
    );
    let agent_hook = || {
        let mut agent = crate::support::agent_hook_command(&setup.project);
        agent
            .env("HOOKHOST_CONFIG_DIR", setup.user.path())
            .env("HOOKHOST_DATA_DIR", setup.user.path());
        let event = crate::support::claude_bash_event(&setup.project, "s-1", "ls");
        let out = crate::support::with_stdin(&mut agent, event)
            .wait_with_output()
            .unwrap();
        stdout(&out)
    };
    let answer = agent_hook();
    assert!(!answer.contains("\"deny\""), "{answer}");
    assert_eq!(setup.ran(), "v1\n");

    setup.script(".claude/hooks/guard.sh", "v2");
    let answer = agent_hook();
    assert!(
        answer.contains("\"deny\"") && answer.contains(".claude/hooks/guard.sh changed since"),
        "{answer}"
    );
    assert_eq!(setup.ran(), "v1\n", "the changed script did not run");
}
