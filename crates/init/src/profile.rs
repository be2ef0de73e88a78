//! The profiles `hookhost init --profile` writes into hooks.toml: which of hookhost's
//! ready-made policies (`destructive`, `protected-paths`, `secrets`, `git-safety`, `egress`)
//! run, and with which options. One table per profile; the text is made from it.
//!
//! The policies are named as the catalogue names them (`policy = "destructive"`, options in
//! `[hooks.config]`, as each policy's README in policies/ shows); the profile is data, so a
//! renamed key is one edit here.

use crate::names::{UnknownName, lookup};

/// A set of policies init writes into hooks.toml.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// What protects without getting in the way: destructive commands of the core packs and
    /// secret files blocked, secrets in prompts, commands and output asked about, git's
    /// force pushes and `--no-verify` on protected branches blocked.
    Standard,
    /// Everything, blocking: every destructive pack, secrets blocked, discarded git work
    /// blocked, network egress outside an allowlist blocked; a policy that fails blocks.
    Strict,
}

/// One `[[hooks]]` entry of a profile.
struct PolicyHook {
    /// Why it is there, as the comment above it.
    comment: &'static str,
    name: &'static str,
    /// TOML for `event = ...`.
    event: &'static str,
    /// More `key = value` lines of the hook (TOML).
    keys: &'static [&'static str],
    /// `key = value` lines of `[hooks.config]` (TOML).
    config: &'static [&'static str],
}

const ONE_EVENT: &str = "\"PreToolUse\"";
const SECRET_EVENTS: &str = "[\"UserPromptSubmit\", \"PreToolUse\", \"PostToolUse\"]";

static STANDARD: &[PolicyHook] = &[
    PolicyHook {
        comment: "Commands that destroy files, system files or disks, pipe downloads into a shell, or send secrets away.",
        name: "destructive",
        event: ONE_EVENT,
        keys: &[],
        // git is git-safety's below; the cloud, database and cluster packs are strict's.
        config: &["packs = [\"filesystem\", \"system\", \"disks\", \"rce\", \"exfiltration\"]"],
    },
    PolicyHook {
        comment: "Reads and writes of secret files: .env, SSH keys, cloud credentials.",
        name: "protected-paths",
        event: ONE_EVENT,
        keys: &[],
        config: &[],
    },
    PolicyHook {
        comment: "Secrets in prompts, commands and tool output: a tool call asks first (the other events block).",
        name: "secrets",
        event: SECRET_EVENTS,
        keys: &[],
        config: &["action = \"ask\""],
    },
    PolicyHook {
        comment: "Force pushes and commits straight to protected branches, --no-verify; discarded work warns.",
        name: "git-safety",
        event: ONE_EVENT,
        // The current branch comes from .git/HEAD.
        keys: &["read = [\".\"]"],
        config: &[],
    },
];

static STRICT: &[PolicyHook] = &[
    PolicyHook {
        comment: "Every destructive pack: files, system, disks, git, databases, containers, clusters, cloud, IaC, pipe-to-shell, exfiltration.",
        name: "destructive",
        event: ONE_EVENT,
        keys: &["on_failure = \"block\""],
        config: &[],
    },
    PolicyHook {
        comment: "Reads and writes of secret files and of the paths listed here.",
        name: "protected-paths",
        event: ONE_EVENT,
        keys: &["on_failure = \"block\""],
        config: &["mode = { secrets = \"block\", paths = \"block\" }"],
    },
    PolicyHook {
        comment: "Secrets in prompts, commands and tool output are blocked.",
        name: "secrets",
        event: SECRET_EVENTS,
        keys: &["on_failure = \"block\""],
        config: &["action = \"block\""],
    },
    PolicyHook {
        comment: "Force pushes, commits straight to protected branches, --no-verify and discarded work are blocked.",
        name: "git-safety",
        event: ONE_EVENT,
        keys: &["read = [\".\"]", "on_failure = \"block\""],
        config: &["discard = \"block\""],
    },
    PolicyHook {
        comment: "Network tools reaching hosts outside the allowlist (package registries and code hosts built in; add yours to `allow`).",
        name: "egress",
        event: ONE_EVENT,
        keys: &["on_failure = \"block\""],
        config: &["mode = \"block\"", "allow = []"],
    },
];

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 2] = [Profile::Standard, Profile::Strict];

    /// The profile spelled `name`; an unknown name says which it may have meant.
    pub fn from_name(name: &str) -> Result<Profile, UnknownName> {
        const NAMES: &[(Profile, &str, &[&str])] = &[
            (Profile::Standard, "standard", &["default"]),
            (Profile::Strict, "strict", &[]),
        ];
        lookup("profile", name, NAMES)
    }

    /// `standard` or `strict`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Standard => "standard",
            Profile::Strict => "strict",
        }
    }

    fn hooks(self) -> &'static [PolicyHook] {
        match self {
            Profile::Standard => STANDARD,
            Profile::Strict => STRICT,
        }
    }

    /// The names of the hooks the profile adds.
    pub fn hook_names(self) -> Vec<&'static str> {
        self.hooks().iter().map(|h| h.name).collect()
    }

    /// The profile's `[[hooks]]` entries as hooks.toml text, leaving out the hooks named in
    /// `skip` (names the file already uses for hooks of its own).
    pub(crate) fn toml(self, skip: &[String]) -> String {
        let mut out = String::new();
        for hook in self
            .hooks()
            .iter()
            .filter(|h| !skip.iter().any(|s| s == h.name))
        {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!(
                "# {}\n[[hooks]]\nname = \"{}\"\nevent = {}\npolicy = \"{}\"\n",
                hook.comment, hook.name, hook.event, hook.name
            ));
            for key in hook.keys {
                out.push_str(key);
                out.push('\n');
            }
            if !hook.config.is_empty() {
                out.push_str("\n[hooks.config]\n");
                for line in hook.config {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        out
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_is_valid_toml_naming_its_policies() {
        for profile in Profile::ALL {
            let text = profile.toml(&[]);
            let table: toml::Table =
                toml::from_str(&text).unwrap_or_else(|e| panic!("{profile}: {e}\n{text}"));
            let hooks = table["hooks"].as_array().unwrap();
            let names: Vec<&str> = hooks.iter().map(|h| h["name"].as_str().unwrap()).collect();
            assert_eq!(names, profile.hook_names());
            for hook in hooks {
                assert_eq!(hook["policy"].as_str(), hook["name"].as_str());
                assert!(hook.get("event").is_some());
            }
        }
        assert!(Profile::Strict.hook_names().contains(&"egress"));
        assert!(!Profile::Standard.hook_names().contains(&"egress"));
    }

    #[test]
    fn skipped_names_are_left_out() {
        let text = Profile::Standard.toml(&["secrets".to_string()]);
        assert!(!text.contains("name = \"secrets\""));
        assert!(text.contains("name = \"destructive\""));
    }

    #[test]
    fn profile_names_suggest() {
        assert_eq!(Profile::from_name("Strict"), Ok(Profile::Strict));
        assert_eq!(
            Profile::from_name("strcit").unwrap_err().suggestion,
            Some("strict")
        );
        assert_eq!(
            Profile::from_name("stan").unwrap_err().suggestion,
            Some("standard")
        );
    }
}
