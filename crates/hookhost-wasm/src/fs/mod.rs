//! `wasi:filesystem/types` as wasmtime-wasi implements it, with hookhost's sandbox rules on top.
//!
//! Every method delegates to wasmtime-wasi, except where a guest could otherwise leave the
//! sandbox later or keep the host busy:
//! - [`open`]: only regular files and directories open, without ever blocking on the open
//!   itself (a FIFO without a writer would park a host thread for good);
//! - [`links`]: no symlink a hook creates, renames or hard-links may point outside the grant
//!   it lives in;
//! - [`listing`]: a directory is listed a chunk at a time, not all at once;
//! - paths are at most [`MAX_PATH_BYTES`].
//!
//! (The size of a `write` needs no rule here: the store's bound on data passed in one host
//! call, `limits::MAX_HOSTCALL_BYTES`, caps it.)
//!
//! A refusal is an error code for the guest (`not-permitted`, `name-too-long`) plus one line on
//! the hook's stderr saying why, so that the author sees it in the call's report.

mod links;
mod listing;
mod open;

use std::path::PathBuf;

use wasmtime::component::{HasData, Resource};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemCtxView};
use wasmtime_wasi::p2::bindings::filesystem::types::{
    self, DirectoryEntryStream, ErrorCode, HostDescriptor, HostDirectoryEntryStream,
};
use wasmtime_wasi::p2::{DynInputStream, DynOutputStream, FsError, FsResult};

use super::output::GuestOutput;

/// Longest path a `*-at` call accepts, in bytes: Linux's `PATH_MAX`. A longer path cannot
/// name anything, and resolving it component by component would cost the host a syscall each.
pub(crate) const MAX_PATH_BYTES: usize = 4096;

/// What the filesystem rules need to know about a call beyond wasmtime-wasi's context.
#[derive(Debug, Default)]
pub(crate) struct FsRules {
    /// The host paths of the hook's grants, `read` and `write`.
    pub(crate) roots: Vec<PathBuf>,
    /// Where refusals are explained.
    pub(crate) output: GuestOutput,
}

impl FsRules {
    fn refuse(&self, why: impl std::fmt::Display) -> FsError {
        self.output.log("hookhost", &format!("sandbox: {why}"));
        ErrorCode::NotPermitted.into()
    }
}

/// `wasi:filesystem/types` under hookhost's rules.
pub(crate) struct SandboxedFilesystem;

impl HasData for SandboxedFilesystem {
    type Data<'a> = SandboxedFs<'a>;
}

/// The view [`SandboxedFilesystem`] hands to the generated bindings.
pub(crate) struct SandboxedFs<'a> {
    pub(crate) wasi: WasiFilesystemCtxView<'a>,
    pub(crate) rules: &'a FsRules,
}

fn check_path(path: &str) -> FsResult<()> {
    if path.len() > MAX_PATH_BYTES {
        return Err(ErrorCode::NameTooLong.into());
    }
    Ok(())
}

impl SandboxedFs<'_> {
    /// The directory behind a descriptor, or the error wasmtime-wasi would give.
    fn dir(&self, fd: &Resource<Descriptor>) -> FsResult<wasmtime_wasi::filesystem::Dir> {
        match self.wasi.table.get(fd)? {
            Descriptor::Dir(dir) => Ok(dir.clone()),
            Descriptor::File(_) => Err(ErrorCode::NotDirectory.into()),
        }
    }
}

impl types::Host for SandboxedFs<'_> {
    fn convert_error_code(&mut self, err: FsError) -> wasmtime::Result<ErrorCode> {
        types::Host::convert_error_code(&mut self.wasi, err)
    }

    fn filesystem_error_code(
        &mut self,
        err: Resource<wasmtime::Error>,
    ) -> wasmtime::Result<Option<ErrorCode>> {
        types::Host::filesystem_error_code(&mut self.wasi, err)
    }
}

impl HostDescriptor for SandboxedFs<'_> {
    async fn open_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: types::PathFlags,
        path: String,
        oflags: types::OpenFlags,
        flags: types::DescriptorFlags,
    ) -> FsResult<Resource<Descriptor>> {
        check_path(&path)?;
        let dir = self.dir(&fd)?;
        let opened = open::open_at(&dir, path_flags, path, oflags, flags, self.rules).await?;
        Ok(self.wasi.table.push(opened)?)
    }

    async fn symlink_at(
        &mut self,
        fd: Resource<Descriptor>,
        src_path: String,
        dest_path: String,
    ) -> FsResult<()> {
        check_path(&src_path)?;
        check_path(&dest_path)?;
        links::check_new_symlink(&src_path, &dest_path, self.rules)?;
        HostDescriptor::symlink_at(&mut self.wasi, fd, src_path, dest_path).await
    }

    async fn rename_at(
        &mut self,
        fd: Resource<Descriptor>,
        old_path: String,
        new_fd: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        check_path(&old_path)?;
        check_path(&new_path)?;
        let (old_dir, new_dir) = (self.dir(&fd)?, self.dir(&new_fd)?);
        links::check_move(
            "rename", &old_dir, &old_path, &new_dir, &new_path, self.rules,
        )
        .await?;
        HostDescriptor::rename_at(&mut self.wasi, fd, old_path, new_fd, new_path).await
    }

    async fn link_at(
        &mut self,
        fd: Resource<Descriptor>,
        old_path_flags: types::PathFlags,
        old_path: String,
        new_fd: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        check_path(&old_path)?;
        check_path(&new_path)?;
        let (old_dir, new_dir) = (self.dir(&fd)?, self.dir(&new_fd)?);
        links::check_move("link", &old_dir, &old_path, &new_dir, &new_path, self.rules).await?;
        HostDescriptor::link_at(
            &mut self.wasi,
            fd,
            old_path_flags,
            old_path,
            new_fd,
            new_path,
        )
        .await
    }

    async fn read_directory(
        &mut self,
        fd: Resource<Descriptor>,
    ) -> FsResult<Resource<DirectoryEntryStream>> {
        let dir = self.dir(&fd)?;
        listing::open(self.wasi.table, &dir).await
    }

    // Path checks, then wasmtime-wasi.

    async fn create_directory_at(
        &mut self,
        fd: Resource<Descriptor>,
        path: String,
    ) -> FsResult<()> {
        check_path(&path)?;
        HostDescriptor::create_directory_at(&mut self.wasi, fd, path).await
    }

    async fn stat_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: types::PathFlags,
        path: String,
    ) -> FsResult<types::DescriptorStat> {
        check_path(&path)?;
        HostDescriptor::stat_at(&mut self.wasi, fd, path_flags, path).await
    }

    async fn set_times_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: types::PathFlags,
        path: String,
        atim: types::NewTimestamp,
        mtim: types::NewTimestamp,
    ) -> FsResult<()> {
        check_path(&path)?;
        HostDescriptor::set_times_at(&mut self.wasi, fd, path_flags, path, atim, mtim).await
    }

    async fn readlink_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<String> {
        check_path(&path)?;
        HostDescriptor::readlink_at(&mut self.wasi, fd, path).await
    }

    async fn remove_directory_at(
        &mut self,
        fd: Resource<Descriptor>,
        path: String,
    ) -> FsResult<()> {
        check_path(&path)?;
        HostDescriptor::remove_directory_at(&mut self.wasi, fd, path).await
    }

    async fn unlink_file_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<()> {
        check_path(&path)?;
        HostDescriptor::unlink_file_at(&mut self.wasi, fd, path).await
    }

    async fn metadata_hash_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: types::PathFlags,
        path: String,
    ) -> FsResult<types::MetadataHashValue> {
        check_path(&path)?;
        HostDescriptor::metadata_hash_at(&mut self.wasi, fd, path_flags, path).await
    }

    // Plain delegation.

    async fn advise(
        &mut self,
        fd: Resource<Descriptor>,
        offset: types::Filesize,
        len: types::Filesize,
        advice: types::Advice,
    ) -> FsResult<()> {
        HostDescriptor::advise(&mut self.wasi, fd, offset, len, advice).await
    }

    async fn sync_data(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        HostDescriptor::sync_data(&mut self.wasi, fd).await
    }

    async fn get_flags(&mut self, fd: Resource<Descriptor>) -> FsResult<types::DescriptorFlags> {
        HostDescriptor::get_flags(&mut self.wasi, fd).await
    }

    async fn get_type(&mut self, fd: Resource<Descriptor>) -> FsResult<types::DescriptorType> {
        HostDescriptor::get_type(&mut self.wasi, fd).await
    }

    async fn set_size(&mut self, fd: Resource<Descriptor>, size: types::Filesize) -> FsResult<()> {
        HostDescriptor::set_size(&mut self.wasi, fd, size).await
    }

    async fn set_times(
        &mut self,
        fd: Resource<Descriptor>,
        atim: types::NewTimestamp,
        mtim: types::NewTimestamp,
    ) -> FsResult<()> {
        HostDescriptor::set_times(&mut self.wasi, fd, atim, mtim).await
    }

    async fn read(
        &mut self,
        fd: Resource<Descriptor>,
        len: types::Filesize,
        offset: types::Filesize,
    ) -> FsResult<(Vec<u8>, bool)> {
        HostDescriptor::read(&mut self.wasi, fd, len, offset).await
    }

    async fn write(
        &mut self,
        fd: Resource<Descriptor>,
        buffer: Vec<u8>,
        offset: types::Filesize,
    ) -> FsResult<types::Filesize> {
        HostDescriptor::write(&mut self.wasi, fd, buffer, offset).await
    }

    async fn sync(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        HostDescriptor::sync(&mut self.wasi, fd).await
    }

    async fn stat(&mut self, fd: Resource<Descriptor>) -> FsResult<types::DescriptorStat> {
        HostDescriptor::stat(&mut self.wasi, fd).await
    }

    fn drop(&mut self, fd: Resource<Descriptor>) -> wasmtime::Result<()> {
        HostDescriptor::drop(&mut self.wasi, fd)
    }

    fn read_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
        offset: types::Filesize,
    ) -> FsResult<Resource<DynInputStream>> {
        HostDescriptor::read_via_stream(&mut self.wasi, fd, offset)
    }

    fn write_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
        offset: types::Filesize,
    ) -> FsResult<Resource<DynOutputStream>> {
        HostDescriptor::write_via_stream(&mut self.wasi, fd, offset)
    }

    fn append_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
    ) -> FsResult<Resource<DynOutputStream>> {
        HostDescriptor::append_via_stream(&mut self.wasi, fd)
    }

    async fn is_same_object(
        &mut self,
        a: Resource<Descriptor>,
        b: Resource<Descriptor>,
    ) -> wasmtime::Result<bool> {
        HostDescriptor::is_same_object(&mut self.wasi, a, b).await
    }

    async fn metadata_hash(
        &mut self,
        fd: Resource<Descriptor>,
    ) -> FsResult<types::MetadataHashValue> {
        HostDescriptor::metadata_hash(&mut self.wasi, fd).await
    }
}

impl HostDirectoryEntryStream for SandboxedFs<'_> {
    async fn read_directory_entry(
        &mut self,
        stream: Resource<DirectoryEntryStream>,
    ) -> FsResult<Option<types::DirectoryEntry>> {
        listing::next(self.wasi.table, &stream).await
    }

    fn drop(&mut self, stream: Resource<DirectoryEntryStream>) -> wasmtime::Result<()> {
        listing::close(self.wasi.table, stream)
    }
}
