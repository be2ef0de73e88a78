//! The OCI referrers of a manifest (signatures, Sigstore bundles): listed by the referrers
//! API, or, on a registry without it, by the referrers tag schema's index (`sha256-<hex>`),
//! which cosign writes there instead.

use serde::Deserialize;

use super::bounded::{self, Answer};
use super::error::RegistryError;
use super::signatures::{MAX_MANIFEST_BYTES, OCI_INDEX};
use super::{RegistryClient, Session};
use crate::source::reference::{Digest, OciReference};

/// The tag of the referrers tag schema's index of `manifest` (for registries without the
/// referrers API).
pub fn referrers_tag(manifest: &Digest) -> String {
    format!("sha256-{}", manifest.hex())
}

/// One entry of a referrers index: only what is needed to pick cosign's signatures.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Referrer {
    digest: String,
    #[serde(default)]
    artifact_type: Option<String>,
}

#[derive(Deserialize)]
struct Referrers {
    #[serde(default)]
    manifests: Vec<Referrer>,
}

impl RegistryClient {
    /// The digests of the manifests of `artifact_type` the referrers API lists for
    /// `manifest`. A registry without the API (404, or 400/405 from some) is asked for the
    /// referrers tag schema's index (`sha256-<hex>`, which cosign writes there instead):
    /// distribution 2.8 (Debian's `docker-registry`, the tests' registry) has no referrers API.
    pub(super) async fn referrers(
        &self,
        reference: &OciReference,
        session: &Session,
        target: &oci_client::Reference,
        manifest: &Digest,
        artifact_type: &str,
    ) -> Result<Vec<Digest>, RegistryError> {
        let attempt = self.attempt(reference, "referrers list", session);
        let path = format!("referrers/{manifest}?artifactType={artifact_type}");
        let answer = bounded::get(
            session,
            target,
            self.plain_http_for(reference),
            &path,
            OCI_INDEX,
            MAX_MANIFEST_BYTES,
            &attempt,
        )
        .await;
        let bytes = match answer {
            Ok(Answer::Body(bytes)) => bytes,
            Ok(Answer::Missing)
            | Err(RegistryError::Rejected { .. } | RegistryError::NotFound { .. }) => {
                let attempt = self.attempt(reference, "referrers index", session);
                let index = bounded::get(
                    session,
                    target,
                    self.plain_http_for(reference),
                    &format!("manifests/{}", referrers_tag(manifest)),
                    OCI_INDEX,
                    MAX_MANIFEST_BYTES,
                    &attempt,
                )
                .await?;
                match index {
                    Answer::Body(bytes) => bytes,
                    Answer::Missing => return Ok(Vec::new()),
                }
            }
            Err(other) => return Err(other),
        };
        referrer_digests(&bytes, artifact_type).map_err(|reason| RegistryError::BadSignatures {
            reference: reference.to_string(),
            reason: format!("the registry's referrers list {reason}"),
        })
    }
}

/// The digests of the entries of `artifact_type` in a referrers index; the reason when one is
/// unusable.
pub(super) fn referrer_digests(bytes: &[u8], artifact_type: &str) -> Result<Vec<Digest>, String> {
    // A registry that answers 200 with something that is not an index has no referrers API
    // worth the name (some return their HTML front page); distribution 2.8 never gets here.
    let Ok(index) = serde_json::from_slice::<Referrers>(bytes) else {
        return Ok(Vec::new());
    };
    index
        .manifests
        .into_iter()
        .filter(|entry| entry.artifact_type.as_deref() == Some(artifact_type))
        .map(|entry| {
            entry
                .digest
                .parse::<Digest>()
                .map_err(|reason| format!("names an unusable digest: {reason}"))
        })
        .collect()
}
