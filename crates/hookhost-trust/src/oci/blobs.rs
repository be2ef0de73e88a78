//! The local content-addressed store of pulled bundles: `{dir}/blobs/sha256/{hex}`, the
//! layout of an OCI image layout's blobs.
//!
//! A blob's name is the SHA-256 of its bytes, so a file at a blob path is either complete and
//! right or detectably wrong: every write goes to a temp file in the same directory, is checked
//! against the expected digest, synced, and renamed into place (a rename is atomic), so a cut
//! download or a crash leaves at most a `.tmp` file, never a half-written blob. Readers check
//! the digest again on every load ([`BlobStore::check`]), so a blob changed on disk is refused.
//!
//! Location: `$HOOKHOST_STORE_DIR`, else `$XDG_CACHE_HOME/hookhost/store`, else
//! `~/.cache/hookhost/store` (beside the compile cache). Everything in it can be fetched again
//! with `hookhost lock`; deleting it costs a download, not a policy.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::source::reference::Digest;

/// The environment variable that moves the store.
pub const STORE_DIR_ENV: &str = "HOOKHOST_STORE_DIR";

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BlobStoreError {
    /// Neither `$HOOKHOST_STORE_DIR`, `$XDG_CACHE_HOME` nor `$HOME` is set.
    #[error("no directory for the bundle store: set {STORE_DIR_ENV} (or XDG_CACHE_HOME or HOME)")]
    NoDirectory,
    /// A file of the store could not be read or written.
    /// A file could not be read, written or created: which, and what the OS said.
    #[error(transparent)]
    Io(#[from] crate::durable::FileError),
    /// Bytes written under a digest are not the bytes of that digest. Nothing was stored.
    #[error("the bytes have digest {actual}, not the expected {expected}; nothing was stored")]
    DigestMismatch {
        /// The digest the blob was written under.
        expected: Digest,
        /// The digest of what arrived.
        actual: Digest,
    },
}

/// What the store holds for a digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlobState {
    /// A blob whose bytes have the digest, at this path.
    Present(PathBuf),
    /// No blob.
    Missing,
    /// A file whose bytes have another digest (changed on disk); it is replaced on the next
    /// fetch.
    Corrupt {
        /// The digest of the file as it is.
        actual: Digest,
    },
}

/// A content-addressed store of bundles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobStore {
    dir: PathBuf,
}

impl BlobStore {
    /// The store at its default location (see the module documentation), made absolute.
    pub fn open_default() -> Result<BlobStore, BlobStoreError> {
        let dir = std::env::var_os(STORE_DIR_ENV)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
            .or_else(|| crate::dirs::cache_dir().map(|dir| dir.join("store")))
            .ok_or(BlobStoreError::NoDirectory)?;
        let dir = std::path::absolute(&dir).map_err(|source| {
            BlobStoreError::Io(crate::durable::FileError {
                action: "resolve",
                path: dir.clone(),
                source,
            })
        })?;
        Ok(BlobStore { dir })
    }

    /// The store in `dir`.
    pub fn at(dir: impl Into<PathBuf>) -> BlobStore {
        BlobStore { dir: dir.into() }
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the blob of `digest` lives (whether or not it is there).
    pub fn blob_path(&self, digest: &Digest) -> PathBuf {
        self.dir.join("blobs/sha256").join(digest.hex())
    }

    /// Reads the blob of `digest` and checks its bytes against the digest.
    pub fn check(&self, digest: &Digest) -> Result<BlobState, BlobStoreError> {
        let path = self.blob_path(digest);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(BlobState::Missing);
            }
            Err(source) => {
                return Err(BlobStoreError::Io(crate::durable::FileError {
                    action: "read",
                    path,
                    source,
                }));
            }
        };
        let actual = Digest::of(&bytes);
        Ok(if &actual == digest {
            BlobState::Present(path)
        } else {
            BlobState::Corrupt { actual }
        })
    }

    /// Stores `bytes` under `digest` (atomically; refused when the digest does not match).
    pub fn write(&self, digest: &Digest, bytes: &[u8]) -> Result<PathBuf, BlobStoreError> {
        let mut writer = self.writer(digest)?;
        writer.write(bytes)?;
        writer.commit()
    }

    /// A writer for a blob that arrives in pieces. Nothing appears at the blob path until
    /// [`BlobWriter::commit`] has checked the digest; dropping the writer removes its temp file.
    pub fn writer(&self, digest: &Digest) -> Result<BlobWriter, BlobStoreError> {
        let path = self.blob_path(digest);
        let dir = path.parent().expect("a blob path has a directory");
        std::fs::create_dir_all(dir).map_err(|source| {
            BlobStoreError::Io(crate::durable::FileError {
                action: "create",
                path: dir.to_path_buf(),
                source,
            })
        })?;
        let temp = tempfile::Builder::new()
            .prefix(".")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|source| {
                BlobStoreError::Io(crate::durable::FileError {
                    action: "create a temp file in",
                    path: dir.to_path_buf(),
                    source,
                })
            })?;
        Ok(BlobWriter {
            temp,
            path,
            expected: digest.clone(),
            hasher: Sha256::new(),
            written: 0,
            head: Vec::new(),
        })
    }
}

/// A blob being written; see [`BlobStore::writer`].
#[derive(Debug)]
pub struct BlobWriter {
    temp: tempfile::NamedTempFile,
    path: PathBuf,
    expected: Digest,
    hasher: Sha256,
    written: u64,
    head: Vec<u8>,
}

/// How many leading bytes a writer keeps for [`BlobWriter::head`]: a WebAssembly header.
const HEAD_LEN: usize = 8;

impl BlobWriter {
    /// Appends `chunk` to the temp file.
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), BlobStoreError> {
        self.hasher.update(chunk);
        self.written += chunk.len() as u64;
        if self.head.len() < HEAD_LEN {
            let take = (HEAD_LEN - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..take]);
        }
        self.temp.as_file_mut().write_all(chunk).map_err(|source| {
            BlobStoreError::Io(crate::durable::FileError {
                action: "write",
                path: self.temp.path().to_path_buf(),
                source,
            })
        })
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The digest of the bytes written so far.
    pub fn digest(&self) -> Digest {
        Digest::from_hasher(self.hasher.clone())
    }

    /// The first bytes written (up to 8: enough to tell a component from a core module).
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// Checks the digest, syncs, and renames the blob into place; returns its path.
    pub fn commit(self) -> Result<PathBuf, BlobStoreError> {
        let actual = Digest::from_hasher(self.hasher);
        if actual != self.expected {
            return Err(BlobStoreError::DigestMismatch {
                expected: self.expected,
                actual,
            });
        }
        let io = |action, path: &Path| {
            let path = path.to_path_buf();
            move |source| {
                BlobStoreError::Io(crate::durable::FileError {
                    action,
                    path,
                    source,
                })
            }
        };
        self.temp
            .as_file()
            .sync_all()
            .map_err(io("sync", self.temp.path()))?;
        let path = self.path;
        self.temp
            .persist(&path)
            .map_err(|error| io("write", &path)(error.error))?;
        // The rename is durable once the directory entry is.
        if let Some(dir) = path.parent()
            && let Ok(dir) = std::fs::File::open(dir)
        {
            let _ = dir.sync_all();
        }
        Ok(path)
    }
}

/// The crate's one atomic write, where the CLI's bundle commands first found it.
pub use crate::durable::write_atomically as write_file_atomically;

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_files(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir.join("blobs/sha256"))
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn a_blob_is_stored_under_its_digest_and_checked_on_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = BlobStore::at(dir.path());
        let digest = Digest::of(b"\0asm component bytes");
        assert_eq!(store.check(&digest).unwrap(), BlobState::Missing);
        let path = store.write(&digest, b"\0asm component bytes").unwrap();
        assert_eq!(path, dir.path().join("blobs/sha256").join(digest.hex()));
        assert_eq!(
            store.check(&digest).unwrap(),
            BlobState::Present(path.clone())
        );

        std::fs::write(&path, b"\0asm tampered bytes").unwrap();
        assert_eq!(
            store.check(&digest).unwrap(),
            BlobState::Corrupt {
                actual: Digest::of(b"\0asm tampered bytes")
            }
        );
    }

    #[test]
    fn wrong_or_unfinished_bytes_never_reach_the_blob_path() {
        let dir = tempfile::tempdir().unwrap();
        let store = BlobStore::at(dir.path());
        let digest = Digest::of(b"the whole file");

        let error = store.write(&digest, b"other bytes").unwrap_err();
        assert!(
            matches!(error, BlobStoreError::DigestMismatch { .. }),
            "{error}"
        );
        assert_eq!(temp_files(dir.path()), Vec::<String>::new());

        // A download cut midway: the writer is dropped before commit.
        let mut writer = store.writer(&digest).unwrap();
        writer.write(b"the whole").unwrap();
        assert_eq!(
            temp_files(dir.path()).len(),
            1,
            "the temp file exists meanwhile"
        );
        drop(writer);
        assert_eq!(temp_files(dir.path()), Vec::<String>::new());
        assert_eq!(store.check(&digest).unwrap(), BlobState::Missing);
    }

    #[test]
    fn the_writer_keeps_the_header() {
        let dir = tempfile::tempdir().unwrap();
        let store = BlobStore::at(dir.path());
        let mut writer = store.writer(&Digest::of(b"\0asm\x0d\0\x01\0rest")).unwrap();
        for chunk in [&b"\0as"[..], b"m\x0d\0", b"\x01\0rest"] {
            writer.write(chunk).unwrap();
        }
        assert_eq!(writer.head(), b"\0asm\x0d\0\x01\0");
        assert_eq!(writer.written(), 12);
        writer.commit().unwrap();
    }
}
