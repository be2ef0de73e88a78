//! `hookhost log --export`: the records of the decision log not sent yet, sent to the
//! collector of the user's `[telemetry]` (or the `OTEL_*` variables). With `spool = true`,
//! agent processes leave their records in the log and send nothing (no process waits on a
//! collector); a timer or the team's scheduler runs this instead.
//!
//! How far it got is kept beside the log (`FILE.exported`): the first record's id of the file
//! it read last, and how many bytes of it were sent. The next export starts there, in that file
//! or in the rotated file that now begins with that record, and goes on through the newer ones;
//! a cursor whose file rotated away is said, and everything left is sent. A collector that did
//! not take everything leaves the cursor where it was: the next export sends the same records
//! again (their spans keep their ids: the trace id is the decision id).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use hookhost::Layers;
use hookhost::telemetry::Telemetry;
use serde_json::Value;

/// Records handed to the exporter at once.
const CHUNK: usize = 512;

/// Where an export stopped.
#[derive(Debug, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
struct Cursor {
    /// The id of the first record of the file the export read last.
    first: String,
    /// The bytes of that file that were sent.
    offset: u64,
}

pub fn run(layers: &Layers) -> Result<ExitCode> {
    let Some(log) = layers.decision_log()? else {
        bail!(
            "no decision log is configured: --export sends the records of the log [log] \
             configures; add one to your hooks.toml"
        );
    };
    let (table, _) = layers.telemetry()?;
    let spec = table.as_ref();
    let telemetry = Telemetry::new(spec, &|name| std::env::var(name).ok())
        .context("telemetry cannot start")?
        .context(
            "telemetry is not configured: add a [telemetry] table with an `endpoint` to your \
             hooks.toml, or set OTEL_EXPORTER_OTLP_ENDPOINT",
        )?;
    let cursor_path = log.file.beside(".exported");
    // One export at a time: two would send the same records and race on the cursor.
    let lock = log.file.beside(".exported.lock");
    let Some(_held) = hookhost::decision::FileLock::try_exclusive(&lock)
        .with_context(|| format!("cannot lock {}", lock.display()))?
    else {
        bail!(
            "another `hookhost log --export` is running (it holds {}): let it finish",
            lock.display()
        );
    };
    let cursor: Option<Cursor> = match std::fs::read(&cursor_path) {
        Ok(bytes) => Some(serde_json::from_slice(&bytes).with_context(|| {
            format!(
                "{} is not an export cursor: delete it to send the whole log again",
                cursor_path.display()
            )
        })?),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => {
            return Err(error).with_context(|| format!("cannot read {}", cursor_path.display()));
        }
    };
    // Oldest first, the files that exist, each with its first record's id.
    let files: Vec<(PathBuf, Option<String>)> = log
        .files()
        .into_iter()
        .filter(|path| path.exists())
        .map(|path| {
            let first = first_id(&path);
            (path, first)
        })
        .collect();
    let (mut start, mut offset) = (0, 0);
    if let Some(cursor) = &cursor {
        match files
            .iter()
            .position(|(_, first)| first.as_deref() == Some(cursor.first.as_str()))
        {
            Some(index) => (start, offset) = (index, cursor.offset),
            None => eprintln!(
                "the file the last export stopped in (its first record {}) has rotated away: \
                 records written between then and the oldest file kept were not sent",
                cursor.first
            ),
        }
    }
    let mut records = Vec::new();
    let mut skipped = 0usize;
    let mut next = cursor;
    for (index, (path, first)) in files.iter().enumerate().skip(start) {
        let from = if index == start { offset } else { 0 };
        let (lines, end) = whole_lines(path, from)?;
        for line in lines.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            match serde_json::from_slice::<Value>(line) {
                Ok(record) if hookhost::decision::is_record(&record) => records.push(record),
                _ => skipped += 1,
            }
        }
        if let Some(first) = first {
            next = Some(Cursor {
                first: first.clone(),
                offset: end,
            });
        }
    }
    for chunk in records.chunks(CHUNK) {
        telemetry.export(chunk);
    }
    let bound = spec.and_then(|spec| spec.timeout_ms).map_or(
        hookhost::telemetry::DEFAULT_TIMEOUT,
        std::time::Duration::from_millis,
    );
    let shutdown = telemetry.shutdown(bound * 2);
    if let Some(warning) = shutdown.warning() {
        bail!(
            "{warning}: nothing is marked as sent, and the next `hookhost log --export` sends \
             these {} record(s) again",
            records.len()
        );
    }
    if let Some(next) = next {
        write_atomically(&cursor_path, &serde_json::to_vec(&next)?)?;
    }
    println!(
        "exported {} record(s) from {}",
        records.len(),
        log.file.path().display()
    );
    if skipped > 0 {
        eprintln!("skipped {skipped} line(s) that are not decision records");
    }
    Ok(ExitCode::SUCCESS)
}

/// The id of the first record of the file at `path`, when its first line is one.
fn first_id(path: &Path) -> Option<String> {
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(64 << 10)
        .read_to_end(&mut head)
        .ok()?;
    let line = head.split(|b| *b == b'\n').next()?;
    let record: Value = serde_json::from_slice(line).ok()?;
    Some(record.get("id")?.as_str()?.to_string())
}

/// The whole lines of the file at `path` from byte `from` (a line a writer is still writing
/// waits for the next export), and the offset after them.
fn whole_lines(path: &Path, from: u64) -> Result<(Vec<u8>, u64)> {
    use std::io::Seek as _;
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let len = file.metadata()?.len();
    // A file shorter than the cursor is not the one it points into: read it all.
    let from = if from > len { 0 } else { from };
    file.seek(std::io::SeekFrom::Start(from))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(whole);
    Ok((bytes, from + whole as u64))
}

/// Writes `bytes` to `path` whole and durably: a cursor is whole or absent.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    hookhost::durable::write_atomically(path, bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}
