//! A policy's `[hooks.config]` read strictly: an unknown option, a value of the wrong type or
//! an unknown name in a list is an error naming the option, with a "did you mean" when a known
//! name is close. Policies then refuse to run (fail closed) rather than ignore a typo that
//! would silently turn a protection off.

use std::fmt;

use serde_json::{Map, Value};

/// What is wrong with a policy's options, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError(pub String);

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptionError {}

/// The reason a misconfigured policy gives on every call it answers.
pub fn misconfigured(policy: &str, error: &OptionError) -> String {
    format!("policy {policy} is misconfigured, so it blocks everything: [hooks.config]: {error}")
}

/// The reason of a hook whose contract fails open (seed 002's Ralph hooks): it warns on every
/// call it would answer, and checks nothing.
pub fn misconfigured_open(policy: &str, error: &OptionError) -> String {
    format!("policy {policy} is misconfigured, so it checks nothing: [hooks.config]: {error}")
}

/// A policy's options, checked against the names it knows.
#[derive(Debug, Clone)]
pub struct Options {
    map: Map<String, Value>,
}

impl Options {
    /// Reads `json` (the `[hooks.config]` table) and refuses options not in `known`.
    pub fn parse(json: &str, known: &[&str]) -> Result<Options, OptionError> {
        let value: Value = serde_json::from_str(json)
            .map_err(|e| OptionError(format!("not a table of options: {e}")))?;
        let map = match value {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(OptionError(format!(
                    "must be a table of options, not {}",
                    describe(&other)
                )));
            }
        };
        for name in map.keys() {
            if !known.contains(&name.as_str()) {
                return Err(OptionError(format!(
                    "unknown option `{name}`{}; the options are: {}",
                    hint(name, known),
                    known.join(", ")
                )));
            }
        }
        Ok(Options { map })
    }

    /// A list of strings, or `None` when absent.
    pub fn strings(&self, name: &str) -> Result<Option<Vec<String>>, OptionError> {
        let Some(value) = self.map.get(name) else {
            return Ok(None);
        };
        let wrong = || {
            OptionError(format!(
                "option `{name}` must be a list of strings, not {}",
                describe(value)
            ))
        };
        let list = value.as_array().ok_or_else(wrong)?;
        list.iter()
            .map(|item| item.as_str().map(str::to_string).ok_or_else(wrong))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// A list of names each of which must be one of `allowed` (`what` names them: "pack").
    pub fn names(
        &self,
        name: &str,
        what: &str,
        allowed: &[&str],
    ) -> Result<Option<Vec<String>>, OptionError> {
        let Some(list) = self.strings(name)? else {
            return Ok(None);
        };
        for item in &list {
            if !allowed.contains(&item.as_str()) {
                return Err(OptionError(format!(
                    "unknown {what} `{item}` in `{name}`{}; the {what}s are: {}",
                    hint(item, allowed),
                    allowed.join(", ")
                )));
            }
        }
        Ok(Some(list))
    }

    /// A string, or `None` when absent.
    pub fn string(&self, name: &str) -> Result<Option<String>, OptionError> {
        match self.map.get(name) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(OptionError(format!(
                "option `{name}` must be a string, not {}",
                describe(other)
            ))),
        }
    }

    /// One of `allowed`, or `None` when absent.
    pub fn choice(&self, name: &str, allowed: &[&str]) -> Result<Option<String>, OptionError> {
        let Some(value) = self.string(name)? else {
            return Ok(None);
        };
        if allowed.contains(&value.as_str()) {
            Ok(Some(value))
        } else {
            Err(OptionError(format!(
                "option `{name}` is `{value}`{}; it takes one of: {}",
                hint(&value, allowed),
                allowed.join(", ")
            )))
        }
    }

    /// A boolean, or `None` when absent.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, OptionError> {
        match self.map.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(OptionError(format!(
                "option `{name}` must be true or false, not {}",
                describe(other)
            ))),
        }
    }

    /// A table whose keys must be among `keys` and whose values among `values`
    /// (`mode = { paths = "ask" }`).
    pub fn choice_table(
        &self,
        name: &str,
        keys: &[&str],
        values: &[&str],
    ) -> Result<Vec<(String, String)>, OptionError> {
        let Some(value) = self.map.get(name) else {
            return Ok(Vec::new());
        };
        let Some(table) = value.as_object() else {
            return Err(OptionError(format!(
                "option `{name}` must be a table ({{ {} = \"{}\" }}), not {}",
                keys[0],
                values[0],
                describe(value)
            )));
        };
        let mut out = Vec::new();
        for (key, value) in table {
            if !keys.contains(&key.as_str()) {
                return Err(OptionError(format!(
                    "unknown key `{key}` in `{name}`{}; the keys are: {}",
                    hint(key, keys),
                    keys.join(", ")
                )));
            }
            let text = value.as_str().unwrap_or_default();
            if !values.contains(&text) {
                return Err(OptionError(format!(
                    "`{name}.{key}` must be one of {}, not {}",
                    values.join(", "),
                    describe(value)
                )));
            }
            out.push((key.clone(), text.to_string()));
        }
        Ok(out)
    }
}

/// `; did you mean `x`?` when a known name is close to `word`, else nothing.
pub fn hint(word: &str, known: &[&str]) -> String {
    match did_you_mean(word, known) {
        Some(best) => format!(" (did you mean `{best}`?)"),
        None => String::new(),
    }
}

/// The known name closest to `word`, if it is close enough to be a typo (edit distance at most
/// a third of its length, at least 1; case ignored), or one is a prefix of the other (3
/// characters at least).
pub fn did_you_mean<'k>(word: &str, known: &[&'k str]) -> Option<&'k str> {
    let lower = word.to_lowercase();
    if lower.chars().count() >= 3
        && let Some(prefixed) = known.iter().find(|k| {
            let k = k.to_lowercase();
            k.starts_with(&lower) || (k.len() >= 3 && lower.starts_with(&k))
        })
    {
        return Some(prefixed);
    }
    let (distance, candidate) = known
        .iter()
        .map(|candidate| (edit_distance(&lower, &candidate.to_lowercase()), *candidate))
        .min_by_key(|(distance, _)| *distance)?;
    let limit = (candidate.chars().count() / 3).max(1);
    (distance <= limit).then_some(candidate)
}

/// Edit distance with adjacent transpositions counted as one edit (`pakcs` is one from
/// `packs`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".to_string(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Number(n) => format!("a number ({n})"),
        Value::String(s) => format!("a string ({s:?})"),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "a table".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &["packs", "allow", "ask"];

    #[test]
    fn unknown_options_are_refused_with_a_suggestion() {
        let error = Options::parse(r#"{"pakcs": []}"#, KNOWN).unwrap_err();
        assert_eq!(
            error.0,
            "unknown option `pakcs` (did you mean `packs`?); the options are: packs, allow, ask"
        );
        let error = Options::parse(r#"{"zzz": 1}"#, KNOWN).unwrap_err();
        assert_eq!(
            error.0,
            "unknown option `zzz`; the options are: packs, allow, ask"
        );
    }

    #[test]
    fn types_and_names_are_checked() {
        let options =
            Options::parse(r#"{"packs": "git", "ask": ["gti"], "allow": [1]}"#, KNOWN).unwrap();
        assert_eq!(
            options.strings("packs").unwrap_err().0,
            "option `packs` must be a list of strings, not a string (\"git\")"
        );
        assert_eq!(
            options
                .names("ask", "pack", &["git", "filesystem"])
                .unwrap_err()
                .0,
            "unknown pack `gti` in `ask` (did you mean `git`?); the packs are: git, filesystem"
        );
        assert!(options.strings("allow").is_err());
        assert_eq!(options.strings("missing").unwrap(), None);
    }

    #[test]
    fn suggestions_are_only_for_near_misses() {
        assert_eq!(
            did_you_mean("filesytem", &["filesystem", "git"]),
            Some("filesystem")
        );
        assert_eq!(did_you_mean("GIT", &["filesystem", "git"]), Some("git"));
        assert_eq!(
            did_you_mean("kube", &["kubernetes", "git"]),
            Some("kubernetes")
        );
        assert_eq!(did_you_mean("zebra", &["filesystem", "git"]), None);
    }
}
