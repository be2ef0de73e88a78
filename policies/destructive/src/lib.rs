//! The `destructive` policy: blocks shell commands that destroy work or systems, pack by pack
//! (filesystem, system, disks, git, database, containers, kubernetes, cloud, iac, rce,
//! exfiltration), whatever they are wrapped in: `sudo`, `env`, `timeout`, `xargs`, `find -exec`,
//! `bash -c`, `eval`, heredocs fed to a shell, substitutions, pipes, line continuations. Quoted
//! text is data, not a command: `echo "rm -rf /"` and `git commit -m "rm -rf"` run.
//!
//! The engine ([`Policy`]) is plain Rust over the command text; the component on top reads the
//! agent's shell tool (any agent's name for it: `policy_common::tools`) and answers block, or
//! ask for the packs listed in `ask`.

mod engine;
pub mod rules;

pub use engine::{Action, Finding, OPTIONS, PACKS, Policy, RULES};

use hook_sdk::{Event, Hook, Phase, Verdict};
use policy_common::options::misconfigured;
use policy_common::tools::Tool;

/// The component.
#[derive(Debug)]
pub struct Destructive;

impl Hook for Destructive {
    fn handle(event: &Event) -> Verdict {
        if event.phase() != Phase::Guard {
            return Verdict::allow();
        }
        let command = match event.name() {
            // Cursor's shell hook names the command in its payload.
            "beforeShellExecution" => event.str_field("command"),
            _ => event
                .tool_call()
                .and_then(|call| Tool::new(&call.tool, &call.input).shell()),
        };
        let Some(command) = command else {
            return Verdict::allow();
        };
        let policy = match Policy::from_config(&hook_sdk::config_json()) {
            Ok(policy) => policy,
            Err(error) => return Verdict::block(misconfigured("destructive", &error)),
        };
        match policy.check(&command) {
            None => Verdict::allow(),
            Some(finding) => match finding.action {
                Action::Block => Verdict::block(finding.reason()),
                Action::Ask => Verdict::ask(finding.reason()),
            },
        }
    }
}

hook_sdk::export!(Destructive);

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod tests;
