//! Hooks built without WASI (`wasm32-unknown-unknown`): core modules that carry their world,
//! wrapped into components at load. They decide as their WASI builds do, import nothing but
//! hookhost's own interfaces, see nothing of the machine whatever their entry grants, and still
//! report a panic's message. They run on the calling thread, within a budget past which they
//! are started again on a fiber. (The SDK allocator's tests run both builds: `wasm.rs`.)

use hookhost::wasm::{CacheMode, CacheOutcome};
use hookhost::{Decision, HookRunner};
use serde_json::json;

use crate::support::{NO_WASI, Project, WASIP2, alloc_guard, build_fixture_for, pre_bash};

async fn decide(runner: &HookRunner, command: &str) -> Result<(), String> {
    match pre_bash(runner, &json!({ "command": command }))
        .await
        .decision
    {
        Decision::Allow => Ok(()),
        Decision::Block(block) => Err(block.message()),
        other => panic!("expected allow or block, got {other:?}"),
    }
}

fn destructive_guard(target: &str) -> String {
    format!(
        "[[hooks]]\nname = \"destructive-guard\"\nevent = \"PreToolUse\"\nmatch_tool = \"Bash\"\nwasm = '{}'\n[hooks.config]\ndeny = [\"terraform destroy\"]\n",
        build_fixture_for(target, "destructive-guard").display()
    )
}

/// The block reason the alloc-guard fixture answers with.
/// Whether a hook of `config` still starts on the calling thread after a call of `command`,
/// on one of five fresh runners. A call goes on on a fiber at its first WASI call, and also past
/// its 2 ms budget on the calling thread, which a loaded machine (CI, running tests in parallel)
/// can take any call past: one run that stays is what shows no WASI call moved it.
async fn stays_inline(project: &Project, config: &str, command: &str) -> bool {
    for _ in 0..5 {
        let runner = project.runner(config);
        let _ = decide(&runner, command).await;
        if runner.wasm_hooks()[0].1.inline {
            return true;
        }
    }
    false
}

async fn answer(runner: &HookRunner) -> String {
    match decide(runner, "ls").await {
        Err(message) => message
            .strip_prefix("blocked by allocator: ")
            .unwrap_or_else(|| panic!("expected an answer, got {message}"))
            .to_string(),
        Ok(()) => panic!("expected an answer, got allow"),
    }
}

/// destructive-guard built without WASI is a core module; hookhost loads it as it is, and it
/// decides every command exactly as the wasm32-wasip2 build does, its config included. It
/// imports hookhost's interfaces and nothing else.
#[tokio::test]
async fn a_guard_built_without_wasi_decides_as_its_wasi_build_and_imports_nothing_else() {
    let project = Project::new();
    let module = build_fixture_for(NO_WASI, "destructive-guard");
    assert_eq!(
        &std::fs::read(&module).unwrap()[..8],
        b"\0asm\x01\0\0\0",
        "the build is a core module, not a component"
    );
    let lean = project.runner(&destructive_guard(NO_WASI));
    let wasi = project.runner(&destructive_guard(WASIP2));
    for command in [
        "rm -rf /",
        "sudo /bin/rm -rf \"$HOME\"",
        "bash -c 'rm -rf /'",
        "git push --force origin main",
        "kubectl delete namespace prod",
        "psql -c 'DROP TABLE users;'",
        "Terraform  Destroy -auto-approve",
        "cargo test",
        "rm -rf target",
        "git reset --hard HEAD~1",
    ] {
        assert_eq!(
            decide(&lean, command).await,
            decide(&wasi, command).await,
            "{command}"
        );
    }
    assert_eq!(
        decide(&lean, "rm -rf -- /").await,
        Err("blocked by destructive-guard: recursive delete of / (rm -r)".to_string())
    );
    assert_eq!(decide(&lean, "cargo test").await, Ok(()));

    let hooks = lean.wasm_hooks();
    let info = &hooks[0].1;
    assert_eq!(info.interface, "hookhost:hooks@0.2.0");
    assert_eq!(
        info.imports.all,
        ["hookhost:hooks/host@0.2.0", "hookhost:hooks/types@0.2.0"]
    );
    let hooks = wasi.wasm_hooks();
    assert!(
        hooks[0]
            .1
            .imports
            .all
            .iter()
            .any(|i| i.starts_with("wasi:")),
        "the WASI build imports WASI: {:?}",
        hooks[0].1.imports.all
    );
    // Deciding without a WASI call, both still start on the calling thread.
    for config in [destructive_guard(NO_WASI), destructive_guard(WASIP2)] {
        assert!(
            stays_inline(&project, &config, "git reset --hard HEAD~1").await,
            "still on the calling thread: {config}"
        );
    }
}

/// The module is wrapped and compiled once; the next load takes the compiled component from the
/// cache by the module's digest.
#[tokio::test]
async fn a_core_module_is_compiled_once_then_read_from_the_cache() {
    let project = Project::new();
    let cache = tempfile::tempdir().unwrap();
    let config = project.config(&destructive_guard(NO_WASI));
    let load = || {
        let mut options = project.options();
        options.cache = CacheMode::Keyed {
            dir: cache.path().to_path_buf(),
            key: project.path("cache.key"),
        };
        HookRunner::load(&config, options).unwrap()
    };
    let first = load();
    assert_eq!(first.wasm_hooks()[0].1.cache, CacheOutcome::Compiled);
    let second = load();
    assert_eq!(second.wasm_hooks()[0].1.cache, CacheOutcome::Hit);
    assert_eq!(
        decide(&second, "rm -rf /").await,
        Err("blocked by destructive-guard: recursive delete of / (rm -r)".to_string())
    );
}

/// Without WASI there is no stderr, yet a panic's message still reaches the report's stderr
/// (and the agent's, as `[hook allocator] error: panicked at ...`): hook-sdk sends it through the
/// host's log. The failure is the same named trap.
#[tokio::test]
async fn a_panic_without_wasi_reports_its_message() {
    let project = Project::new();
    let runner = project.runner(&alloc_guard(NO_WASI, "panic", "", ""));
    let outcome = pre_bash(&runner, &json!({ "command": "ls" })).await;
    let Decision::Block(block) = &outcome.decision else {
        panic!("expected a failure, got {:?}", outcome.decision)
    };
    assert_eq!(
        block.message(),
        "hook failed: allocator trapped: wasm `unreachable` instruction executed (tool blocked by default)"
    );
    let stderr = &outcome.reports[0].stderr;
    assert!(
        stderr.starts_with("error: panicked at src/lib.rs:")
            && stderr.contains("alloc-guard panicked on purpose"),
        "{stderr:?}"
    );
}

/// A hook without WASI has no way to the machine: granting it a directory or a variable gives
/// it nothing, where the same grant works for its WASI build.
#[tokio::test]
async fn a_hook_without_wasi_sees_nothing_whatever_its_grants() {
    let project = Project::new();
    std::fs::write(project.path("notes.txt"), "granted").unwrap();
    let path = project.path("notes.txt").display().to_string();
    let read = |target| {
        project.runner(&alloc_guard(
            target,
            "read",
            "read = [\".\"]",
            &format!("path = '{path}'"),
        ))
    };
    assert_eq!(answer(&read(WASIP2)).await, "read: granted");
    let refused = answer(&read(NO_WASI)).await;
    assert!(
        refused.starts_with(&format!("cannot read {path}: ")),
        "{refused}"
    );

    let path_var = std::env::var("PATH").unwrap();
    let env = |target| {
        project.runner(&alloc_guard(
            target,
            "env",
            "env = [\"PATH\"]",
            "name = \"PATH\"",
        ))
    };
    assert_eq!(answer(&env(WASIP2)).await, format!("PATH={path_var}"));
    assert_eq!(
        answer(&env(NO_WASI)).await,
        "PATH: environment variable not found"
    );
}

/// A call starts on the calling thread. A guard that calls nothing but hookhost's `host` and
/// `types` finishes there, whether built without WASI or for it (a Rust guest imports WASI for
/// its panic path); one that calls WASI goes on on a fiber, with what it asked for, and its
/// hook's calls start on a fiber from then on.
#[tokio::test]
async fn a_call_starts_on_the_calling_thread_and_goes_on_on_a_fiber_at_its_first_wasi_call() {
    let project = Project::new();
    let mut answers = Vec::new();
    for target in [NO_WASI, WASIP2] {
        let config = alloc_guard(target, "compute", "", "ops = 1000");
        answers.push(answer(&project.runner(&config)).await);
        assert!(
            stays_inline(&project, &config, "ls").await,
            "{target}: still on the calling thread"
        );
    }
    assert!(answers[0].starts_with("computed "), "{answers:?}");
    assert_eq!(answers[0], answers[1]);

    // `std::env::var` is a WASI call.
    let path_var = std::env::var("PATH").unwrap();
    let runner = project.runner(&alloc_guard(
        WASIP2,
        "env",
        "env = [\"PATH\"]",
        "name = \"PATH\"",
    ));
    assert!(runner.wasm_hooks()[0].1.inline);
    for _ in 0..2 {
        assert_eq!(answer(&runner).await, format!("PATH={path_var}"));
        assert!(
            !runner.wasm_hooks()[0].1.inline,
            "on a fiber from the first WASI call on"
        );
    }
}

/// A guest still computing after its inline budget is started again on a fiber: it answers
/// what it would have answered, and what the abandoned attempt logged is not reported twice.
#[tokio::test]
async fn a_guest_past_its_inline_budget_finishes_on_a_fiber_and_logs_once() {
    let project = Project::new();
    // Tens of milliseconds of work, far past the 2 ms budget; the WASI build's answer is the
    // reference.
    let work = |target| alloc_guard(target, "compute", "timeout_ms = 60000", "ops = 50000000");
    let inline = project.runner(&work(NO_WASI));
    let fiber = project.runner(&work(WASIP2));
    let outcome = pre_bash(&inline, &json!({ "command": "ls" })).await;
    assert_eq!(outcome.reports[0].stderr, "info: computing\n");
    assert!(
        !inline.wasm_hooks()[0].1.inline,
        "its calls start on a fiber now"
    );
    assert_eq!(
        outcome.decision,
        pre_bash(&fiber, &json!({ "command": "ls" })).await.decision
    );
    let Decision::Block(block) = &outcome.decision else {
        panic!("expected an answer, got {:?}", outcome.decision)
    };
    assert!(block.message().contains("computed "), "{}", block.message());
}

/// A guest without WASI that spins cannot hold the agent's executor: past its inline budget it
/// goes on on a fiber, which yields at every epoch tick, until its deadline.
#[test]
fn a_spinning_guest_without_wasi_times_out_without_blocking_the_runtime() {
    let project = Project::new();
    let runner = project.runner(&alloc_guard(NO_WASI, "spin", "timeout_ms = 200", ""));
    assert!(runner.wasm_hooks()[0].1.inline);
    let (outcome, _, ticks) =
        crate::support::beside_a_ticker(pre_bash(&runner, &json!({ "command": "ls" })));
    let Decision::Block(block) = &outcome.decision else {
        panic!("expected a failure, got {:?}", outcome.decision)
    };
    assert_eq!(
        block.message(),
        "hook failed: allocator timed out after 200ms (tool blocked by default)"
    );
    assert_eq!(outcome.reports[0].stderr, "info: spinning\n");
    assert!(
        ticks >= 5,
        "the timer task ran only {ticks} times while the guest spun"
    );
}

/// On the calling thread a guest's frames go on that thread's stack, and wasmtime trusts the
/// thread to have room for its 512 KiB limit. A thread with too little left runs the guest on a
/// fiber instead: a guest that recurses without end fails with the same stack overflow on a
/// 384 KiB thread as on an 8 MiB one, and the agent goes on (run inline, it would overflow the
/// thread's own stack and abort the process).
#[test]
fn a_thread_with_little_stack_runs_the_guest_on_a_fiber() {
    let project = Project::new();
    let runner = project.runner(&alloc_guard(NO_WASI, "recurse", "", ""));
    let on_thread_of = |stack: usize| {
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(stack)
                .spawn_scoped(scope, || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .unwrap();
                    match runtime
                        .block_on(pre_bash(&runner, &json!({ "command": "ls" })))
                        .decision
                    {
                        Decision::Block(block) => block.message(),
                        other => panic!("expected a failure, got {other:?}"),
                    }
                })
                .unwrap()
                .join()
                .unwrap()
        })
    };
    let expected = "hook failed: allocator trapped: call stack exhausted (tool blocked by default)";
    assert_eq!(on_thread_of(8 << 20), expected);
    assert_eq!(on_thread_of(384 << 10), expected);
}
