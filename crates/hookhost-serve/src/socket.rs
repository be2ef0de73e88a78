//! Where the daemon listens, and who may talk to it: a socket in a directory only the user can
//! open (checked at start), one daemon per socket (a lock beside it), and the peer's uid
//! checked on every connection.

use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

/// Why the daemon does not start on a socket: each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum SocketError {
    /// The directory could not be created or read.
    #[error("cannot create or read the socket directory {}", dir.display())]
    Dir {
        /// The directory.
        dir: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The directory belongs to someone else.
    #[error(
        "the socket directory {} belongs to uid {owner}, not to you (uid {uid}): another user \
         could answer your hook calls; remove it or pass --socket in a directory of yours",
        dir.display()
    )]
    NotOwned {
        /// The directory.
        dir: PathBuf,
        /// Its owner.
        owner: u32,
        /// This process's uid.
        uid: u32,
    },
    /// Others may open the directory.
    #[error(
        "the socket directory {} has mode {mode:o}: others could reach or replace the socket; \
         run `chmod 700 {}`",
        dir.display(),
        dir.display()
    )]
    Open {
        /// The directory.
        dir: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// Another daemon holds the socket.
    #[error(
        "a hookhost daemon already serves {}: stop it first (or pass another --socket)",
        socket.display()
    )]
    Taken {
        /// The socket.
        socket: PathBuf,
    },
    /// Something that is not a socket is where the socket goes.
    #[error("{} exists and is not a socket: move it away or pass another --socket", path.display())]
    NotASocket {
        /// The path.
        path: PathBuf,
    },
    /// The socket could not be bound.
    #[error("cannot listen on {}", socket.display())]
    Bind {
        /// The socket.
        socket: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

pub use hookhost_client::{socket_path, uid};

/// Creates the socket's directory (mode 0700) or checks the one there: owned by this user, no
/// group or other bits.
pub fn private_dir(socket: &Path) -> Result<PathBuf, SocketError> {
    let dir = socket
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let io = |source| SocketError::Dir {
        dir: dir.clone(),
        source,
    };
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(io(error)),
    }
    // Not followed: a symlink someone else planted is refused by its owner.
    let metadata = std::fs::symlink_metadata(&dir).map_err(io)?;
    if metadata.uid() != uid() {
        return Err(SocketError::NotOwned {
            dir,
            owner: metadata.uid(),
            uid: uid(),
        });
    }
    let mode = metadata.permissions().mode() & 0o7777;
    if !metadata.is_dir() || mode & 0o077 != 0 {
        return Err(SocketError::Open { dir, mode });
    }
    Ok(dir)
}

/// Takes the daemon's lock beside `socket` (held until the returned file is dropped): one
/// daemon per socket, even when two clients start one at the same moment.
pub fn lock(socket: &Path) -> Result<OwnedFd, SocketError> {
    let mut name = socket.as_os_str().to_owned();
    name.push(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&name)
        .map_err(|source| SocketError::Dir {
            dir: PathBuf::from(&name),
            source,
        })?;
    // SAFETY: flock only reads the descriptor, which `file` keeps open.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(SocketError::Taken {
            socket: socket.to_path_buf(),
        });
    }
    Ok(file.into())
}

/// Removes what a daemon that died left at `socket` (nobody answers on it); refuses a live one
/// and anything that is not a socket. Called with the lock held.
pub fn clear_stale(socket: &Path) -> Result<(), SocketError> {
    use std::os::unix::fs::FileTypeExt as _;
    let Ok(metadata) = std::fs::symlink_metadata(socket) else {
        return Ok(());
    };
    if !metadata.file_type().is_socket() {
        return Err(SocketError::NotASocket {
            path: socket.to_path_buf(),
        });
    }
    if std::os::unix::net::UnixStream::connect(socket).is_ok() {
        return Err(SocketError::Taken {
            socket: socket.to_path_buf(),
        });
    }
    std::fs::remove_file(socket).map_err(|source| SocketError::Bind {
        socket: socket.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_directory_of_ours_closed_to_others_is_used() {
        let root = tempfile::tempdir().unwrap();
        #[rustfmt::skip]
        let cases = [
            ("private", Some(0o700), None),
            ("created", None, None),
            ("group can enter", Some(0o710), Some("has mode 710")),
            ("others can read", Some(0o704), Some("has mode 704")),
            ("open", Some(0o777), Some("has mode 777: others could reach or replace the socket; run `chmod 700")),
        ];
        for (name, mode, refused) in cases {
            let dir = root.path().join(name);
            if let Some(mode) = mode {
                std::fs::create_dir(&dir).unwrap();
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).unwrap();
            }
            let result = private_dir(&dir.join("agent.sock"));
            match refused {
                None => {
                    assert_eq!(result.unwrap(), dir, "{name}");
                    let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
                    assert_eq!(mode & 0o777, 0o700, "{name}");
                }
                Some(expected) => {
                    let error = result.unwrap_err().to_string();
                    assert!(error.contains(expected), "{name}: {error}");
                }
            }
        }
    }
}
