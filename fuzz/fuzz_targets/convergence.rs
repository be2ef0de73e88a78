//! Fuzz target `convergence`: `hookhost_fuzz_harness::convergence` says what it reads and what it asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hookhost_fuzz_harness::convergence::fuzz(data));
