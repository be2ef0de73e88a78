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
            "core module without a world",
            wat("(module)"),
            "is a core WebAssembly module without a component world (the `component-type` section wit-bindgen writes), so hookhost cannot tell which interfaces it implements: build the hook with hook-sdk for wasm32-wasip2, or for wasm32-unknown-unknown",
        ),
        (
            "WASI preview 1 module",
            wat(
                r#"(module (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32))))"#,
            ),
            "is a core WebAssembly module built for WASI preview 1 (it imports `wasi_snapshot_preview1::fd_write`); hookhost runs WASI preview 2: build the hook for wasm32-wasip2",
        ),
        (
            "core module with a damaged world",
            wat(r#"(module (@custom "component-type" "not a world"))"#),
            "is a core WebAssembly module that cannot be wrapped into a component: ",
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
    load_with_cache(project, cache, &config)
}

/// The runner of the hooks.toml at `config`, with the compile cache in `cache`.
fn load_with_cache(
    project: &Project,
    cache: &std::path::Path,
    config: &std::path::Path,
) -> HookRunner {
    let mut options = RunnerOptions::new(project.root());
    options.cache = CacheMode::Keyed {
        dir: cache.to_path_buf(),
        key: project.path("cache.key"),
    };
    HookRunner::load(config, options).unwrap()
}

/// Every file under the cache's engine directories (compiled artefacts, their sums, temp
/// files), sorted.
fn cache_entries(cache: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut entries = Vec::new();
    for engine_dir in std::fs::read_dir(cache).unwrap() {
        let engine_dir = engine_dir.unwrap();
        if !engine_dir
            .file_name()
            .to_string_lossy()
            .starts_with("engine-")
        {
            continue;
        }
        for entry in std::fs::read_dir(engine_dir.path()).unwrap() {
            entries.push(entry.unwrap().path());
        }
    }
    entries.sort();
    entries
}

/// The artefact and the sum of the cache's only entry.
fn only_entry(cache: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let entries = cache_entries(cache);
    let [artefact, sum] = &entries[..] else {
        panic!("one entry, its sum and no temp files: {entries:?}")
    };
    assert!(
        artefact.to_string_lossy().ends_with(".cwasm"),
        "{entries:?}"
    );
    assert_eq!(sum.as_os_str(), &*format!("{}.sum", artefact.display()));
    (artefact.clone(), sum.clone())
}

/// A damaged cache entry: what it is, the artefact's bytes, and the sum's (`None`: removed).
type Damage = (&'static str, Vec<u8>, Option<Vec<u8>>);

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
    let (entry, sum) = only_entry(&cache);
    let good = std::fs::read(&entry).unwrap();
    let good_sum = std::fs::read(&sum).unwrap();

    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    let mut wrong_sum = good_sum.clone();
    let last_digit = wrong_sum.len() - 2;
    wrong_sum[last_digit] = if wrong_sum[last_digit] == b'0' {
        b'1'
    } else {
        b'0'
    };
    let damaged: Vec<Damage> = vec![
        ("one flipped byte", flipped, Some(good_sum.clone())),
        (
            "truncated",
            good[..good.len() / 3].to_vec(),
            Some(good_sum.clone()),
        ),
        ("empty", Vec::new(), Some(good_sum.clone())),
        (
            "foreign",
            b"not an artefact at all, just text".to_vec(),
            Some(good_sum.clone()),
        ),
        ("sum missing", good.clone(), None),
        ("sum wrong", good.clone(), Some(wrong_sum)),
        // What hookhost 0.2 wrote: a header line and a SHA-256 before the artefact.
        (
            "previous layout",
            [&b"hookhost-cwasm-1\n"[..], &[0u8; 32], &good].concat(),
            None,
        ),
    ];
    for (name, bytes, sum_bytes) in damaged {
        std::fs::write(&entry, &bytes).unwrap();
        match sum_bytes {
            Some(sum_bytes) => std::fs::write(&sum, sum_bytes).unwrap(),
            None => std::fs::remove_file(&sum).unwrap(),
        }
        let runner = runner_with_cache(&project, &cache, &probe);
        assert_eq!(outcome(&runner), CacheOutcome::Replaced, "{name}");
        assert_eq!(
            std::fs::read(&entry).unwrap(),
            good,
            "{name}: the entry is rewritten"
        );
        assert_eq!(
            std::fs::read(&sum).unwrap(),
            good_sum,
            "{name}: the sum is rewritten"
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
    // Written once: a file rewritten while another runner reads it is not what this tests.
    let config = project.config(&format!("[[hooks]]\nevent = \"Stop\"\nwasm = '{probe}'\n"));
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| load_with_cache(&project, &cache, &config));
        }
    });
    only_entry(&cache);
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

/// Loads `wasm` pinned to `pin` with the cache at `cache`: the hook's reported SHA-256, or the
/// load error.
fn load_pinned(
    project: &Project,
    cache: &std::path::Path,
    wasm: &std::path::Path,
    pin: &str,
) -> Result<String, String> {
    let config = project.config(&format!(
        "[[hooks]]\nevent = \"Stop\"\nwasm = '{}'\nsha256 = \"{pin}\"\n",
        wasm.display()
    ));
    let mut options = RunnerOptions::new(project.root());
    options.cache = CacheMode::Keyed {
        dir: cache.to_path_buf(),
        key: project.path("cache.key"),
    };
    HookRunner::load(config, options)
        .map(|runner| runner.wasm_hooks().into_iter().next().unwrap().1.sha256)
        .map_err(|error| error.to_string())
}

#[test]
fn a_component_changed_after_its_digest_was_recorded_is_hashed_again() {
    let project = Project::new();
    let cache = project.path("cache");
    let wasm = project.path("policy.wasm");
    let bytes = std::fs::read(probe()).unwrap();
    std::fs::write(&wasm, &bytes).unwrap();
    let pin = sha256_hex(&bytes);
    // A file written this recently is not recorded (its timestamps could not tell the next
    // write apart): it is hashed again at each load.
    assert_eq!(load_pinned(&project, &cache, &wasm, &pin), Ok(pin.clone()));
    assert!(
        !cache.join("files").exists(),
        "a fresh file is not recorded"
    );
    // Once the file is older than that, its digest is recorded, and later loads use it.
    std::thread::sleep(std::time::Duration::from_millis(3100));
    assert_eq!(load_pinned(&project, &cache, &wasm, &pin), Ok(pin.clone()));
    assert_eq!(
        std::fs::read_dir(cache.join("files")).unwrap().count(),
        1,
        "the digest is recorded"
    );
    assert_eq!(load_pinned(&project, &cache, &wasm, &pin), Ok(pin.clone()));

    // The same size, one byte changed, the modification time put back: the change of ctime
    // (which no user can set) gives it away, and the pin refuses the new content.
    let original_mtime = std::fs::metadata(&wasm).unwrap().modified().unwrap();
    let mut changed = bytes.clone();
    let last = changed.len() - 1;
    changed[last] ^= 0x01;
    std::fs::write(&wasm, &changed).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&wasm)
        .unwrap()
        .set_modified(original_mtime)
        .unwrap();
    let error = load_pinned(&project, &cache, &wasm, &pin).unwrap_err();
    assert!(
        error.contains("policy.wasm") && error.contains(&sha256_hex(&changed)),
        "the pin is checked against the new content: {error}"
    );

    // Replaced by another component: the new one is hashed, compiled and run.
    let other = std::fs::read(crate::support::build_fixture("answerer")).unwrap();
    std::fs::write(&wasm, &other).unwrap();
    assert_eq!(
        load_pinned(&project, &cache, &wasm, &sha256_hex(&other)),
        Ok(sha256_hex(&other))
    );
}

#[test]
fn a_wasm_path_that_is_not_a_regular_file_is_refused_without_waiting() {
    let project = Project::new();
    std::fs::create_dir_all(project.path(".forgeflare/dir.wasm")).unwrap();
    let fifo = project.path(".forgeflare/fifo.wasm");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo");
    for file in ["dir.wasm", "fifo.wasm"] {
        let config = project.config(&format!(
            "[[hooks]]\nevent = \"PreToolUse\"\nwasm = \"{file}\"\n"
        ));
        let error = HookRunner::load(&config, project.options())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(&format!(
                "{file} is not a regular file (a directory, FIFO or device)"
            )),
            "{file}: {error}"
        );
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
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

/// A `handle` export of the wrong type loads (the world's shape is there) but can never be
/// called: every call fails closed, named, not only the first (its type is checked once and
/// remembered only when it matches).
#[tokio::test]
async fn a_handle_of_the_wrong_type_fails_every_call_closed() {
    let project = Project::new();
    std::fs::create_dir_all(project.path(".forgeflare")).unwrap();
    let component = wat(r#"(component
        (core module $m (func (export "handle")))
        (core instance $i (instantiate $m))
        (func $handle (canon lift (core func $i "handle")))
        (instance $h (export "handle" (func $handle)))
        (export "hookhost:hooks/handler@0.2.0" (instance $h)))"#);
    std::fs::write(project.path(".forgeflare/hook.wasm"), component).unwrap();
    let config = project
        .config("[[hooks]]\nname = \"policy\"\nevent = \"PreToolUse\"\nwasm = \"hook.wasm\"\n");
    let runner = HookRunner::load(&config, project.options()).unwrap();
    let input = serde_json::json!({"command": "ls"});
    for call in 0..2 {
        let outcome = crate::support::pre_bash(&runner, &input).await;
        let hookhost::Decision::Block(block) = &outcome.decision else {
            panic!("call {call}: expected a block, got {:?}", outcome.decision)
        };
        assert_eq!(
            block.message(),
            "hook failed: policy could not be started: its `handle` export does not have the \
             type hookhost:hooks@0.2.0 gives it (expected 1-tuple, found 0-tuple): rebuild it \
             against wit/hookhost.wit (tool blocked by default)",
            "call {call}"
        );
    }
}
