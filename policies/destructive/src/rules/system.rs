//! The `system` pack (overwritten system files, permissions opened or taken on system trees,
//! power and process control, fork bombs) and the `disks` pack's writes onto devices through
//! redirections and copies.

use policy_common::shell::Call;

use super::{Flags, Hit, block_device, dangerous_target, hit, startup_file, system_file};

/// The `system` pack.
pub fn system(call: &Call) -> Option<Hit> {
    for redirect in &call.command.redirects {
        let target = redirect.target.text.as_str();
        if !redirect.writes_file() {
            continue;
        }
        if let Some(what) = system_file(target) {
            return hit(
                "overwrite-system-file",
                format!("redirection writes {target} ({what})"),
            );
        }
        if startup_file(target) && redirect.op == policy_common::shell::RedirectOp::Write {
            return hit(
                "overwrite-system-file",
                format!("redirection replaces {target} (a shell startup file)"),
            );
        }
    }
    let program = call.program;
    let flags = Flags::parse(
        call.args,
        &[
            "-t",
            "--target-directory",
            "-m",
            "--mode",
            "-o",
            "-g",
            "-S",
            "-s",
            "--size",
            "-e",
            "--expression",
            "-f",
            "-n",
            "-u",
        ],
    );
    match program {
        "tee" | "cp" | "mv" | "install" | "ln" | "truncate" => {
            let targets: Vec<&str> = match program {
                "tee" | "truncate" => flags.operands.clone(),
                _ => flags.operands.last().copied().into_iter().collect(),
            };
            for target in targets {
                if let Some(what) = system_file(target) {
                    return hit(
                        "overwrite-system-file",
                        format!("{program} writes {target} ({what})"),
                    );
                }
                if startup_file(target) && program != "tee" {
                    return hit(
                        "overwrite-system-file",
                        format!("{program} replaces {target} (a shell startup file)"),
                    );
                }
            }
            None
        }
        "sed" | "perl" if flags.short('i') || flags.long("in-place") => {
            let target = flags.operands.iter().find(|o| system_file(o).is_some())?;
            hit(
                "overwrite-system-file",
                format!("{program} -i edits {target} in place"),
            )
        }
        "dd" => {
            let target = call.args.iter().find_map(|a| a.strip_prefix("of="))?;
            let what = system_file(target)?;
            hit(
                "overwrite-system-file",
                format!("dd writes {target} ({what})"),
            )
        }
        "chmod" | "chown" | "chgrp" => permissions(call, &flags),
        "shutdown" | "reboot" | "halt" | "poweroff" => {
            hit("power", format!("{program} stops the machine"))
        }
        "init" | "telinit"
            if flags
                .operands
                .first()
                .is_some_and(|r| *r == "0" || *r == "6") =>
        {
            hit("power", "init 0/6 stops the machine")
        }
        "systemctl" => {
            let verb = flags.operands.first()?;
            if matches!(
                *verb,
                "poweroff" | "reboot" | "halt" | "kexec" | "emergency" | "rescue"
            ) {
                return hit("power", format!("systemctl {verb} stops the machine"));
            }
            let unit = flags.operands.get(1)?;
            (matches!(*verb, "stop" | "disable" | "mask")
                && (unit.starts_with("ssh")
                    || unit.starts_with("network")
                    || unit.starts_with("systemd-networkd")))
            .then(|| Hit {
                rule: "lockout",
                what: format!("systemctl {verb} {unit} cuts off access to the machine"),
            })
        }
        "kill" | "pkill" | "killall" => {
            let all = call.args.iter().any(|a| a == "-1")
                && program == "kill"
                && call.args.iter().filter(|a| *a == "-1").count() >= 1
                && call.args.last().is_some_and(|a| a == "-1");
            all.then(|| Hit {
                rule: "kill-all",
                what: "kill -1 kills every process the user can".into(),
            })
        }
        "killall5" => hit("kill-all", "killall5 kills every process"),
        "iptables" | "ip6tables" | "nft"
            if call
                .args
                .iter()
                .any(|a| a == "-F" || a == "--flush" || a == "flush") =>
        {
            hit("lockout", format!("{program} flushes the firewall rules"))
        }
        "crontab" if flags.short('r') => {
            hit("crontab-remove", "crontab -r deletes every scheduled job")
        }
        "userdel" | "deluser" => hit("delete-user", format!("{program} deletes an account")),
        "passwd" if flags.short('d') => hit("delete-user", "passwd -d removes a password"),
        _ => None,
    }
}

fn permissions(call: &Call, flags: &Flags) -> Option<Hit> {
    let recursive = flags.short('R') || flags.long("recursive");
    let program = call.program;
    let mode = if program == "chmod" {
        flags.operands.first().copied()
    } else {
        None
    };
    let targets = flags.operands.get(1..).unwrap_or_default();
    if recursive
        && let Some(target) = targets
            .iter()
            .find(|t| dangerous_target(t).is_some() && **t != "." && **t != "*")
    {
        return hit(
            "permissions",
            format!(
                "{program} -R on {target} ({})",
                dangerous_target(target).unwrap_or_default()
            ),
        );
    }
    let setuid = mode.is_some_and(|m| {
        m.contains("+s") || (m.len() == 4 && (m.starts_with('4') || m.starts_with('6')))
    });
    if setuid && let Some(target) = targets.iter().find(|t| system_file(t).is_some()) {
        return hit("permissions", format!("chmod sets setuid on {target}"));
    }
    None
}

/// Fork bombs in a line's code (its quoted text left out: `printf ':(){ :|:& };:'` prints
/// one): a function that pipes itself into itself in the background (`:(){ :|:& };:`), or an
/// endless loop that starts processes in the background.
pub fn fork_bomb(line: &str) -> Option<Hit> {
    fork_bomb_in(&unquoted(line))
}

/// Fork bombs in what a call runs as code: a shell's `-c` string, `eval`'s, or the code of
/// `perl -e`, `python -c`, `ruby -e`.
pub fn fork_bomb_call(call: &Call) -> Option<Hit> {
    let code_option = match call.program {
        p if policy_common::shell::calls::SHELLS.contains(&p) => "-c",
        "eval" => return fork_bomb_in(&call.args.join(" ")),
        p if p.starts_with("python") => "-c",
        "perl" | "ruby" | "node" => "-e",
        _ => return None,
    };
    let at = call.args.iter().position(|a| {
        a == code_option
            || (a.starts_with('-') && !a.starts_with("--") && a.ends_with(&code_option[1..]))
    })?;
    fork_bomb_in(call.args.get(at + 1)?)
}

/// `line` with the text inside quotes blanked.
fn unquoted(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote = None;
    let mut escaped = false;
    for c in line.chars() {
        match quote {
            _ if escaped => {
                escaped = false;
                out.push(' ');
            }
            None if c == '\\' => {
                escaped = true;
                out.push(c);
            }
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                out.push(c);
            }
            None => out.push(c),
            Some(q) if c == q => {
                quote = None;
                out.push(c);
            }
            Some(_) => out.push(' '),
        }
    }
    out
}

fn fork_bomb_in(line: &str) -> Option<Hit> {
    let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    let mut search = compact.as_str();
    while let Some(at) = search.find("(){") {
        let name: String = search[..at]
            .chars()
            .rev()
            .take_while(|c| !matches!(c, ';' | '&' | '|' | '{' | '}' | '(' | ')' | '\'' | '"'))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let body = &search[at + 3..];
        let name = name.strip_prefix("function").unwrap_or(&name);
        if !name.is_empty()
            && (body.contains(&format!("{name}|{name}&"))
                || body.contains(&format!("{name}|{name}")) && body.contains('&'))
        {
            return hit(
                "fork-bomb",
                "a function that spawns itself endlessly (fork bomb)",
            );
        }
        search = &search[at + 3..];
    }
    let endless = compact.contains("whiletrue;do")
        || compact.contains("while:;do")
        || compact.contains("for((;;));do");
    if endless && (compact.contains("&done") || compact.contains("&;done")) {
        return hit(
            "fork-bomb",
            "an endless loop that starts background processes (fork bomb)",
        );
    }
    if compact.contains("forkwhilefork")
        || line.contains("fork while fork")
        || (compact.contains("os.fork()") && compact.contains("whileTrue"))
    {
        return hit("fork-bomb", "an endless fork loop (fork bomb)");
    }
    None
}

/// `yes | xargs -P 0 ...`: an endless producer driving unbounded parallel processes.
pub fn spawn_flood(call: &Call) -> Option<Hit> {
    if call.program != "xargs" {
        return None;
    }
    let unbounded = call.args.windows(2).any(|w| w[0] == "-P" && w[1] == "0")
        || call.args.iter().any(|a| a == "-P0" || a == "--max-procs=0");
    let endless = call.upstream().iter().any(|(p, _)| p == "yes");
    (unbounded && endless).then(|| Hit {
        rule: "fork-bomb",
        what: "yes | xargs -P 0 starts processes without end".into(),
    })
}

/// A write onto a block device through a redirection (`> /dev/sda`) or a copying program.
pub fn device_write(call: &Call) -> Option<Hit> {
    for redirect in &call.command.redirects {
        if redirect.writes_file() && block_device(&redirect.target.text) {
            return hit(
                "device-write",
                format!("writes onto the device {}", redirect.target.text),
            );
        }
    }
    if matches!(call.program, "cp" | "tee" | "cat" | "pv") {
        let target = call
            .args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .find(|a| block_device(a));
        if let Some(target) = target.filter(|_| call.program != "cat") {
            return hit(
                "device-write",
                format!("{} writes onto the device {target}", call.program),
            );
        }
    }
    None
}
