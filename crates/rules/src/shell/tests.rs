//! How command lines are read: which simple commands, which are nested, which lines an allow
//! rule may approve at all.

use super::read;

/// A line, its top-level commands (without redirections), its nested commands, whether an
/// allow rule may approve it command by command, whether the reader lost its way.
type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], bool, bool);

#[test]
fn lines_are_split_into_simple_commands() {
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("git status", &["git status"], &[], true, false),
        ("safe && rm -rf /", &["safe", "rm -rf /"], &[], true, false),
        ("a || b; c | d |& e & f\ng", &["a", "b", "c", "d", "e", "f", "g"], &[], true, false),
        ("echo 'a && b' \"c; d\"", &["echo 'a && b' \"c; d\""], &[], true, false),
        ("echo a\\;b", &["echo a\\;b"], &[], true, false),
        ("ls > /dev/null 2>&1", &["ls"], &[], true, false),
        ("ls > out.txt", &["ls"], &[], false, false),
        ("npm test 2>&1 | tee log", &["npm test", "tee log"], &[], true, false),
        ("echo $(rm -rf /)", &["echo $(rm -rf /)"], &["rm -rf /"], false, false),
        ("echo `rm -rf /`", &["echo `rm -rf /`"], &["rm -rf /"], false, false),
        ("(cd x && rm -rf y)", &[], &["cd x", "rm -rf y"], false, false),
        ("{ rm a; rm b; }", &[], &["rm a", "rm b"], false, false),
        ("diff <(ls a) <(ls b)", &["diff <(ls a) <(ls b)"], &["ls a", "ls b"], false, false),
        ("echo \"$HOME\"", &["echo \"$HOME\""], &[], false, false),
        ("echo '$HOME'", &["echo '$HOME'"], &[], true, false),
        ("cat <<EOF\nrm -rf /\nEOF\nls", &["cat", "ls"], &[], false, false),
        ("echo 'unclosed", &["echo 'unclosed"], &[], false, true),
        ("if true; then rm x; fi", &["if true", "then rm x", "fi"], &[], false, false),
        ("echo a # && rm -rf /", &["echo a"], &[], true, false),
        ("x=$((1+2)); echo $x", &["x=$((1+2))", "echo $x"], &[], false, false),
        ("echo ${HOME:-/} && ls", &["echo ${HOME:-/}", "ls"], &[], false, false),
        ("ls \\\n  -la", &["ls \\\n  -la"], &[], true, false),
    ];
    for (line, top, nested, plain, broken) in cases {
        let script = read(line);
        let texts: Vec<&str> = script
            .commands
            .iter()
            .map(|command| command.text.as_str())
            .collect();
        let inner: Vec<&str> = script
            .nested
            .iter()
            .map(|command| command.text.as_str())
            .collect();
        assert_eq!(
            (
                texts.as_slice(),
                inner.as_slice(),
                script.plain,
                script.broken
            ),
            (*top, *nested, *plain, *broken),
            "{line:?}"
        );
    }
}

#[test]
fn a_line_longer_than_claude_code_reads_is_broken() {
    let script = read(&format!("echo {}", "a".repeat(10_001)));
    assert!(script.broken && script.approvable().is_none());
}
