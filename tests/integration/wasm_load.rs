//! Loading wasm hooks: what is refused (with a message that says why), and the compile cache.

use hookhost::wasm::{CacheMode, CacheOutcome};
use hookhost::{HookRunner, RunnerOptions};

use crate::support::{Project, probe};

/// Loads a config with one wasm hook whose file holds `bytes`; returns the error text.
fn load_error(bytes: &[u8]) -> String {
    let project = Project::new();
    std::fs::create_dir_all(project.path(".forgeflare")).unwrap();
    std::fs::write(project.path(".forgeflare/hook.wasm"), bytes).unwrap();
    let config = project
        .config("[[hooks]]\nname = \"policy\"\nevent = \"PreToolUse\"\nwasm = \"hook.wasm\"\n");
    match HookRunner::load(&config, project.options()) {
        Ok(_) => panic!("expected the hook to be refused"),
        Err(error) => error.to_string(),
    }
}

fn wat(text: &str) -> Vec<u8> {
    wat::parse_str(text).unwrap()
}

#[test]
fn refuses_what_is_not_a_hook_component_and_says_why() {
    let cases: &[(&str, Vec<u8>, &str)] = &[
        (
            "text file",
            b"#!/bin/sh\necho hi\n".to_vec(),
            "is not a WebAssembly file",
        ),
        (
            "core module",
            wat("(module)"),
            "is a core WebAssembly module, not a component: build the hook for the wasm32-wasip2 target",
        ),
        (
            "truncated header",
            wat("(component)")[..6].to_vec(),
            "is truncated: 6 bytes, shorter than a WebAssembly header",
        ),
        ("empty file", Vec::new(), "is not a WebAssembly file"),
        (
            "corrupt component",
            [wat("(component)"), vec![0xff, 0x00, 0x13]].concat(),
            "is not a valid component",
        ),
        (
            "no exports",
            wat("(component)"),
            "does not implement the hookhost:hooks@0.2.0 `hook` world: missing export `hookhost:hooks/handler@0.2.0` (it exports: nothing)",
        ),
        // Importing the network no longer refuses a component (it is linked as denied: see
        // languages.rs); these are refused for what they lack.
        (
            "sockets",
            wat(r#"(component (import "wasi:sockets/tcp@0.2.6" (instance)))"#),
            "missing export `hookhost:hooks/handler@0.2.0` (it exports: nothing)",
        ),
        (
            "http",
            wat(r#"(component (import "wasi:http/outgoing-handler@0.2.6" (instance)))"#),
            "missing export `hookhost:hooks/handler@0.2.0` (it exports: nothing)",
        ),
        (
            "unknown import",
            wat(r#"(component (import "acme:vault/secrets@1.0.0" (instance)))"#),
            "imports `acme:vault/secrets@1.0.0`, which hookhost does not provide",
        ),
        (
            "newer package",
            wat(
                r#"(component (instance $h) (export "hookhost:hooks/handler@0.3.0" (instance $h)))"#,
            ),
            "was built against hookhost:hooks@0.3.0, but this hookhost runs hookhost:hooks@0.2.0 or hookhost:hooks@0.1.0",
        ),
        (
            "newer host import",
            wat(r#"(component (import "hookhost:hooks/host@0.3.1" (instance)))"#),
            "was built against hookhost:hooks@0.3.1, but this hookhost runs hookhost:hooks@0.2.0 or hookhost:hooks@0.1.0",
        ),
        (
            "0.2.0 handler without handle",
            wat(
                r#"(component (instance $h) (export "hookhost:hooks/handler@0.2.0" (instance $h)))"#,
            ),
            "missing export `hookhost:hooks/handler@0.2.0#handle`",
        ),
        (
            "handler without guard",
            wat(
                r#"(component (instance $h) (export "hookhost:hooks/handler@0.1.0" (instance $h)))"#,
            ),
            "missing export `hookhost:hooks/handler@0.1.0#guard`",
        ),
    ];
    for (name, bytes, expected) in cases {
        let error = load_error(bytes);
        assert!(error.contains(expected), "{name}: {error}");
        assert!(
            error.contains("hooks.toml:1:1: hook #1 (policy): `wasm` file"),
            "{name}: {error}"
        );
        assert!(
            error.contains(".forgeflare/hook.wasm"),
            "{name}: the message names the file: {error}"
        );
    }
}

#[test]
fn a_missing_file_is_a_config_error_and_the_facade_fails_closed() {
    let project = Project::new();
    let config =
        project.config("[[hooks]]\nevent = \"PreToolUse\"\nwasm = \"policies/gone.wasm\"\n");
    let error = HookRunner::load(&config, project.options())
        .unwrap_err()
        .to_string();
    assert!(error.contains("cannot read `wasm` file"), "{error}");
    assert!(
        error.contains(".forgeflare/policies/gone.wasm"),
        "relative to the config file: {error}"
    );

    let facade = hookhost::forgeflare::HookRunner::load(
        config.to_str().unwrap(),
        project.root().to_str().unwrap(),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let result = runtime.block_on(facade.run_pre_tool_use("Bash", &serde_json::json!({}), 0));
    let hookhost::forgeflare::PreToolResult::Block { reason, .. } = result else {
        panic!("fail closed")
    };
    assert!(reason.contains("cannot read `wasm` file"), "{reason}");
}

fn runner_with_cache(project: &Project, cache: &std::path::Path, wasm: &str) -> HookRunner {
    let config = project.config(&format!("[[hooks]]\nevent = \"Stop\"\nwasm = '{wasm}'\n"));
    let mut options = RunnerOptions::new(project.root());
    options.cache = CacheMode::Dir(cache.to_path_buf());
    HookRunner::load(config, options).unwrap()
}

fn cache_entries(cache: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut entries = Vec::new();
    for engine_dir in std::fs::read_dir(cache).unwrap() {
        for entry in std::fs::read_dir(engine_dir.unwrap().path()).unwrap() {
            entries.push(entry.unwrap().path());
        }
    }
    entries
}

#[test]
fn compile_cache_hits_and_never_trusts_a_bad_entry() {
    let project = Project::new();
    let cache = project.path("cache");
    let probe = probe();
    let outcome = |runner: &HookRunner| runner.wasm_hooks().into_iter().next().unwrap().1.cache;

    assert_eq!(
        outcome(&runner_with_cache(&project, &cache, &probe)),
        CacheOutcome::Compiled
    );
    assert_eq!(
        outcome(&runner_with_cache(&project, &cache, &probe)),
        CacheOutcome::Hit
    );
    let entries = cache_entries(&cache);
    assert_eq!(entries.len(), 1, "{entries:?}");
    let entry = &entries[0];
    let good = std::fs::read(entry).unwrap();

    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    let damaged: [(&str, Vec<u8>); 4] = [
        ("one flipped byte", flipped),
        ("truncated", good[..good.len() / 3].to_vec()),
        ("empty", Vec::new()),
        (
            "foreign",
            b"hookhost-cwasm-1\nnot an artefact at all, just text".to_vec(),
        ),
    ];
    for (name, bytes) in damaged {
        std::fs::write(entry, &bytes).unwrap();
        let runner = runner_with_cache(&project, &cache, &probe);
        assert_eq!(outcome(&runner), CacheOutcome::Replaced, "{name}");
        assert_eq!(
            std::fs::read(entry).unwrap(),
            good,
            "{name}: the entry is rewritten"
        );
        let stop = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(runner.stop(hookhost::StopReason::EndTurn, 0, 0));
        assert!(
            stop.reports[0].result.is_ok(),
            "{name}: the recompiled hook runs: {:?}",
            stop.reports[0]
        );
    }
}

#[test]
fn runners_starting_together_share_the_cache_without_corrupting_it() {
    let project = Project::new();
    let cache = project.path("cache");
    let probe = probe();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| runner_with_cache(&project, &cache, &probe));
        }
    });
    let entries = cache_entries(&cache);
    assert_eq!(
        entries.len(),
        1,
        "one entry, no temp files left: {entries:?}"
    );
    assert_eq!(
        runner_with_cache(&project, &cache, &probe)
            .wasm_hooks()
            .into_iter()
            .next()
            .unwrap()
            .1
            .cache,
        CacheOutcome::Hit
    );
}

#[test]
fn a_disabled_cache_writes_nothing() {
    let project = Project::new();
    let config = project.config(&format!(
        "[[hooks]]\nevent = \"Stop\"\nwasm = '{}'\n",
        probe()
    ));
    let mut options = RunnerOptions::new(project.root());
    options.cache = CacheMode::Disabled;
    let runner = HookRunner::load(config, options).unwrap();
    assert_eq!(
        runner.wasm_hooks().into_iter().next().unwrap().1.cache,
        CacheOutcome::Uncached
    );
}
