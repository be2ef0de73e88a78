//! One wasmtime engine per runner: compiled once, shared by all of the runner's wasm hooks.
//!
//! - The pooling allocator with copy-on-write memory images makes a fresh instance per call
//!   cost microseconds. A semaphore sized to the pool makes excess calls wait for a slot
//!   instead of failing.
//! - Epoch interruption enforces `timeout_ms`: a ticker thread advances the epoch every
//!   [`TICK`] while calls are running (and parks when the runner is idle); at each tick a guest
//!   yields to the async executor and its deadline is checked. The thread ends when the engine
//!   is dropped.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use wasmtime::component::{HasData, Linker, ResourceTable};
use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};
use wasmtime_wasi::p2::bindings::{cli, clocks, filesystem, random};
use wasmtime_wasi::{cli::WasiCli, clocks::WasiClocks, filesystem::WasiFilesystem};

use super::bindings::{v0_1, v0_2};
use super::cache::CompileCache;
use super::call_state::CallState;
use super::fs::SandboxedFilesystem;
use super::limits::{BoundedPoll, BoundedRandom};
use crate::source::MAX_MEMORY_MB_LIMIT;

/// Epoch period: a deadline fires at most one tick (plus scheduling) after `timeout_ms`, well
/// inside the promised 10% + 5 ms.
pub(crate) const TICK: Duration = Duration::from_millis(1);

/// The engine, its linker and its compile cache.
pub struct WasmEngine {
    pub(crate) engine: Engine,
    pub(crate) linker: Linker<CallState>,
    pub(crate) cache: CompileCache,
    pub(crate) consumes_fuel: bool,
    /// Whether instances come from the pooling allocator (else: allocated on demand).
    pub(crate) pooling: bool,
    slots: tokio::sync::Semaphore,
    activity: Arc<Activity>,
}

impl std::fmt::Debug for WasmEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasmEngine")
            .field("consumes_fuel", &self.consumes_fuel)
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

impl WasmEngine {
    /// An engine for a runner. `fuel` turns on instruction counting, needed when any hook sets
    /// `fuel` (it makes every call a little slower, so it is off otherwise). `instances` wasm
    /// calls can be in flight at once; more wait for a slot.
    pub fn new(fuel: bool, instances: u32, cache: CompileCache) -> wasmtime::Result<WasmEngine> {
        let instances = instances.clamp(1, MAX_INSTANCES);
        let mut config = Config::new();
        config
            .wasm_component_model(true)
            .epoch_interruption(true)
            .consume_fuel(fuel)
            .memory_init_cow(true)
            .max_wasm_stack(super::stack::MAX_WASM_STACK)
            .async_stack_size(2 << 20)
            // Virtual address space per memory slot: the largest memory a hook may be granted.
            .memory_reservation(u64::from(MAX_MEMORY_MB_LIMIT) << 20)
            .memory_guard_size(64 << 10);
        let (engine, pooling) = match pooled_engine(&mut config, instances) {
            Some(engine) => (engine, true),
            // Where virtual address space is capped (ulimit -v, valgrind, some containers) the
            // pool cannot reserve its slots; the on-demand allocator works everywhere, a little
            // slower per call.
            None => {
                config.allocation_strategy(InstanceAllocationStrategy::OnDemand);
                (Engine::new(&config)?, false)
            }
        };
        let linker = linker(&engine)?;
        let activity = Arc::new(Activity::default());
        spawn_ticker(&engine, activity.clone());
        Ok(WasmEngine {
            engine,
            linker,
            cache,
            consumes_fuel: fuel,
            pooling,
            slots: tokio::sync::Semaphore::new(instances as usize),
            activity,
        })
    }

    /// Links `component` once, at load: against the shared linker, plus failing stubs for the
    /// WASI interfaces it imports that hookhost denies (`denied`).
    pub(crate) fn instantiate_pre(
        &self,
        component: &wasmtime::component::Component,
    ) -> wasmtime::Result<wasmtime::component::InstancePre<CallState>> {
        super::denied::linker_for(&self.linker, &self.engine, component)?.instantiate_pre(component)
    }

    /// Waits for an instance slot, and keeps the epoch ticking while the returned guard lives.
    pub(crate) async fn begin_call(&self) -> CallGuard<'_> {
        let permit = self
            .slots
            .acquire()
            .await
            .expect("the semaphore is never closed");
        self.activity.enter();
        CallGuard {
            _permit: permit,
            activity: &self.activity,
        }
    }
}

/// The largest instance pool a runner may ask for (each instance reserves the address space of
/// the largest memory a hook may be granted).
const MAX_INSTANCES: u32 = 1024;

/// Dirty bytes of a linear memory reset with `memcpy` when a call ends, where the kernel can
/// tell which pages the guest wrote (`PAGEMAP_SCAN`, Linux 6.7): past that, the rest is given
/// back with `madvise`. A hook's working set is a few pages (destructive-guard writes 7), so
/// the common call costs no system call and, next time, no page fault. At most this much stays
/// resident per memory slot (64 MiB for the default pool of 64 instances, and only what guests really wrote).
const MEMORY_KEEP_RESIDENT: usize = 512 << 10;
/// The same for tables (a Rust guest's function table is one or two pages).
const TABLE_KEEP_RESIDENT: usize = 64 << 10;
/// Without `PAGEMAP_SCAN`, the first bytes of each memory are reset with `memset` whether the
/// guest wrote them or not: keep that small.
const MEMORY_KEEP_RESIDENT_BLIND: usize = 64 << 10;

/// An engine whose `instances` instances come from the pooling allocator, or `None` where the
/// pool cannot reserve its address space.
fn pooled_engine(config: &mut Config, instances: u32) -> Option<Engine> {
    let pool = |pagemap: bool| {
        let mut pool = PoolingAllocationConfig::new();
        pool.total_component_instances(instances)
            .total_core_instances(instances * 8)
            .total_memories(instances * 2)
            .total_tables(instances * 8)
            .total_stacks(instances)
            .max_memories_per_component(2)
            .max_memory_size((MAX_MEMORY_MB_LIMIT as usize) << 20);
        if pagemap {
            pool.pagemap_scan(Enabled::Yes)
                .linear_memory_keep_resident(MEMORY_KEEP_RESIDENT)
                .table_keep_resident(TABLE_KEEP_RESIDENT);
        } else {
            pool.linear_memory_keep_resident(MEMORY_KEEP_RESIDENT_BLIND);
        }
        pool
    };
    // `Enabled::Yes` fails the engine where the kernel has no `PAGEMAP_SCAN`.
    [true, false].into_iter().find_map(|pagemap| {
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool(pagemap)));
        Engine::new(config).ok()
    })
}

/// Holds an instance slot and keeps the ticker awake.
pub(crate) struct CallGuard<'a> {
    _permit: tokio::sync::SemaphorePermit<'a>,
    activity: &'a Activity,
}

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        self.activity.leave();
    }
}

/// How many calls are running. The ticker parks after [`IDLE_TICKS`] ticks without a call, and
/// a call wakes it only then: a busy runner pays an atomic increment per call, not a wake-up.
#[derive(Default)]
struct Activity {
    running: AtomicUsize,
    parked: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

/// Ticks without a running call before the ticker parks (100 ms).
const IDLE_TICKS: u32 = 100;

impl Activity {
    fn enter(&self) {
        self.running.fetch_add(1, Ordering::SeqCst);
        if self.parked.load(Ordering::SeqCst) {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.notify_one();
        }
    }

    fn leave(&self) {
        self.running.fetch_sub(1, Ordering::SeqCst);
    }
}

fn spawn_ticker(engine: &Engine, activity: Arc<Activity>) {
    let weak = engine.weak();
    let spawned = std::thread::Builder::new()
        .name("hookhost-epoch".into())
        .spawn(move || {
            let mut idle = 0;
            loop {
                std::thread::sleep(TICK);
                match weak.upgrade() {
                    Some(engine) => engine.increment_epoch(),
                    None => return,
                }
                if activity.running.load(Ordering::SeqCst) > 0 {
                    idle = 0;
                    continue;
                }
                idle += 1;
                if idle < IDLE_TICKS {
                    continue;
                }
                // Park until a call starts; look every second whether the engine is gone.
                let mut guard = activity.lock.lock().unwrap_or_else(|e| e.into_inner());
                activity.parked.store(true, Ordering::SeqCst);
                while activity.running.load(Ordering::SeqCst) == 0 {
                    let (next, timeout) = activity
                        .wake
                        .wait_timeout(guard, Duration::from_secs(1))
                        .unwrap_or_else(|e| e.into_inner());
                    guard = next;
                    if timeout.timed_out() && weak.upgrade().is_none() {
                        return;
                    }
                }
                activity.parked.store(false, Ordering::SeqCst);
                idle = 0;
            }
        });
    // Without a ticker, deadlines could not fire: the tokio timeout around every call still
    // bounds it, so a failed spawn degrades precision, not safety.
    drop(spawned);
}

/// WASI preview 2 without sockets, plus hookhost's own interfaces. The other WASI interfaces a
/// component imports (wasi:sockets, wasi:http, ...) are linked per component as denied
/// ([`WasmEngine::instantiate_pre`]); anything else is refused at load by the import check.
/// `wasi:filesystem/types`, `wasi:random` and `wasi:io/poll` go through the sandbox's own
/// bounds and rules (`fs`, `limits`) before wasmtime-wasi.
fn linker(engine: &Engine) -> wasmtime::Result<Linker<CallState>> {
    let mut linker = Linker::<CallState>::new(engine);
    let l = &mut linker;
    type T = CallState;
    wasmtime_wasi_io::bindings::wasi::io::error::add_to_linker::<T, Table>(l, T::table)?;
    wasmtime_wasi_io::bindings::wasi::io::poll::add_to_linker::<T, BoundedPoll>(
        l,
        T::bounded_poll,
    )?;
    wasmtime_wasi_io::bindings::wasi::io::streams::add_to_linker::<T, Table>(l, T::table)?;
    use wasmtime_wasi::cli::WasiCliView as _;
    use wasmtime_wasi::clocks::WasiClocksView as _;
    use wasmtime_wasi::filesystem::WasiFilesystemView as _;
    use wasmtime_wasi::random::{WasiRandom, WasiRandomView as _};
    clocks::wall_clock::add_to_linker::<T, WasiClocks>(l, T::clocks)?;
    clocks::monotonic_clock::add_to_linker::<T, WasiClocks>(l, T::clocks)?;
    filesystem::types::add_to_linker::<T, SandboxedFilesystem>(l, T::sandboxed_fs)?;
    filesystem::preopens::add_to_linker::<T, WasiFilesystem>(l, T::filesystem)?;
    random::random::add_to_linker::<T, BoundedRandom>(l, T::bounded_random)?;
    random::insecure::add_to_linker::<T, BoundedRandom>(l, T::bounded_random)?;
    random::insecure_seed::add_to_linker::<T, WasiRandom>(l, T::random)?;
    cli::exit::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::environment::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::stdin::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::stdout::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::stderr::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::terminal_input::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::terminal_output::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::terminal_stdin::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::terminal_stdout::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::terminal_stderr::add_to_linker::<T, WasiCli>(l, T::cli)?;
    v0_2::Hook::add_to_linker::<T, wasmtime::component::HasSelf<T>>(l, |t| t)?;
    v0_1::Hook::add_to_linker::<T, wasmtime::component::HasSelf<T>>(l, |t| t)?;
    Ok(linker)
}

struct Table;

impl HasData for Table {
    type Data<'a> = &'a mut ResourceTable;
}
