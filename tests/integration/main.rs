//! Integration tests, in one binary (each extra test binary links everything again).

mod bundle;
mod cli;
mod command;
mod contract;
mod examples;
mod forgeflare;
mod robustness;
mod support;
mod walkthrough;
mod wasm;
mod wasm_load;
