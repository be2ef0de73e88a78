//! The certificate's Signed Certificate Timestamps (RFC 6962): Fulcio logs every certificate
//! it issues to a CT log and embeds the log's promise in it. One SCT that verifies with a CT
//! log key of the trusted root is enough; without CT log keys nothing can be checked offline.

use sha2::{Digest as _, Sha256};
use x509_cert::Certificate;
use x509_cert::der::asn1::OctetString;
use x509_cert::der::oid::ObjectIdentifier;
use x509_cert::der::{Decode as _, Encode as _};

use super::cert::Leaf;
use super::error::KeylessError;
use super::key::Hash;
use super::material::hex;
use super::root::TrustedRoot;

const SCT_LIST: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.11129.2.4.2");

fn bad(what: impl Into<String>) -> KeylessError {
    KeylessError::BadSct(what.into())
}

/// Ok when one of `leaf`'s embedded SCTs verifies with a CT log of `root` valid at the SCT's
/// time; `issuer` is the CA certificate that issued `leaf`.
pub(super) fn verify_scts(
    leaf: &Leaf,
    issuer: &Certificate,
    root: &TrustedRoot,
) -> Result<(), KeylessError> {
    if !root.has_ct_logs() {
        return Err(bad(
            "the trusted root has no CT log keys, so the certificate's SCT cannot be verified \
             offline; add `require_sct = false` to the trust entry to accept signatures without \
             it",
        ));
    }
    let extensions = leaf
        .cert
        .tbs_certificate
        .extensions
        .as_deref()
        .unwrap_or(&[]);
    let Some(extension) = extensions.iter().find(|ext| ext.extn_id == SCT_LIST) else {
        return Err(bad(
            "its certificate has no embedded SCT (Fulcio embeds one in every certificate)",
        ));
    };
    let list = OctetString::from_der(extension.extn_value.as_bytes())
        .map_err(|e| bad(format!("its SCT list is not an OCTET STRING ({e})")))?;
    let mut precert = leaf.cert.tbs_certificate.clone();
    if let Some(extensions) = precert.extensions.as_mut() {
        extensions.retain(|ext| ext.extn_id != SCT_LIST);
    }
    let precert = precert
        .to_der()
        .map_err(|e| bad(format!("its certificate cannot be re-encoded ({e})")))?;
    let issuer_key = issuer
        .tbs_certificate
        .subject_public_key_info
        .to_der()
        .map_err(|e| bad(format!("the issuer's key ({e})")))?;
    let issuer_key_hash = Sha256::digest(&issuer_key);
    let mut reader = Tls(list.as_bytes());
    let mut scts = Tls(reader
        .vector(2)
        .ok_or_else(|| bad("its SCT list is truncated"))?);
    let mut seen = Vec::new();
    while !scts.0.is_empty() {
        let sct = scts
            .vector(2)
            .ok_or_else(|| bad("its SCT list is truncated"))?;
        let parsed = parse(sct).ok_or_else(|| bad("an SCT is truncated"))?;
        let Some(log) = root.ctlogs.iter().find(|log| log.id == parsed.log_id) else {
            seen.push(format!("one from an unknown log ({})", hex(parsed.log_id)));
            continue;
        };
        let Some(key) = &log.key else { continue };
        let seconds = i64::try_from(parsed.timestamp / 1000).unwrap_or(i64::MAX);
        if !log.valid.contains(seconds) {
            seen.push(format!("one from {} outside its key's validity", log.url));
            continue;
        }
        let hash = match parsed.hash {
            4 => Hash::Sha256,
            5 => Hash::Sha384,
            _ => continue,
        };
        let mut signed = vec![parsed.version, 0];
        signed.extend_from_slice(&parsed.timestamp.to_be_bytes());
        signed.extend_from_slice(&[0, 1]); // precert_entry
        signed.extend_from_slice(&issuer_key_hash);
        let length = u32::try_from(precert.len())
            .unwrap_or(u32::MAX)
            .to_be_bytes();
        signed.extend_from_slice(&length[1..]);
        signed.extend_from_slice(&precert);
        signed.extend_from_slice(
            &u16::try_from(parsed.extensions.len())
                .unwrap_or(0)
                .to_be_bytes(),
        );
        signed.extend_from_slice(parsed.extensions);
        if key.verify(hash, &signed, parsed.signature) {
            return Ok(());
        }
        seen.push(format!("one from {} that does not verify", log.url));
    }
    Err(bad(format!(
        "no SCT verifies with a CT log key of the trusted root ({})",
        if seen.is_empty() {
            "it has none".to_string()
        } else {
            seen.join(", ")
        }
    )))
}

struct Sct<'a> {
    version: u8,
    log_id: &'a [u8],
    timestamp: u64,
    extensions: &'a [u8],
    hash: u8,
    signature: &'a [u8],
}

fn parse(bytes: &[u8]) -> Option<Sct<'_>> {
    let mut r = Tls(bytes);
    let version = r.take(1)?[0];
    let log_id = r.take(32)?;
    let timestamp = u64::from_be_bytes(r.take(8)?.try_into().ok()?);
    let extensions = r.vector(2)?;
    let hash = r.take(1)?[0];
    let _signature_algorithm = r.take(1)?;
    let signature = r.vector(2)?;
    Some(Sct {
        version,
        log_id,
        timestamp,
        extensions,
        hash,
        signature,
    })
}

/// A reader of TLS presentation-language bytes.
struct Tls<'a>(&'a [u8]);

impl<'a> Tls<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    /// A vector with a `width`-byte big-endian length.
    fn vector(&mut self, width: usize) -> Option<&'a [u8]> {
        let length = self
            .take(width)?
            .iter()
            .fold(0usize, |n, b| (n << 8) | usize::from(*b));
        self.take(length)
    }
}
