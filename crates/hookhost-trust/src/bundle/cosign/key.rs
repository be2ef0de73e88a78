//! cosign's keys: ECDSA P-256, the public key as an SPKI `PUBLIC KEY` PEM (`cosign.pub`), the
//! private key in cosign's encrypted PEM (secure-systems-lab's `encrypted` format: JSON
//! `{kdf: scrypt N/r/p + salt, cipher: nacl/secretbox + nonce, ciphertext}` around PKCS#8 DER),
//! or as a plain PKCS#8 or SEC1 PEM.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use crypto_secretbox::XSalsa20Poly1305;
use crypto_secretbox::aead::{Aead, KeyInit};
use p256::ecdsa::{SigningKey, VerifyingKey};
use p256::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use rand_core::{OsRng, RngCore};
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::error::CosignError;

/// The PEM label hookhost writes for an encrypted private key. cosign has written
/// `ENCRYPTED SIGSTORE PRIVATE KEY` since 2023 and reads both; skopeo 1.9 (containers/image
/// before 5.25) reads only this older label, so writing it keeps the key usable by both.
const COSIGN_PRIVATE_LABEL: &str = "ENCRYPTED COSIGN PRIVATE KEY";
/// cosign's current label for the same format.
const SIGSTORE_PRIVATE_LABEL: &str = "ENCRYPTED SIGSTORE PRIVATE KEY";

/// scrypt's cost for new keys: what `cosign generate-key-pair` uses (N = 2^15, r = 8, p = 1).
const SCRYPT_LOG_N: u8 = 15;
const SCRYPT_R: u32 = 8;
const SCRYPT_P: u32 = 1;
/// The most memory a key file may make scrypt take (128 * N * r bytes). cosign's keys need
/// 32 MiB (N = 2^15) or 64 MiB (N = 2^16); a crafted file must not make a load take gigabytes.
const SCRYPT_MAX_MEMORY: u64 = 256 << 20;
/// The most CPU passes (p) a key file may ask for.
const SCRYPT_MAX_P: u32 = 16;

/// A cosign public key (ECDSA P-256): what `[[trust.keys]]` with `kind = "cosign"` names and
/// what verifies a registry signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CosignPublicKey {
    key: p256::PublicKey,
}

impl CosignPublicKey {
    /// Reads an SPKI `-----BEGIN PUBLIC KEY-----` PEM, as `cosign.pub` holds. Refuses private
    /// keys and keys of other algorithms, saying so.
    pub fn from_pem(text: &str) -> Result<CosignPublicKey, CosignError> {
        let (label, der) = pem_block(text)?;
        if label != "PUBLIC KEY" {
            return Err(CosignError::InvalidKey(if label.contains("PRIVATE") {
                format!(
                    "it is a private key ({label}); a public key is the `.pub` file written \
                     beside it"
                )
            } else {
                format!("its PEM block is `{label}`, not `PUBLIC KEY` (a cosign.pub file)")
            }));
        }
        let key = p256::PublicKey::from_public_key_der(&der).map_err(|e| {
            CosignError::InvalidKey(format!(
                "it is not an ECDSA P-256 public key ({e}); hookhost verifies cosign's default \
                 key type only: generate keys with `hookhost keygen --cosign` or \
                 `cosign generate-key-pair`"
            ))
        })?;
        Ok(CosignPublicKey { key })
    }

    /// The key as `cosign.pub` holds it (SPKI PEM, LF line ends).
    pub fn to_pem(&self) -> String {
        self.key
            .to_public_key_pem(p256::pkcs8::LineEnding::LF)
            .expect("a P-256 public key always encodes")
    }

    /// The key's id for messages and `[[trust.keys]]`: the first 8 bytes of SHA-256 of the
    /// SPKI DER, as 16 uppercase hex digits (the shape of minisign's ids).
    pub fn key_id(&self) -> String {
        let der = self
            .key
            .to_public_key_der()
            .expect("a P-256 public key always encodes");
        Sha256::digest(der.as_bytes())[..8]
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect()
    }
}

impl CosignPublicKey {
    /// The ECDSA verifier (signatures are checked in `signature`).
    pub(super) fn verifying_key(&self) -> VerifyingKey {
        VerifyingKey::from(&self.key)
    }
}

impl fmt::Display for CosignPublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cosign key {}", self.key_id())
    }
}

/// A cosign private key (ECDSA P-256). Its `Debug` shows the public key's id only.
#[derive(Clone)]
pub struct CosignPrivateKey {
    key: p256::SecretKey,
}

impl CosignPrivateKey {
    /// A new key from the OS's random source.
    pub fn generate() -> CosignPrivateKey {
        CosignPrivateKey {
            key: p256::SecretKey::random(&mut OsRng),
        }
    }

    /// Reads cosign's `ENCRYPTED SIGSTORE PRIVATE KEY` (and the older
    /// `ENCRYPTED COSIGN PRIVATE KEY`): JSON `{kdf: scrypt N/r/p + salt, cipher:
    /// nacl/secretbox + nonce, ciphertext}` around PKCS#8 DER; also plain `PRIVATE KEY`
    /// (PKCS#8) and `EC PRIVATE KEY` (SEC1) PEMs, for which `password` is not used.
    pub fn from_pem(text: &str, password: &[u8]) -> Result<CosignPrivateKey, CosignError> {
        let (label, der) = pem_block(text)?;
        let key = match label.as_str() {
            COSIGN_PRIVATE_LABEL | SIGSTORE_PRIVATE_LABEL => {
                let plain = decrypt(&der, password)?;
                // cosign writes PKCS#8; some early keys hold SEC1 inside (cosign's own test
                // data has one), which costs nothing to accept.
                match p256::SecretKey::from_pkcs8_der(&plain) {
                    Ok(key) => key,
                    Err(e) => p256::SecretKey::from_sec1_der(&plain).map_err(|_| not_p256(e))?,
                }
            }
            "PRIVATE KEY" => p256::SecretKey::from_pkcs8_der(&der).map_err(not_p256)?,
            "EC PRIVATE KEY" => p256::SecretKey::from_sec1_der(&der).map_err(not_p256)?,
            "PUBLIC KEY" => {
                return Err(CosignError::InvalidKey(
                    "it is a public key; signing needs the private key (cosign.key)".into(),
                ));
            }
            other => {
                return Err(CosignError::InvalidKey(format!(
                    "its PEM block is `{other}`; hookhost reads `{SIGSTORE_PRIVATE_LABEL}`, \
                     `{COSIGN_PRIVATE_LABEL}`, `PRIVATE KEY` and `EC PRIVATE KEY`"
                )));
            }
        };
        Ok(CosignPrivateKey { key })
    }

    /// The key encrypted with `password`, as `cosign generate-key-pair` writes `cosign.key`
    /// (scrypt N=32768 r=8 p=1, nacl/secretbox, PKCS#8 inside), under the label every cosign
    /// and skopeo reads (`ENCRYPTED COSIGN PRIVATE KEY`).
    pub fn to_encrypted_pem(&self, password: &[u8]) -> String {
        let der = self
            .key
            .to_pkcs8_der()
            .expect("a P-256 secret key always encodes");
        let mut salt = [0; 32];
        let mut nonce = [0; 24];
        OsRng.fill_bytes(&mut salt);
        OsRng.fill_bytes(&mut nonce);
        let params = scrypt::Params::new(SCRYPT_LOG_N, SCRYPT_R, SCRYPT_P, 32)
            .expect("cosign's scrypt parameters are valid");
        let box_key = derive(password, &salt, &params);
        let ciphertext = XSalsa20Poly1305::new(&box_key.into())
            .encrypt(&nonce.into(), der.as_bytes())
            .expect("secretbox encrypts any length");
        let envelope = Encrypted {
            kdf: Kdf {
                name: "scrypt".into(),
                params: KdfParams {
                    n: 1 << SCRYPT_LOG_N,
                    r: SCRYPT_R,
                    p: SCRYPT_P,
                },
                salt: BASE64.encode(salt),
            },
            cipher: Cipher {
                name: "nacl/secretbox".into(),
                nonce: BASE64.encode(nonce),
            },
            ciphertext: BASE64.encode(ciphertext),
        };
        let json = serde_json::to_vec(&envelope).expect("the envelope serializes");
        pem_encode(COSIGN_PRIVATE_LABEL, &json)
    }

    /// The ECDSA signer (signatures are made in `signature`).
    pub(super) fn signing_key(&self) -> SigningKey {
        SigningKey::from(&self.key)
    }

    /// The matching public key (what goes into `PREFIX.pub`).
    pub fn public_key(&self) -> CosignPublicKey {
        CosignPublicKey {
            key: self.key.public_key(),
        }
    }
}

impl fmt::Debug for CosignPrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CosignPrivateKey")
            .field("key_id", &self.public_key().key_id())
            .finish_non_exhaustive()
    }
}

/// The JSON envelope of secure-systems-lab's `encrypted` format (byte fields are base64, as Go
/// marshals `[]byte`).
#[derive(Serialize, Deserialize)]
struct Encrypted {
    kdf: Kdf,
    cipher: Cipher,
    ciphertext: String,
}

#[derive(Serialize, Deserialize)]
struct Kdf {
    name: String,
    params: KdfParams,
    salt: String,
}

#[derive(Serialize, Deserialize)]
struct KdfParams {
    #[serde(rename = "N")]
    n: u64,
    r: u32,
    p: u32,
}

#[derive(Serialize, Deserialize)]
struct Cipher {
    name: String,
    nonce: String,
}

/// Opens an encrypted private key's envelope; the secretbox's MAC failing means the password
/// is wrong (the format cannot tell it from a corrupted ciphertext).
fn decrypt(envelope: &[u8], password: &[u8]) -> Result<Vec<u8>, CosignError> {
    let invalid = |what: String| {
        CosignError::InvalidKey(format!("its encrypted envelope cannot be read: {what}"))
    };
    let envelope: Encrypted =
        serde_json::from_slice(envelope).map_err(|e| invalid(e.to_string()))?;
    if envelope.kdf.name != "scrypt" || envelope.cipher.name != "nacl/secretbox" {
        return Err(invalid(format!(
            "it uses {} and {}; cosign keys use scrypt and nacl/secretbox",
            envelope.kdf.name, envelope.cipher.name
        )));
    }
    let KdfParams { n, r, p } = envelope.kdf.params;
    let memory = 128u64.saturating_mul(n).saturating_mul(u64::from(r));
    if !n.is_power_of_two() || n < 2 || r == 0 || p == 0 {
        return Err(invalid(format!("scrypt N={n} r={r} p={p} are not valid")));
    }
    if memory > SCRYPT_MAX_MEMORY || p > SCRYPT_MAX_P {
        return Err(invalid(format!(
            "scrypt N={n} r={r} p={p} would take {} MiB or {p} passes; hookhost allows at most \
             {} MiB and {SCRYPT_MAX_P} passes (cosign's keys take 32 MiB, 1 pass)",
            memory >> 20,
            SCRYPT_MAX_MEMORY >> 20
        )));
    }
    let params = scrypt::Params::new(n.trailing_zeros() as u8, r, p, 32)
        .map_err(|e| invalid(format!("scrypt N={n} r={r} p={p}: {e}")))?;
    let field = |name: &str, text: &str| {
        BASE64
            .decode(text)
            .map_err(|e| invalid(format!("its {name} is not base64: {e}")))
    };
    let salt = field("salt", &envelope.kdf.salt)?;
    let nonce: [u8; 24] = field("nonce", &envelope.cipher.nonce)?
        .try_into()
        .map_err(|_| invalid("its nonce is not 24 bytes".into()))?;
    let ciphertext = field("ciphertext", &envelope.ciphertext)?;
    let box_key = derive(password, &salt, &params);
    XSalsa20Poly1305::new(&box_key.into())
        .decrypt(&nonce.into(), ciphertext.as_slice())
        .map_err(|_| CosignError::WrongPassword)
}

fn derive(password: &[u8], salt: &[u8], params: &scrypt::Params) -> [u8; 32] {
    let mut key = [0; 32];
    scrypt::scrypt(password, salt, params, &mut key).expect("32 bytes is a valid scrypt length");
    key
}

fn not_p256(e: impl fmt::Display) -> CosignError {
    CosignError::InvalidKey(format!(
        "it is not an ECDSA P-256 private key ({e}); hookhost signs with cosign's default key \
         type only: generate one with `hookhost keygen --cosign`"
    ))
}

/// The first PEM block of `text`: its label and its bytes. Hand-written rather than strict
/// RFC 7468, because Go's `pem.Decode` (what cosign reads with) skips text around the block
/// and takes any line length, and key files passed between tools rely on that.
fn pem_block(text: &str) -> Result<(String, Vec<u8>), CosignError> {
    let not_pem = || {
        CosignError::InvalidKey(
            "it holds no PEM block (a `-----BEGIN …-----` line); cosign keys are PEM text".into(),
        )
    };
    let start = text.find("-----BEGIN ").ok_or_else(not_pem)?;
    let rest = &text[start + "-----BEGIN ".len()..];
    let (label, body) = rest.split_once("-----").ok_or_else(not_pem)?;
    let end_line = format!("-----END {label}-----");
    let body = body
        .split_once(&end_line)
        .map(|(body, _)| body)
        .ok_or_else(|| {
            CosignError::InvalidKey(format!(
                "its PEM block has no `{end_line}` line (cut short?)"
            ))
        })?;
    let base64: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = BASE64.decode(base64).map_err(|e| {
        CosignError::InvalidKey(format!("its `{label}` PEM block is not base64: {e}"))
    })?;
    Ok((label.to_string(), bytes))
}

/// PEM as Go's `pem.EncodeToMemory` writes it: 64 characters a line.
fn pem_encode(label: &str, bytes: &[u8]) -> String {
    let encoded = BASE64.encode(bytes);
    let mut text = format!("-----BEGIN {label}-----\n");
    for line in encoded.as_bytes().chunks(64) {
        text.push_str(std::str::from_utf8(line).expect("base64 is ASCII"));
        text.push('\n');
    }
    text.push_str(&format!("-----END {label}-----\n"));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!(
            "{}/../../tests/fixtures/cosign/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn keys_round_trip_through_their_files() {
        let key = CosignPrivateKey::generate();
        let pem = key.to_encrypted_pem(b"correct horse");
        assert!(pem.starts_with("-----BEGIN ENCRYPTED COSIGN PRIVATE KEY-----\n"));
        assert!(pem.lines().all(|line| line.len() <= 64));
        let read = CosignPrivateKey::from_pem(&pem, b"correct horse").unwrap();
        assert_eq!(read.public_key(), key.public_key());
        assert_eq!(
            CosignPrivateKey::from_pem(&pem, b"wrong").unwrap_err(),
            CosignError::WrongPassword
        );
        let public = key.public_key();
        assert!(public.to_pem().starts_with("-----BEGIN PUBLIC KEY-----\n"));
        assert_eq!(
            CosignPublicKey::from_pem(&public.to_pem()),
            Ok(public.clone())
        );
        let id = public.key_id();
        assert_eq!(id.len(), 16);
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
        );
        assert_ne!(id, CosignPrivateKey::generate().public_key().key_id());
        assert!(!format!("{key:?}").contains(&format!("{:?}", key.key.to_bytes())));
    }

    #[test]
    fn cosigns_encrypted_keys_open_with_their_password() {
        // Written by cosign for its own tests, password "hello".
        let key = CosignPrivateKey::from_pem(&fixture("sigstore-hello.key"), b"hello").unwrap();
        assert_eq!(
            CosignPrivateKey::from_pem(&fixture("sigstore-hello.key"), b"hell").unwrap_err(),
            CosignError::WrongPassword
        );
        // cosign's test calls this one an RSA key; it holds P-256 (README.md).
        CosignPrivateKey::from_pem(&fixture("cosign-hello.key"), b"hello").unwrap();
        // N = 65536, SEC1 inside.
        CosignPrivateKey::from_pem(&fixture("cosign-sec1-hello.key"), b"hello").unwrap();
        // Plain PEMs need no password.
        CosignPrivateKey::from_pem(&fixture("pkcs8-p256.pem"), b"").unwrap();
        let sec1 = pem_encode("EC PRIVATE KEY", key.key.to_sec1_der().unwrap().as_slice());
        assert_eq!(
            CosignPrivateKey::from_pem(&sec1, b"").unwrap().public_key(),
            key.public_key()
        );
    }

    #[test]
    fn unusable_keys_say_why() {
        let cases = [
            (
                "Ed25519",
                fixture("pkcs8-ed25519.pem"),
                "not an ECDSA P-256 private key",
            ),
            ("not PEM", "hello".to_string(), "holds no PEM block"),
            (
                "public",
                fixture("containers-image.pub"),
                "it is a public key",
            ),
            (
                "cut short",
                "-----BEGIN PRIVATE KEY-----\nAAAA\n".to_string(),
                "no `-----END PRIVATE KEY-----` line",
            ),
            (
                "other label",
                pem_encode("RSA PRIVATE KEY", b"x"),
                "its PEM block is `RSA PRIVATE KEY`",
            ),
        ];
        for (name, text, expected) in cases {
            let error = CosignPrivateKey::from_pem(&text, b"hello")
                .map(|_| name)
                .unwrap_err();
            assert!(
                matches!(&error, CosignError::InvalidKey(m) if m.contains(expected)),
                "{name}: {error}"
            );
        }
        let private = fixture("pkcs8-p256.pem");
        let error = CosignPublicKey::from_pem(&private).unwrap_err();
        assert!(error.to_string().contains("it is a private key"), "{error}");
    }

    #[test]
    fn a_crafted_envelope_cannot_make_scrypt_take_gigabytes() {
        let envelope = r#"{"kdf":{"name":"scrypt","params":{"N":1048576,"r":8,"p":1},"salt":"AA=="},"cipher":{"name":"nacl/secretbox","nonce":"AA=="},"ciphertext":"AA=="}"#;
        let pem = pem_encode(SIGSTORE_PRIVATE_LABEL, envelope.as_bytes());
        let error = CosignPrivateKey::from_pem(&pem, b"x").unwrap_err();
        assert!(error.to_string().contains("would take 1024 MiB"), "{error}");
    }
}
