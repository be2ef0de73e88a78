//! Wrappers peeled off a command to find the program it runs: `sudo` and `doas` with their
//! options, `env` with assignments and `-S`, `timeout` with its duration, `nice`, `ionice`,
//! `stdbuf`, `nohup`, `setsid`, `time`, `command`, `exec`, `strace`, `busybox`, `uv run`,
//! `bundle exec`, and paths (`/bin/rm` is `rm`).

/// The last component of a program path, lowercased; `\rm` and `"rm"` are already `rm`.
pub fn program_name(word: &str) -> String {
    let name = word.rsplit('/').next().unwrap_or(word);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    name.to_lowercase()
}

/// Wrappers and the options that take a value, for each.
const WRAPPERS: &[(&str, &[&str])] = &[
    (
        "sudo",
        &[
            "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group",
            "--chdir", "--prompt", "--host",
        ],
    ),
    ("doas", &["-u", "-C"]),
    ("command", &[]),
    ("builtin", &[]),
    ("exec", &["-a"]),
    ("nohup", &[]),
    ("setsid", &[]),
    ("time", &["-f", "-o", "--format", "--output"]),
    ("nice", &["-n", "--adjustment"]),
    ("ionice", &["-c", "-n", "--class", "--classdata"]),
    ("stdbuf", &["-i", "-o", "-e"]),
    ("unbuffer", &[]),
    ("caffeinate", &["-t", "-w"]),
    ("chronic", &[]),
    ("torsocks", &[]),
    ("proxychains", &["-f"]),
    ("proxychains4", &["-f"]),
    (
        "strace",
        &[
            "-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-X",
        ],
    ),
    ("ltrace", &["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-n"]),
    ("xvfb-run", &["-a", "-n", "-s", "-f", "-e", "-p"]),
];

/// Peels wrappers off `argv`: the wrappers found, then the command they run.
pub fn unwrap(argv: &[String]) -> (Vec<String>, Vec<String>) {
    let mut rest: Vec<String> = argv.to_vec();
    let mut wrappers = Vec::new();
    for _ in 0..16 {
        while rest.first().is_some_and(|w| is_assignment(w)) {
            rest.remove(0);
        }
        let Some(first) = rest.first() else { break };
        let name = program_name(first);
        let mut args: Vec<String> = rest[1..].to_vec();
        match name.as_str() {
            "env" => {
                let mut out = Vec::new();
                let mut i = 0;
                while i < args.len() {
                    let arg = &args[i];
                    if arg == "--" {
                        i += 1;
                        break;
                    } else if matches!(arg.as_str(), "-u" | "--unset" | "-C" | "--chdir") {
                        i += 2;
                    } else if arg == "-S" || arg == "--split-string" {
                        if let Some(split) = args.get(i + 1) {
                            out.extend(split.split_whitespace().map(str::to_string));
                        }
                        i += 2;
                        break;
                    } else if let Some(split) = arg.strip_prefix("-S") {
                        out.extend(split.split_whitespace().map(str::to_string));
                        i += 1;
                        break;
                    } else if arg.starts_with('-') || is_assignment(arg) {
                        i += 1;
                    } else {
                        break;
                    }
                }
                out.extend(args.drain(i.min(args.len())..));
                rest = out;
            }
            "timeout" => {
                let mut i = 0;
                while let Some(arg) = args.get(i) {
                    if matches!(arg.as_str(), "-s" | "--signal" | "-k" | "--kill-after") {
                        i += 2;
                    } else if arg.starts_with('-') {
                        i += 1;
                    } else {
                        break;
                    }
                }
                rest = args.get(i + 1..).unwrap_or_default().to_vec();
            }
            "command" if args.first().is_some_and(|a| a == "-v" || a == "-V") => {
                // `command -v x` looks a program up; nothing runs.
                return (wrappers, Vec::new());
            }
            "chrt" | "taskset" => {
                let mut i = 0;
                while args.get(i).is_some_and(|a| a.starts_with('-')) {
                    i += 1;
                }
                rest = args.get(i + 1..).unwrap_or_default().to_vec();
            }
            "busybox" => rest = args,
            "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye"
                if args.first().is_some_and(|a| a == "run") =>
            {
                rest =
                    skip_options(&args[1..], &["--with", "--python", "-p", "--env", "-e"]).to_vec();
            }
            "bundle" if args.first().is_some_and(|a| a == "exec") => rest = args[1..].to_vec(),
            _ => {
                let Some((_, with_value)) = WRAPPERS.iter().find(|(w, _)| *w == name) else {
                    break;
                };
                let mut i = 0;
                while let Some(arg) = args.get(i) {
                    if arg == "--" {
                        i += 1;
                        break;
                    }
                    if !arg.starts_with('-') {
                        break;
                    }
                    i += if with_value.contains(&arg.as_str()) {
                        2
                    } else {
                        1
                    };
                }
                // `nice -5 cmd` and `nice -n5 cmd` need nothing more.
                rest = args.get(i..).unwrap_or_default().to_vec();
            }
        }
        wrappers.push(name);
    }
    (wrappers, rest)
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

/// `args` after the leading options; `with_value` are the options that take a value.
pub(super) fn skip_options<'a>(args: &'a [String], with_value: &[&str]) -> &'a [String] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return &args[i + 1..];
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        i += if with_value.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    args.get(i..).unwrap_or_default()
}
