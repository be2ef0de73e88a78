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
        ("test builtin", "[ -x ./t.sh ] && ./t.sh", &["t.sh"], &[], &[]),
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

#[test]
fn the_programs_and_scripts_a_command_runs() {
    use super::trace::Runs;
    let root = Path::new("/p");
    let place = Place {
        root,
        cwd: root,
        project_dir: root,
        home: Some(Path::new("/home/someone")),
    };
    // `*` marks what the command runs after its first program.
    let first = |text: &str| {
        (
            text.trim_start_matches('*').to_string(),
            !text.starts_with('*'),
        )
    };
    let program = |path: &str| {
        let (path, first) = first(path);
        (Runs::Program(PathBuf::from(path)), first)
    };
    let script = |path: &str| {
        let (path, first) = first(path);
        (Runs::Script(PathBuf::from(path)), first)
    };
    let named = |name: &str| {
        let (name, first) = first(name);
        (Runs::Named(name), first)
    };
    // (name, command, what it runs and whether it comes first)
    type Case<'a> = (&'a str, &'a str, Vec<(Runs, bool)>);
    #[rustfmt::skip]
    let cases: Vec<Case<'_>> = vec![
        ("project variable", r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh"#, vec![program("/p/.claude/hooks/guard.sh")]),
        ("outside the project too", "/usr/local/bin/guard --strict", vec![program("/usr/local/bin/guard")]),
        ("an interpreter and its script", "python3 tools/x.py", vec![named("python3"), script("/p/tools/x.py")]),
        ("a shell and its script", "bash scripts/g.sh", vec![named("bash"), script("/p/scripts/g.sh")]),
        ("builtins are not looked up", "echo hi; test -f x && true", vec![]),
        ("wrapped", "timeout 5 ./w.sh | jq .", vec![named("timeout"), program("/p/w.sh"), named("*jq")]),
        ("behind a condition", "[ -x ./opt.sh ] && ./opt.sh; ./last.sh", vec![program("*/p/opt.sh"), program("*/p/last.sh")]),
        ("after cd and source", "cd hooks && source ./env.sh && ./g.sh", vec![script("/p/hooks/env.sh"), program("/p/hooks/g.sh")]),
        ("bash -c: its first command", "bash -c './a.sh || ./b.sh'", vec![named("bash"), program("/p/a.sh"), program("*/p/b.sh")]),
        ("home", "~/bin/check", vec![program("/home/someone/bin/check")]),
        ("after cd", "cd hooks && ./a.sh", vec![program("/p/hooks/a.sh")]),
        ("built at run time", "$TOOLS/x.sh", vec![]),
    ];
    for (name, command, expected) in cases {
        let runs: Vec<(Runs, bool)> = trace(command, &place)
            .runs
            .into_iter()
            .map(|run| (run.target, run.first))
            .collect();
        assert_eq!(runs, expected, "{name}: {command}");
    }
}

#[test]
fn a_hook_whose_script_is_missing_cannot_run() {
    use std::os::unix::fs::PermissionsExt as _;
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    std::fs::write(root.join("ok.sh"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(root.join("ok.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(root.join("plain.sh"), "#!/bin/sh\n").unwrap();
    let file = root.join("hooks.toml");
    std::fs::write(
        &file,
        "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"./ok.sh && bash plain.sh\"\n\n\
         [[hooks]]\nevent = \"PreToolUse\"\ncommand = \"./plain.sh\"\n\n\
         [[hooks]]\nevent = \"Stop\"\ncommand = \"\\\"$CLAUDE_PROJECT_DIR\\\"/gone.sh\"\n\n\
         [[hooks]]\nevent = \"Stop\"\ncommand = \"./gone.sh\"\nenabled = false\n\n\
         [[hooks]]\nevent = \"Stop\"\ncommand = \"surely-not-installed-hookhost\"\n\n\
         [[hooks]]\nevent = \"Stop\"\ncommand = \"./ok.sh || ./gone.sh\"\n",
    )
    .unwrap();
    let config = crate::Config::load(&file).unwrap();
    let found: Vec<(usize, bool, String)> = super::unrunnable(&config, root)
        .into_iter()
        .map(|u| (u.hook, u.missing_file, u.message))
        .collect();
    let shown = |name: &str| root.join(name).display().to_string();
    assert_eq!(found.len(), 4, "{found:#?}");
    assert_eq!((found[0].0, found[0].1), (1, true));
    assert!(
        found[0].2.starts_with(&format!(
            "its command runs {}, which is not executable",
            shown("plain.sh")
        )),
        "{}",
        found[0].2
    );
    assert_eq!((found[1].0, found[1].1), (2, true));
    assert_eq!(
        found[1].2,
        format!(
            "its command runs {}, which does not exist: the hook would fail at every call (exit \
             127); create it, or correct the command (the project-directory variables hold the \
             agent's directory, {})",
            shown("gone.sh"),
            root.display()
        )
    );
    assert_eq!((found[2].0, found[2].1), (4, false));
    assert!(
        found[2]
            .2
            .contains("`surely-not-installed-hookhost`, which is not on PATH")
    );
    // After the first program: perhaps behind a condition, so a warning.
    assert_eq!((found[3].0, found[3].1), (5, false));
    assert!(found[3].2.contains("gone.sh, which does not exist"));
}
