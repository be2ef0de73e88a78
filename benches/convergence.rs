//! What a signalling call costs convergence.json at the start of a session and 10,000 calls
//! into it: each call reads, rewrites and syncs the file, so its cost follows the file's size,
//! which the bound keeps flat (`hookhost::convergence::MAX_OBSERVATIONS`).
//!
//! `cargo bench --bench convergence` times one append of the largest signal (a 256-byte name,
//! an 8 KiB reason) to no file (the session's 1st call) and to the file 9,999 such calls leave
//! (the 10,000th). Criterion measures each; then the two are alternated call by call, so that
//! their ratio does not depend on how the machine drifted between criterion's two cases, and
//! the medians and their ratio are printed. Release build; the disk's sync dominates.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use hookhost::convergence::{ConvergenceStore, Observation};
use hookhost::verdict::{REASON_MAX_BYTES, SIGNAL_NAME_MAX_BYTES};

/// Calls before the one measured late in the session.
const EARLIER_CALLS: usize = 9_999;
/// Alternated rounds of the side-by-side measurement.
const ROUNDS: usize = 200;

fn main() {
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let first = scratch.path().join("first");
    let late = scratch.path().join("late");
    let store_first = ConvergenceStore::new(&first);
    let store_late = ConvergenceStore::new(&late);
    // The file 9,999 calls leave. Written in one append: the store keeps the same observations
    // (the first and the newest) and the same count whether they came in one call or in many.
    let earlier: Vec<Observation> = (0..EARLIER_CALLS).map(largest).collect();
    store_late.append_observations(&earlier).unwrap();
    let prefilled = scratch.path().join("prefilled.json");
    std::fs::copy(store_late.path(), &prefilled).unwrap();
    let signal = [largest(EARLIER_CALLS)];
    let file_size = std::fs::metadata(&prefilled).unwrap().len();

    let mut criterion = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    let mut group = criterion.benchmark_group("convergence");
    group.bench_function("first_call", |b| {
        b.iter_batched(
            || remove(store_first.path()),
            |()| store_first.append_observations(&signal).unwrap(),
            BatchSize::PerIteration,
        )
    });
    group.bench_function("call_10000", |b| {
        b.iter_batched(
            || restore(&prefilled, store_late.path()),
            |()| store_late.append_observations(&signal).unwrap(),
            BatchSize::PerIteration,
        )
    });
    group.finish();
    criterion.final_summary();

    let mut times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..ROUNDS {
        remove(store_first.path());
        times[0].push(timed(|| store_first.append_observations(&signal)));
        restore(&prefilled, store_late.path());
        times[1].push(timed(|| store_late.append_observations(&signal)));
    }
    let [first_median, late_median] = times.map(|mut times| {
        times.sort();
        times[times.len() / 2]
    });
    println!(
        "\nconvergence.json, one signalling call (largest signal; median of {ROUNDS} alternated \
         rounds)\n  {:<44} {:.2} ms\n  {:<44} {:.2} ms (file of {:.0} KiB before the call)\n  \
         {:<44} {:.2}x",
        "1st call of the session",
        first_median.as_secs_f64() * 1e3,
        "10,000th call",
        late_median.as_secs_f64() * 1e3,
        file_size as f64 / 1024.0,
        "10,000th / 1st",
        late_median.as_secs_f64() / first_median.as_secs_f64(),
    );
}

/// The largest signal a hook can leave, at batch `iterations`.
fn largest(iterations: usize) -> Observation {
    let marker = "… (cut by hookhost: 1000 more bytes)";
    Observation {
        signal: "s".repeat(SIGNAL_NAME_MAX_BYTES) + marker,
        reason: "r".repeat(REASON_MAX_BYTES) + marker,
        tool_iterations: iterations,
    }
}

fn timed<T, E: std::fmt::Debug>(call: impl FnOnce() -> Result<T, E>) -> Duration {
    let started = Instant::now();
    call().unwrap();
    started.elapsed()
}

fn remove(path: &Path) {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => panic!("{error}"),
        _ => {}
    }
}

/// Puts the pre-filled file back (a new file, as the store's own rename leaves).
fn restore(prefilled: &Path, path: &Path) {
    std::fs::copy(prefilled, path).unwrap();
}
