//! What hookhost's shipped policies share (`policies/*`): a shell parser that sees every command
//! a command line runs ([`shell`]), the adapter from each agent's tool names to what a tool
//! does through hookhost-tools ([`tools`]), strict option checking with "did you mean" ([`options`]), and where
//! secrets live ([`paths`]).
//!
//! Every piece is plain Rust over plain data (text, JSON), so each policy's engine is tested
//! natively; the components on top are thin.

pub mod options;
pub mod paths;
pub mod ralph;
pub mod shell;
pub mod tools;
pub mod wildcard;

#[cfg(test)]
mod shell_tests;
