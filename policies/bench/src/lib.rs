//! Measurements of the shipped policies; the code is in `examples/quality.rs` (the destructive
//! policy against destructive_command_guard on `policies/destructive/corpus.tsv`) and
//! `benches/policies.rs` (each policy's cost per call as a component). This library is empty.
