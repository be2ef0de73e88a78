//! Sigstore bundles beside an artefact in a registry, as cosign attaches them (cosign's
//! BUNDLE_SPEC): the bundle JSON as a blob, a manifest whose `artifactType` and only layer are
//! the bundle's media type and whose `subject` is the signed manifest, found through the
//! referrers API or, on a registry without it, the referrers tag schema's index
//! (`sha256-<hex>`). Read bounded and digest-checked; verified by `bundle::keyless`.

use oci_client::manifest::{OciDescriptor, OciImageManifest};

use super::error::RegistryError;
use super::referrers::referrers_tag;
use super::signatures::{MAX_MANIFEST_BYTES, OCI_INDEX, OCI_MANIFEST};
use super::{RegistryClient, bounded};
use crate::bundle::keyless::{BUNDLE_MEDIA_TYPES, MAX_BUNDLE_BYTES};
use crate::source::reference::{Digest, OciReference};

/// The media type (and artifactType) cosign attaches bundles with.
pub const BUNDLE_MEDIA_TYPE: &str = "application/vnd.dev.sigstore.bundle.v0.3+json";
/// The most bundles read for one manifest.
const MAX_BUNDLES: usize = 64;
/// OCI's empty descriptor: the config of an artifact that needs none.
const EMPTY_CONFIG: &str = "application/vnd.oci.empty.v1+json";

/// A Sigstore bundle's manifest, as the registry sent it.
pub(super) fn bundle_manifest(bytes: &[u8]) -> Result<OciImageManifest, String> {
    serde_json::from_slice(bytes)
        .map_err(|e| format!("a Sigstore bundle's manifest is not an OCI image manifest ({e})"))
}

/// The layers of `manifest` that are Sigstore bundles, each with its digest (or why that is
/// unusable).
pub(super) fn bundle_layers(
    manifest: &OciImageManifest,
) -> impl Iterator<Item = Result<(&OciDescriptor, Digest), String>> {
    manifest
        .layers
        .iter()
        .filter(|layer| BUNDLE_MEDIA_TYPES.contains(&layer.media_type.as_str()))
        .map(|layer| {
            let digest = layer
                .digest
                .parse()
                .map_err(|e| format!("a Sigstore bundle's digest is unusable: {e}"))?;
            Ok((layer, digest))
        })
}

impl RegistryClient {
    /// The Sigstore bundles attached to `manifest` in `reference`'s repository, byte for
    /// byte. None is an empty list.
    pub async fn sigstore_bundles(
        &self,
        reference: &OciReference,
        manifest: &Digest,
    ) -> Result<Vec<Vec<u8>>, RegistryError> {
        let (session, target) = self.session(reference).await?;
        let mut found = Vec::new();
        let listed = self
            .referrers(reference, &session, &target, manifest, BUNDLE_MEDIA_TYPE)
            .await?;
        for digest in listed {
            let bytes = self.manifest_bytes(reference, &digest).await?;
            let bad = |reason: String| RegistryError::BadSignatures {
                reference: reference.to_string(),
                reason,
            };
            let artifact = bundle_manifest(&bytes).map_err(bad)?;
            for layer in bundle_layers(&artifact) {
                if found.len() >= MAX_BUNDLES {
                    return Err(bad(format!(
                        "it has more than {MAX_BUNDLES} Sigstore bundles, more than hookhost reads"
                    )));
                }
                let (layer, digest) = layer.map_err(bad)?;
                let what = ("Sigstore bundle", MAX_BUNDLE_BYTES as u64);
                let bundle = self
                    .small_blob(reference, &session, &target, layer, &digest, what)
                    .await?;
                if !found.contains(&bundle) {
                    found.push(bundle);
                }
            }
        }
        Ok(found)
    }

    /// Attaches a Sigstore bundle to `manifest` as cosign does: the bundle blob, the empty
    /// config, the bundle's manifest (subject: `manifest`), and, since a registry without the
    /// referrers API cannot list it otherwise, the referrers tag schema's index with one more
    /// entry.
    pub async fn attach_sigstore_bundle(
        &self,
        reference: &OciReference,
        manifest: &Digest,
        bundle: &[u8],
    ) -> Result<(), RegistryError> {
        let (session, target) = self.session(reference).await?;
        let attempt = self.attempt(reference, "Sigstore bundle", &session);
        let push = |bytes: Vec<u8>| {
            let digest = Digest::of(&bytes).to_string();
            let client = &session.client;
            let target = &target;
            async move { client.push_blob(target, bytes, &digest).await }
        };
        let subject_bytes = self.manifest_bytes(reference, manifest).await?;
        push(bundle.to_vec())
            .await
            .map_err(|e| attempt.classify(e))?;
        push(b"{}".to_vec())
            .await
            .map_err(|e| attempt.classify(e))?;
        let subject_type = serde_json::from_slice::<serde_json::Value>(&subject_bytes)
            .ok()
            .and_then(|m| m["mediaType"].as_str().map(str::to_string))
            .unwrap_or_else(|| OCI_MANIFEST.to_string());
        let artifact = OciImageManifest {
            schema_version: 2,
            media_type: Some(OCI_MANIFEST.to_string()),
            artifact_type: Some(BUNDLE_MEDIA_TYPE.to_string()),
            config: OciDescriptor {
                media_type: EMPTY_CONFIG.to_string(),
                digest: Digest::of(b"{}").to_string(),
                size: 2,
                ..Default::default()
            },
            layers: vec![OciDescriptor {
                media_type: BUNDLE_MEDIA_TYPE.to_string(),
                digest: Digest::of(bundle).to_string(),
                size: bundle.len() as i64,
                ..Default::default()
            }],
            subject: Some(OciDescriptor {
                media_type: subject_type,
                digest: manifest.to_string(),
                size: subject_bytes.len() as i64,
                ..Default::default()
            }),
            ..Default::default()
        };
        let artifact = serde_json::to_vec(&artifact).expect("the manifest serializes");
        let artifact_digest = Digest::of(&artifact);
        let put = |tagged: oci_client::Reference, bytes: Vec<u8>, media_type: &'static str| {
            let client = &session.client;
            async move {
                client
                    .push_manifest_raw(&tagged, bytes, media_type.parse().expect("a header value"))
                    .await
            }
        };
        let artifact_size = artifact.len();
        let (registry, repository) = (
            target.registry().to_string(),
            target.repository().to_string(),
        );
        let by_digest = oci_client::Reference::with_digest(
            registry.clone(),
            repository.clone(),
            artifact_digest.to_string(),
        );
        put(by_digest, artifact, OCI_MANIFEST)
            .await
            .map_err(|e| attempt.classify(e))?;
        // The referrers tag schema: the index under `sha256-<hex>`, one entry more.
        let tag = referrers_tag(manifest);
        let existing = bounded::get(
            &session,
            &target,
            self.plain_http_for(reference),
            &format!("manifests/{tag}"),
            OCI_INDEX,
            MAX_MANIFEST_BYTES,
            &attempt,
        )
        .await?;
        let mut entries = match existing {
            bounded::Answer::Body(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes)
                .ok()
                .and_then(|index| index["manifests"].as_array().cloned())
                .unwrap_or_default(),
            bounded::Answer::Missing => Vec::new(),
        };
        let digest = artifact_digest.to_string();
        if !entries
            .iter()
            .any(|entry| entry["digest"] == digest.as_str())
        {
            entries.push(serde_json::json!({
                "mediaType": OCI_MANIFEST,
                "digest": digest,
                "size": artifact_size,
                "artifactType": BUNDLE_MEDIA_TYPE,
            }));
        }
        let index = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": OCI_INDEX,
            "manifests": entries,
        });
        let tagged = oci_client::Reference::with_tag(registry, repository, tag);
        put(
            tagged,
            serde_json::to_vec(&index).expect("the index serializes"),
            OCI_INDEX,
        )
        .await
        .map_err(|e| attempt.classify(e))?;
        Ok(())
    }
}
