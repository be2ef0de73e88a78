//! A Sigstore trusted root (`application/vnd.dev.sigstore.trustedroot+json;version=0.1`): the
//! Fulcio CAs (certificate chains), the Rekor logs and the CT logs (public keys), each with the
//! window it is valid for. It is what the user trusts; nothing in a signature is believed
//! unless it chains to it.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::Deserialize;
use x509_cert::Certificate;
use x509_cert::der::Decode as _;

use super::error::KeylessError;
use super::key::EcKey;
use super::time::parse_rfc3339;

/// The most bytes a trusted root file may have (the public-good one is under 10 KB).
pub const MAX_ROOT_BYTES: usize = 1 << 20;

/// A trusted root, parsed. Built once per `[[trust.keys]]` entry that names it.
#[derive(Debug, Clone)]
pub struct TrustedRoot {
    pub(super) authorities: Vec<Authority>,
    pub(super) tlogs: Vec<Log>,
    pub(super) ctlogs: Vec<Log>,
}

/// A Fulcio CA: its chain, intermediate first and root last, and its validity window.
#[derive(Debug, Clone)]
pub(super) struct Authority {
    pub(super) uri: String,
    pub(super) chain: Vec<Certificate>,
    pub(super) valid: Window,
}

/// A log (Rekor, or a CT log): its key, its id (SHA-256 of the key's DER) and its window.
#[derive(Debug, Clone)]
pub(super) struct Log {
    pub(super) url: String,
    pub(super) id: Vec<u8>,
    pub(super) key: Option<EcKey>,
    pub(super) valid: Window,
}

/// A validity window in Unix seconds; `end` open when absent.
#[derive(Debug, Clone, Copy)]
pub(super) struct Window {
    pub(super) start: i64,
    pub(super) end: Option<i64>,
}

impl Window {
    pub(super) fn contains(&self, time: i64) -> bool {
        time >= self.start && self.end.is_none_or(|end| time <= end)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RootJson {
    media_type: String,
    #[serde(default)]
    tlogs: Vec<LogJson>,
    #[serde(default)]
    certificate_authorities: Vec<AuthorityJson>,
    #[serde(default)]
    ctlogs: Vec<LogJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LogJson {
    #[serde(default)]
    base_url: String,
    public_key: PublicKeyJson,
    log_id: LogIdJson,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PublicKeyJson {
    #[serde(default)]
    raw_bytes: String,
    #[serde(default)]
    key_details: String,
    valid_for: Option<ValidForJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LogIdJson {
    key_id: String,
}

#[derive(Deserialize)]
struct ValidForJson {
    start: Option<String>,
    end: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AuthorityJson {
    #[serde(default)]
    uri: String,
    cert_chain: ChainJson,
    valid_for: Option<ValidForJson>,
}

#[derive(Deserialize)]
struct ChainJson {
    certificates: Vec<RawBytesJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawBytesJson {
    pub(super) raw_bytes: String,
}

const MEDIA_TYPE: &str = "application/vnd.dev.sigstore.trustedroot+json;version=0.1";

impl TrustedRoot {
    /// Parses a trusted_root.json. Refuses a file without a Fulcio CA or a Rekor log (it could
    /// verify nothing), and keys or certificates that cannot be read.
    pub fn from_json(bytes: &[u8]) -> Result<TrustedRoot, KeylessError> {
        let invalid = |what: String| KeylessError::InvalidRoot(what);
        if bytes.len() > MAX_ROOT_BYTES {
            return Err(invalid(format!("it is larger than {MAX_ROOT_BYTES} bytes")));
        }
        let json: RootJson = serde_json::from_slice(bytes).map_err(|e| invalid(format!("{e}")))?;
        if json.media_type != MEDIA_TYPE {
            return Err(invalid(format!(
                "its mediaType is {:?}, not {MEDIA_TYPE:?}",
                json.media_type
            )));
        }
        let mut authorities = Vec::new();
        for (i, ca) in json.certificate_authorities.iter().enumerate() {
            let mut chain = Vec::new();
            for cert in &ca.cert_chain.certificates {
                let der = BASE64.decode(&cert.raw_bytes).map_err(|e| {
                    invalid(format!(
                        "certificate authority {i}: a certificate is not base64 ({e})"
                    ))
                })?;
                chain.push(Certificate::from_der(&der).map_err(|e| {
                    invalid(format!(
                        "certificate authority {i}: a certificate is not X.509 ({e})"
                    ))
                })?);
            }
            if chain.is_empty() {
                return Err(invalid(format!(
                    "certificate authority {i} ({}) has no certificates",
                    ca.uri
                )));
            }
            authorities.push(Authority {
                uri: ca.uri.clone(),
                chain,
                valid: window(ca.valid_for.as_ref(), &format!("certificate authority {i}"))?,
            });
        }
        let logs = |list: &[LogJson], what: &str| -> Result<Vec<Log>, KeylessError> {
            let mut logs = Vec::new();
            for (i, log) in list.iter().enumerate() {
                let name = format!("{what} {i} ({})", log.base_url);
                let id = BASE64
                    .decode(&log.log_id.key_id)
                    .map_err(|e| invalid(format!("{name}: its logId is not base64 ({e})")))?;
                let der = BASE64
                    .decode(&log.public_key.raw_bytes)
                    .map_err(|e| invalid(format!("{name}: its key is not base64 ({e})")))?;
                // A key of a kind hookhost cannot verify with (Ed25519: Rekor v2) stays in the
                // root, unusable: an entry of that log is refused, saying so.
                let key = match log.public_key.key_details.as_str() {
                    "PKIX_ECDSA_P256_SHA_256" | "PKIX_ECDSA_P384_SHA_384" | "" => {
                        Some(EcKey::from_spki(&der).map_err(|e| invalid(format!("{name}: {e}")))?)
                    }
                    _ => None,
                };
                logs.push(Log {
                    url: log.base_url.clone(),
                    id,
                    key,
                    valid: window(log.public_key.valid_for.as_ref(), &name)?,
                });
            }
            Ok(logs)
        };
        let root = TrustedRoot {
            authorities,
            tlogs: logs(&json.tlogs, "transparency log")?,
            ctlogs: logs(&json.ctlogs, "CT log")?,
        };
        if root.authorities.is_empty() {
            return Err(invalid(
                "it has no certificateAuthorities (Fulcio)".to_string(),
            ));
        }
        if root.tlogs.is_empty() {
            return Err(invalid("it has no tlogs (Rekor)".to_string()));
        }
        Ok(root)
    }

    /// Whether the root holds CT log keys (without them, SCTs cannot be verified offline).
    pub fn has_ct_logs(&self) -> bool {
        self.ctlogs.iter().any(|log| log.key.is_some())
    }

    pub(super) fn tlog(&self, id: &[u8]) -> Option<&Log> {
        self.tlogs.iter().find(|log| log.id == id)
    }
}

fn window(valid: Option<&ValidForJson>, what: &str) -> Result<Window, KeylessError> {
    let start = valid
        .and_then(|v| v.start.as_deref())
        .ok_or_else(|| KeylessError::InvalidRoot(format!("{what} has no validFor.start")))?;
    let parse = |text: &str| {
        parse_rfc3339(text).ok_or_else(|| {
            KeylessError::InvalidRoot(format!("{what}: {text:?} is not an RFC 3339 time"))
        })
    };
    Ok(Window {
        start: parse(start)?,
        end: valid
            .and_then(|v| v.end.as_deref())
            .map(parse)
            .transpose()?,
    })
}
