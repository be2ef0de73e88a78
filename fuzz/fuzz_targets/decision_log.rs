//! Fuzz target `decision_log`: `hookhost_fuzz_harness::decision_log` says what it reads and what it asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hookhost_fuzz_harness::decision_log::fuzz(data));
