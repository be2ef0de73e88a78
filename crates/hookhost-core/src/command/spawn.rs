//! Starting a command hook as the leader of a session of its own (see `session` for why).
//!
//! Why `posix_spawn` by hand rather than `tokio::process::Command`: on stable Rust, std can
//! make a child a session leader only through `pre_exec`, which turns its `posix_spawn` (vfork)
//! into a `fork` that copies the host's page tables. Measured on the development VM (spawning
//! a process with std): +0.9 ms per spawn in a small host, +8 ms at 50 MB resident, +21 ms at
//! 100 MB. `posix_spawn` with `POSIX_SPAWN_SETSID` costs what spawning into a process group
//! cost. (std's `CommandExt::setsid` does the same, but is unstable: rust-lang/rust#105376.)

use std::collections::BTreeMap;
use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use tokio::net::unix::pipe;
use tokio::task::JoinHandle;

use super::session::HookSession;

/// `{shell} -c {command}` in `cwd`, with the host's environment (or `base_env`) changed by
/// `env`.
pub(super) struct HookCommand<'a> {
    pub(super) shell: &'a Path,
    pub(super) command: &'a str,
    pub(super) cwd: &'a Path,
    /// The environment to start from instead of this process's (a daemon's caller's).
    pub(super) base_env: Option<&'a [(OsString, OsString)]>,
    /// Variables to set (`Some`) or remove (`None`), applied in order.
    pub(super) env: Vec<(&'a str, Option<&'a str>)>,
}

/// A running hook: its pipes, its exit, and its session (killed when dropped).
pub(super) struct RunningHook {
    pub(super) session: HookSession,
    pub(super) stdin: pipe::Sender,
    pub(super) stdout: pipe::Receiver,
    pub(super) stderr: pipe::Receiver,
    /// Resolves when the shell has exited and been reaped. Dropping it does not stop the
    /// reaping: the session is killed, and the blocking task collects the shell's status.
    pub(super) exit: JoinHandle<io::Result<ExitStatus>>,
}

impl HookCommand<'_> {
    /// Starts the hook. Must be called within a tokio runtime with I/O enabled.
    pub(super) fn spawn(&self) -> io::Result<RunningHook> {
        let env = self.environment();
        let program = c_string(resolve(self.shell, env.get(OsStr::new("PATH")))?.as_os_str())?;
        // argv[0] is the shell as configured, as std's Command passes it.
        let argv = [
            c_string(self.shell.as_os_str())?,
            c_string(OsStr::new("-c"))?,
            c_string(OsStr::new(self.command))?,
        ];
        let envp = env
            .into_iter()
            .map(|(mut key, value)| {
                key.push("=");
                key.push(value);
                c_string(&key)
            })
            .collect::<io::Result<Vec<_>>>()?;
        let cwd = c_string(self.cwd.as_os_str())?;

        let (stdin_child, stdin) = pipe_pair()?;
        let (stdout, stdout_child) = pipe_pair()?;
        let (stderr, stderr_child) = pipe_pair()?;
        let pid = spawn_session_leader(
            &program,
            &argv,
            &envp,
            &cwd,
            [&stdin_child, &stdout_child, &stderr_child],
        )?;
        // From here on the session is killed and the shell reaped, however this ends.
        let session = HookSession::new(pid);
        let exit = tokio::task::spawn_blocking(move || wait_for(pid));
        // The hook's ends are the hook's now: closing ours lets its stdout reach EOF.
        drop((stdin_child, stdout_child, stderr_child));
        Ok(RunningHook {
            session,
            stdin: pipe::Sender::from_owned_fd(stdin)?,
            stdout: pipe::Receiver::from_owned_fd(stdout)?,
            stderr: pipe::Receiver::from_owned_fd(stderr)?,
            exit,
        })
    }

    fn environment(&self) -> BTreeMap<OsString, OsString> {
        let mut env: BTreeMap<OsString, OsString> = match self.base_env {
            Some(base) => base.iter().cloned().collect(),
            None => std::env::vars_os().collect(),
        };
        for (key, value) in &self.env {
            match value {
                Some(value) => env.insert(key.into(), value.into()),
                None => env.remove(OsStr::new(key)),
            };
        }
        env
    }
}

/// The shell's path: as given when it has a slash, else the first executable match on the
/// hook's PATH (std's `Command` also searches the child's PATH).
fn resolve(shell: &Path, path_var: Option<&OsString>) -> io::Result<PathBuf> {
    if shell.as_os_str().as_bytes().contains(&b'/') {
        return Ok(shell.to_path_buf());
    }
    let dirs = path_var.map_or(OsStr::new("/usr/bin:/bin"), OsString::as_os_str);
    for dir in std::env::split_paths(dirs) {
        let candidate = dir.join(shell);
        let Ok(c_path) = c_string(candidate.as_os_str()) else {
            continue;
        };
        // SAFETY: access(2) only reads the NUL-terminated path.
        if unsafe { libc::access(c_path.as_ptr(), libc::X_OK) } == 0 {
            return Ok(candidate);
        }
    }
    Err(io::Error::from(io::ErrorKind::NotFound))
}

fn c_string(text: &OsStr) -> io::Result<CString> {
    CString::new(text.as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a NUL byte in the command, its environment or its working directory",
        )
    })
}

/// A pipe (read end, write end), both close-on-exec and neither numbered 0, 1 or 2 (so that
/// placing an end on the hook's stdio is always a real dup2, which clears close-on-exec).
fn pipe_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) = io::pipe()?;
    let above_stdio = |fd: OwnedFd| {
        if fd.as_raw_fd() > 2 {
            Ok(fd)
        } else {
            // try_clone dups with F_DUPFD_CLOEXEC at 3 or above.
            fd.try_clone()
        }
    };
    Ok((above_stdio(read.into())?, above_stdio(write.into())?))
}

fn check(code: libc::c_int) -> io::Result<()> {
    match code {
        0 => Ok(()),
        errno => Err(io::Error::from_raw_os_error(errno)),
    }
}

/// posix_spawn's file actions, destroyed when dropped; boxed so that they never move.
struct FileActions(Box<MaybeUninit<libc::posix_spawn_file_actions_t>>);

impl FileActions {
    fn new() -> io::Result<FileActions> {
        let mut actions = Box::new(MaybeUninit::uninit());
        // SAFETY: init writes a fresh object into the boxed space; only then is it used.
        check(unsafe { libc::posix_spawn_file_actions_init(actions.as_mut_ptr()) })?;
        Ok(FileActions(actions))
    }
}

impl Drop for FileActions {
    fn drop(&mut self) {
        // SAFETY: initialized in `new`, destroyed once.
        unsafe { libc::posix_spawn_file_actions_destroy(self.0.as_mut_ptr()) };
    }
}

/// posix_spawn's attributes, destroyed when dropped; boxed so that they never move.
struct SpawnAttributes(Box<MaybeUninit<libc::posix_spawnattr_t>>);

impl SpawnAttributes {
    fn new() -> io::Result<SpawnAttributes> {
        let mut attributes = Box::new(MaybeUninit::uninit());
        // SAFETY: init writes a fresh object into the boxed space; only then is it used.
        check(unsafe { libc::posix_spawnattr_init(attributes.as_mut_ptr()) })?;
        Ok(SpawnAttributes(attributes))
    }
}

impl Drop for SpawnAttributes {
    fn drop(&mut self) {
        // SAFETY: initialized in `new`, destroyed once.
        unsafe { libc::posix_spawnattr_destroy(self.0.as_mut_ptr()) };
    }
}

/// Spawns `program` with `argv` and `envp` as the leader of a new session (and of its process
/// group), in `cwd`, with `stdio` as its fds 0, 1 and 2, no blocked signals and default
/// SIGPIPE handling (the host may ignore SIGPIPE, and ignored signals survive exec). Returns
/// its pid; a failure to exec (a missing shell or cwd) is the error.
fn spawn_session_leader(
    program: &CString,
    argv: &[CString],
    envp: &[CString],
    cwd: &CString,
    stdio: [&OwnedFd; 3],
) -> io::Result<libc::pid_t> {
    let null_terminated = |strings: &[CString]| {
        let mut pointers: Vec<*mut libc::c_char> =
            strings.iter().map(|s| s.as_ptr().cast_mut()).collect();
        pointers.push(std::ptr::null_mut());
        pointers
    };
    let (argv, envp) = (null_terminated(argv), null_terminated(envp));
    let mut actions = FileActions::new()?;
    let mut attributes = SpawnAttributes::new()?;
    let mut pid: libc::pid_t = 0;
    // SAFETY: the actions and attributes are initialized and in place; every pointer passed
    // is to a NUL-terminated string or a NULL-terminated array of them, all of which outlive
    // the calls; the signal sets are initialized by sigemptyset before use.
    unsafe {
        let actions = actions.0.as_mut_ptr();
        let attributes = attributes.0.as_mut_ptr();
        for (target, fd) in stdio.iter().enumerate() {
            check(libc::posix_spawn_file_actions_adddup2(
                actions,
                fd.as_raw_fd(),
                target as libc::c_int,
            ))?;
        }
        check(libc::posix_spawn_file_actions_addchdir_np(
            actions,
            cwd.as_ptr(),
        ))?;
        let mut no_signals = MaybeUninit::<libc::sigset_t>::uninit();
        libc::sigemptyset(no_signals.as_mut_ptr());
        check(libc::posix_spawnattr_setsigmask(
            attributes,
            no_signals.as_ptr(),
        ))?;
        let mut sigpipe = MaybeUninit::<libc::sigset_t>::uninit();
        libc::sigemptyset(sigpipe.as_mut_ptr());
        libc::sigaddset(sigpipe.as_mut_ptr(), libc::SIGPIPE);
        check(libc::posix_spawnattr_setsigdefault(
            attributes,
            sigpipe.as_ptr(),
        ))?;
        // The constants' types differ across libc releases (`c_int` up to 0.2.185, `c_short`
        // in 0.2.191): cast each, so that an agent's older libc builds too.
        #[allow(clippy::unnecessary_cast)]
        let flags = libc::POSIX_SPAWN_SETSID as libc::c_short
            | libc::POSIX_SPAWN_SETSIGMASK as libc::c_short
            | libc::POSIX_SPAWN_SETSIGDEF as libc::c_short;
        check(libc::posix_spawnattr_setflags(attributes, flags))?;
        check(libc::posix_spawn(
            &mut pid,
            program.as_ptr(),
            actions,
            attributes,
            argv.as_ptr(),
            envp.as_ptr(),
        ))?;
    }
    Ok(pid)
}

/// Blocks until `pid` exits, reaps it, and returns its status.
fn wait_for(pid: libc::pid_t) -> io::Result<ExitStatus> {
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: waitpid(2) writes the status into a local; the pid is our child, reaped
        // only here.
        if unsafe { libc::waitpid(pid, &mut status, 0) } == pid {
            return Ok(ExitStatus::from_raw(status));
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}
