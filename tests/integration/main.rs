//! Integration tests, in one binary (each extra test binary links everything again).
//!
//! `cargo test --no-default-features` runs what an embedder without the wasm runtime gets:
//! command hooks, the contract, the forgeflare facade, and what a wasm hook or `[trust]` is
//! without the feature (`without_wasm`).

#[cfg(feature = "wasm")]
mod bundle;
#[cfg(feature = "cli")]
mod cli;
mod command;
mod contract;
#[cfg(feature = "wasm")]
mod examples;
mod forgeflare;
#[cfg(feature = "wasm")]
mod lifecycle;
mod support;
#[cfg(feature = "cli")]
mod walkthrough;
#[cfg(feature = "wasm")]
mod wasm;
#[cfg(feature = "wasm")]
mod wasm_load;
#[cfg(not(feature = "wasm"))]
mod without_wasm;
