//! Fulcio certificates: the leaf read (its key, validity, identity and OIDC issuer), and its
//! chain to a Fulcio CA of the trusted root verified at the time the log recorded the
//! signature (the "hybrid model": every certificate valid at signing time, not now).

use x509_cert::Certificate;
use x509_cert::der::asn1::Utf8StringRef;
use x509_cert::der::oid::ObjectIdentifier;
use x509_cert::der::{self, Decode as _, Encode as _, Reader as _};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{BasicConstraints, ExtendedKeyUsage, KeyUsage, SubjectAltName};

use super::error::KeylessError;
use super::key::{EcKey, Hash};
use super::root::{Authority, TrustedRoot};
use super::time::{self, rfc3339};

const SUBJECT_ALT_NAME: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.29.17");
const KEY_USAGE: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.29.15");
const BASIC_CONSTRAINTS: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.29.19");
const EXT_KEY_USAGE: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.29.37");
const CODE_SIGNING: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.3");
const ANY_EXT_KEY_USAGE: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.29.37.0");
/// Fulcio's OIDC issuer, the raw string (deprecated, still written).
const ISSUER_V1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.57264.1.1");
/// Fulcio's OIDC issuer, a DER UTF8String.
const ISSUER_V2: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.57264.1.8");
/// Fulcio's username identity (an otherName SAN).
const USERNAME: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.57264.1.7");
const ECDSA_SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.2");
const ECDSA_SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.3");
/// The extensions a leaf may mark critical (what Go's x509 and so cosign handle).
const HANDLED_CRITICAL: [ObjectIdentifier; 4] = [
    SUBJECT_ALT_NAME,
    KEY_USAGE,
    BASIC_CONSTRAINTS,
    EXT_KEY_USAGE,
];

/// A signing certificate, read.
#[derive(Debug, Clone)]
pub(super) struct Leaf {
    pub(super) cert: Certificate,
    pub(super) der: Vec<u8>,
    pub(super) key: EcKey,
    pub(super) not_before: i64,
    pub(super) not_after: i64,
    /// Its subject alternative names: emails, URIs, usernames.
    pub(super) names: Vec<String>,
    /// Its OIDC issuer (Fulcio's extension), if it has one.
    pub(super) oidc_issuer: Option<String>,
}

impl Leaf {
    /// Reads a certificate (DER).
    pub(super) fn from_der(der: &[u8]) -> Result<Leaf, KeylessError> {
        let cert = Certificate::from_der(der).map_err(|e| {
            KeylessError::Malformed(format!("its certificate is not X.509 DER ({e})"))
        })?;
        let spki = cert
            .tbs_certificate
            .subject_public_key_info
            .to_der()
            .map_err(|e| KeylessError::Malformed(format!("its certificate's key ({e})")))?;
        let key = EcKey::from_spki(&spki)?;
        let validity = &cert.tbs_certificate.validity;
        let mut leaf = Leaf {
            not_before: time::x509(&validity.not_before),
            not_after: time::x509(&validity.not_after),
            cert: cert.clone(),
            der: der.to_vec(),
            key,
            names: Vec::new(),
            oidc_issuer: None,
        };
        let mut issuer_v1 = None;
        for ext in cert.tbs_certificate.extensions.iter().flatten() {
            let value = ext.extn_value.as_bytes();
            if ext.critical && !HANDLED_CRITICAL.contains(&ext.extn_id) {
                return Err(KeylessError::Malformed(format!(
                    "its certificate has a critical extension hookhost does not know ({}): a \
                     precertificate, or not a Fulcio signing certificate",
                    ext.extn_id
                )));
            }
            match ext.extn_id {
                SUBJECT_ALT_NAME => {
                    let names = SubjectAltName::from_der(value).map_err(|e| {
                        KeylessError::Malformed(format!(
                            "its certificate's subject alternative names ({e})"
                        ))
                    })?;
                    for name in names.0 {
                        match name {
                            GeneralName::Rfc822Name(s)
                            | GeneralName::UniformResourceIdentifier(s) => {
                                leaf.names.push(s.as_str().to_string())
                            }
                            GeneralName::OtherName(other) if other.type_id == USERNAME => {
                                if let Ok(s) = other.value.decode_as::<Utf8StringRef<'_>>() {
                                    leaf.names.push(s.as_str().to_string());
                                }
                            }
                            _ => {}
                        }
                    }
                }
                ISSUER_V2 => {
                    let s = Utf8StringRef::from_der(value).map_err(|e| {
                        KeylessError::Malformed(format!("its certificate's OIDC issuer ({e})"))
                    })?;
                    leaf.oidc_issuer = Some(s.as_str().to_string());
                }
                ISSUER_V1 => issuer_v1 = std::str::from_utf8(value).ok().map(str::to_string),
                _ => {}
            }
        }
        if leaf.oidc_issuer.is_none() {
            leaf.oidc_issuer = issuer_v1;
        }
        Ok(leaf)
    }
}

/// The Fulcio CA of `root` that issued `leaf`, every certificate of the path valid at `at`
/// (the log's integrated time), and the issuing certificate (for SCTs).
pub(super) fn verify_chain<'r>(
    leaf: &Leaf,
    root: &'r TrustedRoot,
    at: i64,
) -> Result<(&'r Authority, &'r Certificate), KeylessError> {
    check_leaf_usage(leaf)?;
    let (tbs, algorithm, signature) = signed_parts(&leaf.der)?;
    let hash = match algorithm {
        ECDSA_SHA256 => Hash::Sha256,
        ECDSA_SHA384 => Hash::Sha384,
        other => {
            return Err(KeylessError::UnsupportedKey(format!(
                "its certificate is signed with algorithm {other}, not ECDSA with SHA-256 or \
                 SHA-384"
            )));
        }
    };
    let issuer = &leaf.cert.tbs_certificate.issuer;
    let mut reason = format!("no CA of the trusted root is named {issuer}");
    for authority in &root.authorities {
        for (k, ca) in authority.chain.iter().enumerate() {
            if &ca.tbs_certificate.subject != issuer {
                continue;
            }
            let Ok(key) = ca
                .tbs_certificate
                .subject_public_key_info
                .to_der()
                .map_err(|_| ())
                .and_then(|der| EcKey::from_spki(&der).map_err(|_| ()))
            else {
                continue;
            };
            if !key.verify(hash, tbs, signature) {
                reason = format!(
                    "a CA of the trusted root is named {issuer}, but its key did not sign the \
                     certificate (a look-alike CA)"
                );
                continue;
            }
            // The issuer is found: from here on, failures are about time and constraints.
            if !authority.valid.contains(at) {
                return Err(KeylessError::NotValidAtSigning {
                    what: format!("the Fulcio CA that issued it ({})", authority.uri),
                    not_before: rfc3339(authority.valid.start),
                    not_after: authority.valid.end.map_or("now".to_string(), rfc3339),
                    signed_at: rfc3339(at),
                });
            }
            if !(leaf.not_before..=leaf.not_after).contains(&at) {
                return Err(KeylessError::NotValidAtSigning {
                    what: "its certificate".to_string(),
                    not_before: rfc3339(leaf.not_before),
                    not_after: rfc3339(leaf.not_after),
                    signed_at: rfc3339(at),
                });
            }
            for ca in &authority.chain[k..] {
                check_ca(ca, at)?;
            }
            return Ok((authority, ca));
        }
    }
    Err(KeylessError::UntrustedCa {
        issuer: issuer.to_string(),
        reason,
    })
}

/// A leaf may sign code: code-signing usage, not a CA, digital signature.
fn check_leaf_usage(leaf: &Leaf) -> Result<(), KeylessError> {
    let mut code_signing = false;
    for ext in leaf.cert.tbs_certificate.extensions.iter().flatten() {
        let value = ext.extn_value.as_bytes();
        let bad = |what: &str| KeylessError::Malformed(format!("its certificate {what}"));
        match ext.extn_id {
            EXT_KEY_USAGE => {
                let usage = ExtendedKeyUsage::from_der(value)
                    .map_err(|e| bad(&format!("has an unreadable extended key usage ({e})")))?;
                code_signing = usage.0.contains(&CODE_SIGNING);
            }
            KEY_USAGE => {
                let usage = KeyUsage::from_der(value)
                    .map_err(|e| bad(&format!("has an unreadable key usage ({e})")))?;
                if !usage.digital_signature() {
                    return Err(bad("may not make digital signatures (key usage)"));
                }
            }
            BASIC_CONSTRAINTS => {
                let constraints = BasicConstraints::from_der(value)
                    .map_err(|e| bad(&format!("has unreadable basic constraints ({e})")))?;
                if constraints.ca {
                    return Err(bad("is a CA certificate, not a signing certificate"));
                }
            }
            _ => {}
        }
    }
    if !code_signing {
        return Err(KeylessError::Malformed(
            "its certificate is not for code signing (extended key usage)".to_string(),
        ));
    }
    Ok(())
}

/// A CA certificate of the path: valid at `at`, a CA, allowed to sign certificates, and (when
/// it restricts usages) allowed to sign code.
fn check_ca(ca: &Certificate, at: i64) -> Result<(), KeylessError> {
    let subject = ca.tbs_certificate.subject.to_string();
    let untrusted = |reason: String| KeylessError::UntrustedCa {
        issuer: subject.clone(),
        reason,
    };
    let validity = &ca.tbs_certificate.validity;
    let (not_before, not_after) = (
        time::x509(&validity.not_before),
        time::x509(&validity.not_after),
    );
    if !(not_before..=not_after).contains(&at) {
        return Err(KeylessError::NotValidAtSigning {
            what: format!("the CA certificate {subject}"),
            not_before: rfc3339(not_before),
            not_after: rfc3339(not_after),
            signed_at: rfc3339(at),
        });
    }
    let mut is_ca = false;
    for ext in ca.tbs_certificate.extensions.iter().flatten() {
        let value = ext.extn_value.as_bytes();
        match ext.extn_id {
            BASIC_CONSTRAINTS => {
                is_ca = BasicConstraints::from_der(value).is_ok_and(|c| c.ca);
            }
            KEY_USAGE if !KeyUsage::from_der(value).is_ok_and(|u| u.key_cert_sign()) => {
                return Err(untrusted(
                    "the CA may not sign certificates (key usage)".into(),
                ));
            }
            EXT_KEY_USAGE => {
                let allowed = ExtendedKeyUsage::from_der(value)
                    .is_ok_and(|u| u.0.contains(&CODE_SIGNING) || u.0.contains(&ANY_EXT_KEY_USAGE));
                if !allowed {
                    return Err(untrusted("the CA may not vouch for code signing".into()));
                }
            }
            _ => {}
        }
    }
    if !is_ca {
        return Err(untrusted("a certificate of the path is not a CA".into()));
    }
    Ok(())
}

/// A certificate's signed bytes (the TBSCertificate exactly as encoded), its signature
/// algorithm and its signature.
pub(super) fn signed_parts(der: &[u8]) -> Result<(&[u8], ObjectIdentifier, &[u8]), KeylessError> {
    let malformed = |e: der::Error| KeylessError::Malformed(format!("its certificate ({e})"));
    let mut reader = der::SliceReader::new(der).map_err(malformed)?;
    let parts = reader
        .sequence(|seq| {
            let tbs = seq.tlv_bytes()?;
            let algorithm = x509_cert::spki::AlgorithmIdentifierRef::decode(seq)?;
            let signature = der::asn1::BitStringRef::decode(seq)?;
            Ok((tbs, algorithm.oid, signature))
        })
        .map_err(malformed)?;
    let signature = parts.2.as_bytes().ok_or_else(|| {
        KeylessError::Malformed("its certificate's signature is not whole bytes".to_string())
    })?;
    Ok((parts.0, parts.1, signature))
}
