//! What a command shows while wasm hooks compile: on a terminal, a progress line per compile
//! (the hook, its size, the time so far) that becomes `Compiled NAME (SIZE) in TIME`, as
//! cargo's do; nothing at all on a pipe. `hookhost check` also lists, in its summary, which
//! hooks were compiled and which came from the cache.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookhost::wasm::{CompileEvent, CompileObserver};

/// One compile: the hook, its component's size, how long it took.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub hook: String,
    pub bytes: u64,
    pub elapsed: Duration,
}

/// The compiles seen so far.
pub type Compiles = Arc<Mutex<Vec<Compiled>>>;

/// Shows each compile of a runner loaded with `options` on stderr when it is a terminal, and
/// records it.
pub fn watch_compiles(options: &mut hookhost::RunnerOptions) -> Compiles {
    let compiles = Compiles::default();
    let seen = compiles.clone();
    let line: Mutex<Option<indicatif::ProgressBar>> = Mutex::new(None);
    options.compile_observer = Some(CompileObserver::new(move |event| {
        let mut line = line.lock().unwrap_or_else(|e| e.into_inner());
        match event {
            CompileEvent::Started { hook, bytes } => {
                // Hidden (drawing nothing) unless stderr is a terminal.
                let bar = indicatif::ProgressBar::new_spinner().with_style(
                    indicatif::ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                        .expect("a valid template"),
                );
                bar.set_message(format!(
                    "Compiling {} ({})",
                    super::render::safe(hook),
                    indicatif::HumanBytes(bytes)
                ));
                bar.tick();
                bar.enable_steady_tick(Duration::from_millis(100));
                *line = Some(bar);
            }
            CompileEvent::Finished {
                hook,
                bytes,
                elapsed,
            } => {
                if let Some(bar) = line.take() {
                    bar.println(format!("    Compiled {}", describe(hook, bytes, elapsed)));
                    bar.finish_and_clear();
                }
                seen.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(Compiled {
                        hook: hook.to_string(),
                        bytes,
                        elapsed,
                    });
            }
        }
    }));
    compiles
}

/// `py-guard (18.73 MiB) in 9.61s`.
pub fn describe(hook: &str, bytes: u64, elapsed: Duration) -> String {
    format!(
        "{} ({}) in {}",
        super::render::safe(hook),
        indicatif::HumanBytes(bytes),
        super::render::duration(elapsed)
    )
}
