//! Unit-testing hooks natively, with plain `cargo test`: the host functions ([`crate::log`],
//! [`crate::config`], [`crate::state`]) use an in-memory host, one per test thread, that
//! these functions control. Event constructors live on the event types
//! ([`crate::ToolCall::bash_command`], [`crate::PostEvent::new`], ...).
//!
//! ```
//! use hook_sdk::{Guard, Hook, ToolCall, testing};
//!
//! struct NoSudo;
//! impl Hook for NoSudo {
//!     fn guard(call: &ToolCall) -> Guard {
//!         let max: u32 = hook_sdk::config::<serde_json::Value>().ok()
//!             .and_then(|c| c["max"].as_u64()).unwrap_or(0) as u32;
//!         match call.shell() {
//!             Some(shell) if shell.command.starts_with("sudo") && max == 0 => Guard::block("no sudo"),
//!             _ => Guard::Allow,
//!         }
//!     }
//! }
//!
//! testing::set_config(serde_json::json!({ "max": 0 }));
//! assert_eq!(NoSudo::guard(&ToolCall::bash_command("sudo rm x")), Guard::block("no sudo"));
//! ```

#![cfg(not(target_arch = "wasm32"))]

use std::cell::RefCell;
use std::collections::HashMap;

use crate::host::Level;

/// The in-memory host of the current test thread.
pub(crate) struct TestHost {
    pub(crate) config: String,
    pub(crate) state: HashMap<String, Vec<u8>>,
    pub(crate) logs: Vec<(Level, String)>,
}

impl Default for TestHost {
    fn default() -> TestHost {
        TestHost {
            config: "{}".to_string(),
            state: HashMap::new(),
            logs: Vec::new(),
        }
    }
}

thread_local! {
    pub(crate) static TEST_HOST: RefCell<TestHost> = RefCell::new(TestHost::default());
}

/// Sets what [`crate::config`] returns on this thread (the hook's `[hooks.config]`).
pub fn set_config(config: serde_json::Value) {
    TEST_HOST.with(|host| host.borrow_mut().config = config.to_string());
}

/// The messages logged on this thread so far, oldest first.
pub fn logs() -> Vec<(Level, String)> {
    TEST_HOST.with(|host| host.borrow().logs.clone())
}

/// Clears this thread's config, state and logs.
pub fn reset() {
    TEST_HOST.with(|host| *host.borrow_mut() = TestHost::default());
}
