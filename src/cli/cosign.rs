//! cosign keys from the terminal: which kind a key file is, and what `keygen --cosign` prints.
//! Loading a private key and signing in a registry (`sign --oci`, `push --sign`) is in `oci`.

use std::path::Path;

use hookhost::bundle::cosign::CosignPublicKey;

/// True for a PEM key (cosign's, or plain PKCS#8 / SEC1); minisign keys are
/// `untrusted comment:` lines and base64, never PEM.
pub fn is_cosign_key(text: &str) -> bool {
    text.trim_start().starts_with("-----BEGIN ")
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
