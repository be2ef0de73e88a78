//! Async hooks (`async = true`): observers whose answer cannot change anything (audit trails,
//! telemetry, notifications) run in the background, so a slow one never delays a guard.
//!
//! At most [`crate::RunnerOptions::background_limit`] run at once; the rest wait in a queue.
//! When the queue is full, the next async hook runs in the foreground instead: backpressure,
//! never a lost audit line. [`crate::Runner::flush`] (and `SessionEnd`) waits for them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{Notify, Semaphore};

use super::call::view_of;
use super::{Inner, LoadedHook};
use crate::event::{OwnedEvent, Phase};
use crate::outcome::{Decision, HookReport};
use crate::runtime::EventCache;

/// Async calls that may wait for a slot before the next one runs in the foreground.
const QUEUE_LIMIT: usize = 1024;

/// What [`crate::Runner::flush`] found.
#[derive(Debug, Default)]
pub struct Flushed {
    /// Every async call that finished since the last flush, in the order they finished.
    pub reports: Vec<HookReport>,
    /// Async calls still running or queued when the flush gave up waiting.
    pub pending: usize,
}

#[derive(Debug)]
pub(super) struct Background {
    slots: Arc<Semaphore>,
    /// Submitted and not finished (queued or running).
    unfinished: AtomicUsize,
    /// Submitted and waiting for a slot.
    queued: AtomicUsize,
    finished: Mutex<Vec<HookReport>>,
    idle: Notify,
}

/// One async hook call, owning everything it needs.
pub(super) struct Job {
    pub(super) hook: Arc<LoadedHook>,
    pub(super) event: OwnedEvent,
    pub(super) input: Option<Value>,
    pub(super) observed: Option<Decision>,
}

impl Job {
    async fn run(self, inner: &Inner) -> HookReport {
        let event = self.event.view();
        let view = view_of(
            inner,
            &event,
            event.spec(),
            self.input.as_ref(),
            Phase::Observe,
            self.observed.as_ref(),
        );
        inner.call(&self.hook, view, &EventCache::default()).await
    }
}

impl Background {
    pub(super) fn new(limit: usize) -> Background {
        Background {
            slots: Arc::new(Semaphore::new(limit.max(1))),
            unfinished: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            finished: Mutex::new(Vec::new()),
            idle: Notify::new(),
        }
    }

    fn finish(&self, report: HookReport) {
        self.finished
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(report);
    }

    pub(super) async fn flush(&self, timeout: Duration) -> Flushed {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.unfinished.load(Ordering::SeqCst) == 0 {
                break;
            }
            if tokio::time::timeout_at(deadline, idle).await.is_err() {
                break;
            }
        }
        Flushed {
            reports: std::mem::take(&mut *self.finished.lock().unwrap_or_else(|e| e.into_inner())),
            pending: self.unfinished.load(Ordering::SeqCst),
        }
    }
}

/// Counts a job as finished however its task ends.
struct Unfinished(Arc<Inner>);

impl Drop for Unfinished {
    fn drop(&mut self) {
        let background = &self.0.background;
        if background.unfinished.fetch_sub(1, Ordering::SeqCst) == 1 {
            background.idle.notify_waiters();
        }
    }
}

/// Runs `job` in the background, or here when the queue is full.
pub(super) async fn submit(inner: &Arc<Inner>, job: Job) {
    let background = &inner.background;
    if background.queued.load(Ordering::SeqCst) >= QUEUE_LIMIT {
        let report = job.run(inner).await;
        background.finish(report);
        return;
    }
    background.unfinished.fetch_add(1, Ordering::SeqCst);
    background.queued.fetch_add(1, Ordering::SeqCst);
    let guard = Unfinished(inner.clone());
    tokio::spawn(async move {
        let inner = &guard.0;
        let slot = inner.background.slots.clone().acquire_owned().await;
        inner.background.queued.fetch_sub(1, Ordering::SeqCst);
        let report = job.run(inner).await;
        drop(slot);
        inner.background.finish(report);
        drop(guard);
    });
}
