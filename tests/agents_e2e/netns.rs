//! Where the agents run: a network namespace of their own with only `lo` up, so that nothing
//! but the scripted model on 127.0.0.1 can be reached (no update check, no telemetry, no model
//! behind the tests' back), whatever switch an agent version forgets to honour.
//!
//! The namespace is made on a thread of its own (`unshare(CLONE_NEWNET)` moves only the calling
//! thread), which also binds the model's listener inside it; each agent is then spawned into
//! it (`setns` between fork and exec). Unix sockets are not network-namespaced, so
//! `hookhost-client` still reaches the daemon. Making a namespace needs root (CAP_SYS_ADMIN):
//! elsewhere the agents run in the host's network with their traffic switches off, and the
//! run says so.

use std::fs::File;
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// The agents' network: a loopback-only namespace, or the host's where none can be made.
#[derive(Debug)]
pub struct Loopback {
    /// `/proc/thread-self/ns/net` of the namespace, held open so that it outlives its thread.
    namespace: Option<File>,
    /// Why there is no namespace, for the run's report.
    pub note: Option<String>,
}

impl Loopback {
    /// A loopback-only namespace with a listener on 127.0.0.1 in it (an ephemeral port).
    pub fn new() -> (Loopback, TcpListener) {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
            let note = "not root: the agents share the host's network (their telemetry, update and non-essential traffic switches are off; run as root to confine them to a loopback-only namespace)";
            return (
                Loopback {
                    namespace: None,
                    note: Some(note.to_string()),
                },
                listener,
            );
        }
        std::thread::spawn(|| -> std::io::Result<(File, TcpListener)> {
            // SAFETY: unshare with CLONE_NEWNET affects only this thread, which only makes the
            // namespace and binds the listener.
            if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            loopback_up()?;
            let namespace = File::open("/proc/thread-self/ns/net")?;
            let listener = TcpListener::bind("127.0.0.1:0")?;
            Ok((namespace, listener))
        })
        .join()
        .expect("the namespace's thread")
        .map(|(namespace, listener)| {
            (
                Loopback {
                    namespace: Some(namespace),
                    note: None,
                },
                listener,
            )
        })
        .unwrap_or_else(|error| panic!("making a loopback-only network namespace: {error}"))
    }

    /// Makes `command` start inside the namespace.
    pub fn confine(&self, command: &mut Command) {
        let Some(namespace) = &self.namespace else {
            return;
        };
        let fd = namespace.as_raw_fd();
        // SAFETY: between fork and exec the closure calls only setns (async-signal-safe) on a
        // descriptor this process keeps open for the namespace's life.
        unsafe {
            command.pre_exec(move || {
                if libc::setns(fd, libc::CLONE_NEWNET) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

/// `ip link set lo up`, with the ioctl `ip` would use (no iproute2 needed).
fn loopback_up() -> std::io::Result<()> {
    // SAFETY: a plain datagram socket, closed below.
    let socket = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0) };
    if socket < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: ifreq is plain data; zeroed is a valid value.
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
        *slot = *byte as libc::c_char;
    }
    // SAFETY: SIOCGIFFLAGS and SIOCSIFFLAGS read and write `request`, which outlives the calls.
    let result = unsafe {
        if libc::ioctl(socket, libc::SIOCGIFFLAGS, &mut request) < 0 {
            -1
        } else {
            request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            libc::ioctl(socket, libc::SIOCSIFFLAGS, &request)
        }
    };
    let error = std::io::Error::last_os_error();
    // SAFETY: the socket is ours.
    unsafe { libc::close(socket) };
    if result < 0 { Err(error) } else { Ok(()) }
}
