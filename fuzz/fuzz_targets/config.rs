//! Fuzz target `config`: `hookhost_fuzz_harness::config` says what it reads and what it asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hookhost_fuzz_harness::config::fuzz(data));
