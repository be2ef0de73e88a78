//! destructive-guard's unit tests: the rules, their reasons, every agent's shell tool, the
//! matcher of its hooks.toml, and a broken config.

use super::*;

fn blocked(command: &str) -> bool {
    check(command, &Config::default()).is_some()
}

#[test]
fn blocks_destructive_commands_and_their_disguises() {
    let cases = [
        "rm -rf /",
        "RM  -RF /",
        "rm -rf -- /",
        "rm -fr /",
        "rm -r -f /",
        "rm --recursive --force /",
        "rm -rf /*",
        "rm -rf //",
        "rm -rf '/'",
        "rm -rf \"/\"",
        "sudo rm -rf /",
        "sudo -u root /bin/rm -rf /",
        "\\rm -rf /",
        "r\\m -rf /",
        "echo ok && rm -rf ~",
        "ls; rm -rf $HOME",
        "rm -rf ${HOME}",
        "rm -rf ~/",
        "rm -rf .",
        "rm -rf ./",
        "rm -rf *",
        "x=$(rm -rf /)",
        "bash -c 'rm -rf /'",
        "sh -c \"cd / && rm -rf .\"",
        "env FOO=1 rm -rf /",
        "rm -r /",
        "{ rm -rf /; }",
        "rm --no-preserve-root -rf /tmp/x",
        "git push --force",
        "git push -f origin main",
        "git push origin +main",
        "git push --force-with-lease",
        "git -C repo push -fu origin main",
        "GIT PUSH --FORCE",
        "git reset --hard origin/main",
        "git reset --hard @{u}",
        "git reset --hard upstream/dev",
        "git clean -fd",
        "git clean -xdf",
        "git clean --force",
        "kubectl delete namespace prod",
        "kubectl delete ns prod",
        "kubectl -n x delete pods --all",
        "kubectl delete namespaces/prod",
        "mkfs.ext4 /dev/sda1",
        "mkfs -t ext4 /dev/sdb",
        "dd if=/dev/zero of=/dev/sda bs=1M",
        "chmod -R 777 /",
        "sudo chmod --recursive 0777 /",
        "psql -c 'DROP TABLE users'",
        "mysql -e \"drop   table accounts\"",
        "echo 'DROP DATABASE prod' | psql",
    ];
    for command in cases {
        assert!(blocked(command), "not blocked: {command}");
    }
}

#[test]
fn allows_everyday_commands() {
    let cases = [
        "cargo test",
        "rm -rf target",
        "rm -rf ./build",
        "rm file.txt",
        "rm -f /tmp/x.lock",
        "ls -la /",
        "git push",
        "git push origin main",
        "git push --set-upstream origin feature",
        "git reset --hard HEAD~1",
        "git reset --soft origin/main",
        "git clean -n",
        "git clean -nd",
        "kubectl get ns",
        "kubectl delete pod web-1",
        "dd if=/dev/zero of=disk.img bs=1M count=10",
        "chmod -R 755 src",
        "chmod 777 /tmp/x",
        "echo rm",
        "grep -r 'drop' src",
        "mkdir -p a/b",
    ];
    for command in cases {
        assert!(
            !blocked(command),
            "blocked: {command} ({:?})",
            check(command, &Config::default())
        );
    }
}

#[test]
fn reasons_name_what_was_found() {
    let reason = |command: &str| check(command, &Config::default()).unwrap();
    assert_eq!(reason("rm -rf -- /"), "recursive delete of / (rm -r)");
    assert_eq!(
        reason("git push -f"),
        "force push rewrites shared history (git push --force)"
    );
    assert_eq!(
        reason("kubectl delete ns x"),
        "kubectl delete namespace deletes everything in it"
    );
}

#[test]
fn config_adds_patterns_after_normalisation() {
    let config = Config {
        deny: vec!["Terraform   Destroy".to_string()],
    };
    assert_eq!(
        check("TERRAFORM destroy -auto-approve", &config).as_deref(),
        Some("command matches the deny pattern \"terraform destroy\"")
    );
    assert!(check("terraform plan", &config).is_none());
}

/// Each agent's shell tool, as that agent sends it: one policy for all.
#[test]
fn every_agents_shell_tool_is_guarded_and_its_deny_patterns_apply() {
    hook_sdk::testing::reset();
    hook_sdk::testing::set_config(serde_json::json!({"deny": ["terraform destroy"]}));
    #[rustfmt::skip]
    let shells = [
        ("claude", "Bash", serde_json::json!({"command": "COMMAND", "description": "d"})),
        ("claude", "PowerShell", serde_json::json!({"command": "COMMAND"})),
        ("copilot", "bash", serde_json::json!({"command": "COMMAND", "mode": "sync"})),
        ("gemini", "run_shell_command", serde_json::json!({"command": "COMMAND", "dir_path": "."})),
        ("codex", "Bash", serde_json::json!({"command": "COMMAND"})),
        ("codex, an argv", "shell", serde_json::json!({"command": ["bash", "-lc", "COMMAND"]})),
        ("cursor", "Shell", serde_json::json!({"command": "COMMAND", "working_directory": "/w"})),
    ];
    for (agent, tool, input) in shells {
        let with = |command: &str| {
            let text = input.to_string().replace("COMMAND", command);
            ToolCall::new(tool, serde_json::from_str(&text).unwrap())
        };
        assert_eq!(
            DestructiveGuard::guard(&with("rm -rf /")),
            Guard::block("recursive delete of / (rm -r)"),
            "{agent}"
        );
        assert!(
            matches!(DestructiveGuard::guard(&with("terraform destroy")), Guard::Block(r) if r.contains("deny pattern")),
            "{agent}"
        );
        assert_eq!(
            DestructiveGuard::guard(&with("cargo test")),
            Guard::Allow,
            "{agent}"
        );
    }
    // Cursor's shell gate, an event without a tool: its command is guarded too.
    let gate = Event::new("beforeShellExecution").with_field("command", "git push --force");
    assert!(matches!(
        DestructiveGuard::handle(&gate).answer,
        hook_sdk::Answer::Block(_)
    ));
    let after = Event::new("afterShellExecution").with_field("command", "git push --force");
    assert_eq!(DestructiveGuard::handle(&after), Verdict::allow());
}

/// hooks.toml (and the README) match the shell kind, so that hookhost calls the guard for
/// every agent's shell tool (the shell rows of hookhost-tools' table, which `@shell` reads).
#[test]
fn the_matcher_names_every_agents_shell_tool() {
    for (file, text) in [
        ("hooks.toml", include_str!("../hooks.toml")),
        ("README.md", include_str!("../README.md")),
    ] {
        let line = text
            .lines()
            .find(|line| line.starts_with("matcher = "))
            .unwrap_or_else(|| panic!("{file}: no matcher"));
        assert_eq!(line, "matcher = \"@shell\"", "{file}");
    }
    // ... and the kind covers each agent's shell, by the name its tool events carry.
    for name in [
        "Bash",
        "bash",
        "run_shell_command",
        "shell",
        "exec_command",
        "Shell",
    ] {
        assert_eq!(
            hookhost_tools::kind(name),
            hook_sdk::ToolKind::Shell,
            "{name}"
        );
    }
}

#[test]
fn the_hook_reads_shell_calls_only_and_fails_closed_on_bad_config() {
    hook_sdk::testing::reset();
    assert_eq!(
        DestructiveGuard::guard(&ToolCall::read_file("/")),
        Guard::Allow
    );
    assert!(matches!(
        DestructiveGuard::guard(&ToolCall::bash_command("rm -rf /")),
        Guard::Block(_)
    ));
    hook_sdk::testing::set_config(serde_json::json!({"deny": "not a list"}));
    let Guard::Block(reason) = DestructiveGuard::guard(&ToolCall::bash_command("ls")) else {
        panic!()
    };
    assert!(
        reason.starts_with("destructive-guard is misconfigured"),
        "{reason}"
    );
}
