//! The compile cache's key: a per-user secret, kept outside the cache directory, that makes a
//! cache entry prove it is the compiled form of the component it is filed under.
//!
//! Anyone who can write the cache (a CI cache restored from another build, a synced or shared
//! home directory, a tool run in the project) can also recompute any checksum. A MAC under a key
//! they cannot read cannot be recomputed: entries and records made with another key (another
//! user's, another machine's) or edited in place fail the check and are compiled again.
//!
//! Location: `$HOOKHOST_CACHE_KEY`, else `cache.key` in hookhost's data directory
//! (`$HOOKHOST_DATA_DIR`, else `$XDG_DATA_HOME/hookhost`, else `~/.local/share/hookhost`, where
//! the approvals live too), never under the cache directory. Made at first use: 32 random
//! bytes in a file created exclusively with mode 0600, in a directory created 0700. Read only
//! when it is a regular file of the user with no permission for group or others, 32 bytes long.

use std::fs::File;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

/// The environment variable that names the key file.
pub const CACHE_KEY_ENV: &str = "HOOKHOST_CACHE_KEY";
/// The key file's name in the data directory.
const KEY_FILE: &str = "cache.key";
/// The key's length: BLAKE3's key.
const KEY_BYTES: usize = blake3::KEY_LEN;

/// Why the compile cache has no key, and so is not used: every wasm hook is compiled at load.
#[derive(Debug, thiserror::Error)]
pub enum CacheKeyError {
    /// None of the variables that locate it is set.
    #[error(
        "no place for the compile cache's key: set {CACHE_KEY_ENV} (or HOOKHOST_DATA_DIR, \
         XDG_DATA_HOME or HOME)"
    )]
    NoLocation,
    /// The key would sit in the directory it is meant to protect.
    #[error(
        "the compile cache's key {} is inside the cache directory {}: whoever can write the \
         cache could read it; keep it elsewhere",
        key.display(),
        dir.display()
    )]
    InsideCache {
        /// The key file.
        key: PathBuf,
        /// The cache directory.
        dir: PathBuf,
    },
    /// Creating, opening or reading it failed.
    #[error("cannot {action} the compile cache's key {}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The key file, or its directory.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// It is a directory, a device, a FIFO.
    #[error("the compile cache's key {} is not a regular file", path.display())]
    NotAFile {
        /// The key file.
        path: PathBuf,
    },
    /// Another user made it, so another user knows it.
    #[error(
        "the compile cache's key {} belongs to user {owner}, not to this user ({user})",
        path.display()
    )]
    NotOwned {
        /// The key file.
        path: PathBuf,
        /// Its owner's uid.
        owner: u32,
        /// This process's effective uid.
        user: u32,
    },
    /// Group or others may read or write it: it may be known, so it proves nothing.
    #[error(
        "the compile cache's key {} is open to group or others (mode {mode:03o}); remove it: a \
         new one is made and the cache compiled again",
        path.display()
    )]
    Exposed {
        /// The key file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// Not a key this code made (truncated, or something else).
    #[error(
        "the compile cache's key {} is {len} bytes, not {KEY_BYTES}; remove it: a new one is made",
        path.display()
    )]
    Malformed {
        /// The key file.
        path: PathBuf,
        /// Its length.
        len: u64,
    },
    /// Without file owners and permissions the key's secrecy cannot be checked.
    #[error("the compile cache's key needs file owners and permissions, which this platform lacks")]
    Unsupported,
}

/// The per-user secret. Never printed.
#[derive(Clone)]
pub struct CacheKey([u8; KEY_BYTES]);

impl std::fmt::Debug for CacheKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CacheKey(..)")
    }
}

impl CacheKey {
    /// The key at `path`, made first if there is none. `cache_dir` is the directory it
    /// protects, which must not hold it.
    pub fn open(path: &Path, cache_dir: &Path) -> Result<CacheKey, CacheKeyError> {
        // A guard against a mistaken setting, not an attacker: lexical, as the user wrote it.
        if std::path::absolute(path)
            .ok()
            .zip(std::path::absolute(cache_dir).ok())
            .is_some_and(|(key, dir)| key.starts_with(dir))
        {
            return Err(CacheKeyError::InsideCache {
                key: path.to_path_buf(),
                dir: cache_dir.to_path_buf(),
            });
        }
        match read(path) {
            Err(CacheKeyError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                create(path)?;
                read(path)
            }
            result => result,
        }
    }

    /// A MAC under this key of `fields`, each length-prefixed so that no two lists of fields
    /// feed the same bytes; the first field names what is authenticated (domain separation).
    pub fn mac(&self, fields: &[&[u8]]) -> blake3::Hash {
        let mut hasher = blake3::Hasher::new_keyed(&self.0);
        for field in fields {
            hasher.update(&(field.len() as u64).to_le_bytes());
            hasher.update(field);
        }
        hasher.finalize()
    }
}

/// The default key file: see the module documentation.
pub fn default_path() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(path) = var(CACHE_KEY_ENV) {
        return Some(PathBuf::from(path));
    }
    Some(crate::dirs::data_dir()?.join(KEY_FILE))
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> CacheKeyError {
    let path = path.to_path_buf();
    move |source| CacheKeyError::Io {
        action,
        path,
        source,
    }
}

/// Reads the key, checking on the open file (not the path, which could change in between) that
/// it is the user's own regular file that nobody else may read or write.
#[cfg(unix)]
fn read(path: &Path) -> Result<CacheKey, CacheKeyError> {
    use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
    let mut file = File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(io("open", path))?;
    let meta = file.metadata().map_err(io("inspect", path))?;
    let path = path.to_path_buf();
    if !meta.is_file() {
        return Err(CacheKeyError::NotAFile { path });
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let user = unsafe { libc::geteuid() };
    if meta.uid() != user {
        return Err(CacheKeyError::NotOwned {
            path,
            owner: meta.uid(),
            user,
        });
    }
    if meta.mode() & 0o077 != 0 {
        return Err(CacheKeyError::Exposed {
            path,
            mode: meta.mode() & 0o777,
        });
    }
    if meta.len() != KEY_BYTES as u64 {
        return Err(CacheKeyError::Malformed {
            path,
            len: meta.len(),
        });
    }
    let mut key = [0; KEY_BYTES];
    file.read_exact(&mut key).map_err(io("read", &path))?;
    Ok(CacheKey(key))
}

#[cfg(not(unix))]
fn read(_: &Path) -> Result<CacheKey, CacheKeyError> {
    Err(CacheKeyError::Unsupported)
}

/// Makes a new key at `path`, unless another process makes one first (then that one is kept).
/// The key is written whole to a temp file created exclusively with mode 0600, then hard-linked
/// to its name, which fails if the name exists: no process ever reads a half-written key.
#[cfg(unix)]
fn create(path: &Path) -> Result<(), CacheKeyError> {
    use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io("create the directory of", path))?;
    let mut key = [0; KEY_BYTES];
    getrandom::fill(&mut key).map_err(|error| io("make", path)(error.into()))?;
    let tmp = dir.join(format!(
        ".{KEY_FILE}.{}.{}.tmp",
        std::process::id(),
        crate::durable::next_number()
    ));
    let written = (|| {
        let mut file = File::options()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        file.write_all(&key)?;
        file.sync_all()?;
        match std::fs::hard_link(&tmp, path) {
            Err(error) if error.kind() != std::io::ErrorKind::AlreadyExists => Err(error),
            _ => Ok(()),
        }
    })();
    let _ = std::fs::remove_file(&tmp);
    written.map_err(io("create", path))
}

#[cfg(not(unix))]
fn create(_: &Path) -> Result<(), CacheKeyError> {
    Err(CacheKeyError::Unsupported)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_missing_key_is_made_private_and_then_reused() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join("data/hookhost/cache.key");
        let cache = home.path().join("cache");
        let made = CacheKey::open(&path, &cache).unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        assert_eq!(std::fs::read(&path).unwrap(), made.0);
        assert_eq!(CacheKey::open(&path, &cache).unwrap().0, made.0);
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1,
            "no temp file is left"
        );
    }

    #[test]
    fn a_key_that_is_not_private_and_whole_is_refused() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join("cache.key");
        let cache = home.path().join("cache");
        CacheKey::open(&path, &cache).unwrap();
        let link = home.path().join("link.key");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        let short = home.path().join("short.key");
        std::fs::write(&short, b"0123").unwrap();
        std::fs::set_permissions(&short, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::create_dir(home.path().join("dir.key")).unwrap();
        type Check = fn(&CacheKeyError) -> bool;
        let cases: [(&str, PathBuf, Check); 4] = [
            ("a symlink", link, |e| {
                matches!(e, CacheKeyError::Io { action: "open", .. })
            }),
            ("a short file", short, |e| {
                matches!(e, CacheKeyError::Malformed { len: 4, .. })
            }),
            ("a directory", home.path().join("dir.key"), |e| {
                matches!(e, CacheKeyError::NotAFile { .. })
            }),
            ("inside the cache", cache.join("cache.key"), |e| {
                matches!(e, CacheKeyError::InsideCache { .. })
            }),
        ];
        for (name, key, expected) in cases {
            let error = CacheKey::open(&key, &cache).unwrap_err();
            assert!(expected(&error), "{name}: {error}");
        }
        assert!(!cache.exists(), "nothing was made in the cache");
        for bits in [0o640, 0o604, 0o620, 0o660] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(bits)).unwrap();
            let error = CacheKey::open(&path, &cache).unwrap_err();
            assert!(
                matches!(error, CacheKeyError::Exposed { mode, .. } if mode == bits),
                "{bits:o}: {error}"
            );
        }
    }

    #[test]
    fn macs_depend_on_the_key_and_on_where_fields_split() {
        let one = CacheKey([1; KEY_BYTES]);
        let two = CacheKey([2; KEY_BYTES]);
        assert_ne!(one.mac(&[b"a", b"b"]), two.mac(&[b"a", b"b"]));
        assert_ne!(one.mac(&[b"ab", b""]), one.mac(&[b"a", b"b"]));
        assert_eq!(one.mac(&[b"a", b"b"]), one.mac(&[b"a", b"b"]));
    }
}
