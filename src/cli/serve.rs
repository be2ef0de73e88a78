//! `hookhost serve`: run the per-user daemon that answers `agent-hook --daemon` calls with
//! runners kept loaded (`hookhost::serve`). Also the client's way to start it detached.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, Result};
use hookhost::serve::{Daemon, ServeOptions, socket_path};

#[derive(clap::Args)]
pub struct ServeArgs {
    /// The socket to listen on [default: $HOOKHOST_SOCKET, else
    /// $XDG_RUNTIME_DIR/hookhost/agent.sock, else /tmp/hookhost-UID/agent.sock]
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Drop a project's loaded hooks after this long unused (0: never)
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = humantime::parse_duration)]
    evict_after: Duration,
    /// Exit after this long without a call (0: never, as under systemd)
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = humantime::parse_duration)]
    idle_exit: Duration,
    /// How long a client has to send its request (a stalled one is dropped)
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = humantime::parse_duration)]
    read_timeout: Duration,
}

pub fn run(args: ServeArgs) -> Result<ExitCode> {
    // Before any other thread starts: they inherit the blocked signals.
    let shutdown = termination()?;
    // One thread answers every call: a call's wasm guards compute on it for at most 2 ms
    // before they go on on a fiber that yields at every epoch tick, command hooks are awaited,
    // and loading a configuration runs on the blocking pool. A multi-threaded runtime measured
    // a 1.8x slower round trip and 4.7x the CPU per call (workers woken and parked per call).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_name("hookhost-serve")
        .build()
        .context("cannot start the async runtime")?;
    let socket = socket_path(args.socket.as_deref(), |name| std::env::var_os(name));
    let nonzero = |duration: Duration| (!duration.is_zero()).then_some(duration);
    let mut options = ServeOptions::new(socket.clone());
    options.evict_after = nonzero(args.evict_after);
    options.idle_exit = nonzero(args.idle_exit);
    options.io_timeout = args.read_timeout;
    let daemon = {
        let _entered = runtime.enter();
        Daemon::bind(options).with_context(|| format!("cannot serve on {}", socket.display()))?
    };
    eprintln!("hookhost serve: listening on {}", socket.display());
    runtime.block_on(daemon.serve(async {
        let _ = shutdown.await;
    }));
    Ok(ExitCode::SUCCESS)
}

/// Resolves on SIGTERM or SIGINT. The two are blocked in this thread (and so in every thread
/// started after it: the runtime's workers and blocking pool) and taken by one thread with
/// `sigwait`.
fn termination() -> Result<tokio::sync::oneshot::Receiver<()>> {
    // SAFETY: a zeroed sigset_t is what sigemptyset initialises; the calls only write `set`
    // and this thread's mask.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("hookhost-signals".into())
        .spawn(move || {
            let mut signal = 0;
            // SAFETY: sigwait reads `set` and writes `signal`.
            unsafe { libc::sigwait(&set, &mut signal) };
            let _ = sender.send(());
        })
        .context("cannot start the signal thread")?;
    Ok(receiver)
}

/// Starts `hookhost serve --socket SOCKET` detached from the caller, without waiting for it
/// (`hookhost_client::start_daemon`, with this binary).
pub fn start_detached(socket: &Path) {
    if let Ok(exe) = std::env::current_exe() {
        hookhost::serve::start_daemon(&exe, socket);
    }
}
