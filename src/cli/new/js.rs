//! `hookhost new --lang js NAME`: a hook built with componentize-qjs (QuickJS).

use super::{Scaffold, WIT, fill};

pub(super) fn scaffold(name: &str) -> Scaffold {
    let wasm = format!("{name}.wasm");
    let build = "npm install   # once\nnpm test\nnpm run build".to_string();
    Scaffold {
        files: vec![
            ("hook.js", fill(include_str!("templates/js/hook.js"), name)),
            (
                "component.js",
                fill(include_str!("templates/js/component.js"), name),
            ),
            (
                "hook.test.js",
                fill(include_str!("templates/js/hook.test.js"), name),
            ),
            (
                "hook-sdk.js",
                include_str!("../../../sdk/js/hook-sdk.js").to_string(),
            ),
            ("wit/hookhost.wit", WIT.to_string()),
            (
                "package.json",
                fill(include_str!("templates/js/package.json"), name),
            ),
            ("hooks.toml", super::hooks_toml(name, &wasm, TIMEOUT_MS)),
            ("hooks.test.toml", super::hooks_test_toml(name)),
            (
                "README.md",
                super::readme(
                    name,
                    "hookhost's JavaScript SDK (hook-sdk.js)",
                    &build,
                    &wasm,
                    TIMEOUT_MS,
                ),
            ),
            (".gitignore", format!("/node_modules\n/{wasm}\n")),
        ],
        next: build.lines().map(str::to_string).collect(),
    }
}

/// A QuickJS guard takes well under a millisecond per call; this leaves room for a cold start.
const TIMEOUT_MS: u32 = 500;
