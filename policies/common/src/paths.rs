//! Where secrets and credentials live: SSH keys, `.env` files, cloud CLIs' credentials, kube
//! configs, registry tokens, private keys and keychains. Shared by `protected-paths` (reads and
//! writes of them) and `destructive`'s exfiltration pack (uploads of them).

/// Home directory spellings a command line or a tool input may use.
const HOME_PREFIXES: &[&str] = &["~/", "$HOME/", "${HOME}/", "\"$HOME\"/"];

/// `path` with the home directory written `~/` (`$HOME/x`, `/home/u/x` when `home` is
/// `/home/u`), `./` and duplicate slashes removed.
pub fn canonical(path: &str, home: Option<&str>) -> String {
    let mut path = path.trim().to_string();
    while path.contains("//") {
        path = path.replace("//", "/");
    }
    for prefix in HOME_PREFIXES {
        if let Some(rest) = path.strip_prefix(prefix) {
            path = format!("~/{rest}");
        }
    }
    if matches!(path.as_str(), "$HOME" | "${HOME}") {
        path = "~".to_string();
    }
    if let Some(home) = home
        .map(|h| h.trim_end_matches('/'))
        .filter(|h| !h.is_empty())
    {
        if path == home {
            path = "~".to_string();
        } else if let Some(rest) = path.strip_prefix(&format!("{home}/")) {
            path = format!("~/{rest}");
        }
    }
    // `/root/...` and `/home/NAME/...` are someone's home too.
    if let Some(rest) = path.strip_prefix("/root/") {
        path = format!("~/{rest}");
    } else if let Some(rest) = path.strip_prefix("/home/")
        && let Some((_, rest)) = rest.split_once('/')
    {
        path = format!("~/{rest}");
    } else if let Some(rest) = path.strip_prefix("/Users/")
        && let Some((_, rest)) = rest.split_once('/')
    {
        path = format!("~/{rest}");
    }
    while let Some(rest) = path.strip_prefix("./") {
        path = rest.to_string();
    }
    path
}

/// What secret `path` holds, when it is one of the well-known places: `"SSH private key"`,
/// `".env file"`, `"AWS credentials"`, ... `home` lets an absolute path into the home directory
/// be recognised.
pub fn secret_kind(path: &str, home: Option<&str>) -> Option<&'static str> {
    let path = canonical(path, home);
    let name = path.rsplit('/').next().unwrap_or(&path);
    let name_lower = name.to_lowercase();
    let in_dir = |dir: &str| {
        path.starts_with(dir) || path.contains(&format!("/{}", dir.trim_start_matches("~/")))
    };
    let home_dir = |dir: &str| path == dir.trim_end_matches('/') || path.starts_with(dir);

    if name.ends_with(".pub") {
        return None;
    }
    if [
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "id_ecdsa_sk",
        "id_ed25519_sk",
    ]
    .iter()
    .any(|key| name.starts_with(key))
    {
        return Some("SSH private key");
    }
    if home_dir("~/.ssh/") {
        return match name {
            "known_hosts" | "known_hosts.old" | "config" | "authorized_keys" => None,
            _ => Some("SSH key directory"),
        };
    }
    if is_dotenv(name) {
        return Some(".env file");
    }
    let credential_files: &[(&str, &str)] = &[
        ("~/.aws/", "AWS credentials"),
        ("~/.config/gcloud/", "Google Cloud credentials"),
        ("~/.azure/", "Azure credentials"),
        ("~/.kube/", "Kubernetes credentials"),
        ("~/.docker/config.json", "Docker registry credentials"),
        ("~/.gnupg/", "GnuPG keyring"),
        ("~/.password-store/", "password store"),
        ("~/.config/gh/hosts.yml", "GitHub CLI token"),
        ("~/.cargo/credentials", "crates.io token"),
        (
            "~/.terraform.d/credentials.tfrc.json",
            "Terraform Cloud token",
        ),
        ("~/.vault-token", "Vault token"),
        ("~/Library/Keychains/", "macOS keychain"),
        ("~/.local/share/keyrings/", "GNOME keyring"),
        ("~/.config/hub", "hub token"),
        ("~/.config/op/", "1Password CLI session"),
        ("~/.pgpass", "PostgreSQL passwords"),
        ("~/.my.cnf", "MySQL credentials"),
        ("~/.git-credentials", "git credentials"),
        ("~/.netrc", "netrc credentials"),
    ];
    for (place, kind) in credential_files {
        if home_dir(place) || (place.ends_with('/') && in_dir(place)) {
            return Some(kind);
        }
    }
    match name_lower.as_str() {
        ".netrc" | "_netrc" => return Some("netrc credentials"),
        ".git-credentials" => return Some("git credentials"),
        ".npmrc" => return Some("npm token file"),
        ".pypirc" => return Some("PyPI token file"),
        ".pgpass" => return Some("PostgreSQL passwords"),
        "credentials.tfrc.json" => return Some("Terraform Cloud token"),
        "shadow" | "gshadow" | "master.passwd" if path.starts_with("/etc/") => {
            return Some("system password hashes");
        }
        _ => {}
    }
    if path.ends_with(".kube/config") {
        return Some("Kubernetes credentials");
    }
    let key_extensions = [
        ".pem",
        ".key",
        ".p12",
        ".pfx",
        ".keystore",
        ".jks",
        ".keychain",
        ".keychain-db",
        ".kdbx",
        ".ppk",
        ".asc.key",
        ".gpg-key",
    ];
    if key_extensions.iter().any(|ext| name_lower.ends_with(ext)) {
        return Some("private key or keystore");
    }
    None
}

/// `.env`, `.env.local`, `.env.production`, `prod.env`; not the committed templates
/// (`.env.example`, `.env.sample`, `.env.template`, `.env.dist`, `.env.defaults`).
pub fn is_dotenv(name: &str) -> bool {
    let lower = name.to_lowercase();
    let template = [
        "example", "sample", "template", "dist", "defaults", "schema",
    ]
    .iter()
    .any(|t| lower.ends_with(&format!(".{t}")) || lower.contains(&format!(".{t}.")));
    if template {
        return false;
    }
    lower == ".env" || lower.starts_with(".env.") || (lower.ends_with(".env") && lower.len() > 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_secrets_are_recognised() {
        let home = Some("/home/dev");
        let secrets = [
            ("~/.ssh/id_rsa", "SSH private key"),
            ("/home/dev/.ssh/id_ed25519", "SSH private key"),
            ("$HOME/.ssh/deploy_key", "SSH key directory"),
            ("deploy/id_rsa", "SSH private key"),
            (".env", ".env file"),
            ("app/.env.production", ".env file"),
            ("~/.aws/credentials", "AWS credentials"),
            ("/root/.aws/config", "AWS credentials"),
            (
                "~/.config/gcloud/application_default_credentials.json",
                "Google Cloud credentials",
            ),
            ("~/.kube/config", "Kubernetes credentials"),
            ("~/.docker/config.json", "Docker registry credentials"),
            ("~/.netrc", "netrc credentials"),
            (".npmrc", "npm token file"),
            ("~/.pypirc", "PyPI token file"),
            ("certs/server.key", "private key or keystore"),
            ("tls.pem", "private key or keystore"),
            ("/etc/shadow", "system password hashes"),
            ("~/Library/Keychains/login.keychain-db", "macOS keychain"),
        ];
        for (path, kind) in secrets {
            assert_eq!(secret_kind(path, home), Some(kind), "{path}");
        }
    }

    #[test]
    fn look_alikes_are_not_secrets() {
        for path in [
            ".env.example",
            ".env.sample",
            "src/env.rs",
            "environment.md",
            "~/.ssh/id_rsa.pub",
            "~/.ssh/known_hosts",
            "README.md",
            "keys.rs",
            "docs/.envrc.md",
            "/etc/passwd",
        ] {
            assert_eq!(secret_kind(path, Some("/home/dev")), None, "{path}");
        }
    }
}
