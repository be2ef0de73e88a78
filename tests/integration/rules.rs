//! `[[rules]]` in hooks.toml, through the real binary: a deny rule written in Claude Code's
//! names blocks Copilot CLI's `bash` and Gemini CLI's `run_shell_command` (`agent-hook`), and
//! the decision log records the rule (kind `rule`, where it was written); an allow rule does
//! not override a guard's block; a rule that does not parse is named with its column by
//! `hookhost check`, which lists the rules that load; `hookhost test` names rules with `by`.

use serde_json::Value;

use crate::agents::{agent_hook, hookhost};
use crate::recorded::{CLAUDE_PRE, COPILOT_PRE, GEMINI_BEFORE_TOOL};
use crate::support::{Project, hook};

const FORCE_PUSH: &str = "[log]\npath = \"decisions.jsonl\"\n\n[[rules]]\ndeny = [\"Bash(git push --force:*)\"]\nreason = \"force pushes rewrite shared history\"\n";

#[test]
fn a_deny_rule_blocks_copilots_bash_and_geminis_shell_and_is_recorded() {
    let project = Project::new();
    project.config(FORCE_PUSH);
    let expected = "blocked by rule: Bash(git push --force:*): force pushes rewrite shared history";
    #[rustfmt::skip]
    let cases: [(&str, Option<&str>, &str, &str); 2] = [
        ("copilot", Some("preToolUse"), COPILOT_PRE, "rm -rf dist"),
        ("gemini", None, GEMINI_BEFORE_TOOL, "npm test"),
    ];
    for (format, event, recorded, command) in cases {
        let stdin = recorded.replace(command, "npm test && git push --force origin main");
        let reply = agent_hook(&project, format, event, &stdin);
        assert_eq!(reply.code, 0, "{format}: stderr: {}", reply.stderr);
        let json = reply.json();
        let decision = match format {
            "copilot" => &json["permissionDecision"],
            _ => &json["decision"],
        };
        assert_eq!(decision, "deny", "{format}: {json}");
        assert!(json.to_string().contains(expected), "{format}: {json}");
        // The same line without the force push: no rule holds, the call goes on.
        let stdin = recorded.replace(command, "git push origin main");
        let reply = agent_hook(&project, format, event, &stdin);
        assert!(
            !reply.stdout.contains("deny"),
            "{format}: {} {}",
            reply.stdout,
            reply.stderr
        );
    }
    let log = project.read(".forgeflare/decisions.jsonl");
    let records: Vec<Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records.len(), 2, "{log}");
    for record in &records {
        assert_eq!(record["decision"], "block", "{record}");
        assert_eq!(record["decided_by"], "rule: Bash(git push --force:*)");
        let hook = &record["hooks"][0];
        assert_eq!(hook["kind"], "rule", "{record}");
        assert_eq!(hook["name"], "rule: Bash(git push --force:*)");
        assert_eq!(hook["layer"], "project");
        assert!(
            hook["source"]
                .as_str()
                .is_some_and(|source| source.ends_with(".forgeflare/hooks.toml:5:10")),
            "{record}"
        );
    }
}

#[test]
fn an_allow_rule_does_not_override_a_guards_block() {
    let project = Project::new();
    project.config(&format!(
        "[[rules]]\nallow = [\"Bash(npm test:*)\"]\n\n{}",
        hook(
            "PreToolUse",
            r#"cat > /dev/null; echo '{"action":"block","reason":"no tests on Fridays"}'"#,
            "name = \"friday\""
        )
    ));
    let reply = agent_hook(&project, "claude", None, CLAUDE_PRE);
    let json = reply.json();
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecision"], "deny",
        "{json} {}",
        reply.stderr
    );
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecisionReason"],
        "blocked by friday: no tests on Fridays"
    );
    // Without the guard, the allow rule approves the call: Claude Code runs it unasked.
    project.config("[[rules]]\nallow = [\"Bash(npm test:*)\"]\n");
    let json = agent_hook(&project, "claude", None, CLAUDE_PRE).json();
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecision"], "allow",
        "{json}"
    );
}

#[test]
fn a_bad_rule_is_named_with_its_column_and_check_lists_the_rules() {
    let project = Project::new();
    project.config(
        "[[rules]]\ndeny = [\"Bash(rm -rf:*)\", \"Webfetch(domain:evil.example)\"]\nreason = \"no\"\n",
    );
    let out = hookhost(&project, &["check"], "");
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains(
            ".forgeflare/hooks.toml:2:28: rule \"Webfetch(domain:evil.example)\": unknown tool `Webfetch`"
        ) && out
            .stderr
            .contains("did you mean `WebFetch(domain:evil.example)`?"),
        "{}",
        out.stderr
    );
    // The file does not load, so the guards fail closed: the agent's call is refused.
    let json = agent_hook(&project, "claude", None, CLAUDE_PRE).json();
    assert_eq!(json["hookSpecificOutput"]["permissionDecision"], "deny");

    project.config(
        "[[rules]]\ndeny = [\"Bash(rm -rf:*)\"]\nreason = \"no\"\n\n[[rules]]\nask = [\"WebFetch\"]\nreason = \"fetches need a person\"\nmode = \"monitor\"\n",
    );
    let out = hookhost(&project, &["check"], "");
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    for line in [
        "rule: Bash(rm -rf:*)  deny",
        "rule: WebFetch        ask     MONITOR: reported, not enforced",
        ".forgeflare/hooks.toml:2:10 (project)",
        "0 hooks (0 enabled), 2 rules, all valid",
    ] {
        assert!(out.stdout.contains(line), "{line}\n{}", out.stdout);
    }
}

#[test]
fn hookhost_test_names_a_rule_with_by() {
    let project = Project::new();
    project.config(FORCE_PUSH);
    std::fs::write(
        project.path(".forgeflare/hooks.test.toml"),
        r#"[[cases]]
name = "a force push is denied by a rule"
event = "PreToolUse"
tool = "Bash"
input = { command = "npm test && git push --force origin main" }
expect = { decision = "block", by = "rule: Bash(git push --force:*)", reason = "rewrite shared history" }

[[cases]]
name = "the same rule holds for Gemini CLI's shell"
agent = "gemini"
event = "BeforeTool"
tool = "run_shell_command"
input = { command = "git push --force" }
expect = { decision = "block", by = "rule: Bash(git push --force:*)" }

[[cases]]
name = "a plain push does not reach the rule"
event = "PreToolUse"
tool = "Bash"
input = { command = "git push origin main" }
expect = { decision = "allow", did_not_run = ["rule: Bash(git push --force:*)"] }
"#,
    )
    .unwrap();
    let out = hookhost(&project, &["test", ".forgeflare/hooks.test.toml"], "");
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("3 passed"), "{}", out.stdout);
}

#[test]
fn a_rewrite_does_not_slip_past_a_deny_rule_and_a_monitored_rule_only_reports() {
    let project = Project::new();
    project.config(&format!(
        "{FORCE_PUSH}\n{}",
        hook(
            "PreToolUse",
            r#"cat > /dev/null; echo '{"action":"approve","updated_input":{"command":"git push --force origin main"}}'"#,
            "name = \"rewriter\""
        )
    ));
    // `npm test` holds for no rule; the guard's rewrite does, and the rules are asked again.
    let json = agent_hook(&project, "claude", None, CLAUDE_PRE).json();
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecision"], "deny",
        "{json}"
    );
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecisionReason"],
        "blocked by rule: Bash(git push --force:*): force pushes rewrite shared history"
    );

    project.config(&FORCE_PUSH.replace("reason =", "mode = \"monitor\"\nreason ="));
    let stdin = CLAUDE_PRE.replace("npm test", "git push --force");
    let reply = agent_hook(&project, "claude", None, &stdin);
    assert!(!reply.stdout.contains("deny"), "{}", reply.stdout);
    let log = project.read(".forgeflare/decisions.jsonl");
    let record: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(record["decision"], "allow", "{record}");
    assert_eq!(
        record["monitored"][0]["by"],
        "rule: Bash(git push --force:*)"
    );
    assert_eq!(record["monitored"][0]["would"], "block");
}

#[test]
fn a_projects_allow_rules_follow_the_users_projects_policy() {
    let project = Project::new();
    project.config(
        "[[rules]]\nallow = [\"Bash(npm test:*)\"]\n\n[[rules]]\ndeny = [\"Bash(rm -rf:*)\"]\nreason = \"no\"\n",
    );
    let user = project.path(".no-user-config/hooks.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    // Under `sandboxed`, a project's allow rule approves nothing; its deny rule still holds.
    std::fs::write(&user, "[projects]\npolicy = \"sandboxed\"\n").unwrap();
    let json = agent_hook(&project, "claude", None, CLAUDE_PRE).json();
    assert_eq!(json, Value::Null, "no approval: {json}");
    let stdin = CLAUDE_PRE.replace("npm test", "rm -rf build");
    let json = agent_hook(&project, "claude", None, &stdin).json();
    assert_eq!(json["hookSpecificOutput"]["permissionDecision"], "deny");
    let out = hookhost(&project, &["check"], "");
    assert!(
        out.stdout.contains("rule: Bash(rm -rf:*)")
            && !out.stdout.contains("rule: Bash(npm test:*)"),
        "{}",
        out.stdout
    );
    // Under `allow` (the default) it counts.
    std::fs::write(&user, "[projects]\npolicy = \"allow\"\n").unwrap();
    let json = agent_hook(&project, "claude", None, CLAUDE_PRE).json();
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecision"], "allow",
        "{json}"
    );
}
