//! The scans, one per format. Each reports byte ranges; [`find`] keeps the first of
//! overlapping ones, in the order: private keys, prefixed tokens, JWTs, URL credentials,
//! assignments, entropy.

use crate::{Finding, entropy};

/// Tokens recognised by a fixed prefix: (prefix, kind, characters allowed after it, minimum
/// and maximum length of the whole token, how much of it is public).
/// (prefix, kind, characters allowed after it, minimum and maximum length, public prefix).
type Format = (
    &'static str,
    &'static str,
    fn(char) -> bool,
    usize,
    usize,
    usize,
);

const PREFIXED: &[Format] = &[
    ("github_pat_", "GitHub token", word, 40, 255, 11),
    ("ghp_", "GitHub token", alnum, 40, 40, 4),
    ("gho_", "GitHub token", alnum, 40, 40, 4),
    ("ghu_", "GitHub token", alnum, 40, 40, 4),
    ("ghs_", "GitHub token", alnum, 40, 40, 4),
    ("ghr_", "GitHub token", alnum, 40, 40, 4),
    ("glpat-", "GitLab token", dashed, 26, 64, 6),
    ("xoxb-", "Slack token", dashed, 20, 255, 5),
    ("xoxp-", "Slack token", dashed, 20, 255, 5),
    ("xoxa-", "Slack token", dashed, 20, 255, 5),
    ("xoxr-", "Slack token", dashed, 20, 255, 5),
    ("xoxs-", "Slack token", dashed, 20, 255, 5),
    ("xoxe-", "Slack token", dashed, 20, 255, 5),
    ("xapp-", "Slack token", dashed, 20, 255, 5),
    ("sk_live_", "Stripe secret key", alnum, 24, 255, 8),
    ("rk_live_", "Stripe secret key", alnum, 24, 255, 8),
    ("AIza", "Google API key", dashed, 39, 39, 4),
    ("sk-ant-", "Anthropic key", dashed, 40, 255, 7),
    ("sk-proj-", "OpenAI key", dashed, 40, 255, 8),
    ("sk-svcacct-", "OpenAI key", dashed, 40, 255, 11),
    ("sk-", "OpenAI key", dashed, 40, 255, 3),
    ("AKIA", "AWS access key", upper_digit, 20, 20, 4),
    ("ASIA", "AWS access key", upper_digit, 20, 20, 4),
    ("npm_", "npm token", alnum, 40, 40, 4),
    ("pypi-AgEIcHlwaS5vcmc", "PyPI token", dashed, 60, 255, 5),
    ("hf_", "Hugging Face token", alnum, 37, 40, 3),
];

fn alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}
fn word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}
fn dashed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}
fn upper_digit(c: char) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}

/// Every secret of `text`, in order, not overlapping.
pub fn find(text: &str) -> Vec<Finding> {
    let mut found: Vec<Finding> = Vec::new();
    let add = |found: &mut Vec<Finding>, finding: Finding| {
        if !found
            .iter()
            .any(|f| finding.start < f.end && f.start < finding.end)
        {
            found.push(finding);
        }
    };
    for f in private_keys(text) {
        add(&mut found, f);
    }
    for f in prefixed(text) {
        add(&mut found, f);
    }
    for f in jwts(text) {
        add(&mut found, f);
    }
    for f in url_credentials(text) {
        add(&mut found, f);
    }
    for f in assignments(text) {
        add(&mut found, f);
    }
    for f in random_strings(text) {
        add(&mut found, f);
    }
    found.sort_by_key(|f| f.start);
    found
}

fn finding(text: &str, kind: &'static str, start: usize, end: usize, public: usize) -> Finding {
    let secret = &text[start..end];
    let shown: String = secret.chars().take(public).collect();
    Finding {
        kind,
        start,
        end,
        masked: format!("{shown}…({} chars)", secret.chars().count()),
    }
}

/// The end of the run of `allowed` characters starting at `from`.
fn run_end(text: &str, from: usize, allowed: impl Fn(char) -> bool) -> usize {
    text[from..]
        .char_indices()
        .find(|(_, c)| !allowed(*c))
        .map_or(text.len(), |(i, _)| from + i)
}

fn boundary_before(text: &str, at: usize) -> bool {
    text[..at]
        .chars()
        .next_back()
        .is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_')
}

fn private_keys(text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("-----BEGIN ") {
        let start = from + at;
        let header_end = text[start + 11..].find("-----").map(|i| start + 11 + i);
        let Some(header_end) = header_end else { break };
        let header = &text[start..header_end];
        if header.contains("PRIVATE KEY") {
            let end = text[header_end..]
                .find("-----END ")
                .and_then(|i| {
                    let tail = header_end + i + 9;
                    text[tail..].find("-----").map(|j| tail + j + 5)
                })
                .unwrap_or(text.len());
            out.push(Finding {
                kind: "private key",
                start,
                end,
                masked: format!("…({} chars)", end - start),
            });
            from = end;
        } else {
            from = header_end;
        }
    }
    out
}

fn prefixed(text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for (prefix, kind, allowed, min, max, public) in PREFIXED {
        let mut from = 0;
        while let Some(at) = text[from..].find(prefix) {
            let start = from + at;
            let end = run_end(text, start + prefix.len(), allowed);
            from = end.max(start + prefix.len());
            let length = end - start;
            if boundary_before(text, start) && (*min..=*max).contains(&length) {
                let body = &text[start + prefix.len()..end];
                // `sk-` must look random, not be a word (`sk-learn-...`).
                let random = body.chars().any(|c| c.is_ascii_digit())
                    && body.chars().any(|c| c.is_ascii_alphabetic());
                if random {
                    out.push(finding(text, kind, start, end, *public));
                }
            }
        }
    }
    out
}

fn jwts(text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("eyJ") {
        let start = from + at;
        let end = run_end(text, start, |c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '=')
        });
        from = end.max(start + 3);
        let parts: Vec<&str> = text[start..end].trim_end_matches('.').split('.').collect();
        if boundary_before(text, start)
            && parts.len() == 3
            && parts[1].starts_with("eyJ")
            && parts.iter().all(|p| p.len() >= 8)
        {
            out.push(finding(text, "JWT", start, end, 3));
        }
    }
    out
}

/// `scheme://user:password@host`: the password.
fn url_credentials(text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("://") {
        let authority_start = from + at + 3;
        let authority_end = run_end(text, authority_start, |c| {
            !c.is_whitespace() && !matches!(c, '/' | '"' | '\'' | '`' | '<' | '>')
        });
        from = authority_end.max(authority_start);
        let authority = &text[authority_start..authority_end];
        if let Some(at_sign) = authority.rfind('@')
            && let Some(colon) = authority[..at_sign].find(':')
        {
            let start = authority_start + colon + 1;
            let end = authority_start + at_sign;
            let password = &text[start..end];
            if !password.is_empty() && !placeholder(password) {
                out.push(finding(text, "password in a URL", start, end, 0));
            }
        }
    }
    out
}

/// Names whose value is a secret.
const SECRET_NAMES: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "api-key",
    "access_key",
    "accesskey",
    "private_key",
    "client_secret",
    "auth",
    "credential",
    "passphrase",
];

fn assignments(text: &str) -> Vec<Finding> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    for name in SECRET_NAMES {
        let mut from = 0;
        while let Some(at) = lower[from..].find(name) {
            let key_end = from + at + name.len();
            from = key_end;
            // The rest of the key (`_TOKEN`, `token_value`), a closing quote, then `=` or `:`.
            let mut i = run_end(text, key_end, |c| {
                c.is_ascii_alphanumeric() || c == '_' || c == '-'
            });
            let key = &lower[from - name.len()..i];
            if key.ends_with("_id")
                || key.ends_with("_url")
                || key.ends_with("_file")
                || key.ends_with("_path")
                || key.ends_with("_type")
                || key.ends_with("_name")
                || key.ends_with("s_in")
            {
                continue;
            }
            i = skip(text, i, |c| c == '"' || c == '\'' || c == ' ' || c == '\t');
            let Some(sep) = text[i..].chars().next().filter(|c| *c == '=' || *c == ':') else {
                continue;
            };
            i += sep.len_utf8();
            if text[i..].starts_with('>') || text[i..].starts_with('=') {
                i += 1;
            }
            i = skip(text, i, |c| c == ' ' || c == '\t');
            let quote = text[i..].chars().next().filter(|c| *c == '"' || *c == '\'');
            if let Some(q) = quote {
                i += 1;
                let end = text[i..].find(q).map_or(text.len(), |n| i + n);
                push_value(text, i, end, &mut out);
            } else {
                let end = run_end(text, i, |c| {
                    !c.is_whitespace()
                        && !matches!(c, ';' | ',' | '&' | '"' | '\'' | ')' | '}' | ']')
                });
                push_value(text, i, end, &mut out);
            }
        }
    }
    out
}

fn push_value(text: &str, start: usize, end: usize, out: &mut Vec<Finding>) {
    let value = &text[start..end];
    let long_enough = value.chars().count() >= 8;
    let varied = entropy(value) >= 2.5 && value.chars().any(|c| !c.is_ascii_lowercase());
    if long_enough && varied && !placeholder(value) {
        out.push(finding(text, "secret assignment", start, end, 0));
    }
}

fn skip(text: &str, from: usize, what: impl Fn(char) -> bool) -> usize {
    run_end(text, from, what)
}

/// A value that stands for a secret rather than being one.
fn placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.starts_with('$')
        || value.starts_with('<')
        || value.starts_with('{')
        || value.starts_with('%')
        || value.starts_with('*')
        || value.contains("${")
        // A call or a path through code (`std::env::var(`, `os.getenv(`): not a literal.
        || value.contains('(')
        || value.contains("::")
        || value.contains("{{")
        || lower.starts_with("process.env")
        || lower.starts_with("os.environ")
        || lower.starts_with("env(")
        || lower.starts_with("getenv")
        || lower.starts_with("secrets.")
        || lower.starts_with("vault:")
        || [
            "example",
            "changeme",
            "placeholder",
            "your_",
            "your-",
            "xxxx",
            "redacted",
            "dummy",
            "<",
            "null",
            "none",
            "true",
            "false",
        ]
        .iter()
        .any(|p| lower.contains(p))
}

/// Long strings of token characters that look random: 24 characters or more, upper and lower
/// case and digits, at least 4.2 bits of entropy per character; hex (hashes) and paths are not.
fn random_strings(text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let token = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '_' | '-');
    let mut i = 0;
    while i < text.len() {
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        if !token(c) {
            i += c.len_utf8();
            continue;
        }
        let end = run_end(text, i, token);
        let candidate = &text[i..end];
        let length = candidate.len();
        let classes = [
            candidate.chars().filter(|c| c.is_ascii_uppercase()).count() >= 2,
            candidate.chars().filter(|c| c.is_ascii_lowercase()).count() >= 2,
            candidate.chars().filter(|c| c.is_ascii_digit()).count() >= 2,
        ];
        let pathlike = candidate.matches('/').count() >= 2
            || candidate.contains("--")
            || candidate.starts_with('-');
        if (24..=512).contains(&length)
            && classes.iter().all(|c| *c)
            && !pathlike
            && entropy(candidate) >= 4.2
        {
            out.push(finding(text, "high-entropy string", i, end, 0));
        }
        i = end;
    }
    out
}
