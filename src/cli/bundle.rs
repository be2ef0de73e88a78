//! Signed bundles from the terminal: `sign` (a file with minisign; `--oci` hands a registry
//! bundle to `oci`), `verify`, `inspect`. Keys are made by `keygen`.
//!
//! Longer than 400 lines: `sign`, `verify` and `inspect` share their argument types and their
//! rendering of a bundle's sections and signatures.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use hookhost::bundle::{self, KeyId, Metadata, TrustStore, TrustedKey};
use minisign::{PublicKey, SecretKey, SecretKeyBox};
use serde_json::json;

use super::input::password_from;
use super::render;

#[derive(clap::Args)]
pub struct SignArgs {
    /// The bundle (.wasm component) to sign; it is updated in place unless --output is given
    #[arg(required_unless_present = "oci")]
    file: Option<PathBuf>,
    /// Sign a bundle in a registry instead (REGISTRY/REPOSITORY:TAG or @sha256:DIGEST): a
    /// cosign signature of its manifest, attached beside it as cosign does; --key is then a
    /// cosign key (`hookhost keygen --cosign`, `cosign generate-key-pair`)
    #[cfg(feature = "oci")]
    #[arg(long, value_name = "REF", conflicts_with_all = [
        "file", "output", "name", "version", "description", "events", "default_config",
        "config_schema", "replace_signatures",
    ])]
    oci: Option<String>,
    /// With --oci: speak plain HTTP to the registry (see `hookhost push --help`)
    #[cfg(feature = "oci")]
    #[arg(long, requires = "oci")]
    plain_http: bool,
    /// The secret key: minisign's for a file, cosign's for --oci
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// The secret key's password, from this environment variable (else: asked on a terminal)
    #[arg(long, value_name = "VAR")]
    password_env: Option<String>,
    /// Write the signed bundle here instead
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Metadata: the policy's name
    #[arg(long)]
    name: Option<String>,
    /// Metadata: its version
    #[arg(long)]
    version: Option<String>,
    /// Metadata: what it does
    #[arg(long)]
    description: Option<String>,
    /// Metadata: the events it implements (for example PreToolUse/guard); repeatable
    #[arg(long = "event", value_name = "EVENT")]
    events: Vec<String>,
    /// Metadata: its default [hooks.config], a TOML or JSON file
    #[arg(long, value_name = "FILE")]
    default_config: Option<PathBuf>,
    /// Metadata: a JSON Schema of its [hooks.config]
    #[arg(long, value_name = "FILE")]
    config_schema: Option<PathBuf>,
    /// Drop the existing signatures (needed when changing the metadata of a signed bundle)
    #[arg(long)]
    replace_signatures: bool,
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The bundle
    file: PathBuf,
    /// A trusted public key: a minisign .pub file or the key itself; `NAME=KEY` names it.
    /// Repeatable
    #[arg(long, value_name = "KEY")]
    trusted: Vec<std::ffi::OsString>,
    /// Also trust the [trust] keys of this hooks.toml
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct InspectArgs {
    /// The bundle
    file: PathBuf,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
    /// Write the signed payload and each signature (as .minisig) into DIR, for the minisign
    /// tool: `minisign -Vm DIR/payload.wasm -x DIR/signature-1.minisig -p KEY.pub`
    #[arg(long, value_name = "DIR")]
    extract: Option<PathBuf>,
}

pub fn sign(args: SignArgs, runtime: &tokio::runtime::Runtime) -> Result<ExitCode> {
    #[cfg(feature = "oci")]
    if let Some(reference) = &args.oci {
        let password_env = args.password_env.as_deref();
        return runtime.block_on(super::oci::sign(
            reference,
            &args.key,
            password_env,
            args.plain_http,
        ));
    }
    let _ = runtime;
    let file = args
        .file
        .as_ref()
        .expect("clap requires FILE without --oci");
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    bundle::sections::sections(&bytes)
        .with_context(|| format!("{} cannot be signed", file.display()))?;
    let secret = load_secret_key(&args.key, args.password_env.as_deref())?;
    let existing = bundle::signatures(&bytes)
        .with_context(|| format!("{} has unreadable signatures", file.display()))?;

    let current =
        bundle::read_metadata(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let wanted = metadata_from(&args, current.clone())?;
    let mut bytes = bytes;
    if wanted != current {
        if !existing.is_empty() && !args.replace_signatures {
            bail!(
                "changing the metadata would invalidate the {} existing signature{} of {}; pass --replace-signatures to drop them and sign afresh",
                existing.len(),
                if existing.len() == 1 { "" } else { "s" },
                file.display()
            );
        }
        if let Some(metadata) = &wanted {
            bytes = bundle::with_metadata(&bytes, metadata)?;
        }
    }
    if args.replace_signatures {
        bytes = bundle::payload(&bytes)?;
    }
    let id = KeyId::of(&PublicKey::from_secret_key(&secret).map_err(|e| anyhow::anyhow!("{e}"))?);
    let comment = match &wanted {
        Some(m) => format!("hookhost bundle {} {} signed {}", m.name, m.version, now()),
        None => format!("hookhost bundle signed {}", now()),
    };
    let signed =
        bundle::sign(&bytes, &secret, &comment).map_err(|e| anyhow::anyhow!("cannot sign: {e}"))?;
    let output = args.output.clone().unwrap_or_else(|| file.clone());
    hookhost::oci::blobs::write_file_atomically(&output, &signed)
        .with_context(|| format!("cannot write {}", output.display()))?;
    let count = bundle::signatures(&signed)?.len();
    println!(
        "signed {} with key {id}; it carries {count} signature{}",
        output.display(),
        if count == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}

pub fn verify(args: VerifyArgs) -> Result<ExitCode> {
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let mut trust = TrustStore {
        keys: Vec::new(),
        require_signed: true,
    };
    for (i, spec) in args.trusted.iter().enumerate() {
        trust.keys.push(parse_trusted(spec, i)?);
    }
    if let Some(path) = &args.config {
        trust
            .keys
            .extend(trust_keys(&hookhost::Config::load(path)?)?);
    }
    if trust.keys.is_empty() {
        bail!(
            "no trusted keys: pass --trusted KEY (a .pub file or a minisign public key), or --config hooks.toml"
        );
    }
    let signatures =
        bundle::signatures(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    for info in &signatures {
        let known = trust.keys.iter().find(|k| k.key_id() == info.key_id);
        let who = match known {
            Some(key) if key.revoked => format!("{} (REVOKED)", key.name),
            Some(key) => key.name.clone(),
            None => "unknown key".to_string(),
        };
        println!(
            "signature by {} — {who}: {}",
            info.key_id, info.trusted_comment
        );
    }
    match bundle::verify(&bytes, &trust) {
        Ok(verified) => {
            println!(
                "{}: OK, signed by {}",
                args.file.display(),
                verified.signers.join(", ")
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            eprintln!("{} {error}", args.file.display());
            Ok(ExitCode::from(super::EXIT_ERROR))
        }
    }
}

pub fn inspect(args: InspectArgs) -> Result<ExitCode> {
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let sha256 = {
        use sha2::Digest as _;
        sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let kind = match bytes.get(4..8) {
        Some([0x0d, 0x00, 0x01, 0x00]) => "component",
        Some([0x01, 0x00, 0x00, 0x00]) => "core module (not a hook: hooks are components)",
        _ => "not WebAssembly",
    };
    let metadata = bundle::read_metadata(&bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let signatures =
        bundle::signatures(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let (imports, exports) = interface(&bytes);
    if let Some(dir) = &args.extract {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        std::fs::write(dir.join("payload.wasm"), bundle::payload(&bytes)?)?;
        for (i, info) in signatures.iter().enumerate() {
            std::fs::write(
                dir.join(format!("signature-{}.minisig", i + 1)),
                &info.minisig,
            )?;
        }
    }
    if args.json {
        let sigs: Vec<_> = signatures
            .iter()
            .map(|s| json!({"key_id": s.key_id.to_string(), "trusted_comment": s.trusted_comment}))
            .collect();
        let out = json!({
            "file": args.file, "size": bytes.len(), "sha256": sha256, "kind": kind,
            "metadata": metadata, "signatures": sigs, "imports": imports, "exports": exports,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut rows = vec![
        vec!["file".to_string(), args.file.display().to_string()],
        vec!["size".to_string(), format!("{} bytes", bytes.len())],
        vec!["sha256".to_string(), sha256],
        vec!["kind".to_string(), kind.to_string()],
    ];
    match &metadata {
        None => rows.push(vec![
            "metadata".into(),
            "none (add it with hookhost sign --name --version ...)".into(),
        ]),
        Some(m) => {
            rows.push(vec!["name".into(), m.name.clone()]);
            rows.push(vec!["version".into(), m.version.clone()]);
            if !m.description.is_empty() {
                rows.push(vec!["description".into(), m.description.clone()]);
            }
            rows.push(vec![
                "events".into(),
                if m.events.is_empty() {
                    "(not declared)".into()
                } else {
                    m.events.join(", ")
                },
            ]);
            if let Some(config) = &m.default_config {
                rows.push(vec!["default config".into(), config.to_string()]);
            }
            if let Some(schema) = &m.config_schema {
                rows.push(vec!["config schema".into(), schema.to_string()]);
            }
        }
    }
    rows.push(vec!["exports".into(), exports.join(", ")]);
    rows.push(vec!["imports".into(), imports.join(", ")]);
    if signatures.is_empty() {
        rows.push(vec!["signatures".into(), "none".into()]);
    }
    for (i, s) in signatures.iter().enumerate() {
        rows.push(vec![
            format!("signature {}", i + 1),
            format!("key {} — {}", s.key_id, s.trusted_comment),
        ]);
    }
    let table = render::table(&["", ""], &rows);
    // Skip the empty header line.
    for line in table.lines().skip(1) {
        println!("{line}");
    }
    if let Some(dir) = &args.extract {
        println!(
            "\nwrote {}/payload.wasm and {} .minisig file(s)",
            dir.display(),
            signatures.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Component-level import and export names, read without compiling anything.
fn interface(bytes: &[u8]) -> (Vec<String>, Vec<String>) {
    let (mut imports, mut exports) = (Vec::new(), Vec::new());
    let mut depth = 0usize;
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        let Ok(payload) = payload else { break };
        match payload {
            wasmparser::Payload::ModuleSection { .. }
            | wasmparser::Payload::ComponentSection { .. } => depth += 1,
            wasmparser::Payload::End(_) => depth = depth.saturating_sub(1),
            wasmparser::Payload::ComponentImportSection(reader) if depth == 0 => {
                imports.extend(
                    reader
                        .into_iter()
                        .flatten()
                        .map(|i| i.name.name.to_string()),
                );
            }
            wasmparser::Payload::ComponentExportSection(reader) if depth == 0 => {
                exports.extend(
                    reader
                        .into_iter()
                        .flatten()
                        .map(|e| e.name.name.to_string()),
                );
            }
            _ => {}
        }
    }
    (imports, exports)
}

fn metadata_from(args: &SignArgs, current: Option<Metadata>) -> Result<Option<Metadata>> {
    let any = args.name.is_some()
        || args.version.is_some()
        || args.description.is_some()
        || !args.events.is_empty()
        || args.default_config.is_some()
        || args.config_schema.is_some();
    if !any {
        return Ok(current);
    }
    let mut metadata = current.unwrap_or_default();
    if let Some(name) = &args.name {
        metadata.name = name.clone();
    }
    if let Some(version) = &args.version {
        metadata.version = version.clone();
    }
    if let Some(description) = &args.description {
        metadata.description = description.clone();
    }
    if !args.events.is_empty() {
        metadata.events = args.events.clone();
    }
    if let Some(path) = &args.default_config {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let value = match serde_json::from_str(&text) {
            Ok(json) => json,
            Err(_) => hookhost::config::toml_to_json(&text)
                .map_err(|e| anyhow::anyhow!("{} is neither JSON nor TOML: {e}", path.display()))?,
        };
        metadata.default_config = Some(value);
    }
    if let Some(path) = &args.config_schema {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        metadata.config_schema = Some(
            serde_json::from_str(&text)
                .with_context(|| format!("{} is not JSON", path.display()))?,
        );
    }
    if metadata.name.is_empty() || metadata.version.is_empty() {
        bail!("a bundle's metadata needs both --name and --version");
    }
    Ok(Some(metadata))
}

fn load_secret_key(path: &Path, password_env: Option<&str>) -> Result<SecretKey> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the secret key {}", path.display()))?;
    if super::cosign::is_cosign_key(&text) {
        bail!(
            "{} is a cosign key: cosign keys sign bundles in a registry (`hookhost sign --oci REF \
             --key KEY`, `hookhost push FILE REF --sign KEY`); a bundle file is signed with a \
             minisign key (`hookhost keygen`)",
            path.display()
        );
    }
    let boxed = || SecretKeyBox::from_string(&text);
    let key = match password_env {
        Some(var) => SecretKey::from_box(
            boxed().map_err(|e| anyhow::anyhow!("{e}"))?,
            Some(password_from(var)?),
        ),
        None => match SecretKey::from_unencrypted_box(boxed().map_err(|e| anyhow::anyhow!("{e}"))?)
        {
            Ok(key) => Ok(key),
            Err(_) if std::io::stdin().is_terminal() => {
                SecretKey::from_box(boxed().map_err(|e| anyhow::anyhow!("{e}"))?, None)
            }
            Err(_) => bail!(
                "{} is encrypted and there is no terminal to ask for its password: pass --password-env VAR",
                path.display()
            ),
        },
    };
    key.map_err(|e| anyhow::anyhow!("cannot use the secret key {}: {e}", path.display()))
}

/// `--trusted`: a .pub file (any path), the key itself, or `NAME=KEY`.
fn parse_trusted(spec: &std::ffi::OsStr, index: usize) -> Result<TrustedKey> {
    use std::os::unix::ffi::OsStrExt as _;
    let bytes = spec.as_bytes();
    let named = bytes
        .iter()
        .position(|&b| b == b'=')
        .filter(|&at| at > 0 && at + 1 < bytes.len() && !Path::new(spec).exists())
        .and_then(|at| {
            let name = std::str::from_utf8(&bytes[..at]).ok()?;
            Some((
                name.to_string(),
                std::ffi::OsStr::from_bytes(&bytes[at + 1..]),
            ))
        });
    let (name, key) = match named {
        Some(named) => named,
        None => match Path::new(spec).file_stem() {
            Some(stem) if Path::new(spec).is_file() => (stem.to_string_lossy().into_owned(), spec),
            _ => (format!("key {}", index + 1), spec),
        },
    };
    let shown = key.to_string_lossy();
    let public = if Path::new(key).is_file() {
        PublicKey::from_file(Path::new(key))
            .map_err(|e| anyhow::anyhow!("{shown} is not a minisign public key file: {e}"))?
    } else {
        let text = key.to_str().ok_or_else(|| {
            anyhow::anyhow!("{shown} is neither a .pub file nor a minisign public key (not UTF-8)")
        })?;
        PublicKey::from_base64(text).map_err(|e| {
            anyhow::anyhow!("{shown} is neither a .pub file nor a minisign public key: {e}")
        })?
    };
    Ok(TrustedKey {
        name,
        key: public,
        revoked: false,
    })
}

fn trust_keys(config: &hookhost::Config) -> Result<Vec<TrustedKey>> {
    config
        .trust
        .keys
        .iter()
        .map(|key| TrustedKey::load(key, config.base_dir()).map_err(anyhow::Error::msg))
        .collect()
}

fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
