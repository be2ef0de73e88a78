//! The stdin object a protocol writes, each key at most once.
//!
//! A protocol writes the keys it derives from the event first (`hook_event_name`, `tool_name`,
//! `tool_input`, forgeflare's `event` and `input`, Copilot's `toolArgs`, ...), then the event's
//! other fields under their own names. A field can carry one of those names (a custom event's
//! payload, an embedder's `with_field`): written again, the object would hold the key twice,
//! and JSON readers differ on which one counts (most keep the last, so a guard would read the
//! field, not the tool call the agent runs; found by fuzzing, `protocol`). The first entry of a
//! key is the one kept: the event's own structure wins over a field of the same name.

use serde::Serialize;
use serde::ser::{SerializeMap as _, Serializer as _};
use serde_json::ser::{Compound, CompactFormatter};

/// One stdin object being written: what [`super::to_json`] hands a protocol's `write`.
pub(crate) struct Entries<'a> {
    map: Compound<'a, &'a mut Vec<u8>, CompactFormatter>,
    /// The keys written so far, as their JSON text: an object has a few dozen at most.
    keys: Vec<String>,
}

impl<'a> Entries<'a> {
    /// Opens the object.
    pub(super) fn open(
        serializer: &'a mut serde_json::Serializer<&'a mut Vec<u8>>,
    ) -> Result<Entries<'a>, serde_json::Error> {
        Ok(Entries {
            map: serializer.serialize_map(None)?,
            keys: Vec::new(),
        })
    }

    /// Writes `key: value`, unless `key` was written already.
    pub(crate) fn serialize_entry<K, V>(&mut self, key: &K, value: &V) -> serde_json::Result<()>
    where
        K: Serialize + ?Sized,
        V: Serialize + ?Sized,
    {
        let text = serde_json::to_string(key)?;
        if self.keys.contains(&text) {
            return Ok(());
        }
        self.keys.push(text);
        self.map.serialize_entry(key, value)
    }

    /// Closes the object.
    pub(super) fn close(self) -> serde_json::Result<()> {
        self.map.end()
    }
}
