//! Which hosts a program connects to, read from its arguments: URLs, `user@host:path`,
//! `host port`, and the index and registry options of package managers.

use policy_common::shell::Call;

/// The code hosts and package registries allowed unless `builtin_allow = false`.
pub const BUILTIN: &[&str] = &[
    "github.com",
    "*.github.com",
    "*.githubusercontent.com",
    "gitlab.com",
    "*.gitlab.com",
    "bitbucket.org",
    "crates.io",
    "*.crates.io",
    "static.rust-lang.org",
    "sh.rustup.rs",
    "pypi.org",
    "files.pythonhosted.org",
    "registry.npmjs.org",
    "registry.yarnpkg.com",
    "proxy.golang.org",
    "sum.golang.org",
    "rubygems.org",
    "repo.maven.apache.org",
    "repo1.maven.org",
    "plugins.gradle.org",
    "api.nuget.org",
    "deb.debian.org",
    "security.debian.org",
    "archive.ubuntu.com",
    "security.ubuntu.com",
    "registry-1.docker.io",
    "auth.docker.io",
    "ghcr.io",
    "quay.io",
];

/// The host of a URL (`https://user@api.example.com:443/x` → `api.example.com`), or of an
/// scp-style address (`git@github.com:org/repo` → `github.com`).
pub fn host_of(target: &str) -> Option<String> {
    let target = target.trim_matches(|c| c == '"' || c == '\'');
    let rest = match target.split_once("://") {
        Some((_, rest)) => rest,
        None => {
            let (before, _) = target.split_once(':')?;
            if before.contains('/') || before.is_empty() {
                return None;
            }
            before
        }
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split_inclusive(']').next().unwrap_or(host)
    } else {
        host.split(':').next().unwrap_or(host)
    };
    (!host.is_empty()).then(|| host.to_lowercase())
}

/// A word a URL-taking program would read as a host (`example.com`, `api.example.com/x`).
fn bare_host(word: &str) -> Option<String> {
    if word.starts_with('-')
        || word.starts_with('/')
        || word.starts_with('.')
        || word.starts_with('@')
        || word.contains('=')
    {
        return None;
    }
    if word.contains("://") {
        return host_of(word);
    }
    if word.starts_with('$') {
        return Some(word.to_string());
    }
    let host = word.split(['/', ':']).next().unwrap_or(word);
    let dotted = host.contains('.')
        && host.rsplit('.').next().is_some_and(|tld| {
            tld.chars().all(|c| c.is_ascii_alphabetic()) && tld.len() >= 2
                || tld.chars().all(|c| c.is_ascii_digit())
        });
    (dotted || host == "localhost").then(|| host.to_lowercase())
}

/// The hosts `call` connects to.
pub fn of_call(call: &Call) -> Vec<String> {
    let args = call.args;
    let value_of = |names: &[&str]| -> Vec<String> {
        let mut out = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            for name in names {
                if arg == name {
                    out.extend(args.get(i + 1).cloned());
                } else if let Some(v) = arg.strip_prefix(&format!("{name}=")) {
                    out.push(v.to_string());
                }
            }
        }
        out
    };
    let urls = |values: Vec<String>| {
        values
            .iter()
            .filter_map(|v| host_of(v).or_else(|| v.starts_with('$').then(|| v.clone())))
            .collect::<Vec<_>>()
    };
    // Options whose value is not a URL, per program.
    let skip_values: &[&str] = match call.program {
        "curl" => &[
            "-o",
            "--output",
            "-H",
            "--header",
            "-d",
            "--data",
            "--data-binary",
            "--data-raw",
            "-F",
            "--form",
            "-X",
            "--request",
            "-u",
            "--user",
            "-A",
            "--user-agent",
            "-e",
            "--referer",
            "-T",
            "--upload-file",
            "-w",
            "--write-out",
            "-m",
            "--max-time",
            "--connect-timeout",
            "-b",
            "--cookie",
            "-c",
            "--cookie-jar",
            "--cacert",
            "--cert",
            "--key",
            "-K",
            "--config",
            "--retry",
            "-r",
            "--range",
            "-C",
        ],
        "wget" => &[
            "-O",
            "--output-document",
            "-o",
            "--output-file",
            "-P",
            "--directory-prefix",
            "--header",
            "-U",
            "--user-agent",
            "--post-data",
            "--post-file",
            "-t",
            "--tries",
            "-T",
            "--timeout",
        ],
        "http" | "https" | "xh" => &["-a", "--auth", "-o", "--output"],
        _ => &[],
    };
    match call.program {
        "curl" | "wget" | "http" | "https" | "xh" | "aria2c" | "lwp-request" => {
            let mut out = Vec::new();
            let mut i = 0;
            while let Some(arg) = args.get(i) {
                if skip_values.contains(&arg.as_str()) {
                    i += 2;
                    continue;
                }
                if let Some(v) = arg.strip_prefix("--url=") {
                    out.extend(host_of(v));
                } else if !arg.starts_with('-') {
                    // httpie's `POST`, items `a=b`, `Header:value` are not hosts.
                    let item = call.program != "curl"
                        && call.program != "wget"
                        && (arg.contains(":=") || arg.chars().all(|c| c.is_ascii_uppercase()));
                    if !item && let Some(host) = bare_host(arg) {
                        out.push(host);
                    }
                }
                i += 1;
            }
            out
        }
        "nc" | "ncat" | "netcat" | "telnet" | "socat" => {
            let operands: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
            if call.program == "socat" {
                return operands
                    .iter()
                    .filter_map(|a| {
                        let lower = a.to_lowercase();
                        let (_, rest) = lower
                            .split_once("tcp:")
                            .or_else(|| lower.split_once("tcp4:"))?;
                        Some(rest.split(':').next().unwrap_or_default().to_string())
                    })
                    .collect();
            }
            operands
                .first()
                .map(|h| vec![h.to_string()])
                .unwrap_or_default()
        }
        "ssh" | "mosh" => {
            let with_value = [
                "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o",
                "-p", "-Q", "-R", "-S", "-W", "-w",
            ];
            let mut i = 0;
            while let Some(arg) = args.get(i) {
                if with_value.contains(&arg.as_str()) {
                    i += 2;
                } else if arg.starts_with('-') {
                    i += 1;
                } else {
                    let host = arg.rsplit_once('@').map_or(arg.as_str(), |(_, h)| h);
                    return vec![host.to_lowercase()];
                }
            }
            Vec::new()
        }
        "scp" | "sftp" | "rsync" => args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .filter_map(|a| {
                if a.contains("://") {
                    host_of(a)
                } else {
                    a.split_once(':')
                        .filter(|(h, _)| !h.contains('/') && !h.is_empty())
                        .map(|(h, _)| h.rsplit_once('@').map_or(h, |(_, h)| h).to_lowercase())
                }
            })
            .collect(),
        "git" => {
            let operands: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
            let sub = operands.first().map(|s| s.as_str()).unwrap_or_default();
            let remote_verb = operands.get(1).map(|s| s.as_str()).unwrap_or_default();
            let wants_url = matches!(
                sub,
                "clone" | "push" | "fetch" | "pull" | "ls-remote" | "submodule"
            ) || (sub == "remote" && matches!(remote_verb, "add" | "set-url"));
            if !wants_url {
                return Vec::new();
            }
            operands
                .iter()
                .filter(|a| a.contains("://") || (a.contains('@') && a.contains(':')))
                .filter_map(|a| host_of(a))
                .collect()
        }
        "pip" | "pip3" | "uv" | "pipx" | "poetry" => urls(value_of(&[
            "-i",
            "--index-url",
            "--extra-index-url",
            "--find-links",
            "-f",
            "--trusted-host",
        ])),
        "npm" | "yarn" | "pnpm" | "npx" | "bun" => {
            let mut out = urls(value_of(&["--registry"]));
            if let Some(i) = args.iter().position(|a| a == "registry") {
                out.extend(args.get(i + 1).and_then(|v| host_of(v)));
            }
            out
        }
        "cargo" => urls(value_of(&["--index"])),
        "gem" | "bundle" => urls(value_of(&["--source", "-s"])),
        "go" => args
            .iter()
            .filter_map(|a| a.strip_prefix("GOPROXY="))
            .flat_map(|v| v.split(','))
            .filter_map(host_of)
            .collect(),
        _ => Vec::new(),
    }
}
