//! The registry client behind `hookhost push`, `pull` and `lock` (cargo feature `oci`): the
//! `oci-client` crate for the distribution protocol, credentials from the environment and from
//! podman's and docker's files (in that order; see [`USERNAME_ENV`]), HTTPS everywhere except
//! for loopback registries or with `plain_http`.
//!
//! cosign signatures of bundles live beside them (`signatures`: the `sha256-<hex>.sig` tag's
//! layers, key-based or keyless; `bundles`: Sigstore bundles), found also through the
//! referrers API or its tag schema (`referrers`), read with bounded GETs (`bounded`).
//!
//! Downloads stream into the [`BlobStore`] through a digest-checked temp file, so a cut or wrong
//! download never leaves a blob behind.

mod artifact;
mod auth;
mod bounded;
mod bundles;
mod error;
mod fuzzing;
mod referrers;
mod signatures;
mod sync;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use futures_util::StreamExt as _;
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::manifest::OciDescriptor;

pub use artifact::{
    CONFIG_MEDIA_TYPE, ComponentWorld, LAYER_MEDIA_TYPE, MANIFEST_MEDIA_TYPE, WasmConfig,
    annotations, component_world,
};
pub use bundles::BUNDLE_MEDIA_TYPE;
pub use error::RegistryError;
#[doc(hidden)]
pub use fuzzing::fuzz_listing;
pub use referrers::referrers_tag;
pub use signatures::{
    CERTIFICATE_ANNOTATION, CHAIN_ANNOTATION, MAX_MANIFEST_BYTES, MAX_PAYLOAD_BYTES,
    MAX_SIGNATURES, REKOR_BUNDLE_ANNOTATION, SIGNATURE_ANNOTATION, SIGNATURE_ARTIFACT_TYPE,
    SIGNATURE_MEDIA_TYPE, SignatureLayer, signature_tag,
};
pub use sync::{
    LockStatus, LockUpdate, LockUpdateError, LockedReference, update_lock, update_lock_with,
};

use super::blobs::{BlobState, BlobStore, BlobStoreError};
use crate::source::reference::{Digest, OciReference};
use artifact::not_a_component;
use auth::Credentials;
use error::Attempt;

// The credential lookup (`auth`) reads them; the errors (`error`) tell the user to set them.
/// The variable holding the registry user name, for CI.
pub const USERNAME_ENV: &str = "HOOKHOST_REGISTRY_USERNAME";
/// The variable holding the registry password or token, for CI.
pub const PASSWORD_ENV: &str = "HOOKHOST_REGISTRY_PASSWORD";

/// Talks to registries. One per command; connections and credentials are reused per registry.
pub struct RegistryClient {
    plain_http: bool,
    sessions: Mutex<HashMap<String, Session>>,
}

impl std::fmt::Debug for RegistryClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryClient")
            .field("plain_http", &self.plain_http)
            .finish_non_exhaustive()
    }
}

#[derive(Clone)]
struct Session {
    client: oci_client::Client,
    credentials: Credentials,
}

/// What a reference resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The manifest's digest.
    pub manifest: Digest,
    /// The wasm layer's digest (the bundle file's SHA-256).
    pub wasm: Digest,
    /// The wasm layer's size in bytes.
    pub size: u64,
}

/// A bundle in the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// Its store file.
    pub path: PathBuf,
    /// False when the store already held it (nothing was downloaded).
    pub downloaded: bool,
}

impl RegistryClient {
    /// A client. `plain_http` sends every request (and credentials) unencrypted; without it,
    /// only registries on this machine (`localhost`, `127.0.0.0/8`, `[::1]`) get plain HTTP.
    pub fn new(plain_http: bool) -> RegistryClient {
        // reqwest is built without a default crypto provider; this picks ring once per process
        // (an error means one is installed already, which is as good).
        let _ = rustls::crypto::ring::default_provider().install_default();
        RegistryClient {
            plain_http,
            sessions: Mutex::new(HashMap::new()),
        }
    }

    fn plain_http_for(&self, reference: &OciReference) -> bool {
        self.plain_http || reference.is_loopback()
    }

    async fn session(
        &self,
        reference: &OciReference,
    ) -> Result<(Session, oci_client::Reference), RegistryError> {
        let target = client_reference(reference);
        let registry = reference.registry().to_string();
        let existing = self
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&registry)
            .cloned();
        let session = match existing {
            Some(session) => session,
            None => {
                let client = oci_client::Client::new(ClientConfig {
                    protocol: if self.plain_http_for(reference) {
                        ClientProtocol::Http
                    } else {
                        ClientProtocol::Https
                    },
                    // An index is reported as "not a bundle", never resolved to a platform.
                    platform_resolver: None,
                    connect_timeout: Some(Duration::from_secs(10)),
                    read_timeout: Some(Duration::from_secs(60)),
                    user_agent: concat!("hookhost/", env!("CARGO_PKG_VERSION")),
                    ..Default::default()
                });
                let session = Session {
                    client,
                    credentials: auth::credentials_for(&registry)?,
                };
                self.sessions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(registry, session.clone());
                session
            }
        };
        session
            .client
            .store_auth_if_needed(target.resolve_registry(), &session.credentials.auth)
            .await;
        Ok((session, target))
    }

    fn attempt<'a>(
        &self,
        reference: &'a OciReference,
        what: &'static str,
        session: &'a Session,
    ) -> Attempt<'a> {
        Attempt {
            reference,
            what,
            credentials: &session.credentials.origin,
            plain_http: self.plain_http_for(reference),
        }
    }

    /// Publishes `bytes` (a component) under `reference`, which must name a tag. The manifest
    /// carries `annotations`; the layer is titled `file_name`.
    pub async fn push(
        &self,
        bytes: &[u8],
        file_name: &str,
        reference: &OciReference,
        annotations: BTreeMap<String, String>,
    ) -> Result<Resolved, RegistryError> {
        let not_a_bundle = |reason: String| RegistryError::NotABundle {
            reference: reference.to_string(),
            reason,
        };
        if reference.tag().is_none() || reference.digest().is_some() {
            return Err(not_a_bundle(
                "a bundle is pushed under a tag, like :1.2.0, without a digest (the registry \
                 computes the digest)"
                    .to_string(),
            ));
        }
        let world = component_world(bytes).ok_or_else(|| {
            not_a_bundle(
                not_a_component(&bytes[..bytes.len().min(8)])
                    .unwrap_or_else(|| "it cannot be parsed as a component".to_string())
                    .replace("its wasm layer", file_name),
            )
        })?;
        let created = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        let artifact = artifact::build(bytes, world, file_name, annotations, created);
        let (session, target) = self.session(reference).await?;
        let client = &session.client;
        let attempt = self.attempt(reference, "wasm layer", &session);
        client
            .push_blob(&target, bytes.to_vec(), &artifact.wasm_digest.to_string())
            .await
            .map_err(|e| attempt.classify(e))?;
        let config_digest = Digest::of(&artifact.config).to_string();
        client
            .push_blob(&target, artifact.config, &config_digest)
            .await
            .map_err(|e| attempt.classify(e))?;
        let manifest_media_type = MANIFEST_MEDIA_TYPE.parse().expect("a valid header value");
        client
            .push_manifest_raw(&target, artifact.manifest, manifest_media_type)
            .await
            .map_err(|e| self.attempt(reference, "manifest", &session).classify(e))?;
        Ok(Resolved {
            manifest: artifact.manifest_digest,
            wasm: artifact.wasm_digest,
            size: bytes.len() as u64,
        })
    }

    /// Fetches `reference`'s manifest and checks that it is a bundle's.
    pub async fn resolve(&self, reference: &OciReference) -> Result<Resolved, RegistryError> {
        let (session, target) = self.session(reference).await?;
        let attempt = self.attempt(reference, "manifest", &session);
        let (manifest, digest) = session
            .client
            .pull_manifest(&target, &session.credentials.auth)
            .await
            .map_err(|e| attempt.classify(e))?;
        let not_a_bundle = |reason: String| RegistryError::NotABundle {
            reference: reference.to_string(),
            reason,
        };
        let manifest_digest = digest
            .parse::<Digest>()
            .map_err(|reason| not_a_bundle(format!("its manifest digest is unusable: {reason}")))?;
        if let Some(pinned) = reference.digest()
            && pinned != &manifest_digest
        {
            return Err(attempt.mismatch(pinned, &manifest_digest));
        }
        let (wasm, size) = artifact::wasm_layer(&manifest).map_err(not_a_bundle)?;
        Ok(Resolved {
            manifest: manifest_digest,
            wasm,
            size,
        })
    }

    /// Makes sure the store holds the wasm layer `wasm` (of `size` bytes) of `reference`'s
    /// repository, downloading it if the store has no intact copy.
    pub async fn fetch(
        &self,
        reference: &OciReference,
        wasm: &Digest,
        size: u64,
        store: &BlobStore,
    ) -> Result<Fetched, RegistryError> {
        let stored = |source: BlobStoreError| RegistryError::Store {
            reference: reference.to_string(),
            source,
        };
        if let BlobState::Present(path) = store.check(wasm).map_err(stored)? {
            return Ok(Fetched {
                path,
                downloaded: false,
            });
        }
        let (session, target) = self.session(reference).await?;
        let attempt = self.attempt(reference, "wasm layer", &session);
        let layer = OciDescriptor {
            media_type: LAYER_MEDIA_TYPE.to_string(),
            digest: wasm.to_string(),
            size: size as i64,
            ..Default::default()
        };
        let mut stream = session
            .client
            .pull_blob_stream(&target, &layer)
            .await
            .map_err(|e| attempt.classify(e))?;
        // Dropping the writer on any early return removes its temp file.
        let mut writer = store.writer(wasm).map_err(stored)?;
        let truncated = |received| RegistryError::Truncated {
            registry: reference.registry().to_string(),
            reference: reference.to_string(),
            received,
            expected: size,
        };
        while let Some(chunk) = stream.next().await {
            match chunk {
                Ok(bytes) => {
                    writer.write(&bytes).map_err(stored)?;
                    if writer.written() > size {
                        return Err(attempt.mismatch(wasm, &writer.digest()));
                    }
                }
                // oci-client checks the digest at the end of the stream too; ours is below.
                Err(_) if writer.written() == size => break,
                Err(_) => return Err(truncated(writer.written())),
            }
        }
        if writer.written() < size {
            return Err(truncated(writer.written()));
        }
        if writer.digest() != *wasm {
            return Err(attempt.mismatch(wasm, &writer.digest()));
        }
        if let Some(reason) = not_a_component(writer.head()) {
            return Err(RegistryError::NotABundle {
                reference: reference.to_string(),
                reason,
            });
        }
        let path = writer.commit().map_err(stored)?;
        Ok(Fetched {
            path,
            downloaded: true,
        })
    }

    /// Resolves `reference` and fetches its bundle into the store.
    pub async fn pull(
        &self,
        reference: &OciReference,
        store: &BlobStore,
    ) -> Result<(Resolved, Fetched), RegistryError> {
        let resolved = self.resolve(reference).await?;
        let fetched = self
            .fetch(reference, &resolved.wasm, resolved.size, store)
            .await?;
        Ok((resolved, fetched))
    }
}

/// The client crate's form of a reference.
fn client_reference(reference: &OciReference) -> oci_client::Reference {
    let registry = reference.registry().to_string();
    let repository = reference.repository().to_string();
    match (reference.tag(), reference.digest()) {
        (Some(tag), Some(digest)) => oci_client::Reference::with_tag_and_digest(
            registry,
            repository,
            tag.to_string(),
            digest.to_string(),
        ),
        (None, Some(digest)) => {
            oci_client::Reference::with_digest(registry, repository, digest.to_string())
        }
        (tag, None) => oci_client::Reference::with_tag(
            registry,
            repository,
            tag.unwrap_or("latest").to_string(),
        ),
    }
}
