//! A bundle's metadata: what `hookhost inspect` shows without running the hook.

use serde::{Deserialize, Serialize};

use super::sections::{self, METADATA_SECTION, MalformedBinary};

/// Who a bundle is, and how to configure it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// The policy's name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The events (and phases) it implements, for example `PreToolUse/guard`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    /// The `[hooks.config]` it is meant to run with when none is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_config: Option<serde_json::Value>,
    /// A JSON Schema of its `[hooks.config]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_schema: Option<serde_json::Value>,
}

/// The metadata of a bundle, if it has any.
pub fn read_metadata(bytes: &[u8]) -> Result<Option<Metadata>, String> {
    let found = sections::custom_sections(bytes, METADATA_SECTION)
        .map_err(|e: MalformedBinary| e.to_string())?;
    match found.as_slice() {
        [] => Ok(None),
        [data] => serde_json::from_slice(data)
            .map(Some)
            .map_err(|e| format!("its {METADATA_SECTION} section is not valid metadata: {e}")),
        _ => Err(format!(
            "it has {} {METADATA_SECTION} sections; a bundle has one",
            found.len()
        )),
    }
}

/// `bytes` with `metadata` as its only metadata section.
pub fn with_metadata(bytes: &[u8], metadata: &Metadata) -> Result<Vec<u8>, MalformedBinary> {
    let stripped = sections::without_custom(bytes, METADATA_SECTION)?;
    let json = serde_json::to_vec(metadata).expect("metadata serializes");
    Ok(sections::with_custom(&stripped, METADATA_SECTION, &json))
}
