//! Fuzz target `policy_test`: `hookhost_fuzz_harness::policy_test` says what it reads and what it asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hookhost_fuzz_harness::policy_test::fuzz(data));
