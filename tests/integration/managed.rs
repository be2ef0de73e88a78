//! The organisation's managed layer (`/etc/hookhost/hooks.toml`, or `$HOOKHOST_MANAGED_CONFIG`
//! where the system file does not exist): through the real binary, as an agent runs it, with a
//! user's and a project's layer beside it. The tests name their managed file with the variable,
//! so they need a machine without `/etc/hookhost/hooks.toml` (where one exists, it wins, by
//! design: they say so and check nothing).

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hookhost::config::{MANAGED_CONFIG_ENV, MANAGED_CONFIG_PATH};
use serde_json::Value;

use crate::support::{Project, agent_hook_command, claude_bash_event, hook, with_stdin};

/// The organisation's hooks.toml, in a directory only its owner can write, mode 644.
struct Org {
    dir: tempfile::TempDir,
}

impl Org {
    fn new(toml: &str) -> Org {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let org = Org { dir };
        org.write(toml);
        org
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join("hooks.toml")
    }

    fn write(&self, toml: &str) {
        std::fs::write(self.file(), toml).unwrap();
        self.chmod(0o644);
    }

    fn chmod(&self, mode: u32) {
        std::fs::set_permissions(self.file(), std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

/// False, with a note, on a machine that has a system managed file: it wins over the variable
/// these tests use.
fn machine_has_no_managed_file() -> bool {
    let present = std::fs::symlink_metadata(MANAGED_CONFIG_PATH).is_ok();
    if present {
        eprintln!(
            "this machine has {MANAGED_CONFIG_PATH}, which wins over {MANAGED_CONFIG_ENV}: \
             nothing checked here"
        );
    }
    !present
}

/// A guard that blocks `rm -rf /` and notes that it ran.
fn org_guard() -> String {
    hook(
        "PreToolUse",
        r#"input=$(cat); echo org-guard >> ran.log; case "$input" in *'rm -rf /'*) echo '{"action":"block","reason":"the organisation forbids rm -rf /"}';; *) echo '{"action":"allow"}';; esac"#,
        "name = \"org-guard\"\nmatch_tool = \"Bash\"",
    )
}

/// A guard that approves everything and notes that it ran.
fn approving(name: &str) -> String {
    hook(
        "PreToolUse",
        &format!("echo {name} >> ran.log; echo '{{\"action\":\"approve\"}}'"),
        &format!("name = \"{name}\""),
    )
}

/// The project's directory with a user's layer (in `.no-user-config`, where the helpers of
/// `support` point `HOOKHOST_CONFIG_DIR`) and a project's layer.
fn project(user_toml: &str, project_toml: &str) -> Project {
    let project = Project::new();
    let user = project.path(".no-user-config");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(user.join("hooks.toml"), user_toml).unwrap();
    project.config(project_toml);
    project
}

/// `hookhost agent-hook --format claude` of a Bash `command`, under `org` (none: the variable
/// removed).
fn agent_hook(project: &Project, org: Option<&Org>, command: &str) -> Output {
    let mut agent = agent_hook_command(project);
    match org {
        Some(org) => agent.env(MANAGED_CONFIG_ENV, org.file()),
        None => agent.env_remove(MANAGED_CONFIG_ENV),
    };
    with_stdin(&mut agent, claude_bash_event(project, "s1", command))
        .wait_with_output()
        .unwrap()
}

/// `hookhost ARGS` in `project`, hermetic like [`agent_hook_command`], under `org`.
fn hookhost(project: &Project, org: Option<&Org>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
    crate::support::hermetic(&mut command, project).args(args);
    match org {
        Some(org) => command.env(MANAGED_CONFIG_ENV, org.file()),
        None => command.env_remove(MANAGED_CONFIG_ENV),
    };
    command.output().unwrap()
}

fn fire_bash(project: &Project, org: Option<&Org>, command: &str) -> Output {
    let input = serde_json::json!({ "command": command }).to_string();
    hookhost(
        project,
        org,
        &[
            "fire",
            "PreToolUse",
            "--tool",
            "Bash",
            "--input",
            &input,
            "--json",
        ],
    )
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(output), stderr(output)))
}

fn ran(project: &Project) -> String {
    std::fs::read_to_string(project.path("ran.log")).unwrap_or_default()
}

/// What Claude Code reads of a PreToolUse answer: the decision and its reason (nothing, when
/// the call is allowed without a word).
fn claude_decision(output: &Output) -> (String, String) {
    if output.stdout.trim_ascii().is_empty() {
        return (String::new(), String::new());
    }
    let answer = json(output);
    let specific = &answer["hookSpecificOutput"];
    (
        specific["permissionDecision"]
            .as_str()
            .unwrap_or("")
            .to_string(),
        specific["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_string(),
    )
}

#[test]
fn the_organisations_guard_runs_first_and_blocks_whatever_the_user_and_project_approve() {
    if !machine_has_no_managed_file() {
        return;
    }
    let org = Org::new(&org_guard());
    let project = project(&approving("user-guard"), &approving("project-guard"));

    let out = agent_hook(&project, Some(&org), "rm -rf /");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (decision, reason) = claude_decision(&out);
    assert_eq!(decision, "deny");
    assert_eq!(
        reason,
        "blocked by org-guard: the organisation forbids rm -rf /"
    );
    assert_eq!(ran(&project), "org-guard\n", "a block stops the guards");

    let out = fire_bash(&project, Some(&org), "rm -rf /");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let fired = json(&out);
    assert_eq!(fired["decision"], "block");
    assert_eq!(fired["hooks"][0]["name"], "org-guard");

    // An allowed call runs every layer, the organisation's first.
    std::fs::remove_file(project.path("ran.log")).unwrap();
    let out = fire_bash(&project, Some(&org), "ls");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(ran(&project), "org-guard\nuser-guard\nproject-guard\n");
}

#[test]
fn managed_only_skips_every_other_layer_and_says_so_everywhere() {
    if !machine_has_no_managed_file() {
        return;
    }
    let log = tempfile::tempdir().unwrap();
    let org_log = log.path().join("org.jsonl");
    let user_log = log.path().join("user.jsonl");
    let org = Org::new(&format!(
        "managed_only = true\n[log]\npath = '{}'\n\n{}",
        org_log.display(),
        org_guard()
    ));
    // A project guard that would block everything: skipped, it must not block.
    let blocker = hook(
        "PreToolUse",
        "echo project-blocker >> ran.log; echo '{\"action\":\"block\",\"reason\":\"no\"}'",
        "name = \"project-blocker\"",
    );
    let project = project(
        &format!(
            "[log]\npath = '{}'\n\n{}",
            user_log.display(),
            approving("user-guard")
        ),
        &blocker,
    );

    let out = fire_bash(&project, Some(&org), "ls");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let fired = json(&out);
    assert_eq!(fired["decision"], "allow");
    let hooks = fired["hooks"].as_array().unwrap();
    let verdicts: Vec<(&str, &str, &str)> = hooks
        .iter()
        .map(|h| {
            (
                h["name"].as_str().unwrap(),
                h["kind"].as_str().unwrap(),
                h["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("org-guard", "command", "allow"),
            ("user-guard", "skipped", "skipped"),
            ("project-blocker", "skipped", "skipped"),
        ]
    );
    let reason = hooks[2]["reason"].as_str().unwrap();
    assert!(
        reason.contains("sets managed_only = true, so only its hooks run"),
        "{reason}"
    );
    assert_eq!(ran(&project), "org-guard\n", "nothing skipped ran");

    // Agents see it on stderr; the organisation's log records it, and the user's [log] is
    // overridden (one log records).
    let out = agent_hook(&project, Some(&org), "ls");
    let (decision, _) = claude_decision(&out);
    assert_ne!(decision, "deny", "{}", stdout(&out));
    assert!(
        stderr(&out).contains("hookhost: hook project-blocker skipped: the organisation's"),
        "{}",
        stderr(&out)
    );
    let records: Vec<Value> = std::fs::read_to_string(&org_log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records.len(), 2, "fire and agent-hook");
    let record_hooks = records[1]["hooks"].as_array().unwrap();
    assert_eq!(record_hooks[0]["layer"], "managed");
    assert_eq!(record_hooks[2]["layer"], "project");
    assert_eq!(record_hooks[2]["verdict"], "skipped");
    assert!(!user_log.exists(), "the organisation's [log] wins");

    let out = hookhost(&project, Some(&org), &["check"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(
        text.contains("skipped: #3 project-blocker: the organisation's managed configuration"),
        "{text}"
    );
    assert!(
        text.contains("SKIPPED by the organisation's managed_only"),
        "{text}"
    );
    assert!(
        text.contains("2 hook(s) of the other layers are skipped"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "the organisation's [log] ({}) overrides the user file's",
            org.file().display()
        )),
        "{text}"
    );
}

#[test]
fn check_shows_the_managed_layer_first_and_what_it_overrides() {
    if !machine_has_no_managed_file() {
        return;
    }
    let org = Org::new(&format!(
        "[projects]\npolicy = \"sandboxed\"\n\n{}",
        org_guard()
    ));
    let project = project(
        &format!(
            "[projects]\npolicy = \"allow\"\n\n{}",
            approving("user-guard")
        ),
        // Named like the organisation's guard: both run, the organisation's first.
        &approving("org-guard"),
    );
    let out = hookhost(&project, Some(&org), &["check"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "managed layer: {} (named by $HOOKHOST_MANAGED_CONFIG, as no system file exists; \
             owner uid {}, mode 644: nobody else can write it): the organisation's hooks run \
             first, and no user or project can disable them",
            org.file().display(),
            std::fs::metadata(org.file())
                .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
                .unwrap()
        )
    );
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with('#')).collect();
    assert!(
        rows[1].starts_with("#1  org-guard") && rows[1].ends_with("managed"),
        "{text}"
    );
    assert!(
        rows[2].contains("user-guard") && rows[2].ends_with("user"),
        "{text}"
    );
    assert!(
        rows[3].contains("HELD by the organisation's [projects] policy"),
        "the organisation's sandboxed policy holds, not the user's allow: {text}"
    );
    assert!(
        text.contains(&format!(
            "managed: the organisation's [projects] ({}) overrides the user file's",
            org.file().display()
        )),
        "{text}"
    );
    assert!(
        text.contains(
            "warning: org-guard of the project layer has the name of a hook of the \
             organisation's managed layer: both run, the organisation's first"
        ),
        "{text}"
    );
    let out = fire_bash(&project, Some(&org), "ls");
    let held = &json(&out)["hooks"][2];
    assert!(
        held["failure"]
            .as_str()
            .unwrap()
            .contains("the organisation's policy runs only wasm hooks"),
        "{held}"
    );
}

#[test]
fn a_managed_file_others_can_write_is_refused_and_every_tool_call_blocks() {
    if !machine_has_no_managed_file() {
        return;
    }
    let org = Org::new(&org_guard());
    let project = project(&approving("user-guard"), &approving("project-guard"));
    let fix = format!(
        "run `chown root:root {0}; chmod 644 {0}`",
        org.file().display()
    );
    for (mode, wrong) in [
        (0o664, "its mode is 664, so its group can write it"),
        (0o646, "its mode is 646, so everyone can write it"),
    ] {
        org.chmod(mode);
        let out = agent_hook(&project, Some(&org), "ls");
        let (decision, reason) = claude_decision(&out);
        assert_eq!(decision, "deny", "{mode:o}");
        assert!(
            reason.contains(&org.file().display().to_string()),
            "{reason}"
        );
        assert!(reason.contains(wrong), "{reason}");
        assert!(reason.contains(&fix), "{reason}");
        assert_eq!(
            ran(&project),
            "",
            "nothing runs under a refused managed file"
        );

        let out = fire_bash(&project, Some(&org), "ls");
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr(&out).contains(wrong), "{}", stderr(&out));
        let out = hookhost(&project, Some(&org), &["check"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr(&out).contains(&fix), "{}", stderr(&out));
    }

    // Whoever may write its directory may replace it.
    org.chmod(0o644);
    std::fs::set_permissions(org.dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let (decision, reason) = claude_decision(&agent_hook(&project, Some(&org), "ls"));
    assert_eq!(decision, "deny");
    assert!(
        reason.contains(&format!(
            "its directory {} is owned by uid",
            org.dir.path().display()
        )) && reason.contains("with mode 777"),
        "{reason}"
    );

    // A variable naming a file that does not exist is not "no organisation's layer".
    std::fs::set_permissions(org.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_file(org.file()).unwrap();
    let (decision, reason) = claude_decision(&agent_hook(&project, Some(&org), "ls"));
    assert_eq!(decision, "deny", "{reason}");
}

#[test]
fn a_managed_file_owned_by_someone_else_is_refused() {
    if !machine_has_no_managed_file() {
        return;
    }
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    assert_eq!(
        euid, 0,
        "only root can give a file away to another user, which this test needs (CI runs the \
         tests as root): running as uid {euid}"
    );
    let org = Org::new(&org_guard());
    let project = project(&approving("user-guard"), &approving("project-guard"));
    let nobody = 65534;
    std::os::unix::fs::chown(org.file(), Some(nobody), Some(nobody)).unwrap();
    let (decision, reason) = claude_decision(&agent_hook(&project, Some(&org), "ls"));
    assert_eq!(decision, "deny");
    assert!(
        reason.contains("it is owned by uid 65534, and must be owned by root or you (uid 0)"),
        "{reason}"
    );
    assert!(reason.contains("chown root:root"), "{reason}");
}

#[test]
fn nobody_else_can_disable_the_managed_layer_or_set_managed_only() {
    if !machine_has_no_managed_file() {
        return;
    }
    let org = Org::new(&org_guard());
    let project = project(&approving("user-guard"), &approving("project-guard"));
    let local = project.path(".forgeflare/hooks.local.toml");

    std::fs::write(&local, "disable = [\"org-guard\"]\n").unwrap();
    let out = fire_bash(&project, Some(&org), "rm -rf /");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "{}:1:1: `disable` names \"org-guard\", a hook of the organisation's managed \
             configuration ({}): the organisation's layer cannot be disabled by a project or a user",
            local.display(),
            org.file().display()
        )),
        "{}",
        stderr(&out)
    );
    let (decision, reason) = claude_decision(&agent_hook(&project, Some(&org), "rm -rf /"));
    assert_eq!(decision, "deny");
    assert!(
        reason.contains("the organisation's layer cannot be disabled"),
        "{reason}"
    );
    // Even where a project hook has the same name.
    project.config(&format!(
        "{}{}",
        approving("project-guard"),
        approving("org-guard")
    ));
    let out = fire_bash(&project, Some(&org), "ls");
    assert_eq!(out.status.code(), Some(1));
    std::fs::remove_file(&local).unwrap();

    let project_file = project.config(&format!(
        "managed_only = false\n{}",
        approving("project-guard")
    ));
    let out = fire_bash(&project, Some(&org), "ls");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "{}:1:1: `managed_only` belongs in the organisation's managed configuration ({}): \
             the organisation's layer cannot be switched on or off by a user's or a project's \
             file; remove it",
            project_file.display(),
            org.file().display()
        )),
        "{}",
        stderr(&out)
    );
    // The user's own file cannot either.
    project.config(&approving("project-guard"));
    let user_file = project.path(".no-user-config/hooks.toml");
    std::fs::write(&user_file, "managed_only = true\n").unwrap();
    let (decision, reason) = claude_decision(&agent_hook(&project, Some(&org), "ls"));
    assert_eq!(decision, "deny");
    assert!(
        reason.contains("the organisation's layer cannot be switched on or off"),
        "{reason}"
    );
}

#[test]
fn without_a_managed_file_nothing_changes() {
    if !machine_has_no_managed_file() {
        return;
    }
    let project = project(&approving("user-guard"), &approving("project-guard"));
    let out = hookhost(&project, None, &["check"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(!text.contains("managed"), "{text}");
    assert!(text.starts_with("#   NAME"), "{text}");

    let out = fire_bash(&project, None, "rm -rf /");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["decision"], "approve");
    assert_eq!(ran(&project), "user-guard\nproject-guard\n");

    // A managed_only in a user's or project's file is refused on every machine: it has no
    // meaning outside the organisation's file.
    project.config(&format!(
        "managed_only = true\n{}",
        approving("project-guard")
    ));
    let out = fire_bash(&project, None, "ls");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "`managed_only` belongs in the organisation's managed configuration ({MANAGED_CONFIG_PATH})"
        )),
        "{}",
        stderr(&out)
    );

    // The embedder's facade (forgeflare's) loads the one file, as before (in this process,
    // unless whoever runs the tests set the variable).
    if std::env::var_os(MANAGED_CONFIG_ENV).is_some() {
        return;
    }
    project.config(&approving("project-guard"));
    let runner = hookhost::forgeflare::HookRunner::load(
        &project.path(".forgeflare/hooks.toml").display().to_string(),
        &project.root().display().to_string(),
    );
    let names: Vec<String> = runner.hooks().into_iter().map(|h| h.command).collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

/// The facade of an embedder (forgeflare's) under a managed file: in a process of its own, the
/// variable set only there.
#[test]
fn forgeflare_cannot_get_around_the_managed_layer() {
    if !machine_has_no_managed_file() {
        return;
    }
    let org = Org::new(&org_guard());
    let project = project("", &approving("project-guard"));
    let out = crate::support::child_test("managed::forgeflare_child")
        .env(MANAGED_CONFIG_ENV, org.file())
        .env("HOOKHOST_TEST_MANAGED_PROJECT", project.root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("forgeflare child ran"),
        "{}",
        stdout(&out)
    );
}

#[ignore = "a child process the test after it starts (support::child_test)"]
#[tokio::test]
async fn forgeflare_child() {
    let Some(root) = std::env::var_os("HOOKHOST_TEST_MANAGED_PROJECT") else {
        return;
    };
    let root = Path::new(&root);
    let runner = hookhost::forgeflare::HookRunner::load(
        &root.join(".forgeflare/hooks.toml").display().to_string(),
        &root.display().to_string(),
    );
    let input = serde_json::json!({"command": "rm -rf /"});
    match runner.run_pre_tool_use("Bash", &input, 1).await {
        hookhost::forgeflare::PreToolResult::Block { blocked_by, .. } => {
            assert_eq!(blocked_by, "org-guard")
        }
        other => panic!("{other:?}"),
    }
    println!("forgeflare child ran");
}
