//! The transparency-log proof of a keyless signature, checked offline against the trusted
//! root's Rekor keys: the signed entry timestamp (Rekor's signature over the entry, its index
//! and the time it was integrated), the inclusion proof (RFC 6962) against a signed
//! checkpoint, and that the entry is for this signature, this certificate and this content.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use x509_cert::Certificate;
use x509_cert::der::{DecodePem as _, Encode as _};

use super::error::KeylessError;
use super::key::{EcKey, Hash};
use super::material::{Content, InclusionProof, KeylessSignature, LogEntry, hex, pae};
use super::root::TrustedRoot;
use super::time::rfc3339;

fn bad(what: impl Into<String>) -> KeylessError {
    KeylessError::BadLogProof(what.into())
}

/// The time the log integrated `signature`, once one of its entries verifies; the first
/// entry's refusal otherwise.
pub(super) fn verified_time(
    signature: &KeylessSignature,
    root: &TrustedRoot,
) -> Result<i64, KeylessError> {
    let mut first_error = None;
    for entry in &signature.entries {
        match verify_entry(entry, signature, root) {
            Ok(time) => return Ok(time),
            Err(error) => {
                first_error.get_or_insert(error);
            }
        }
    }
    Err(first_error.unwrap_or_else(|| {
        bad(
            "it has no transparency-log entry (cosign's `dev.sigstore.cosign/bundle` \
             annotation, or a bundle's tlogEntries): it was not logged in Rekor, or the proof \
             was not attached",
        )
    }))
}

fn verify_entry(
    entry: &LogEntry,
    signature: &KeylessSignature,
    root: &TrustedRoot,
) -> Result<i64, KeylessError> {
    let log = root.tlog(&entry.log_id).ok_or_else(|| {
        bad(format!(
            "it was logged by a transparency log the trusted root does not hold (log id {}): \
             another Sigstore instance's Rekor",
            hex(&entry.log_id)
        ))
    })?;
    let key = log.key.as_ref().ok_or_else(|| {
        bad(format!(
            "it was logged by {}, whose key is not ECDSA (Rekor v2's Ed25519 logs are not \
             verified by hookhost)",
            log.url
        ))
    })?;
    let time = entry.integrated_time;
    if !log.valid.contains(time) {
        return Err(bad(format!(
            "the key of {} is valid from {} to {} in the trusted root, and the entry says it \
             was integrated at {}",
            log.url,
            rfc3339(log.valid.start),
            log.valid.end.map_or("now".to_string(), rfc3339),
            rfc3339(time)
        )));
    }
    let promise = entry.promise.as_ref().ok_or_else(|| {
        bad(
            "its log entry has no signed entry timestamp (inclusion promise): offline, that \
             is what proves when it was signed (hookhost does not verify RFC 3161 timestamps \
             or Rekor v2 entries)",
        )
    })?;
    let signed = format!(
        "{{\"body\":{},\"integratedTime\":{},\"logID\":{},\"logIndex\":{}}}",
        Value::String(BASE64.encode(&entry.body)),
        time,
        Value::String(hex(&entry.log_id)),
        entry.log_index
    );
    if !key.verify(Hash::Sha256, signed.as_bytes(), promise) {
        return Err(bad(format!(
            "Rekor's signed entry timestamp does not verify with the key of {}: the entry, its \
             time or its index were changed",
            log.url
        )));
    }
    if let Some(proof) = &entry.proof {
        verify_inclusion(&entry.body, proof)?;
        if let Some(checkpoint) = &proof.checkpoint {
            verify_checkpoint(checkpoint, proof, key, &entry.log_id)?;
        }
    }
    entry_matches(entry, signature)?;
    Ok(time)
}

/// RFC 9162, 2.1.3.2: the audit path from the entry's leaf hash to the proof's root hash.
pub(super) fn verify_inclusion(body: &[u8], proof: &InclusionProof) -> Result<(), KeylessError> {
    let failed = || {
        bad(format!(
            "its inclusion proof (entry {} of a tree of {}) does not lead to the root hash it \
             names: the entry or the proof was changed",
            proof.log_index, proof.tree_size
        ))
    };
    let (Ok(index), Ok(size)) = (
        u64::try_from(proof.log_index),
        u64::try_from(proof.tree_size),
    ) else {
        return Err(failed());
    };
    if index >= size {
        return Err(failed());
    }
    let mut leaf = Sha256::new();
    leaf.update([0u8]);
    leaf.update(body);
    let mut hash = leaf.finalize().to_vec();
    let (mut fnode, mut snode) = (index, size - 1);
    for sibling in &proof.hashes {
        if snode == 0 {
            return Err(failed());
        }
        let mut node = Sha256::new();
        node.update([1u8]);
        if fnode & 1 == 1 || fnode == snode {
            node.update(sibling);
            node.update(&hash);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            node.update(&hash);
            node.update(sibling);
        }
        hash = node.finalize().to_vec();
        fnode >>= 1;
        snode >>= 1;
    }
    if snode != 0 || hash != proof.root_hash {
        return Err(failed());
    }
    Ok(())
}

/// A checkpoint (signed note: origin, tree size, root hash, then `— NAME base64(key hint ||
/// signature)` lines) signed by the log's key, for the proof's tree size and root hash.
pub(super) fn verify_checkpoint(
    note: &str,
    proof: &InclusionProof,
    key: &EcKey,
    log_id: &[u8],
) -> Result<(), KeylessError> {
    let Some(split) = note.find("\n\n") else {
        return Err(bad("its checkpoint is not a signed note"));
    };
    let (text, signatures) = (&note[..=split], &note[split + 2..]);
    let mut lines = text.lines();
    let (_origin, size, root) = (lines.next(), lines.next(), lines.next());
    let signed = signatures.lines().any(|line| {
        let Some(rest) = line.strip_prefix("\u{2014} ") else {
            return false;
        };
        let Some((_, encoded)) = rest.rsplit_once(' ') else {
            return false;
        };
        let Ok(bytes) = BASE64.decode(encoded) else {
            return false;
        };
        bytes.len() > 4
            && log_id.starts_with(&bytes[..4])
            && key.verify(Hash::Sha256, text.as_bytes(), &bytes[4..])
    });
    if !signed {
        return Err(bad(
            "its checkpoint is not signed by the log's key: the tree head it names was not \
             published by the log",
        ));
    }
    let same_size = size.and_then(|s| s.parse::<i64>().ok()) == Some(proof.tree_size);
    let same_root = root.and_then(|r| BASE64.decode(r).ok()).as_deref() == Some(&proof.root_hash);
    if !same_size || !same_root {
        return Err(bad(
            "its checkpoint is for another tree than its inclusion proof",
        ));
    }
    Ok(())
}

/// The log entry must be for this signature, made with this certificate, over this content:
/// otherwise the proof is another signature's.
pub(super) fn entry_matches(
    entry: &LogEntry,
    signature: &KeylessSignature,
) -> Result<(), KeylessError> {
    let body: Value = serde_json::from_slice(&entry.body)
        .map_err(|e| bad(format!("its log entry is not JSON ({e})")))?;
    let kind = (
        body["kind"].as_str().unwrap_or_default(),
        body["apiVersion"].as_str().unwrap_or_default(),
    );
    let spec = &body["spec"];
    let b64 = |value: &Value| value.as_str().and_then(|s| BASE64.decode(s).ok());
    // (signature, certificate PEM, the digest of the content the entry records)
    let (logged_signature, logged_certificate, logged_digest) = match kind {
        ("hashedrekord", "0.0.1") => (
            b64(&spec["signature"]["content"]),
            b64(&spec["signature"]["publicKey"]["content"]),
            sha256_of(&spec["data"]["hash"]),
        ),
        ("dsse", "0.0.1") => (
            b64(&spec["signatures"][0]["signature"]),
            b64(&spec["signatures"][0]["verifier"]),
            sha256_of(&spec["payloadHash"]),
        ),
        ("intoto", "0.0.2") => {
            let first = &spec["content"]["envelope"]["signatures"][0];
            (
                b64(&first["sig"]).and_then(|s| BASE64.decode(s).ok()),
                b64(&first["publicKey"]),
                sha256_of(&spec["content"]["payloadHash"]),
            )
        }
        (kind, version) => {
            return Err(bad(format!(
                "its log entry is of kind {kind} {version}; hookhost reads hashedrekord 0.0.1, \
                 dsse 0.0.1 and intoto 0.0.2"
            )));
        }
    };
    if logged_signature.as_deref() != Some(signature.signature.as_slice()) {
        return Err(bad("its log entry is for another signature"));
    }
    let logged_certificate = logged_certificate
        .and_then(|pem| Certificate::from_pem(&pem).ok())
        .and_then(|cert| cert.to_der().ok());
    if logged_certificate.as_deref() != Some(signature.certificate.as_slice()) {
        return Err(bad("its log entry is for another certificate"));
    }
    let expected = match (&signature.content, kind.0) {
        (Content::Message { digest, .. }, "hashedrekord") => digest.clone(),
        (Content::Envelope { payload, .. }, "dsse" | "intoto") => Sha256::digest(payload).to_vec(),
        (
            Content::Envelope {
                payload_type,
                payload,
            },
            "hashedrekord",
        ) => Sha256::digest(pae(payload_type, payload)).to_vec(),
        _ => {
            return Err(bad(
                "its log entry is of a kind that does not match what it signs",
            ));
        }
    };
    if logged_digest.as_deref() != Some(expected.as_slice()) {
        return Err(bad(
            "its log entry is for another content (the digest it records is not what the \
             signature signs)",
        ));
    }
    Ok(())
}

/// A `{"algorithm": "sha256", "value": HEX}` hash, as bytes.
fn sha256_of(hash: &Value) -> Option<Vec<u8>> {
    if hash["algorithm"].as_str() != Some("sha256") {
        return None;
    }
    super::material::hex_decode(hash["value"].as_str()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(left: &[u8], right: &[u8]) -> Vec<u8> {
        let mut h = Sha256::new();
        h.update([1u8]);
        h.update(left);
        h.update(right);
        h.finalize().to_vec()
    }

    fn leaf(body: &[u8]) -> Vec<u8> {
        let mut h = Sha256::new();
        h.update([0u8]);
        h.update(body);
        h.finalize().to_vec()
    }

    fn proof(index: i64, size: i64, hashes: Vec<Vec<u8>>, root: Vec<u8>) -> InclusionProof {
        InclusionProof {
            log_index: index,
            root_hash: root,
            tree_size: size,
            hashes,
            checkpoint: None,
        }
    }

    #[test]
    fn inclusion_proofs_of_a_small_tree_verify_and_changed_ones_do_not() {
        // A tree of 3 leaves: root = H(H(a, b), c).
        let (a, b, c) = (leaf(b"a"), leaf(b"b"), leaf(b"c"));
        let ab = node(&a, &b);
        let root = node(&ab, &c);
        #[rustfmt::skip]
        let cases = [
            ("a",                 b"a".as_slice(), proof(0, 3, vec![b.clone(), c.clone()], root.clone()), true),
            ("b",                 b"b",            proof(1, 3, vec![a.clone(), c.clone()], root.clone()), true),
            ("c, the last leaf",  b"c",            proof(2, 3, vec![ab.clone()], root.clone()), true),
            ("another body",      b"x",            proof(0, 3, vec![b.clone(), c.clone()], root.clone()), false),
            ("another index",     b"a",            proof(1, 3, vec![b.clone(), c.clone()], root.clone()), false),
            ("index past size",   b"a",            proof(3, 3, vec![b.clone(), c.clone()], root.clone()), false),
            ("a hash too many",   b"c",            proof(2, 3, vec![ab.clone(), a.clone()], root.clone()), false),
            ("another root",      b"a",            proof(0, 3, vec![b.clone(), c.clone()], ab.clone()), false),
        ];
        for (name, body, proof, ok) in cases {
            assert_eq!(verify_inclusion(body, &proof).is_ok(), ok, "{name}");
        }
    }
}
