//! Glob patterns for allowlists, matched against `/`-separated relative paths.
//!
//! | pattern | matches |
//! |---|---|
//! | `*` | any characters except `/` |
//! | `?` | one character except `/` |
//! | `**` | any characters, `/` included; `**/` also matches nothing (`a/**/b` matches `a/b`) |
//! | `[abc]`, `[a-z]`, `[!a-z]` | one character of (or not of) the class |
//! | `\*` | a literal `*` (any character can be escaped) |

use std::fmt;

/// A compiled glob pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    pattern: String,
    tokens: Vec<Token>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(char),
    AnyChar,
    Star,
    DoubleStar,
    /// `**/`: nothing, or anything that ends with `/`.
    DoubleStarSlash,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

/// A pattern that cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError {
    pattern: String,
    message: &'static str,
}

impl fmt::Display for GlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid glob {:?}: {}", self.pattern, self.message)
    }
}

impl std::error::Error for GlobError {}

impl Glob {
    /// Compiles `pattern`.
    pub fn new(pattern: &str) -> Result<Glob, GlobError> {
        let error = |message| GlobError {
            pattern: pattern.to_string(),
            message,
        };
        let chars: Vec<char> = pattern.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '*' if chars.get(i + 1) == Some(&'*') => {
                    if chars.get(i + 2) == Some(&'/') {
                        tokens.push(Token::DoubleStarSlash);
                        i += 3;
                    } else {
                        tokens.push(Token::DoubleStar);
                        i += 2;
                    }
                    continue;
                }
                '*' => tokens.push(Token::Star),
                '?' => tokens.push(Token::AnyChar),
                '\\' => {
                    i += 1;
                    let c = *chars
                        .get(i)
                        .ok_or_else(|| error("ends with a lone backslash"))?;
                    tokens.push(Token::Literal(c));
                }
                '[' => {
                    let mut j = i + 1;
                    let negated = matches!(chars.get(j), Some('!') | Some('^'));
                    if negated {
                        j += 1;
                    }
                    let mut ranges = Vec::new();
                    let mut first = true;
                    loop {
                        let c = *chars.get(j).ok_or_else(|| error("has an unclosed `[`"))?;
                        if c == ']' && !first {
                            break;
                        }
                        first = false;
                        if chars.get(j + 1) == Some(&'-')
                            && chars.get(j + 2).is_some_and(|&e| e != ']')
                        {
                            ranges.push((c, chars[j + 2]));
                            j += 3;
                        } else {
                            ranges.push((c, c));
                            j += 1;
                        }
                    }
                    tokens.push(Token::Class { negated, ranges });
                    i = j;
                }
                c => tokens.push(Token::Literal(c)),
            }
            i += 1;
        }
        Ok(Glob {
            pattern: pattern.to_string(),
            tokens,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// True when the whole of `path` matches.
    pub fn matches(&self, path: &str) -> bool {
        let text: Vec<char> = path.chars().collect();
        let mut memo = vec![None; (self.tokens.len() + 1) * (text.len() + 1)];
        self.match_at(0, 0, &text, &mut memo)
    }

    fn match_at(&self, t: usize, p: usize, text: &[char], memo: &mut Vec<Option<bool>>) -> bool {
        let key = t * (text.len() + 1) + p;
        if let Some(known) = memo[key] {
            return known;
        }
        let result = match self.tokens.get(t) {
            None => p == text.len(),
            Some(Token::Literal(c)) => {
                text.get(p) == Some(c) && self.match_at(t + 1, p + 1, text, memo)
            }
            Some(Token::AnyChar) => {
                text.get(p).is_some_and(|&c| c != '/') && self.match_at(t + 1, p + 1, text, memo)
            }
            Some(Token::Class { negated, ranges }) => {
                text.get(p).is_some_and(|&c| {
                    c != '/' && ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
                }) && self.match_at(t + 1, p + 1, text, memo)
            }
            Some(Token::Star) => {
                self.match_at(t + 1, p, text, memo)
                    || (text.get(p).is_some_and(|&c| c != '/')
                        && self.match_at(t, p + 1, text, memo))
            }
            Some(Token::DoubleStar) => {
                self.match_at(t + 1, p, text, memo)
                    || (p < text.len() && self.match_at(t, p + 1, text, memo))
            }
            Some(Token::DoubleStarSlash) => {
                self.match_at(t + 1, p, text, memo)
                    || (p..text.len())
                        .any(|q| text[q] == '/' && self.match_at(t + 1, q + 1, text, memo))
            }
        };
        memo[key] = Some(result);
        result
    }
}

/// True when any of `globs` matches `path`; returns the first that does.
pub fn first_match<'g>(globs: &'g [Glob], path: &str) -> Option<&'g Glob> {
    globs.iter().find(|glob| glob.matches(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_like_an_allowlist_should() {
        let cases: &[(&str, &str, bool)] = &[
            ("src/*.rs", "src/main.rs", true),
            ("src/*.rs", "src/bin/x.rs", false),
            ("src/**", "src/bin/x.rs", true),
            ("src/**", "src", false),
            ("src/**/*.rs", "src/main.rs", true),
            ("src/**/*.rs", "src/a/b/c.rs", true),
            ("**/progress.md", "progress.md", true),
            ("**/progress.md", ".ralph-sessions/s1/progress.md", true),
            ("**/progress.md", "notprogress.md", false),
            (
                ".ralph-sessions/*/**",
                ".ralph-sessions/260215/progress.md",
                true,
            ),
            (
                ".ralph-sessions/*.instructions.md",
                ".ralph-sessions/260215.instructions.md",
                true,
            ),
            (
                ".ralph-sessions/*.instructions.md",
                ".ralph-sessions/a/b.instructions.md",
                false,
            ),
            ("file?.txt", "file1.txt", true),
            ("file?.txt", "file/.txt", false),
            ("[a-c]x", "bx", true),
            ("[!a-c]x", "bx", false),
            ("[!a-c]x", "dx", true),
            ("\\*.md", "*.md", true),
            ("\\*.md", "a.md", false),
            ("*", "", true),
            ("", "", true),
            ("docs/**", "docs/", true),
        ];
        for (pattern, path, expected) in cases {
            assert_eq!(
                Glob::new(pattern).unwrap().matches(path),
                *expected,
                "{pattern} vs {path}"
            );
        }
    }

    #[test]
    fn bad_patterns_are_errors() {
        assert_eq!(
            Glob::new("a[bc").unwrap_err().to_string(),
            "invalid glob \"a[bc\": has an unclosed `[`"
        );
        assert!(Glob::new("a\\").is_err());
    }

    #[test]
    fn many_stars_stay_fast() {
        let glob = Glob::new(&"*a".repeat(30)).unwrap();
        assert!(!glob.matches(&"a".repeat(29)));
    }
}
