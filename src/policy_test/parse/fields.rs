//! Typed access to the fields of one table of a test file, each problem located and tied to
//! its case: hooks.toml's readers (`config::find`, `boolean`, `subtable`) under this file's
//! own messages.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{CaseRef, did_you_mean};
use crate::config::{Problems, boolean, find, subtable, to_json};

/// The fields of one table of the file, and the case its problems belong to.
pub(super) struct Fields<'a, 'i> {
    pub(super) table: &'a DeTable<'i>,
    pub(super) case: CaseRef,
    /// What holds these keys, for messages: "a case", "`expect`".
    pub(super) owner: &'static str,
}

impl<'a, 'i> Fields<'a, 'i> {
    pub(super) fn nested<'b>(&self, table: &'b DeTable<'i>, owner: &'static str) -> Fields<'b, 'i> {
        Fields {
            table,
            case: self.case.clone(),
            owner,
        }
    }

    pub(super) fn problem(&self, sink: &mut Problems<'_>, span: &Range<usize>, message: String) {
        sink.push(span, self.case.clone(), message);
    }

    pub(super) fn field(&self, key: &str) -> Option<&'a Spanned<DeValue<'i>>> {
        self.key(key).map(|(value, _)| value)
    }

    /// A key's value and the key's own span.
    pub(super) fn key(&self, key: &str) -> Option<(&'a Spanned<DeValue<'i>>, Range<usize>)> {
        find(self.table, key)
    }

    pub(super) fn unknown_keys(&self, known: &[&str], sink: &mut Problems<'_>) {
        for (key, _) in self.table.iter() {
            let name = key.get_ref().as_ref();
            if !known.contains(&name) {
                self.problem(
                    sink,
                    &key.span(),
                    format!(
                        "unknown key `{}`{} ({} takes: {})",
                        crate::text::name(name),
                        did_you_mean(known, name),
                        self.owner,
                        known.join(", ")
                    ),
                );
            }
        }
    }

    pub(super) fn string(
        &self,
        key: &str,
        sink: &mut Problems<'_>,
    ) -> Option<(String, Range<usize>)> {
        let value = self.field(key)?;
        match value.get_ref() {
            DeValue::String(text) if !text.trim().is_empty() => {
                Some((text.to_string(), value.span()))
            }
            other => {
                self.problem(
                    sink,
                    &value.span(),
                    format!(
                        "`{key}` must be a non-empty string, found {}",
                        if other.is_str() {
                            "an empty one"
                        } else {
                            other.type_str()
                        }
                    ),
                );
                None
            }
        }
    }

    /// A string or a list of strings (each non-empty); absent is empty.
    pub(super) fn strings(
        &self,
        key: &str,
        sink: &mut Problems<'_>,
    ) -> Vec<(String, Range<usize>)> {
        let Some(value) = self.field(key) else {
            return Vec::new();
        };
        let items: Vec<&Spanned<DeValue<'_>>> = match value.get_ref() {
            DeValue::Array(items) => items.iter().collect(),
            _ => vec![value],
        };
        let mut out = Vec::new();
        for item in items {
            match item.get_ref() {
                DeValue::String(text) if !text.is_empty() => {
                    out.push((text.to_string(), item.span()))
                }
                other => self.problem(
                    sink,
                    &item.span(),
                    format!(
                        "`{key}` takes a non-empty string or a list of them, found {}",
                        if other.is_str() {
                            "an empty string"
                        } else {
                            other.type_str()
                        }
                    ),
                ),
            }
        }
        out
    }

    pub(super) fn bool(&self, key: &str, sink: &mut Problems<'_>) -> Option<bool> {
        let value = self.field(key)?;
        boolean(value.get_ref(), key)
            .map_err(|message| self.problem(sink, &value.span(), message))
            .ok()
    }

    pub(super) fn table(
        &self,
        key: &str,
        sink: &mut Problems<'_>,
    ) -> Option<(&'a DeTable<'i>, Range<usize>)> {
        let value = self.field(key)?;
        match subtable(value.get_ref(), key) {
            Ok(table) => Some((table, value.span())),
            Err(message) => {
                self.problem(sink, &value.span(), message);
                None
            }
        }
    }

    /// A JSON object: a TOML table, or a string holding a JSON object.
    pub(super) fn json_object(&self, key: &str, sink: &mut Problems<'_>) -> Option<Value> {
        let value = self.field(key)?;
        let json = match value.get_ref() {
            DeValue::Table(_) => Ok(to_json(value.get_ref())),
            DeValue::String(text) => serde_json::from_str::<Value>(text)
                .map_err(|error| format!("`{key}` is not JSON ({error})")),
            other => Err(format!(
                "`{key}` must be a table or a string of JSON, found {}",
                other.type_str()
            )),
        };
        match json {
            Ok(json @ Value::Object(_)) => Some(json),
            Ok(other) => {
                self.problem(
                    sink,
                    &value.span(),
                    format!("`{key}` must be a JSON object, found {other}"),
                );
                None
            }
            Err(message) => {
                self.problem(sink, &value.span(), message);
                None
            }
        }
    }

    /// A table of strings (`env = { NAME = "value" }`).
    pub(super) fn string_table(&self, key: &str, sink: &mut Problems<'_>) -> Vec<(String, String)> {
        let Some((table, _)) = self.table(key, sink) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in table.iter() {
            match value.get_ref() {
                DeValue::String(text) => out.push((name.get_ref().to_string(), text.to_string())),
                other => self.problem(
                    sink,
                    &value.span(),
                    format!(
                        "every value of `{key}` must be a string, found {}",
                        other.type_str()
                    ),
                ),
            }
        }
        out
    }

    /// A directory relative to `base`, which must exist.
    pub(super) fn directory(
        &self,
        key: &str,
        base: &Path,
        sink: &mut Problems<'_>,
    ) -> Option<PathBuf> {
        let (text, span) = self.string(key, sink)?;
        let dir = base.join(text);
        if !dir.is_dir() {
            self.problem(
                sink,
                &span,
                format!("`{key}` names {}, which is not a directory", dir.display()),
            );
            return None;
        }
        Some(dir)
    }
}
