//! `[trust]` as parsed: whether every wasm hook must be signed, the keys (minisign, cosign,
//! keyless identities with their trusted root), the rules that say which keys a reference
//! needs, and revoked ids. `trust` reads the table; the loading layer turns it into the policy
//! signatures are checked against.

use std::path::PathBuf;

use super::Location;

/// The `[trust]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustSpec {
    /// Every wasm hook needs a valid signature from a trusted, unrevoked key.
    pub require_signed: bool,
    /// The keys, in file order.
    pub keys: Vec<KeySpec>,
    /// Where the table is in the file; `None` when the file has none.
    pub location: Option<Location>,
    /// `[[trust.rules]]`: which keys must sign the registry references a pattern matches.
    pub rules: Vec<RuleSpec>,
    /// `revoked = ["KEY ID", ...]`: key ids whose signatures count for nothing, whoever lists
    /// the key.
    pub revoked: Vec<String>,
}

/// One `[[trust.keys]]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySpec {
    /// The name messages use for the key.
    pub id: String,
    /// The public key.
    pub source: KeySource,
    /// A revoked key's signatures are refused.
    pub revoked: bool,
    /// Where the entry is in the file.
    pub location: Location,
    /// What kind of key it is: `kind = "minisign"` (the default), `"cosign"` or `"keyless"`.
    pub kind: KeyKind,
    /// For `kind = "keyless"`: the identity and OIDC issuer the certificate must name (the
    /// trusted root is `source`, a file).
    pub keyless: Option<KeylessSpec>,
}

/// What a `kind = "keyless"` trust entry accepts: a Sigstore certificate for this identity,
/// vouched for by this OIDC issuer, chained to the trusted root the entry names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeylessSpec {
    /// `identity` or `identity_regex`: the certificate's subject (an email, a URI).
    pub identity: NamePattern,
    /// `issuer` or `issuer_regex`: the OIDC issuer (Fulcio's issuer extension).
    pub issuer: NamePattern,
    /// `require_sct` (default true): the certificate's SCT must verify with a CT log key of
    /// the trusted root.
    pub require_sct: bool,
}

/// A name matched exactly, or by a regular expression over the whole name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NamePattern {
    /// Equal, byte for byte.
    Exact(String),
    /// A regular expression, anchored at both ends.
    Regex(String),
}

/// The kind of a trusted key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KeyKind {
    /// A minisign public key: signatures embedded in a bundle (`hookhost sign`).
    #[default]
    Minisign,
    /// An ECDSA P-256 public key in PEM, as `cosign generate-key-pair` writes `cosign.pub`:
    /// signatures attached to a registry artefact the way cosign attaches them.
    Cosign,
    /// No key: an identity (a Sigstore certificate's subject and OIDC issuer) and the trusted
    /// root its keyless signatures are verified against, offline.
    Keyless,
}

impl KeyKind {
    /// The hooks.toml spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyKind::Minisign => "minisign",
            KeyKind::Cosign => "cosign",
            KeyKind::Keyless => "keyless",
        }
    }
}

/// Where a public key comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// `key = "..."`: the key itself (minisign: base64; cosign: the PEM text).
    Inline(String),
    /// `file = "keys/team.pub"`: a public key file, relative to the config file.
    File(PathBuf),
}

/// One `[[trust.rules]]` entry: the registry references `pattern` matches need signatures by
/// at least `min` of `keys`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSpec {
    /// `match = "oci://registry.example/platform/*"`: a reference pattern, `*` matching any
    /// run of characters (`/` included); the tag and digest of a reference are not matched.
    pub pattern: String,
    /// The ids of the `[[trust.keys]]` that may sign.
    pub keys: Vec<String>,
    /// How many of them must: 1 for `any_of`, `min` when given, all of them for `all_of`.
    pub min: usize,
    /// Where the entry is in the file.
    pub location: Location,
}
