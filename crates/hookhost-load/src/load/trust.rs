//! The signature policy a layer's wasm hooks are checked against (`[trust]`): its own keys,
//! keyless identities and rules under those of the files above it, every key read and checked
//! before any hook is prepared. Without the `wasm` feature, a `[trust]` table is a
//! configuration problem that names the feature.

#[cfg(feature = "wasm")]
use std::path::Path;
#[cfg(feature = "wasm")]
use std::sync::Arc;

#[cfg(feature = "wasm")]
pub(super) use crate::bundle::TrustPolicy;
#[cfg(feature = "wasm")]
use crate::bundle::keyless::{KeylessIdentity, Matcher, TrustedRoot};
#[cfg(feature = "wasm")]
use crate::bundle::{CosignKey, KeylessKey, TrustRule, TrustedKey, cosign::CosignPublicKey};
use crate::config::{Config, ConfigProblem};
#[cfg(feature = "wasm")]
use crate::config::{KeyKind, KeySource};

/// The `[trust]` a layer's wasm hooks are checked against: the tables of the layers above it
/// (`inherited`, top first: they hold for every layer below) and its own. Each file's rules
/// name keys of that file or of a file above it, never of a file below, so a project's keys
/// can never satisfy the user's rules. Unreadable keys and unknown key names are problems of
/// the layer's own file (the layers above report theirs when they load).
#[cfg(feature = "wasm")]
pub(super) fn trust_policy(
    own: &Config,
    inherited: &[&Config],
    problems: &mut Vec<ConfigProblem>,
) -> TrustPolicy {
    let mut policy = TrustPolicy::default();
    let mut visible: Vec<(String, String)> = Vec::new();
    let count = inherited.len();
    for (index, config) in inherited.iter().copied().chain([own]).enumerate() {
        let is_own = index == count;
        let (spec, base_dir) = (&config.trust, config.base_dir());
        let mut report = |location, message| {
            if is_own {
                problems.push(ConfigProblem {
                    location,
                    hook: None,
                    message,
                })
            }
        };
        policy.minisign.require_signed |= spec.require_signed;
        for id in &spec.revoked {
            if !policy.revoked.contains(id) {
                policy.revoked.push(id.clone());
            }
        }
        for key in &spec.keys {
            let loaded = match key.kind {
                KeyKind::Minisign => TrustedKey::load(key, base_dir).map(|trusted| {
                    let id = trusted.key_id().to_string();
                    policy.minisign.keys.push(trusted);
                    id
                }),
                KeyKind::Cosign => load_cosign(key, base_dir).map(|cosign| {
                    let id = cosign.key.key_id();
                    policy.cosign.push(cosign);
                    id
                }),
                KeyKind::Keyless => load_keyless(key, base_dir).map(|keyless| {
                    let id = keyless.id.clone();
                    policy.keyless.push(keyless);
                    id
                }),
            };
            match loaded {
                Ok(id) => visible.push((key.id.clone(), id)),
                Err(message) => report(key.location, message),
            }
        }
        for rule in &spec.rules {
            let mut keys = Vec::new();
            for name in &rule.keys {
                match visible.iter().rev().find(|(known, _)| known == name) {
                    Some(found) => keys.push(found.clone()),
                    None => report(
                        rule.location,
                        format!(
                            "the trust rule for \"{}\" names key \"{}\", which no \
                             [[trust.keys]] entry of this file or the files above it defines{}",
                            rule.pattern,
                            name,
                            if visible.is_empty() {
                                String::new()
                            } else {
                                format!(
                                    " (known: {})",
                                    visible
                                        .iter()
                                        .map(|(n, _)| n.as_str())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                )
                            }
                        ),
                    ),
                }
            }
            if keys.len() == rule.keys.len() {
                policy.rules.push(TrustRule {
                    pattern: rule.pattern.clone(),
                    keys,
                    min: rule.min,
                    origin: format!("{}:{}", config.path.display(), rule.location),
                });
            }
        }
    }
    policy
}

/// A `kind = "cosign"` key: PEM, inline or in a file relative to the config's directory.
#[cfg(feature = "wasm")]
fn load_cosign(spec: &crate::config::KeySpec, base_dir: &Path) -> Result<CosignKey, String> {
    let text = match &spec.source {
        KeySource::Inline(text) => text.clone(),
        KeySource::File(path) => {
            let path = base_dir.join(path);
            std::fs::read_to_string(&path).map_err(|error| {
                format!(
                    "trust key \"{}\": cannot read a cosign public key from {}: {error}",
                    spec.id,
                    path.display()
                )
            })?
        }
    };
    let key = CosignPublicKey::from_pem(&text).map_err(|error| {
        format!(
            "trust key \"{}\" (kind = \"cosign\"): {error}; a cosign key is the PEM public \
             key `cosign generate-key-pair` or `hookhost keygen --cosign` writes",
            spec.id
        )
    })?;
    Ok(CosignKey {
        name: spec.id.clone(),
        key,
        revoked: spec.revoked,
    })
}

/// A `kind = "keyless"` entry: its identity and issuer, and its trusted root read from the
/// file it names (relative to the config's directory).
#[cfg(feature = "wasm")]
fn load_keyless(spec: &crate::config::KeySpec, base_dir: &Path) -> Result<KeylessKey, String> {
    use crate::config::NamePattern;
    use sha2::{Digest as _, Sha256};
    use std::io::Read as _;
    let (Some(keyless), KeySource::File(path)) = (&spec.keyless, &spec.source) else {
        return Err(format!(
            "trust key \"{}\" (kind = \"keyless\") names no identity or trusted root",
            spec.id
        ));
    };
    let path = base_dir.join(path);
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|file| {
            file.take(crate::bundle::keyless::MAX_ROOT_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
        })
        .map_err(|error| {
            format!(
                "trust key \"{}\": cannot read the Sigstore trusted root {}: {error}",
                spec.id,
                path.display()
            )
        })?;
    let root = TrustedRoot::from_json(&bytes).map_err(|error| {
        format!(
            "trust key \"{}\" (kind = \"keyless\"): {} {error}",
            spec.id,
            path.display()
        )
    })?;
    let matcher = |pattern: &NamePattern| match pattern {
        NamePattern::Exact(text) => Ok(Matcher::Exact(text.clone())),
        NamePattern::Regex(text) => Matcher::regex(text).map_err(|error| {
            format!(
                "trust key \"{}\": {text:?} is not a regular expression: {error}",
                spec.id
            )
        }),
    };
    // The id covers everything the entry trusts: the same name in a layer below, with another
    // identity or root, is another id and satisfies none of this entry's rules.
    let mut hasher = Sha256::new();
    hasher.update(b"hookhost keyless trust entry v1\0");
    for pattern in [&keyless.identity, &keyless.issuer] {
        let (kind, text) = match pattern {
            NamePattern::Exact(text) => ("exact", text),
            NamePattern::Regex(text) => ("regex", text),
        };
        hasher.update(format!("{kind}:{}:{text}\0", text.len()));
    }
    hasher.update([u8::from(keyless.require_sct)]);
    hasher.update(Sha256::digest(&bytes));
    let id = hasher.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    Ok(KeylessKey {
        name: spec.id.clone(),
        identity: KeylessIdentity {
            identity: matcher(&keyless.identity)?,
            issuer: matcher(&keyless.issuer)?,
            require_sct: keyless.require_sct,
        },
        root: Arc::new(root),
        id,
        revoked: spec.revoked,
    })
}

/// A build without the `wasm` feature has no keys to verify anything with.
#[cfg(not(feature = "wasm"))]
pub(super) struct TrustPolicy;

/// Without the `wasm` feature, a `[trust]` table is a configuration problem: its keys could
/// verify nothing in this build, and a `require_signed` that holds nothing must not look as if
/// it did.
#[cfg(not(feature = "wasm"))]
pub(super) fn trust_policy(
    own: &Config,
    _inherited: &[&Config],
    problems: &mut Vec<ConfigProblem>,
) -> TrustPolicy {
    let spec = &own.trust;
    if spec.location.is_some()
        || spec.require_signed
        || !spec.keys.is_empty()
        || !spec.rules.is_empty()
    {
        problems.push(ConfigProblem {
            location: spec.location.unwrap_or_default(),
            hook: None,
            message: without_wasm_feature(
                "`[trust]` (keys for signed wasm bundles)",
                "remove the `[trust]` table",
            ),
        });
    }
    TrustPolicy
}

/// What a build without the `wasm` feature says about `what`, and the two ways out.
#[cfg(not(feature = "wasm"))]
pub(super) fn without_wasm_feature(what: &str, otherwise: &str) -> String {
    format!(
        "{what} needs hookhost's `wasm` cargo feature, which this build of hookhost leaves out: \
         turn it on where the agent depends on hookhost (`features = [\"wasm\"]`), or {otherwise}"
    )
}
