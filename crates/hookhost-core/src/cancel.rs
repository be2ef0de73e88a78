//! A cancellation token: how one side of a call tells the other that it gave up.
//!
//! Two uses, both at a language boundary (`hookhost::embed`): an embedder cancels a fire in
//! flight from another thread, and a foreign callback learns that hookhost abandoned its call
//! (its deadline passed, or the fire that made it was cancelled). The flag can be polled from
//! any thread (a Go or Python callback checks it between steps) and awaited (the fire waits on
//! it beside its hooks).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

/// A flag that goes from "running" to "cancelled" once and never back. Cheap to clone: clones
/// share the flag.
#[derive(Debug, Clone, Default)]
pub struct CancelToken {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    cancelled: AtomicBool,
    waiters: Notify,
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels: every clone reports it, and every task waiting in [`CancelToken::cancelled`]
    /// wakes up. Cancelling twice does nothing more.
    pub fn cancel(&self) {
        if !self.shared.cancelled.swap(true, Ordering::SeqCst) {
            self.shared.waiters.notify_waiters();
        }
    }

    /// True once [`CancelToken::cancel`] was called on this token or a clone.
    pub fn is_cancelled(&self) -> bool {
        self.shared.cancelled.load(Ordering::SeqCst)
    }

    /// Resolves when the token is cancelled (at once if it already is).
    pub async fn cancelled(&self) {
        loop {
            let notified = self.shared.waiters.notified();
            tokio::pin!(notified);
            // Registered before the check, so that a cancel between the two is not missed.
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }

    /// A guard that cancels this token when dropped, unless [`CancelOnDrop::disarm`]ed first:
    /// a call whose future is dropped (its fire was cancelled) tells its callee.
    pub(crate) fn cancel_on_drop(&self) -> CancelOnDrop {
        CancelOnDrop {
            token: Some(self.clone()),
        }
    }
}

/// Cancels its token when dropped (see [`CancelToken::cancel_on_drop`]).
#[derive(Debug)]
pub(crate) struct CancelOnDrop {
    token: Option<CancelToken>,
}

impl CancelOnDrop {
    /// The call finished: dropping the guard no longer cancels.
    pub(crate) fn disarm(mut self) {
        self.token = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(token) = self.token.take() {
            token.cancel();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_cancel_reaches_every_clone_and_wakes_waiters() {
        let token = CancelToken::new();
        let clone = token.clone();
        assert!(!clone.is_cancelled());
        let waiter = tokio::spawn(async move { clone.cancelled().await });
        tokio::task::yield_now().await;
        token.cancel();
        waiter.await.unwrap();
        assert!(token.is_cancelled());
        // Already cancelled: resolves at once.
        token.cancelled().await;
    }

    #[test]
    fn a_guard_cancels_unless_disarmed() {
        let token = CancelToken::new();
        token.cancel_on_drop().disarm();
        assert!(!token.is_cancelled());
        drop(token.cancel_on_drop());
        assert!(token.is_cancelled());
    }
}
