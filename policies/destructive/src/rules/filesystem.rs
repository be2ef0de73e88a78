//! The `filesystem` pack: recursive deletes and moves of what is not the project's.

use policy_common::shell::{Call, Via};

use super::{Flags, Hit, LineState, dangerous_target, hit};

/// The `filesystem` pack.
pub fn filesystem(call: &Call, state: &LineState) -> Option<Hit> {
    match call.program {
        "rm" | "unlink" | "rimraf" | "trash" => rm(call, state),
        "find" => find(call),
        "rsync" => {
            let flags = Flags::parse(
                call.args,
                &["-e", "--rsh", "--exclude", "--include", "--filter"],
            );
            let deletes = flags.long("delete")
                || flags.long("delete-before")
                || flags.long("delete-after")
                || flags.long("delete-during");
            let target = flags.operands.last()?;
            if deletes && let Some(what) = dangerous_target(target) {
                return hit(
                    "rsync-delete",
                    format!("rsync --delete onto {target} ({what})"),
                );
            }
            None
        }
        "mv" => {
            let flags = Flags::parse(call.args, &["-t", "--target-directory", "-S", "--suffix"]);
            let (last, sources) = flags.operands.split_last()?;
            if let Some(source) = sources.iter().find(|s| {
                dangerous_target(s)
                    .is_some_and(|w| w != "the whole working directory" || **s == ".")
            }) {
                return hit(
                    "mv-away",
                    format!(
                        "mv moves away {source} ({})",
                        dangerous_target(source).unwrap_or_default()
                    ),
                );
            }
            if *last == "/dev/null" {
                return hit("mv-away", "mv into /dev/null destroys the files");
            }
            None
        }
        p => code_delete(p, call.args),
    }
}

/// Recursive deletes in code given on the command line: `shutil.rmtree('/')`,
/// `fs.rmSync('~', {recursive: true})`, `FileUtils.rm_rf('/')`.
fn code_delete(program: &str, args: &[String]) -> Option<Hit> {
    let code = policy_common::shell::code::inline_code(program, args)?;
    for function in [
        "rmtree(",
        "rmSync(",
        "rm_rf(",
        "rm_r(",
        "remove_dir_all(",
        "rmdirSync(",
    ] {
        for literals in policy_common::shell::code::arguments(code, function) {
            if let Some(target) = literals.first()
                && let Some(what) = dangerous_target(target)
            {
                let name = function.trim_end_matches('(');
                return hit("rm-recursive", format!("{name} deletes {target} ({what})"));
            }
        }
    }
    None
}

/// A service's data under `/var/lib/NAME` or `/var/opt/NAME` (a database's files: GitLab.com's
/// 2017 outage began with `rm -rf` of its PostgreSQL data directory), apt's package lists
/// excepted (`rm -rf /var/lib/apt/lists/*` is how images shed them).
fn service_state(operand: &str) -> Option<&'static str> {
    operand.strip_prefix('/')?;
    let parts: Vec<&str> = operand.split('/').filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        ["var", "lib", "apt", ..] => None,
        ["var", "lib" | "opt", name, ..] if !name.starts_with('*') => Some("a service's data"),
        _ => None,
    }
}

fn rm(call: &Call, state: &LineState) -> Option<Hit> {
    let flags = Flags::parse(call.args, &[]);
    let recursive =
        flags.short('r') || flags.short('R') || flags.long("recursive") || call.program == "rimraf";
    if flags.long("no-preserve-root") {
        return hit(
            "rm-recursive",
            "rm --no-preserve-root deletes the root filesystem",
        );
    }
    if !recursive {
        return None;
    }
    for operand in &flags.operands {
        if let Some(what) = service_state(operand) {
            return hit(
                "rm-recursive",
                format!("recursive delete of {operand} ({what})"),
            );
        }
        if let Some(what) = dangerous_target(operand) {
            // `cd build && rm -rf *` deletes inside the directory the line went to.
            let relative = what == "the whole working directory";
            if relative
                && let Some(dir) = &state.cd
                && dangerous_target(dir).is_none()
            {
                continue;
            }
            let what = match (&state.cd, relative) {
                (Some(dir), true) => dangerous_target(dir).unwrap_or(what),
                _ => what,
            };
            return hit(
                "rm-recursive",
                format!("recursive delete of {operand} ({what})"),
            );
        }
    }
    if flags.operands.is_empty() && call.via == Via::Xargs {
        // `ls / | xargs rm -rf`: the operands are what feeds xargs.
        for (program, args) in call.upstream() {
            let fed = Flags::parse(&args, &[]);
            if matches!(program.as_str(), "ls" | "find" | "echo" | "printf" | "cat")
                && let Some(target) = fed.operands.iter().find(|a| dangerous_target(a).is_some())
            {
                return hit(
                    "rm-recursive",
                    format!("recursive delete of what {program} lists in {target}"),
                );
            }
        }
    }
    None
}

/// `find ROOT ... -delete` or `-exec rm`, without a filter that picks some files.
fn find(call: &Call) -> Option<Hit> {
    let args = call.args;
    let deletes = args.iter().any(|a| a == "-delete")
        || args.windows(2).any(|w| {
            matches!(w[0].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                && matches!(w[1].rsplit('/').next(), Some("rm" | "shred" | "unlink"))
        });
    if !deletes {
        return None;
    }
    let roots: Vec<&String> = args
        .iter()
        .take_while(|a| !a.starts_with('-') && !matches!(a.as_str(), "(" | "!" | "\\("))
        .collect();
    let roots: Vec<&str> = if roots.is_empty() {
        vec!["."]
    } else {
        roots.iter().map(|s| s.as_str()).collect()
    };
    let filtered = args.windows(2).any(|w| {
        matches!(
            w[0].as_str(),
            "-name"
                | "-iname"
                | "-path"
                | "-ipath"
                | "-regex"
                | "-iregex"
                | "-wholename"
                | "-newer"
                | "-mtime"
                | "-mmin"
                | "-user"
                | "-size"
                | "-empty"
        ) && !matches!(w[1].as_str(), "*" | "*.*" | ".*")
    });
    for root in roots {
        let Some(what) = dangerous_target(root) else {
            continue;
        };
        if !filtered {
            return hit(
                "find-delete",
                format!("find deletes everything under {root} ({what})"),
            );
        }
    }
    None
}
