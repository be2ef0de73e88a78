//! The on-disk compile cache: loading a hook the second time costs a file mapping, not a
//! compile.
//!
//! Layout under `{dir}`:
//! - `{engine}/{component}.cwasm`: wasmtime's artefact, byte for byte, where `{engine}` hashes
//!   wasmtime's compatibility key (version and every setting that changes generated code) and
//!   `{component}` is the SHA-256 of the component's bytes. The artefact is mapped into memory
//!   (`Component::deserialize_file`), not read and copied: a process that loads three hooks and
//!   exits (`hookhost agent-hook`) touches only the pages it runs.
//! - `{engine}/{component}.cwasm.sum`: the artefact's length and its MAC under the user's key
//!   (`key`), bound to the engine and the component's digest: the artefact is the compiled
//!   form of that component, made by this user's hookhost. wasmtime does not check what it
//!   deserializes (one flipped byte in the code section loads fine), so the MAC is checked,
//!   over the mapped file, before deserializing; a corrupt, truncated, foreign, unsummed or
//!   forged entry is recompiled and rewritten.
//! - `files/{device}-{inode}` and `checked/{device}-{inode}`: records, with a MAC under the
//!   key, of component files already hashed (their SHA-256) and of artefacts whose MAC already
//!   checked, by the file's identity (device, inode, size, mtime, ctime), so that an unchanged
//!   file is not read in full again on every load (a Python component's artefact is tens of
//!   MB); see `records`.
//!
//! Writes go to a unique temp file renamed into place, so concurrent runners never see a
//! partial file (the sum is renamed first: a reader that sees a new sum beside an old artefact
//! recompiles, it never runs a mismatch).
//!
//! Threat model: an artefact is native code that runs in the agent's process, outside the
//! sandbox. The cache trusts nothing it reads from its directory, which others may have filled
//! (a CI cache restored from another build, a synced or shared home directory, a tool run in a
//! project): it trusts only its key, a file of the user's outside the cache directory that
//! nobody else may read or write (see `key`). An entry or record it did not authenticate under
//! that key (copied from another cache, another user's or machine's, or edited in place) is
//! never run and never believed: the component is hashed and compiled again. So what runs is
//! always the compiled form of the digest the loader compared with a hook's pin, as this user's
//! hookhost compiled it. Without a usable key the cache is not used at all, and the load says so
//! ([`CacheOutcome::NoKey`]). Out of reach: a process running as the user at the same time as
//! the agent (it could change an entry between its check and its mapping, or trace the agent
//! itself), anyone who can read the key, and root (who can also reset a file's ctime).

use std::fs::{File, Metadata};
use std::hash::{Hash as _, Hasher as _};
use std::path::{Path, PathBuf};

use wasmtime::Engine;
use wasmtime::component::Component;

mod map;
mod records;

use hookhost_core::cache::CacheKey;
pub use hookhost_core::cache::{CACHE_KEY_ENV, CacheKeyError, CacheMode};
use map::ReadOnlyMap;
use records::{FileKey, Records};

/// The first word of a `.sum` file, and the first field of its MAC: the layout's version.
/// Entries of earlier layouts (a CRC-32 anyone can recompute) are recompiled.
const SUM_MAGIC: &str = "hookhost-cwasm-3";

/// How a component was obtained, for reports and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Deserialized from a cache entry that proved to be this component's.
    Hit,
    /// Compiled, and the entry written.
    Compiled,
    /// Compiled; the existing entry was unusable (damaged, or not proved to be this
    /// component's) and was replaced.
    Replaced,
    /// Compiled; the cache is disabled or could not be written.
    Uncached,
    /// Compiled, without reading or writing the cache: its key could not be made or read, so
    /// nothing in it can be trusted ([`CacheMode::check_key`] says why).
    NoKey,
}

/// The compile cache of one engine.
#[derive(Debug, Clone)]
pub enum CompileCache {
    /// Compile every time.
    Disabled,
    /// Asked for, but without a usable key: compile every time, and say so.
    NoKey,
    /// In use.
    Keyed(Keyed),
}

/// A cache directory and the key that authenticates what it holds.
#[derive(Debug, Clone)]
pub struct Keyed {
    dir: PathBuf,
    key: CacheKey,
}

/// Where the compiled form of one component lives, and what its MAC binds.
struct Entry {
    path: PathBuf,
    /// `{engine}/{component}.cwasm`: the engine and the component's digest.
    name: String,
}

impl CompileCache {
    /// The cache `mode` names, with its key (made if missing); when the engine starts.
    pub fn new(mode: &CacheMode) -> CompileCache {
        match mode.open() {
            Ok(Some((dir, key))) => CompileCache::Keyed(Keyed { dir, key }),
            Ok(None) => CompileCache::Disabled,
            // Never trust a cache without its key; `CacheMode::check_key` says why.
            Err(_) => CompileCache::NoKey,
        }
    }

    fn keyed(&self) -> Option<&Keyed> {
        match self {
            CompileCache::Keyed(keyed) => Some(keyed),
            CompileCache::Disabled | CompileCache::NoKey => None,
        }
    }

    /// The component of the file whose SHA-256 is `digest`: from the cache, or from `compile`
    /// (and then cached).
    pub(crate) fn load<E>(
        &self,
        engine: &Engine,
        digest: &[u8; 32],
        compile: impl FnOnce() -> Result<Component, E>,
    ) -> Result<(Component, CacheOutcome), E> {
        let keyed = match self {
            CompileCache::Keyed(keyed) => keyed,
            CompileCache::NoKey => return Ok((compile()?, CacheOutcome::NoKey)),
            CompileCache::Disabled => return Ok((compile()?, CacheOutcome::Uncached)),
        };
        let entry = keyed.entry(engine, digest);
        let existed = match keyed.deserialize_checked(engine, &entry) {
            Ok(component) => return Ok((component, CacheOutcome::Hit)),
            Err(Unusable::Missing) => false,
            Err(Unusable::Damaged) => true,
        };
        let component = compile()?;
        let outcome = match component
            .serialize()
            .map(|artefact| keyed.write_entry(&entry, &artefact))
        {
            Ok(Ok(())) if existed => CacheOutcome::Replaced,
            Ok(Ok(())) => CacheOutcome::Compiled,
            // The cache is an optimisation: failing to write it is not an error.
            _ => CacheOutcome::Uncached,
        };
        Ok((component, outcome))
    }

    /// The component compiled from the file `digest` names, if its entry proves to be that.
    pub(crate) fn hit(&self, engine: &Engine, digest: &[u8; 32]) -> Option<Component> {
        let keyed = self.keyed()?;
        keyed
            .deserialize_checked(engine, &keyed.entry(engine, digest))
            .ok()
    }

    /// The SHA-256 this cache recorded for the component file whose metadata is `meta`, if
    /// the file has not changed since and the record is this user's.
    pub(crate) fn known_digest(&self, meta: &Metadata) -> Option<[u8; 32]> {
        let keyed = self.keyed()?;
        unhex(&keyed.recorded(Records::Files, &FileKey::of(meta)?)?)
    }

    /// Records that the component file with metadata `before` (taken before it was read) and
    /// `after` (after) hashed to `digest`, unless it changed in between or too recently.
    pub(crate) fn remember_digest(&self, before: &Metadata, after: &Metadata, digest: &[u8; 32]) {
        if let Some(keyed) = self.keyed() {
            keyed.record(Records::Files, before, after, &hex(digest));
        }
    }
}

impl Keyed {
    fn entry(&self, engine: &Engine, digest: &[u8; 32]) -> Entry {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let name = format!("engine-{:016x}/{}.cwasm", hasher.finish(), hex(digest));
        Entry {
            path: self.dir.join(&name),
            name,
        }
    }

    /// The component of `entry`, if the entry proves to be the compiled form it is filed as
    /// and wasmtime accepts it.
    fn deserialize_checked(&self, engine: &Engine, entry: &Entry) -> Result<Component, Unusable> {
        let file = File::open(&entry.path).map_err(|_| Unusable::Missing)?;
        let before = file.metadata().map_err(|_| Unusable::Damaged)?;
        // An artefact already checked, unchanged since, is not read in full again.
        let checked = FileKey::of(&before)
            .and_then(|key| self.recorded(Records::Checked, &key))
            .is_some_and(|what| what == entry.name);
        if !checked {
            let sum =
                std::fs::read_to_string(sum_path(&entry.path)).map_err(|_| Unusable::Damaged)?;
            let mac = parse_sum(&sum, before.len()).ok_or(Unusable::Damaged)?;
            // blake3::Hash compares in constant time.
            if mac != self.artefact_mac(&file, before.len(), entry)? {
                return Err(Unusable::Damaged);
            }
            if let Ok(after) = file.metadata() {
                self.record(Records::Checked, &before, &after, &entry.name);
            }
        }
        // SAFETY: the file holds exactly what `Component::serialize` produced for an engine with
        // the same compatibility hash (its MAC, or the record of that MAC's check, proves it
        // unchanged since this user's hookhost wrote it), wasmtime checks the version and
        // settings recorded in the artefact, and entries are never written in place, only
        // replaced by a rename, so the mapped file does not change while the component lives.
        // Where /proc is there, wasmtime maps the very file just checked.
        unsafe { Component::deserialize_file(engine, same_file(&file, &entry.path)) }
            .map_err(|_| Unusable::Damaged)
    }

    /// The MAC of the first `len` bytes of `file` as `entry`'s artefact, read through a
    /// read-only mapping (no copy).
    fn artefact_mac(&self, file: &File, len: u64, entry: &Entry) -> Result<blake3::Hash, Unusable> {
        let map = match len {
            0 => None,
            len => Some(
                ReadOnlyMap::new(file, usize::try_from(len).map_err(|_| Unusable::Damaged)?)
                    .ok_or(Unusable::Damaged)?,
            ),
        };
        let artefact = map.as_ref().map_or(&[][..], ReadOnlyMap::bytes);
        Ok(self.sum_mac(entry, artefact))
    }

    /// What an entry's sum authenticates: the layout, the engine and component it is filed
    /// under, and the artefact.
    fn sum_mac(&self, entry: &Entry, artefact: &[u8]) -> blake3::Hash {
        self.key
            .mac(&[SUM_MAGIC.as_bytes(), entry.name.as_bytes(), artefact])
    }

    fn write_entry(&self, entry: &Entry, artefact: &[u8]) -> std::io::Result<()> {
        let sum = sum_line(artefact.len() as u64, &self.sum_mac(entry, artefact)) + "\n";
        write_atomically(&sum_path(&entry.path), &[sum.as_bytes()])?;
        write_atomically(&entry.path, &[artefact])
    }
}

/// Why a cache entry was not used.
enum Unusable {
    /// There is no entry.
    Missing,
    /// There is one, and it is damaged, not proved to be the component's, or refused by
    /// wasmtime.
    Damaged,
}

/// A path that opens `file` itself: `/proc/self/fd/N` where /proc is mounted, else `path`.
fn same_file<'a>(file: &File, path: &'a Path) -> std::borrow::Cow<'a, Path> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd as _;
        let fd = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        if fd.exists() {
            return fd.into();
        }
    }
    let _ = file;
    path.into()
}

fn sum_path(entry: &Path) -> PathBuf {
    let mut name = entry.as_os_str().to_owned();
    name.push(".sum");
    PathBuf::from(name)
}

fn sum_line(len: u64, mac: &blake3::Hash) -> String {
    format!("{SUM_MAGIC} {len} {}", mac.to_hex())
}

/// The MAC of a sum line of this layout for an artefact of `len` bytes.
fn parse_sum(sum: &str, len: u64) -> Option<blake3::Hash> {
    let (head, mac) = sum.trim_end().rsplit_once(' ')?;
    (head == format!("{SUM_MAGIC} {len}"))
        .then(|| blake3::Hash::from_hex(mac).ok())
        .flatten()
}

/// Writes `parts` to `path` whole and durably (`crate::durable`), creating its directory.
fn write_atomically(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    let dir = path.parent().expect("cache files live in a directory");
    std::fs::create_dir_all(dir)?;
    Ok(crate::durable::write_parts(
        path,
        parts,
        Default::default(),
    )?)
}

/// Lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The 32 bytes of 64 hex digits.
fn unhex(text: &str) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    for (byte, pair) in out.iter_mut().zip(text.as_bytes().chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(out)
}
