//! The `[log]` table: where the decision log goes (one JSON record per event a hook saw), how
//! large it grows before it rotates, whether a record that cannot be written fails guards
//! closed, and what of the tool input and payload it keeps.

use std::path::PathBuf;

use toml::Spanned;
use toml::de::DeValue;

use super::Location;
use super::fields::{Problems, close_to};

/// `[log]` of a hooks.toml.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSpec {
    /// The log file: `~/` is the home directory; a relative path is relative to the
    /// configuration file's directory.
    pub path: PathBuf,
    /// The size past which the file rotates (`max_bytes`, default 10 MiB).
    pub max_bytes: u64,
    /// How many rotated files are kept (`keep`, default 5): `decisions.jsonl.1` is the newest.
    pub keep: u32,
    /// Whether guards fail closed while the log cannot be written (`required`, default false).
    pub required: bool,
    /// JSON pointers into a record that are removed (`drop`; default [`DEFAULT_DROP`]).
    pub drop: Vec<String>,
    /// JSON pointers into a record whose value is replaced by `sha256:HEX` (`hash`).
    pub hash: Vec<String>,
    /// Whether the text a tool writes is left out whatever the agent calls its fields
    /// (`drop_contents`): the contents of every write and edit tool of the tool vocabulary
    /// (Copilot's `file_text`/`old_str`/`new_str`, Cursor's `contents`, Codex's `apply_patch`
    /// body, ...). Default true; false when `drop` is set and `drop_contents` is not, so that a
    /// `[log]` written before it keeps what it kept.
    pub drop_contents: bool,
    /// Whether secrets (API keys, tokens, private keys, passwords in URLs and assignments) are
    /// replaced by `[REDACTED kind prefix…(N chars)]` in the input, the payload and every
    /// reason (`redact`, default true).
    pub redact: bool,
    /// Where the table is.
    pub location: Location,
}

impl LogSpec {
    /// `[log]` with every key at its default, and no path: what records keep when only the
    /// telemetry export is configured.
    pub fn defaults() -> LogSpec {
        LogSpec {
            path: PathBuf::new(),
            max_bytes: DEFAULT_MAX_BYTES,
            keep: DEFAULT_KEEP,
            required: false,
            drop: DEFAULT_DROP.iter().map(|p| p.to_string()).collect(),
            hash: Vec::new(),
            drop_contents: true,
            redact: true,
            location: Location::default(),
        }
    }
}

/// What a record leaves out unless `drop` says otherwise: file contents (what Write, Edit,
/// MultiEdit and NotebookEdit carry) and what a tool returned; commands and paths stay.
pub const DEFAULT_DROP: &[&str] = &[
    "/input/content",
    "/input/old_string",
    "/input/new_string",
    "/input/edits",
    "/input/new_source",
    "/payload/result",
    "/payload/tool_response",
];

/// The default `max_bytes`.
pub const DEFAULT_MAX_BYTES: u64 = 10 << 20;
/// The smallest `max_bytes`: a record is at most a few tens of kilobytes.
pub const MIN_MAX_BYTES: u64 = 64 << 10;
/// The default `keep`.
pub const DEFAULT_KEEP: u32 = 5;

const KEYS: &[&str] = &[
    "path",
    "max_bytes",
    "keep",
    "required",
    "drop",
    "hash",
    "drop_contents",
    "redact",
];

pub(super) fn parse_log(value: &Spanned<DeValue<'_>>, sink: &mut Problems<'_>) -> Option<LogSpec> {
    let location = sink.lines.locate(value.span().start);
    let DeValue::Table(table) = value.get_ref() else {
        sink.push(
            &value.span(),
            None,
            "`log` must be a table: write it as `[log]`".to_string(),
        );
        return None;
    };
    let errors = sink.len();
    let mut spec = LogSpec {
        location,
        ..LogSpec::defaults()
    };
    let mut has_path = false;
    let mut drop_contents = None;
    let mut drop_given = false;
    for (key, value) in table.iter() {
        let name = key.get_ref().as_ref();
        let mut wrong = |expected: &str| {
            sink.push(
                &value.span(),
                None,
                format!(
                    "`log.{name}` must be {expected}, found {}",
                    value.get_ref().type_str()
                ),
            )
        };
        match (name, value.get_ref()) {
            ("path", DeValue::String(path)) if !path.trim().is_empty() => {
                spec.path = PathBuf::from(path.as_ref());
                has_path = true;
            }
            ("path", _) => wrong("a non-empty string (the log file)"),
            ("max_bytes", DeValue::Integer(n)) => match u64::from_str_radix(n.as_str(), n.radix()) {
                Ok(bytes) if bytes >= MIN_MAX_BYTES => spec.max_bytes = bytes,
                _ => sink.push(
                    &value.span(),
                    None,
                    format!(
                        "`log.max_bytes` must be at least {MIN_MAX_BYTES} (a record is up to tens of kilobytes), found {}",
                        n.as_str()
                    ),
                ),
            },
            ("max_bytes", _) => wrong("an integer"),
            ("keep", DeValue::Integer(n)) => match u32::from_str_radix(n.as_str(), n.radix()) {
                Ok(keep) if keep <= 100 => spec.keep = keep,
                _ => sink.push(
                    &value.span(),
                    None,
                    format!("`log.keep` must be between 0 and 100, found {}", n.as_str()),
                ),
            },
            ("keep", _) => wrong("an integer"),
            ("required", DeValue::Boolean(required)) => spec.required = *required,
            ("required", _) => wrong("true or false"),
            ("drop_contents", DeValue::Boolean(on)) => drop_contents = Some(*on),
            ("redact", DeValue::Boolean(on)) => spec.redact = *on,
            ("drop_contents" | "redact", _) => wrong("true or false"),
            ("drop" | "hash", DeValue::Array(items)) => {
                let mut pointers = Vec::new();
                for item in items.iter() {
                    match item.get_ref() {
                        DeValue::String(pointer) => match check_pointer(pointer) {
                            Ok(()) => pointers.push(pointer.to_string()),
                            Err(message) => sink.push(&item.span(), None, message),
                        },
                        other => sink.push(
                            &item.span(),
                            None,
                            format!(
                                "`log.{name}` holds JSON pointers (strings such as \"/input/content\"), found {}",
                                other.type_str()
                            ),
                        ),
                    }
                }
                if name == "drop" {
                    drop_given = true;
                    spec.drop = pointers;
                } else {
                    spec.hash = pointers;
                }
            }
            ("drop" | "hash", _) => wrong("a list of JSON pointers"),
            (other, _) => {
                let meant = close_to(KEYS, other)
                    .map(|k| format!("did you mean `{k}`? "))
                    .unwrap_or_default();
                sink.push(
                    &key.span(),
                    None,
                    format!(
                        "unknown key `log.{}`; {meant}[log] takes {}",
                        crate::text::name(other),
                        KEYS.join(", ")
                    ),
                );
            }
        }
    }
    // A `drop` written before `drop_contents` existed said everything that was left out.
    spec.drop_contents = drop_contents.unwrap_or(!drop_given);
    if !has_path && sink.len() == errors {
        sink.push(
            &value.span(),
            None,
            "`[log]` needs `path`, the file decision records are appended to".to_string(),
        );
    }
    (sink.len() == errors).then_some(spec)
}

/// A JSON pointer into a record's user data: `/input/...` or `/payload/...`, RFC 6901 escapes.
fn check_pointer(pointer: &str) -> Result<(), String> {
    let shown = crate::text::quote(pointer);
    let mut segments = pointer.strip_prefix('/').map(|rest| rest.split('/'));
    match segments.as_mut().and_then(Iterator::next) {
        Some("input" | "payload") => {}
        _ => {
            return Err(format!(
                "{shown} is not a JSON pointer into what a record holds of the event: start it \
                 with /input/ (the tool's input) or /payload/ (the event's other fields)"
            ));
        }
    }
    for segment in segments.into_iter().flatten() {
        let mut chars = segment.chars();
        while let Some(c) = chars.next() {
            if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
                return Err(format!(
                    "{shown} has a `~` that is not `~0` or `~1` (RFC 6901 escapes)"
                ));
            }
        }
    }
    Ok(())
}
