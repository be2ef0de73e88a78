//! The daemon's loop: accept a connection, check its peer, read one request (bounded, with a
//! deadline), answer it on a task of its own with a cached runner, close. Nothing a client
//! sends (garbage, half a request, a huge length, silence) outlives its connection: the
//! request's buffers are bounded before they are allocated, a stalled client is dropped at the
//! read deadline, and a task that panics ends only its own connection.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinSet;

use super::cache::{self, RunnerCache};
use super::socket::{self, SocketError};
use super::wire::{self, Answer, Request};
use crate::agent::{self, AgentCall, AgentFormat, Caller, Prepared};

/// How the daemon runs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The socket it listens on.
    pub socket: PathBuf,
    /// Runners unused this long are dropped; `None`: never.
    pub evict_after: Option<Duration>,
    /// The daemon exits after this long without a connection; `None`: never.
    pub idle_exit: Option<Duration>,
    /// How long a client has to send its whole request, and to take the answer.
    pub io_timeout: Duration,
}

impl ServeOptions {
    /// Defaults on `socket`: evict after 10 minutes, exit after 30 idle, 10 s to send a
    /// request.
    pub fn new(socket: PathBuf) -> ServeOptions {
        ServeOptions {
            socket,
            evict_after: Some(Duration::from_secs(600)),
            idle_exit: Some(Duration::from_secs(1800)),
            io_timeout: Duration::from_secs(10),
        }
    }
}

/// A daemon bound to its socket, not yet serving: binding is where every refusal happens
/// (a directory others can open, a live daemon), so a caller can report it before detaching.
#[derive(Debug)]
pub struct Daemon {
    options: ServeOptions,
    listener: UnixListener,
    /// Held for the daemon's life: one daemon per socket.
    _lock: std::os::fd::OwnedFd,
    state: Arc<State>,
}

#[derive(Debug)]
struct State {
    uid: u32,
    cache: RunnerCache,
    /// This process's values of the variables that locate configuration, caches and
    /// telemetry: a caller whose values differ is answered with an error (its client answers
    /// in process), since this daemon would find other files than `agent-hook` does.
    located_by: Vec<(OsString, OsString)>,
    io_timeout: Duration,
}

impl Daemon {
    /// Checks the socket's directory, takes the lock, clears a stale socket and listens.
    /// Must be called within a tokio runtime.
    pub fn bind(options: ServeOptions) -> Result<Daemon, SocketError> {
        socket::private_dir(&options.socket)?;
        let lock = socket::lock(&options.socket)?;
        socket::clear_stale(&options.socket)?;
        let listener = UnixListener::bind(&options.socket).map_err(|source| SocketError::Bind {
            socket: options.socket.clone(),
            source,
        })?;
        let state = Arc::new(State {
            uid: socket::uid(),
            cache: RunnerCache::default(),
            located_by: locating(std::env::vars_os()),
            io_timeout: options.io_timeout,
        });
        Ok(Daemon {
            options,
            listener,
            _lock: lock,
            state,
        })
    }

    /// Serves until `shutdown` resolves or the idle period passes; then stops accepting,
    /// finishes the calls in flight and removes the socket.
    pub async fn serve(self, shutdown: impl std::future::Future<Output = ()>) {
        let Daemon {
            options, listener, ..
        } = &self;
        let mut shutdown = std::pin::pin!(shutdown);
        let mut tasks = JoinSet::new();
        let mut last_active = Instant::now();
        let shortest = [options.evict_after, options.idle_exit]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(Duration::from_secs(60));
        let mut tick = tokio::time::interval(
            (shortest / 4).clamp(Duration::from_millis(10), Duration::from_secs(30)),
        );
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    last_active = Instant::now();
                    match accepted {
                        Ok((stream, _)) => {
                            tasks.spawn(connection(stream, self.state.clone()));
                        }
                        // Out of descriptors, say: no one's call ends, and the next accept
                        // tries again after a pause rather than spinning.
                        Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                    }
                }
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {
                    // A panicked task ended only its own connection.
                    last_active = Instant::now();
                }
                _ = tick.tick() => {
                    if let Some(idle) = options.evict_after {
                        self.state.cache.evict(idle);
                    }
                    if options.idle_exit.is_some_and(|idle| tasks.is_empty() && last_active.elapsed() >= idle) {
                        break;
                    }
                }
                () = &mut shutdown => break,
            }
        }
        let _ = std::fs::remove_file(&options.socket);
        drop(self.listener);
        while tasks.join_next().await.is_some() {}
    }
}

/// The variables that locate hookhost's files and telemetry, with this process's values.
fn locating(env: impl Iterator<Item = (OsString, OsString)>) -> Vec<(OsString, OsString)> {
    let mut found: Vec<_> = env.filter(|(name, _)| locates(name)).collect();
    found.sort();
    found
}

fn locates(name: &OsString) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    let client_only = [
        super::SOCKET_ENV,
        super::DAEMON_ENV,
        super::TIMEOUT_ENV,
        super::CLIENT_LOG_ENV,
        super::BIN_ENV,
    ];
    (name.starts_with("HOOKHOST_") && !client_only.contains(&name))
        || name.starts_with("OTEL_")
        || ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"].contains(&name)
}

/// One connection: the peer checked, one request read and answered.
async fn connection(mut stream: UnixStream, state: Arc<State>) {
    let answer = match stream.peer_cred() {
        Ok(peer) if peer.uid() == state.uid => {
            match tokio::time::timeout(
                state.io_timeout,
                wire::read_request(&mut stream, agent::EVENT_MAX_BYTES),
            )
            .await
            {
                // A client that stalls is dropped without an answer.
                Err(_) => return,
                Ok(Err(error)) => Answer::Error(crate::text::error_chain(&error)),
                Ok(Ok((header, stdin))) => state.answer(header, stdin).await,
            }
        }
        Ok(peer) => Answer::Error(format!(
            "refused: this daemon serves uid {} only, and the caller is uid {}",
            state.uid,
            peer.uid()
        )),
        Err(error) => Answer::Error(format!("refused: cannot tell who the caller is: {error}")),
    };
    let _ = tokio::time::timeout(state.io_timeout, wire::write_answer(&mut stream, &answer)).await;
}

impl State {
    async fn answer(self: &Arc<State>, header: Request, stdin: Vec<u8>) -> Answer {
        let Some(format) = AgentFormat::from_name(&header.format) else {
            return Answer::Error(format!("unknown agent format {:?}", header.format));
        };
        let env = header.env;
        if locating(env.iter().cloned()) != self.located_by {
            return Answer::Error(
                "the caller's HOOKHOST_*, OTEL_*, HOME or XDG_* variables differ from this \
                 daemon's, so it would read other files: answer in process"
                    .to_string(),
            );
        }
        let caller = Caller {
            cwd: header.cwd,
            env: Some(env.into()),
        };
        self.answer_call(format, header.event.as_deref(), &stdin, &caller)
            .await
    }

    async fn answer_call(
        self: &Arc<State>,
        format: AgentFormat,
        event_arg: Option<&str>,
        stdin: &[u8],
        caller: &Caller,
    ) -> Answer {
        let call = match AgentCall::prepare(format, event_arg, stdin, caller) {
            Prepared::Answered(reply) => return Answer::Reply(reply.into()),
            Prepared::Call(call) => shared(call),
        };
        let key = cache::key(format, &call.cwd, caller);
        if let Some(runner) = self.cache.fresh(key, &call.cwd) {
            return Answer::Reply(call.finish(Ok(runner)).await.into());
        }
        let state = self.clone();
        // Loading reads files and may compile components: off the async workers.
        let loaded = tokio::task::spawn_blocking(move || {
            let runner = state.cache.runner(key, &call);
            (call, runner)
        })
        .await;
        match loaded {
            Ok((call, runner)) => Answer::Reply(call.finish(runner).await.into()),
            // The client answers in process, as if no daemon ran.
            Err(_) => Answer::Error("the daemon failed while loading the configuration".into()),
        }
    }
}

/// `call` set up for a runner that concurrent calls share: a larger wasm pool than one call
/// needs.
#[cfg_attr(not(feature = "wasm"), allow(unused_mut))]
fn shared(mut call: Box<AgentCall>) -> Box<AgentCall> {
    #[cfg(feature = "wasm")]
    {
        call.options.wasm_instances = 32;
    }
    call
}
