//! The recorder: drafts queued on the calling path, and the writer thread that turns them into
//! records, appends them to the log and hands them to the export.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{DecisionFile, DecisionLog, Draft, Masks, new_id};
use crate::config::LogSpec;

/// Where records go besides the log's file: OpenTelemetry export. Called on the recorder's
/// writer thread only, never on the calling path.
pub trait Export: Send + Sync + std::fmt::Debug {
    /// Exports a batch of records (masked as the log's are).
    fn export(&self, records: &[serde_json::Value]);
    /// Counts records the log could not write.
    fn count_dropped(&self, records: u64);
    /// Sends what is pending, within the export's own bound, when the recorder goes away; a
    /// warning when something was lost.
    fn finish(&self) -> Option<String>;
}

/// Records each outcome a runner hands it: into the decision log's file, to the export, or
/// both.
///
/// Drafts are queued for a writer thread, which wakes when a batch is full or `LINGER` after
/// the first draft of a batch arrived, builds the records and appends them under one lock: the
/// calling path pays for copying the draft, not for JSON or the file. The queue is bounded (a
/// full queue makes the caller wait: backpressure, never a lost record), and the writer is
/// joined, every queued record written and exported, when the recorder is dropped (the last
/// runner holding it). A `required` log is written on the calling path, whose caller must know
/// the record is there; its export still goes through the writer.
#[derive(Debug)]
pub struct Recorder {
    log: Option<DecisionLog>,
    export: Option<Arc<dyn Export>>,
    /// `[log]`'s masks, read (the defaults when only the export is on).
    pub(crate) masks: Arc<Masks>,
    shared: Arc<Shared>,
    writer: OnceLock<Result<JoinHandle<()>, String>>,
    /// A problem to say once, on the next outcome (telemetry that could not start); the flag
    /// keeps the lock off the calling path when there is none.
    notice: Mutex<Option<String>>,
    has_notice: std::sync::atomic::AtomicBool,
}

/// A draft waiting for the writer.
#[derive(Debug)]
struct Pending {
    draft: Draft,
    /// Its decision id when it was already written (a `required` log): the export uses it.
    written: Option<String>,
}

/// What callers and the writer share.
#[derive(Debug, Default)]
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a batch starts or fills, and when the recorder closes.
    arrived: Condvar,
    /// Signalled when the writer takes a batch (room for callers waiting on a full queue).
    space: Condvar,
    failed: Failed,
}

#[derive(Debug, Default)]
struct Queue {
    pending: Vec<Pending>,
    /// Batches the writer is done with, for a caller to free: memory is freed by the thread
    /// that allocated it, since a thread freeing another's allocations contends with it for
    /// the allocator's lock (glibc's arenas: a sixth of the calling path's time when the
    /// writer freed them).
    spent: Vec<Vec<Pending>>,
    closing: bool,
    /// Whether the writer took a batch yet: the first is taken at once (the record of a
    /// short-lived process's one event is written and exported while it answers the agent).
    lingering: bool,
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

impl Recorder {
    /// A recorder into `log`, exporting to `export`; `None` when neither is configured.
    pub fn new(log: Option<DecisionLog>, export: Option<Arc<dyn Export>>) -> Option<Recorder> {
        if log.is_none() && export.is_none() {
            return None;
        }
        let masks = match &log {
            Some(log) => Masks::new(&log.spec),
            None => Masks::new(&LogSpec::defaults()),
        };
        Some(Recorder {
            log,
            export,
            masks: Arc::new(masks),
            shared: Default::default(),
            writer: OnceLock::new(),
            notice: Mutex::new(None),
            has_notice: Default::default(),
        })
    }

    /// Says `problem` once, on the next outcome recorded.
    pub fn warn_once(&self, problem: String) {
        *self.notice.lock().unwrap_or_else(|e| e.into_inner()) = Some(problem);
        self.has_notice
            .store(true, std::sync::atomic::Ordering::Release);
    }

    /// The problem [`Recorder::warn_once`] was given, the first time it is asked for.
    pub fn take_notice(&self) -> Option<String> {
        if !self
            .has_notice
            .swap(false, std::sync::atomic::Ordering::Acquire)
        {
            return None;
        }
        self.notice.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// The decision log, when `[log]` configures one.
    pub fn log(&self) -> Option<&DecisionLog> {
        self.log.as_ref()
    }

    /// Whether a record must be in the log before the call returns (`[log] required`).
    pub fn required(&self) -> bool {
        self.log.as_ref().is_some_and(|log| log.spec.required)
    }

    /// The log's path, for messages (`the export` when there is no log).
    pub fn describe(&self) -> String {
        match &self.log {
            Some(log) => log.file.path().display().to_string(),
            None => "the telemetry export".to_string(),
        }
    }

    /// Records `draft`: in the log before returning when the log is `required`, through the
    /// writer otherwise (and to the export, always through the writer). An error when the
    /// required log could not be written, or the writer could not start.
    pub fn append(&self, draft: Draft) -> std::io::Result<()> {
        let mut written = None;
        if let Some(log) = self.log.as_ref().filter(|log| log.spec.required) {
            let id = new_id(draft.time());
            log.file.append_all(&[draft.to_line(&id, &self.masks)])?;
            if self.export.is_none() {
                return Ok(());
            }
            written = Some(id);
        }
        if let Err(why) = self.writer.get_or_init(|| self.spawn_writer()) {
            return Err(std::io::Error::other(format!(
                "the decision log's writer could not start: {why}"
            )));
        }
        let mut queue = self.shared.lock();
        while queue.pending.len() >= QUEUE {
            queue = self
                .shared
                .space
                .wait(queue)
                .unwrap_or_else(|e| e.into_inner());
        }
        queue.pending.push(Pending { draft, written });
        // The writer sleeps until a batch starts, then lingers until it fills: wake it then.
        if matches!(queue.pending.len(), 1 | BATCH) {
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
        // A load first: the calling path asks on every record, and there rarely is one.
        if failed.count.load(std::sync::atomic::Ordering::Relaxed) == 0 {
            return None;
        }
        let count = failed.count.swap(0, std::sync::atomic::Ordering::Relaxed);
        (count > 0).then(|| {
            let last = failed.last.lock().unwrap_or_else(|e| e.into_inner());
            (count, last.clone())
        })
    }

    fn spawn_writer(&self) -> Result<JoinHandle<()>, String> {
        let writer = Writer {
            shared: self.shared.clone(),
            file: self
                .log
                .as_ref()
                .filter(|log| !log.spec.required)
                .map(|log| log.file.clone()),
            export: self.export.clone(),
            masks: self.masks.clone(),
        };
        std::thread::Builder::new()
            .name("hookhost-log".into())
            .spawn(move || writer.run())
            .map_err(|error| error.to_string())
    }
}

/// The writer thread's part.
struct Writer {
    shared: Arc<Shared>,
    /// The log's file, unless the log is written on the calling path (`required`).
    file: Option<Arc<DecisionFile>>,
    export: Option<Arc<dyn Export>>,
    masks: Arc<Masks>,
}

impl Writer {
    fn run(self) {
        let mut buffer = Vec::new();
        let mut ends = Vec::new();
        let mut records = Vec::new();
        while let Some(batch) = self.shared.next_batch() {
            buffer.clear();
            ends.clear();
            records.clear();
            for pending in &batch {
                let draft = &pending.draft;
                let id = match &pending.written {
                    Some(id) => id.clone(),
                    None => new_id(draft.time()),
                };
                if self.file.is_some() && pending.written.is_none() {
                    draft.write_line(&id, &self.masks, &mut buffer);
                    ends.push(buffer.len());
                }
                if self.export.is_some() {
                    records.push(draft.to_record(&id, &self.masks));
                }
            }
            self.shared.lock().spent.push(batch);
            if let Some(file) = &self.file
                && !ends.is_empty()
            {
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
                    let failed = &self.shared.failed;
                    failed
                        .count
                        .fetch_add(lines.len() as u64, std::sync::atomic::Ordering::Relaxed);
                    *failed.last.lock().unwrap_or_else(|e| e.into_inner()) = error.to_string();
                    if let Some(export) = &self.export {
                        export.count_dropped(lines.len() as u64);
                    }
                }
            }
            if let Some(export) = &self.export {
                export.export(&records);
            }
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The writer's next batch: waits for a first draft, then until the batch fills, `LINGER`
    /// passes or the recorder closes. `None` once it is closed and nothing is left.
    fn next_batch(&self) -> Option<Vec<Pending>> {
        let mut queue = self.lock();
        while queue.pending.is_empty() {
            if queue.closing {
                return None;
            }
            queue = self.arrived.wait(queue).unwrap_or_else(|e| e.into_inner());
        }
        let deadline = Instant::now() + LINGER;
        while queue.lingering && queue.pending.len() < BATCH && !queue.closing {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break;
            };
            queue = self
                .arrived
                .wait_timeout(queue, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let batch = std::mem::take(&mut queue.pending);
        queue.lingering = true;
        drop(queue);
        self.space.notify_all();
        Some(batch)
    }
}

impl Drop for Recorder {
    /// Writes and exports every queued record before the recorder goes away (a process that
    /// exits after dropping its runner loses none), then lets the export finish within its
    /// bound.
    fn drop(&mut self) {
        if let Some(Ok(writer)) = self.writer.take() {
            self.shared.lock().closing = true;
            self.shared.arrived.notify_one();
            let _ = writer.join();
        }
        // No outcome is left to carry a warning (a short-lived `agent-hook`): say it here
        // rather than lose it.
        if let Some((count, why)) = self.take_failures() {
            eprintln!(
                "hookhost: {count} decision record(s) could not be written to {}: {why}",
                self.describe()
            );
        }
        if let Some(warning) = self.export.as_ref().and_then(|export| export.finish()) {
            eprintln!("hookhost: {warning}");
        }
    }
}
