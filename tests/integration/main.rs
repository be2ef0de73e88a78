//! Integration tests, in one binary (each extra test binary links everything again).

mod bundle;
mod cli;
mod cli_input;
mod command;
mod contract;
mod examples;
mod forgeflare;
mod hardening;
mod languages;
mod layers;
mod lifecycle;
mod oci;
mod support;
mod walkthrough;
mod wasm;
mod wasm_load;
