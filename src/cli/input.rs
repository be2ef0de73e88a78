//! Reading what a command is given. Where a file is expected, what is not a regular file (a
//! FIFO would hang, `/dev/zero` would never end) is refused, and every read is bounded with a
//! clear "too large" error.

use std::io::Read as _;
use std::path::Path;

use anyhow::{Context as _, Result, bail};

/// The largest tool input read from a file or stdin: the limit of an agent's event too.
pub const INPUT_MAX_BYTES: u64 = hookhost::agent::EVENT_MAX_BYTES;

/// Refuses `path` unless it is a regular file (checked before it is opened: opening a FIFO
/// blocks until a writer comes).
pub fn regular_file(path: &Path, what: &str) -> Result<()> {
    let metadata = std::fs::metadata(path)
        .with_context(|| format!("cannot read the {what} {}", path.display()))?;
    if !metadata.is_file() {
        bail!(
            "the {what} {} is not a regular file (it is a {}); pass a file",
            path.display(),
            kind(&metadata)
        );
    }
    Ok(())
}

fn kind(metadata: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        "directory"
    } else if file_type.is_fifo() {
        "FIFO"
    } else if file_type.is_char_device() || file_type.is_block_device() {
        "device"
    } else if file_type.is_socket() {
        "socket"
    } else {
        "special file"
    }
}

/// Reads at most `limit` bytes of text from `reader`; more is an error naming `what`.
pub fn read_bounded(reader: impl std::io::Read, limit: u64, what: &str) -> Result<String> {
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read the {what}"))?;
    if bytes.len() as u64 > limit {
        bail!("the {what} is larger than {limit} bytes; hookhost reads at most that");
    }
    String::from_utf8(bytes).with_context(|| format!("the {what} is not UTF-8 text"))
}

/// A file's text, refused unless it is a regular file of at most `limit` bytes.
pub fn read_file(path: &Path, limit: u64, what: &str) -> Result<String> {
    regular_file(path, what)?;
    let file = std::fs::File::open(path)
        .with_context(|| format!("cannot open the {what} {}", path.display()))?;
    read_bounded(file, limit, &format!("{what} {}", path.display()))
}

/// The tool input: `--input`, or `--input-file` (`-` for stdin), or `{}`.
pub fn tool_input(text: Option<&str>, file: Option<&Path>) -> Result<String> {
    match (text, file) {
        (Some(text), _) => Ok(text.to_string()),
        (None, Some(file)) if file.as_os_str() == "-" => {
            read_bounded(std::io::stdin().lock(), INPUT_MAX_BYTES, "input on stdin")
        }
        (None, Some(file)) => read_file(file, INPUT_MAX_BYTES, "input file"),
        (None, None) => Ok("{}".to_string()),
    }
}

/// A password from the environment variable `--password-env` names.
pub fn password_from(var: &str) -> Result<String> {
    std::env::var(var)
        .with_context(|| format!("the environment variable {var} (--password-env) is not set"))
}
