//! The top-level sections of a WebAssembly binary (module or component), enough to add,
//! find and remove custom sections without touching anything else.

use std::ops::Range;

/// Custom section holding a bundle's metadata (JSON).
pub const METADATA_SECTION: &str = "hookhost.metadata";
/// Custom section holding one signature (a minisign signature, as text). A bundle may carry
/// several.
pub const SIGNATURE_SECTION: &str = "hookhost.signature";

const HEADER_LEN: usize = 8;

/// A section: its id, where it is in the file, and for custom sections (id 0) its name and
/// where its data is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The section id (0 for custom sections).
    pub id: u8,
    /// The whole section, header included.
    pub range: Range<usize>,
    /// For a custom section: its name and its data's range.
    pub custom: Option<(String, Range<usize>)>,
}

/// The file is not a well-formed WebAssembly binary at the section level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a well-formed WebAssembly binary: {0}")]
pub struct MalformedBinary(pub String);

/// The sections of `bytes`, in order.
pub fn sections(bytes: &[u8]) -> Result<Vec<Section>, MalformedBinary> {
    let malformed = |what: String| MalformedBinary(what);
    if bytes.len() < HEADER_LEN || &bytes[..4] != b"\0asm" {
        return Err(malformed(
            "it does not start with a WebAssembly header".into(),
        ));
    }
    let mut out = Vec::new();
    let mut at = HEADER_LEN;
    while at < bytes.len() {
        let start = at;
        let id = bytes[at];
        at += 1;
        let (size, used) = leb128(&bytes[at..])
            .ok_or_else(|| malformed(format!("bad section size at byte {at}")))?;
        at += used;
        let end = at
            .checked_add(size as usize)
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| {
                malformed(format!(
                    "the section at byte {start} runs past the end of the file"
                ))
            })?;
        let custom = if id == 0 {
            let (name_len, used) = leb128(&bytes[at..end])
                .ok_or_else(|| malformed(format!("bad custom section name at byte {at}")))?;
            let name_start = at + used;
            let name_end = name_start
                .checked_add(name_len as usize)
                .filter(|&e| e <= end)
                .ok_or_else(|| {
                    malformed(format!(
                        "custom section name at byte {at} runs past its section"
                    ))
                })?;
            let name = std::str::from_utf8(&bytes[name_start..name_end]).map_err(|_| {
                malformed(format!(
                    "custom section name at byte {name_start} is not UTF-8"
                ))
            })?;
            Some((name.to_string(), name_end..end))
        } else {
            None
        };
        out.push(Section {
            id,
            range: start..end,
            custom,
        });
        at = end;
    }
    Ok(out)
}

/// The data of every custom section called `name`, in order.
pub fn custom_sections<'b>(bytes: &'b [u8], name: &str) -> Result<Vec<&'b [u8]>, MalformedBinary> {
    Ok(sections(bytes)?
        .into_iter()
        .filter_map(|s| {
            s.custom
                .filter(|(n, _)| n == name)
                .map(|(_, data)| &bytes[data])
        })
        .collect())
}

/// `bytes` without the custom sections called `name`.
pub fn without_custom(bytes: &[u8], name: &str) -> Result<Vec<u8>, MalformedBinary> {
    let mut out = bytes[..HEADER_LEN.min(bytes.len())].to_vec();
    for section in sections(bytes)? {
        if section.custom.as_ref().is_some_and(|(n, _)| n == name) {
            continue;
        }
        out.extend_from_slice(&bytes[section.range]);
    }
    Ok(out)
}

/// `bytes` with a custom section `name` holding `data` appended.
pub fn with_custom(bytes: &[u8], name: &str, data: &[u8]) -> Vec<u8> {
    let mut payload = Vec::new();
    write_leb128(&mut payload, name.len() as u64);
    payload.extend_from_slice(name.as_bytes());
    payload.extend_from_slice(data);
    let mut out = bytes.to_vec();
    out.push(0);
    write_leb128(&mut out, payload.len() as u64);
    out.extend_from_slice(&payload);
    out
}

fn leb128(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().enumerate().take(5) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

fn write_leb128(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_finds_and_removes_custom_sections() {
        let empty = b"\0asm\x0d\x00\x01\x00".to_vec();
        let one = with_custom(&empty, "a", b"first");
        let two = with_custom(&one, "b", &vec![7; 300]);
        let three = with_custom(&two, "a", b"second");
        assert_eq!(
            custom_sections(&three, "a").unwrap(),
            [&b"first"[..], &b"second"[..]]
        );
        assert_eq!(custom_sections(&three, "b").unwrap()[0].len(), 300);
        assert_eq!(
            without_custom(&three, "a").unwrap(),
            with_custom(&empty, "b", &vec![7; 300])
        );
        assert_eq!(sections(&three).unwrap().len(), 3);
    }

    #[test]
    fn malformed_input_is_an_error() {
        assert!(sections(b"hello").is_err());
        let good = with_custom(b"\0asm\x0d\x00\x01\x00", "a", b"data");
        assert!(sections(&good[..good.len() - 1]).is_err(), "truncated");
        let mut oversized = good.clone();
        oversized[9] = 0x7f;
        assert!(sections(&oversized).is_err());
    }
}
