//! Shell commands and paths inside code given on a command line (`python -c`, `node -e`,
//! `perl -e`, `ruby -e`, `php -r`): the string literals passed to `os.system`, `subprocess.run`,
//! `execSync`, `system`, backticks; and the literals passed to any named function
//! (`shutil.rmtree('/')`), for policies that look at them.

/// The code an interpreter call runs from its arguments, if any (`python3 -c CODE`).
pub fn inline_code<'a>(program: &str, args: &'a [String]) -> Option<&'a str> {
    let options: &[&str] = match program {
        p if p.starts_with("python") => &["-c"],
        "perl" => &["-e", "-E"],
        "ruby" => &["-e"],
        "node" | "bun" | "deno" => &["-e", "--eval", "-p", "--print"],
        "php" => &["-r"],
        _ => return None,
    };
    let at = args.iter().position(|a| options.contains(&a.as_str()))?;
    args.get(at + 1).map(String::as_str)
}

/// Functions that run their argument as a shell command (or an argv).
const RUNNERS: &[&str] = &[
    "system(",
    "popen(",
    "run(",
    "call(",
    "check_call(",
    "check_output(",
    "Popen(",
    "getoutput(",
    "getstatusoutput(",
    "execSync(",
    "exec(",
    "spawnSync(",
    "spawn(",
    "qx(",
    "shell_exec(",
    "passthru(",
];

/// The shell commands `code` runs: each runner's first argument (a string, or a list of
/// strings joined as an argv), and backtick strings.
pub fn shell_strings(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for runner in RUNNERS {
        for args in arguments(code, runner) {
            if !args.is_empty() {
                out.push(args.join(" "));
            }
        }
    }
    let mut rest = code;
    while let Some(start) = rest.find('`') {
        let Some(len) = rest[start + 1..].find('`') else {
            break;
        };
        out.push(rest[start + 1..start + 1 + len].to_string());
        rest = &rest[start + 2 + len..];
    }
    out
}

/// For each call of `function` (written with its `(`) in `code`, the string literals of its
/// first argument: one for a string, several for a list of strings.
pub fn arguments(code: &str, function: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(function) {
        let start = from + at + function.len();
        from = start;
        let rest = code[start..].trim_start();
        let (list, rest) = match rest.strip_prefix('[') {
            Some(inner) => (true, inner),
            None => (false, rest),
        };
        let mut literals = Vec::new();
        let mut rest = rest.trim_start();
        while let Some((literal, after)) = literal(rest) {
            literals.push(literal);
            rest = after.trim_start();
            if !list {
                break;
            }
            match rest.strip_prefix(',') {
                Some(after) => rest = after.trim_start(),
                None => break,
            }
        }
        out.push(literals);
    }
    out
}

/// A string literal at the start of `text` (`'...'` or `"..."`, backslash escapes), and what
/// follows it.
fn literal(text: &str) -> Option<(String, &str)> {
    let quote = text.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut value = String::new();
    let mut chars = text[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, next)) = chars.next() {
                    value.push(next);
                }
            }
            c if c == quote => return Some((value, &text[1 + i + 1..])),
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_arguments_come_out_of_code() {
        assert_eq!(
            shell_strings("import os; os.system('rm -rf /')"),
            ["rm -rf /"]
        );
        assert_eq!(
            shell_strings("import subprocess; subprocess.run(['git', 'push', '-f'])"),
            ["git push -f"]
        );
        assert_eq!(
            shell_strings("require('child_process').execSync(\"curl x | sh\")"),
            ["curl x | sh"]
        );
        assert_eq!(shell_strings("print `ls`"), ["ls"]);
        assert!(shell_strings("print(1)").is_empty());
        assert_eq!(
            arguments("import shutil; shutil.rmtree('/home')", "rmtree("),
            [vec!["/home".to_string()]]
        );
        assert_eq!(
            inline_code("python3", &["-c".into(), "x".into()]),
            Some("x")
        );
        assert_eq!(inline_code("python3", &["x.py".into()]), None);
    }
}
