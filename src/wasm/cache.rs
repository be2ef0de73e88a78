//! The on-disk compile cache: loading a hook the second time costs a file mapping, not a
//! compile.
//!
//! Layout under `{dir}`:
//! - `{engine}/{component}.cwasm`: wasmtime's artefact, byte for byte, where `{engine}` hashes
//!   wasmtime's compatibility key (version and every setting that changes generated code) and
//!   `{component}` is the SHA-256 of the component's bytes. The artefact is mapped into memory
//!   (`Component::deserialize_file`), not read and copied: a process that loads three hooks and
//!   exits (`hookhost agent-hook`) touches only the pages it runs.
//! - `{engine}/{component}.cwasm.sum`: the artefact's length and CRC-32. wasmtime does not
//!   checksum what it deserializes (one flipped byte in the code section loads fine), so the
//!   checksum is checked, over the mapped file, before deserializing; a corrupt, truncated,
//!   foreign or unsummed entry is recompiled and rewritten.
//! - `files/{device}-{inode}`: the SHA-256 of the component file that had this device, inode,
//!   size, mtime and ctime when it was hashed, so an unchanged component is not read and hashed
//!   again on every load. Any write to a file changes its ctime, which no user can set; a file
//!   changed less than [`RACY`] before it was hashed is not recorded (a timestamp is coarser
//!   than a write), nor one that changed while it was read.
//!
//! Writes go to a unique temp file renamed into place, so concurrent runners never see a
//! partial file (the sum is renamed first: a reader that sees a new sum beside an old artefact
//! recompiles, it never runs a mismatch).
//!
//! Threat model: the cache directory belongs to the user running the agent. Someone who can
//! write there can also change the user's shell startup files; the checksums protect against
//! corruption, not against that user. What runs is always the compiled form of the digest the
//! loader compared with a hook's pin.

use std::fs::{File, Metadata};
use std::hash::{Hash as _, Hasher as _};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use wasmtime::Engine;
use wasmtime::component::Component;

/// The first word of a `.sum` file: the layout's version.
const SUM_MAGIC: &str = "hookhost-cwasm-2";
/// A component file whose mtime or ctime is this close to the moment it was hashed is hashed
/// again at its next load rather than recorded.
const RACY: Duration = Duration::from_secs(2);

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

    /// The component of the file whose SHA-256 is `digest`: from the cache, or from `compile`
    /// (and then cached).
    pub(crate) fn load<E>(
        &self,
        engine: &Engine,
        digest: &[u8; 32],
        compile: impl FnOnce() -> Result<Component, E>,
    ) -> Result<(Component, CacheOutcome), E> {
        let Some(path) = self.entry_path(engine, digest) else {
            return Ok((compile()?, CacheOutcome::Uncached));
        };
        let existed = match deserialize_checked(engine, &path) {
            Ok(component) => return Ok((component, CacheOutcome::Hit)),
            Err(Unusable::Missing) => false,
            Err(Unusable::Damaged) => true,
        };
        let component = compile()?;
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

    /// The component compiled from the file `digest` names, if its entry is intact.
    pub(crate) fn hit(&self, engine: &Engine, digest: &[u8; 32]) -> Option<Component> {
        deserialize_checked(engine, &self.entry_path(engine, digest)?).ok()
    }

    /// The SHA-256 this cache recorded for the component file whose metadata is `meta`, if
    /// the file has not changed since.
    pub(crate) fn known_digest(&self, meta: &Metadata) -> Option<[u8; 32]> {
        let key = FileKey::of(meta)?;
        let record = std::fs::read_to_string(self.dir.as_ref()?.join(key.path())).ok()?;
        let (stamp, digest) = record.trim_end().rsplit_once(' ')?;
        if stamp != key.stamp() {
            return None;
        }
        unhex(digest)
    }

    /// Records that the component file with metadata `before` (taken before it was read) and
    /// `after` (after) hashed to `digest`, unless it changed in between or too recently.
    pub(crate) fn remember_digest(&self, before: &Metadata, after: &Metadata, digest: &[u8; 32]) {
        let (Some(dir), Some(key)) = (&self.dir, FileKey::of(before)) else {
            return;
        };
        if FileKey::of(after).as_ref() != Some(&key) || key.racy() {
            return;
        }
        let record = format!("{} {}\n", key.stamp(), hex(digest));
        // The cache is an optimisation: failing to write it is not an error.
        let _ = write_atomically(&dir.join(key.path()), &[record.as_bytes()]);
    }

    fn entry_path(&self, engine: &Engine, digest: &[u8; 32]) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let engine_key = format!("engine-{:016x}", hasher.finish());
        Some(dir.join(engine_key).join(format!("{}.cwasm", hex(digest))))
    }
}

/// Why a cache entry was not used.
enum Unusable {
    /// There is no entry.
    Missing,
    /// There is one, and it cannot be trusted or wasmtime refused it.
    Damaged,
}

/// The component of the entry at `path`, if the entry is intact and wasmtime accepts it.
fn deserialize_checked(engine: &Engine, path: &Path) -> Result<Component, Unusable> {
    let file = File::open(path).map_err(|_| Unusable::Missing)?;
    let sum = std::fs::read_to_string(sum_path(path)).map_err(|_| Unusable::Damaged)?;
    let len = file.metadata().map_err(|_| Unusable::Damaged)?.len();
    if sum.trim_end() != sum_line(len, checksum(&file, len).ok_or(Unusable::Damaged)?) {
        return Err(Unusable::Damaged);
    }
    // SAFETY: the file holds exactly what `Component::serialize` produced for an engine with
    // the same compatibility hash (its checksum proves it unchanged since this cache wrote it),
    // wasmtime checks the version and settings recorded in the artefact, and entries are never
    // written in place, only replaced by a rename, so the mapped file does not change while
    // the component lives. Where /proc is there, wasmtime maps the very file just checked.
    unsafe { Component::deserialize_file(engine, same_file(&file, path)) }
        .map_err(|_| Unusable::Damaged)
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

/// The CRC-32 of the first `len` bytes of `file`, read through a read-only mapping (no copy).
fn checksum(file: &File, len: u64) -> Option<u32> {
    let mut hasher = crc32fast::Hasher::new();
    if len > 0 {
        let map = ReadOnlyMap::new(file, usize::try_from(len).ok()?)?;
        hasher.update(map.bytes());
    }
    Some(hasher.finalize())
}

fn sum_path(entry: &Path) -> PathBuf {
    let mut name = entry.as_os_str().to_owned();
    name.push(".sum");
    PathBuf::from(name)
}

fn sum_line(len: u64, crc: u32) -> String {
    format!("{SUM_MAGIC} {len} {crc:08x}")
}

fn write_entry(path: &Path, artefact: &[u8]) -> std::io::Result<()> {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(artefact);
    let sum = sum_line(artefact.len() as u64, hasher.finalize()) + "\n";
    write_atomically(&sum_path(path), &[sum.as_bytes()])?;
    write_atomically(path, &[artefact])
}

/// Writes `parts` to a unique temp file beside `path`, synced, and renames it to `path`.
fn write_atomically(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    let dir = path.parent().expect("cache files live in a directory");
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id(),
        unique()
    ));
    let result = (|| {
        let mut file = File::create(&tmp)?;
        for part in parts {
            file.write_all(part)?;
        }
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// What identifies a version of a file without reading it.
#[derive(PartialEq, Eq)]
struct FileKey {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileKey {
    #[cfg(unix)]
    fn of(meta: &Metadata) -> Option<FileKey> {
        use std::os::unix::fs::MetadataExt as _;
        meta.is_file().then(|| FileKey {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }

    #[cfg(not(unix))]
    fn of(_: &Metadata) -> Option<FileKey> {
        None
    }

    fn path(&self) -> PathBuf {
        Path::new("files").join(format!("{:x}-{:x}", self.dev, self.ino))
    }

    fn stamp(&self) -> String {
        let FileKey {
            size, mtime, ctime, ..
        } = self;
        format!(
            "{size} {}.{:09} {}.{:09}",
            mtime.0, mtime.1, ctime.0, ctime.1
        )
    }

    /// Whether the file changed too recently for its timestamps to tell the next change apart.
    fn racy(&self) -> bool {
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let margin = RACY.as_secs() as i64;
        self.mtime.0 + margin >= now || self.ctime.0 + margin >= now
    }
}

/// A read-only view of a file's first bytes.
struct ReadOnlyMap {
    #[cfg(unix)]
    ptr: *mut libc::c_void,
    #[cfg(not(unix))]
    bytes: Vec<u8>,
    len: usize,
}

impl ReadOnlyMap {
    #[cfg(unix)]
    fn new(file: &File, len: usize) -> Option<ReadOnlyMap> {
        use std::os::fd::AsRawFd as _;
        // SAFETY: a fresh shared read-only mapping of an open file; it is unmapped on drop and
        // only read through `bytes` while it lives. Entries are never written in place.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        (ptr != libc::MAP_FAILED).then_some(ReadOnlyMap { ptr, len })
    }

    #[cfg(not(unix))]
    fn new(file: &File, len: usize) -> Option<ReadOnlyMap> {
        use std::io::Read as _;
        let mut bytes = Vec::with_capacity(len);
        file.take(len as u64).read_to_end(&mut bytes).ok()?;
        (bytes.len() == len).then_some(ReadOnlyMap { bytes, len })
    }

    fn bytes(&self) -> &[u8] {
        #[cfg(unix)]
        // SAFETY: `ptr` maps `len` readable bytes for as long as `self` lives.
        return unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) };
        #[cfg(not(unix))]
        return &self.bytes[..self.len];
    }
}

#[cfg(unix)]
impl Drop for ReadOnlyMap {
    fn drop(&mut self) {
        // SAFETY: `ptr` and `len` are the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.ptr, self.len) };
    }
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
