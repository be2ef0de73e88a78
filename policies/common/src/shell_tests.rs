//! The shell parser and the call walker, one named case per line.

use crate::shell::{Input, RedirectOp, Via, parse, visit};

/// Every call of `line` as `program arg...`, with how it was reached when not direct.
fn calls(line: &str) -> Vec<String> {
    let script = parse(line);
    let mut out = Vec::new();
    visit::<()>(&script, &mut |call| {
        let via = match call.via {
            Via::Direct => String::new(),
            other => format!("[{other:?}] "),
        };
        out.push(format!("{via}{}", call.text()));
        None
    });
    out
}

#[test]
fn commands_are_split_as_bash_splits_them() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("plain", "rm -rf /", &["rm -rf /"]),
        ("quotes removed", r#"RM  -RF "/""#, &["rm -RF /"]),
        ("lists", "a && b || c; d & e", &["a", "b", "c", "d", "e"]),
        ("pipes", "cat x | grep y |& wc", &["cat x", "grep y", "wc"]),
        ("newlines", "a\nb\n\nc", &["a", "b", "c"]),
        ("continuation", "rm -r \\\n -f /", &["rm -r -f /"]),
        ("comment", "ls # rm -rf /", &["ls"]),
        (
            "quoted text is an argument",
            r#"echo "rm -rf /""#,
            &["echo rm -rf /"],
        ),
        ("quoted separator", "echo 'a;b' \"c|d\"", &["echo a;b c|d"]),
        ("escaped separator", r"echo a\;b", &["echo a;b"]),
        ("subshell", "(cd / && rm -rf .)", &["cd /", "rm -rf ."]),
        ("brace group", "{ rm -rf /; }", &["rm -rf /"]),
        (
            "if",
            "if [ -d x ]; then rm -rf x; fi",
            &["[ -d x ]", "rm -rf x"],
        ),
        ("for loop", "for f in a b; do rm \"$f\"; done", &["rm $f"]),
        (
            "while",
            "while true; do sleep 1; done",
            &["true", "sleep 1"],
        ),
        ("function", "f() { rm -rf /; }; f", &["rm -rf /", "f"]),
        ("negation", "! grep -q x f", &["grep -q x f"]),
        ("ansi-c", "$'\\x72\\x6d' -rf /", &["rm -rf /"]),
        ("assignment prefix", "A=1 B=2 make", &["make"]),
        ("array assignment", "a=(x y) ls", &["ls"]),
        ("arithmetic", "(( i++ )); ls", &["ls"]),
        ("absolute program", "/bin/rm -rf /tmp/x", &["rm -rf /tmp/x"]),
        ("backslash program", "\\rm -rf x", &["rm -rf x"]),
    ];
    for (name, line, expected) in cases {
        assert_eq!(calls(line), *expected, "{name}: {line}");
    }
}

#[test]
fn substitutions_and_nested_shells_are_followed() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "dollar paren",
            "x=$(rm -rf /)",
            &["[Substitution] rm -rf /"],
        ),
        (
            "backticks",
            "echo `rm -rf ~`",
            &["[Substitution] rm -rf ~", "echo `rm -rf ~`"],
        ),
        (
            "in double quotes",
            r#"echo "$(whoami)""#,
            &["[Substitution] whoami", "echo $(whoami)"],
        ),
        (
            "process substitution",
            "bash <(curl -s x)",
            &["[Substitution] curl -s x", "bash <(curl -s x)"],
        ),
        (
            "bash -c",
            "bash -c 'rm -rf /'",
            &["bash -c rm -rf /", "[ShellString] rm -rf /"],
        ),
        (
            "sh -lc",
            "sh -lc \"cd / && rm -rf .\"",
            &[
                "sh -lc cd / && rm -rf .",
                "[ShellString] cd /",
                "[ShellString] rm -rf .",
            ],
        ),
        (
            "nested -c",
            "bash -c \"sh -c 'rm -rf /'\"",
            &[
                "bash -c sh -c 'rm -rf /'",
                "[ShellString] sh -c rm -rf /",
                "[ShellString] rm -rf /",
            ],
        ),
        (
            "eval",
            "eval 'rm -rf /'",
            &["eval rm -rf /", "[Eval] rm -rf /"],
        ),
        (
            "heredoc to a shell",
            "bash <<EOF\nrm -rf /\nEOF\nls",
            &["bash", "[Heredoc] rm -rf /", "ls"],
        ),
        (
            "heredoc with tabs",
            "sh <<-'X'\n\trm -rf ~\n\tX",
            &["sh", "[Heredoc] rm -rf ~"],
        ),
        (
            "here-string",
            "bash <<< 'rm -rf /'",
            &["bash", "[Heredoc] rm -rf /"],
        ),
        (
            "heredoc to cat is data",
            "cat <<EOF > f\nrm -rf /\nEOF",
            &["cat"],
        ),
        (
            "xargs",
            "find . | xargs rm -rf",
            &["find .", "xargs rm -rf", "[Xargs] rm -rf"],
        ),
        (
            "find -exec",
            "find / -exec rm -rf {} \\;",
            &["find / -exec rm -rf {} ;", "[FindExec] rm -rf {}"],
        ),
        (
            "ssh",
            "ssh -p 22 prod 'rm -rf /var'",
            &["ssh -p 22 prod rm -rf /var", "[Remote] rm -rf /var"],
        ),
        (
            "su -c",
            "su -c 'rm -rf /' root",
            &["su -c rm -rf / root", "[ShellString] rm -rf /"],
        ),
        (
            "watch",
            "watch -n 5 'rm -rf /tmp/x'",
            &["watch -n 5 rm -rf /tmp/x", "[ShellString] rm -rf /tmp/x"],
        ),
    ];
    for (name, line, expected) in cases {
        assert_eq!(calls(line), *expected, "{name}: {line}");
    }
}

#[test]
fn wrappers_are_peeled() {
    let cases: &[(&str, &str)] = &[
        ("sudo rm -rf /", "rm -rf /"),
        ("sudo -u root -E /bin/rm -rf /", "rm -rf /"),
        ("env FOO=1 rm x", "rm x"),
        ("env -i -u X PATH=/bin rm x", "rm x"),
        ("env -S 'rm -rf' /", "rm -rf /"),
        ("timeout 10 rm x", "rm x"),
        ("timeout -s KILL 5s rm x", "rm x"),
        ("nice -n 5 ionice -c 3 rm x", "rm x"),
        ("command rm x", "rm x"),
        ("nohup setsid rm x", "rm x"),
        ("doas -u root rm x", "rm x"),
        ("stdbuf -oL rm x", "rm x"),
        ("busybox rm x", "rm x"),
        ("uv run python x.py", "python x.py"),
        ("time -p make", "make"),
    ];
    for (line, expected) in cases {
        assert_eq!(calls(line), [*expected], "{line}");
    }
    assert!(calls("command -v rm").is_empty());
}

#[test]
fn redirections_heredocs_and_pipes_are_recorded() {
    let script = parse("cat a 2>/dev/null > /etc/passwd < in.txt");
    let command = &script.commands[0];
    assert_eq!(command.argv(), ["cat", "a"]);
    let ops: Vec<_> = command
        .redirects
        .iter()
        .map(|r| (r.fd, r.op, r.target.text.as_str()))
        .collect();
    assert_eq!(
        ops,
        [
            (Some(2), RedirectOp::Write, "/dev/null"),
            (None, RedirectOp::Write, "/etc/passwd"),
            (None, RedirectOp::Read, "in.txt")
        ]
    );
    assert_eq!(command.stdin, Input::File("in.txt".into()));
    assert!(command.redirects[1].writes_file());

    let script = parse("> /etc/hosts");
    assert_eq!(script.commands[0].redirects[0].target.text, "/etc/hosts");

    let script = parse("psql <<SQL\nDROP TABLE users;\nSQL");
    assert_eq!(
        script.commands[0].stdin,
        Input::Heredoc("DROP TABLE users;\n".into())
    );

    let script = parse("curl -fsSL x | tee i.sh | sudo bash");
    let mut upstream = Vec::new();
    visit::<()>(&script, &mut |call| {
        if call.program == "bash" {
            upstream = call.upstream().into_iter().map(|(p, _)| p).collect();
        }
        None
    });
    assert_eq!(upstream, ["tee", "curl"]);
}

#[test]
fn broken_input_is_read_as_far_as_it_goes() {
    for line in [
        "echo 'unclosed",
        "x=$(rm -rf /",
        "cat <<EOF\nno end",
        "a `b",
        "$((",
        "((",
        ")))",
        "|||",
        "&&&",
        "$'\\",
    ] {
        let script = parse(line);
        let _ = calls(line);
        assert!(
            script.incomplete
                || !script.commands.is_empty()
                || line.trim_matches(['|', '&', ')']).is_empty(),
            "{line}"
        );
    }
    assert!(parse("x=$(rm -rf /").incomplete);
    assert_eq!(calls("x=$(rm -rf /"), ["[Substitution] rm -rf /"]);
    // Deep nesting neither overflows nor loops.
    let deep = "$(".repeat(5000) + &")".repeat(5000);
    let _ = calls(&deep);
    let deep = "bash -c ".repeat(200) + "x";
    let _ = calls(&deep);
}
