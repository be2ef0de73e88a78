//! Every stage of [`super::verify`] run on its own, whatever the stages before it said, for the
//! fuzz harness (`fuzz-harness`) and nothing else. Forged material never passes the signature
//! checks that come first (the certificate key's, Rekor's signed entry timestamp, the CA's), so
//! the readers behind them (a log entry's body, an inclusion proof and its checkpoint, the
//! certificate chain, the SCT list, what the signature vouches for) are reached only this way.
//! Hidden from the docs; not API. It verifies nothing: every result is a stage's alone.

use super::cert::{Leaf, verify_chain};
use super::error::KeylessError;
use super::material::KeylessSignature;
use super::root::TrustedRoot;
use super::sct::verify_scts;
use super::tlog::{entry_matches, verified_time, verify_checkpoint, verify_inclusion};
use super::verify::Verified;
use crate::source::reference::Digest;

/// Each stage's result on `signature` against `root`, the last one whether it vouches for
/// `manifest` in `repository`.
#[doc(hidden)]
pub fn fuzz_stages(
    signature: &KeylessSignature,
    root: &TrustedRoot,
    manifest: &Digest,
    repository: &str,
) -> Vec<Result<(), KeylessError>> {
    let mut results = Vec::new();
    let leaf = Leaf::from_der(&signature.certificate);
    results.push(leaf.as_ref().map(|_| ()).map_err(Clone::clone));
    results.push(verified_time(signature, root).map(|_| ()));
    for entry in &signature.entries {
        if let Some(proof) = &entry.proof {
            results.push(verify_inclusion(&entry.body, proof));
            if let Some(checkpoint) = &proof.checkpoint {
                for key in root.tlogs.iter().filter_map(|log| log.key.as_ref()) {
                    results.push(verify_checkpoint(checkpoint, proof, key, &entry.log_id));
                }
            }
        }
        results.push(entry_matches(entry, signature));
    }
    if let Ok(leaf) = &leaf {
        // The time the log entry claims, unproven.
        let at = signature
            .entries
            .first()
            .map_or(0, |entry| entry.integrated_time);
        results.push(verify_chain(leaf, root, at).map(|_| ()));
        let issuers = root
            .authorities
            .iter()
            .flat_map(|authority| &authority.chain);
        for issuer in
            issuers.filter(|ca| ca.tbs_certificate.subject == leaf.cert.tbs_certificate.issuer)
        {
            results.push(verify_scts(leaf, issuer, root));
        }
    }
    let vouched = Verified {
        identity: String::new(),
        issuer: String::new(),
        integrated_time: 0,
        content: signature.content.clone(),
    };
    results.push(vouched.check_manifest(manifest, repository));
    results
}
