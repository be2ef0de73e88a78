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
//! A leaf on top of the runner's types: the runner hands it a [`Draft`] of each outcome (a copy
//! of what the record says, taken on the calling path), the log's writer thread turns drafts
//! into records (`record`) and appends them in batches to the file (`file`), one line each.

mod file;
mod record;

pub use file::DecisionFile;
pub(crate) use record::new_id;
pub(crate) use record::{Context, Masks};
pub use record::{Draft, Provenance, record};

use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::config::LogSpec;

/// A configured decision log: the file, what records keep, and the writer that appends them.
///
/// Drafts of a log that is not `required` are queued for a writer thread, which wakes when a
/// batch is full or `LINGER` after the first draft of a batch arrived, builds the records and
/// appends them under one lock: the calling path pays for copying the draft, not for JSON or
/// the file. The queue is bounded (a full queue makes the caller wait: backpressure, never a
/// lost record), and the writer is joined, every queued record written, when the log is
/// dropped (the last runner holding it). A `required` log is written on the calling path,
/// whose caller must know the record is there.
#[derive(Debug)]
pub struct DecisionLog {
    /// The file records are appended to.
    pub file: Arc<DecisionFile>,
    /// `[log]` as configured.
    pub spec: Arc<LogSpec>,
    /// `[log]`'s masks, read.
    pub(crate) masks: Arc<Masks>,
    shared: Arc<Shared>,
    writer: OnceLock<Result<JoinHandle<()>, String>>,
}

/// What callers and the writer share.
#[derive(Debug, Default)]
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a batch starts or fills, and when the log closes.
    arrived: Condvar,
    /// Signalled when the writer takes a batch (room for callers waiting on a full queue).
    space: Condvar,
    failed: Failed,
}

#[derive(Debug, Default)]
struct Queue {
    drafts: Vec<Draft>,
    /// Batches the writer is done with, for a caller to free: memory is freed by the thread
    /// that allocated it, since a thread freeing another's allocations contends with it for
    /// the allocator's lock (glibc's arenas: a sixth of the calling path's time when the
    /// writer freed them).
    spent: Vec<Vec<Draft>>,
    closing: bool,
}

/// Records the writer could not write since they were last reported, and why the last did not.
#[derive(Debug, Default)]
struct Failed {
    count: std::sync::atomic::AtomicU64,
    last: Mutex<String>,
}

/// Drafts the writer takes at once, at most.
const BATCH: usize = 256;
/// Drafts waiting for the writer, at most: past this, callers wait.
const QUEUE: usize = 4 * BATCH;
/// How long the writer waits for a batch to fill once its first draft arrived: how late a
/// record can reach the file in a process that goes on running.
const LINGER: Duration = Duration::from_millis(25);

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
            file: Arc::new(DecisionFile::new(path, spec.max_bytes, spec.keep)),
            masks: Arc::new(Masks::new(&spec)),
            spec: Arc::new(spec),
            shared: Default::default(),
            writer: OnceLock::new(),
        }
    }

    /// Writes the record of `draft` before returning: what a `required` log does.
    pub fn write(&self, draft: Draft) -> std::io::Result<()> {
        let id = new_id(draft.time());
        self.file.append_all(&[draft.to_line(&id, &self.masks)])
    }

    /// Writes the record of `draft`: before returning for a `required` log, through the
    /// writer otherwise.
    pub fn append(&self, draft: Draft) -> std::io::Result<()> {
        if self.spec.required {
            return self.write(draft);
        }
        if let Err(why) = self.writer.get_or_init(|| self.spawn_writer()) {
            return Err(std::io::Error::other(format!(
                "the decision log's writer could not start: {why}"
            )));
        }
        let mut queue = self.shared.lock();
        while queue.drafts.len() >= QUEUE {
            queue = self
                .shared
                .space
                .wait(queue)
                .unwrap_or_else(|e| e.into_inner());
        }
        queue.drafts.push(draft);
        // The writer sleeps until a batch starts, then lingers until it fills: wake it then.
        if matches!(queue.drafts.len(), 1 | BATCH) {
            self.shared.arrived.notify_one();
        }
        let spent = std::mem::take(&mut queue.spent);
        drop(queue);
        drop(spent);
        Ok(())
    }

    /// How many queued records could not be written since the last call, and why the last one
    /// could not: the warning the next outcome carries.
    pub fn take_failures(&self) -> Option<(u64, String)> {
        let failed = &self.shared.failed;
        let count = failed.count.swap(0, std::sync::atomic::Ordering::Relaxed);
        (count > 0).then(|| {
            let last = failed.last.lock().unwrap_or_else(|e| e.into_inner());
            (count, last.clone())
        })
    }

    fn spawn_writer(&self) -> Result<JoinHandle<()>, String> {
        let shared = self.shared.clone();
        let file = self.file.clone();
        let masks = self.masks.clone();
        std::thread::Builder::new()
            .name("hookhost-log".into())
            .spawn(move || {
                let mut buffer = Vec::new();
                let mut ends = Vec::new();
                while let Some(batch) = shared.next_batch() {
                    buffer.clear();
                    ends.clear();
                    for draft in &batch {
                        draft.write_line(&new_id(draft.time()), &masks, &mut buffer);
                        ends.push(buffer.len());
                    }
                    shared.lock().spent.push(batch);
                    let lines: Vec<&[u8]> = ends
                        .iter()
                        .scan(0, |start, &end| {
                            let line = &buffer[*start..end];
                            *start = end;
                            Some(line)
                        })
                        .filter(|line| !line.is_empty())
                        .collect();
                    if let Err(error) = file.append_all(&lines) {
                        shared
                            .failed
                            .count
                            .fetch_add(lines.len() as u64, std::sync::atomic::Ordering::Relaxed);
                        *shared.failed.last.lock().unwrap_or_else(|e| e.into_inner()) =
                            error.to_string();
                    }
                }
            })
            .map_err(|error| error.to_string())
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The writer's next batch: waits for a first draft, then until the batch fills, `LINGER`
    /// passes or the log closes. `None` once the log is closed and nothing is left.
    fn next_batch(&self) -> Option<Vec<Draft>> {
        let mut queue = self.lock();
        while queue.drafts.is_empty() {
            if queue.closing {
                return None;
            }
            queue = self.arrived.wait(queue).unwrap_or_else(|e| e.into_inner());
        }
        let deadline = Instant::now() + LINGER;
        while queue.drafts.len() < BATCH && !queue.closing {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break;
            };
            queue = self
                .arrived
                .wait_timeout(queue, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let batch = std::mem::take(&mut queue.drafts);
        drop(queue);
        self.space.notify_all();
        Some(batch)
    }
}

impl Drop for DecisionLog {
    /// Writes every queued record before the log goes away (a process that exits after
    /// dropping its runner loses none).
    fn drop(&mut self) {
        if let Some(Ok(writer)) = self.writer.take() {
            self.shared.lock().closing = true;
            self.shared.arrived.notify_one();
            let _ = writer.join();
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

#[cfg(test)]
mod tests;
