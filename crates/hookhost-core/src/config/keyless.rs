//! The fields of a `kind = "keyless"` trust entry: who signs (`identity` or `identity_regex`,
//! `issuer` or `issuer_regex`), what they are checked against (`trusted_root`, a file), and
//! whether the certificate's SCT must verify (`require_sct`). Read beside the other key
//! fields by `trust::parse_key`; checked once the entry's kind is known.

use std::ops::Range;
use std::path::PathBuf;

use toml::de::DeValue;

use super::fields::Problems;
use super::{KeylessSpec, NamePattern};

/// The keyless fields of one `[[trust.keys]]` entry, as written.
#[derive(Default)]
pub(super) struct KeylessFields {
    identity: Option<NamePattern>,
    issuer: Option<NamePattern>,
    pub(super) trusted_root: Option<PathBuf>,
    require_sct: Option<bool>,
    /// Where the first keyless field is, for an error on an entry of another kind.
    pub(super) first: Option<Range<usize>>,
}

/// The names of the keyless fields.
pub(super) const NAMES: [&str; 6] = [
    "identity",
    "identity_regex",
    "issuer",
    "issuer_regex",
    "trusted_root",
    "require_sct",
];

impl KeylessFields {
    /// Reads field `name` (one of [`NAMES`]); false when its value is unusable (reported).
    pub(super) fn read(
        &mut self,
        name: &str,
        value: &DeValue<'_>,
        span: Range<usize>,
        sink: &mut Problems<'_>,
    ) -> bool {
        self.first.get_or_insert(span.clone());
        match (name, value) {
            ("require_sct", DeValue::Boolean(b)) => self.require_sct = Some(*b),
            ("require_sct", _) => {
                sink.push(
                    &span,
                    None,
                    "`require_sct` must be true or false".to_string(),
                );
                return false;
            }
            (_, DeValue::String(s)) if !s.trim().is_empty() => {
                let text = s.to_string();
                let regex = name.ends_with("_regex");
                if regex && let Err(error) = anchored(&text) {
                    sink.push(
                        &span,
                        None,
                        format!("`{name}` is not a regular expression: {error}"),
                    );
                    return false;
                }
                let pattern = if regex {
                    NamePattern::Regex(text)
                } else {
                    NamePattern::Exact(text)
                };
                let slot = match name {
                    "identity" | "identity_regex" => &mut self.identity,
                    "issuer" | "issuer_regex" => &mut self.issuer,
                    _ => {
                        self.trusted_root = Some(PathBuf::from(s.as_ref()));
                        return true;
                    }
                };
                if slot.is_some() {
                    let field = name.trim_end_matches("_regex");
                    sink.push(
                        &span,
                        None,
                        format!("give one of `{field}` (exact) and `{field}_regex`, not both"),
                    );
                    return false;
                }
                *slot = Some(pattern);
            }
            _ => {
                sink.push(
                    &span,
                    None,
                    format!("`{name}` of a keyless trust entry must be a non-empty string"),
                );
                return false;
            }
        }
        true
    }

    /// The entry's keyless spec, once its kind is `keyless`: identity, issuer and trusted root
    /// are all needed (a keyless entry without an issuer would accept any provider's word).
    pub(super) fn spec(
        self,
        id: &str,
        item: &Range<usize>,
        sink: &mut Problems<'_>,
    ) -> Option<(KeylessSpec, PathBuf)> {
        let missing: Vec<&str> = [
            ("identity (or identity_regex)", self.identity.is_none()),
            ("issuer (or issuer_regex)", self.issuer.is_none()),
            ("trusted_root", self.trusted_root.is_none()),
        ]
        .into_iter()
        .filter_map(|(name, missing)| missing.then_some(name))
        .collect();
        if !missing.is_empty() {
            sink.push(
                item,
                None,
                format!(
                    "keyless trust entry {} needs {}: the certificate's subject, the OIDC \
                     issuer that vouched for it, and the Sigstore trusted_root.json file it \
                     chains to",
                    crate::text::quote(id),
                    missing.join(", ")
                ),
            );
            return None;
        }
        Some((
            KeylessSpec {
                identity: self.identity?,
                issuer: self.issuer?,
                require_sct: self.require_sct.unwrap_or(true),
            },
            self.trusted_root?,
        ))
    }
}

/// A pattern as the verifier compiles it: anchored at both ends, with a size limit.
pub fn anchored(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(&format!("^(?:{pattern})$"))
        .size_limit(1 << 20)
        .build()
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::config::{Config, KeyKind, KeySource, KeylessSpec, NamePattern};

    fn parse(text: &str) -> Result<Config, Vec<String>> {
        Config::parse(text, Path::new("/project/.forgeflare/hooks.toml"))
            .map_err(|error| error.problems().iter().map(|p| p.to_string()).collect())
    }

    #[test]
    fn old_trust_tables_keep_their_meaning() {
        let config = parse(
            "[trust]\nrequire_signed = true\n\n[[trust.keys]]\nid = \"team\"\nkey = \"RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3\"\n\n\
             [[trust.keys]]\nid = \"ci\"\nkind = \"cosign\"\nfile = \"keys/ci.pub\"\n\n\
             [[trust.rules]]\nmatch = \"oci://r.io/team/*\"\nany_of = [\"team\", \"ci\"]\n",
        )
        .unwrap();
        let keys: Vec<_> = config
            .trust
            .keys
            .iter()
            .map(|key| {
                (
                    key.id.as_str(),
                    key.kind,
                    key.source.clone(),
                    key.keyless.clone(),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                (
                    "team",
                    KeyKind::Minisign,
                    KeySource::Inline(
                        "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3".into()
                    ),
                    None
                ),
                (
                    "ci",
                    KeyKind::Cosign,
                    KeySource::File("keys/ci.pub".into()),
                    None
                ),
            ]
        );
        assert_eq!(config.trust.rules[0].keys, ["team", "ci"]);
    }

    #[test]
    fn a_keyless_entry_reads_its_identity_issuer_and_root() {
        let config = parse(
            "[[trust.keys]]\nid = \"release\"\nkind = \"keyless\"\n\
             identity_regex = \"https://github\\\\.com/acme/.*\"\nissuer = \"https://token.actions.githubusercontent.com\"\n\
             trusted_root = \"sigstore/trusted_root.json\"\nrequire_sct = false\n",
        )
        .unwrap();
        let key = &config.trust.keys[0];
        assert_eq!(key.kind, KeyKind::Keyless);
        assert_eq!(
            key.source,
            KeySource::File(PathBuf::from("sigstore/trusted_root.json"))
        );
        assert_eq!(
            key.keyless,
            Some(KeylessSpec {
                identity: NamePattern::Regex("https://github\\.com/acme/.*".into()),
                issuer: NamePattern::Exact("https://token.actions.githubusercontent.com".into()),
                require_sct: false,
            })
        );
    }

    #[test]
    fn keyless_entries_that_cannot_work_say_why() {
        let entry = "[[trust.keys]]\nid = \"release\"\n";
        let full = "identity = \"a@b.c\"\nissuer = \"https://accounts.google.com\"\ntrusted_root = \"root.json\"\n";
        #[rustfmt::skip]
        let cases = [
            ("no issuer",        "kind = \"keyless\"\nidentity = \"a@b.c\"\ntrusted_root = \"r.json\"\n", "needs issuer (or issuer_regex)"),
            ("nothing",          "kind = \"keyless\"\n",                          "needs identity (or identity_regex), issuer (or issuer_regex), trusted_root"),
            ("both forms",       &format!("kind = \"keyless\"\n{full}identity_regex = \"x\"\n"), "give one of `identity` (exact) and `identity_regex`, not both"),
            ("bad regex",        &format!("kind = \"keyless\"\n{}", full.replace("identity =", "identity_regex =").replace("a@b.c", "(")), "`identity_regex` is not a regular expression"),
            ("with a key file",  &format!("kind = \"keyless\"\n{full}file = \"k.pub\"\n"), "takes no `key` or `file`"),
            ("fields, no kind",  &format!("key = \"RWQ\"\n{full}"),          "has keyless fields (identity, issuer, trusted_root, require_sct); add kind = \"keyless\""),
            ("sct not a bool",   &format!("kind = \"keyless\"\n{full}require_sct = \"no\"\n"), "`require_sct` must be true or false"),
        ];
        for (name, fields, expected) in cases {
            let problems = parse(&format!("{entry}{fields}")).unwrap_err();
            assert!(
                problems.iter().any(|p| p.contains(expected)),
                "{name}: {problems:?}"
            );
        }
    }
}
