//! `hooks.lock`: the digests `hookhost lock` resolved the registry references of a hooks.toml
//! to, written beside it and committed with it. Loading reads only this file and the store:
//! an agent never waits on the network at startup and never runs a tag that moved.
//!
//! ```toml
//! version = 1
//!
//! [[bundle]]
//! reference = "oci://registry.example/team/guard:1.2.0"
//! manifest = "sha256:…"   # the OCI manifest the reference resolved to
//! wasm = "sha256:…"       # its wasm layer: the bundle file, as `sha256sum` hashes it
//! size = 181234           # bytes of the wasm layer
//! signers = ["8A1B36A4C2F01D9E"]   # key ids whose signatures verified when it was locked
//!
//! [[bundle.signatures]]    # cosign signatures attached to the artefact in the registry
//! payload = '{"critical":{…},"optional":null}'   # the simple-signing payload, byte for byte
//! signature = "MEUCIQ…"    # base64 ECDSA P-256 signature over the payload
//! key = "8A1B36A4C2F01D9E" # the key that verified it at lock time
//!
//! [[bundle.signatures]]    # a keyless one also has its certificate and log proof
//! payload = '…'
//! signature = "MEUCIQ…"
//! key = "3F0A…"            # the id of the keyless [trust] entry that verified it
//! certificate = """-----BEGIN CERTIFICATE-----…"""
//! chain = """-----BEGIN CERTIFICATE-----…"""
//! rekor_bundle = '{"SignedEntryTimestamp":"…","Payload":{…}}'
//! identity = "https://github.com/acme/policies/.github/workflows/release.yml@refs/heads/main"
//! issuer = "https://token.actions.githubusercontent.com"
//!
//! [[bundle.sigstore_bundles]]   # Sigstore bundles attached through the referrers API
//! bundle = '{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json",…}'
//! key = "3F0A…"
//! identity = "…"
//! issuer = "…"
//! ```
//!
//! `signers`, `signatures` and `sigstore_bundles` are absent for an artefact without attached signatures, so a
//! lock written before they existed reads and writes back byte for byte.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::source::reference::{Digest, OciReference};

/// The lock file's name, in the configuration file's directory.
pub const LOCK_FILE: &str = "hooks.lock";

/// The format version this hookhost reads and writes.
const VERSION: u32 = 1;

const HEADER: &str = "# Written by `hookhost lock`: the registry references of hooks.toml, pinned to the digests\n\
                      # they resolved to. Commit it beside hooks.toml; hooks load from these digests only.\n";

/// A parsed lock file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockFile {
    /// The format version.
    pub version: u32,
    /// The pinned references, in hooks.toml order.
    #[serde(default, rename = "bundle")]
    pub bundles: Vec<LockedBundle>,
}

/// One pinned reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedBundle {
    /// The reference as hooks.toml writes it, in canonical form.
    pub reference: String,
    /// The digest of the manifest it resolved to.
    pub manifest: Digest,
    /// The digest of the bundle file (the manifest's wasm layer); the store key.
    pub wasm: Digest,
    /// The bundle file's size in bytes.
    pub size: u64,
    /// The key ids whose signatures verified when it was locked (for review; a load checks
    /// the signatures again against the `[trust]` of the day).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signers: Vec<String>,
    /// The cosign signatures attached to the artefact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signatures: Vec<LockedSignature>,
    /// The Sigstore bundles attached to the artefact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sigstore_bundles: Vec<LockedSigstoreBundle>,
}

/// One cosign signature of a locked artefact (a `.sig` layer): key-based, or keyless when it
/// carries a certificate.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedSignature {
    /// The simple-signing payload, byte for byte (JSON, so text).
    pub payload: String,
    /// The signature, base64, as cosign's `dev.cosignproject.cosign/signature` annotation.
    pub signature: String,
    /// The id of the key (or keyless entry) that verified it when it was locked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// A keyless signature's certificate (PEM, `dev.sigstore.cosign/certificate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate: Option<String>,
    /// Its chain as attached (PEM, `dev.sigstore.cosign/chain`; kept for review: the trusted
    /// root decides what a certificate chains to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<String>,
    /// Its transparency-log proof (`dev.sigstore.cosign/bundle`: Rekor's signed entry
    /// timestamp and the entry it signs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rekor_bundle: Option<String>,
    /// Who signed it, as its certificate said when it was locked (for review).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
    /// The OIDC issuer that vouched for `identity` (for review).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
}

/// One Sigstore bundle attached to a locked artefact (the referrers API, as `cosign sign
/// --new-bundle-format` attaches it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedSigstoreBundle {
    /// The bundle, byte for byte (JSON, so text).
    pub bundle: String,
    /// The id of the keyless entry that verified it when it was locked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Who signed it, as its certificate said when it was locked (for review).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
    /// The OIDC issuer that vouched for `identity` (for review).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
}

/// What the lock says about a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockLookup<'a> {
    /// Pinned.
    Locked(&'a LockedBundle),
    /// The lock pins this repository, but to another tag or digest than hooks.toml now names:
    /// hooks.toml changed since `hookhost lock` ran.
    Stale(&'a LockedBundle),
    /// The lock knows nothing of this repository.
    Missing,
}

/// Why a lock file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The file exists but could not be read, or could not be written.
    /// A file could not be read, written or created: which, and what the OS said.
    #[error(transparent)]
    Io(#[from] crate::durable::FileError),
    /// The file is not a lock file this hookhost understands.
    #[error("{} is not a valid lock file: {reason}; run `hookhost lock` to write it again", path.display())]
    Invalid {
        /// The lock file.
        path: PathBuf,
        /// What is wrong (with its line and column when TOML says).
        reason: String,
    },
}

impl LockFile {
    /// An empty lock.
    pub fn new() -> LockFile {
        LockFile {
            version: VERSION,
            bundles: Vec::new(),
        }
    }

    /// The lock file of the configuration whose directory is `config_dir`.
    pub fn path_in(config_dir: &Path) -> PathBuf {
        config_dir.join(LOCK_FILE)
    }

    /// Reads `path`; `Ok(None)` when there is no such file.
    pub fn read(path: &Path) -> Result<Option<LockFile>, LockError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(LockError::Io(crate::durable::FileError {
                    action: "read",
                    path: path.to_path_buf(),
                    source,
                }));
            }
        };
        let invalid = |reason: String| LockError::Invalid {
            path: path.to_path_buf(),
            reason,
        };
        let lock: LockFile = toml::from_str(&text).map_err(|error| {
            let at = error.span().map(|span| {
                let location = crate::config::Location::of_offset(&text, span.start);
                format!("{location}: ")
            });
            invalid(format!(
                "{}{}",
                at.unwrap_or_default(),
                error.message().trim_end()
            ))
        })?;
        if lock.version != VERSION {
            return Err(invalid(format!(
                "it has version {}, and this hookhost reads version {VERSION}",
                lock.version
            )));
        }
        Ok(Some(lock))
    }

    /// Writes the lock to `path` atomically.
    pub fn write(&self, path: &Path) -> Result<(), LockError> {
        super::blobs::write_file_atomically(path, self.to_text().as_bytes()).map_err(|source| {
            LockError::Io(crate::durable::FileError {
                action: "write",
                path: path.to_path_buf(),
                source,
            })
        })
    }

    /// The file's text: a header comment, then the TOML.
    pub fn to_text(&self) -> String {
        let body = toml::to_string(self).expect("a lock file serializes");
        format!("{HEADER}\n{body}")
    }

    /// What the lock pins `reference` to.
    pub fn lookup(&self, reference: &OciReference) -> LockLookup<'_> {
        let canonical = reference.to_string();
        if let Some(entry) = self.bundles.iter().find(|b| b.reference == canonical) {
            // A digest reference pins its manifest: an entry that says otherwise was edited.
            return match reference.digest() {
                Some(digest) if digest != &entry.manifest => LockLookup::Stale(entry),
                _ => LockLookup::Locked(entry),
            };
        }
        let same_repository = self.bundles.iter().find(|b| {
            OciReference::parse(&b.reference).is_ok_and(|locked| {
                locked.registry() == reference.registry()
                    && locked.repository() == reference.repository()
            })
        });
        match same_repository {
            Some(entry) => LockLookup::Stale(entry),
            None => LockLookup::Missing,
        }
    }
}

impl Default for LockFile {
    fn default() -> LockFile {
        LockFile::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(byte: u8) -> Digest {
        Digest::of(&[byte])
    }

    fn lock() -> LockFile {
        LockFile {
            version: 1,
            bundles: vec![LockedBundle {
                reference: "oci://r.io/team/guard:1.0.0".to_string(),
                manifest: digest(1),
                wasm: digest(2),
                size: 42,
                signers: Vec::new(),
                signatures: Vec::new(),
                sigstore_bundles: Vec::new(),
            }],
        }
    }

    #[test]
    fn a_lock_round_trips_through_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = LockFile::path_in(dir.path());
        assert_eq!(LockFile::read(&path).unwrap(), None);
        lock().write(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# Written by `hookhost lock`"), "{text}");
        assert!(
            text.contains("[[bundle]]\nreference = \"oci://r.io/team/guard:1.0.0\""),
            "{text}"
        );
        assert_eq!(LockFile::read(&path).unwrap(), Some(lock()));
    }

    #[test]
    fn a_lock_without_signatures_reads_and_writes_back_byte_for_byte() {
        // What `hookhost lock` wrote before signatures were recorded.
        let old = format!(
            "{HEADER}\nversion = 1\n\n[[bundle]]\nreference = \"oci://r.io/team/guard:1.0.0\"\n\
             manifest = \"{}\"\nwasm = \"{}\"\nsize = 42\n",
            digest(1),
            digest(2)
        );
        let dir = tempfile::tempdir().unwrap();
        let path = LockFile::path_in(dir.path());
        std::fs::write(&path, &old).unwrap();
        let read = LockFile::read(&path).unwrap().unwrap();
        assert_eq!(read, lock());
        assert_eq!(read.to_text(), old);
        // With signatures, they follow their bundle.
        let mut signed = lock();
        signed.bundles[0].signers = vec!["8A1B36A4C2F01D9E".to_string()];
        signed.bundles[0].signatures = vec![LockedSignature {
            payload: "{\"critical\":{}}".to_string(),
            signature: "MEUCIQ==".to_string(),
            key: Some("8A1B36A4C2F01D9E".to_string()),
            ..LockedSignature::default()
        }];
        signed.write(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("signers = [\"8A1B36A4C2F01D9E\"]\n\n[[bundle.signatures]]\npayload = '{\"critical\":{}}'"),
            "{text}"
        );
        assert_eq!(LockFile::read(&path).unwrap().unwrap(), signed);
    }

    #[test]
    fn lookups_tell_locked_from_stale_from_missing() {
        let lock = lock();
        let entry = &lock.bundles[0];
        let pinned = |manifest: &Digest| format!("oci://r.io/team/guard:1.0.0@{manifest}");
        #[rustfmt::skip]
        let cases: Vec<(&str, String, LockLookup<'_>)> = vec![
            ("same reference",        "oci://r.io/team/guard:1.0.0".into(),   LockLookup::Locked(entry)),
            ("same, no scheme",       "r.io/team/guard:1.0.0".into(),         LockLookup::Locked(entry)),
            ("other tag",             "oci://r.io/team/guard:1.1.0".into(),   LockLookup::Stale(entry)),
            ("a digest instead",      format!("oci://r.io/team/guard@{}", digest(9)), LockLookup::Stale(entry)),
            ("other repository",      "oci://r.io/team/other:1.0.0".into(),   LockLookup::Missing),
            ("other registry",        "oci://q.io/team/guard:1.0.0".into(),   LockLookup::Missing),
        ];
        for (name, reference, expected) in cases {
            let reference = OciReference::parse(&reference).unwrap();
            assert_eq!(lock.lookup(&reference), expected, "{name}");
        }
        // An entry whose reference pins a digest that its manifest field contradicts.
        let mut edited = lock.clone();
        edited.bundles[0].reference = pinned(&digest(7));
        let reference = OciReference::parse(&pinned(&digest(7))).unwrap();
        assert_eq!(
            edited.lookup(&reference),
            LockLookup::Stale(&edited.bundles[0])
        );
    }

    #[test]
    fn invalid_lock_files_name_the_problem_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let path = LockFile::path_in(dir.path());
        #[rustfmt::skip]
        let cases = [
            ("syntax",        "version = 1\n[[bundle]\n",                               "2:"),
            ("bad digest",    "version = 1\n[[bundle]]\nreference = \"oci://r.io/a:1\"\nmanifest = \"sha256:12\"\nwasm = \"x\"\nsize = 1\n", "must be `sha256:` followed by 64"),
            ("newer version", "version = 2\n",                                          "it has version 2, and this hookhost reads version 1"),
            ("unknown field", "version = 1\n[[bundle]]\nreference = \"oci://r.io/a:1\"\nextra = 1\n", "unknown field `extra`"),
        ];
        for (name, text, expected) in cases {
            std::fs::write(&path, text).unwrap();
            let message = LockFile::read(&path).unwrap_err().to_string();
            assert!(message.contains(expected), "{name}: {message}");
            assert!(
                message.ends_with("run `hookhost lock` to write it again"),
                "{name}: {message}"
            );
        }
    }
}
