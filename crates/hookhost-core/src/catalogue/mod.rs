//! The catalogue of policies hookhost ships (`policy = "NAME"` in hooks.toml): the policy
//! crates of `policies/`, each built into a signed wasm component that this binary embeds
//! (`catalogue/NAME.wasm`, rebuilt reproducibly by `scripts/build-catalogue`), pinned by the
//! SHA-256 of `catalogue/index.toml` and signed by the catalogue's key
//! (`catalogue/catalogue.pub`).
//!
//! ```text
//! hooks.toml `policy = "destructive"` ──config──▶ named here (did you mean), its options
//!      checked by the policy crate's own parser, natively ──▶ WasmSpec { path: "policy:NAME" }
//!  ──load──▶ [`Policy::component`] checked against the index's digest and the catalogue key
//!      (load::catalogue, through `bundle::verify`) ──▶ run as any wasm hook
//! ```
//!
//! This module holds what every layer needs and depends on none of them: the table (one row
//! per policy), the index, the embedded bytes and key, and option checking. Verification is
//! the loading layer's (it sits above `bundle`).

mod index;

pub use index::{Entry, Index};

use std::path::Path;

/// How a catalogue policy is named where a wasm hook's file would be (`WasmSpec::path`):
/// `policy:destructive`. `wasm = "policy:..."` itself is refused when hooks.toml is read.
pub const SCHEME: &str = crate::source::POLICY_SCHEME;

/// The catalogue's public key (minisign), which signed every embedded component.
pub const PUBLIC_KEY: &str = include_str!("../../../../catalogue/catalogue.pub");

/// One policy of the catalogue.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// Its name in hooks.toml (`policy = "destructive"`).
    pub name: &'static str,
    /// The options its `[hooks.config]` takes.
    pub options: &'static [&'static str],
    /// Its README: what it blocks, its options, examples, what it cannot see.
    pub readme: &'static str,
    /// Its signed component, as embedded; checked before it runs (never trust it unchecked).
    pub component: &'static [u8],
    check: fn(&str) -> Result<(), String>,
}

/// One row per policy: adding a policy is a row here and one in `scripts/build-catalogue`.
macro_rules! policies {
    ($($name:literal => $krate:ident :: $parser:ident;)*) => {
        /// Every policy of the catalogue, in the order `hookhost policies` lists them.
        pub const POLICIES: &[Policy] = &[$(Policy {
            name: $name,
            options: $krate::OPTIONS,
            readme: include_str!(concat!("../../../../policies/", $name, "/README.md")),
            component: include_bytes!(concat!("../../../../catalogue/", $name, ".wasm")),
            check: |json| $krate::$parser::from_config(json).map(drop).map_err(|e| e.0),
        }),*];
    };
}

policies! {
    "destructive" => policy_destructive::Policy;
    "protected-paths" => policy_protected_paths::ProtectedPaths;
    "secrets" => policy_secrets::Secrets;
    "git-safety" => policy_git_safety::GitSafety;
    "egress" => policy_egress::Egress;
    "ralph-single-mode" => policy_ralph_single_mode::SingleMode;
    "ralph-task-file" => policy_ralph_task_file::TaskFile;
}

impl Policy {
    /// The policy called `name`.
    pub fn find(name: &str) -> Option<&'static Policy> {
        POLICIES.iter().find(|policy| policy.name == name)
    }

    /// The policy called `name`, or a message that says which names exist and which is
    /// closest: `unknown policy "destrutive" (did you mean "destructive"?); ...`.
    pub fn named(name: &str) -> Result<&'static Policy, String> {
        Policy::find(name).ok_or_else(|| {
            let names: Vec<&str> = POLICIES.iter().map(|policy| policy.name).collect();
            let hint = policy_common::options::did_you_mean(name, &names)
                .map(|close| format!(" (did you mean \"{close}\"?)"))
                .unwrap_or_default();
            format!(
                "unknown policy {}{hint}; the catalogue has: {} (`hookhost policies` describes them)",
                crate::text::quote(name),
                names.join(", ")
            )
        })
    }

    /// Checks `config` (the hook's `[hooks.config]`, as JSON) with the policy's own option
    /// parser: the one its component runs, compiled natively, so that a typo is reported when
    /// hooks.toml is read rather than as a block on every call.
    pub fn check_options(&self, config: &serde_json::Value) -> Result<(), String> {
        (self.check)(&config.to_string())
    }

    /// The index's entry for this policy: version, summary, pinned digests.
    pub fn entry(&self) -> &'static Entry {
        Index::embedded()
            .entry(self.name)
            .expect("scripts/build-catalogue indexes every policy it builds")
    }

    /// How a hook's spec names this policy: `policy:NAME`.
    pub fn spec_path(&self) -> std::path::PathBuf {
        format!("{SCHEME}{}", self.name).into()
    }
}

/// The catalogue policy a wasm hook's path names (`policy:NAME`), if it names one.
pub fn named_by(path: &Path) -> Option<&str> {
    path.to_str()?.strip_prefix(SCHEME)
}

#[cfg(test)]
mod tests;
