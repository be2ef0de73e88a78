//! The on-disk compile cache: loading a hook the second time costs a deserialize, not a
//! compile.
//!
//! An entry lives at `{dir}/{engine}/{component}.cwasm`, where `{engine}` hashes wasmtime's
//! compatibility key (version and every setting that changes generated code) and
//! `{component}` is the SHA-256 of the component's bytes. An entry holds a magic line, the
//! SHA-256 of the compiled artefact, then the artefact. wasmtime does not checksum what it
//! deserializes (one flipped byte in the code section loads fine), so the digest is checked
//! before deserializing; a corrupt, truncated or foreign entry is recompiled and rewritten.
//! Writes go to a unique temp file renamed into place, so concurrent runners never see a
//! partial entry.
//!
//! Threat model: the cache directory belongs to the user running the agent. Someone who can
//! write there can also change the user's shell startup files; the digest protects against
//! corruption, not against that user.

use std::hash::{Hash as _, Hasher as _};
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

const MAGIC: &[u8] = b"hookhost-cwasm-1\n";

/// Where compiled hooks are cached.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CacheMode {
    /// `$HOOKHOST_CACHE_DIR` if set (`off` disables the cache), else
    /// `$XDG_CACHE_HOME/hookhost`, else `~/.cache/hookhost`.
    #[default]
    Default,
    /// This directory.
    Dir(PathBuf),
    /// Compile every time.
    Disabled,
}

impl CacheMode {
    /// The directory this mode resolves to, if any.
    pub fn resolve(&self) -> Option<PathBuf> {
        match self {
            CacheMode::Dir(dir) => Some(dir.clone()),
            CacheMode::Disabled => None,
            CacheMode::Default => match std::env::var_os("HOOKHOST_CACHE_DIR") {
                Some(dir) if dir == "off" || dir.is_empty() => None,
                Some(dir) => Some(PathBuf::from(dir)),
                None => std::env::var_os("XDG_CACHE_HOME")
                    .filter(|dir| !dir.is_empty())
                    .map(PathBuf::from)
                    .or_else(|| {
                        std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache"))
                    })
                    .map(|dir| dir.join("hookhost")),
            },
        }
    }
}

/// How a component was obtained, for reports and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Deserialized from a valid cache entry.
    Hit,
    /// Compiled, and the entry written.
    Compiled,
    /// Compiled; the existing entry was unusable and was replaced.
    Replaced,
    /// Compiled; the cache is disabled or could not be written.
    Uncached,
}

/// The compile cache of one engine.
#[derive(Debug, Clone)]
pub(crate) struct CompileCache {
    dir: Option<PathBuf>,
}

impl CompileCache {
    pub(crate) fn new(mode: &CacheMode) -> CompileCache {
        CompileCache {
            dir: mode.resolve(),
        }
    }

    /// The component for `bytes`, from the cache or compiled (and then cached).
    pub(crate) fn load(
        &self,
        engine: &Engine,
        bytes: &[u8],
        digest: &[u8; 32],
    ) -> wasmtime::Result<(Component, CacheOutcome)> {
        let Some(path) = self.entry_path(engine, digest) else {
            return Ok((
                Component::from_binary(engine, bytes)?,
                CacheOutcome::Uncached,
            ));
        };
        let existed = match std::fs::read(&path) {
            Ok(entry) => {
                if let Some(component) = deserialize_checked(engine, &entry) {
                    return Ok((component, CacheOutcome::Hit));
                }
                true
            }
            Err(_) => false,
        };
        let component = Component::from_binary(engine, bytes)?;
        let outcome = match component
            .serialize()
            .map(|artefact| write_entry(&path, &artefact))
        {
            Ok(Ok(())) if existed => CacheOutcome::Replaced,
            Ok(Ok(())) => CacheOutcome::Compiled,
            // The cache is an optimisation: failing to write it is not an error.
            _ => CacheOutcome::Uncached,
        };
        Ok((component, outcome))
    }

    fn entry_path(&self, engine: &Engine, digest: &[u8; 32]) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let engine_key = format!("engine-{:016x}", hasher.finish());
        Some(dir.join(engine_key).join(format!("{}.cwasm", hex(digest))))
    }
}

/// The artefact of a cache entry, if the entry is intact and wasmtime accepts it.
fn deserialize_checked(engine: &Engine, entry: &[u8]) -> Option<Component> {
    let rest = entry.strip_prefix(MAGIC)?;
    if rest.len() < 32 {
        return None;
    }
    let (expected, artefact) = rest.split_at(32);
    if Sha256::digest(artefact).as_slice() != expected {
        return None;
    }
    // SAFETY: the bytes are exactly what `Component::serialize` produced for an engine with the
    // same compatibility hash (the digest proves they are unchanged since this cache wrote
    // them), and wasmtime checks the version and settings recorded in the artefact.
    unsafe { Component::deserialize(engine, artefact) }.ok()
}

fn write_entry(path: &Path, artefact: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().expect("entries live in a directory");
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id(),
        unique()
    ));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        use std::io::Write as _;
        file.write_all(MAGIC)?;
        file.write_all(&Sha256::digest(artefact))?;
        file.write_all(artefact)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A number unique within this process, for temp file names.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
