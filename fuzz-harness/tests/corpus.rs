//! The committed fuzz corpus (`fuzz/corpus/TARGET/`: minimised inputs, hand-written seeds and
//! the regression input of every bug the fuzzers found), replayed through the same functions
//! the fuzz targets call, on stable Rust, as part of `cargo test`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Every corpus file of every target runs without a panic (every failure is listed, not only
/// the first). The targets replay on threads of their own (the keyless corpus, which verifies
/// real signatures unoptimised, takes as long as most others together).
#[test]
fn every_corpus_input_passes_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let replays: Vec<Replay> = std::thread::scope(|scope| {
        let threads: Vec<_> = hookhost_fuzz_harness::TARGETS
            .iter()
            .map(|(name, target)| {
                let dir = root.join(name);
                scope.spawn(move || replay(name, &dir, *target))
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| thread.join().expect("a replay thread"))
            .collect()
    });
    hookhost_fuzz_harness::remove_scratch();
    let mut failed = Vec::new();
    let mut ran = 0;
    for replay in &replays {
        eprintln!(
            "{}: {} inputs in {:.2?}",
            replay.target, replay.ran, replay.took
        );
        ran += replay.ran;
        failed.extend(replay.failed.iter().map(|file| file.display().to_string()));
    }
    assert!(
        failed.is_empty(),
        "{} of {ran} inputs failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// What one target's corpus did.
struct Replay {
    target: &'static str,
    ran: usize,
    failed: Vec<PathBuf>,
    took: Duration,
}

fn replay(target: &'static str, dir: &Path, fuzz: hookhost_fuzz_harness::Target) -> Replay {
    let started = Instant::now();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e} (every target has a corpus)", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    let mut failed = Vec::new();
    for file in &files {
        let data = std::fs::read(file).expect("a corpus file");
        if std::panic::catch_unwind(|| fuzz(&data)).is_err() {
            failed.push(file.clone());
        }
    }
    Replay {
        target,
        ran: files.len(),
        failed,
        took: started.elapsed(),
    }
}
