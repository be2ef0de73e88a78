//! What hookhost's fuzz targets run: one module per family of parsers of bytes an attacker can
//! choose, each with `fuzz(data)`, the whole of one execution. The cargo-fuzz crate (`fuzz/`)
//! is a line per target over these, and `cargo test -p hookhost-fuzz-harness` replays the
//! committed corpus (`fuzz/corpus/TARGET/`) through the same functions on stable Rust.
//!
//! Why a crate rather than a hidden module of hookhost: it calls hookhost's public API (and a
//! handful of `#[doc(hidden)] fuzz_*` entry points where a parser sits behind the network, a
//! process or a signature), so hookhost exposes only those entry points and no harness code,
//! and the harness keeps compiling while hookhost's modules move into crates behind
//! re-exports.
//!
//! Each target reads its input one of two ways, chosen by the first byte: as the document
//! itself (raw bytes after a small header: what the hand-written seeds are, and what the
//! fuzzer mutates byte by byte) or as an `arbitrary` structure (a JSON tree with the format's
//! keys, a frame with a valid header, a TOML document of the format's tables). Every target
//! asserts what a user depends on: no panic, no hang, allocation bounded by the input (the
//! fuzz script's `-rss_limit_mb` and `-malloc_limit_mb`), each refusal an error value with a
//! message, and where a writer exists, that what it writes reads back the same.

pub mod agent;
pub mod config;
pub mod convergence;
pub mod cosign;
pub mod decision_log;
pub mod keyless;
pub mod lock;
pub mod minisign;
pub mod oci;
pub mod policy_test;
pub mod protocol;
pub mod wire;

mod json;
mod scratch;
mod toml_doc;

pub use scratch::remove_scratch;

/// One execution of a target.
pub type Target = fn(&[u8]);

/// Every target, by the name its fuzz target and corpus directory have.
pub const TARGETS: [(&str, Target); 12] = [
    ("agent", agent::fuzz),
    ("config", config::fuzz),
    ("convergence", convergence::fuzz),
    ("cosign", cosign::fuzz),
    ("decision_log", decision_log::fuzz),
    ("keyless", keyless::fuzz),
    ("lock", lock::fuzz),
    ("minisign", minisign::fuzz),
    ("oci", oci::fuzz),
    ("policy_test", policy_test::fuzz),
    ("protocol", protocol::fuzz),
    ("wire", wire::fuzz),
];

/// Runs `future` to its end on this thread's runtime (one per thread: the corpus replay runs
/// targets on several).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a current-thread runtime");
    }
    RUNTIME.with(|runtime| runtime.block_on(future))
}

/// The input's first byte, which picks how the rest is read, and the rest.
fn split_mode(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((mode, rest)) => (*mode, rest),
        None => (0, data),
    }
}

/// `data` as text, for parsers that take `&str` (their callers read files as UTF-8 first).
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// The `index % len`-th element of `list`.
fn pick<T: Copy>(list: &[T], index: u8) -> T {
    list[usize::from(index) % list.len()]
}
