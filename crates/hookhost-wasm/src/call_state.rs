//! What one call's `Store` holds: the WASI sandbox its grants allow, the memory limiter, the
//! captured output, and the hook's shared configuration and state; plus the `impl Host` blocks
//! of hookhost's own interfaces.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use wasmtime::component::ResourceTable;
use wasmtime_wasi::filesystem::WasiFilesystemCtxView;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use super::bindings::{v0_1, v0_2};
use super::fs::{FsRules, SandboxedFs};
use super::limits::{self, BoundedPollView, BoundedRandomView};
use super::output::{GuestOutput, OUTPUT_CAP_BYTES};

/// A wasm hook's sandbox, resolved at load: absolute directories and variable values.
#[derive(Debug, Clone)]
pub(crate) struct Sandbox {
    pub(crate) read: Vec<PathBuf>,
    pub(crate) write: Vec<PathBuf>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) max_memory_bytes: usize,
}

impl Sandbox {
    /// A WASI context that grants exactly this sandbox: the directories (at the same absolute
    /// path as on the host), the variables, and output into `output`. No arguments, no stdin,
    /// no sockets (they are not even linked).
    fn wasi(&self, output: &GuestOutput) -> wasmtime::Result<WasiCtx> {
        let mut builder = self.wasi_builder(output);
        for (dirs, perms) in [
            (&self.read, FsPerms::ReadOnly),
            (&self.write, FsPerms::ReadWrite),
        ] {
            for dir in dirs {
                builder.preopened_dir(dir, dir.to_string_lossy(), perms)?;
            }
        }
        Ok(builder.build())
    }

    /// Everything of [`Sandbox::wasi`] but the directories: what cannot fail.
    fn wasi_builder(&self, output: &GuestOutput) -> WasiCtxBuilder {
        let mut builder = WasiCtxBuilder::new();
        builder.stdout(output.stdout()).stderr(output.stderr());
        for (name, value) in &self.env {
            builder.env(name, value);
        }
        builder
    }

    fn grants_directories(&self) -> bool {
        !self.read.is_empty() || !self.write.is_empty()
    }
}

/// What a hook keeps across calls: its configuration and its key-value state.
#[derive(Debug, Default)]
pub(crate) struct HookShared {
    pub(crate) config_json: String,
    pub(crate) state: Mutex<KeyValue>,
}

/// Limits of the `state` interface (documented in the WIT).
const MAX_KEY_BYTES: usize = 256;
const MAX_VALUE_BYTES: usize = 64 * 1024;
const MAX_KEYS: usize = 1024;

#[derive(Debug, Default)]
pub(crate) struct KeyValue {
    entries: HashMap<String, Vec<u8>>,
}

/// The data of one call's store.
pub(crate) struct CallState {
    /// Built at the guest's first WASI call (or at once, for a hook granted directories, so
    /// that a directory that went missing fails the call). Most guards never make a WASI call:
    /// a Rust guest imports WASI for the panic path, and building the context (two random
    /// number generators seeded, the streams and clocks boxed) was a tenth of a guard call.
    wasi: Option<WasiCtx>,
    sandbox: Arc<Sandbox>,
    /// Every WASI handle the guest holds, at most [`limits::MAX_HANDLES`] at once.
    table: ResourceTable,
    fs_rules: FsRules,
    pub(crate) limiter: MemoryLimiter,
    pub(crate) output: GuestOutput,
    shared: Arc<HookShared>,
}

impl CallState {
    pub(crate) fn new(
        sandbox: &Arc<Sandbox>,
        shared: Arc<HookShared>,
        output: GuestOutput,
    ) -> wasmtime::Result<CallState> {
        let roots: Vec<PathBuf> = sandbox.read.iter().chain(&sandbox.write).cloned().collect();
        let wasi = match sandbox.grants_directories() {
            true => Some(sandbox.wasi(&output)?),
            false => None,
        };
        Ok(CallState {
            wasi,
            sandbox: sandbox.clone(),
            table: limits::resource_table(roots.len()),
            fs_rules: FsRules {
                roots,
                output: output.clone(),
            },
            limiter: MemoryLimiter::new(sandbox.max_memory_bytes),
            output,
            shared,
        })
    }

    /// The call's WASI context (built now if this is the guest's first WASI call), its
    /// resource table and the filesystem rules.
    fn wasi_parts(&mut self) -> (&mut WasiCtx, &mut ResourceTable, &FsRules) {
        let CallState {
            wasi,
            sandbox,
            output,
            table,
            fs_rules,
            ..
        } = self;
        // A sandbox with directories built its context in `new`: what is left cannot fail.
        let wasi = wasi.get_or_insert_with(|| sandbox.wasi_builder(output).build());
        (wasi, table, fs_rules)
    }

    /// `wasi:filesystem/types` under the sandbox's rules.
    pub(crate) fn sandboxed_fs(&mut self) -> SandboxedFs<'_> {
        let (wasi, table, rules) = self.wasi_parts();
        SandboxedFs {
            wasi: WasiFilesystemCtxView {
                ctx: wasi.filesystem(),
                table,
            },
            rules,
        }
    }

    /// `wasi:random` with a bound per call.
    pub(crate) fn bounded_random(&mut self) -> BoundedRandomView<'_> {
        BoundedRandomView(self.wasi_parts().0.random())
    }

    /// The resource table alone, for `wasi:io` streams and errors: they need no WASI context,
    /// so a call of theirs does not go through building one.
    pub(crate) fn table(&mut self) -> &mut ResourceTable {
        &mut self.table
    }

    /// `wasi:io/poll` with a bound per call.
    pub(crate) fn bounded_poll(&mut self) -> BoundedPollView<'_> {
        BoundedPollView(&mut self.table)
    }
}

impl WasiView for CallState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        let (ctx, table, _) = self.wasi_parts();
        WasiCtxView { ctx, table }
    }
}

/// Caps the total linear memory of an instance and remembers a refusal, so that the trap a
/// guest raises when its allocator fails can be reported as what it is.
#[derive(Debug)]
pub(crate) struct MemoryLimiter {
    max_bytes: usize,
    total_bytes: usize,
    pub(crate) denied: bool,
}

impl MemoryLimiter {
    fn new(max_bytes: usize) -> MemoryLimiter {
        MemoryLimiter {
            max_bytes,
            total_bytes: 0,
            denied: false,
        }
    }
}

impl wasmtime::ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        // Called for the initial size too (current = 0), so the sum is the instance's total.
        let delta = desired.saturating_sub(current);
        if self.total_bytes + delta > self.max_bytes {
            self.denied = true;
            return Ok(false);
        }
        self.total_bytes += delta;
        Ok(true)
    }

    fn memory_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        // The pool refused what the limiter allowed: still a memory limit.
        self.denied = true;
        Ok(())
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 100_000)
    }
}

impl CallState {
    fn log(&mut self, level: &str, message: &str) {
        // Only the cap is kept: do not copy the rest of a huge message on the way.
        let mut end = message.len().min(OUTPUT_CAP_BYTES);
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        self.output.log(level, &message[..end]);
    }

    fn config(&mut self) -> String {
        self.shared.config_json.clone()
    }

    fn state_get(&mut self, key: String) -> Option<Vec<u8>> {
        let kv = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        kv.entries.get(&key).cloned()
    }

    fn state_set(&mut self, key: String, value: Vec<u8>) -> Result<(), String> {
        if key.len() > MAX_KEY_BYTES {
            return Err(format!(
                "state key is {} bytes; the limit is {MAX_KEY_BYTES}",
                key.len()
            ));
        }
        if value.len() > MAX_VALUE_BYTES {
            return Err(format!(
                "state value is {} bytes; the limit is {MAX_VALUE_BYTES}",
                value.len()
            ));
        }
        let mut kv = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        if !kv.entries.contains_key(&key) && kv.entries.len() >= MAX_KEYS {
            return Err(format!(
                "state already holds {MAX_KEYS} keys; delete some first"
            ));
        }
        kv.entries.insert(key, value);
        Ok(())
    }

    fn state_delete(&mut self, key: String) {
        let mut kv = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        kv.entries.remove(&key);
    }
}

/// The `host` and `state` interfaces, the same in both versions of the package.
macro_rules! impl_host_interfaces {
    ($version:ident) => {
        impl $version::types::Host for CallState {}

        impl $version::host::Host for CallState {
            fn log(&mut self, level: $version::host::LogLevel, message: String) {
                use $version::host::LogLevel;
                let level = match level {
                    LogLevel::Trace => "trace",
                    LogLevel::Debug => "debug",
                    LogLevel::Info => "info",
                    LogLevel::Warn => "warn",
                    LogLevel::Error => "error",
                };
                CallState::log(self, level, &message);
            }

            fn config(&mut self) -> String {
                CallState::config(self)
            }
        }

        impl $version::state::Host for CallState {
            fn get(&mut self, key: String) -> Option<Vec<u8>> {
                self.state_get(key)
            }

            fn set(&mut self, key: String, value: Vec<u8>) -> Result<(), String> {
                self.state_set(key, value)
            }

            fn delete(&mut self, key: String) {
                self.state_delete(key)
            }
        }
    };
}

impl_host_interfaces!(v0_2);
impl_host_interfaces!(v0_1);
