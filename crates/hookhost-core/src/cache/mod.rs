//! Where compiled wasm hooks are cached ([`CacheMode`], a field of the runner's options) and the
//! key that authenticates the cache (`key`). The cache itself (what is written, how an entry is
//! checked) is the wasm runtime's (`hookhost-wasm`); a runner only says where it lives.

use std::path::PathBuf;

mod key;

pub use key::{CACHE_KEY_ENV, CacheKey, CacheKeyError};

/// Where compiled hooks are cached.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CacheMode {
    /// `$HOOKHOST_CACHE_DIR` if set (`off` disables the cache), else
    /// `$XDG_CACHE_HOME/hookhost`, else `~/.cache/hookhost`; its key is `$HOOKHOST_CACHE_KEY`,
    /// else `cache.key` in hookhost's data directory (`$HOOKHOST_DATA_DIR`, else
    /// `$XDG_DATA_HOME/hookhost`, else `~/.local/share/hookhost`).
    #[default]
    Default,
    /// The cache in this directory; its key where [`CacheMode::Default`]'s is.
    Dir(PathBuf),
    /// The cache in `dir`, authenticated by the key file `key` (made if missing), which must
    /// lie outside `dir`: for a cache and a key of their own (tests, a sandboxed agent).
    Keyed {
        /// The cache directory.
        dir: PathBuf,
        /// The key file.
        key: PathBuf,
    },
    /// Compile every time.
    Disabled,
}

impl CacheMode {
    /// The directory this mode resolves to, if any.
    pub fn resolve(&self) -> Option<PathBuf> {
        match self {
            CacheMode::Dir(dir) | CacheMode::Keyed { dir, .. } => Some(dir.clone()),
            CacheMode::Disabled => None,
            CacheMode::Default => match std::env::var_os("HOOKHOST_CACHE_DIR") {
                Some(dir) if dir == "off" || dir.is_empty() => None,
                Some(dir) => Some(PathBuf::from(dir)),
                None => crate::dirs::cache_dir(),
            },
        }
    }

    /// The key file of this mode's cache, if it has a cache and the key a location.
    pub fn key_path(&self) -> Option<PathBuf> {
        match self {
            CacheMode::Keyed { key, .. } => Some(key.clone()),
            CacheMode::Disabled => None,
            CacheMode::Default | CacheMode::Dir(_) => self.resolve().and(key::default_path()),
        }
    }

    /// Makes the cache's key if it is missing, and checks that it can be used: the reason a
    /// load reported [`CacheOutcome::NoKey`], for `hookhost check`. `Ok` for a disabled cache.
    pub fn check_key(&self) -> Result<(), CacheKeyError> {
        self.open().map(drop)
    }

    /// The cache directory and its key; `Ok(None)` when the cache is disabled.
    #[doc(hidden)]
    pub fn open(&self) -> Result<Option<(PathBuf, CacheKey)>, CacheKeyError> {
        let Some(dir) = self.resolve() else {
            return Ok(None);
        };
        let path = self.key_path().ok_or(CacheKeyError::NoLocation)?;
        Ok(Some((dir.clone(), CacheKey::open(&path, &dir)?)))
    }
}
