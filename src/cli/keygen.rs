//! Key pairs from the terminal: `keygen`, minisign's (signing bundle files) or cosign's
//! (`--cosign`: signing bundles in a registry).

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use hookhost::bundle::KeyId;
use hookhost::bundle::cosign::CosignPrivateKey;
use minisign::KeyPair;

use super::input::password_from;

#[derive(clap::Args)]
pub struct KeygenArgs {
    /// Write PREFIX.key (secret) and PREFIX.pub (public)
    #[arg(
        long,
        alias = "output",
        value_name = "PREFIX",
        default_value = "hookhost"
    )]
    out: PathBuf,
    /// Make a cosign key pair (ECDSA P-256, cosign's encrypted key format) for signing bundles
    /// in a registry (`hookhost sign --oci`, `hookhost push --sign`), instead of a minisign one
    #[arg(long)]
    cosign: bool,
    /// Encrypt the secret key with the password in this environment variable
    #[arg(long, value_name = "VAR", conflicts_with = "unencrypted")]
    password_env: Option<String>,
    /// Leave the secret key unencrypted (for CI signing keys kept in a secret store)
    #[arg(long)]
    unencrypted: bool,
}

pub fn run(args: KeygenArgs) -> Result<ExitCode> {
    let secret_path = args.out.with_extension("key");
    let public_path = args.out.with_extension("pub");
    for path in [&secret_path, &public_path] {
        if path.exists() {
            bail!(
                "{} already exists; pick another --out prefix (keys are never overwritten)",
                path.display()
            );
        }
    }
    if args.cosign {
        // cosign keys are always encrypted; "unencrypted" is cosign's empty password.
        let password = match &args.password_env {
            Some(var) => password_from(var)?,
            None if args.unencrypted => String::new(),
            None => bail!(
                "a cosign key needs its password from --password-env VAR (or --unencrypted for \
                 an empty one, as cosign does with COSIGN_PASSWORD=\"\")"
            ),
        };
        let key = CosignPrivateKey::generate();
        write_new(
            &secret_path,
            key.to_encrypted_pem(password.as_bytes()).as_bytes(),
            0o600,
        )?;
        write_new(&public_path, key.public_key().to_pem().as_bytes(), 0o644)?;
        super::cosign::print_new_key(&key.public_key(), &args.out);
        return Ok(ExitCode::SUCCESS);
    }
    let pair = if args.unencrypted {
        KeyPair::generate_unencrypted_keypair()
    } else if let Some(var) = &args.password_env {
        KeyPair::generate_encrypted_keypair(Some(password_from(var)?))
    } else if std::io::stdin().is_terminal() {
        KeyPair::generate_encrypted_keypair(None)
    } else {
        bail!("no terminal to ask for a password: pass --password-env VAR, or --unencrypted");
    }
    .map_err(|e| anyhow::anyhow!("cannot generate a key pair: {e}"))?;
    let secret = pair
        .sk
        .to_box(Some("hookhost secret key"))
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .into_string();
    let public = pair
        .pk
        .to_box()
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .into_string();
    write_new(&secret_path, secret.as_bytes(), 0o600)?;
    write_new(&public_path, public.as_bytes(), 0o644)?;
    let key_id = KeyId::of(&pair.pk).to_string();
    println!("secret key: {} (keep it secret)", secret_path.display());
    println!("public key: {} (key id {key_id})", public_path.display());
    println!(
        "\ntrust it in hooks.toml:\n\n[[trust.keys]]\nid = \"{}\"\nkey = \"{}\"",
        args.out
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("key"),
        pair.pk.to_base64()
    );
    Ok(ExitCode::SUCCESS)
}

fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
