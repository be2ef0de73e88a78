//! Fuzz target `protocol`: `hookhost_fuzz_harness::protocol` says what it reads and what it asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hookhost_fuzz_harness::protocol::fuzz(data));
