//! The committed fuzz corpus (`fuzz/corpus/TARGET/`: minimised inputs, hand-written seeds and
//! the regression input of every bug the fuzzers found), replayed through the same functions
//! the fuzz targets call, on stable Rust, as part of `cargo test`.

use std::path::Path;

/// Every corpus file of every target runs without a panic (every failure is listed, not only
/// the first).
#[test]
fn every_corpus_input_passes_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, target) in hookhost_fuzz_harness::TARGETS {
        let dir = root.join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e} (every target has a corpus)", dir.display()))
            .map(|entry| entry.expect("a directory entry").path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{} is empty", dir.display());
        for file in files {
            let data = std::fs::read(&file).expect("a corpus file");
            ran += 1;
            if std::panic::catch_unwind(|| target(&data)).is_err() {
                failed.push(file.display().to_string());
            }
        }
    }
    hookhost_fuzz_harness::remove_scratch();
    assert!(
        failed.is_empty(),
        "{} of {ran} inputs failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
