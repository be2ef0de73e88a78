//! What the host provides: logging, the hook's configuration, and state across calls.
//!
//! Inside hookhost these call the `host` and `state` imports of the WIT world. On any other
//! target (your `cargo test`), they use an in-memory stand-in that [`crate::testing`] controls,
//! per test thread.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// How important a log message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Fine detail.
    Trace,
    /// Diagnostics.
    Debug,
    /// Normal messages.
    Info,
    /// Something looks wrong.
    Warn,
    /// Something is wrong.
    Error,
}

/// Logging, shown on the agent's stderr as `[hook NAME] level: message`.
pub mod log {
    use super::Level;

    /// Logs `message` at `level`.
    pub fn log(level: Level, message: impl AsRef<str>) {
        super::imp::log(level, message.as_ref());
    }

    /// Logs at trace level.
    pub fn trace(message: impl AsRef<str>) {
        log(Level::Trace, message);
    }

    /// Logs at debug level.
    pub fn debug(message: impl AsRef<str>) {
        log(Level::Debug, message);
    }

    /// Logs at info level.
    pub fn info(message: impl AsRef<str>) {
        log(Level::Info, message);
    }

    /// Logs at warn level.
    pub fn warn(message: impl AsRef<str>) {
        log(Level::Warn, message);
    }

    /// Logs at error level.
    pub fn error(message: impl AsRef<str>) {
        log(Level::Error, message);
    }
}

/// The hook's `[hooks.config]` table could not be read into the requested type.
#[derive(Debug)]
pub struct ConfigError {
    message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid [hooks.config]: {}", self.message)
    }
}

impl std::error::Error for ConfigError {}

/// The hook's `[hooks.config]` table as JSON text (`{}` when there is none).
pub fn config_json() -> String {
    imp::config()
}

/// The hook's `[hooks.config]` table deserialized into `T`: declare your own type, with
/// `#[serde(default)]` for what may be omitted.
pub fn config<T: DeserializeOwned>() -> Result<T, ConfigError> {
    serde_json::from_str(&config_json()).map_err(|error| ConfigError {
        message: error.to_string(),
    })
}

/// A small key-value store that outlives a call (each call gets a fresh instance, so statics
/// do not). One store per hook and agent session, in memory; limits: keys up to 256 bytes,
/// values up to 64 KiB, 1024 keys.
pub mod state {
    use super::{DeserializeOwned, Serialize};

    /// The bytes stored under `key`.
    pub fn get(key: &str) -> Option<Vec<u8>> {
        super::imp::state_get(key)
    }

    /// Stores `value` under `key`; fails with a message when a limit would be exceeded.
    pub fn set(key: &str, value: &[u8]) -> Result<(), String> {
        super::imp::state_set(key, value)
    }

    /// Removes `key`.
    pub fn delete(key: &str) {
        super::imp::state_delete(key)
    }

    /// The value stored under `key` as JSON, deserialized; `None` if absent or not a `T`.
    pub fn get_json<T: DeserializeOwned>(key: &str) -> Option<T> {
        get(key).and_then(|bytes| serde_json::from_slice(&bytes).ok())
    }

    /// Stores `value` as JSON under `key`.
    pub fn set_json<T: Serialize>(key: &str, value: &T) -> Result<(), String> {
        let bytes = serde_json::to_vec(value).map_err(|e| e.to_string())?;
        set(key, &bytes)
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::Level;
    use crate::__bindings::hookhost::hooks::{host, state};

    pub(super) fn log(level: Level, message: &str) {
        let level = match level {
            Level::Trace => host::LogLevel::Trace,
            Level::Debug => host::LogLevel::Debug,
            Level::Info => host::LogLevel::Info,
            Level::Warn => host::LogLevel::Warn,
            Level::Error => host::LogLevel::Error,
        };
        host::log(level, message);
    }

    pub(super) fn config() -> String {
        host::config()
    }

    pub(super) fn state_get(key: &str) -> Option<Vec<u8>> {
        state::get(key)
    }

    pub(super) fn state_set(key: &str, value: &[u8]) -> Result<(), String> {
        state::set(key, value)
    }

    pub(super) fn state_delete(key: &str) {
        state::delete(key)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::Level;
    use crate::testing::TEST_HOST;

    pub(super) fn log(level: Level, message: &str) {
        TEST_HOST.with(|host| host.borrow_mut().logs.push((level, message.to_string())));
    }

    pub(super) fn config() -> String {
        TEST_HOST.with(|host| host.borrow().config.clone())
    }

    pub(super) fn state_get(key: &str) -> Option<Vec<u8>> {
        TEST_HOST.with(|host| host.borrow().state.get(key).cloned())
    }

    pub(super) fn state_set(key: &str, value: &[u8]) -> Result<(), String> {
        // The same limits as the real host, so that tests catch what production would refuse.
        if key.len() > 256 {
            return Err(format!(
                "state key is {} bytes; the limit is 256",
                key.len()
            ));
        }
        if value.len() > 64 * 1024 {
            return Err(format!(
                "state value is {} bytes; the limit is 65536",
                value.len()
            ));
        }
        TEST_HOST.with(|host| {
            let mut host = host.borrow_mut();
            if !host.state.contains_key(key) && host.state.len() >= 1024 {
                return Err("state already holds 1024 keys; delete some first".to_string());
            }
            host.state.insert(key.to_string(), value.to_vec());
            Ok(())
        })
    }

    pub(super) fn state_delete(key: &str) {
        TEST_HOST.with(|host| host.borrow_mut().state.remove(key));
    }
}
