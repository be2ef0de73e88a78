//! Registry credentials, from where the user already keeps them, in this order:
//!
//! 1. `$HOOKHOST_REGISTRY_USERNAME` and `$HOOKHOST_REGISTRY_PASSWORD` (both; for CI);
//! 2. podman's and skopeo's auth files: `$REGISTRY_AUTH_FILE`,
//!    `$XDG_RUNTIME_DIR/containers/auth.json`, `$XDG_CONFIG_HOME/containers/auth.json` (default
//!    `~/.config/containers/auth.json`);
//! 3. docker's `$DOCKER_CONFIG/config.json` (default `~/.docker/config.json`).
//!
//! In the files, an `auths` entry (base64 `user:password`, as `docker login` writes it), a
//! `credHelpers` entry or a `credsStore` (a `docker-credential-*` program) count. With none of
//! these the request is anonymous, which public registries accept for pulls.

use std::path::{Path, PathBuf};

use docker_credential::{CredentialRetrievalError, DockerCredential};
use oci_client::secrets::RegistryAuth;

use super::error::RegistryError;
use super::{PASSWORD_ENV, USERNAME_ENV};

/// Credentials for one registry, and where they came from (for messages; never the secret).
#[derive(Debug, Clone)]
pub(super) struct Credentials {
    pub(super) auth: RegistryAuth,
    /// "with credentials from …" or "without credentials".
    pub(super) origin: String,
}

/// The credentials for `registry` (`host[:port]`).
pub(super) fn credentials_for(registry: &str) -> Result<Credentials, RegistryError> {
    let fail = |reason: String| RegistryError::Credentials {
        registry: registry.to_string(),
        reason,
    };
    let var = |name| std::env::var(name).ok().filter(|value| !value.is_empty());
    match (var(USERNAME_ENV), var(PASSWORD_ENV)) {
        (Some(user), Some(password)) => {
            return Ok(Credentials {
                auth: RegistryAuth::Basic(user, password),
                origin: format!("with credentials from ${USERNAME_ENV}"),
            });
        }
        (Some(_), None) | (None, Some(_)) => {
            return Err(fail(format!(
                "set both {USERNAME_ENV} and {PASSWORD_ENV}, or neither"
            )));
        }
        (None, None) => {}
    }
    // Docker Hub's credentials are filed under its index's name.
    let server = match registry {
        "docker.io" | "registry-1.docker.io" => "index.docker.io",
        other => other,
    };
    for file in credential_files() {
        let Ok(reader) = std::fs::File::open(&file) else {
            continue;
        };
        let shown = file.display();
        match docker_credential::get_credential_from_reader(std::io::BufReader::new(reader), server)
        {
            Ok(DockerCredential::UsernamePassword(user, password)) => {
                return Ok(Credentials {
                    auth: RegistryAuth::Basic(user, password),
                    origin: format!("with credentials from {shown}"),
                });
            }
            Ok(DockerCredential::IdentityToken(_)) => {
                return Err(fail(format!(
                    "{shown} holds an identity token for it, which hookhost cannot use; log in \
                     with a user name and a password or access token instead, or set \
                     {USERNAME_ENV} and {PASSWORD_ENV}"
                )));
            }
            Err(CredentialRetrievalError::NoCredentialConfigured) => {}
            // A helper with nothing stored for this registry is no credential, as for docker.
            Err(CredentialRetrievalError::HelperFailure { stdout, stderr, .. })
                if (stdout.clone() + &stderr).contains("credentials not found") => {}
            Err(CredentialRetrievalError::ConfigReadError) => {
                return Err(fail(format!(
                    "{shown} is not a valid credentials file (JSON)"
                )));
            }
            Err(other) => return Err(fail(format!("{shown}: {other}"))),
        }
    }
    Ok(Credentials {
        auth: RegistryAuth::Anonymous,
        origin: "without credentials".to_string(),
    })
}

/// The credential files to look in, in order.
fn credential_files() -> Vec<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|value| !value.is_empty());
    let home = var("HOME").map(PathBuf::from);
    let mut files = Vec::new();
    if let Some(file) = var("REGISTRY_AUTH_FILE") {
        files.push(PathBuf::from(file));
    }
    if let Some(dir) = var("XDG_RUNTIME_DIR") {
        files.push(Path::new(&dir).join("containers/auth.json"));
    }
    match (var("XDG_CONFIG_HOME"), &home) {
        (Some(dir), _) => files.push(Path::new(&dir).join("containers/auth.json")),
        (None, Some(home)) => files.push(home.join(".config/containers/auth.json")),
        (None, None) => {}
    }
    match (var("DOCKER_CONFIG"), &home) {
        (Some(dir), _) => files.push(Path::new(&dir).join("config.json")),
        (None, Some(home)) => files.push(home.join(".docker/config.json")),
        (None, None) => {}
    }
    files
}
