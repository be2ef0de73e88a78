//! What the registry client reads from a registry's JSON, reached without the network, for the
//! fuzz harness (`fuzz-harness`) and nothing else: one answer read as each thing it may be (a
//! `.sig` manifest and its signature layers, a referrers index, a Sigstore bundle's manifest, a
//! bundle's manifest and the head of its wasm layer), by the functions the client calls on
//! what it fetched. Hidden from the docs; not API.

use oci_client::manifest::OciManifest;

use super::artifact::{not_a_component, wasm_layer};
use super::bundles::{BUNDLE_MEDIA_TYPE, bundle_layers, bundle_manifest};
use super::referrers::referrer_digests;
use super::signatures::{SIGNATURE_ARTIFACT_TYPE, parse_manifest, signature_of};
use crate::source::reference::{Digest, OciReference};

/// What each reader made of `bytes`: the digests it found, or its refusal.
#[doc(hidden)]
pub fn fuzz_listing(bytes: &[u8]) -> Vec<Result<Vec<Digest>, String>> {
    let reference =
        OciReference::parse("oci://registry.example/team/guard:1.0.0").expect("a valid reference");
    let mut results = Vec::new();
    results.push(
        parse_manifest(&reference, bytes)
            .map(|manifest| {
                (manifest.layers.iter())
                    .filter_map(signature_of)
                    .map(|(digest, _)| digest)
                    .collect()
            })
            .map_err(|error| error.to_string()),
    );
    for artifact_type in [SIGNATURE_ARTIFACT_TYPE, BUNDLE_MEDIA_TYPE] {
        results.push(referrer_digests(bytes, artifact_type));
    }
    results.push(bundle_manifest(bytes).and_then(|manifest| {
        bundle_layers(&manifest)
            .map(|layer| layer.map(|(_, digest)| digest))
            .collect()
    }));
    results.push(
        serde_json::from_slice::<OciManifest>(bytes)
            .map_err(|error| error.to_string())
            .and_then(|manifest| wasm_layer(&manifest))
            .map(|(digest, _)| vec![digest]),
    );
    results.push(match not_a_component(&bytes[..bytes.len().min(8)]) {
        None => Ok(Vec::new()),
        Some(reason) => Err(reason),
    });
    results
}
