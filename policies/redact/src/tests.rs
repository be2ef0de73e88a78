//! Each format found and masked, and the look-alikes left alone.

use crate::{find, redact};

fn kinds(text: &str) -> Vec<&'static str> {
    find(text).into_iter().map(|f| f.kind).collect()
}

// Test secrets are built at run time, so that no scanner flags this file.
fn fake(prefix: &str, body: &str) -> String {
    format!("{prefix}{body}")
}

#[test]
fn every_format_is_found() {
    let cases = [
        (fake("AKIA", "IOSFODNN7EXAMPLQ"), "AWS access key"),
        (
            fake("ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
            "GitHub token",
        ),
        (
            fake(
                "github_pat_",
                "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF0123456789abcdefghij",
            ),
            "GitHub token",
        ),
        (
            fake(
                "xoxb-",
                "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
            ),
            "Slack token",
        ),
        (
            fake("sk_live_", "51H8aBcDeFgHiJkLmNoPqRsTu"),
            "Stripe secret key",
        ),
        (
            fake("AIza", "SyA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tU_v"),
            "Google API key",
        ),
        (
            fake(
                "sk-ant-",
                "api03-AbCdEf0123456789AbCdEf0123456789AbCdEf0123456789",
            ),
            "Anthropic key",
        ),
        (
            fake("sk-proj-", "AbCdEf0123456789AbCdEf0123456789AbCdEf01"),
            "OpenAI key",
        ),
        (
            fake(
                "eyJ",
                "hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            ),
            "JWT",
        ),
        (
            fake(
                "-----BEGIN RSA ",
                "PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
            ),
            "private key",
        ),
        (
            fake("https://deploy:", "s3cr3tP4ss@github.com/org/repo.git"),
            "password in a URL",
        ),
        (fake("DB_PASSWORD=", "Xk9#mP2$qL7v"), "secret assignment"),
        (
            fake("{\"api_key\": \"", "9f8e7d6c5b4aZYXW\"}"),
            "secret assignment",
        ),
        (fake("token: ", "Zq8Rt5Lm2Np7Kx4W"), "secret assignment"),
        (
            fake("blob ", "Zq8Rt5Lm2Np7Kx4WvB9cD3eF6gH1jK0L"),
            "high-entropy string",
        ),
    ];
    for (text, kind) in cases {
        assert_eq!(kinds(&text), [kind], "{text}");
    }
}

#[test]
fn look_alikes_are_left_alone() {
    for text in [
        "git checkout 3f2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "password=${DB_PASSWORD}",
        "password: <your password here>",
        "token = process.env.GITHUB_TOKEN",
        "let token = std::env::var(\"GITHUB_TOKEN\")?;",
        "password = os.getenv('DB_PASSWORD')",
        "api_key = \"changeme\"",
        "export TOKEN_FILE=/run/secrets/token",
        "cargo test --workspace --all-features",
        "src/components/navigation/SidebarMenuItem.tsx",
        "pip install scikit-learn==1.5.0",
        "ghp_short",
        "the password is stored in the vault",
        "AKIAshort",
        "550e8400-e29b-41d4-a716-446655440000",
    ] {
        assert_eq!(kinds(text), Vec::<&str>::new(), "{text}");
    }
}

#[test]
fn redaction_never_keeps_the_secret() {
    let token = fake("ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789");
    let password = "Xk9#mP2$qL7v";
    let text = format!("curl -H 'Authorization: token {token}' -d password={password} https://api");
    let (clean, findings) = redact(&text);
    assert!(
        !clean.contains(&token) && !clean.contains(password),
        "{clean}"
    );
    assert_eq!(
        clean,
        "curl -H 'Authorization: token [REDACTED GitHub token ghp_…(40 chars)]' -d password=[REDACTED secret assignment …(12 chars)] https://api"
    );
    assert_eq!(findings.len(), 2);
    for finding in &findings {
        assert!(
            !finding.describe().contains(&token[4..]) && !finding.describe().contains(password)
        );
    }
    let (same, none) = redact("nothing to see");
    assert_eq!((same.as_str(), none.len()), ("nothing to see", 0));
}

#[test]
fn ranges_are_char_boundaries_in_any_text() {
    let text = format!(
        "é🙂 ключ token={} ✓ {}",
        "Zq8Rt5Lm2Np7Kx4WvB9c",
        fake("AKIA", "IOSFODNN7EXAMPLQ")
    );
    let (clean, findings) = redact(&text);
    assert_eq!(findings.len(), 2, "{clean}");
    assert!(clean.starts_with("é🙂"));
}
