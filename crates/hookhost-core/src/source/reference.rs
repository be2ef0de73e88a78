//! OCI references as hooks.toml and the command line write them:
//! `oci://REGISTRY/REPOSITORY[:TAG][@sha256:DIGEST]`.
//!
//! The grammar is the distribution project's (the one `docker` and `skopeo` accept), with one
//! difference: the registry is never implied. `team/guard:1.0` would mean Docker Hub to docker;
//! here it is an error, because a policy that silently comes from another registry than the
//! team meant is exactly what pinning exists to prevent.

use std::fmt;

use sha2::{Digest as _, Sha256};

/// The scheme that marks a `wasm` value of hooks.toml as a registry reference.
pub const SCHEME: &str = "oci://";

/// True when a hooks.toml `wasm` value is a registry reference rather than a file path.
pub fn is_oci(wasm: &str) -> bool {
    wasm.starts_with(SCHEME)
}

/// A SHA-256 content digest, as OCI writes it: `sha256:` and 64 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest {
    hex: String,
}

impl Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest::from_hasher(Sha256::new_with_prefix(bytes))
    }

    /// The digest a hasher has computed so far.
    pub fn from_hasher(hasher: Sha256) -> Digest {
        Digest {
            hex: hasher
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        }
    }

    /// The 64 hex digits, without the algorithm (what `sha256sum` prints).
    pub fn hex(&self) -> &str {
        &self.hex
    }
}

impl std::str::FromStr for Digest {
    type Err = String;

    /// Parses `sha256:<64 lowercase hex digits>`; the error says what is wrong.
    fn from_str(text: &str) -> Result<Digest, String> {
        let invalid = || {
            format!(
                "the digest `{text}` must be `sha256:` followed by 64 lowercase hex digits \
                 (hookhost supports only SHA-256 digests)"
            )
        };
        let hex = text.strip_prefix("sha256:").ok_or_else(invalid)?;
        if hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            Ok(Digest {
                hex: hex.to_string(),
            })
        } else {
            Err(invalid())
        }
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sha256:{}", self.hex)
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Digest, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A parsed registry reference. Displays in its canonical `oci://` form, which is also how
/// hooks.lock keys its entries.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OciReference {
    registry: String,
    repository: String,
    tag: Option<String>,
    digest: Option<Digest>,
}

/// Why a string is not a usable reference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{input}` is not a valid OCI reference: {reason}")]
pub struct ReferenceError {
    /// The text as given.
    pub input: String,
    /// What is wrong and how to write it.
    pub reason: String,
}

impl OciReference {
    /// Parses `oci://REGISTRY/REPOSITORY[:TAG][@sha256:DIGEST]`; the `oci://` prefix is optional
    /// (the command line takes references with or without it). A tag or a digest is required.
    pub fn parse(input: &str) -> Result<OciReference, ReferenceError> {
        let fail = |reason: String| ReferenceError {
            input: input.to_string(),
            reason,
        };
        let text = input.strip_prefix(SCHEME).unwrap_or(input);
        if text.is_empty() || text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(fail(
                "it is empty or contains spaces; write oci://REGISTRY/REPOSITORY:TAG, like \
                 oci://ghcr.io/team/destructive-guard:1.2.0"
                    .to_string(),
            ));
        }
        let (name, digest) = match text.rsplit_once('@') {
            Some((name, digest)) => (name, Some(digest.parse::<Digest>().map_err(fail)?)),
            None => (text, None),
        };
        let (registry, path) = name.split_once('/').unwrap_or((name, ""));
        if !is_registry(registry) || path.is_empty() {
            return Err(fail(format!(
                "it names no registry: write the registry's host first, like \
                 oci://ghcr.io/{}",
                if path.is_empty() { name } else { text }
            )));
        }
        // A ':' after the last '/' starts the tag; one before it belongs to the registry.
        let (repository, tag) = match path.rsplit_once(':') {
            Some((repository, tag)) if !tag.contains('/') => (repository, Some(tag)),
            _ => (path, None),
        };
        if let Some(bad) = repository.split('/').find(|part| !is_path_component(part)) {
            return Err(fail(format!(
                "the repository part `{bad}` must be lowercase letters and digits, with single \
                 `.`, `_`, `__` or runs of `-` between them"
            )));
        }
        if let Some(tag) = tag
            && !is_tag(tag)
        {
            return Err(fail(format!(
                "the tag `{tag}` must be 1 to 128 letters, digits, `_`, `.` or `-`, not \
                 starting with `.` or `-`"
            )));
        }
        if tag.is_none() && digest.is_none() {
            return Err(fail(
                "it names no version: add a tag, like :1.2.0, or a digest, like \
                 @sha256:<64 hex digits>"
                    .to_string(),
            ));
        }
        Ok(OciReference {
            registry: registry.to_string(),
            repository: repository.to_string(),
            tag: tag.map(str::to_string),
            digest,
        })
    }

    /// `host[:port]`.
    pub fn registry(&self) -> &str {
        &self.registry
    }

    /// The repository path inside the registry, like `team/guard`.
    pub fn repository(&self) -> &str {
        &self.repository
    }

    /// The tag, if the reference has one.
    pub fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    /// The manifest digest, if the reference pins one.
    pub fn digest(&self) -> Option<&Digest> {
        self.digest.as_ref()
    }

    /// The same repository, pinned to `digest` (the tag, if any, is dropped).
    pub fn with_digest(&self, digest: Digest) -> OciReference {
        OciReference {
            tag: None,
            digest: Some(digest),
            ..self.clone()
        }
    }

    /// True for a registry on this machine (`localhost`, `127.0.0.0/8`, `[::1]`), which
    /// hookhost talks to over plain HTTP, as docker does.
    pub fn is_loopback(&self) -> bool {
        let host = match self.registry.strip_prefix('[') {
            Some(rest) => rest.split(']').next().unwrap_or(rest),
            None => self.registry.split(':').next().unwrap_or(&self.registry),
        };
        host == "localhost"
            || host == "::1"
            || host
                .parse::<std::net::Ipv4Addr>()
                .is_ok_and(|ip| ip.is_loopback())
    }
}

impl fmt::Display for OciReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SCHEME}{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

/// The distribution rule for telling a registry from a repository part: it has a dot, a
/// port, or is `localhost`; host names are letters, digits, dots and dashes.
fn is_registry(text: &str) -> bool {
    if let Some(rest) = text.strip_prefix('[') {
        // [IPv6]:port
        let Some((address, port)) = rest.split_once(']') else {
            return false;
        };
        return address.parse::<std::net::Ipv6Addr>().is_ok()
            && (port.is_empty() || port.strip_prefix(':').is_some_and(is_port));
    }
    let (host, port) = match text.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (text, None),
    };
    let host_ok = !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        });
    host_ok
        && port.is_none_or(is_port)
        && (host.contains('.') || port.is_some() || host == "localhost")
}

fn is_port(text: &str) -> bool {
    !text.is_empty() && text.len() <= 5 && text.bytes().all(|b| b.is_ascii_digit())
}

/// `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*`
fn is_path_component(part: &str) -> bool {
    let bytes = part.as_bytes();
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    if !alnum(first) || !alnum(last) {
        return false;
    }
    // Separators between alphanumeric runs: `.`, `_`, `__`, or any run of `-`.
    let mut separator = String::new();
    for &b in bytes {
        if alnum(&b) {
            if !matches!(separator.as_str(), "" | "." | "_" | "__")
                && !separator.bytes().all(|s| s == b'-')
            {
                return false;
            }
            separator.clear();
        } else if matches!(b, b'.' | b'_' | b'-') {
            separator.push(b as char);
        } else {
            return false;
        }
    }
    true
}

/// `[\w][\w.-]{0,127}`
fn is_tag(tag: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    !tag.is_empty()
        && tag.len() <= 128
        && word(tag.as_bytes()[0])
        && tag.bytes().all(|b| word(b) || b == b'.' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn valid_references_parse_and_print_canonically() {
        let digest = format!("oci://ghcr.io/team/guard@{D}");
        let both = format!("oci://ghcr.io/team/guard:1.2.0@{D}");
        // name, input, registry, repository, tag, loopback, canonical
        type Case<'a> = (
            &'a str,
            &'a str,
            &'a str,
            &'a str,
            Option<&'a str>,
            bool,
            &'a str,
        );
        #[rustfmt::skip]
        let cases: &[Case<'_>] = &[
            ("tag",             "oci://registry.example/team/guard:1.2.0", "registry.example", "team/guard",  Some("1.2.0"), false, "oci://registry.example/team/guard:1.2.0"),
            ("no scheme",       "registry.example/team/guard:1.2.0",       "registry.example", "team/guard",  Some("1.2.0"), false, "oci://registry.example/team/guard:1.2.0"),
            ("port",            "oci://127.0.0.1:5000/guard:v1",           "127.0.0.1:5000",   "guard",       Some("v1"),    true,  "oci://127.0.0.1:5000/guard:v1"),
            ("localhost",       "oci://localhost/a/b/c:latest",            "localhost",        "a/b/c",       Some("latest"), true, "oci://localhost/a/b/c:latest"),
            ("ipv6 loopback",   "oci://[::1]:5000/guard:1",                "[::1]:5000",       "guard",       Some("1"),     true,  "oci://[::1]:5000/guard:1"),
            ("separators",      "oci://r.io/a.b/c__d/e---f/g_h:X_1.-",     "r.io",             "a.b/c__d/e---f/g_h", Some("X_1.-"), false, "oci://r.io/a.b/c__d/e---f/g_h:X_1.-"),
            ("digest",          &digest,                                  "ghcr.io",          "team/guard",  None,          false, &digest),
            ("tag and digest",  &both,                                    "ghcr.io",          "team/guard",  Some("1.2.0"), false, &both),
        ];
        for (name, input, registry, repository, tag, loopback, canonical) in cases {
            let reference = OciReference::parse(input).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(reference.registry(), *registry, "{name}");
            assert_eq!(reference.repository(), *repository, "{name}");
            assert_eq!(reference.tag(), *tag, "{name}");
            assert_eq!(reference.is_loopback(), *loopback, "{name}");
            assert_eq!(reference.to_string(), *canonical, "{name}");
        }
    }

    #[test]
    fn invalid_references_say_what_to_write() {
        #[rustfmt::skip]
        let cases: &[(&str, &str, &str)] = &[
            ("no registry",      "oci://team/guard:1.0",           "it names no registry: write the registry's host first, like oci://ghcr.io/team/guard:1.0"),
            ("only a registry",  "oci://ghcr.io",                  "it names no registry"),
            ("no version",       "oci://ghcr.io/team/guard",       "it names no version: add a tag, like :1.2.0, or a digest"),
            ("uppercase repo",   "oci://ghcr.io/Team/guard:1",     "the repository part `Team` must be lowercase"),
            ("double dot",       "oci://ghcr.io/team/a..b:1",      "the repository part `a..b`"),
            ("trailing slash",   "oci://ghcr.io/team/:1",          "the repository part ``"),
            ("bad tag",          "oci://ghcr.io/team/guard:.1",    "the tag `.1` must be 1 to 128"),
            ("short digest",     "oci://ghcr.io/team/guard@sha256:abc", "the digest `sha256:abc` must be `sha256:` followed by 64"),
            ("other algorithm",  "oci://ghcr.io/team/guard@sha512:abc", "hookhost supports only SHA-256"),
            ("space",            "oci://ghcr.io/team/guard :1",    "contains spaces"),
            ("empty",            "oci://",                         "it is empty"),
            ("bad port",         "oci://ghcr.io:x/team/guard:1",   "it names no registry"),
        ];
        for (name, input, expected) in cases {
            let error = OciReference::parse(input).expect_err(name);
            assert_eq!(error.input, *input, "{name}");
            assert!(error.reason.contains(expected), "{name}: {}", error.reason);
        }
    }

    #[test]
    fn digests_parse_only_lowercase_sha256() {
        assert_eq!(D.parse::<Digest>().unwrap().to_string(), D);
        assert!(D.to_uppercase().parse::<Digest>().is_err());
        assert_eq!(
            Digest::of(b"").to_string(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
