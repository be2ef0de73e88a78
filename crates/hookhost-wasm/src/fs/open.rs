//! `open-at` that opens only regular files and directories, and never blocks on the open.
//!
//! wasmtime-wasi opens whatever the path names, with a blocking `open(2)` on a tokio blocking
//! thread. A FIFO without a writer blocks that open forever: the call times out, but the thread
//! never comes back, and dropping the runtime then hangs waiting for it. A device can block on
//! open or on read the same way. So this open looks first (`lstat`/`stat`, refusing special
//! files without opening them), then opens with `O_NONBLOCK` (an open that races with a rename
//! cannot block either), checks what it got, and clears `O_NONBLOCK` on a regular file.
//!
//! Everything else (flags, permissions, the sandboxed path resolution of cap-primitives, the
//! descriptor it returns) follows wasmtime-wasi's `Dir::open_at`.

use std::io;
use std::os::fd::AsRawFd as _;
use std::path::Path;

use cap_primitives::fs::{FileTypeExt as _, FollowSymlinks, OpenOptions, OpenOptionsExt as _};
use wasmtime_wasi::OpenMode;
use wasmtime_wasi::filesystem::{Descriptor, Dir, File};
use wasmtime_wasi::p2::FsResult;
use wasmtime_wasi::p2::bindings::filesystem::types::{
    DescriptorFlags, ErrorCode, OpenFlags, PathFlags,
};

use super::FsRules;

/// What the blocking part of an open found.
enum Opened {
    Dir(std::fs::File),
    File(std::fs::File),
    NotDir,
    /// Not a regular file or directory: the kind, for the refusal.
    Special(&'static str),
}

pub(super) async fn open_at(
    dir: &Dir,
    path_flags: PathFlags,
    path: String,
    oflags: OpenFlags,
    flags: DescriptorFlags,
    rules: &FsRules,
) -> FsResult<Descriptor> {
    let mut opts = OpenOptions::new();
    let mut open_mode = OpenMode::empty();
    let create = oflags.contains(OpenFlags::CREATE);
    if create {
        if oflags.contains(OpenFlags::EXCLUSIVE) {
            opts.create_new(true);
        } else {
            opts.create(true);
        }
        opts.write(true);
        open_mode |= OpenMode::WRITE;
    }
    if oflags.contains(OpenFlags::TRUNCATE) {
        opts.truncate(true).write(true);
        open_mode |= OpenMode::WRITE;
    }
    if flags.contains(DescriptorFlags::READ) {
        opts.read(true);
        open_mode |= OpenMode::READ;
    }
    if flags.contains(DescriptorFlags::WRITE) {
        opts.write(true);
        open_mode |= OpenMode::WRITE;
    } else {
        // As in wasmtime-wasi: open for reading, so that the OS lets the open through and the
        // permissions decide what the descriptor may do.
        opts.read(true);
        open_mode |= OpenMode::READ;
    }
    let follow = if path_flags.contains(PathFlags::SYMLINK_FOLLOW) {
        FollowSymlinks::Yes
    } else {
        FollowSymlinks::No
    };
    opts._cap_fs_ext_follow(follow);
    opts._cap_fs_ext_nonblock(true);
    opts.custom_flags(libc::O_NOCTTY);
    if flags.intersects(
        DescriptorFlags::FILE_INTEGRITY_SYNC
            | DescriptorFlags::DATA_INTEGRITY_SYNC
            | DescriptorFlags::REQUESTED_WRITE_SYNC,
    ) {
        return Err(ErrorCode::Unsupported.into());
    }
    let want_dir = oflags.contains(OpenFlags::DIRECTORY);
    if want_dir && oflags.intersects(OpenFlags::CREATE | OpenFlags::EXCLUSIVE | OpenFlags::TRUNCATE)
    {
        return Err(ErrorCode::Invalid.into());
    }
    if dir.perms.write_not_permitted() && open_mode.contains(OpenMode::WRITE) {
        return Err(ErrorCode::NotPermitted.into());
    }

    let start = dir.dir.clone();
    let shown = path.clone();
    let opened = wasmtime_wasi::runtime::spawn_blocking(move || {
        open_blocking(&start, Path::new(&path), &opts, follow, want_dir)
    })
    .await?;
    let (perms, blocking) = (dir.perms, false);
    match opened {
        Opened::Dir(file) => Ok(Descriptor::Dir(Dir::new(file, perms, open_mode, blocking))),
        Opened::File(file) => Ok(Descriptor::File(File::new(
            file, perms, open_mode, blocking,
        ))),
        Opened::NotDir => Err(ErrorCode::NotDirectory.into()),
        Opened::Special(kind) => Err(rules.refuse(format_args!(
            "refused to open `{shown}`: it is a {kind}; hooks may open only regular files and \
             directories"
        ))),
    }
}

fn open_blocking(
    start: &std::fs::File,
    path: &Path,
    opts: &OpenOptions,
    follow: FollowSymlinks,
    want_dir: bool,
) -> io::Result<Opened> {
    // Look before opening, so that a device is never opened (an open can have effects). A
    // missing file is for the open to report or create.
    if let Ok(metadata) = cap_primitives::fs::stat(start, path, follow) {
        let t = metadata.file_type();
        if let Some(kind) = special_kind(
            t.is_fifo(),
            t.is_socket(),
            t.is_char_device(),
            t.is_block_device(),
        ) {
            return Ok(Opened::Special(kind));
        }
    }
    let file = cap_primitives::fs::open(start, path, opts)?;
    let file_type = file.metadata()?.file_type();
    if file_type.is_dir() {
        return Ok(Opened::Dir(file));
    }
    if !file_type.is_file() {
        // Swapped in after the look: refuse it too (the non-blocking open did not wait).
        use std::os::unix::fs::FileTypeExt as _;
        let t = file_type;
        let kind = special_kind(
            t.is_fifo(),
            t.is_socket(),
            t.is_char_device(),
            t.is_block_device(),
        );
        return Ok(Opened::Special(kind.unwrap_or("special file")));
    }
    if want_dir {
        return Ok(Opened::NotDir);
    }
    clear_nonblock(&file)?;
    Ok(Opened::File(file))
}

/// The name of a special file's kind (not a regular file, directory or symlink; the open itself
/// follows or refuses a symlink, as the path flags say).
fn special_kind(
    fifo: bool,
    socket: bool,
    char_device: bool,
    block_device: bool,
) -> Option<&'static str> {
    [
        (fifo, "FIFO"),
        (socket, "socket"),
        (char_device, "character device"),
        (block_device, "block device"),
    ]
    .into_iter()
    .find_map(|(is, kind)| is.then_some(kind))
}

fn clear_nonblock(file: &std::fs::File) -> io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is an open descriptor owned by `file` for the duration of both calls.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_without_a_writer_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let start = std::fs::File::open(dir.path()).unwrap();
        let mut opts = OpenOptions::new();
        opts.read(true)._cap_fs_ext_nonblock(true);
        for follow in [FollowSymlinks::No, FollowSymlinks::Yes] {
            let opened = open_blocking(&start, Path::new("fifo"), &opts, follow, false).unwrap();
            assert!(matches!(opened, Opened::Special("FIFO")));
        }
    }
}
