//! `catalogue/index.toml`: what `scripts/build-catalogue` built, one entry per policy: its
//! version and summary, the SHA-256 of the signed bundle hookhost embeds (what loading pins)
//! and of the component as the build writes it (what the reproducibility test rebuilds).

use std::sync::OnceLock;

use serde::Deserialize;

/// The index text, as committed.
const INDEX: &str = include_str!("../../../../catalogue/index.toml");

/// The catalogue's index.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    /// The rustc version the components were built with (`rustc --version`'s second word).
    pub rustc: String,
    /// One entry per policy.
    #[serde(rename = "policy")]
    pub policies: Vec<Entry>,
}

/// One policy's entry in the index.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Its name (`destructive`).
    pub name: String,
    /// Its crate's version.
    pub version: String,
    /// What it guards against, in one line.
    pub summary: String,
    /// The SHA-256 (hex) of the shipped bundle, `catalogue/NAME.wasm`.
    pub sha256: String,
    /// The SHA-256 (hex) of the component the build wrote, before its metadata and signature
    /// were added.
    pub build_sha256: String,
}

impl Index {
    /// Reads an index (`text` is index.toml's content).
    pub fn parse(text: &str) -> Result<Index, String> {
        toml::from_str(text).map_err(|error| format!("catalogue/index.toml: {error}"))
    }

    /// The index this binary was built with.
    pub fn embedded() -> &'static Index {
        static EMBEDDED: OnceLock<Index> = OnceLock::new();
        // A broken committed index is a build defect the catalogue's tests catch, not input.
        EMBEDDED.get_or_init(|| Index::parse(INDEX).expect("the committed index parses"))
    }

    /// The entry for `name`.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.policies.iter().find(|entry| entry.name == name)
    }
}
