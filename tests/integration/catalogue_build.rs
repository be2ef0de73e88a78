//! The catalogue hookhost ships is the one its source builds: `scripts/build-catalogue
//! --raw-out` rebuilds every policy of `policies/` for wasm32-wasip2 (pinned toolchain, locked,
//! paths remapped, in a fresh target directory), and each component must have the digest
//! `catalogue/index.toml` records, and be, byte for byte, the shipped bundle without the
//! metadata and signature sections signing added.
//!
//! A cold build of the seven policies took 2 min 20 s on a loaded 2-core machine (one run).
//! `HOOKHOST_CATALOGUE_TARGET_DIR` reuses a target directory instead (faster, for local runs;
//! a cold one is what proves the build is reproducible).

use std::path::Path;
use std::process::Command;

use hookhost::bundle::sections::{self, METADATA_SECTION, SIGNATURE_SECTION};
use hookhost::bundle::{read_metadata, verify_pin};
use hookhost::catalogue::Index;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_shipped_catalogue_is_what_its_source_builds() {
    let index =
        Index::parse(&std::fs::read_to_string(repo().join("catalogue/index.toml")).unwrap())
            .unwrap();
    let rustc = Command::new("rustc")
        .arg("--version")
        .output()
        .expect("rustc runs");
    let rustc = String::from_utf8_lossy(&rustc.stdout).into_owned();
    assert!(
        rustc.starts_with(&format!("rustc {} ", index.rustc)),
        "the catalogue is built with rustc {}, this is {rustc}: rustup toolchain install {0} \
         --target wasm32-wasip2, and run the tests with it",
        index.rustc
    );
    let out = tempfile::tempdir().unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let target = std::env::var_os("HOOKHOST_CATALOGUE_TARGET_DIR")
        .unwrap_or_else(|| fresh.path().as_os_str().to_owned());
    let status = Command::new(repo().join("scripts/build-catalogue"))
        .arg("--raw-out")
        .arg(out.path())
        .env("CATALOGUE_TARGET_DIR", target)
        .status()
        .expect(
            "scripts/build-catalogue runs (it needs bash, cargo and rustup's wasm32-wasip2 target)",
        );
    assert!(status.success(), "scripts/build-catalogue failed: {status}");

    for entry in &index.policies {
        let rebuilt = std::fs::read(out.path().join(format!("{}.wasm", entry.name))).unwrap();
        verify_pin(&rebuilt, &entry.build_sha256).unwrap_or_else(|error| {
            panic!(
                "{}: the rebuilt component {error}: the catalogue is not what policies/{0} \
                 builds; run scripts/build-catalogue and commit catalogue/",
                entry.name
            )
        });
        let shipped = std::fs::read(repo().join(format!("catalogue/{}.wasm", entry.name))).unwrap();
        verify_pin(&shipped, &entry.sha256).unwrap();
        let metadata = read_metadata(&shipped)
            .unwrap()
            .expect("a bundle has metadata");
        assert_eq!(
            (metadata.name.as_str(), metadata.version.as_str()),
            (entry.name.as_str(), entry.version.as_str())
        );
        let bare = sections::without_custom(&shipped, SIGNATURE_SECTION).unwrap();
        let bare = sections::without_custom(&bare, METADATA_SECTION).unwrap();
        assert!(
            bare == rebuilt,
            "{}: catalogue/{0}.wasm is not the rebuilt component plus its metadata and signature",
            entry.name
        );
    }
}
