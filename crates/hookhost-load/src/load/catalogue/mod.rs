//! Loading a policy of hookhost's catalogue (`policy = "NAME"`): its component, embedded in
//! this binary, is checked before anything reaches the compiler, as a signed bundle from a
//! file is: its SHA-256 against the one `catalogue/index.toml` pins, then its signature against
//! the catalogue's key (`bundle::verify`, with `require_signed`). A policy that fails either
//! does not load, which makes hooks.toml a configuration error: guards fail closed.
//!
//! The catalogue's key is the one that counts here, whatever `[trust]` lists: `[trust]` says
//! which keys vouch for components from files and registries; a catalogue policy is part of
//! hookhost and vouched for by the key hookhost was built with.

use std::sync::{Arc, OnceLock};

use minisign::PublicKeyBox;

use crate::bundle::{self, BundleError, TrustStore, TrustedKey};
use crate::catalogue::{Entry, PUBLIC_KEY, Policy};
use crate::config::{HookSpec, WasmSpec};
use crate::wasm::{HookSite, WasmEngine, WasmHook};

/// The name the catalogue's key goes by in messages and in a hook's signers.
pub(crate) const KEY_NAME: &str = "hookhost-catalogue";

/// Verifies and loads the policy `name` for `spec` (whose `wasm_spec` is `policy:NAME`).
pub(super) fn load(
    engine: &Arc<WasmEngine>,
    name: &str,
    spec: &HookSpec,
    wasm_spec: &WasmSpec,
    site: HookSite<'_>,
) -> Result<WasmHook, String> {
    let policy = Policy::named(name)?;
    let label = format!("policy {}", policy.name);
    let signers = checked(policy).map_err(|problem| format!("{label} {problem}"))?;
    WasmHook::load_checked(
        engine,
        policy.component,
        &label,
        wasm_spec,
        &spec.events,
        site,
        signers,
    )
}

/// The component of the catalogue's policy `name`, checked as loading checks it (the index's
/// pin, the catalogue key's signature): what `hookhost policies publish` pushes, so that a
/// changed binary never publishes a changed policy. An error says what is wrong.
pub fn verified_component(name: &str) -> Result<&'static [u8], String> {
    let policy = Policy::named(name)?;
    verify(policy.component, policy.entry())
        .map(|_| policy.component)
        .map_err(|problem| format!("policy {} {problem}", policy.name))
}

/// [`verify`] of a catalogue policy's embedded component, once per process: the bytes are
/// part of this binary and cannot change while it runs (a daemon loads runners again and
/// again; each would pay for the hash and the signature).
fn checked(policy: &'static Policy) -> Result<Vec<String>, String> {
    const COUNT: usize = crate::catalogue::POLICIES.len();
    static CHECKED: [OnceLock<Result<Vec<String>, String>>; COUNT] =
        [const { OnceLock::new() }; COUNT];
    let index = crate::catalogue::POLICIES
        .iter()
        .position(|listed| listed.name == policy.name)
        .expect("a policy of the table");
    CHECKED[index]
        .get_or_init(|| verify(policy.component, policy.entry()))
        .clone()
}

/// Checks a catalogue component (`bytes`) against its index entry and the catalogue's key;
/// the names of the keys that vouched for it, or what is wrong ("has sha256 ...").
pub(crate) fn verify(bytes: &[u8], entry: &Entry) -> Result<Vec<String>, String> {
    bundle::verify_pin(bytes, &entry.sha256).map_err(|error| match error {
        BundleError::PinMismatch { expected, actual } => format!(
            "has sha256 {actual}, but hookhost's catalogue index pins sha256 = \"{expected}\": \
             the policy built into this hookhost was changed; reinstall hookhost"
        ),
        other => other.to_string(),
    })?;
    let trust = TrustStore {
        keys: vec![catalogue_key()],
        require_signed: true,
    };
    bundle::verify(bytes, &trust)
        .map(|verified| verified.signers)
        .map_err(|error| format!("{error} (checked against the catalogue's key)"))
}

/// The catalogue's public key, as committed in `catalogue/catalogue.pub`.
pub(crate) fn catalogue_key() -> TrustedKey {
    let key = PublicKeyBox::from_string(PUBLIC_KEY)
        .and_then(PublicKeyBox::into_public_key)
        // The committed key is a build input the catalogue's tests read, not user input.
        .expect("catalogue/catalogue.pub is a minisign public key");
    TrustedKey {
        name: KEY_NAME.to_string(),
        key,
        revoked: false,
    }
}

#[cfg(test)]
mod tests;
