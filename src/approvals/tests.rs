//! The tracer's cases: what a command runs from the project, one line per command (`trace`).

use std::path::{Path, PathBuf};

use super::trace::{Place, normalize, trace};

#[test]
fn what_a_command_runs_from_the_project() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    for dir in ["scripts", "tools", ".claude/hooks", "hooks"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    let home = Path::new("/home/someone");
    let place = Place {
        root,
        cwd: root,
        project_dir: root,
        home: Some(home),
    };
    // (name, command, files recorded, paths not recorded, untraceable reasons)
    type Case<'a> = (
        &'a str,
        &'a str,
        &'a [&'a str],
        &'a [&'a str],
        &'a [&'a str],
    );
    #[rustfmt::skip]
    let cases: &[Case<'_>] = &[
        ("program", "./check.sh", &["check.sh"], &[], &[]),
        ("bash script", "bash scripts/guard.sh", &["scripts/guard.sh"], &[], &[]),
        ("script without a slash", "sh check.sh arg", &["check.sh"], &[], &[]),
        ("python", "python3 -u tools/x.py --flag", &["tools/x.py"], &[], &[]),
        ("python inline", "python3 -c 'import x' tools/y.py", &[], &[], &[]),
        ("project variable", r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh"#, &[".claude/hooks/guard.sh"], &[], &[]),
        ("gemini variable", "$GEMINI_PROJECT_DIR/g.sh", &["g.sh"], &[], &[]),
        ("cursor variable", "\"$CURSOR_PROJECT_DIR\"/.cursor/hooks/g.sh", &[".cursor/hooks/g.sh"], &[], &[]),
        ("after cd", "cd hooks && ./a.sh | ./b.sh; ../c.sh", &["hooks/a.sh", "hooks/b.sh", "c.sh"], &[], &[]),
        ("subshell cd stays inside", "(cd hooks; ./a.sh); ./d.sh", &["hooks/a.sh", "d.sh"], &[], &[]),
        ("redirections ignored", "./a.sh < in.json > out/log 2>&1", &["a.sh"], &[], &[]),
        ("bash -c read in turn", "bash -c './x.sh && ./y.sh'", &["x.sh", "y.sh"], &[], &[]),
        ("wrappers", "timeout 5 env A=1 ./w.sh", &["w.sh"], &[], &[]),
        ("source", ". ./lib.sh; source lib2.sh", &["lib.sh", "lib2.sh"], &[], &[]),
        ("path arguments", "jq -f filters/x.jq data.json", &["filters/x.jq"], &[], &[]),
        ("substitution inner", "echo $(./inner.sh)", &["inner.sh"], &[], &[]),
        ("outside", "/usr/bin/jq . ~/bin/x", &[], &["/usr/bin/jq", "/home/someone/bin/x"], &[]),
        ("parent", "../sibling/x.sh", &[], &["../sibling/x.sh"], &[]),
        ("directory", "ls scripts/", &[], &["scripts"], &[]),
        ("assignment", "FOO=1 ./a.sh", &["a.sh"], &[], &[]),
        ("if", "if ./t.sh; then ./u.sh; fi", &["t.sh", "u.sh"], &[], &[]),
        ("dirname", r#"bash "$(dirname "$0")/x.sh""#, &[], &[], &["its command builds a path at run time: `\"$(dirname \"$0\")/x.sh\"`"]),
        ("sh -c variable", r#"sh -c "$SCRIPT""#, &[], &[], &["its command runs a command line built at run time: `\"$SCRIPT\"`"]),
        ("eval", "eval \"$X\"", &[], &[], &["its command runs text it builds at run time: `eval \"$X\"`"]),
        ("source variable", "source $VAR", &[], &[], &["its command builds a path at run time: `$VAR`"]),
        ("other variable", "$TOOLS/x.sh", &[], &[], &["its command runs a program whose path is built at run time: `$TOOLS/x.sh`"]),
        ("glob", "bash scripts/*.sh", &[], &[], &["its command names the scripts it runs by a pattern: `scripts/*.sh`"]),
        ("python module", "python3 -m tools.check", &[], &[], &["its command runs a module by name, found at run time: `-m tools.check`"]),
        ("task runner", "npm run check && make -f build/Makefile", &["build/Makefile"], &[], &["its command runs a tool that reads what to run from the project's own files: `npm run check`", "its command runs a tool that reads what to run from the project's own files: `make -f build/Makefile`"]),
        ("cd variable", "cd \"$X\" && ./a.sh", &[], &[], &["its command names a path after a `cd` to a directory built at run time: `./a.sh`"]),
    ];
    for (name, command, files, outside, untraceable) in cases {
        let traced = trace(command, &place);
        let files: Vec<PathBuf> = files.iter().map(|f| root.join(f)).collect();
        assert_eq!(traced.files, files, "{name}: {command}");
        let not_recorded: Vec<PathBuf> =
            traced.not_recorded.iter().map(|(p, _)| p.clone()).collect();
        let outside: Vec<PathBuf> = outside.iter().map(|p| normalize(&root.join(p))).collect();
        assert_eq!(not_recorded, outside, "{name}: {command}");
        let reasons: Vec<String> = traced
            .untraceable
            .iter()
            .map(|s| {
                s.split("; hookhost cannot tell")
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(reasons, *untraceable, "{name}: {command}");
    }
}

#[test]
fn an_approval_holds_while_what_the_hooks_run_is_as_approved() {
    use super::{Approval, Approvals, ChangeKind, Coverage};
    use crate::Config;

    let project = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    let file = root.join(".forgeflare/hooks.toml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"./a.sh && ./b.sh\"\n",
    )
    .unwrap();
    std::fs::write(root.join("a.sh"), "v1").unwrap();
    let coverage = |cwd: &Path| Coverage::of(&Config::load(&file).unwrap(), cwd);
    let kinds = |approval: Approval| -> Vec<(PathBuf, ChangeKind)> {
        match approval {
            Approval::Changed(changes) => changes
                .into_iter()
                .map(|change| (change.path, change.kind))
                .collect(),
            other => panic!("expected changes, got {other:?}"),
        }
    };

    let mut approvals = Approvals::default();
    assert_eq!(
        approvals.check(&file, &coverage(&root)),
        Approval::NotApproved
    );
    approvals.approve(&file, &coverage(&root)).unwrap();
    assert_eq!(approvals.check(&file, &coverage(&root)), Approval::Approved);

    std::fs::write(root.join("a.sh"), "v2").unwrap();
    assert_eq!(
        kinds(approvals.check(&file, &coverage(&root))),
        [(root.join("a.sh"), ChangeKind::Modified)]
    );
    std::fs::remove_file(root.join("a.sh")).unwrap();
    std::fs::write(root.join("b.sh"), "new").unwrap();
    assert_eq!(
        kinds(approvals.check(&file, &coverage(&root))),
        [
            (root.join("a.sh"), ChangeKind::Deleted),
            (root.join("b.sh"), ChangeKind::Created)
        ]
    );
    std::fs::write(root.join("a.sh"), "v1").unwrap();
    std::fs::remove_file(root.join("b.sh")).unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    assert_eq!(
        kinds(approvals.check(&file, &coverage(&root.join("sub")))),
        [
            (root.join("sub/a.sh"), ChangeKind::NewlyNamed),
            (root.join("sub/b.sh"), ChangeKind::NewlyNamed)
        ],
        "run from elsewhere, the hooks run other files"
    );
    assert_eq!(approvals.check(&file, &coverage(&root)), Approval::Approved);

    // approvals.json of a version that recorded the hooks file only.
    let old: Approvals = serde_json::from_value(serde_json::json!({
        "approved": { file.to_str().unwrap(): super::digest(&file).unwrap() }
    }))
    .unwrap();
    assert_eq!(old.check(&file, &coverage(&root)), Approval::FileOnly);
    assert_eq!(Approval::FileOnly.held_reason(&file), None);

    std::fs::write(&file, "# changed\n").unwrap();
    assert_eq!(
        approvals.check(&file, &coverage(&root)),
        Approval::NotApproved
    );
    assert!(approvals.revoke(&file));
    assert_eq!(
        approvals,
        Approvals::default(),
        "revoking drops what it covered"
    );
}
