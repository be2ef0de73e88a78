//! Names typed on the command line (`--agent`, `--profile`) and the "did you mean" for the
//! ones that are not known.

use std::fmt;

/// A name that is none of the known ones, with the closest known one when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// What was being named: `agent`, `profile`.
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// Every known name, for the message.
    pub known: Vec<&'static str>,
    /// The known name closest to `given`, when it is close enough to be a typo.
    pub suggestion: Option<&'static str>,
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} {:?}", self.what, self.given)?;
        if let Some(suggestion) = self.suggestion {
            write!(f, "; did you mean {suggestion:?}?")?;
        }
        write!(f, " (known: {})", self.known.join(", "))
    }
}

impl std::error::Error for UnknownName {}

/// Finds `given` among `known` (`(name, aliases)`), case-insensitively, or says what it may
/// have meant.
pub(crate) fn lookup<T: Copy>(
    what: &'static str,
    given: &str,
    known: &[(T, &'static str, &'static [&'static str])],
) -> Result<T, UnknownName> {
    let wanted = given.trim().to_ascii_lowercase();
    for (value, name, aliases) in known {
        if name.eq_ignore_ascii_case(&wanted) || aliases.contains(&wanted.as_str()) {
            return Ok(*value);
        }
    }
    let suggestion = known
        .iter()
        .flat_map(|(_, name, aliases)| {
            std::iter::once((*name, *name)).chain(aliases.iter().map(move |alias| (*name, *alias)))
        })
        .map(|(name, spelled)| {
            let spelled = spelled.to_ascii_lowercase();
            let spelled = spelled.as_str();
            // A prefix ("gem", "co") is as good as a typo.
            let distance = if spelled.starts_with(&wanted) && wanted.len() >= 2 {
                1
            } else {
                levenshtein(&wanted, spelled)
            };
            (distance, name)
        })
        .filter(|(distance, _)| *distance <= 2.max(wanted.len() / 3))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name);
    Err(UnknownName {
        what,
        given: given.to_string(),
        known: known.iter().map(|(_, name, _)| *name).collect(),
        suggestion,
    })
}

/// Edits (insertions, deletions, substitutions) between `a` and `b`.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const COLOURS: &[(u8, &str, &[&str])] = &[(1, "red", &["crimson"]), (2, "green", &[])];

    #[test]
    fn names_and_suggestions() {
        // (given, found, suggestion)
        let cases: &[(&str, Option<u8>, Option<&str>)] = &[
            ("red", Some(1), None),
            ("RED", Some(1), None),
            ("crimson", Some(1), None),
            ("gren", None, Some("green")),
            ("crimsen", None, Some("red")),
            ("gr", None, Some("green")),
            ("purple", None, None),
        ];
        for (given, found, suggestion) in cases {
            match lookup("colour", given, COLOURS) {
                Ok(value) => assert_eq!(Some(value), *found, "{given}"),
                Err(unknown) => {
                    assert_eq!(*found, None, "{given}");
                    assert_eq!(unknown.suggestion, *suggestion, "{given}");
                }
            }
        }
        let message = lookup("colour", "gren", COLOURS).unwrap_err().to_string();
        assert_eq!(
            message,
            "unknown colour \"gren\"; did you mean \"green\"? (known: red, green)"
        );
    }
}
