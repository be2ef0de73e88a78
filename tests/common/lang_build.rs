//! Building Python (componentize-py) and JavaScript (componentize-qjs) hook components from
//! source, shared by the integration tests and the benchmarks (each includes this file with
//! `#[path]`). The tools come from PATH or from `.ci/tools`, where `.ci/run` installs them; a
//! missing tool panics with how to install it: the tests that need one fail, never skip.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where `.ci/run` installs the language tools, under the repository.
const TOOLS: &str = ".ci/tools";

/// `program`, from PATH or from `.ci/tools/{dir}`; panics with how to install it.
pub fn tool(repo: &Path, program: &str, dir: &str, install: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([repo.join(TOOLS).join(dir)])
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "{program} is not installed (looked on PATH and in {TOOLS}/{dir}): run .ci/run, \
                 or {install}. The tests build real components with it; they do not skip."
            )
        })
}

/// Runs a build command; panics with its output when it fails.
fn run(command: &mut Command, what: &str) {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A component built once per content of its sources: `build` writes it to the path it is
/// given; the file is named after the SHA-256 of `inputs`, so a rerun with unchanged sources
/// builds nothing.
fn component(out_dir: &Path, name: &str, inputs: &[PathBuf], build: impl FnOnce(&Path)) -> PathBuf {
    use sha2::{Digest, Sha256};
    // One build at a time: each takes most of the machine.
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let mut hash = Sha256::new();
    for input in inputs {
        hash.update(std::fs::read(input).unwrap_or_else(|e| panic!("{}: {e}", input.display())));
    }
    let digest: String = hash.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let path = out_dir.join(format!("{name}-{digest}.wasm"));
    let _one = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if !path.is_file() {
        std::fs::create_dir_all(out_dir).unwrap();
        let partial = out_dir.join(format!("{name}-{digest}.partial.wasm"));
        build(&partial);
        std::fs::rename(&partial, &path).unwrap();
    }
    path
}

/// Builds the Python module `module` of `dir` (with the repository's hook_sdk.py on its path)
/// with componentize-py.
pub fn python_component(
    repo: &Path,
    out_dir: &Path,
    name: &str,
    dir: &Path,
    module: &str,
) -> PathBuf {
    let sdk = repo.join("sdk/python");
    let wit = repo.join("wit/hookhost.wit");
    let inputs = [
        dir.join(format!("{module}.py")),
        sdk.join("hook_sdk.py"),
        wit.clone(),
    ];
    // Looked up even when the component is cached: without the tool the tests fail.
    let componentize_py = tool(
        repo,
        "componentize-py",
        "venv/bin",
        "pip install componentize-py==0.25.1",
    );
    component(out_dir, name, &inputs, |out| {
        run(
            Command::new(componentize_py)
                .arg("-d")
                .arg(&wit)
                .args(["-w", "hook", "componentize", "-p"])
                .arg(dir)
                .arg("-p")
                .arg(&sdk)
                .arg(module)
                .arg("-o")
                .arg(out)
                .env("PYTHONDONTWRITEBYTECODE", "1"),
            &format!("componentize-py {}", dir.display()),
        );
    })
}

/// Builds the JavaScript entry `entry` (its imports resolved under `root`; `sources` are the
/// other files it imports) with componentize-qjs.
pub fn js_component(
    repo: &Path,
    out_dir: &Path,
    name: &str,
    entry: &Path,
    root: &Path,
    sources: &[PathBuf],
) -> PathBuf {
    let wit = repo.join("wit/hookhost.wit");
    let mut inputs = vec![
        entry.to_path_buf(),
        wit.clone(),
        repo.join("sdk/js/hook-sdk.js"),
    ];
    inputs.extend_from_slice(sources);
    let componentize_qjs = tool(
        repo,
        "componentize-qjs",
        "node_modules/.bin",
        "npm install componentize-qjs@0.4.5",
    );
    component(out_dir, name, &inputs, |out| {
        run(
            Command::new(componentize_qjs)
                .arg("--wit")
                .arg(&wit)
                .arg("--js")
                .arg(entry)
                .arg("--module-root")
                .arg(root)
                // hookhost's wasmtime runs synchronous components (no component-model-async).
                .arg("--sync")
                .arg("-o")
                .arg(out),
            &format!("componentize-qjs {}", entry.display()),
        );
    })
}
