//! What programs do with their arguments, as far as reading a command line needs: bash's
//! reserved words and builtins, the wrappers that run another command (`timeout`, `env`,
//! `sudo`), shells, interpreters and the task runners that read what to run from the project.
//! Tables for [`super::trace`].

/// Words that open or close a compound command: the command proper follows.
pub(super) const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time",
    "[[", "esac",
];

/// Programs that run the command in their arguments, with their options that take a value and
/// how many operands come before the command.
pub(super) const WRAPPERS: &[(&str, &[&str], usize)] = &[
    ("exec", &["-a"], 0),
    ("command", &[], 0),
    ("builtin", &[], 0),
    ("nohup", &[], 0),
    ("setsid", &[], 0),
    ("env", &["-u", "-C", "-S", "--unset", "--chdir"], 0),
    ("nice", &["-n"], 0),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    (
        "sudo",
        &["-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"],
        0,
    ),
    (
        "xargs",
        &["-I", "-n", "-P", "-d", "-L", "-E", "-s", "-a"],
        0,
    ),
    ("stdbuf", &["-i", "-o", "-e"], 0),
];

/// Programs that read what to run from the project's own files (a Makefile, package.json's
/// scripts, a build script): what they run is not traced.
pub(super) const TASK_RUNNERS: &[&str] = &[
    "make", "gmake", "just", "task", "npm", "npx", "pnpm", "yarn", "cargo", "go", "gradle", "mvn",
    "rake", "poetry", "uv", "pipenv", "tox", "nox",
];

pub(super) const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh"];

/// Interpreters that run a script file, with the options that make them run code given
/// inline instead (which the hooks file itself holds, so the approval covers it).
pub(super) const INTERPRETERS: &[(&str, &[&str])] = &[
    ("python", &["-c"]),
    ("node", &["-e", "-p", "--eval", "--print"]),
    ("nodejs", &["-e", "-p", "--eval", "--print"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("Rscript", &["-e"]),
    ("deno", &["eval"]),
    ("bun", &["-e", "--eval"]),
    ("tsx", &["-e", "--eval"]),
    ("ts-node", &["-e", "--eval"]),
];

/// Options of interpreters that take a value (`-W ignore`, `-r ./setup.js`).
pub(super) const VALUE_OPTIONS: &[&str] = &["-W", "-X", "-r", "--require", "--import", "-I"];

/// bash's builtins (and `[`), which no `PATH` lookup finds; the reserved words are
/// [`RESERVED`].
#[rustfmt::skip]
pub(super) const BUILTINS: &[&str] = &[
    ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "case", "cd", "command",
    "compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo", "enable",
    "eval", "exec", "exit", "export", "false", "fc", "fg", "for", "function", "getopts", "hash",
    "help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf",
    "pushd", "pwd", "read", "readarray", "readonly", "return", "select", "set", "shift", "shopt",
    "source", "suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask",
    "unalias", "unset", "wait", "while", "until", "[[", "]]", "coproc",
];
