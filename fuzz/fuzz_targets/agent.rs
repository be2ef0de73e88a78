//! Fuzz target `agent`: `hookhost_fuzz_harness::agent` says what it reads and what it asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hookhost_fuzz_harness::agent::fuzz(data));
