//! `hookhost new --lang python NAME`: a hook built with componentize-py.

use super::{Scaffold, WIT, fill};

/// The componentize-py release the scaffold pins (and the tests use).
pub(super) const COMPONENTIZE_PY: &str = "componentize-py==0.25.1";

pub(super) fn scaffold(name: &str) -> Scaffold {
    let wasm = format!("{name}.wasm");
    let build = format!(
        "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt   # once\n\
         python3 -m unittest\n\
         .venv/bin/componentize-py -d wit -w hook componentize app -o {wasm}"
    );
    Scaffold {
        files: vec![
            (
                "app.py",
                fill(include_str!("templates/python/app.py"), name),
            ),
            (
                "test_app.py",
                fill(include_str!("templates/python/test_app.py"), name),
            ),
            (
                "hook_sdk.py",
                include_str!("../../../sdk/python/hook_sdk.py").to_string(),
            ),
            ("wit/hookhost.wit", WIT.to_string()),
            ("requirements.txt", format!("{COMPONENTIZE_PY}\n")),
            ("hooks.toml", super::hooks_toml(name, &wasm, TIMEOUT_MS)),
            ("hooks.test.toml", super::hooks_test_toml(name)),
            (
                "README.md",
                super::readme(
                    name,
                    "hookhost's Python SDK (hook_sdk.py)",
                    &build,
                    &wasm,
                    TIMEOUT_MS,
                ),
            ),
            (".gitignore", format!("/.venv\n__pycache__/\n/{wasm}\n")),
        ],
        next: build.lines().map(str::to_string).collect(),
    }
}

/// A Python guard instantiates a 12 MiB heap per call: a few milliseconds, more on a cold
/// start.
const TIMEOUT_MS: u32 = 1000;
