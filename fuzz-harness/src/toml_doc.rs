//! TOML documents built from `arbitrary` input out of a format's own tables, keys and words
//! (hooks.toml, hooks.test.toml), so that the fuzzer writes files the parser reads past the
//! syntax: misspelt keys, wrong types, and the right ones in odd combinations.

use arbitrary::{Result, Unstructured};
use toml::{Table, Value};

/// A format's vocabulary: its array-of-tables keys (`hooks`, `cases`), its other keys, and the
/// strings its values use.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Vocabulary {
    pub(crate) arrays: &'static [&'static str],
    pub(crate) keys: &'static [&'static str],
    pub(crate) strings: &'static [&'static str],
}

/// A whole document, as TOML text (`None` when the tree has no TOML form).
pub(crate) fn document(u: &mut Unstructured<'_>, words: Vocabulary) -> Result<Option<String>> {
    let mut top = table(u, words, 2)?;
    for array in words.arrays {
        if u.ratio(3, 4)? {
            let len = u.int_in_range(0..=4)?;
            let mut items = Vec::with_capacity(len);
            for _ in 0..len {
                items.push(Value::Table(table(u, words, 2)?));
            }
            top.insert(array.to_string(), Value::Array(items));
        }
    }
    Ok(toml::to_string(&top).ok())
}

fn key(u: &mut Unstructured<'_>, words: Vocabulary) -> Result<String> {
    if u.ratio(1, 8)? {
        u.arbitrary()
    } else {
        Ok(u.choose(words.keys)?.to_string())
    }
}

fn table(u: &mut Unstructured<'_>, words: Vocabulary, depth: u32) -> Result<Table> {
    let len = u.int_in_range(0..=8)?;
    let mut table = Table::new();
    for _ in 0..len {
        table.insert(key(u, words)?, value(u, words, depth)?);
    }
    Ok(table)
}

fn value(u: &mut Unstructured<'_>, words: Vocabulary, depth: u32) -> Result<Value> {
    let last = if depth == 0 { 5 } else { 7 };
    Ok(match u.int_in_range(0..=last)? {
        0 => Value::Boolean(u.arbitrary()?),
        1 => Value::Integer(match u.int_in_range(0..=2)? {
            0 => u.int_in_range(0..=100_000)?,
            1 => u.arbitrary()?,
            _ => -1,
        }),
        2 => Value::Float(u.arbitrary()?),
        3 | 4 => Value::String(if u.ratio(1, 4)? {
            u.arbitrary()?
        } else {
            u.choose(words.strings)?.to_string()
        }),
        5 => Value::String(u.choose(words.keys)?.to_string()),
        6 => {
            let len = u.int_in_range(0..=4)?;
            let mut items = Vec::with_capacity(len);
            for _ in 0..len {
                items.push(value(u, words, depth - 1)?);
            }
            Value::Array(items)
        }
        _ => Value::Table(table(u, words, depth - 1)?),
    })
}
