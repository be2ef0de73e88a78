//! What can go wrong talking to a registry, one variant per thing a user does something
//! different about.

use oci_client::errors::{OciDistributionError, OciErrorCode};

use super::super::blobs::BlobStoreError;
use super::{PASSWORD_ENV, USERNAME_ENV};
use crate::source::reference::{Digest, OciReference};

/// Why a push, pull or lock failed. None of them leaves a partial file in the store.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// No connection: wrong address, registry down, no network, or a timeout.
    #[error(
        "cannot reach registry {registry} (for {reference}): check the address and the network{hint}"
    )]
    Unreachable {
        /// `host[:port]`.
        registry: String,
        /// What was asked for.
        reference: String,
        /// A hint about HTTP and HTTPS, where it may be the cause.
        hint: &'static str,
        /// What the connection said.
        #[source]
        source: OciDistributionError,
    },
    /// 401 or 403: no credentials, wrong ones, or no access to this repository.
    #[error(
        "registry {registry} refused access to {reference} ({status}) {credentials}: log in \
         with `docker login {registry}` or `podman login {registry}`, or set {USERNAME_ENV} and \
         {PASSWORD_ENV}"
    )]
    Unauthorized {
        /// `host[:port]`.
        registry: String,
        /// What was asked for.
        reference: String,
        /// "401 Unauthorized" or "403 Forbidden".
        status: &'static str,
        /// Which credentials were sent, for example "with credentials from ~/.docker/config.json".
        credentials: String,
    },
    /// 404: no such repository, tag or digest.
    #[error(
        "{reference} does not exist: registry {registry} answered 404 Not Found for its {what}; \
         check the repository and the tag (publish it with `hookhost push FILE {reference}`)"
    )]
    NotFound {
        /// `host[:port]`.
        registry: String,
        /// What was asked for.
        reference: String,
        /// "manifest" or "wasm layer".
        what: &'static str,
    },
    /// 5xx: the registry itself failed.
    #[error(
        "registry {registry} failed with {status} for {reference}{message}: the registry has a \
         problem, not the bundle; try again later, or ask its operators"
    )]
    ServerFailed {
        /// `host[:port]`.
        registry: String,
        /// What was asked for.
        reference: String,
        /// The HTTP status, like "500".
        status: u16,
        /// The registry's message, prefixed with ": ", or empty.
        message: String,
    },
    /// Any other refusal (4xx), with the registry's own words.
    #[error("registry {registry} rejected the request for {reference}: {message}")]
    Rejected {
        /// `host[:port]`.
        registry: String,
        /// What was asked for.
        reference: String,
        /// What the registry said.
        message: String,
    },
    /// Bytes that do not hash to the digest they were asked for by.
    #[error(
        "the {what} of {reference} has digest {actual}, not the expected {expected}: the \
         registry (or something between it and you) served other bytes; nothing was stored"
    )]
    DigestMismatch {
        /// What was asked for.
        reference: String,
        /// "manifest", "wasm layer", "signature manifest", "signature payload".
        what: &'static str,
        /// The digest asked for.
        expected: String,
        /// The digest of what arrived.
        actual: String,
    },
    /// The connection ended before the whole blob arrived.
    #[error(
        "the download of {reference} stopped after {received} of {expected} bytes (the \
         connection to {registry} broke); nothing was stored: run the command again"
    )]
    Truncated {
        /// `host[:port]`.
        registry: String,
        /// What was asked for.
        reference: String,
        /// Bytes received.
        received: u64,
        /// Bytes announced.
        expected: u64,
    },
    /// An answer larger than anything of its kind hookhost reads (a signature manifest, a
    /// signature payload): the registry served something else, or means harm.
    #[error(
        "the {what} of {reference} is larger than {limit} bytes, more than any {what} hookhost \
         reads: the registry served something else; nothing past the limit was read"
    )]
    TooLarge {
        /// What was asked for.
        reference: String,
        /// "signature manifest", "signature payload", "manifest".
        what: &'static str,
        /// The limit, in bytes.
        limit: u64,
    },
    /// A signature manifest (the `sha256-<hex>.sig` tag, or a referrer) that cannot be read.
    #[error(
        "the cosign signatures of {reference} cannot be read: {reason}; re-sign it \
         (`hookhost sign --oci {reference} --key KEY`) after removing the broken signature tag"
    )]
    BadSignatures {
        /// The signed artefact.
        reference: String,
        /// What is wrong with the signature manifest.
        reason: String,
    },
    /// The artefact exists but is not a hookhost bundle (a container image, or another
    /// artefact type).
    #[error("{reference} is not a hookhost bundle: {reason}")]
    NotABundle {
        /// What was asked for.
        reference: String,
        /// What about its manifest or layer is wrong.
        reason: String,
    },
    /// The registry answered something this client could not follow.
    #[error("unexpected answer from registry {registry} for {reference}")]
    Protocol {
        /// `host[:port]`.
        registry: String,
        /// What was asked for.
        reference: String,
        /// The client's error.
        #[source]
        source: OciDistributionError,
    },
    /// The credentials configuration could not be used.
    #[error("cannot use the registry credentials for {registry}: {reason}")]
    Credentials {
        /// `host[:port]`.
        registry: String,
        /// What is wrong, naming the file or variable.
        reason: String,
    },
    /// The local store failed.
    #[error("cannot store {reference}")]
    Store {
        /// What was being stored.
        reference: String,
        /// The store's error.
        #[source]
        source: BlobStoreError,
    },
}

/// The context of one registry operation, to turn the client's errors into ours.
pub(super) struct Attempt<'a> {
    pub(super) reference: &'a OciReference,
    /// "manifest", "wasm layer", "signature manifest", "signature payload", "referrers list".
    pub(super) what: &'static str,
    /// How the request authenticated, for 401 messages.
    pub(super) credentials: &'a str,
    pub(super) plain_http: bool,
}

impl Attempt<'_> {
    /// The error a user should see for a client error.
    pub(super) fn classify(&self, error: OciDistributionError) -> RegistryError {
        let reference = self.reference.to_string();
        let registry = self.reference.registry().to_string();
        let unauthorized = |status| RegistryError::Unauthorized {
            registry: registry.clone(),
            reference: reference.clone(),
            status,
            credentials: self.credentials.to_string(),
        };
        let not_found = || RegistryError::NotFound {
            registry: registry.clone(),
            reference: reference.clone(),
            what: self.what,
        };
        match error {
            OciDistributionError::UnauthorizedError { .. }
            | OciDistributionError::AuthenticationFailure(_) => unauthorized("401 Unauthorized"),
            OciDistributionError::ImageManifestNotFoundError(_) => not_found(),
            OciDistributionError::RegistryError { ref envelope, .. } => {
                let codes = || envelope.errors.iter().map(|e| &e.code);
                if codes().any(|c| *c == OciErrorCode::Unauthorized) {
                    unauthorized("401 Unauthorized")
                } else if codes().any(|c| *c == OciErrorCode::Denied) {
                    unauthorized("403 Forbidden")
                } else if codes().any(|c| {
                    matches!(
                        c,
                        OciErrorCode::ManifestUnknown
                            | OciErrorCode::NameUnknown
                            | OciErrorCode::NotFound
                            | OciErrorCode::BlobUnknown
                    )
                }) {
                    not_found()
                } else {
                    let message = envelope
                        .errors
                        .iter()
                        .map(|e| format!("{:?}: {}", e.code, e.message))
                        .collect::<Vec<_>>()
                        .join("; ");
                    RegistryError::Rejected {
                        registry,
                        reference,
                        message,
                    }
                }
            }
            OciDistributionError::ServerError { code, message, .. } => match code {
                401 => unauthorized("401 Unauthorized"),
                403 => unauthorized("403 Forbidden"),
                404 => not_found(),
                500..=599 => RegistryError::ServerFailed {
                    registry,
                    reference,
                    status: code,
                    message: one_line(&message),
                },
                _ => RegistryError::Rejected {
                    registry,
                    reference,
                    message: format!("HTTP {code}{}", one_line(&message)),
                },
            },
            OciDistributionError::DigestError(
                oci_client::errors::DigestError::VerificationError { expected, actual },
            ) => RegistryError::DigestMismatch {
                reference,
                what: self.what,
                expected,
                actual,
            },
            OciDistributionError::UnsupportedMediaTypeError(media_type) => {
                RegistryError::NotABundle {
                    reference,
                    reason: format!(
                        "its manifest has media type {media_type}, not an OCI image manifest"
                    ),
                }
            }
            OciDistributionError::ManifestParsingError(reason)
            | OciDistributionError::VersionedParsingError(reason) => RegistryError::NotABundle {
                reference,
                reason: format!("its manifest cannot be read: {reason}"),
            },
            OciDistributionError::RequestError(ref request)
                if request.is_connect() || request.is_timeout() || request.is_request() =>
            {
                RegistryError::Unreachable {
                    registry,
                    reference,
                    hint: if self.plain_http || self.reference.is_loopback() {
                        " (hookhost spoke plain HTTP to it)"
                    } else {
                        " (hookhost speaks HTTPS to it; pass --plain-http for a registry that \
                         only speaks HTTP)"
                    },
                    source: error,
                }
            }
            other => RegistryError::Protocol {
                registry,
                reference,
                source: other,
            },
        }
    }

    /// An answer cut off at `limit` bytes.
    pub(super) fn too_large(&self, limit: u64) -> RegistryError {
        RegistryError::TooLarge {
            reference: self.reference.to_string(),
            what: self.what,
            limit,
        }
    }

    /// A digest mismatch found by our own hashing.
    pub(super) fn mismatch(&self, expected: &Digest, actual: &Digest) -> RegistryError {
        RegistryError::DigestMismatch {
            reference: self.reference.to_string(),
            what: self.what,
            expected: expected.to_string(),
            actual: actual.to_string(),
        }
    }
}

/// A registry's error body as a short suffix: ": first line", or empty.
fn one_line(message: &str) -> String {
    match message.lines().map(str::trim).find(|line| !line.is_empty()) {
        Some(line) => format!(": {}", line.chars().take(200).collect::<String>()),
        None => String::new(),
    }
}
