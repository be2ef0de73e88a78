//! hookhost-trust: where a component comes from, and whether to believe it.
//!
//! ```text
//! .wasm bundle ──▶ sections (the component, its metadata, a minisign signature)      (bundle)
//!   [trust] ──▶ pins (SHA-256), keys, identities, rules ──▶ verified before any compile
//!               minisign inside a bundle; cosign beside it in a registry (bundle::cosign);
//!               keyless against a Sigstore trusted root, offline (bundle::keyless)
//! oci://name:tag ──lock──▶ hooks.lock (digest) ──▶ the local store (blobs)              (oci)
//!               push, pull, lock over HTTPS: `oci` feature (oci::registry)
//! ```
//!
//! Below it is hookhost-core (configuration, the `[trust]` table as parsed); above it, the wasm
//! runtime checks a component here before compiling it, and hookhost's loading layer resolves
//! `oci://` references through the lock. Embedders reach this crate as `hookhost::bundle` and
//! `hookhost::oci`.

pub mod bundle;
pub mod oci;

// What the moved modules name by their old paths (`crate::config`, ...): the core's modules.
use hookhost_core::{config, dirs, durable, source};
