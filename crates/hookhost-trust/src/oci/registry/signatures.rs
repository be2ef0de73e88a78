//! cosign signatures in a registry: read from and attached to the `sha256-<hex>.sig` tag beside
//! the signed manifest, as cosign and containers/image (skopeo, podman) store them, and read
//! from the OCI referrers API where a registry has one.
//!
//! The `.sig` tag names an OCI image manifest whose layers are the signatures: each a
//! simple-signing payload blob (media type [`SIGNATURE_MEDIA_TYPE`]) with the base64 signature
//! in its [`SIGNATURE_ANNOTATION`] annotation. A second signer appends a layer. Nothing here
//! checks a signature: that is `bundle::cosign::verify`, with the key the caller trusts. What
//! this module guarantees is that what it returns is what the registry holds (every blob
//! digest-checked) and that a hostile registry cannot make it read without bound.
//!
//! Longer than 400 lines: the `.sig` tag and the referrers API are two ways to the same
//! signatures, read and attached with one set of manifest and blob helpers.

use futures_util::StreamExt as _;
use oci_client::manifest::{OciDescriptor, OciImageManifest};

use super::bounded::{self, Answer};
use super::error::RegistryError;
use super::{RegistryClient, Session};
use crate::bundle::cosign::CosignSignature;
use crate::source::reference::{Digest, OciReference};

/// The media type of a signature layer (cosign's simple-signing payload).
pub const SIGNATURE_MEDIA_TYPE: &str = "application/vnd.dev.cosign.simplesigning.v1+json";
/// The layer annotation holding the base64 signature.
pub const SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";
/// The layer annotation holding a keyless signature's certificate (PEM).
pub const CERTIFICATE_ANNOTATION: &str = "dev.sigstore.cosign/certificate";
/// The layer annotation holding a keyless signature's chain (PEM).
pub const CHAIN_ANNOTATION: &str = "dev.sigstore.cosign/chain";
/// The layer annotation holding Rekor's signed entry timestamp and the entry it signs (JSON).
pub const REKOR_BUNDLE_ANNOTATION: &str = "dev.sigstore.cosign/bundle";
/// The artifactType of cosign signatures stored as OCI 1.1 referrers.
pub const SIGNATURE_ARTIFACT_TYPE: &str = "application/vnd.dev.cosign.artifact.sig.v1+json";
/// The config of a signature manifest, as containers/image writes it (cosign writes an empty
/// image config of the same type); its `diff_ids` list the layers.
const SIGNATURE_CONFIG_MEDIA_TYPE: &str = "application/vnd.oci.image.config.v1+json";
pub(super) const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";
pub(super) const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";

/// The largest manifest hookhost reads: the size the OCI distribution spec says registries
/// should accept at least. A signature manifest of a few signers is about 1 KiB.
pub const MAX_MANIFEST_BYTES: u64 = 4 << 20;
/// The largest signature payload hookhost reads. cosign's payloads are about 300 bytes; with
/// cosign's `-a key=value` annotations a few KiB.
pub const MAX_PAYLOAD_BYTES: u64 = 64 << 10;
/// The most signatures read for one manifest (layers and referrers together).
pub const MAX_SIGNATURES: usize = 256;

/// The tag cosign stores `manifest`'s signatures under.
pub fn signature_tag(manifest: &Digest) -> String {
    format!("sha256-{}.sig", manifest.hex())
}

/// One signature layer as cosign attaches it: the payload and its annotations. A keyless one
/// has a certificate (and, when logged, Rekor's bundle).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignatureLayer {
    /// The simple-signing payload, byte for byte.
    pub payload: Vec<u8>,
    /// `dev.cosignproject.cosign/signature`: the base64 signature.
    pub signature: String,
    /// `dev.sigstore.cosign/certificate`: the signing certificate (PEM), for a keyless one.
    pub certificate: Option<String>,
    /// `dev.sigstore.cosign/chain`: its chain (PEM).
    pub chain: Option<String>,
    /// `dev.sigstore.cosign/bundle`: Rekor's signed entry timestamp and entry (JSON).
    pub rekor_bundle: Option<String>,
}

impl RegistryClient {
    /// The cosign signatures stored for `manifest` in `reference`'s repository: the layers of
    /// its `.sig` tag, and the signature manifests the referrers API lists. No signature is an
    /// empty list, not an error. Every payload is digest-checked against its descriptor;
    /// nothing is verified (see `bundle::cosign::verify`). Keyless layers are listed too,
    /// without their certificates: [`RegistryClient::signature_layers`] has them whole.
    pub async fn signatures(
        &self,
        reference: &OciReference,
        manifest: &Digest,
    ) -> Result<Vec<CosignSignature>, RegistryError> {
        let mut signatures: Vec<CosignSignature> = Vec::new();
        for layer in self.signature_layers(reference, manifest).await? {
            let signature = CosignSignature {
                payload: layer.payload,
                signature: layer.signature,
            };
            if !signatures.contains(&signature) {
                signatures.push(signature);
            }
        }
        Ok(signatures)
    }

    /// The signature layers stored for `manifest` (the `.sig` tag's, and those of the
    /// signature manifests the referrers API lists), with every annotation cosign writes:
    /// key-based and keyless alike. Digest-checked, not verified.
    pub async fn signature_layers(
        &self,
        reference: &OciReference,
        manifest: &Digest,
    ) -> Result<Vec<SignatureLayer>, RegistryError> {
        let (session, target) = self.session(reference).await?;
        let mut found = Vec::new();
        let tag = signature_tag(manifest);
        if let Some(signatures) = self
            .signature_manifest(reference, &session, &target, &tag)
            .await?
        {
            self.collect(reference, &session, &target, &signatures, &mut found)
                .await?;
        }
        for digest in self
            .referrers(
                reference,
                &session,
                &target,
                manifest,
                SIGNATURE_ARTIFACT_TYPE,
            )
            .await?
        {
            let bytes = self.manifest_bytes(reference, &digest).await?;
            let signatures = parse_manifest(reference, &bytes)?;
            self.collect(reference, &session, &target, &signatures, &mut found)
                .await?;
        }
        Ok(found)
    }

    /// Attaches `signature` to `manifest` in `reference`'s repository as cosign does: the
    /// payload blob, then the `.sig` manifest with one more layer (the layers already there
    /// stay: two signers are two layers). A signature already there is not added twice. Two
    /// signers attaching at the same instant can lose one signature (the registry has no
    /// compare-and-swap on tags; cosign has the same race).
    pub async fn attach_signature(
        &self,
        reference: &OciReference,
        manifest: &Digest,
        signature: &CosignSignature,
    ) -> Result<(), RegistryError> {
        let layer = SignatureLayer {
            payload: signature.payload.clone(),
            signature: signature.signature.clone(),
            ..SignatureLayer::default()
        };
        self.attach_layer(reference, manifest, &layer).await
    }

    /// Attaches a signature layer with all its annotations (a keyless one: its certificate,
    /// chain and Rekor bundle), as `cosign sign` does.
    pub async fn attach_layer(
        &self,
        reference: &OciReference,
        manifest: &Digest,
        signature: &SignatureLayer,
    ) -> Result<(), RegistryError> {
        let (session, target) = self.session(reference).await?;
        let tag = signature_tag(manifest);
        let existing = self
            .signature_manifest(reference, &session, &target, &tag)
            .await?;
        let payload_digest = Digest::of(&signature.payload);
        let mut layers = existing.map(|m| m.layers).unwrap_or_default();
        if layers
            .iter()
            .filter_map(signature_of)
            .any(|(digest, existing)| digest == payload_digest && *existing == signature.signature)
        {
            return Ok(());
        }
        let attempt = self.attempt(reference, "signature payload", &session);
        session
            .client
            .push_blob(
                &target,
                signature.payload.clone(),
                &payload_digest.to_string(),
            )
            .await
            .map_err(|e| attempt.classify(e))?;
        layers.push(OciDescriptor {
            media_type: SIGNATURE_MEDIA_TYPE.to_string(),
            digest: payload_digest.to_string(),
            size: signature.payload.len() as i64,
            annotations: Some(
                [
                    (SIGNATURE_ANNOTATION, Some(&signature.signature)),
                    (CERTIFICATE_ANNOTATION, signature.certificate.as_ref()),
                    (CHAIN_ANNOTATION, signature.chain.as_ref()),
                    (REKOR_BUNDLE_ANNOTATION, signature.rekor_bundle.as_ref()),
                ]
                .into_iter()
                .filter_map(|(key, value)| Some((key.to_string(), value?.clone())))
                .collect(),
            ),
            ..Default::default()
        });
        let config = serde_json::to_vec(&serde_json::json!({
            "architecture": "",
            "os": "",
            "config": {},
            "rootfs": {
                "type": "layers",
                "diff_ids": layers.iter().map(|l| l.digest.as_str()).collect::<Vec<_>>(),
            },
        }))
        .expect("the config serializes");
        let config_digest = Digest::of(&config);
        let config_size = config.len() as i64;
        session
            .client
            .push_blob(&target, config, &config_digest.to_string())
            .await
            .map_err(|e| attempt.classify(e))?;
        let manifest = OciImageManifest {
            schema_version: 2,
            media_type: Some(OCI_MANIFEST.to_string()),
            config: OciDescriptor {
                media_type: SIGNATURE_CONFIG_MEDIA_TYPE.to_string(),
                digest: config_digest.to_string(),
                size: config_size,
                ..Default::default()
            },
            layers,
            ..Default::default()
        };
        let manifest = serde_json::to_vec(&manifest).expect("the manifest serializes");
        let tagged = oci_client::Reference::with_tag(
            target.registry().to_string(),
            target.repository().to_string(),
            tag,
        );
        session
            .client
            .push_manifest_raw(
                &tagged,
                manifest,
                OCI_MANIFEST.parse().expect("a header value"),
            )
            .await
            .map_err(|e| {
                self.attempt(reference, "signature manifest", &session)
                    .classify(e)
            })?;
        Ok(())
    }

    /// The manifest `digest` of `reference`'s repository, byte for byte, checked against
    /// `digest` (what a lock stores so that a load can check offline which wasm layer the
    /// signed manifest names).
    pub async fn manifest_bytes(
        &self,
        reference: &OciReference,
        digest: &Digest,
    ) -> Result<Vec<u8>, RegistryError> {
        let (session, target) = self.session(reference).await?;
        let attempt = self.attempt(reference, "manifest", &session);
        let accept = format!("{OCI_MANIFEST}, {DOCKER_MANIFEST}, {OCI_INDEX}");
        let path = format!("manifests/{digest}");
        let answer = bounded::get(
            &session,
            &target,
            self.plain_http_for(reference),
            &path,
            &accept,
            MAX_MANIFEST_BYTES,
            &attempt,
        )
        .await?;
        let Answer::Body(bytes) = answer else {
            return Err(RegistryError::NotFound {
                registry: reference.registry().to_string(),
                reference: reference.with_digest(digest.clone()).to_string(),
                what: "manifest",
            });
        };
        let actual = Digest::of(&bytes);
        if actual != *digest {
            return Err(attempt.mismatch(digest, &actual));
        }
        Ok(bytes)
    }

    /// The `.sig` tag's manifest, `None` when there is no such tag.
    async fn signature_manifest(
        &self,
        reference: &OciReference,
        session: &Session,
        target: &oci_client::Reference,
        tag: &str,
    ) -> Result<Option<OciImageManifest>, RegistryError> {
        let attempt = self.attempt(reference, "signature manifest", session);
        let answer = bounded::get(
            session,
            target,
            self.plain_http_for(reference),
            &format!("manifests/{tag}"),
            &format!("{OCI_MANIFEST}, {DOCKER_MANIFEST}"),
            MAX_MANIFEST_BYTES,
            &attempt,
        )
        .await?;
        match answer {
            Answer::Missing => Ok(None),
            Answer::Body(bytes) => parse_manifest(reference, &bytes).map(Some),
        }
    }

    /// Appends the signatures of a signature manifest's layers to `found`, skipping
    /// duplicates; each payload is fetched (bounded) and digest-checked.
    async fn collect(
        &self,
        reference: &OciReference,
        session: &Session,
        target: &oci_client::Reference,
        manifest: &OciImageManifest,
        found: &mut Vec<SignatureLayer>,
    ) -> Result<(), RegistryError> {
        for layer in &manifest.layers {
            let Some((digest, signature)) = signature_of(layer) else {
                continue;
            };
            if found.len() >= MAX_SIGNATURES {
                return Err(RegistryError::BadSignatures {
                    reference: reference.to_string(),
                    reason: format!(
                        "it has more than {MAX_SIGNATURES} signatures, more than hookhost reads"
                    ),
                });
            }
            let payload = self
                .payload(reference, session, target, layer, &digest)
                .await?;
            let annotation = |key: &str| {
                layer
                    .annotations
                    .as_ref()
                    .and_then(|annotations| annotations.get(key))
                    .cloned()
            };
            let signature = SignatureLayer {
                payload,
                signature: signature.clone(),
                certificate: annotation(CERTIFICATE_ANNOTATION),
                chain: annotation(CHAIN_ANNOTATION),
                rekor_bundle: annotation(REKOR_BUNDLE_ANNOTATION),
            };
            if !found.contains(&signature) {
                found.push(signature);
            }
        }
        Ok(())
    }

    /// One payload blob, at most [`MAX_PAYLOAD_BYTES`], whose bytes must hash to `digest`.
    async fn payload(
        &self,
        reference: &OciReference,
        session: &Session,
        target: &oci_client::Reference,
        layer: &OciDescriptor,
        digest: &Digest,
    ) -> Result<Vec<u8>, RegistryError> {
        let what = ("signature payload", MAX_PAYLOAD_BYTES);
        self.small_blob(reference, session, target, layer, digest, what)
            .await
    }

    /// One small blob, at most `limit` bytes, whose bytes must hash to `digest`.
    pub(super) async fn small_blob(
        &self,
        reference: &OciReference,
        session: &Session,
        target: &oci_client::Reference,
        layer: &OciDescriptor,
        digest: &Digest,
        (what, limit): (&'static str, u64),
    ) -> Result<Vec<u8>, RegistryError> {
        let attempt = self.attempt(reference, what, session);
        let size = u64::try_from(layer.size).unwrap_or(u64::MAX);
        if size > limit {
            return Err(attempt.too_large(limit));
        }
        let mut stream = session
            .client
            .pull_blob_stream(target, layer)
            .await
            .map_err(|e| attempt.classify(e))?;
        let mut bytes = Vec::new();
        while let Some(chunk) = stream.next().await {
            // oci-client's own digest check fails the last chunk; ours below names the blob.
            let Ok(chunk) = chunk else { break };
            if (bytes.len() + chunk.len()) as u64 > limit {
                return Err(attempt.too_large(limit));
            }
            bytes.extend_from_slice(&chunk);
        }
        let actual = Digest::of(&bytes);
        if actual != *digest {
            return Err(attempt.mismatch(digest, &actual));
        }
        Ok(bytes)
    }
}

/// A signature layer's payload digest and signature; `None` for any other layer, and for a
/// digest that is not SHA-256 (which no cosign writes, and hookhost could not check).
pub(super) fn signature_of(layer: &OciDescriptor) -> Option<(Digest, &String)> {
    if layer.media_type != SIGNATURE_MEDIA_TYPE {
        return None;
    }
    let signature = layer.annotations.as_ref()?.get(SIGNATURE_ANNOTATION)?;
    Some((layer.digest.parse().ok()?, signature))
}

pub(super) fn parse_manifest(
    reference: &OciReference,
    bytes: &[u8],
) -> Result<OciImageManifest, RegistryError> {
    serde_json::from_slice(bytes).map_err(|e| RegistryError::BadSignatures {
        reference: reference.to_string(),
        reason: format!("its signature manifest is not an OCI image manifest ({e})"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(media_type: &str, digest: &str, signature: Option<&str>) -> OciDescriptor {
        OciDescriptor {
            media_type: media_type.to_string(),
            digest: digest.to_string(),
            size: 1,
            annotations: signature
                .map(|s| [(SIGNATURE_ANNOTATION.to_string(), s.to_string())].into()),
            ..Default::default()
        }
    }

    #[test]
    fn the_tag_is_cosigns() {
        let digest = Digest::of(b"manifest");
        assert_eq!(
            signature_tag(&digest),
            format!("sha256-{}.sig", digest.hex())
        );
    }

    #[test]
    fn only_simple_signing_layers_with_a_signature_are_signatures() {
        let digest = Digest::of(b"payload");
        let d = digest.to_string();
        #[rustfmt::skip]
        let cases = [
            ("signature",         layer(SIGNATURE_MEDIA_TYPE, &d, Some("MEUC")), true),
            ("no annotation",     layer(SIGNATURE_MEDIA_TYPE, &d, None),         false),
            ("other media type",  layer("application/vnd.dev.cosign.attestation.v1+json", &d, Some("MEUC")), false),
            ("sha512 digest",     layer(SIGNATURE_MEDIA_TYPE, "sha512:00", Some("MEUC")), false),
        ];
        for (name, layer, expected) in cases {
            let found = signature_of(&layer);
            assert_eq!(found.is_some(), expected, "{name}");
            if let Some((found, signature)) = found {
                assert_eq!(
                    (found, signature.as_str()),
                    (digest.clone(), "MEUC"),
                    "{name}"
                );
            }
        }
    }
}
