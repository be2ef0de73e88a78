//! A read-only view of a file, for checking an artefact's MAC without copying it.

use std::fs::File;

/// A read-only view of a file's first bytes.
pub(super) struct ReadOnlyMap {
    #[cfg(unix)]
    ptr: *mut libc::c_void,
    #[cfg(not(unix))]
    bytes: Vec<u8>,
    len: usize,
}

impl ReadOnlyMap {
    #[cfg(unix)]
    pub(super) fn new(file: &File, len: usize) -> Option<ReadOnlyMap> {
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
    pub(super) fn new(file: &File, len: usize) -> Option<ReadOnlyMap> {
        use std::io::Read as _;
        let mut bytes = Vec::with_capacity(len);
        file.take(len as u64).read_to_end(&mut bytes).ok()?;
        (bytes.len() == len).then_some(ReadOnlyMap { bytes, len })
    }

    pub(super) fn bytes(&self) -> &[u8] {
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
