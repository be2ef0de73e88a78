//! Integration tests, in one binary (each extra test binary links everything again).
//!
//! `cargo test --no-default-features` runs what an embedder without the wasm runtime gets:
//! command hooks, the contract, the forgeflare facade, and what a wasm hook or `[trust]` is
//! without the feature (`without_wasm`).

#[cfg(feature = "cli")]
mod agent_env;
#[cfg(feature = "cli")]
mod agent_gates;
#[cfg(feature = "cli")]
mod agents;
#[cfg(feature = "cli")]
mod agents_codex_cursor;
#[cfg(feature = "cli")]
mod approvals;
mod architecture;
#[cfg(feature = "wasm")]
mod bundle;
#[cfg(all(feature = "cli", feature = "catalogue"))]
mod catalogue;
#[cfg(feature = "catalogue")]
mod catalogue_build;
#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
mod cli_input;
mod command;
#[cfg(feature = "cli")]
mod compile_progress;
mod contract;
#[cfg(feature = "cli")]
mod decisions;
mod docs;
mod embed;
#[cfg(feature = "wasm")]
mod examples;
mod forgeflare;
#[cfg(feature = "wasm")]
mod hardening;
#[cfg(feature = "wasm")]
mod hardening_cache;
#[cfg(all(feature = "cli", feature = "catalogue"))]
mod init;
#[cfg(feature = "cli")]
mod languages;
#[cfg(feature = "cli")]
mod layers;
#[cfg(feature = "wasm")]
mod lifecycle;
#[cfg(feature = "cli")]
mod lifecycle_examples;
#[cfg(feature = "cli")]
mod managed;
mod monitor;
#[cfg(feature = "wasm")]
mod no_wasi;
#[cfg(all(feature = "cli", feature = "oci"))]
mod oci;
#[cfg(feature = "cli")]
mod policy_test;
#[cfg(feature = "cli")]
mod recorded;
mod robustness;
#[cfg(feature = "cli")]
mod rules;
#[cfg(feature = "cli")]
mod second_user;
#[cfg(feature = "cli")]
mod serve;
mod support;
#[cfg(feature = "telemetry")]
mod telemetry;
#[cfg(feature = "telemetry")]
mod telemetry_agents;
#[cfg(feature = "cli")]
mod unreadable;
#[cfg(feature = "cli")]
mod vocabulary;
#[cfg(feature = "cli")]
mod walkthrough;
#[cfg(feature = "wasm")]
mod wasm;
#[cfg(feature = "wasm")]
mod wasm_load;
#[cfg(not(feature = "wasm"))]
mod without_wasm;
