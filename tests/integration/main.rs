//! Integration tests, in one binary (each extra test binary links everything again).

mod agents;
mod bundle;
mod cli;
mod cli_input;
mod command;
mod contract;
mod examples;
mod forgeflare;
mod hardening;
mod layers;
mod lifecycle;
mod lifecycle_examples;
mod oci;
mod robustness;
mod support;
mod walkthrough;
mod wasm;
mod wasm_load;
