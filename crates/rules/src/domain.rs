//! `WebFetch(domain:HOST)`: the host of the URL a fetch reaches against a host pattern, as
//! Claude Code 2.1.332 matches them (its `EPt`, `l` and `f` functions; the permissions page,
//! "WebFetch"): case-insensitive; a trailing `.` ignored on both sides; `*` alone matches every
//! host; a leading `*.` matches any subdomain at any depth but not the domain itself; any other
//! `*` matches within one label (`example.*` matches `example.org`, not `example.evil.com`).
//!
//! The host is read from the URL as a browser (WHATWG URL) reads it, for the schemes that have
//! hosts: backslashes count as slashes, the user part before `@` is skipped, tabs and newlines
//! are dropped, numeric IPv4 spellings are normalised (`0x7f.1` is `127.0.0.1`). A host that
//! needs IDNA or percent-decoding is read only for deny and ask rules (decoded, lower-cased):
//! an allow rule never holds for a host hookhost cannot read exactly as the fetch will.

use crate::glob::star_match;

/// A `domain:` pattern, normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern(String);

impl Pattern {
    /// The pattern of `domain:HOST`'s `HOST`.
    pub(crate) fn new(host: &str) -> Pattern {
        Pattern(normalize(host))
    }

    /// Whether the fetched `host` (already read from its URL) matches.
    pub(crate) fn matches(&self, host: &str) -> bool {
        let host = normalize(host);
        let pattern = self.0.as_str();
        if !pattern.contains('*') {
            return pattern == host;
        }
        if pattern == "*" {
            return true;
        }
        let Some(suffix) = pattern.strip_prefix("*.") else {
            return labels_match(pattern, &host);
        };
        // The host must have at least one more label than the suffix, and the labels before
        // the suffix must be well formed.
        let mut needed = 1 + suffix.chars().filter(|c| SEPARATORS.contains(*c)).count();
        let bytes = host.as_bytes();
        let mut at = bytes.len();
        while needed > 0 && at > 0 {
            at -= 1;
            if SEPARATORS.contains(bytes[at] as char) {
                needed -= 1;
            }
        }
        let head = &host[..(at + 1).min(host.len())];
        needed == 0
            && !head.starts_with('.')
            && !head.contains("..")
            && !head.contains(':')
            && labels_match(suffix, &host[at + 1..])
    }
}

const SEPARATORS: &str = ".:";

/// Lower case, and the trailing dots of the host (before an optional `:port`) dropped.
fn normalize(host: &str) -> String {
    let host = host.to_lowercase();
    let (name, port) = match host.rfind(':') {
        Some(colon)
            if host[colon + 1..].chars().all(|c| c.is_ascii_digit()) && colon + 1 < host.len() =>
        {
            host.split_at(colon)
        }
        _ => (host.as_str(), ""),
    };
    let trimmed = name.trim_end_matches('.');
    // Claude Code keeps the dots after a `*` or when nothing else is left.
    let keep = trimmed.is_empty() || trimmed.ends_with('*');
    let name = if keep { name } else { trimmed };
    format!("{name}{port}")
}

/// Label by label: separators must line up, and each label matches its pattern label.
fn labels_match(pattern: &str, host: &str) -> bool {
    let (mut p, mut h) = (pattern, host);
    loop {
        let pend = p.find(|c| SEPARATORS.contains(c)).unwrap_or(p.len());
        let hend = h.find(|c| SEPARATORS.contains(c)).unwrap_or(h.len());
        if p[pend..].chars().next() != h[hend..].chars().next()
            || !star_match(&p[..pend], &h[..hend])
        {
            return false;
        }
        if pend == p.len() {
            return true;
        }
        p = &p[pend + 1..];
        h = &h[hend + 1..];
    }
}

/// The host a fetch of `url` reaches, or `None` (no host, a scheme without hosts, or, when
/// `exact`, a host hookhost cannot read exactly as the fetch will).
pub(crate) fn host_of(url: &str, exact: bool) -> Option<String> {
    let url: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let colon = url.find(':')?;
    let scheme = url[..colon].to_ascii_lowercase();
    let valid_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !valid_scheme || !["http", "https", "ws", "wss", "ftp"].contains(&scheme.as_str()) {
        return None;
    }
    let rest = url[colon + 1..].trim_start_matches(['/', '\\']);
    let authority = &rest[..rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len())];
    let hostport = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = if hostport.starts_with('[') {
        &hostport[..=hostport.find(']')?]
    } else {
        hostport.rsplit_once(':').map_or(hostport, |(host, _)| host)
    };
    if host.is_empty() {
        return None;
    }
    let mut host = host.to_string();
    if host.contains('%') || !host.is_ascii() {
        if exact {
            return None;
        }
        host = percent_decode(&host);
    }
    let host = host.to_lowercase();
    if host.chars().any(|c| " #/:<>?@[\\]^|".contains(c)) && !host.starts_with('[') {
        return None;
    }
    Some(ipv4(&host).unwrap_or(host))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((high * 16 + low) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// WHATWG's IPv4 parser: a host whose last label is a number is an address, each label
/// decimal, `0x` hex or `0` octal, the last one filling the remaining bytes.
fn ipv4(host: &str) -> Option<String> {
    let host = host.strip_suffix('.').unwrap_or(host);
    let labels: Vec<&str> = host.split('.').collect();
    let number = |label: &str| -> Option<u64> {
        let (digits, radix) = if let Some(hex) = label
            .strip_prefix("0x")
            .or_else(|| label.strip_prefix("0X"))
        {
            (hex, 16)
        } else if label.len() > 1 && label.starts_with('0') {
            (&label[1..], 8)
        } else {
            (label, 10)
        };
        if digits.is_empty() {
            return (radix != 10).then_some(0);
        }
        u64::from_str_radix(digits, radix).ok()
    };
    number(labels.last()?)?;
    if labels.len() > 4 {
        return None;
    }
    let numbers: Vec<u64> = labels
        .iter()
        .map(|label| number(label))
        .collect::<Option<_>>()?;
    let (last, head) = numbers.split_last()?;
    if head.iter().any(|n| *n > 255) || *last >= 256u64.pow(5 - numbers.len() as u32) {
        return None;
    }
    let mut address = *last;
    for (i, n) in head.iter().enumerate() {
        address += n * 256u64.pow(3 - i as u32);
    }
    Some(format!(
        "{}.{}.{}.{}",
        address >> 24,
        (address >> 16) & 255,
        (address >> 8) & 255,
        address & 255
    ))
}

#[cfg(test)]
mod tests {
    use super::{Pattern, host_of};

    #[test]
    fn hosts_are_read_as_a_browser_reads_them() {
        for (url, exact, host) in [
            ("https://Example.COM/path", true, Some("example.com")),
            (
                "https://user:pw@example.com:8443/x",
                true,
                Some("example.com"),
            ),
            (
                "https://evil.example\\@good.example/",
                true,
                Some("evil.example"),
            ),
            (
                "https://good.example#@evil.example",
                true,
                Some("good.example"),
            ),
            ("http://0x7f.1/", true, Some("127.0.0.1")),
            ("http://[::1]:80/", true, Some("[::1]")),
            ("HTTPS:\\\\example.com", true, Some("example.com")),
            ("https://exa\tmple.com/", true, Some("example.com")),
            ("https://%65vil.com/", true, None),
            ("https://%65vil.com/", false, Some("evil.com")),
            ("file:///etc/passwd", true, None),
            ("example.com", true, None),
        ] {
            assert_eq!(host_of(url, exact).as_deref(), host, "{url}");
        }
    }

    #[test]
    fn patterns_match_as_claude_codes_do() {
        for (pattern, host, expected) in [
            ("example.com", "example.com", true),
            ("example.com", "EXAMPLE.com.", true),
            ("example.com.", "example.com", true),
            ("example.com", "api.example.com", false),
            ("*.example.com", "api.example.com", true),
            ("*.example.com", "a.b.example.com", true),
            ("*.example.com", "example.com", false),
            ("*.example.com", "evilexample.com", false),
            ("example.*", "example.org", true),
            ("example.*", "example.evil.com", false),
            ("*", "anything.at.all", true),
            ("api.*.com", "api.github.com", true),
            ("api.*.com", "api.x.y.com", false),
        ] {
            assert_eq!(
                Pattern::new(pattern).matches(host),
                expected,
                "{pattern} ~ {host}"
            );
        }
    }
}
