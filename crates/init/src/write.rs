//! Writing a file so that no reader ever sees half of it: a temporary file in the same
//! directory, written and synced, given the original's permissions, renamed over it, and the
//! directory synced. A settings file that is a symlink (a dotfiles checkout) is written where
//! it points, and the link stays.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Where writing `path` lands: its target when it is a symlink, else itself.
pub(crate) fn target(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Whether `path` is a symlink.
pub(crate) fn is_symlink(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
}

/// Replaces (or creates, with its directories) `path` with `contents`, atomically.
pub(crate) fn write_atomic(path: &Path, contents: &str) -> io::Result<()> {
    let target = target(path);
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir)?;
    let permissions = fs::metadata(&target).map(|meta| meta.permissions()).ok();
    let name = target
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let (temp_path, mut temp) = create_temp(&dir, &name)?;
    let written = (|| {
        temp.write_all(contents.as_bytes())?;
        temp.sync_all()?;
        if let Some(permissions) = permissions {
            fs::set_permissions(&temp_path, permissions)?;
        }
        drop(temp);
        fs::rename(&temp_path, &target)?;
        // The rename itself reaches the disk with the directory.
        fs::File::open(&dir)?.sync_all()
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp_path);
    }
    written
}

/// A new file beside `name` in `dir` that no one else has opened.
fn create_temp(dir: &Path, name: &str) -> io::Result<(PathBuf, fs::File)> {
    let pid = std::process::id();
    for attempt in 0..100 {
        let path = dir.join(format!(".{name}.hookhost-init.{pid}.{attempt}.tmp"));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free temporary file name",
    ))
}

/// Deletes `path` (a file init made, emptied again).
pub(crate) fn delete(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn keeps_the_mode_and_follows_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        fs::write(&real, "{}").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, "{\"a\": 1}").unwrap();
        assert!(is_symlink(&link), "the link stays a link");
        assert_eq!(fs::read_to_string(&real).unwrap(), "{\"a\": 1}");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let fresh = dir.path().join("new/dir/file.json");
        write_atomic(&fresh, "x").unwrap();
        assert_eq!(fs::read_to_string(&fresh).unwrap(), "x");
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }
}
