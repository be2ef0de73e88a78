//! `read-directory` a chunk at a time.
//!
//! wasmtime-wasi lists a whole directory, with a `stat` per entry, when the guest opens the
//! stream, and keeps every entry in host memory until it is dropped: the work and the memory
//! grow with the directory, which a hook with a `write` grant can make as large as it likes. Here
//! the stream holds an open directory and reads [`CHUNK`] entries each time its buffer runs
//! dry, taking each entry's type from the directory itself (no `stat` unless the filesystem
//! does not say).
//!
//! The stream lives in the resource table under wasmtime-wasi's `directory-entry-stream`
//! resource type (what the bindings name it), but holds a [`Listing`]: only this module's
//! functions, which the linker routes every method of that resource to, ever look inside.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use cap_primitives::fs::{FileType, FileTypeExt as _, ReadDir};
use wasmtime::component::{Resource, ResourceTable};
use wasmtime_wasi::filesystem::Dir;
use wasmtime_wasi::p2::FsResult;
use wasmtime_wasi::p2::bindings::filesystem::types::{
    DescriptorType, DirectoryEntry, DirectoryEntryStream, ErrorCode,
};

/// Entries read from the host per chunk.
const CHUNK: usize = 256;

/// An open directory stream.
pub(super) struct Listing {
    /// `None` once the directory is exhausted.
    dir: Option<Arc<Mutex<ReadDir>>>,
    buffered: VecDeque<FsResult<DirectoryEntry>>,
}

fn as_listing(stream: &Resource<DirectoryEntryStream>) -> Resource<Listing> {
    Resource::new_borrow(stream.rep())
}

pub(super) async fn open(
    table: &mut ResourceTable,
    dir: &Dir,
) -> FsResult<Resource<DirectoryEntryStream>> {
    let start = dir.dir.clone();
    let read_dir =
        wasmtime_wasi::runtime::spawn_blocking(move || cap_primitives::fs::read_base_dir(&start))
            .await?;
    let listing = table.push(Listing {
        dir: Some(Arc::new(Mutex::new(read_dir))),
        buffered: VecDeque::new(),
    })?;
    Ok(Resource::new_own(listing.rep()))
}

pub(super) async fn next(
    table: &mut ResourceTable,
    stream: &Resource<DirectoryEntryStream>,
) -> FsResult<Option<DirectoryEntry>> {
    let listing = table.get_mut(&as_listing(stream))?;
    if listing.buffered.is_empty()
        && let Some(dir) = listing.dir.clone()
    {
        let chunk = wasmtime_wasi::runtime::spawn_blocking(move || {
            let mut dir = dir.lock().unwrap_or_else(|e| e.into_inner());
            dir.by_ref().take(CHUNK).map(entry).collect::<Vec<_>>()
        })
        .await;
        if chunk.len() < CHUNK {
            listing.dir = None;
        }
        listing.buffered.extend(chunk);
    }
    listing.buffered.pop_front().transpose()
}

pub(super) fn close(
    table: &mut ResourceTable,
    stream: Resource<DirectoryEntryStream>,
) -> wasmtime::Result<()> {
    table.delete(Resource::<Listing>::new_own(stream.rep()))?;
    Ok(())
}

fn entry(entry: std::io::Result<cap_primitives::fs::DirEntry>) -> FsResult<DirectoryEntry> {
    let entry = entry?;
    let type_ = descriptor_type(entry.file_type()?);
    let name = entry
        .file_name()
        .into_string()
        .map_err(|_| ErrorCode::IllegalByteSequence)?;
    Ok(DirectoryEntry { type_, name })
}

/// The entry types wasmtime-wasi reports (it has no FIFO or socket either).
fn descriptor_type(file_type: FileType) -> DescriptorType {
    if file_type.is_dir() {
        DescriptorType::Directory
    } else if file_type.is_file() {
        DescriptorType::RegularFile
    } else if file_type.is_symlink() {
        DescriptorType::SymbolicLink
    } else if file_type.is_block_device() {
        DescriptorType::BlockDevice
    } else if file_type.is_char_device() {
        DescriptorType::CharacterDevice
    } else {
        DescriptorType::Unknown
    }
}
