//! The reference patterns of `[[trust.rules]]`: `*` globs over `oci://REGISTRY/REPOSITORY`.

/// Whether a registry reference (`oci://REGISTRY/REPOSITORY`, without its tag or digest)
/// matches a `[[trust.rules]]` pattern: `*` matches any run of characters, `/` included, so
/// `oci://registry.example/platform/*` covers everything under that path.
pub fn pattern_matches(pattern: &str, reference: &str) -> bool {
    let pattern = pattern.as_bytes();
    let text = reference.as_bytes();
    // Iterative glob with one star of backtracking: linear in practice, never exponential.
    let (mut p, mut t) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some(p);
            mark = t;
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some(s) = star {
            p = s + 1;
            mark += 1;
            t = mark;
        } else {
            return false;
        }
    }
    while p < pattern.len() && pattern[p] == b'*' {
        p += 1;
    }
    p == pattern.len()
}

#[cfg(test)]
mod tests {
    use super::pattern_matches;

    #[test]
    fn patterns_match_references_by_glob() {
        #[rustfmt::skip]
        let cases = [
            ("oci://r.io/platform/*",      "oci://r.io/platform/guard",      true),
            ("oci://r.io/platform/*",      "oci://r.io/platform/a/b",        true),
            ("oci://r.io/platform/*",      "oci://r.io/platformx/guard",     false),
            ("oci://r.io/platform/*",      "oci://q.io/platform/guard",      false),
            ("oci://r.io/team/guard",      "oci://r.io/team/guard",          true),
            ("oci://r.io/team/guard",      "oci://r.io/team/guard2",         false),
            ("oci://*/platform/*",         "oci://any.io:5000/platform/x",   true),
            ("oci://r.io/*/guard",         "oci://r.io/a/b/guard",           true),
            ("oci://r.io/*/guard",         "oci://r.io/a/b/guards",          false),
        ];
        for (pattern, reference, expected) in cases {
            assert_eq!(
                pattern_matches(pattern, reference),
                expected,
                "{pattern} vs {reference}"
            );
        }
    }
}
