//! Layered configuration (the user's hooks, the project's, a local override) and the user's
//! `[projects]` policies against projects nobody reviewed, hostile ones included.

use std::path::{Path, PathBuf};

use hookhost::approvals::{Approvals, Coverage};
use hookhost::{Event, HookRunner, Layers, Outcome, ToolCall};
use serde_json::json;

use crate::support::{Project, hook, probe};

/// A user directory, a project directory and an approvals file, all temporary.
struct Setup {
    user: tempfile::TempDir,
    project: Project,
}

impl Setup {
    fn new(user_toml: &str) -> Setup {
        let user = tempfile::tempdir().unwrap();
        std::fs::write(user.path().join("hooks.toml"), user_toml).unwrap();
        Setup {
            user,
            project: Project::new(),
        }
    }

    fn layers(&self) -> Layers {
        let project = self.project.path(".forgeflare/hooks.toml");
        let local = project.with_file_name("hooks.local.toml");
        Layers {
            user: Some(self.user.path().join("hooks.toml")),
            project: project.exists().then_some(project),
            local: local.exists().then_some(local),
            approvals: Some(self.approvals()),
        }
    }

    fn approvals(&self) -> PathBuf {
        self.user.path().join("approvals.json")
    }

    fn runner(&self) -> HookRunner {
        HookRunner::load_layers(&self.layers(), self.project.options())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn error(&self) -> String {
        HookRunner::load_layers(&self.layers(), self.project.options())
            .unwrap_err()
            .to_string()
    }

    fn local(&self, toml: &str) {
        std::fs::write(self.project.path(".forgeflare/hooks.local.toml"), toml).unwrap();
    }

    fn approve(&self) {
        let mut approvals = Approvals::load(&self.approvals()).unwrap();
        let file = self.project.path(".forgeflare/hooks.toml");
        let coverage = Coverage::of(&hookhost::Config::load(&file).unwrap(), self.project.root());
        approvals.approve(&file, &coverage).unwrap();
        approvals.save(&self.approvals()).unwrap();
    }
}

async fn bash(runner: &HookRunner, command: &str) -> Outcome {
    let input = json!({ "command": command });
    runner
        .fire(&Event::pre_tool_use(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 1,
        }))
        .await
}

fn allow(name: &str) -> String {
    hook(
        "PreToolUse",
        &format!("echo {name} >> ran.log; echo '{{\"action\":\"allow\"}}'"),
        &format!("name = \"{name}\""),
    )
}

fn ran(project: &Project) -> String {
    std::fs::read_to_string(project.path("ran.log")).unwrap_or_default()
}

#[tokio::test]
async fn the_users_hooks_run_first_and_a_project_cannot_disable_them() {
    let setup = Setup::new(&allow("user-guard"));
    setup
        .project
        .config(&format!("{}{}", allow("project-guard"), allow("slow-lint")));
    setup.local("disable = [\"slow-lint\"]\n");
    let runner = setup.runner();
    let outcome = bash(&runner, "ls").await;
    let order: Vec<&str> = outcome.reports.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        order,
        ["user-guard", "project-guard"],
        "local disabled slow-lint"
    );
    let layers: Vec<&str> = runner
        .configured_hooks()
        .map(|h| h.layer.as_str())
        .collect();
    assert_eq!(layers, ["user", "project", "project"]);

    setup.local("disable = [\"user-guard\"]\n");
    let error = setup.error();
    assert!(
        error.contains("`disable` names \"user-guard\", a hook of the user's own configuration, which a project cannot disable"),
        "{error}"
    );
    setup.local("");
    setup
        .project
        .config(&format!("[projects]\npolicy = \"allow\"\n{}", allow("p")));
    assert!(
        setup
            .error()
            .contains("only the user's own configuration can set [projects]"),
        "a project cannot choose its own policy"
    );
}

#[tokio::test]
async fn approve_runs_a_project_only_as_approved() {
    let setup = Setup::new(&format!(
        "[projects]\npolicy = \"approve\"\n{}",
        allow("user-guard")
    ));
    let project_file = setup.project.config(&format!(
        "{}{}",
        allow("project-guard"),
        hook(
            "PreToolUse",
            "echo observer >> ran.log",
            "name = \"project-audit\"\nphase = \"observe\""
        ),
    ));
    let outcome = bash(&setup.runner(), "ls").await;
    let block = outcome
        .block()
        .expect("an unapproved project's guards block");
    assert_eq!(block.blocked_by, "project-guard");
    assert!(
        block.message().contains(&format!(
            "are not approved (the user's policy is \"approve\"); review the file, then run `hookhost allow --config {}`",
            project_file.display()
        )),
        "{}",
        block.message()
    );
    assert_eq!(
        ran(&setup.project),
        "user-guard\n",
        "nothing of the project ran"
    );

    setup.approve();
    let outcome = bash(&setup.runner(), "ls").await;
    assert!(outcome.is_allowed(), "{:?}", outcome.decision);
    assert_eq!(
        ran(&setup.project),
        "user-guard\nuser-guard\nproject-guard\nobserver\n"
    );

    // A changed file needs approval again.
    setup.project.config(&allow("project-guard-v2"));
    assert!(bash(&setup.runner(), "ls").await.block().is_some());
}

#[tokio::test]
async fn sandboxed_runs_only_wasm_hooks_within_the_users_ceiling() {
    let setup = Setup::new(
        "[projects]\npolicy = \"sandboxed\"\n[projects.ceiling]\nread = [\".\"]\nwrite = [\"out\"]\nenv = [\"CI\"]\nmax_memory_mb = 32\n",
    );
    let root = setup.project.root();
    std::fs::create_dir_all(root.join("out")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::os::unix::fs::symlink("/etc", root.join("etc-link")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("src/escape")).unwrap();

    let wasm = |name: &str, grants: &str| {
        format!(
            "[[hooks]]\nname = \"{name}\"\nevent = \"PreToolUse\"\nwasm = '{}'\n{grants}\n[hooks.config]\nmode = \"allow\"\n\n",
            probe()
        )
    };
    let hostile = [
        (
            "fits",
            "read = [\"src\"]\nwrite = [\"out\"]\nenv = [\"CI\"]\nmax_memory_mb = 32",
            None,
        ),
        (
            "root",
            "read = [\"/\"]",
            Some("`read` grants /, outside the user's ceiling"),
        ),
        (
            "home",
            "read = [\"~\"]",
            Some("`read` grants ~, which does not exist in the project"),
        ),
        (
            "parent",
            "read = [\"..\"]",
            Some("`read` grants .. (which is"),
        ),
        (
            "symlink",
            "read = [\"etc-link\"]",
            Some("`read` grants etc-link (which is /etc), outside"),
        ),
        (
            "nested-symlink",
            "read = [\"src/escape\"]",
            Some("outside the user's ceiling"),
        ),
        (
            "write-outside-ceiling",
            "write = [\"src\"]",
            Some("`write` grants src"),
        ),
        (
            "secret-env",
            "env = [\"HOME\"]",
            Some("`env` passes the host variable HOME, which the user's ceiling"),
        ),
        (
            "memory",
            "max_memory_mb = 64",
            Some("`max_memory_mb` = 64 is above the user's ceiling for projects (32)"),
        ),
    ];
    for (name, grants, refused) in hostile {
        setup.project.config(&wasm(name, grants));
        let runner = setup.runner();
        let outcome = bash(&runner, "ls").await;
        match refused {
            None => assert!(outcome.is_allowed(), "{name}: {:?}", outcome.decision),
            Some(why) => {
                let message = outcome
                    .block()
                    .unwrap_or_else(|| panic!("{name} must block"))
                    .message();
                assert!(message.contains(why), "{name}: {message}");
                assert_eq!(runner.held_hooks().len(), 1);
            }
        }
    }
    // A project's command hook never runs; its guard blocks.
    setup.project.config(&allow("command-guard"));
    let message = bash(&setup.runner(), "ls").await.block().unwrap().message();
    assert!(
        message.contains(
            "is a command hook, and the user's policy runs only wasm hooks from projects"
        ),
        "{message}"
    );
    assert_eq!(ran(&setup.project), "");
}

#[test]
fn check_shows_where_each_hook_comes_from_and_allow_approves() {
    let setup = Setup::new(&format!(
        "[projects]\npolicy = \"approve\"\n{}",
        allow("mine")
    ));
    setup.project.config(&allow("theirs"));
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
            .args(args)
            .current_dir(setup.project.root())
            .env("HOOKHOST_CONFIG_DIR", setup.user.path())
            .env("HOOKHOST_DATA_DIR", setup.user.path())
            .output()
            .unwrap()
    };
    let text = |out: &std::process::Output| String::from_utf8_lossy(&out.stdout).into_owned();
    let out = run(&["check"]);
    let stdout = text(&out);
    assert!(stdout.contains("FROM"), "{stdout}");
    assert!(
        stdout.contains("HELD by the user's [projects] policy"),
        "{stdout}"
    );
    assert!(
        stdout.contains("held: #2 theirs: the project's hooks in"),
        "{stdout}"
    );

    let out = run(&["allow"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text(&out).contains("theirs (PreToolUse/guard): runs `echo theirs"),
        "{}",
        text(&out)
    );
    let out = run(&["check"]);
    assert!(!text(&out).contains("HELD"), "{}", text(&out));
    assert!(Path::new(&setup.approvals()).exists());
    let out = run(&["fire", "PreToolUse", "--input", "{\"command\":\"ls\"}"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}
