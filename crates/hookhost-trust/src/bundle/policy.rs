//! Signature policy: whose signatures a wasm hook needs before it may load.
//!
//! A hook's signers are the trusted, unrevoked keys whose signatures verify: minisign
//! signatures embedded in the bundle, and (for an `oci://` hook) cosign signatures attached to
//! its registry artefact, which hooks.lock carries. Then:
//!
//! - every `[[trust.rules]]` entry whose pattern matches the reference must be satisfied (at
//!   least `min` of its keys among the signers); a rule always needs one, so once a rule
//!   applies an unsigned artefact is never accepted;
//! - with no rule matching, `require_signed` needs any one trusted signer (and its messages
//!   are the ones minisign-only configurations always had).
//!
//! A refusal names the reference, the rule (its pattern and where it is written) and what is
//! missing: which keys signed, which were revoked, which signatures no trusted key made,
//! which vouch for another artefact.
//!
//! Longer than 400 lines: one decision (may this hook load?) from every kind of signer and
//! rule, with a refusal that names what is missing; its cases are one table.

use std::fmt::Write as _;
use std::sync::Arc;

use super::cosign::{self, CosignError, CosignPublicKey, CosignSignature};
use super::keyless::{
    self, KeylessError, KeylessIdentity, KeylessSignature, TrustedRoot, Verified,
};
use super::trust::{Examined, TrustStore, examine};
use crate::config::pattern_matches;
use crate::source::reference::{Digest, OciReference};

/// A cosign key a configuration trusts (or has revoked).
#[derive(Debug, Clone)]
pub struct CosignKey {
    /// The name the configuration gives it.
    pub name: String,
    /// The key.
    pub key: CosignPublicKey,
    /// A revoked key's signatures count for nothing.
    pub revoked: bool,
}

/// A keyless identity a configuration trusts (or has revoked): `kind = "keyless"`.
#[derive(Debug, Clone)]
pub struct KeylessKey {
    /// The name the configuration gives it.
    pub name: String,
    /// The identity and OIDC issuer a certificate must name.
    pub identity: KeylessIdentity,
    /// The trusted root its signatures are verified against.
    pub root: Arc<TrustedRoot>,
    /// Its id: 16 hex digits of SHA-256 over the identity, the issuer, `require_sct` and the
    /// trusted root file, so that an entry of a layer below with the same name (and another
    /// root or identity) can never pass for it. `revoked` takes it like a key id.
    pub id: String,
    /// A revoked entry's signatures count for nothing.
    pub revoked: bool,
}

/// One `[[trust.rules]]` entry, its keys resolved.
#[derive(Debug, Clone)]
pub struct TrustRule {
    /// The reference pattern.
    pub pattern: String,
    /// The keys that may sign: name and key id.
    pub keys: Vec<(String, String)>,
    /// How many of them must.
    pub min: usize,
    /// Where the rule is written (`FILE:LINE:COL`), for messages.
    pub origin: String,
}

/// Everything a runner checks a wasm hook's signatures against.
#[derive(Debug, Clone, Default)]
pub struct TrustPolicy {
    /// The minisign keys, and `require_signed`.
    pub minisign: TrustStore,
    /// The cosign keys.
    pub cosign: Vec<CosignKey>,
    /// The keyless identities.
    pub keyless: Vec<KeylessKey>,
    /// The rules, from every layer that holds for the hook.
    pub rules: Vec<TrustRule>,
    /// Key ids revoked by id (`[trust] revoked`).
    pub revoked: Vec<String>,
}

/// The cosign signatures of a locked registry artefact, as hooks.lock carries them.
#[derive(Debug, Clone)]
pub struct Attached {
    /// The reference, as hooks.toml names it.
    pub reference: OciReference,
    /// The manifest digest the reference is locked to: what a signature must vouch for.
    pub manifest: Digest,
    /// The signatures, each with the key id `hookhost lock` verified it with, if any.
    pub signatures: Vec<(CosignSignature, Option<String>)>,
    /// The keyless (Sigstore) signatures: `.sig` layers with a certificate, and Sigstore
    /// bundles; each with the id of the keyless entry `hookhost lock` verified it with, if any.
    /// A signature hooks.lock holds that cannot be read is kept as its error: it is refused,
    /// saying why, rather than dropped.
    pub keyless: Vec<(Result<KeylessSignature, KeylessError>, Option<String>)>,
    /// Whether the locked manifest is known to have the locked file as its wasm layer; an
    /// error says why not (a signature vouches for the manifest, not for the file directly).
    pub link: Result<(), String>,
}

/// The keys that vouched for a hook.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signers {
    /// Name and key id of each trusted, unrevoked key whose signature verified.
    pub keys: Vec<(String, String)>,
}

impl Signers {
    /// The names, for reports.
    pub fn names(&self) -> Vec<String> {
        self.keys.iter().map(|(name, _)| name.clone()).collect()
    }

    /// The key ids, for hooks.lock.
    pub fn ids(&self) -> Vec<String> {
        self.keys.iter().map(|(_, id)| id.clone()).collect()
    }
}

impl TrustPolicy {
    /// True when there is nothing to check: no keys, no rules, nothing required.
    pub fn is_empty(&self) -> bool {
        self.minisign.keys.is_empty()
            && !self.minisign.require_signed
            && self.cosign.is_empty()
            && self.keyless.is_empty()
            && self.rules.is_empty()
    }

    /// The rules that hold for `reference`.
    pub fn rules_for(&self, reference: &OciReference) -> Vec<&TrustRule> {
        let name = format!("oci://{}/{}", reference.registry(), reference.repository());
        self.rules
            .iter()
            .filter(|rule| pattern_matches(&rule.pattern, &name))
            .collect()
    }

    fn revoked(&self, name_revoked: bool, id: &str) -> bool {
        name_revoked || self.revoked.iter().any(|r| r.eq_ignore_ascii_case(id))
    }

    /// Checks a wasm file (`bytes`) and, for a registry artefact, its attached signatures.
    /// An error is a message that says what is missing, for a configuration problem.
    pub fn check(&self, bytes: &[u8], attached: Option<&Attached>) -> Result<Signers, String> {
        let embedded = examine(bytes, &self.minisign, &self.revoked).map_err(|e| e.to_string())?;
        let found = match attached {
            Some(attached) => self.check_attached(attached)?,
            None => Found::default(),
        };
        let mut signers = embedded.signers.clone();
        signers.extend(found.signers.iter().cloned());
        let rules = attached
            .map(|attached| self.rules_for(&attached.reference))
            .unwrap_or_default();
        if rules.is_empty() && signers.is_empty() && self.minisign.require_signed {
            if found.is_empty() {
                // Exactly what minisign-only configurations always said.
                return Err(embedded.refusal().to_string());
            }
            return Err(format!(
                "is not signed by a trusted key, and [trust] require_signed = true: {}",
                describe(&embedded, &found)
            ));
        }
        for rule in rules {
            let valid: Vec<&(String, String)> = rule
                .keys
                .iter()
                .filter(|(_, id)| signers.iter().any(|(_, signer)| signer == id))
                .collect();
            if valid.len() < rule.min {
                let attached = attached.expect("rules apply to registry references only");
                let names: Vec<&str> = rule.keys.iter().map(|(name, _)| name.as_str()).collect();
                let need = if rule.min == rule.keys.len() && rule.min > 1 {
                    format!("all of {}", names.join(", "))
                } else {
                    format!("{} of {}", rule.min, names.join(", "))
                };
                return Err(format!(
                    "is refused by the [trust] rule for \"{}\" ({}): {} needs signatures by \
                     {need}, and {}",
                    rule.pattern,
                    rule.origin,
                    attached.reference,
                    describe(&embedded, &found)
                ));
            }
        }
        Ok(Signers { keys: signers })
    }

    /// The id of the trusted cosign key that verifies `signature` for `attached`'s artefact,
    /// revoked or not.
    pub fn verifier(&self, signature: &CosignSignature, attached: &Attached) -> Option<String> {
        let repository = format!(
            "{}/{}",
            attached.reference.registry(),
            attached.reference.repository()
        );
        self.cosign
            .iter()
            .find(|key| {
                cosign::verify(&key.key, signature, &attached.manifest, &repository).is_ok()
            })
            .map(|key| key.key.key_id())
    }

    /// The keyless entry that verifies `signature` for `attached`'s artefact (revoked or
    /// not), with what it verified: who signed, vouched for by whom.
    pub fn keyless_verifier(
        &self,
        signature: &KeylessSignature,
        attached: &Attached,
    ) -> Option<(String, Verified)> {
        self.keyless.iter().find_map(|key| {
            verify_keyless(key, signature, attached)
                .ok()
                .map(|verified| (key.id.clone(), verified))
        })
    }

    fn check_keyless(&self, attached: &Attached, found: &mut Found) {
        for (signature, _) in &attached.keyless {
            if self.keyless.is_empty() {
                found.unknown += 1;
                continue;
            }
            let signature = match signature {
                Ok(signature) => signature,
                Err(error) => {
                    found
                        .elsewhere
                        .push(format!("a keyless signature hooks.lock records {error}"));
                    continue;
                }
            };
            let mut refusals = Vec::new();
            let mut verdict = None;
            for key in &self.keyless {
                match verify_keyless(key, signature, attached) {
                    Ok(_) => {
                        verdict = Some(if self.revoked(key.revoked, &key.id) {
                            Seen::Revoked(format!("{} ({})", key.name, key.id))
                        } else {
                            Seen::Signer((key.name.clone(), key.id.clone()))
                        });
                        break;
                    }
                    Err(error) => refusals.push(format!("by {}, {error}", key.name)),
                }
            }
            match verdict {
                Some(Seen::Signer(signer)) => found.signers.push(signer),
                Some(Seen::Revoked(key)) => found.revoked.push(key),
                _ => found.elsewhere.push(format!(
                    "a keyless signature that no keyless entry accepts ({})",
                    refusals.join("; ")
                )),
            }
        }
    }

    fn check_attached(&self, attached: &Attached) -> Result<Found, String> {
        let mut found = Found::default();
        let repository = format!(
            "{}/{}",
            attached.reference.registry(),
            attached.reference.repository()
        );
        for (signature, recorded) in &attached.signatures {
            let mut verdict = None;
            for key in &self.cosign {
                match cosign::verify(&key.key, signature, &attached.manifest, &repository) {
                    Ok(()) => {
                        let id = key.key.key_id();
                        verdict = Some(if self.revoked(key.revoked, &id) {
                            Seen::Revoked(format!("{} ({id})", key.name))
                        } else {
                            Seen::Signer((key.name.clone(), id))
                        });
                    }
                    Err(CosignError::BadSignature) => continue,
                    Err(CosignError::WrongDigest { signed, .. }) => {
                        verdict = Some(Seen::Elsewhere(format!(
                            "a signature by {} over another artefact ({signed}: copied from \
                             another tag or repository)",
                            key.name
                        )));
                    }
                    Err(CosignError::WrongRepository { signed, .. }) => {
                        verdict = Some(Seen::Elsewhere(format!(
                            "a signature by {} for another repository ({signed})",
                            key.name
                        )));
                    }
                    Err(other) => verdict = Some(Seen::Elsewhere(other.to_string())),
                }
                break;
            }
            match verdict {
                Some(Seen::Signer(signer)) => found.signers.push(signer),
                Some(Seen::Revoked(key)) => found.revoked.push(key),
                Some(Seen::Elsewhere(what)) => found.elsewhere.push(what),
                None => {
                    // hooks.lock says which key verified it when it was locked: if that key is
                    // still trusted, the signature or its payload changed since.
                    let known = recorded.as_ref().and_then(|id| {
                        self.cosign
                            .iter()
                            .find(|key| key.key.key_id().eq_ignore_ascii_case(id))
                    });
                    match known {
                        Some(key) => found.tampered.push(format!(
                            "the signature hooks.lock records by {} ({}) no longer verifies: it \
                             or its payload was changed after `hookhost lock` (tampered)",
                            key.name,
                            key.key.key_id()
                        )),
                        None => found.unknown += 1,
                    }
                }
            }
        }
        self.check_keyless(attached, &mut found);
        if !found.signers.is_empty()
            && let Err(why) = &attached.link
        {
            return Err(format!(
                "{}: its signatures cannot be tied to the locked file: {why}",
                attached.reference
            ));
        }
        Ok(found)
    }
}

/// A keyless signature checked against one keyless entry: verified offline against its
/// trusted root and identity, then for this manifest in this repository.
fn verify_keyless(
    key: &KeylessKey,
    signature: &KeylessSignature,
    attached: &Attached,
) -> Result<Verified, keyless::KeylessError> {
    let repository = format!(
        "{}/{}",
        attached.reference.registry(),
        attached.reference.repository()
    );
    let verified = keyless::verify(signature, &key.root, &key.identity)?;
    verified.check_manifest(&attached.manifest, &repository)?;
    Ok(verified)
}

/// The attached signatures, sorted by what they turned out to be.
#[derive(Debug, Default)]
struct Found {
    signers: Vec<(String, String)>,
    revoked: Vec<String>,
    elsewhere: Vec<String>,
    tampered: Vec<String>,
    unknown: usize,
}

impl Found {
    fn is_empty(&self) -> bool {
        self.signers.is_empty()
            && self.revoked.is_empty()
            && self.elsewhere.is_empty()
            && self.tampered.is_empty()
            && self.unknown == 0
    }
}

enum Seen {
    Signer((String, String)),
    Revoked(String),
    Elsewhere(String),
}

/// What signatures a hook has, for a refusal.
fn describe(embedded: &Examined, found: &Found) -> String {
    let mut parts = Vec::new();
    let signers: Vec<String> = embedded
        .signers
        .iter()
        .chain(&found.signers)
        .map(|(name, id)| format!("{name} ({id})"))
        .collect();
    if !signers.is_empty() {
        parts.push(format!("it is signed by {}", signers.join(", ")));
    }
    let revoked: Vec<&String> = embedded.revoked.iter().chain(&found.revoked).collect();
    if !revoked.is_empty() {
        parts.push(format!(
            "signatures by revoked keys count for nothing ({})",
            revoked
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !embedded.unknown.is_empty() {
        parts.push(format!(
            "it has embedded signatures by keys [trust] does not name ({})",
            embedded.unknown.join(", ")
        ));
    }
    if found.unknown > 0 {
        parts.push(format!(
            "{} attached signature{} that no key of [trust] verifies (made by an untrusted \
             key, or changed after signing)",
            found.unknown,
            if found.unknown == 1 { "" } else { "s" }
        ));
    }
    parts.extend(found.elsewhere.iter().cloned());
    parts.extend(found.tampered.iter().cloned());
    if parts.is_empty() {
        return "it has no signatures (sign it with `hookhost sign --oci REF --key KEY`, or \
                cosign)"
            .to_string();
    }
    let mut text = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            text.push_str("; ");
        }
        let _ = write!(text, "{part}");
    }
    if signers.is_empty() && found.tampered.is_empty() {
        text.push_str("; it has no valid signature by the keys needed");
    }
    text
}
