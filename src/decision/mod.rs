//! The decision log: one JSON record per event that reached a hook (OPA's decision logs,
//! Kubewarden's audit), appended to the file `[log]` names so that a team can answer what its
//! policies blocked, for whom, and how long they took.
//!
//! A record: a decision id (UUID v7, time-ordered), the time, the agent, session, cwd, event
//! and tool; the merged decision and the hook that decided it; and, per hook that ran, its
//! name, layer, source (a command, a file path or an `oci://` reference), the component's
//! digest and the keys that signed it, its mode, its verdict or failure, and the microseconds
//! it took; what hooks in monitor mode would have decided. The tool input and the payload
//! are kept under the masking rules of `[log]` (`drop`, `hash`: JSON pointers).
//!
//! A leaf on top of the runner's types: the runner hands it each outcome (`record`), and the
//! file (`file`) takes one line per record.

mod file;
mod record;

pub use file::DecisionFile;
pub(crate) use record::new_id;
pub use record::{Provenance, record};

use crate::config::LogSpec;

/// A configured decision log: the file, what records keep, and the writer that appends them.
///
/// Records of a log that is not `required` go through a bounded channel to a writer thread, so
/// that the calling path pays for building a record, not for the file; the writer is joined
/// (every queued record written) when the last runner holding the log is dropped. A `required`
/// log is written on the calling path, whose caller must know the record is there.
#[derive(Debug)]
pub struct DecisionLog {
    /// The file records are appended to.
    pub file: std::sync::Arc<DecisionFile>,
    /// `[log]` as configured.
    pub spec: LogSpec,
    writer: std::sync::Mutex<Option<Writer>>,
    failed: std::sync::Arc<Failed>,
}

#[derive(Debug)]
struct Writer {
    queue: std::sync::mpsc::SyncSender<Vec<u8>>,
    thread: std::thread::JoinHandle<()>,
}

/// Records the writer could not write since they were last reported, and why the last did not.
#[derive(Debug, Default)]
struct Failed {
    count: std::sync::atomic::AtomicU64,
    last: std::sync::Mutex<String>,
}

/// Records waiting for the writer; a full queue makes the caller wait (backpressure, never a
/// lost record).
const QUEUE: usize = 1024;

impl DecisionLog {
    /// The log `spec` describes; `base_dir` is its configuration file's directory.
    pub fn new(spec: LogSpec, base_dir: &std::path::Path) -> DecisionLog {
        let path = match spec.path.strip_prefix("~") {
            Ok(rest) => std::env::var_os("HOME")
                .map(|home| std::path::PathBuf::from(home).join(rest))
                .unwrap_or_else(|| spec.path.clone()),
            Err(_) => base_dir.join(&spec.path),
        };
        DecisionLog {
            file: std::sync::Arc::new(DecisionFile::new(path, spec.max_bytes, spec.keep)),
            spec,
            writer: std::sync::Mutex::new(None),
            failed: Default::default(),
        }
    }

    /// Appends `record` (one line of JSON): written before this returns for a `required` log,
    /// queued for the writer otherwise.
    pub fn append(&self, record: Vec<u8>) -> std::io::Result<()> {
        if self.spec.required {
            return self.file.append(&record);
        }
        let mut writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let writer = match &mut *writer {
            Some(writer) => writer,
            slot => slot.insert(self.spawn_writer()?),
        };
        writer
            .queue
            .send(record)
            .map_err(|_| std::io::Error::other("the decision log's writer stopped"))
    }

    /// How many queued records could not be written since the last call, and why the last one
    /// could not: the warning the next outcome carries.
    pub fn take_failures(&self) -> Option<(u64, String)> {
        let count = self
            .failed
            .count
            .swap(0, std::sync::atomic::Ordering::Relaxed);
        (count > 0).then(|| {
            let last = self.failed.last.lock().unwrap_or_else(|e| e.into_inner());
            (count, last.clone())
        })
    }

    fn spawn_writer(&self) -> std::io::Result<Writer> {
        let (queue, records) = std::sync::mpsc::sync_channel::<Vec<u8>>(QUEUE);
        let file = self.file.clone();
        let failed = self.failed.clone();
        let thread = std::thread::Builder::new()
            .name("hookhost-log".into())
            .spawn(move || {
                for record in records {
                    if let Err(error) = file.append(&record) {
                        failed
                            .count
                            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        *failed.last.lock().unwrap_or_else(|e| e.into_inner()) = error.to_string();
                    }
                }
            })?;
        Ok(Writer { queue, thread })
    }
}

impl Drop for DecisionLog {
    /// Writes every queued record before the log goes away (a process that exits after
    /// dropping its runner loses none).
    fn drop(&mut self) {
        let writer = self
            .writer
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(Writer { queue, thread }) = writer {
            drop(queue);
            let _ = thread.join();
        }
        // No outcome is left to carry the warning (a short-lived `agent-hook`): say it here
        // rather than lose it.
        if let Some((count, why)) = self.take_failures() {
            eprintln!(
                "hookhost: {count} decision record(s) could not be written to {}: {why}",
                self.file.path().display()
            );
        }
    }
}
