//! Bounds on what one call may take from the host besides memory, time and fuel: handles held
//! at once, and work done in one host call.
//!
//! The epoch deadline stops a guest only while it runs wasm, and the timer around a call only
//! fires while the executor thread is free. A host function that does its work synchronously
//! (on the executor thread) is out of reach of both, so each one a guest can make expensive
//! gets a bound here small enough that one call of it ends within the deadline's slack (about a
//! millisecond of work in a release build).
//!
//! Going past a bound traps the guest with a [`SandboxLimit`], which the call reports as
//! [`HookFailure::SandboxLimit`] (`exceeded a sandbox limit: ...`).

use wasmtime::component::{HasData, Resource, ResourceTable, ResourceTableError};
use wasmtime_wasi::p2::bindings::random::{insecure, random};
use wasmtime_wasi::random::WasiRandomCtx;
use wasmtime_wasi_io::bindings::wasi::io::poll;
use wasmtime_wasi_io::poll::DynPollable;

use crate::verdict::HookFailure;

/// WASI handles a guest may hold at once beyond its preopened directories: open files and
/// directories, directory listings, streams, pollables, errors. Each open file or directory is
/// a host file descriptor. A hook needs a handful (a policy reads a few files; a recursive
/// walk holds two per level); 256 is far above that, yet a quarter of a default soft
/// `RLIMIT_NOFILE` of 1024. (64 concurrent calls at the bound hold 16,384: docs/sandbox.md tells
/// agents that run many hooks at once to raise the soft limit.)
pub(crate) const MAX_HANDLES: usize = 256;

/// Bytes one `get-random-bytes` or `get-insecure-random-bytes` call may ask for: a page.
/// wasmtime-wasi generates them a byte at a time on the executor thread (about 300 MB/s in a
/// release build, 100 times slower in a debug one), so 4 KiB is about 15 µs. Guests ask for far
/// less: wasi-libc's `getentropy` at most 256 bytes, Rust's `getrandom` 8 at a time.
pub(crate) const MAX_RANDOM_BYTES: u64 = 4096;

/// Bytes one call into the host may carry from the guest, in its string and list arguments (a
/// log message, a state value, a write, a path, a poll list). wasmtime copies them out of the
/// guest's memory before any host code can look at their size, so without this bound the copy
/// alone grows with the hook's memory. The largest argument a hook needs is a 64 KiB state
/// value or stream write; 1 MiB copies in well under a millisecond. wasmtime applies the same
/// budget when it lifts what an export returns, so a verdict is bounded by it too.
pub(crate) const MAX_HOSTCALL_BYTES: usize = 1 << 20;

/// How wasmtime says that [`MAX_HOSTCALL_BYTES`] ran out (its error type is private; the
/// hardening tests catch a change of wording).
const HOSTCALL_FUEL_EXHAUSTED: &str = "fuel allocated for hostcalls has been exhausted";

/// Pollables one `poll` call may list. A list longer than the handles a guest can hold only
/// repeats them, and the host's work is linear in the list.
pub(crate) const MAX_POLL_LIST: usize = MAX_HANDLES;

/// A guest went past one of the bounds of this module. Raised as a trap from a host function;
/// [`failure`] turns it into the call's [`HookFailure`].
#[derive(Debug, thiserror::Error)]
#[error("{detail}")]
pub(crate) struct SandboxLimit {
    detail: String,
}

impl SandboxLimit {
    pub(crate) fn new(detail: impl Into<String>) -> SandboxLimit {
        SandboxLimit {
            detail: detail.into(),
        }
    }
}

/// The failure a call reports when `error` (what the guest's export returned) is a sandbox
/// bound, if it is one.
pub(crate) fn failure(error: &wasmtime::Error) -> Option<HookFailure> {
    if let Some(limit) = error.downcast_ref::<SandboxLimit>() {
        return Some(HookFailure::SandboxLimit {
            detail: limit.detail.clone(),
        });
    }
    // wasmtime-wasi turns a full resource table into a trap wherever a handle is created.
    let table_full = error.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<ResourceTableError>(),
            Some(ResourceTableError::Full)
        )
    });
    if table_full {
        return Some(HookFailure::SandboxLimit {
            detail: format!(
                "held more than {MAX_HANDLES} files, directories, streams or pollables open at once"
            ),
        });
    }
    let too_much_data = error
        .chain()
        .any(|cause| cause.to_string().contains(HOSTCALL_FUEL_EXHAUSTED));
    too_much_data.then(|| HookFailure::SandboxLimit {
        detail: format!(
            "passed more than {} MiB to the host in one call",
            MAX_HOSTCALL_BYTES >> 20
        ),
    })
}

/// Applies the bounds that live on the store, once per call.
pub(crate) fn bound_store<T>(store: &mut wasmtime::Store<T>) {
    store.set_hostcall_fuel(MAX_HOSTCALL_BYTES);
}

/// The resource table of one call: [`MAX_HANDLES`] entries, plus one per preopened directory
/// (the guest gets those without asking).
pub(crate) fn resource_table(preopens: usize) -> ResourceTable {
    let mut table = ResourceTable::new();
    table.set_max_capacity(MAX_HANDLES + preopens);
    table
}

/// `wasi:random` with [`MAX_RANDOM_BYTES`] per call; everything else is wasmtime-wasi's.
pub(crate) struct BoundedRandom;

impl HasData for BoundedRandom {
    type Data<'a> = BoundedRandomView<'a>;
}

/// The view [`BoundedRandom`] hands to the generated bindings.
pub(crate) struct BoundedRandomView<'a>(pub(crate) &'a mut WasiRandomCtx);

fn check_random_len(len: u64) -> wasmtime::Result<()> {
    if len > MAX_RANDOM_BYTES {
        return Err(SandboxLimit::new(format!(
            "asked for {len} random bytes in one call (the limit is {MAX_RANDOM_BYTES})"
        ))
        .into());
    }
    Ok(())
}

impl random::Host for BoundedRandomView<'_> {
    fn get_random_bytes(&mut self, len: u64) -> wasmtime::Result<Vec<u8>> {
        check_random_len(len)?;
        random::Host::get_random_bytes(self.0, len)
    }

    fn get_random_u64(&mut self) -> wasmtime::Result<u64> {
        random::Host::get_random_u64(self.0)
    }
}

impl insecure::Host for BoundedRandomView<'_> {
    fn get_insecure_random_bytes(&mut self, len: u64) -> wasmtime::Result<Vec<u8>> {
        check_random_len(len)?;
        insecure::Host::get_insecure_random_bytes(self.0, len)
    }

    fn get_insecure_random_u64(&mut self) -> wasmtime::Result<u64> {
        insecure::Host::get_insecure_random_u64(self.0)
    }
}

/// `wasi:io/poll` with [`MAX_POLL_LIST`] pollables per `poll`; everything else is
/// wasmtime-wasi's.
pub(crate) struct BoundedPoll;

impl HasData for BoundedPoll {
    type Data<'a> = BoundedPollView<'a>;
}

/// The view [`BoundedPoll`] hands to the generated bindings.
pub(crate) struct BoundedPollView<'a>(pub(crate) &'a mut ResourceTable);

impl poll::Host for BoundedPollView<'_> {
    async fn poll(&mut self, pollables: Vec<Resource<DynPollable>>) -> wasmtime::Result<Vec<u32>> {
        if pollables.len() > MAX_POLL_LIST {
            return Err(SandboxLimit::new(format!(
                "polled a list of {} pollables in one call (the limit is {MAX_POLL_LIST})",
                pollables.len()
            ))
            .into());
        }
        poll::Host::poll(self.0, pollables).await
    }
}

impl poll::HostPollable for BoundedPollView<'_> {
    async fn block(&mut self, pollable: Resource<DynPollable>) -> wasmtime::Result<()> {
        poll::HostPollable::block(self.0, pollable).await
    }

    async fn ready(&mut self, pollable: Resource<DynPollable>) -> wasmtime::Result<bool> {
        poll::HostPollable::ready(self.0, pollable).await
    }

    fn drop(&mut self, pollable: Resource<DynPollable>) -> wasmtime::Result<()> {
        poll::HostPollable::drop(self.0, pollable)
    }
}
