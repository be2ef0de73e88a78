//! JSON trees built from `arbitrary` input with a format's own keys and words, so that the
//! fuzzer writes documents the parser reads past its first check, not only syntax errors.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Number, Value};

/// The keys and string values a format's documents use.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Words {
    pub(crate) keys: &'static [&'static str],
    pub(crate) strings: &'static [&'static str],
}

/// A value at most `depth` containers deep.
pub(crate) fn value(u: &mut Unstructured<'_>, words: Words, depth: u32) -> Result<Value> {
    let last = if depth == 0 { 6 } else { 8 };
    Ok(match u.int_in_range(0..=last)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::Number(u.arbitrary::<i64>()?.into()),
        3 => Value::Number(u.arbitrary::<u64>()?.into()),
        4 => Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        5 => Value::String(string(u, words)?),
        6 => Value::String(u.arbitrary()?),
        7 => {
            let len = u.int_in_range(0..=4)?;
            let mut items = Vec::with_capacity(len);
            for _ in 0..len {
                items.push(value(u, words, depth - 1)?);
            }
            Value::Array(items)
        }
        _ => Value::Object(object(u, words, depth - 1)?),
    })
}

/// An object of up to eight entries, mostly under the format's keys.
pub(crate) fn object(
    u: &mut Unstructured<'_>,
    words: Words,
    depth: u32,
) -> Result<Map<String, Value>> {
    let len = u.int_in_range(0..=8)?;
    let mut map = Map::new();
    for _ in 0..len {
        let key = if words.keys.is_empty() || u.ratio(1, 5)? {
            u.arbitrary()?
        } else {
            u.choose(words.keys)?.to_string()
        };
        map.insert(key, value(u, words, depth)?);
    }
    Ok(map)
}

/// One of the format's words, or any string.
pub(crate) fn string(u: &mut Unstructured<'_>, words: Words) -> Result<String> {
    if words.strings.is_empty() || u.ratio(1, 4)? {
        u.arbitrary()
    } else {
        Ok(u.choose(words.strings)?.to_string())
    }
}
