//! What a parsed command line runs: every simple command with its wrappers peeled off
//! (`sudo -u x`, `env A=1`, `timeout 5`, `nice -n 5`, `/bin/rm` → `rm`), and the commands it
//! runs in turn: the strings given to shells (`bash -c`, `sh -c`, `su -c`, `eval`, `watch`,
//! `flock -c`, a heredoc or here-string fed to a shell), `xargs CMD`, `find -exec CMD ;`,
//! `ssh host CMD`, and every command substitution. A policy looks at each [`Call`].

use super::wrappers::{program_name, skip_options, unwrap};
use super::{Command, Input, Script};

/// How deep strings given to shells are followed (`bash -c "sh -c '...'"`).
const MAX_NESTING: usize = 8;

/// How a call was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// A command of the line itself.
    Direct,
    /// Inside `$(...)`, backticks or `<(...)`.
    Substitution,
    /// A string run by a shell (`bash -c`, `su -c`, `watch`, `flock -c`).
    ShellString,
    /// `eval`.
    Eval,
    /// A heredoc or here-string fed to a shell.
    Heredoc,
    /// `xargs CMD`: its operands come from its stdin.
    Xargs,
    /// `find ... -exec CMD {} ;`.
    FindExec,
    /// `ssh host CMD`, `docker exec CTR CMD`, `kubectl exec POD -- CMD`: runs elsewhere.
    Remote,
    /// A shell command inside code given to an interpreter (`python -c "os.system('...')"`).
    Code,
}

/// One program run, as a policy sees it.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The program's name: its path's last component, lowercased (`/bin/RM` → `rm`).
    pub program: &'a str,
    /// Its arguments, quotes removed.
    pub args: &'a [String],
    /// The simple command it belongs to (redirections, stdin).
    pub command: &'a Command,
    /// The script the command belongs to (for its pipeline).
    pub script: &'a Script,
    /// How it was reached.
    pub via: Via,
    /// Wrappers it was found under (`sudo`, `env`, ...), outermost first.
    pub wrappers: &'a [String],
    /// How many shell strings deep it is (0: the line itself).
    pub depth: usize,
}

impl Call<'_> {
    /// `program arg1 arg2 ...`, single-spaced: what `allow` patterns are matched against.
    pub fn text(&self) -> String {
        let mut text = self.program.to_string();
        for arg in self.args {
            text.push(' ');
            text.push_str(arg);
        }
        text
    }

    /// The programs (unwrapped, with their arguments) whose output reaches this call's stdin
    /// through its pipeline, nearest first (`curl x | tee f | sh`: tee, then curl).
    pub fn upstream(&self) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        upstream_of(self.command, self.script, &mut out, 0);
        out
    }

    /// The text fed to its stdin by a heredoc or a here-string.
    pub fn stdin_text(&self) -> Option<&str> {
        match &self.command.stdin {
            Input::Heredoc(text) | Input::HereString(text) => Some(text),
            _ => None,
        }
    }
}

fn upstream_of(
    command: &Command,
    script: &Script,
    out: &mut Vec<(String, Vec<String>)>,
    hops: usize,
) {
    let Input::Pipe(range) = &command.stdin else {
        return;
    };
    if hops > 16 {
        return;
    }
    for feeder in script.commands.get(range.clone()).unwrap_or_default() {
        let original = feeder.argv();
        let (_, argv) = unwrap(&original);
        // A wrapper run alone (`env`) is a program of its own.
        let argv = if argv.is_empty() { original } else { argv };
        if let Some((program, args)) = argv.split_first() {
            out.push((program_name(program), args.to_vec()));
        }
        upstream_of(feeder, script, out, hops + 1);
    }
}

/// Calls `f` on every call of `script`, stopping at the first `Some`.
pub fn visit<T>(script: &Script, f: &mut dyn FnMut(&Call) -> Option<T>) -> Option<T> {
    visit_script(script, Via::Direct, 0, f)
}

fn visit_script<T>(
    script: &Script,
    via: Via,
    depth: usize,
    f: &mut dyn FnMut(&Call) -> Option<T>,
) -> Option<T> {
    for command in &script.commands {
        let words = command
            .assignments
            .iter()
            .chain(&command.words)
            .chain(command.redirects.iter().map(|r| &r.target));
        for word in words {
            for inner in &word.substitutions {
                if let Some(found) = visit_script(inner, Via::Substitution, depth, f) {
                    return Some(found);
                }
            }
        }
        let argv = command.argv();
        if let Some(found) = visit_argv(&argv, command, script, via, depth, &[], f) {
            return Some(found);
        }
        if argv.is_empty() && !command.redirects.is_empty() {
            // A command of redirections only (`> /etc/passwd`): policies still see it.
            let call = Call {
                program: "",
                args: &[],
                command,
                script,
                via,
                wrappers: &[],
                depth,
            };
            if let Some(found) = f(&call) {
                return Some(found);
            }
        }
    }
    None
}

fn visit_argv<T>(
    argv: &[String],
    command: &Command,
    script: &Script,
    via: Via,
    depth: usize,
    outer: &[String],
    f: &mut dyn FnMut(&Call) -> Option<T>,
) -> Option<T> {
    let (wrappers, argv) = unwrap(argv);
    let (program, args) = argv.split_first()?;
    let program = program_name(program);
    let mut all_wrappers = outer.to_vec();
    all_wrappers.extend(wrappers);
    let call = Call {
        program: &program,
        args,
        command,
        script,
        via,
        wrappers: &all_wrappers,
        depth,
    };
    if let Some(found) = f(&call) {
        return Some(found);
    }
    if depth >= MAX_NESTING {
        return None;
    }
    match nested(&program, args, command) {
        Some(Nested::Script(text, how)) => {
            let inner = super::parse(&text);
            visit_script(&inner, how, depth + 1, f)
        }
        Some(Nested::Argv(inner_argv, how)) => visit_argv(
            &inner_argv,
            command,
            script,
            how,
            depth + 1,
            &all_wrappers,
            f,
        ),
        None => None,
    }
}

enum Nested {
    Script(String, Via),
    Argv(Vec<String>, Via),
}

/// Shells, by the name they are run as.
pub const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "rbash", "pwsh",
];

fn nested(program: &str, args: &[String], command: &Command) -> Option<Nested> {
    match program {
        p if SHELLS.contains(&p) => shell_script(args)
            .map(|script| Nested::Script(script, Via::ShellString))
            .or_else(|| {
                // No script argument: the shell reads its stdin.
                let reads_stdin = args
                    .iter()
                    .all(|a| a.starts_with('-') || a.starts_with('+'));
                match (&command.stdin, reads_stdin) {
                    (Input::Heredoc(text) | Input::HereString(text), true) => {
                        Some(Nested::Script(text.clone(), Via::Heredoc))
                    }
                    _ => None,
                }
            }),
        "su" => option_value(args, &["-c", "--command"])
            .map(|script| Nested::Script(script, Via::ShellString)),
        "eval" => Some(Nested::Script(args.join(" "), Via::Eval)),
        p if super::code::inline_code(p, args).is_some() => {
            let code = super::code::inline_code(p, args).unwrap_or_default();
            let commands = super::code::shell_strings(code);
            (!commands.is_empty()).then(|| Nested::Script(commands.join("\n"), Via::Code))
        }
        "watch" => {
            let rest = skip_options(args, &["-n", "--interval", "-d", "--differences"]);
            (!rest.is_empty()).then(|| Nested::Script(rest.join(" "), Via::ShellString))
        }
        "flock" => option_value(args, &["-c", "--command"])
            .map(|script| Nested::Script(script, Via::ShellString))
            .or_else(|| {
                let rest = skip_options(args, &["-w", "--timeout", "-E", "--conflict-exit-code"]);
                (rest.len() > 1).then(|| Nested::Argv(rest[1..].to_vec(), Via::ShellString))
            }),
        "xargs" => {
            let rest = skip_options(
                args,
                &[
                    "-I",
                    "-i",
                    "-n",
                    "-P",
                    "-d",
                    "-a",
                    "-E",
                    "-e",
                    "-L",
                    "-l",
                    "-s",
                    "--max-args",
                    "--max-procs",
                    "--delimiter",
                    "--arg-file",
                    "--replace",
                    "--max-lines",
                    "--max-chars",
                    "--eof",
                ],
            );
            (!rest.is_empty()).then(|| Nested::Argv(rest.to_vec(), Via::Xargs))
        }
        "find" => {
            let start = args
                .iter()
                .position(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))?;
            let inner: Vec<String> = args[start + 1..]
                .iter()
                .take_while(|a| !matches!(a.as_str(), ";" | "+" | "\\;"))
                .cloned()
                .collect();
            (!inner.is_empty()).then_some(Nested::Argv(inner, Via::FindExec))
        }
        "docker" | "podman" | "nerdctl" if args.first().is_some_and(|a| a == "exec") => {
            let rest = skip_options(
                &args[1..],
                &[
                    "-u",
                    "--user",
                    "-e",
                    "--env",
                    "-w",
                    "--workdir",
                    "--env-file",
                    "--detach-keys",
                ],
            );
            (rest.len() > 1).then(|| Nested::Argv(rest[1..].to_vec(), Via::Remote))
        }
        "kubectl" | "oc" if args.iter().any(|a| a == "exec") => {
            let dashes = args.iter().position(|a| a == "--")?;
            let inner = args[dashes + 1..].to_vec();
            (!inner.is_empty()).then_some(Nested::Argv(inner, Via::Remote))
        }
        "ssh" => {
            let rest = skip_options(
                args,
                &[
                    "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O",
                    "-o", "-p", "-Q", "-R", "-S", "-W", "-w",
                ],
            );
            (rest.len() > 1).then(|| Nested::Script(rest[1..].join(" "), Via::Remote))
        }
        _ => None,
    }
}

/// The string a shell runs with `-c` (`bash -c`, `sh -lc`, `bash -ec`, `zsh -o x -c`).
fn shell_script(args: &[String]) -> Option<String> {
    let mut has_c = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--" {
            i += 1;
            break;
        }
        if arg == "-c" || arg == "-Command" || arg == "-command" {
            has_c = true;
        } else if matches!(
            arg.as_str(),
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"
        ) {
            i += 1;
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            has_c |= cluster.contains('c');
        } else if !arg.starts_with('-') && !arg.starts_with('+') {
            break;
        }
        i += 1;
    }
    if has_c { args.get(i).cloned() } else { None }
}

/// The value of the first of `names` (`-c STR`, `-cSTR`, `--command=STR`).
fn option_value(args: &[String], names: &[&str]) -> Option<String> {
    for (i, arg) in args.iter().enumerate() {
        for name in names {
            if arg == name {
                return args.get(i + 1).cloned();
            }
            if let Some(value) = arg.strip_prefix(&format!("{name}=")) {
                return Some(value.to_string());
            }
        }
    }
    None
}
