//! Attacks by another local user, run as one: the test (root, as in CI) makes up two uids that
//! no account uses, runs the victim's hook calls as one of them with `setpriv`, and plays the
//! attacker's part as the other (files it owns). Where the tests do not run as root they fail,
//! saying so: these are the checks that prove another user gets nothing.
//!
//! - A socket another user created first, where the client looks for the daemon without
//!   `XDG_RUNTIME_DIR` (`/tmp/hookhost-UID/agent.sock`): never connected to, nothing sent,
//!   the call answered in process.
//! - A process of another uid listening on a socket in the victim's own directory: refused by
//!   its peer credentials before anything is sent.
//! - The organisation's managed file swapped by another user (owned by them, in a directory
//!   they can write, or a link they planted): refused, and every tool call blocked.

use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::support::{Project, hook};

/// Two uids no account uses, unique to this test process: the victim and the attacker.
fn uids() -> (u32, u32) {
    let base = 3_000_000 + (std::process::id() % 100_000) * 4;
    (base, base + 1)
}

/// Fails the test unless it runs as root: making a second user needs it.
fn require_root() {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let euid = unsafe { libc::geteuid() };
    assert_eq!(
        euid, 0,
        "this test plays a second local user, which needs root (CI runs the tests as root; \
         run `sudo -E cargo test --test integration second_user`): running as uid {euid}"
    );
    let found = Command::new("setpriv").arg("--version").output();
    assert!(
        found.is_ok_and(|out| out.status.success()),
        "setpriv runs the victim's calls as another uid: install it (apt-get install util-linux)"
    );
}

/// `program` run as `uid` (its group the same number, no supplementary groups).
fn as_user(uid: u32, program: &str) -> Command {
    let mut command = Command::new("setpriv");
    command
        .arg(format!("--reuid={uid}"))
        .arg(format!("--regid={uid}"))
        .args(["--clear-groups", "--"])
        .arg(program);
    command
}

/// Gives `path` and everything under it to `uid`.
fn give(path: &Path, uid: u32) {
    std::os::unix::fs::chown(path, Some(uid), Some(uid)).unwrap();
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).unwrap() {
            give(&entry.unwrap().path(), uid);
        }
    }
}

/// A project the victim owns, with a guard that blocks `rm -rf`.
fn victims_project(victim: u32) -> Project {
    let project = Project::new();
    project.config(&hook(
        "PreToolUse",
        r#"if grep -q 'rm -rf'; then echo '{"action":"block","reason":"recursive delete"}'; else echo '{"action":"allow"}'; fi"#,
        "name = \"no-rm-rf\"",
    ));
    std::fs::create_dir_all(project.path(".home")).unwrap();
    give(project.root(), victim);
    project
}

/// The victim's `rm -rf /` through `hookhost-client` and `agent-hook --daemon`, looking for
/// the daemon where it does by default (no `XDG_RUNTIME_DIR`, no `HOOKHOST_SOCKET`).
fn victims_calls(project: &Project, victim: u32) -> Vec<(Output, String)> {
    let event = format!(
        r#"{{"session_id":"s","cwd":"{}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"rm -rf /"}}}}"#,
        project.root().display()
    );
    let client = {
        let mut command = as_user(victim, env!("CARGO_BIN_EXE_hookhost-client"));
        command
            .args(["--format", "claude", "--no-start"])
            .env("HOOKHOST_BIN", env!("CARGO_BIN_EXE_hookhost"));
        command
    };
    let agent_hook = {
        let mut command = as_user(victim, env!("CARGO_BIN_EXE_hookhost"));
        command.args(["agent-hook", "--format", "claude", "--daemon"]);
        command
    };
    [("client", client), ("agent-hook", agent_hook)]
        .into_iter()
        .map(|(name, mut command)| {
            let trace = project.path(&format!("trace-{name}"));
            command
                .current_dir(project.root())
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", project.path(".home"))
                .env("HOOKHOST_CONFIG_DIR", project.path(".home/config"))
                .env("HOOKHOST_DATA_DIR", project.path(".home/data"))
                .env("XDG_CACHE_HOME", project.path(".home/cache"))
                .env("HOOKHOST_CLIENT_LOG", &trace);
            let out = fed(&mut command, &event);
            (out, std::fs::read_to_string(&trace).unwrap_or_default())
        })
        .collect()
}

/// Runs `command` with `event` on its stdin, and what it said.
fn fed(command: &mut Command, event: &str) -> Output {
    use std::io::Write as _;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn assert_denied_in_process(calls: &[(Output, String)], why: &str) {
    for (out, trace) in calls {
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(r#""permissionDecision":"deny""#)
                && stdout.contains("blocked by no-rm-rf: recursive delete"),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            trace.starts_with("in process: ") && trace.contains(why),
            "{trace}"
        );
    }
}

/// Whether anyone connected to `listener` (a connection made and closed waits to be
/// accepted), and what they sent.
fn connections(listener: &UnixListener) -> Vec<Vec<u8>> {
    use std::io::Read as _;
    listener.set_nonblocking(true).unwrap();
    let mut sent = Vec::new();
    while let Ok((mut stream, _)) = listener.accept() {
        stream.set_nonblocking(false).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        let mut bytes = Vec::new();
        let _ = stream.read_to_end(&mut bytes);
        sent.push(bytes);
    }
    sent
}

/// Removes the directory when the test ends, whoever owns it.
struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_socket_another_user_created_first_is_never_talked_to() {
    require_root();
    let (victim, attacker) = uids();
    let project = victims_project(victim);
    // The attacker was first: /tmp/hookhost-VICTIM is theirs, open, with a socket in it.
    let dir = PathBuf::from(format!("/tmp/hookhost-{victim}"));
    let _cleanup = Cleanup(dir.clone());
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let socket = dir.join("agent.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o777)).unwrap();
    give(&dir, attacker);

    let calls = victims_calls(&project, victim);
    assert_denied_in_process(
        &calls,
        &format!(
            "not using {}: its directory {} belongs to uid {attacker}, not to you (uid {victim})",
            socket.display(),
            dir.display()
        ),
    );
    assert_eq!(
        connections(&listener),
        Vec::<Vec<u8>>::new(),
        "the attacker's socket was connected to"
    );
}

#[test]
fn a_process_of_another_uid_on_a_socket_in_our_own_directory_is_refused() {
    require_root();
    let (victim, _) = uids();
    let project = victims_project(victim);
    // The victim's own private directory and socket file, but the process that listens is
    // root's: its peer credentials say so.
    let dir = PathBuf::from(format!("/tmp/hookhost-{victim}"));
    let _cleanup = Cleanup(dir.clone());
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let socket = dir.join("agent.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    give(&dir, victim);

    let calls = victims_calls(&project, victim);
    assert_denied_in_process(
        &calls,
        &format!(
            "not using {}: the process answering on it runs as uid 0, not as you (uid {victim})",
            socket.display()
        ),
    );
    let sent = connections(&listener);
    assert_eq!(
        sent.len(),
        2,
        "both clients connected, then checked who answers"
    );
    assert!(
        sent.iter().all(Vec::is_empty),
        "something was sent: {sent:?}"
    );
}

#[test]
fn a_managed_file_another_user_can_swap_is_refused_and_every_tool_call_blocks() {
    require_root();
    if std::fs::symlink_metadata(hookhost::config::MANAGED_CONFIG_PATH).is_ok() {
        panic!(
            "this machine has {}, which wins over the variable these tests name their managed \
             file with: run them on a machine without it",
            hookhost::config::MANAGED_CONFIG_PATH
        );
    }
    let (victim, attacker) = uids();
    let project = victims_project(victim);
    let org = tempfile::tempdir().unwrap();
    std::fs::set_permissions(org.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let file = org.path().join("hooks.toml");
    let guard = hook(
        "PreToolUse",
        r#"echo '{"action":"allow"}'"#,
        "name = \"org-guard\"",
    );
    // Each way another user could put their own file in the organisation's place.
    let swap_dir = org.path().join("theirs");
    type Setup<'a> = Box<dyn Fn() -> PathBuf + 'a>;
    #[rustfmt::skip]
    let cases: [(&str, Setup, &str); 3] = [
        ("owned by another user", Box::new(|| {
            std::fs::write(&file, &guard).unwrap();
            std::os::unix::fs::chown(&file, Some(attacker), Some(attacker)).unwrap();
            file.clone()
        }), "it is owned by uid"),
        ("in a directory another user can write", Box::new(|| {
            std::fs::create_dir_all(&swap_dir).unwrap();
            let theirs = swap_dir.join("hooks.toml");
            std::fs::write(&theirs, &guard).unwrap();
            give(&swap_dir, attacker);
            // The victim's own file, in a directory the attacker can write (and swap it in).
            std::os::unix::fs::chown(&theirs, Some(victim), Some(victim)).unwrap();
            theirs
        }), "its directory"),
        ("a link to another user's file", Box::new(|| {
            let link = org.path().join("link.toml");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(swap_dir.join("hooks.toml"), &link).unwrap();
            link
        }), "must be owned by"),
    ];
    for (what, setup, says) in cases {
        let managed = setup();
        let event = crate::support::claude_bash_event(&project, "s", "ls");
        let mut command = as_user(victim, env!("CARGO_BIN_EXE_hookhost"));
        command
            .args(["agent-hook", "--format", "claude"])
            .current_dir(project.root())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", project.path(".home"))
            .env("HOOKHOST_CONFIG_DIR", project.path(".home/config"))
            .env(hookhost::config::MANAGED_CONFIG_ENV, &managed);
        let out = fed(&mut command, &event);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(r#""permissionDecision":"deny""#)
                && stdout.contains("the organisation's managed hooks.toml is refused")
                && stdout.contains(says),
            "{what}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
