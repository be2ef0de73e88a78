//! cosign keys from the terminal: which kind a key file is, loading a cosign private key with
//! its password, and what `keygen --cosign` prints. The registry side (`sign --oci`,
//! `push --sign`) is in `oci`.

use std::path::Path;

use anyhow::{Context as _, Result, bail};
use hookhost::bundle::cosign::{CosignError, CosignPrivateKey, CosignPublicKey};

use super::input::{password_from, read_file};

/// The largest key file read: cosign's encrypted keys are about 650 bytes.
const KEY_MAX_BYTES: u64 = 64 << 10;

/// True for a PEM key (cosign's, or plain PKCS#8 / SEC1); minisign keys are
/// `untrusted comment:` lines and base64, never PEM.
pub fn is_cosign_key(text: &str) -> bool {
    text.trim_start().starts_with("-----BEGIN ")
}

/// The cosign private key at `path`, opened with the password in `password_env`, else with
/// the empty password (what cosign uses when COSIGN_PASSWORD is empty).
pub fn load_private(path: &Path, password_env: Option<&str>) -> Result<CosignPrivateKey> {
    let text = read_file(path, KEY_MAX_BYTES, "key")?;
    if !is_cosign_key(&text) {
        bail!(
            "{} is not a cosign key (a PEM file like cosign.key): a bundle in a registry is \
             signed with a cosign key (`hookhost keygen --cosign`); a minisign key signs the \
             bundle file before it is pushed (`hookhost sign FILE --key KEY`)",
            path.display()
        );
    }
    let password = match password_env {
        Some(var) => password_from(var)?,
        None => String::new(),
    };
    match CosignPrivateKey::from_pem(&text, password.as_bytes()) {
        Ok(key) => Ok(key),
        Err(CosignError::WrongPassword) if password_env.is_none() => bail!(
            "{} is encrypted: pass its password with --password-env VAR",
            path.display()
        ),
        Err(error) => {
            Err(error).with_context(|| format!("cannot use the cosign key {}", path.display()))
        }
    }
}

/// What `hookhost keygen --cosign` prints once PREFIX.key and PREFIX.pub are written.
pub fn print_new_key(public: &CosignPublicKey, prefix: &Path) {
    let secret_path = prefix.with_extension("key");
    let public_path = prefix.with_extension("pub");
    println!(
        "secret key: {} (cosign format; keep it secret)",
        secret_path.display()
    );
    println!(
        "public key: {} (key id {})",
        public_path.display(),
        public.key_id()
    );
    println!(
        "\ntrust it in hooks.toml:\n\n[[trust.keys]]\nkind = \"cosign\"\nid = \"{}\"\nfile = \"{}\"",
        prefix.file_stem().and_then(|s| s.to_str()).unwrap_or("key"),
        public_path.display()
    );
}
