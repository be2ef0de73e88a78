//! Who hears about a compile: a component not found in the compile cache is compiled at load,
//! which takes seconds for a large one (a Python hook's 19 MB component: about 10 s with a cold
//! cache). A [`CompileObserver`] is told when each compile starts and ends, so that a command
//! line can show what it is waiting for instead of sitting silent.

use std::sync::Arc;
use std::time::Duration;

/// A compile, as it starts and as it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompileEvent<'a> {
    /// A hook's component is about to be compiled.
    Started {
        /// The hook's name.
        hook: &'a str,
        /// The size of its component file, in bytes.
        bytes: u64,
    },
    /// It was compiled (or failed to: loading reports that).
    Finished {
        /// The hook's name.
        hook: &'a str,
        /// The size of its component file, in bytes.
        bytes: u64,
        /// How long the compile took.
        elapsed: Duration,
    },
}

/// Told of every compile while hooks load ([`crate::RunnerOptions::compile_observer`]), on
/// the loading thread. A hit in the compile cache is never told: nothing is compiled.
#[derive(Clone)]
pub struct CompileObserver(Arc<dyn Fn(CompileEvent<'_>) + Send + Sync>);

impl CompileObserver {
    /// An observer that calls `tell` for each event.
    pub fn new(tell: impl Fn(CompileEvent<'_>) + Send + Sync + 'static) -> CompileObserver {
        CompileObserver(Arc::new(tell))
    }

    pub fn tell(&self, event: CompileEvent<'_>) {
        (self.0)(event)
    }
}

impl std::fmt::Debug for CompileObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompileObserver")
    }
}
