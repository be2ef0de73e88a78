//! The `[trust]` table: keys for signed bundles.

use std::path::PathBuf;

use toml::Spanned;
use toml::de::DeValue;

use super::fields::Problems;
use super::{KeySource, KeySpec, TrustSpec};

/// `[trust]`: `require_signed`, and `[[trust.keys]]` entries with `id`, `key` or `file`, and
/// `revoked`.
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
            (other, _) => sink.push(
                &key.span(),
                None,
                format!(
                    "unknown key `trust.{}`; [trust] takes `require_signed` and `[[trust.keys]]`",
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
    let mut ok = true;
    for (key, value) in table.iter() {
        let name = key.get_ref().as_ref();
        match (name, value.get_ref()) {
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
            (other, _) => {
                sink.push(
                    &key.span(),
                    None,
                    format!(
                        "unknown key `{}` in a trust key; it takes id, key or file, and revoked",
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
    let source = match (inline, file) {
        (Some(key), None) => KeySource::Inline(key),
        (None, Some(path)) => KeySource::File(path),
        _ => {
            sink.push(
                &item.span(),
                None,
                format!("trust key {} needs exactly one of `key` (a minisign public key) or `file` (a .pub file)", crate::text::quote(&id)),
            );
            return None;
        }
    };
    ok.then_some(KeySpec {
        id,
        source,
        revoked,
        location,
    })
}
