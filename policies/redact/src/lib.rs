//! Finds secrets in text and redacts them, with no dependency (no regex engine: a scan per
//! format), so that it runs inside a wasm policy and natively in hookhost's decision log alike.
//!
//! ```
//! let (clean, findings) = hookhost_redact::redact("export GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789");
//! assert_eq!(clean, "export GITHUB_TOKEN=[REDACTED GitHub token ghp_…(40 chars)]");
//! assert_eq!(findings[0].kind, "GitHub token");
//! ```
//!
//! What it finds: AWS access key ids, GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`,
//! `github_pat_`), Slack tokens (`xox?-`, `xapp-`), Stripe live keys, Google API keys, OpenAI
//! and Anthropic keys, PEM private key blocks, JWTs, credentials in URLs, assignments to
//! secret-looking names (`password=`, `"api_key": "..."`, `DB_TOKEN=...`) whose value is not
//! a placeholder, and long random-looking strings (entropy). A [`Finding`] never holds the
//! secret: its kind, where it is, and a masked form that shows at most a format's public
//! prefix and the length.

mod scan;

pub use scan::find;

/// Every kind a [`Finding`] may have.
pub const KINDS: &[&str] = &[
    "AWS access key",
    "GitHub token",
    "GitLab token",
    "Slack token",
    "Stripe secret key",
    "Google API key",
    "Anthropic key",
    "OpenAI key",
    "npm token",
    "PyPI token",
    "Hugging Face token",
    "JWT",
    "private key",
    "password in a URL",
    "secret assignment",
    "high-entropy string",
];

/// One secret found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What it is: `"GitHub token"`, `"AWS access key"`, `"private key"`, `"password"`, ...
    pub kind: &'static str,
    /// Its byte range in the text.
    pub start: usize,
    /// The end of that range (exclusive).
    pub end: usize,
    /// A form that is safe to show: the format's prefix (when the format has a public one,
    /// `ghp_`, `AKIA`) and the length, `ghp_…(40 chars)`; `…(12 chars)` otherwise.
    pub masked: String,
}

impl Finding {
    /// `GitHub token ghp_…(40 chars)`: what a reason or a log may say about it.
    pub fn describe(&self) -> String {
        format!("{} {}", self.kind, self.masked)
    }
}

/// `text` with every secret replaced by `[REDACTED kind masked]`, and the findings (their
/// ranges refer to the original text).
pub fn redact(text: &str) -> (String, Vec<Finding>) {
    let findings = find(text);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for finding in &findings {
        out.push_str(&text[at..finding.start]);
        out.push_str(&format!("[REDACTED {}]", finding.describe()));
        at = finding.end;
    }
    out.push_str(&text[at..]);
    (out, findings)
}

/// Shannon entropy of `text`, in bits per character.
pub fn entropy(text: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut total = 0usize;
    for c in text.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        total += 1;
    }
    if total == 0 {
        return 0.0;
    }
    counts
        .values()
        .map(|&n| {
            let p = n as f64 / total as f64;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests;
