//! Whether a socket can only be this user's daemon, checked before anything is sent: the
//! directory it is in belongs to this user and is closed to others (nobody else can put a
//! socket there, nor swap ours), the socket belongs to this user, and the process that accepted
//! the connection runs as this user (`SO_PEERCRED`). The daemon refuses to start in a directory
//! that fails the first check, and refuses a peer of another uid; this is the same from the
//! client's side, so that a socket another local user created first is never talked to.

use std::fmt;
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, PermissionsExt as _};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

/// Why the client will not talk to a socket. It answers in process instead.
#[derive(Debug)]
pub struct Untrusted {
    /// The socket.
    pub socket: PathBuf,
    why: Why,
}

#[derive(Debug)]
enum Why {
    DirOwner {
        dir: PathBuf,
        owner: u32,
    },
    DirMode {
        dir: PathBuf,
        mode: u32,
    },
    NotADir {
        dir: PathBuf,
    },
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    SocketOwner {
        owner: u32,
    },
    NotASocket,
    Peer {
        uid: u32,
    },
    PeerUnknown {
        error: std::io::Error,
    },
}

impl fmt::Display for Untrusted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let socket = self.socket.display();
        let uid = crate::uid();
        match &self.why {
            Why::DirOwner { dir, owner } => write!(
                f,
                "not using {socket}: its directory {} belongs to uid {owner}, not to you (uid \
                 {uid}); another user could answer your hook calls. Remove it, or set \
                 XDG_RUNTIME_DIR or HOOKHOST_SOCKET to a directory of yours",
                dir.display()
            ),
            Why::DirMode { dir, mode } => write!(
                f,
                "not using {socket}: its directory {} has mode {mode:o}, open to others; run \
                 `chmod 700 {}`",
                dir.display(),
                dir.display()
            ),
            Why::NotADir { dir } => write!(
                f,
                "not using {socket}: {} is not a directory (a symlink is not followed)",
                dir.display()
            ),
            Why::Unreadable { path, error } => {
                write!(
                    f,
                    "not using {socket}: cannot check {}: {error}",
                    path.display()
                )
            }
            Why::SocketOwner { owner } => write!(
                f,
                "not using {socket}: it belongs to uid {owner}, not to you (uid {uid})"
            ),
            Why::NotASocket => write!(f, "not using {socket}: it is not a socket"),
            Why::Peer { uid: peer } => write!(
                f,
                "not using {socket}: the process answering on it runs as uid {peer}, not as \
                 you (uid {uid})"
            ),
            Why::PeerUnknown { error } => write!(
                f,
                "not using {socket}: cannot tell who answers on it: {error}"
            ),
        }
    }
}

impl std::error::Error for Untrusted {}

/// Checks the socket's directory and the socket itself, without following symlinks. A socket
/// (or directory) that does not exist passes: connecting to it fails, which means no daemon.
pub(crate) fn check_path(socket: &Path) -> Result<(), Untrusted> {
    let untrusted = |why| Untrusted {
        socket: socket.to_path_buf(),
        why,
    };
    let uid = crate::uid();
    let dir = socket
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let stat = |path: &Path| match std::fs::symlink_metadata(path) {
        Ok(metadata) => Ok(Some(metadata)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(untrusted(Why::Unreadable {
            path: path.to_path_buf(),
            error,
        })),
    };
    let Some(metadata) = stat(dir)? else {
        return Ok(());
    };
    if !metadata.is_dir() {
        return Err(untrusted(Why::NotADir {
            dir: dir.to_path_buf(),
        }));
    }
    if metadata.uid() != uid {
        return Err(untrusted(Why::DirOwner {
            dir: dir.to_path_buf(),
            owner: metadata.uid(),
        }));
    }
    let mode = metadata.permissions().mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(untrusted(Why::DirMode {
            dir: dir.to_path_buf(),
            mode,
        }));
    }
    let Some(metadata) = stat(socket)? else {
        return Ok(());
    };
    if !metadata.file_type().is_socket() {
        return Err(untrusted(Why::NotASocket));
    }
    if metadata.uid() != uid {
        return Err(untrusted(Why::SocketOwner {
            owner: metadata.uid(),
        }));
    }
    Ok(())
}

/// Checks that the process that accepted `stream` runs as this user.
pub(crate) fn check_peer(stream: &UnixStream, socket: &Path) -> Result<(), Untrusted> {
    let untrusted = |why| Untrusted {
        socket: socket.to_path_buf(),
        why,
    };
    match peer_uid(stream) {
        Ok(peer) if peer == crate::uid() => Ok(()),
        Ok(peer) => Err(untrusted(Why::Peer { uid: peer })),
        Err(error) => Err(untrusted(Why::PeerUnknown { error })),
    }
}

/// The uid of the process at the other end of `stream`, as the kernel recorded it when the
/// connection was made.
fn peer_uid(stream: &UnixStream) -> std::io::Result<u32> {
    let mut credentials = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: the descriptor is open (owned by `stream`); `credentials` and `len` are valid for
    // writes of the sizes given.
    let status = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut credentials).cast(),
            &mut len,
        )
    };
    if status != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(credentials.uid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;

    #[test]
    fn only_a_socket_of_ours_in_a_closed_directory_of_ours_passes() {
        let root = std::env::temp_dir().join(format!("hookhost-trust-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir(&root).unwrap();
        let dir = |name: &str, mode: u32| {
            let dir = root.join(name);
            std::fs::create_dir(&dir).unwrap();
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).unwrap();
            dir
        };
        let private = dir("private", 0o700);
        let listener = UnixListener::bind(private.join("agent.sock")).unwrap();
        let open = dir("open", 0o755);
        let _open_listener = UnixListener::bind(open.join("agent.sock")).unwrap();
        let not_socket = dir("file", 0o700);
        std::fs::write(not_socket.join("agent.sock"), b"").unwrap();
        std::os::unix::fs::symlink(&private, root.join("link")).unwrap();
        #[rustfmt::skip]
        let cases: [(PathBuf, Option<&str>); 6] = [
            (private.join("agent.sock"), None),
            (private.join("absent.sock"), None),
            (root.join("missing/agent.sock"), None),
            (open.join("agent.sock"), Some("has mode 755, open to others; run `chmod 700")),
            (not_socket.join("agent.sock"), Some("it is not a socket")),
            (root.join("link/agent.sock"), Some("is not a directory (a symlink is not followed)")),
        ];
        for (socket, refused) in cases {
            match (check_path(&socket), refused) {
                (Ok(()), None) => {}
                (Err(error), Some(expected)) => {
                    let message = error.to_string();
                    assert!(
                        message.contains(expected),
                        "{}: {message}",
                        socket.display()
                    );
                }
                (result, _) => panic!("{}: {result:?}", socket.display()),
            }
        }
        // Our own listener: its peer is this process.
        let stream = UnixStream::connect(private.join("agent.sock")).unwrap();
        check_peer(&stream, &private.join("agent.sock")).unwrap();
        drop(listener);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
