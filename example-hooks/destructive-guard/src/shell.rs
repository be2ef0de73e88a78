//! Just enough of shell syntax to find every simple command of a command line: quotes,
//! escapes, command separators, and substitutions. Words are lowercased (the policy normalises
//! case) and quotes removed, so `RM  -RF "/"` and `rm -rf /` read the same.

/// The simple commands of `line`, each as its words.
pub fn simple_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    let end_word = |word: &mut String, in_word: &mut bool, words: &mut Vec<String>| {
        if *in_word {
            words.push(std::mem::take(word).to_lowercase());
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            word.push(chars.next().unwrap_or_default());
                        }
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(next) = chars.next()
                    && next != '\n'
                {
                    word.push(next);
                }
            }
            c if c.is_whitespace() && c != '\n' => end_word(&mut word, &mut in_word, &mut words),
            ';' | '&' | '|' | '(' | ')' | '`' | '\n' => {
                end_word(&mut word, &mut in_word, &mut words);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            '$' if chars.peek() == Some(&'(') => {
                end_word(&mut word, &mut in_word, &mut words);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut words);
    if !words.is_empty() {
        commands.push(words);
    }
    // Brace groups (`{ rm -rf /; }`) are words to the shell, and boundaries to us.
    commands
        .into_iter()
        .flat_map(|words| {
            words
                .split(|w| w == "{" || w == "}")
                .filter(|part| !part.is_empty())
                .map(<[String]>::to_vec)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Programs that run the rest of their arguments as a command.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "command", "builtin", "exec", "nohup", "time", "nice", "env", "timeout",
    "stdbuf",
];

/// The words of a command with wrappers (`sudo`, `env A=b`, `timeout 10`, ...), leading
/// variable assignments and the program's directory (`/bin/rm`) removed.
pub fn unwrap_command(words: &[String]) -> Vec<String> {
    let mut rest: &[String] = words;
    loop {
        // Leading `NAME=value` assignments.
        while let Some(first) = rest.first() {
            if is_assignment(first) {
                rest = &rest[1..];
            } else {
                break;
            }
        }
        let Some(first) = rest.first() else {
            return Vec::new();
        };
        let program = first.rsplit('/').next().unwrap_or(first);
        if !WRAPPERS.contains(&program) {
            break;
        }
        rest = &rest[1..];
        // The wrapper's own options (and, for timeout, its duration).
        while let Some(option) = rest.first() {
            if option.starts_with('-') {
                let takes_value = matches!(
                    (program, option.as_str()),
                    ("sudo", "-u" | "-g" | "-c" | "-h" | "-p" | "-r" | "-t") | ("nice", "-n")
                );
                rest = &rest[if takes_value { 2.min(rest.len()) } else { 1 }..];
            } else if program == "timeout"
                && option.chars().next().is_some_and(|c| c.is_ascii_digit())
            {
                rest = &rest[1..];
            } else {
                break;
            }
        }
    }
    let mut out: Vec<String> = rest.to_vec();
    if let Some(first) = out.first_mut() {
        *first = first.rsplit('/').next().unwrap_or(first).to_string();
    }
    out
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        simple_commands(line)
    }

    #[test]
    fn splits_and_unquotes() {
        assert_eq!(words("RM  -RF \"/\""), [["rm", "-rf", "/"]]);
        assert_eq!(
            words("echo a && rm -rf ~; ls | wc"),
            vec![
                vec!["echo", "a"],
                vec!["rm", "-rf", "~"],
                vec!["ls"],
                vec!["wc"]
            ]
        );
        assert_eq!(
            words("x=$(rm -rf /)"),
            vec![vec!["x="], vec!["rm", "-rf", "/"]]
        );
        assert_eq!(words("bash -c 'rm -rf /'"), [["bash", "-c", "rm -rf /"]]);
        assert_eq!(words("r\\m -rf /"), [["rm", "-rf", "/"]]);
        assert_eq!(words("echo 'a;b'"), [["echo", "a;b"]]);
    }

    #[test]
    fn unwraps_wrappers() {
        let unwrap = |line: &str| unwrap_command(&words(line)[0]);
        assert_eq!(unwrap("sudo -u root /bin/rm -rf /"), ["rm", "-rf", "/"]);
        assert_eq!(unwrap("env FOO=1 timeout 10 nice -n 5 rm x"), ["rm", "x"]);
        assert_eq!(unwrap("LANG=C command rm x"), ["rm", "x"]);
    }
}
