//! The `rce` pack (code from the network run unread: `curl | sh`, `bash <(curl)`,
//! `sh -c "$(curl)"`, a download run in the same line, reverse shells) and the `exfiltration`
//! pack (secrets and the environment sent to the network: `curl -d @~/.ssh/id_rsa`, `nc host <
//! key`, `scp ~/.aws/credentials host:`).

use policy_common::paths::secret_kind;
use policy_common::shell::{Call, Input, Script, Word, visit};

use super::{DOWNLOADERS, Flags, Hit, LineState, hit, is_interpreter, reads_code_from_stdin};

/// A script (a substitution's) runs a downloader.
fn downloads(script: &Script) -> bool {
    visit(script, &mut |call| {
        DOWNLOADERS.contains(&call.program).then_some(())
    })
    .is_some()
}

fn words_download(words: &[Word], process_only: bool) -> bool {
    words
        .iter()
        .filter(|w| !process_only || w.process)
        .any(|w| w.substitutions.iter().any(downloads))
}

/// The `rce` pack.
pub fn rce(call: &Call, state: &LineState) -> Option<Hit> {
    let program = call.program;
    if reads_code_from_stdin(call)
        && let Some((downloader, _)) = call
            .upstream()
            .iter()
            .find(|(p, _)| DOWNLOADERS.contains(&p.as_str()))
    {
        return hit(
            "pipe-to-shell",
            format!("{downloader} output piped into {program} runs unread code"),
        );
    }
    let runs_code = is_interpreter(program) || matches!(program, "eval" | "source" | ".");
    if runs_code && words_download(&call.command.words, false) {
        let how = if words_download(&call.command.words, true) {
            "<(...)"
        } else {
            "$(...)"
        };
        return hit(
            "download-exec",
            format!("{program} runs a download through {how}"),
        );
    }
    if is_interpreter(program) || program.starts_with("./") || program.contains('/') {
        let script = if is_interpreter(program) {
            call.args
                .iter()
                .find(|a| !a.starts_with('-'))
                .map(String::as_str)
        } else {
            Some(program)
        };
        if let Some(script) = script {
            let name = script.rsplit('/').next().unwrap_or(script);
            if state.downloaded.iter().any(|d| d == name) {
                return hit(
                    "download-exec",
                    format!("runs {name} right after downloading it"),
                );
            }
        }
    }
    let dev_tcp = |text: &str| text.contains("/dev/tcp/") || text.contains("/dev/udp/");
    if is_interpreter(program)
        && call
            .command
            .redirects
            .iter()
            .any(|r| dev_tcp(&r.target.text))
    {
        return hit(
            "reverse-shell",
            format!("{program} connected to /dev/tcp is a remote shell"),
        );
    }
    if matches!(
        program,
        "nc" | "ncat" | "netcat" | "nc.traditional" | "nc.openbsd"
    ) && call
        .args
        .iter()
        .any(|a| a == "-e" || a == "-c" || a.starts_with("--exec") || a.starts_with("--sh-exec"))
    {
        return hit(
            "reverse-shell",
            format!("{program} -e hands a shell to the network"),
        );
    }
    if program == "socat"
        && call
            .args
            .iter()
            .any(|a| a.to_lowercase().contains("exec:") || a.to_lowercase().contains("system:"))
    {
        return hit("reverse-shell", "socat exec: hands a shell to the network");
    }
    None
}

/// Records what a call downloads to a file (`curl -o f`, `wget URL`, `wget -O f`), for the
/// `download-exec` rule of later calls.
pub fn note_download(call: &Call, state: &mut LineState) {
    let (named, remote_name): (&[&str], &[&str]) = match call.program {
        "curl" => (&["-o", "--output"], &["-O", "--remote-name"]),
        "wget" => (&["-O", "--output-document"], &[]),
        _ => return,
    };
    let mut file = None;
    let mut by_url = call.program == "wget";
    for (i, arg) in call.args.iter().enumerate() {
        if named.contains(&arg.as_str()) {
            file = call.args.get(i + 1).cloned();
        } else if let Some(value) = arg
            .strip_prefix("--output=")
            .or_else(|| arg.strip_prefix("--output-document="))
        {
            file = Some(value.to_string());
        } else if remote_name.contains(&arg.as_str()) {
            by_url = true;
        } else if call.program == "wget"
            && arg.starts_with('-')
            && !arg.starts_with("--")
            && arg.ends_with('O')
        {
            // `-qO file`, `-qO-`
            file = call.args.get(i + 1).cloned();
        } else if call.program == "wget" && arg.starts_with("-") && arg.contains("O-") {
            file = Some("-".to_string());
        }
    }
    match file {
        Some(file) if file != "-" => state
            .downloaded
            .push(file.rsplit('/').next().unwrap_or(&file).to_string()),
        Some(_) => {}
        None if by_url => {
            for url in call.args.iter().filter(|a| a.contains("://")) {
                if let Some(name) = url.rsplit('/').next().filter(|n| !n.is_empty()) {
                    state.downloaded.push(name.to_string());
                }
            }
        }
        None => {}
    }
}

/// Programs that print what they read, so that their output is the file's content.
const READERS: &[&str] = &[
    "cat", "base64", "tar", "zip", "gzip", "xxd", "od", "head", "tail", "gpg", "openssl", "less",
    "more", "strings", "bzip2", "xz", "zstd", "hexdump", "tac", "sed", "awk", "jq", "cut",
];
const SENDERS: &[&str] = &[
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "nc.traditional",
    "nc.openbsd",
];

/// A secret the command reads (`cat ~/.ssh/id_rsa`), or the environment (`env`, `printenv`).
fn reads_secret(program: &str, args: &[String]) -> Option<String> {
    if matches!(program, "env" | "printenv" | "set" | "export" | "declare")
        && args.iter().all(|a| a.starts_with('-'))
    {
        return Some("the environment".to_string());
    }
    if !READERS.contains(&program) {
        return None;
    }
    args.iter()
        .filter(|a| !a.starts_with('-') || a.len() == 1)
        .find_map(|a| secret_kind(a, None).map(|kind| format!("{a} ({kind})")))
}

fn upstream_secret(call: &Call) -> Option<String> {
    call.upstream()
        .iter()
        .find_map(|(program, args)| reads_secret(program, args))
}

fn substitution_secret(words: &[Word]) -> Option<String> {
    words
        .iter()
        .flat_map(|w| &w.substitutions)
        .find_map(|script| visit(script, &mut |inner| reads_secret(inner.program, inner.args)))
}

/// The `exfiltration` pack.
pub fn exfiltration(call: &Call) -> Option<Hit> {
    let program = call.program;
    let to_network = |secret: String| {
        hit(
            "send-secret",
            format!("{program} sends {secret} to the network"),
        )
    };
    for redirect in &call.command.redirects {
        if redirect.writes_file()
            && (redirect.target.text.contains("/dev/tcp/")
                || redirect.target.text.contains("/dev/udp/"))
        {
            let secret = reads_secret(program, call.args).or_else(|| upstream_secret(call));
            if let Some(secret) = secret {
                return to_network(secret);
            }
        }
    }
    match program {
        "curl" | "http" | "https" | "xh" => {
            let data_options = [
                "-d",
                "--data",
                "--data-binary",
                "--data-raw",
                "--data-urlencode",
                "--json",
                "-F",
                "--form",
                "--form-string",
                "-T",
                "--upload-file",
            ];
            let mut i = 0;
            while let Some(arg) = call.args.get(i) {
                let (name, inline) = match arg.split_once('=') {
                    Some((name, value)) if name.starts_with("--") => {
                        (name, Some(value.to_string()))
                    }
                    _ => (arg.as_str(), None),
                };
                if data_options.contains(&name) {
                    let value = inline
                        .or_else(|| call.args.get(i + 1).cloned())
                        .unwrap_or_default();
                    let file = value.rsplit_once(['@', '<']).map(|(_, f)| f).unwrap_or(
                        if matches!(name, "-T" | "--upload-file") {
                            value.as_str()
                        } else {
                            ""
                        },
                    );
                    if file == "-" {
                        if let Some(secret) = upstream_secret(call) {
                            return to_network(secret);
                        }
                    } else if let Some(kind) = secret_kind(file, None) {
                        return to_network(format!("{file} ({kind})"));
                    }
                    i += usize::from(!arg.contains('='));
                } else if program != "curl"
                    && let Some((_, file)) = arg.split_once('@').filter(|(k, _)| !k.contains('/'))
                    && let Some(kind) = secret_kind(file, None)
                {
                    return to_network(format!("{file} ({kind})"));
                }
                i += 1;
            }
            if let Some(secret) = substitution_secret(&call.command.words) {
                return to_network(secret);
            }
            None
        }
        "wget" => {
            let file = call.args.iter().find_map(|a| {
                a.strip_prefix("--post-file=")
                    .or_else(|| a.strip_prefix("--body-file="))
            })?;
            secret_kind(file, None).and_then(|kind| to_network(format!("{file} ({kind})")))
        }
        p if SENDERS.contains(&p) => {
            if let Input::File(file) = &call.command.stdin
                && let Some(kind) = secret_kind(file, None)
            {
                return to_network(format!("{file} ({kind})"));
            }
            upstream_secret(call).and_then(to_network)
        }
        "scp" | "rsync" | "sftp" | "rclone" => {
            let flags = Flags::parse(
                call.args,
                &[
                    "-P",
                    "-i",
                    "-o",
                    "-F",
                    "-e",
                    "--rsh",
                    "-J",
                    "-c",
                    "-l",
                    "--exclude",
                    "--include",
                ],
            );
            let (dest, sources) = flags.operands.split_last()?;
            let remote = dest.contains(':') && !dest.starts_with('/') && !dest.starts_with('.');
            let secret = sources
                .iter()
                .find_map(|s| secret_kind(s, None).map(|kind| format!("{s} ({kind})")))?;
            remote.then(|| to_network(secret)).flatten()
        }
        _ => None,
    }
}
