//! Registries from the terminal: `push`, `pull`, `lock`, and `sign --oci` (cosign signatures
//! attached beside a bundle, as cosign does).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use hookhost::bundle::cosign::{self, CosignError, CosignPrivateKey};
use hookhost::oci::registry::{self, LockStatus, RegistryClient};
use hookhost::oci::{BlobStore, Digest, LockFile, OciReference};

use super::ConfigArgs;
use super::cosign::is_cosign_key;
use super::input::{password_from, read_file};

/// The largest key file read: cosign's encrypted keys are about 650 bytes.
const KEY_MAX_BYTES: u64 = 64 << 10;

/// How to reach registries; shared by the three commands.
#[derive(clap::Args)]
pub(super) struct NetworkArgs {
    /// Speak plain HTTP, without TLS, to every registry: bundles and credentials travel
    /// unencrypted. Only for a registry on a network you trust; registries on this machine
    /// (localhost, 127.0.0.1, [::1]) get plain HTTP without this flag
    #[arg(long)]
    pub(super) plain_http: bool,
}

#[derive(clap::Args)]
pub struct PushArgs {
    /// The bundle to publish: a .wasm component, signed or not
    pub(super) file: PathBuf,
    /// Where: REGISTRY/REPOSITORY:TAG, with or without oci://
    pub(super) reference: String,
    /// An annotation for the manifest, KEY=VALUE; repeatable. The bundle's metadata already
    /// sets org.opencontainers.image.title, .version and .description
    #[arg(long = "annotation", short = 'a', value_name = "KEY=VALUE")]
    pub(super) annotations: Vec<String>,
    /// Sign the pushed manifest with this cosign key (as `hookhost sign --oci` would)
    #[arg(long, value_name = "KEY")]
    pub(super) sign: Option<PathBuf>,
    /// The --sign key's password, from this environment variable
    #[arg(long, value_name = "VAR", requires = "sign")]
    pub(super) password_env: Option<String>,
    #[command(flatten)]
    pub(super) network: NetworkArgs,
}

#[derive(clap::Args)]
pub struct PullArgs {
    /// What: REGISTRY/REPOSITORY:TAG or REGISTRY/REPOSITORY@sha256:DIGEST, with or without oci://
    reference: String,
    /// Also write the bundle to this file (for `hookhost inspect` or `verify`)
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    network: NetworkArgs,
}

#[derive(clap::Args)]
pub struct LockArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Resolve every reference again, moving entries whose tag now points elsewhere (without
    /// it, entries that still match hooks.toml are kept as they are)
    #[arg(long)]
    update: bool,
    #[command(flatten)]
    network: NetworkArgs,
}

/// The cosign private key at `path`, opened with the password in `password_env`, else with
/// the empty password (what cosign uses when COSIGN_PASSWORD is empty).
fn load_private(path: &Path, password_env: Option<&str>) -> Result<CosignPrivateKey> {
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

fn parse_reference(text: &str) -> Result<OciReference> {
    Ok(OciReference::parse(text)?)
}

fn open_store() -> Result<BlobStore> {
    Ok(BlobStore::open_default()?)
}

pub async fn push(args: PushArgs) -> Result<ExitCode> {
    let reference = parse_reference(&args.reference)?;
    // Before anything is pushed: a wrong password must not leave an unsigned bundle behind.
    let key = match &args.sign {
        Some(path) => Some(load_private(path, args.password_env.as_deref())?),
        None => None,
    };
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let file_name = args
        .file
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bundle.wasm".to_string());
    let mut annotations = BTreeMap::new();
    annotations.insert(
        registry::annotations::CREATED.to_string(),
        humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
    );
    let metadata = hookhost::bundle::read_metadata(&bytes).ok().flatten();
    let title = metadata
        .as_ref()
        .map(|m| m.name.clone())
        .unwrap_or_else(|| file_name.trim_end_matches(".wasm").to_string());
    annotations.insert(registry::annotations::TITLE.to_string(), title);
    if let Some(metadata) = &metadata {
        annotations.insert(
            registry::annotations::VERSION.to_string(),
            metadata.version.clone(),
        );
        if !metadata.description.is_empty() {
            annotations.insert(
                registry::annotations::DESCRIPTION.to_string(),
                metadata.description.clone(),
            );
        }
    }
    for annotation in &args.annotations {
        let Some((key, value)) = annotation
            .split_once('=')
            .filter(|(key, _)| !key.is_empty())
        else {
            bail!("--annotation `{annotation}` must be KEY=VALUE");
        };
        annotations.insert(key.to_string(), value.to_string());
    }

    let client = RegistryClient::new(args.network.plain_http);
    let pushed = client
        .push(&bytes, &file_name, &reference, annotations)
        .await?;
    println!(
        "pushed {} ({} bytes) to {reference}",
        args.file.display(),
        pushed.size
    );
    println!("manifest: {}", pushed.manifest);
    println!("wasm:     {}", pushed.wasm);
    if let Some(key) = &key {
        attach(&client, &reference, &pushed.manifest, key).await?;
    }
    println!(
        "use it in hooks.toml with wasm = \"{reference}\", then run `hookhost lock` to pin it"
    );
    Ok(ExitCode::SUCCESS)
}

/// `hookhost sign --oci REF --key KEY`: a cosign signature of REF's manifest, attached
/// beside it.
pub async fn sign(
    reference: &str,
    key: &Path,
    password_env: Option<&str>,
    plain_http: bool,
) -> Result<ExitCode> {
    let reference = parse_reference(reference)?;
    let key = load_private(key, password_env)?;
    let client = RegistryClient::new(plain_http);
    let resolved = client.resolve(&reference).await?;
    attach(&client, &reference, &resolved.manifest, &key).await?;
    Ok(ExitCode::SUCCESS)
}

/// Signs `manifest` in `reference`'s repository and attaches the signature. The payload names
/// the repository without tag or digest, as cosign writes it.
async fn attach(
    client: &RegistryClient,
    reference: &OciReference,
    manifest: &Digest,
    key: &CosignPrivateKey,
) -> Result<()> {
    let repository = format!("{}/{}", reference.registry(), reference.repository());
    let signature = cosign::sign(key, &repository, manifest);
    client
        .attach_signature(reference, manifest, &signature)
        .await
        .with_context(|| format!("cannot attach the cosign signature to {reference}"))?;
    println!(
        "signed:   {manifest} with cosign key {} (tag {})",
        key.public_key().key_id(),
        registry::signature_tag(manifest)
    );
    Ok(())
}

pub async fn pull(args: PullArgs) -> Result<ExitCode> {
    let reference = parse_reference(&args.reference)?;
    let store = open_store()?;
    let client = RegistryClient::new(args.network.plain_http);
    let (resolved, fetched) = client.pull(&reference, &store).await?;
    println!("pulled {reference}");
    println!("manifest: {}", resolved.manifest);
    println!(
        "wasm:     {} ({} bytes, {})",
        resolved.wasm,
        resolved.size,
        if fetched.downloaded {
            "downloaded"
        } else {
            "already in the store"
        }
    );
    println!("stored:   {}", fetched.path.display());
    if let Some(output) = &args.output {
        let bytes = std::fs::read(&fetched.path)
            .with_context(|| format!("cannot read {}", fetched.path.display()))?;
        hookhost::oci::blobs::write_file_atomically(output, &bytes)
            .with_context(|| format!("cannot write {}", output.display()))?;
        println!("wrote {}", output.display());
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn lock(args: LockArgs) -> Result<ExitCode> {
    let config_path = args.config.config_path()?;
    let config = hookhost::Config::load(&config_path)?;
    let references = hookhost::oci::config_references(&config);
    let lock_path = LockFile::path_in(config.base_dir());
    let store = open_store()?;
    let client = RegistryClient::new(args.network.plain_http);
    // The same `[trust]` a load checks with: the file's own under the user's.
    let policy = hookhost::Layers::for_project(Some(config_path.clone())).trust_policy(&config)?;
    let update = registry::update_lock_with(
        &references,
        &lock_path,
        &client,
        &store,
        args.update,
        &policy,
    )
    .await?;
    if let Some(invalid) = &update.replaced_invalid {
        println!("replacing an unreadable lock: {invalid}");
    }
    let width = update
        .references
        .iter()
        .map(|r| r.bundle.reference.len())
        .max()
        .unwrap_or(0);
    for locked in &update.references {
        let status = match &locked.status {
            LockStatus::Kept => "kept".to_string(),
            LockStatus::Added => "added".to_string(),
            LockStatus::Updated { previous } if previous.reference == locked.bundle.reference => {
                format!("updated from {}", previous.manifest)
            }
            LockStatus::Updated { previous } => format!("replaces {}", previous.reference),
        };
        let fetched = if locked.downloaded {
            format!(", downloaded {} bytes", locked.bundle.size)
        } else {
            String::new()
        };
        let signed = match (
            locked.bundle.signatures.len() + locked.bundle.sigstore_bundles.len(),
            locked.bundle.signers.as_slice(),
        ) {
            (0, _) => String::new(),
            (n, []) => format!(", {n} signature{} (no trusted signer)", plural(n)),
            (n, signers) => format!(
                ", {n} signature{}, signed by {}",
                plural(n),
                signers.join(", ")
            ),
        };
        println!(
            "{:width$}  wasm {}  {status}{fetched}{signed}",
            locked.bundle.reference, locked.bundle.wasm
        );
    }
    match (update.references.len(), update.written) {
        (0, false) => println!(
            "{} has no oci:// references; nothing to lock",
            config_path.display()
        ),
        (n, true) => println!(
            "wrote {} ({n} bundle{})",
            lock_path.display(),
            if n == 1 { "" } else { "s" }
        ),
        (_, false) => println!("{} is up to date", lock_path.display()),
    }
    Ok(ExitCode::SUCCESS)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
