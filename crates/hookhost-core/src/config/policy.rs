//! `policy = "NAME"`: a hook whose program is a policy of hookhost's catalogue (`catalogue`),
//! with its options in `[hooks.config]` checked here, by the policy's own parser, so that an
//! unknown policy, option, pack or rule is a located problem of hooks.toml ("did you mean")
//! and never a policy that blocks every call at run time.
//!
//! The hook becomes a wasm hook whose path is `policy:NAME`; its grants (`read`, `write`,
//! `env`, `max_memory_mb`, `fuel`) are a wasm hook's. There is no `sha256`: the catalogue pins
//! each component itself.

#[cfg(feature = "catalogue")]
use std::ops::Range;

#[cfg(feature = "catalogue")]
use toml::de::{DeTable, DeValue};

use super::HookSource;
use super::fields::{HookTable, Problems};
#[cfg(feature = "catalogue")]
use super::{
    WasmSpec,
    fields::to_json,
    source::{COMMAND_ONLY_KEYS, parse_grants},
};

/// The hook's source for `policy = "NAME"` (with neither `command` nor `wasm`).
#[cfg(feature = "catalogue")]
pub(super) fn parse_policy(
    hook: &HookTable<'_, '_>,
    sink: &mut Problems<'_>,
) -> Option<HookSource> {
    use crate::catalogue::Policy;
    if let Some((_, key)) = hook.field("command").or(hook.field("wasm")) {
        hook.problem(
            sink,
            &key,
            "a hook has exactly one of `command`, `wasm` or `policy`; this one has `policy` too"
                .to_string(),
        );
        return None;
    }
    hook.reject_keys(COMMAND_ONLY_KEYS, "wasm", sink);
    if let Some((_, key)) = hook.field("sha256") {
        hook.problem(
            sink,
            &key,
            "`sha256` does not apply to `policy` hooks: hookhost pins and checks each policy of \
             its catalogue itself; remove it"
                .to_string(),
        );
    }
    let (name, name_span) = hook.string("policy", sink)?;
    let grants = parse_grants(hook, sink);
    let policy = match Policy::named(&name) {
        Ok(policy) => policy,
        Err(message) => {
            hook.problem(sink, &name_span, message);
            return None;
        }
    };
    let config = match hook.field("config") {
        None => serde_json::Value::Object(Default::default()),
        Some((value, key)) => {
            let DeValue::Table(table) = value.get_ref() else {
                hook.problem(
                    sink,
                    &value.span(),
                    format!(
                        "`config` must be a table (write it as `[hooks.config]` under the hook), found {}",
                        value.get_ref().type_str()
                    ),
                );
                return None;
            };
            let config = to_json(value.get_ref());
            if let Err(message) = policy.check_options(&config) {
                let span = locate(table, &message).unwrap_or(key);
                hook.problem(
                    sink,
                    &span,
                    format!("policy {}: [hooks.config]: {message}", policy.name),
                );
                return None;
            }
            config
        }
    };
    Some(HookSource::Wasm(WasmSpec {
        path: policy.spec_path(),
        grants: grants?,
        config,
        sha256: None,
    }))
}

/// Without the `catalogue` feature a `policy` hook is a problem that names the feature: a guard
/// left out in silence would switch protection off.
#[cfg(not(feature = "catalogue"))]
pub(super) fn parse_policy(
    hook: &HookTable<'_, '_>,
    sink: &mut Problems<'_>,
) -> Option<HookSource> {
    let (_, span) = hook.string("policy", sink)?;
    hook.problem(
        sink,
        &span,
        "`policy` (hookhost's catalogue of policies) needs hookhost's `catalogue` cargo feature, \
         which this build of hookhost leaves out: turn it on where the agent depends on hookhost \
         (`features = [\"catalogue\"]`), or use the policy's component with `wasm = \"...\"`"
            .to_string(),
    );
    None
}

/// Where in `[hooks.config]` a policy's option error points. The policies' messages name what
/// is wrong in backticks (policy-common's `options`): the option (`unknown option `pakcs``,
/// `option `packs` must be ...`), then the item inside it (`unknown pack `gti` in `ask``,
/// `unknown key `paht` in `mode``, `` `mode.paths` must be ``). The span is the item's when one
/// is named and found, else the option's key, else `None` (the caller points at the table).
#[cfg(feature = "catalogue")]
fn locate(table: &DeTable<'_>, message: &str) -> Option<Range<usize>> {
    // The text before the first "; " is the problem; the rest lists what is known.
    let problem = message.split("; ").next().unwrap_or(message);
    let quoted: Vec<&str> = problem.split('`').skip(1).step_by(2).collect();
    let words: Vec<&str> = quoted.iter().flat_map(|q| q.split('.')).collect();
    let (key, value) = words.iter().find_map(|word| {
        table
            .iter()
            .find(|(key, _)| key.get_ref().as_ref() == *word)
    })?;
    let option = key.get_ref().as_ref();
    let item = words
        .iter()
        .filter(|word| **word != option)
        .find_map(|word| match value.get_ref() {
            DeValue::Array(items) => items
                .iter()
                .find(|item| item.get_ref().as_str() == Some(word))
                .map(|item| item.span()),
            DeValue::Table(inner) => inner
                .iter()
                .find(|(k, _)| k.get_ref().as_ref() == *word)
                .map(|(k, _)| k.span()),
            _ => None,
        });
    // A value of the wrong type is pointed at; an unknown option at its name.
    let typed = problem.starts_with("option ") || problem.contains(" must be ");
    Some(item.unwrap_or_else(|| if typed { value.span() } else { key.span() }))
}

#[cfg(all(test, feature = "catalogue"))]
mod tests {
    use super::super::Config;
    use super::*;

    /// The problems of a hooks.toml holding one `[[hooks]]` with `body`, as `line:col: ...`.
    fn problems(body: &str) -> Vec<String> {
        let text = format!("[[hooks]]\nevent = \"PreToolUse\"\n{body}");
        match Config::parse(&text, "hooks.toml") {
            Ok(_) => Vec::new(),
            Err(error) => error.problems().iter().map(|p| p.to_string()).collect(),
        }
    }

    #[test]
    fn a_policy_hook_is_a_wasm_hook_named_after_its_policy() {
        let text = "[[hooks]]\nevent = \"PreToolUse\"\npolicy = \"destructive\"\nread = [\".\"]\n\n[hooks.config]\npacks = [\"git\"]\n";
        let config = Config::parse(text, "hooks.toml").unwrap();
        let hook = &config.hooks[0];
        assert_eq!(hook.name, "destructive");
        let HookSource::Wasm(wasm) = &hook.source else {
            panic!("a policy is a wasm hook");
        };
        assert_eq!(wasm.path, std::path::Path::new("policy:destructive"));
        assert_eq!(wasm.config, serde_json::json!({"packs": ["git"]}));
        assert_eq!(wasm.grants.read, vec![std::path::PathBuf::from(".")]);
    }

    #[test]
    fn mistakes_are_located_with_the_nearest_name() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "unknown policy",
                "policy = \"destrutive\"\n",
                "3:10: hook #1 (destrutive): unknown policy \"destrutive\" (did you mean \"destructive\"?)",
            ),
            (
                "unknown option",
                "policy = \"destructive\"\n[hooks.config]\npakcs = [\"git\"]\n",
                "5:1: hook #1 (destructive): policy destructive: [hooks.config]: unknown option `pakcs` (did you mean `packs`?)",
            ),
            (
                "unknown pack",
                "policy = \"destructive\"\n[hooks.config]\npacks = [\"git\", \"databse\"]\n",
                "5:17: hook #1 (destructive): policy destructive: [hooks.config]: unknown pack `databse` in `packs` (did you mean `database`?)",
            ),
            (
                "wrong type",
                "policy = \"secrets\"\n[hooks.config]\naction = 1\n",
                "5:10: hook #1 (secrets): policy secrets: [hooks.config]: option `action` must be a string, not a number (1)",
            ),
            (
                "both sources",
                "policy = \"secrets\"\ncommand = \"true\"\n",
                "4:1: hook #1 (true): a hook has exactly one of `command`, `wasm` or `policy`",
            ),
            (
                "a pin",
                "policy = \"secrets\"\nsha256 = \"00\"\n",
                "4:1: hook #1 (secrets): `sha256` does not apply to `policy` hooks",
            ),
            (
                "the scheme under wasm",
                "wasm = \"policy:secrets\"\n",
                "3:8: hook #1 (policy:secrets): `policy:secrets` names a policy of hookhost's catalogue: write `policy = \"secrets\"`",
            ),
        ];
        for (case, body, expected) in cases {
            let found = problems(body);
            assert!(
                found.iter().any(|problem| problem.starts_with(expected)),
                "{case}: expected {expected:?}, found {found:?}"
            );
        }
    }
}
