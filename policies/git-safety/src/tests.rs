//! Pushes and commits against protected branches, skipped hooks, discarded work, options, and
//! the current branch read from `.git/HEAD`.

use hook_sdk::{Answer, Event, Hook, ToolCall, testing};
use serde_json::json;

use crate::{Action, GitSafety, GitSafetyPolicy, current_branch};

fn check(command: &str, current: Option<&str>) -> Option<(Action, String)> {
    GitSafety::default().check(command, current)
}

/// A command, the current branch, and what must come out.
type Case<'a> = (&'a str, Option<&'a str>, Option<(Action, &'a str)>);

#[test]
fn protected_branches_refuse_force_and_direct_work() {
    let cases: &[Case] = &[
        (
            "git push --force origin main",
            None,
            Some((Action::Block, "force push to the protected branch main")),
        ),
        (
            "git push -f origin HEAD:release/1.2",
            None,
            Some((
                Action::Block,
                "force push to the protected branch release/1.2",
            )),
        ),
        (
            "git push origin +master",
            None,
            Some((Action::Block, "force push to the protected branch master")),
        ),
        (
            "git push --force-with-lease origin main",
            None,
            Some((
                Action::Block,
                "force push (with lease) to the protected branch main",
            )),
        ),
        (
            "git push --force",
            Some("main"),
            Some((Action::Block, "force push to the protected branch main")),
        ),
        (
            "git push --force",
            None,
            Some((
                Action::Block,
                "git push --force without a branch: the policy cannot see the current branch (grant it read access to the project, or name the branch)",
            )),
        ),
        (
            "git push origin main",
            None,
            Some((
                Action::Block,
                "pushes straight to the protected branch main",
            )),
        ),
        (
            "git push",
            Some("master"),
            Some((
                Action::Block,
                "pushes straight to the protected branch master",
            )),
        ),
        (
            "git commit -m 'fix'",
            Some("main"),
            Some((
                Action::Block,
                "commits straight to the protected branch main",
            )),
        ),
        ("git push --force origin feature/x", None, None),
        ("git push -f", Some("feature/x"), None),
        ("git push origin feature/x", None, None),
        ("git push", None, None),
        ("git commit -m 'fix'", Some("feature/x"), None),
        ("git commit -m 'fix'", None, None),
        ("echo 'git push --force origin main'", None, None),
    ];
    for (command, current, expected) in cases {
        let got = check(command, *current);
        assert_eq!(
            got.as_ref().map(|(a, r)| (*a, r.as_str())),
            *expected,
            "{command} on {current:?}"
        );
    }
}

#[test]
fn skipped_hooks_and_discarded_work() {
    let cases: &[(&str, Option<(Action, &str)>)] = &[
        (
            "git commit --no-verify -m x",
            Some((
                Action::Block,
                "git commit --no-verify skips the repository's hooks",
            )),
        ),
        (
            "git commit -nm x",
            Some((
                Action::Block,
                "git commit --no-verify skips the repository's hooks",
            )),
        ),
        (
            "git push --no-verify origin f",
            Some((
                Action::Block,
                "git push --no-verify skips the repository's hooks",
            )),
        ),
        (
            "git -c core.hooksPath=/dev/null commit -m x",
            Some((
                Action::Block,
                "git commit --no-verify skips the repository's hooks",
            )),
        ),
        (
            "git reset --hard",
            Some((
                Action::Warn,
                "git reset --hard discards uncommitted work (the policy cannot see whether there is any)",
            )),
        ),
        (
            "git clean -fdx",
            Some((Action::Warn, "git clean -f deletes untracked files")),
        ),
        (
            "git checkout -- .",
            Some((
                Action::Warn,
                "git checkout . discards every uncommitted change",
            )),
        ),
        (
            "git restore .",
            Some((
                Action::Warn,
                "git restore . discards every uncommitted change",
            )),
        ),
        ("git restore --staged .", None),
        ("git clean -n", None),
        ("git checkout -- src/a.rs", None),
        ("git reset --soft HEAD~1", None),
    ];
    for (command, expected) in cases {
        let got = check(command, Some("feature/x"));
        assert_eq!(
            got.as_ref().map(|(a, r)| (*a, r.as_str())),
            *expected,
            "{command}"
        );
    }
}

#[test]
fn options_change_branches_and_answers() {
    let policy = GitSafety::from_config(r#"{"protected": ["prod", "v*"], "allow_force_with_lease": true, "discard": "block", "no_verify": "warn", "direct_to_protected": "ask"}"#).unwrap();
    assert_eq!(
        policy.check("git push --force-with-lease origin prod", None),
        None
    );
    assert_eq!(
        policy.check("git push -f origin v2", None).map(|f| f.0),
        Some(Action::Block)
    );
    assert_eq!(
        policy.check("git push origin prod", None).map(|f| f.0),
        Some(Action::Ask)
    );
    assert_eq!(policy.check("git push origin main", None), None);
    assert_eq!(
        policy.check("git reset --hard", None).map(|f| f.0),
        Some(Action::Block)
    );
    assert_eq!(
        policy.check("git commit -n -m x", None).map(|f| f.0),
        Some(Action::Warn)
    );
}

#[test]
fn the_current_branch_comes_from_git_head() {
    let dir = std::env::temp_dir().join(format!("git-safety-{}", std::process::id()));
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/release/2.0\n").unwrap();
    assert_eq!(
        current_branch(dir.to_str().unwrap()).as_deref(),
        Some("release/2.0")
    );
    let worktree = dir.join("wt");
    std::fs::create_dir_all(&worktree).unwrap();
    std::fs::write(
        worktree.join(".git"),
        format!("gitdir: {}\n", dir.join(".git").display()),
    )
    .unwrap();
    assert_eq!(
        current_branch(worktree.to_str().unwrap()).as_deref(),
        Some("release/2.0")
    );
    std::fs::write(
        dir.join(".git/HEAD"),
        "3f2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a\n",
    )
    .unwrap();
    assert_eq!(current_branch(dir.to_str().unwrap()), None);
    assert_eq!(current_branch("/nonexistent"), None);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_component_answers_and_fails_closed() {
    testing::reset();
    let push =
        Event::new("PreToolUse").with_tool(&ToolCall::bash_command("git push -f origin main"));
    assert_eq!(
        GitSafetyPolicy::handle(&push).answer,
        Answer::Block("force push to the protected branch main".into())
    );
    let reset = Event::new("PreToolUse").with_tool(&ToolCall::new(
        "run_shell_command",
        json!({"command": "git reset --hard"}),
    ));
    assert!(matches!(
        GitSafetyPolicy::handle(&reset).answer,
        Answer::Warn(_)
    ));
    for (config, message) in [
        (
            json!({"protect": ["main"]}),
            "unknown option `protect` (did you mean `protected`?)",
        ),
        (
            json!({"discard": "warning"}),
            "option `discard` is `warning` (did you mean `warn`?)",
        ),
        (
            json!({"allow_force_with_lease": "yes"}),
            "option `allow_force_with_lease` must be true or false",
        ),
    ] {
        testing::set_config(config);
        let Answer::Block(reason) = GitSafetyPolicy::handle(&push).answer else {
            panic!("{message}")
        };
        assert!(reason.contains(message), "{reason}");
    }
}
