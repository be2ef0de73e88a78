//! The `[trust]` table: the keys signatures are checked with, and the rules saying whose
//! signatures a registry reference needs.
//!
//! ```toml
//! [trust]
//! require_signed = true            # every wasm hook signed by a trusted key (no rule matches)
//! revoked = ["8A1B36A4C2F01D9E"]   # key ids whose signatures count for nothing
//!
//! [[trust.keys]]
//! id = "platform-1"
//! kind = "cosign"                  # minisign (default) | cosign (ECDSA P-256, cosign.pub)
//! file = "keys/platform-1.pub"     # or key = "..."
//!
//! [[trust.rules]]
//! match = "oci://registry.example/platform/*"
//! any_of = ["platform-1", "platform-2", "platform-3"]
//! min = 2                          # or all_of = [...]
//! ```
//!
//! Longer than 400 lines: `[trust]` has four kinds of entries (keys of three kinds, keyless
//! identities, rules, revocations), each validated with located problems; they name one
//! another, so they are read together.

use std::path::PathBuf;

use toml::Spanned;
use toml::de::DeValue;

use super::fields::Problems;
use super::keyless::{self, KeylessFields};
use super::{KeyKind, KeySource, KeySpec, RuleSpec, TrustSpec};

/// The most `[[trust.rules]]` or `revoked` entries a file may hold.
const MAX_RULES: usize = 256;

/// `[trust]`: `require_signed`, `revoked`, `[[trust.keys]]` entries (`id`, `kind`, `key` or
/// `file`, `revoked`) and `[[trust.rules]]` entries (`match`, `any_of` with `min`, or
/// `all_of`).
pub(super) fn parse_trust(value: &Spanned<DeValue<'_>>, sink: &mut Problems<'_>) -> TrustSpec {
    let mut trust = TrustSpec {
        location: Some(sink.lines.locate(value.span().start)),
        ..TrustSpec::default()
    };
    let mut spans = Vec::new();
    let DeValue::Table(table) = value.get_ref() else {
        sink.push(
            &value.span(),
            None,
            "`trust` must be a table: write it as `[trust]`".to_string(),
        );
        return trust;
    };
    for (key, value) in table.iter() {
        match (key.get_ref().as_ref(), value.get_ref()) {
            ("require_signed", DeValue::Boolean(b)) => trust.require_signed = *b,
            ("require_signed", other) => sink.push(
                &value.span(),
                None,
                format!(
                    "`trust.require_signed` must be true or false, found {}",
                    other.type_str()
                ),
            ),
            ("keys", DeValue::Array(items)) => {
                for item in items.iter() {
                    if let Some(key) = parse_key(item, sink) {
                        trust.keys.push(key);
                        spans.push(item.span());
                    }
                }
            }
            ("keys", _) => sink.push(
                &value.span(),
                None,
                "`trust.keys` must be a list of tables: write each key as `[[trust.keys]]`"
                    .to_string(),
            ),
            ("rules", DeValue::Array(items)) if items.len() <= MAX_RULES => {
                for item in items.iter() {
                    if let Some(rule) = parse_rule(item, sink) {
                        trust.rules.push(rule);
                    }
                }
            }
            ("rules", _) => sink.push(
                &value.span(),
                None,
                format!(
                    "`trust.rules` must be a list of at most {MAX_RULES} tables: write each rule \
                     as `[[trust.rules]]`"
                ),
            ),
            ("revoked", DeValue::Array(items)) if items.len() <= MAX_RULES => {
                for item in items.iter() {
                    match item.get_ref() {
                        DeValue::String(id) if is_key_id(id) => {
                            trust.revoked.push(id.to_ascii_uppercase())
                        }
                        _ => sink.push(
                            &item.span(),
                            None,
                            "each entry of `trust.revoked` must be a key id: 16 hex digits, as \
                             `hookhost keygen`, `hookhost check` and hooks.lock show it"
                                .to_string(),
                        ),
                    }
                }
            }
            ("revoked", _) => sink.push(
                &value.span(),
                None,
                format!(
                    "`trust.revoked` must be a list of at most {MAX_RULES} key ids, like \
                     revoked = [\"8A1B36A4C2F01D9E\"]"
                ),
            ),
            (other, _) => sink.push(
                &key.span(),
                None,
                format!(
                    "unknown key `trust.{}`; [trust] takes `require_signed`, `revoked`, \
                     `[[trust.keys]]` and `[[trust.rules]]`",
                    crate::text::name(other)
                ),
            ),
        }
    }
    let mut seen = std::collections::HashSet::new();
    for (key, span) in trust.keys.iter().zip(&spans) {
        if !seen.insert(key.id.clone()) {
            sink.push(
                span,
                None,
                format!(
                    "trust key id {} is used twice; give each key its own id",
                    crate::text::quote(&key.id)
                ),
            );
        }
    }
    trust
}

fn parse_key(item: &Spanned<DeValue<'_>>, sink: &mut Problems<'_>) -> Option<KeySpec> {
    let location = sink.lines.locate(item.span().start);
    let DeValue::Table(table) = item.get_ref() else {
        sink.push(
            &item.span(),
            None,
            "each `[[trust.keys]]` entry must be a table".to_string(),
        );
        return None;
    };
    let (mut id, mut inline, mut file, mut revoked) = (None, None, None, false);
    let mut kind = None;
    let mut keyless = KeylessFields::default();
    let mut ok = true;
    for (key, value) in table.iter() {
        let name = key.get_ref().as_ref();
        match (name, value.get_ref()) {
            (name, inner) if keyless::NAMES.contains(&name) => {
                ok &= keyless.read(name, inner, value.span(), sink);
            }
            ("id" | "key" | "file", DeValue::String(s)) if !s.trim().is_empty() => match name {
                "id" => id = Some(s.to_string()),
                "key" => inline = Some(s.trim().to_string()),
                _ => file = Some(PathBuf::from(s.as_ref())),
            },
            ("id" | "key" | "file", _) => {
                sink.push(
                    &value.span(),
                    None,
                    format!("`{name}` of a trust key must be a non-empty string"),
                );
                ok = false;
            }
            ("revoked", DeValue::Boolean(b)) => revoked = *b,
            ("revoked", _) => {
                sink.push(
                    &value.span(),
                    None,
                    "`revoked` must be true or false".to_string(),
                );
                ok = false;
            }
            ("kind", DeValue::String(s)) if s.as_ref() == "minisign" => {
                kind = Some(KeyKind::Minisign)
            }
            ("kind", DeValue::String(s)) if s.as_ref() == "cosign" => kind = Some(KeyKind::Cosign),
            ("kind", DeValue::String(s)) if s.as_ref() == "keyless" => {
                kind = Some(KeyKind::Keyless)
            }
            ("kind", _) => {
                sink.push(
                    &value.span(),
                    None,
                    "`kind` of a trust key must be \"minisign\" (a key from `hookhost keygen` or \
                     minisign), \"cosign\" (an ECDSA P-256 PEM key, as cosign.pub) or \
                     \"keyless\" (a Sigstore identity and its trusted root)"
                        .to_string(),
                );
                ok = false;
            }
            (other, _) => {
                sink.push(
                    &key.span(),
                    None,
                    format!(
                        "unknown key `{}` in a trust key; it takes id, kind, key or file, and \
                         revoked (a keyless one: identity or identity_regex, issuer or \
                         issuer_regex, trusted_root, require_sct)",
                        crate::text::name(other)
                    ),
                );
                ok = false;
            }
        }
    }
    let Some(id) = id else {
        sink.push(
            &item.span(),
            None,
            "a trust key needs an `id` (the name messages use for it)".to_string(),
        );
        return None;
    };
    if kind == Some(KeyKind::Keyless) {
        if inline.is_some() || file.is_some() {
            sink.push(
                &item.span(),
                None,
                format!(
                    "keyless trust entry {} takes no `key` or `file`: it names an identity, an \
                     issuer and a `trusted_root`",
                    crate::text::quote(&id)
                ),
            );
            return None;
        }
        let (spec, root) = keyless.spec(&id, &item.span(), sink)?;
        return ok.then_some(KeySpec {
            id,
            source: KeySource::File(root),
            revoked,
            location,
            kind: KeyKind::Keyless,
            keyless: Some(spec),
        });
    }
    if let Some(span) = &keyless.first {
        sink.push(
            span,
            None,
            format!(
                "trust key {} has keyless fields (identity, issuer, trusted_root, require_sct); \
                 add kind = \"keyless\", or remove them",
                crate::text::quote(&id)
            ),
        );
        return None;
    }
    let source = match (inline, file) {
        (Some(key), None) => KeySource::Inline(key),
        (None, Some(path)) => KeySource::File(path),
        _ => {
            sink.push(
                &item.span(),
                None,
                format!("trust key {} needs exactly one of `key` (the public key) or `file` (a .pub file)", crate::text::quote(&id)),
            );
            return None;
        }
    };
    // A key's kind is explicit: a PEM key read as minisign's would only fail later, and
    // obscurely.
    if kind.is_none()
        && let KeySource::Inline(text) = &source
        && text.starts_with("-----BEGIN")
    {
        sink.push(
            &item.span(),
            None,
            format!(
                "trust key {} is a PEM key: add kind = \"cosign\" (without `kind`, a key is \
                 minisign's)",
                crate::text::quote(&id)
            ),
        );
        return None;
    }
    ok.then_some(KeySpec {
        id,
        source,
        revoked,
        location,
        kind: kind.unwrap_or_default(),
        keyless: None,
    })
}

fn parse_rule(item: &Spanned<DeValue<'_>>, sink: &mut Problems<'_>) -> Option<RuleSpec> {
    let location = sink.lines.locate(item.span().start);
    let DeValue::Table(table) = item.get_ref() else {
        sink.push(
            &item.span(),
            None,
            "each `[[trust.rules]]` entry must be a table".to_string(),
        );
        return None;
    };
    let (mut pattern, mut any_of, mut all_of, mut min) = (None, None, None, None);
    let mut ok = true;
    for (key, value) in table.iter() {
        let name = key.get_ref().as_ref();
        match (name, value.get_ref()) {
            ("match", DeValue::String(s)) if s.starts_with("oci://") && s.len() > 6 => {
                pattern = Some(s.to_string())
            }
            ("match", _) => {
                sink.push(
                    &value.span(),
                    None,
                    "`match` of a trust rule must be a registry reference pattern, like \
                     \"oci://registry.example/platform/*\""
                        .to_string(),
                );
                ok = false;
            }
            ("any_of" | "all_of", DeValue::Array(items))
                if !items.is_empty()
                    && items.len() <= MAX_RULES
                    && items
                        .iter()
                        .all(|i| matches!(i.get_ref(), DeValue::String(s) if !s.is_empty())) =>
            {
                let ids: Vec<String> = items
                    .iter()
                    .filter_map(|i| match i.get_ref() {
                        DeValue::String(s) => Some(s.to_string()),
                        _ => None,
                    })
                    .collect();
                if name == "any_of" {
                    any_of = Some(ids);
                } else {
                    all_of = Some(ids);
                }
            }
            ("any_of" | "all_of", _) => {
                sink.push(
                    &value.span(),
                    None,
                    format!(
                        "`{name}` of a trust rule must be a non-empty list of trust key ids, \
                         like {name} = [\"platform-1\", \"platform-2\"]"
                    ),
                );
                ok = false;
            }
            ("min", DeValue::Integer(n)) => match n.as_str().parse::<usize>() {
                Ok(n) if n >= 1 => min = Some((n, value.span())),
                _ => {
                    sink.push(
                        &value.span(),
                        None,
                        "`min` of a trust rule must be a whole number of at least 1".to_string(),
                    );
                    ok = false;
                }
            },
            ("min", _) => {
                sink.push(
                    &value.span(),
                    None,
                    "`min` of a trust rule must be a whole number of at least 1".to_string(),
                );
                ok = false;
            }
            (other, _) => {
                sink.push(
                    &key.span(),
                    None,
                    format!(
                        "unknown key `{}` in a trust rule; it takes match, and any_of (with \
                         min) or all_of",
                        crate::text::name(other)
                    ),
                );
                ok = false;
            }
        }
    }
    let Some(pattern) = pattern else {
        if ok {
            sink.push(
                &item.span(),
                None,
                "a trust rule needs `match`, the references it covers, like \
                 match = \"oci://registry.example/platform/*\""
                    .to_string(),
            );
        }
        return None;
    };
    let (keys, min) = match (any_of, all_of, min) {
        (Some(keys), None, None) => (keys, 1),
        (Some(keys), None, Some((min, span))) => {
            if min > keys.len() {
                sink.push(
                    &span,
                    None,
                    format!(
                        "`min` = {min} of the trust rule for {} is more than the {} keys of \
                         `any_of`: no signatures could ever satisfy it",
                        crate::text::quote(&pattern),
                        keys.len()
                    ),
                );
                return None;
            }
            (keys, min)
        }
        (None, Some(keys), None) => {
            let min = keys.len();
            (keys, min)
        }
        (None, Some(_), Some((_, span))) => {
            sink.push(
                &span,
                None,
                "`min` goes with `any_of`; `all_of` already needs every key it names".to_string(),
            );
            return None;
        }
        (Some(_), Some(_), _) => {
            sink.push(
                &item.span(),
                None,
                format!(
                    "the trust rule for {} has both `any_of` and `all_of`; give one",
                    crate::text::quote(&pattern)
                ),
            );
            return None;
        }
        (None, None, _) => {
            if ok {
                sink.push(
                    &item.span(),
                    None,
                    format!(
                        "the trust rule for {} names no keys: add any_of = [...] (with min) or \
                         all_of = [...]",
                        crate::text::quote(&pattern)
                    ),
                );
            }
            return None;
        }
    };
    let mut unique = keys.clone();
    unique.sort();
    unique.dedup();
    if unique.len() != keys.len() {
        sink.push(
            &item.span(),
            None,
            format!(
                "the trust rule for {} names a key twice; name each once",
                crate::text::quote(&pattern)
            ),
        );
        return None;
    }
    ok.then_some(RuleSpec {
        pattern,
        keys,
        min,
        location,
    })
}

/// A key id: 16 hex digits (minisign's, or hookhost's for a cosign key).
fn is_key_id(text: &str) -> bool {
    text.len() == 16 && text.bytes().all(|b| b.is_ascii_hexdigit())
}
