//! The rules, pack by pack: each pack's module looks at one [`Call`] (a program with its
//! arguments, redirections and pipeline, wrappers peeled off) and says which rule it breaks.
//! What several packs share lives here: option parsing, and which paths are too important to
//! delete or overwrite.

pub mod cloud;
pub mod data;
pub mod filesystem;
pub mod git;
pub mod migrations;
pub mod remote;
pub mod system;

use policy_common::shell::Call;

/// A broken rule: its id within the pack and what the command would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The rule's id (`rm-recursive`).
    pub rule: &'static str,
    /// What the command would do, short (no secrets, no whole command line).
    pub what: String,
}

/// Builds a [`Hit`].
pub fn hit(rule: &'static str, what: impl Into<String>) -> Option<Hit> {
    Some(Hit {
        rule,
        what: what.into(),
    })
}

/// What one line has done so far, as the calls are visited in order (`cd` targets, files
/// downloaded).
#[derive(Debug, Default)]
pub struct LineState {
    /// The directory the last `cd` went to, when it was given.
    pub cd: Option<String>,
    /// Files a downloader wrote (`curl -o f`, `wget URL`), by file name.
    pub downloaded: Vec<String>,
}

/// Short flags (`-rf` → `r`, `f`) and long flags (`--force`) of `args` up to `--`, and the
/// operands (everything else; after `--`, everything).
#[derive(Debug)]
pub struct Flags<'a> {
    short: String,
    long: Vec<&'a str>,
    /// Arguments that are not options.
    pub operands: Vec<&'a str>,
}

impl<'a> Flags<'a> {
    /// Reads `args`; `with_value` are options whose next argument is their value.
    pub fn parse(args: &'a [String], with_value: &[&str]) -> Flags<'a> {
        let mut flags = Flags {
            short: String::new(),
            long: Vec::new(),
            operands: Vec::new(),
        };
        let mut i = 0;
        let mut done = false;
        while let Some(arg) = args.get(i) {
            i += 1;
            if done || arg == "-" || !arg.starts_with('-') {
                flags.operands.push(arg);
            } else if arg == "--" {
                done = true;
            } else if let Some(long) = arg.strip_prefix("--") {
                flags.long.push(long);
                if with_value.contains(&arg.as_str()) && !long.contains('=') {
                    i += 1;
                }
            } else {
                flags.short.push_str(&arg[1..]);
                if with_value.contains(&arg.as_str()) {
                    i += 1;
                }
            }
        }
        flags
    }

    /// A short flag letter was given (`-r`, `-rf`).
    pub fn short(&self, letter: char) -> bool {
        self.short.contains(letter)
    }

    /// A long flag was given (`--force`, `--force=x`).
    pub fn long(&self, name: &str) -> bool {
        self.long
            .iter()
            .any(|l| *l == name || l.strip_prefix(name).is_some_and(|r| r.starts_with('=')))
    }
}

/// Home directory spellings.
pub fn is_home(path: &str) -> bool {
    matches!(
        path,
        "~" | "$HOME" | "${HOME}" | "~/" | "$HOME/" | "${HOME}/"
    )
}

/// Top-level directories of the system whose contents an agent must never delete wholesale.
const SYSTEM_DIRS: &[&str] = &[
    "etc",
    "usr",
    "bin",
    "sbin",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "var",
    "boot",
    "home",
    "root",
    "opt",
    "srv",
    "sys",
    "proc",
    "dev",
    "snap",
    "mnt",
    "media",
    "Users",
    "System",
    "Library",
    "Applications",
    "private",
    "Volumes",
    "nix",
];
/// Of those, the ones whose every file matters.
const SYSTEM_DIRS_WHOLE: &[&str] = &[
    "etc", "boot", "bin", "sbin", "lib", "lib64", "usr", "System",
];

/// One-level home directories that are caches, safe to delete.
const HOME_CACHES: &[&str] = &[
    ".cache",
    ".npm",
    ".yarn",
    ".pnpm-store",
    ".m2",
    ".gradle",
    ".cargo/registry",
    ".cargo/git",
    ".rustup/tmp",
    ".nuget",
    ".bun",
    ".deno",
    ".local/share/Trash",
    "go/pkg",
];

/// Why deleting `operand` recursively (or overwriting it wholesale) destroys what is not the
/// project's: the root, the home directory or a top level of it, the system's directories,
/// the parent directory, the working directory itself, a repository's history.
pub fn dangerous_target(operand: &str) -> Option<&'static str> {
    let mut target = operand.trim().to_string();
    while target.contains("//") {
        target = target.replace("//", "/");
    }
    let before = target.len();
    for suffix in ["/*", "/.", "/.*", "/"] {
        while target.len() > 1 && target.ends_with(suffix) {
            target.truncate(target.len() - suffix.len());
        }
    }
    let under = target.len() < before;
    let target = target.as_str();
    if under && bare_variable(target) && !is_home(target) {
        return Some("the root filesystem whenever the variable is empty (ShellCheck SC2115)");
    }
    if matches!(target, "" | "/" | "/*") {
        return Some("the root filesystem");
    }
    if is_home(target) || target == "\"$HOME\"" {
        return Some("the home directory");
    }
    if matches!(target, "." | "*" | ".*" | "./*" | "./.*") {
        return Some("the whole working directory");
    }
    if target.split('/').all(|part| part == "..") {
        return Some("a parent directory");
    }
    if target == ".git" || target.ends_with("/.git") {
        return Some("the repository's history");
    }
    let home_rest = ["~/", "$HOME/", "${HOME}/"]
        .iter()
        .find_map(|prefix| target.strip_prefix(prefix));
    if let Some(rest) = home_rest {
        if rest == "*" || rest.is_empty() {
            return Some("the home directory");
        }
        if !rest.contains('/') && !HOME_CACHES.contains(&rest) && !rest.contains('$') {
            return Some("a top-level folder of the home directory");
        }
        return None;
    }
    if let Some(rest) = target.strip_prefix('/') {
        let parts: Vec<&str> = rest.split('/').collect();
        if parts.len() == 1 {
            return Some("a top-level directory of the system");
        }
        if SYSTEM_DIRS_WHOLE.contains(&parts[0])
            && !(parts[0] == "usr" && parts.get(1) == Some(&"local") && parts.len() > 2)
        {
            return Some("a system directory");
        }
        if SYSTEM_DIRS.contains(&parts[0]) && parts.len() == 2 && parts[0] != "tmp" {
            return Some("a system directory");
        }
    }
    None
}

/// `$NAME` or `${NAME}`: a variable with no `${NAME:?}` guard, empty when unset.
fn bare_variable(text: &str) -> bool {
    let name = text
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .or_else(|| text.strip_prefix('$'));
    name.is_some_and(|n| {
        n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Files and directories whose overwriting breaks the system: under `/etc`, `/boot`, the
/// system's binaries and libraries, kernel knobs, or a shell's startup file.
pub fn system_file(path: &str) -> Option<&'static str> {
    let path = path.trim();
    let prefixes: &[(&str, &str)] = &[
        ("/etc/", "a system configuration file"),
        ("/boot/", "the boot configuration"),
        ("/bin/", "a system binary"),
        ("/sbin/", "a system binary"),
        ("/usr/bin/", "a system binary"),
        ("/usr/sbin/", "a system binary"),
        ("/usr/lib/", "a system library"),
        ("/usr/lib64/", "a system library"),
        ("/lib/", "a system library"),
        ("/lib64/", "a system library"),
        ("/proc/sys", "a kernel setting"),
        ("/sys/", "a kernel setting"),
        ("/var/lib/dpkg/", "the package database"),
        ("/System/", "a system file"),
    ];
    prefixes
        .iter()
        .find(|(prefix, _)| path.starts_with(prefix) && path.len() > prefix.len())
        .map(|(_, what)| *what)
}

/// A shell startup file in the home directory (`~/.bashrc`, ...).
pub fn startup_file(path: &str) -> bool {
    let canonical = policy_common::paths::canonical(path, None);
    matches!(
        canonical.as_str(),
        "~/.bashrc"
            | "~/.bash_profile"
            | "~/.profile"
            | "~/.zshrc"
            | "~/.zprofile"
            | "~/.zshenv"
            | "~/.bash_login"
            | "~/.config/fish/config.fish"
    )
}

/// A block device (`/dev/sda`, `/dev/nvme0n1`, `/dev/disk2`, ...), not `/dev/null` and friends.
pub fn block_device(path: &str) -> bool {
    let Some(name) = path.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "loop",
        "sr", "nbd", "zd", "mtd",
    ]
    .iter()
    .any(|prefix| name.starts_with(prefix))
        || name.starts_with("disk/")
}

/// Programs that fetch from the network.
pub const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "http",
    "https",
    "xh",
    "aria2c",
    "iwr",
    "irm",
    "invoke-webrequest",
    "invoke-restmethod",
    "lwp-request",
    "gh",
];

/// The call's program reads commands or code from its arguments or stdin.
pub fn is_interpreter(program: &str) -> bool {
    policy_common::shell::calls::SHELLS.contains(&program)
        || program.starts_with("python")
        || matches!(
            program,
            "perl"
                | "ruby"
                | "node"
                | "php"
                | "bun"
                | "deno"
                | "lua"
                | "iex"
                | "invoke-expression"
                | "osascript"
                | "tclsh"
                | "busybox"
        )
}

/// `call`'s stdin is read as code: an interpreter given no script (or `-`, or `-s`).
pub fn reads_code_from_stdin(call: &Call) -> bool {
    if !is_interpreter(call.program) {
        return false;
    }
    if matches!(call.program, "iex" | "invoke-expression") {
        return true;
    }
    let mut args = call.args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-" | "-s" => return true,
            "--" => return args.next().is_none_or(|a| a == "-"),
            // Code or a module named on the command line: stdin is its data.
            "-c" | "-e" | "-m" | "-r" | "-E" | "--eval" | "--command" => return false,
            a if a.starts_with('-') => {
                if a.len() > 2 && !a.starts_with("--") && (a.contains('c') || a.contains('m')) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}
