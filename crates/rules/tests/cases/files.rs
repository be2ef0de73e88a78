//! `Read(...)` and `Edit(...)` rules: the four anchors, gitignore depth, allow versus deny
//! depth for single-segment directories, `..`, `~`, case, and which tools each rule reaches.

use super::{Case, run};

#[test]
fn anchors_and_patterns() {
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("./path is the working directory", &["deny Read(./.env)"], "Read", r#"{"file_path":"/home/u/project/.env"}"#, "deny Read(./.env)"),
        ("a relative input path", &["deny Read(./.env)"], "Read", r#"{"file_path":".env"}"#, "deny Read(./.env)"),
        ("a bare name matches at any depth", &["deny Read(./.env)"], "Read", r#"{"file_path":"/home/u/project/api/.env"}"#, "deny Read(./.env)"),
        ("but not above the working directory", &["deny Read(.env)"], "Read", r#"{"file_path":"/home/u/.env"}"#, "none"),
        ("//path is absolute", &["deny Read(//**/.env)"], "Read", r#"{"file_path":"/srv/app/.env"}"#, "deny Read(//**/.env)"),
        ("~/path is the home", &["deny Read(~/.ssh/**)"], "Read", r#"{"file_path":"/home/u/.ssh/id_rsa"}"#, "deny Read(~/.ssh/**)"),
        ("~ in the input", &["deny Read(~/.ssh/**)"], "Read", r#"{"file_path":"~/.ssh/config"}"#, "deny Read(~/.ssh/**)"),
        (".. is folded", &["deny Read(~/.ssh/**)"], "Read", r#"{"file_path":"/home/u/project/../.ssh/id_rsa"}"#, "deny Read(~/.ssh/**)"),
        ("/path is the rule file's directory", &["deny Edit(/docs/**)"], "Edit", r#"{"file_path":"/home/u/project/docs/a.md"}"#, "deny Edit(/docs/**)"),
        ("/path is not the filesystem root", &["deny Edit(/etc/**)"], "Edit", r#"{"file_path":"/etc/hosts"}"#, "none"),
        ("* stays within a segment, but a matched directory holds what is in it", &["deny Read(*.pem)"], "Read", r#"{"file_path":"certs/a.pem"}"#, "deny Read(*.pem)"),
        ("case-insensitive, as Claude Code's matcher", &["deny Read(.env)"], "Read", r#"{"file_path":".ENV"}"#, "deny Read(.env)"),
        ("allow: a single directory is anchored", &["allow Edit(src/**)"], "Edit", r#"{"file_path":"src/a.ts"}"#, "allow Edit(src/**)"),
        ("allow: not a nested copy", &["allow Edit(src/**)"], "Edit", r#"{"file_path":"vendor/pkg/src/lib.js"}"#, "none"),
        ("deny: a nested copy too", &["deny Edit(src/**)"], "Edit", r#"{"file_path":"vendor/pkg/src/lib.js"}"#, "deny Edit(src/**)"),
        ("allow at any depth with **/", &["allow Edit(**/src/**)"], "Edit", r#"{"file_path":"vendor/pkg/src/lib.js"}"#, "allow Edit(**/src/**)"),
        ("an allowed path that climbs out", &["allow Edit(src/**)"], "Edit", r#"{"file_path":"src/../../etc/passwd"}"#, "none"),
        ("every path must be allowed", &["allow Read(src/**)"], "read_many_files", r#"{"paths":["src/a.ts","docs/b.md"]}"#, "none"),
        ("every path allowed", &["allow Read(src/**)"], "read_many_files", r#"{"paths":["src/a.ts","src/b.ts"]}"#, "allow Read(src/**)"),
        ("any path denied", &["deny Read(docs/**)"], "read_many_files", r#"{"paths":["src/a.ts","docs/b.md"]}"#, "deny Read(docs/**)"),
        ("bare Read", &["allow Read"], "Read", r#"{"file_path":"/anywhere"}"#, "allow Read"),
    ];
    run(cases, None);
}

#[test]
fn which_tools_each_rule_reaches() {
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("Edit rules cover Write", &["allow Edit(src/**)"], "Write", r#"{"file_path":"src/new.ts"}"#, "allow Edit(src/**)"),
        ("Edit rules cover MultiEdit", &["deny Edit(src/**)"], "MultiEdit", r#"{"file_path":"src/a.ts","edits":[]}"#, "deny Edit(src/**)"),
        ("Edit rules cover NotebookEdit", &["deny Edit(//**/*.ipynb)"], "NotebookEdit", r#"{"notebook_path":"/x/a.ipynb"}"#, "deny Edit(//**/*.ipynb)"),
        ("Read rules cover Grep's path", &["deny Read(secrets/**)"], "Grep", r#"{"pattern":"key","path":"a/secrets"}"#, "deny Read(secrets/**)"),
        ("Read rules cover Glob's path", &["deny Read(secrets/**)"], "Glob", r#"{"pattern":"*","path":"secrets"}"#, "deny Read(secrets/**)"),
        ("a Read deny keeps edits off the path", &["deny Read(//etc/**)"], "Edit", r#"{"file_path":"/etc/passwd"}"#, "deny Read(//etc/**)"),
        ("a Read ask does not", &["ask Read(//etc/**)"], "Edit", r#"{"file_path":"/etc/passwd"}"#, "none"),
        ("Write(path) is held as Edit(path) by a deny", &["deny Write(//etc/**)"], "Write", r#"{"file_path":"/etc/passwd"}"#, "deny Write(//etc/**)"),
        ("for every editing tool", &["deny Write(//etc/**)"], "Edit", r#"{"file_path":"/etc/hosts"}"#, "deny Write(//etc/**)"),
        ("and never by an allow, as Claude Code", &["allow Write(src/**)"], "Write", r#"{"file_path":"src/a.ts"}"#, "none"),
        ("Glob(path) is held as Read(path) by a deny", &["deny Glob(secrets/**)"], "Read", r#"{"file_path":"secrets/a"}"#, "deny Glob(secrets/**)"),
        ("bare Write names writers only", &["deny Write"], "Edit", r#"{"file_path":"a"}"#, "none"),
        ("bare Edit names Edit", &["deny Edit"], "Edit", r#"{"file_path":"a"}"#, "deny Edit"),
        ("a Read rule is not about shell commands", &["deny Read(./.env)"], "Bash", r#"{"command":"cat .env"}"#, "none"),
    ];
    run(cases, None);
}
