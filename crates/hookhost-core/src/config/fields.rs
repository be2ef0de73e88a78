//! Typed access to the fields of a spanned TOML table, recording a located problem for every
//! field of the wrong type or shape.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::ConfigProblem;
use super::location::LineIndex;

/// At most this many problems of a file are reported, each located; the rest are counted.
pub const MAX_PROBLEMS: usize = 100;

/// Problems (and warnings) collected while walking one file. Locations are computed only for
/// what is reported, from one line index, so validation stays linear in the file's size.
#[derive(Debug)]
pub struct Problems<'t> {
    pub lines: LineIndex<'t>,
    list: Vec<Unlocated>,
    warnings: Vec<Unlocated>,
}

#[derive(Debug)]
struct Unlocated {
    offset: usize,
    hook: Option<(usize, Option<String>)>,
    message: String,
}

impl<'t> Problems<'t> {
    pub fn new(text: &'t str) -> Problems<'t> {
        Problems {
            lines: LineIndex::new(text),
            list: Vec::new(),
            warnings: Vec::new(),
        }
    }

    pub fn push(
        &mut self,
        span: &Range<usize>,
        hook: Option<(usize, Option<String>)>,
        message: String,
    ) {
        self.list.push(Unlocated {
            offset: span.start,
            hook,
            message,
        });
    }

    /// Something odd that switches nothing off: reported, and loading goes on.
    pub(crate) fn warn(
        &mut self,
        span: &Range<usize>,
        hook: Option<(usize, Option<String>)>,
        message: String,
    ) {
        self.warnings.push(Unlocated {
            offset: span.start,
            hook,
            message,
        });
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The problems in file order (keys of a table are visited in map order), at most
    /// [`MAX_PROBLEMS`] of them, then one line counting the rest.
    pub fn finish(&mut self) -> Vec<ConfigProblem> {
        let list = std::mem::take(&mut self.list);
        self.locate(list)
    }

    /// The warnings, in file order, capped like problems.
    pub(crate) fn finish_warnings(&mut self) -> Vec<ConfigProblem> {
        let list = std::mem::take(&mut self.warnings);
        self.locate(list)
    }

    fn locate(&self, mut list: Vec<Unlocated>) -> Vec<ConfigProblem> {
        list.sort_by_key(|problem| problem.offset);
        let total = list.len();
        let mut located: Vec<ConfigProblem> = list
            .iter()
            .take(MAX_PROBLEMS)
            .map(|problem| ConfigProblem {
                location: self.lines.locate(problem.offset),
                hook: problem.hook.clone(),
                message: problem.message.clone(),
            })
            .collect();
        if let Some(first_omitted) = list.get(MAX_PROBLEMS) {
            located.push(ConfigProblem {
                location: self.lines.locate(first_omitted.offset),
                hook: None,
                message: format!(
                    "... and {} more (only the first {MAX_PROBLEMS} are listed; fix these and check again)",
                    total - MAX_PROBLEMS
                ),
            });
        }
        located
    }
}

/// The fields of one `[[hooks]]` table, each with the span of its value.
pub(super) struct HookTable<'a, 'i> {
    pub(super) index: usize,
    pub(super) name: Option<String>,
    pub(super) table: &'a DeTable<'i>,
}

pub(crate) type Field<'a, 'i> = Option<(&'a Spanned<DeValue<'i>>, Range<usize>)>;

/// The value of `key` in a spanned table, with the key's own span: the one lookup of every
/// reader of spanned TOML (hooks.toml's tables here, a test file's in `policy_test`).
pub fn find<'a, 'i>(table: &'a DeTable<'i>, key: &str) -> Field<'a, 'i> {
    table
        .iter()
        .find(|(k, _)| k.get_ref().as_ref() == key)
        .map(|(k, v)| (v, k.span()))
}

/// A boolean field's value, or the problem to report at its span.
pub fn boolean(value: &DeValue<'_>, key: &str) -> Result<bool, String> {
    match value {
        DeValue::Boolean(b) => Ok(*b),
        other => Err(format!(
            "`{key}` must be true or false, found {}",
            other.type_str()
        )),
    }
}

/// A table field's value, or the problem to report at its span.
pub fn subtable<'a, 'i>(value: &'a DeValue<'i>, key: &str) -> Result<&'a DeTable<'i>, String> {
    match value {
        DeValue::Table(table) => Ok(table),
        other => Err(format!(
            "`{key}` must be a table, found {}",
            other.type_str()
        )),
    }
}

impl<'a, 'i> HookTable<'a, 'i> {
    pub(super) fn field(&self, key: &str) -> Field<'a, 'i> {
        find(self.table, key)
    }

    pub(super) fn hook_ref(&self) -> Option<(usize, Option<String>)> {
        Some((self.index, self.name.clone()))
    }

    pub(super) fn problem(&self, sink: &mut Problems<'_>, span: &Range<usize>, message: String) {
        sink.push(span, self.hook_ref(), message);
    }

    /// A non-empty string field.
    pub(super) fn string(
        &self,
        key: &str,
        sink: &mut Problems<'_>,
    ) -> Option<(String, Range<usize>)> {
        let (value, _) = self.field(key)?;
        match value.get_ref() {
            DeValue::String(s) if !s.trim().is_empty() => Some((s.to_string(), value.span())),
            DeValue::String(_) => {
                self.problem(sink, &value.span(), format!("`{key}` must not be empty"));
                None
            }
            other => {
                self.problem(
                    sink,
                    &value.span(),
                    format!("`{key}` must be a string, found {}", other.type_str()),
                );
                None
            }
        }
    }

    /// A list of non-empty strings; absent is an empty list, a problem is `None`.
    pub(super) fn string_list(&self, key: &str, sink: &mut Problems<'_>) -> Option<Vec<String>> {
        let Some((value, _)) = self.field(key) else {
            return Some(Vec::new());
        };
        let DeValue::Array(items) = value.get_ref() else {
            self.problem(
                sink,
                &value.span(),
                format!(
                    "`{key}` must be a list of strings, like {key} = [\"...\"]; found {}",
                    value.get_ref().type_str()
                ),
            );
            return None;
        };
        let mut out = Vec::new();
        for item in items.iter() {
            match item.get_ref() {
                DeValue::String(s) if !s.trim().is_empty() => out.push(s.to_string()),
                other => {
                    self.problem(
                        sink,
                        &item.span(),
                        format!(
                            "every entry of `{key}` must be a non-empty string, found {}",
                            if other.is_str() {
                                "an empty string"
                            } else {
                                other.type_str()
                            }
                        ),
                    );
                    return None;
                }
            }
        }
        Some(out)
    }

    /// An integer within `min..=max`.
    pub(super) fn integer(
        &self,
        key: &str,
        min: i128,
        max: i128,
        sink: &mut Problems<'_>,
    ) -> Option<i128> {
        let (value, _) = self.field(key)?;
        let parsed = match value.get_ref() {
            DeValue::Integer(int) => i128::from_str_radix(int.as_str(), int.radix()).ok(),
            _ => None,
        };
        match parsed {
            Some(n) if (min..=max).contains(&n) => Some(n),
            Some(n) => {
                self.problem(
                    sink,
                    &value.span(),
                    format!("`{key}` must be between {min} and {max}, found {n}"),
                );
                None
            }
            None => {
                self.problem(
                    sink,
                    &value.span(),
                    format!(
                        "`{key}` must be a whole number, found {}",
                        value.get_ref().type_str()
                    ),
                );
                None
            }
        }
    }

    /// Reports each of `keys` present on a hook of the other kind.
    pub(super) fn reject_keys(&self, keys: &[&str], owner: &str, sink: &mut Problems<'_>) {
        for key in keys {
            if let Some((_, key_span)) = self.field(key) {
                let other = if owner == "wasm" { "command" } else { "wasm" };
                self.problem(
                    sink,
                    &key_span,
                    format!(
                        "`{key}` applies only to {owner} hooks; remove it from this {other} hook"
                    ),
                );
            }
        }
    }

    pub(super) fn bool(&self, key: &str, sink: &mut Problems<'_>) -> Option<bool> {
        let (value, _) = self.field(key)?;
        boolean(value.get_ref(), key)
            .map_err(|message| self.problem(sink, &value.span(), message))
            .ok()
    }
}

/// A TOML value as JSON (datetimes become strings).
pub fn to_json(value: &DeValue<'_>) -> serde_json::Value {
    use serde_json::Value;
    match value {
        DeValue::String(s) => Value::String(s.to_string()),
        DeValue::Integer(int) => i64::from_str_radix(int.as_str(), int.radix())
            .map(Value::from)
            .or_else(|_| u64::from_str_radix(int.as_str(), int.radix()).map(Value::from))
            .unwrap_or(Value::Null),
        DeValue::Float(float) => float
            .as_str()
            .replace('_', "")
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(datetime) => Value::String(datetime.to_string()),
        DeValue::Array(items) => {
            Value::Array(items.iter().map(|item| to_json(item.get_ref())).collect())
        }
        DeValue::Table(table) => Value::Object(
            table
                .iter()
                .map(|(key, value)| (key.get_ref().to_string(), to_json(value.get_ref())))
                .collect(),
        ),
    }
}

/// The first of `known` within two edits of `word`, for "did you mean" hints; bounded work
/// whatever the word's length.
pub fn close_to<'k>(known: &[&'k str], word: &str) -> Option<&'k str> {
    known
        .iter()
        .copied()
        .find(|candidate| crate::event::catalog::within_two_edits(candidate, word))
}
