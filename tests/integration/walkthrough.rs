//! The documentation's walkthroughs, followed as written: every file they show is written,
//! every command they show is run, and `hookhost fire` must block the force push.
//! hook-sdk/README.md has one (`<!-- walkthrough: ... -->`); docs/writing-hooks.md ("Write a
//! hook") has one per language (`<!-- walkthrough rust: ... -->`, `python`, `js`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The steps of the walkthrough, in order.
enum Step {
    File {
        path: String,
        content: String,
    },
    Run {
        dir: String,
        commands: String,
        exit: i32,
    },
}

/// The steps of the walkthrough marked `<!-- walkthrough{tag}: ... -->` (`tag` is empty or
/// ` python`, ...).
fn steps(readme: &str, tag: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut lines = readme.lines();
    let prefix = format!("<!-- walkthrough{tag}: ");
    while let Some(line) = lines.next() {
        let Some(marker) = line
            .strip_prefix(prefix.as_str())
            .and_then(|l| l.strip_suffix(" -->"))
        else {
            continue;
        };
        let fence = lines.next().expect("a code block follows a marker");
        assert!(
            fence.starts_with("```"),
            "a marker must precede a code block: {marker}"
        );
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("```"))
            .collect();
        let content = body.join("\n") + "\n";
        let words: Vec<&str> = marker.split_whitespace().collect();
        match words.as_slice() {
            ["file", path] => steps.push(Step::File {
                path: path.to_string(),
                content,
            }),
            ["run", dir, rest @ ..] => {
                let exit = rest
                    .iter()
                    .find_map(|w| w.strip_prefix("exit="))
                    .map_or(0, |n| n.parse().unwrap());
                steps.push(Step::Run {
                    dir: dir.to_string(),
                    commands: content,
                    exit,
                });
            }
            _ => panic!("unknown walkthrough marker: {marker}"),
        }
    }
    steps
}

#[test]
fn the_sdk_readme_walkthrough_works_as_written() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(repo.join("hook-sdk/README.md")).unwrap();
    let steps = steps(&readme, "");
    assert!(steps.len() >= 5, "the walkthrough lost its steps");

    // The README depends on the published hook-sdk; the work directory patches it to this
    // checkout.
    let work = patched_to_checkout(repo);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(&cargo)
        .args(["new", "--lib", "--quiet", "no-force-push"])
        .current_dir(work.path())
        .status()
        .unwrap();
    assert!(status.success());
    follow(
        steps,
        work.path(),
        &[],
        "=> BLOCKED: blocked by no-force-push: force pushes rewrite shared history",
    );
}

/// docs/writing-hooks.md's "Write a hook" for `lang`: `hookhost new`, build, fire. For Rust, hook-sdk
/// comes from this checkout through a `[patch.crates-io]` (what `hookhost new` scaffolds is
/// the published version: this proves that form builds before publication); for Python and
/// JavaScript the compilers are the ones `.ci/run` installs.
fn write_a_hook(lang: &str, hook: &str) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(repo.join("docs/writing-hooks.md")).unwrap();
    let steps = steps(&doc, &format!(" {lang}"));
    assert!(steps.len() >= 3, "the {lang} walkthrough lost its steps");
    let work = patched_to_checkout(repo);
    let tool = |program, dir, install| {
        let path = crate::languages::lang_build::tool(repo, program, dir, install);
        path.parent().unwrap().to_path_buf()
    };
    let tools: Vec<PathBuf> = match lang {
        "python" => vec![tool(
            "componentize-py",
            "venv/bin",
            "pip install componentize-py==0.25.1",
        )],
        "js" => vec![tool(
            "componentize-qjs",
            "node_modules/.bin",
            "npm install componentize-qjs@0.4.5",
        )],
        _ => Vec::new(),
    };
    follow(
        steps,
        work.path(),
        &tools,
        &format!("=> BLOCKED: blocked by {hook}: force pushes rewrite shared history"),
    );
}

/// A work directory whose `.cargo/config.toml` patches the published hook-sdk to this
/// checkout's: what the docs show (`hook-sdk = "0.2"`) builds before it is published.
fn patched_to_checkout(repo: &Path) -> tempfile::TempDir {
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir(work.path().join(".cargo")).unwrap();
    std::fs::write(
        work.path().join(".cargo/config.toml"),
        format!(
            "[patch.crates-io]\nhook-sdk = {{ path = {:?} }}\n",
            repo.join("hook-sdk")
        ),
    )
    .unwrap();
    work
}

#[test]
fn docs_write_a_hook_in_rust() {
    write_a_hook("rust", "no-force-push");
}

#[test]
fn docs_write_a_hook_in_python() {
    write_a_hook("python", "py-guard");
}

#[test]
fn docs_write_a_hook_in_javascript() {
    write_a_hook("js", "js-guard");
}

/// Runs `steps` in `work` with `hookhost` (the binary under test) and `path` first on PATH;
/// `hookhost fire` must print `blocked`.
fn follow(steps: Vec<Step>, work: &Path, path: &[PathBuf], blocked: &str) {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_hookhost")).parent().unwrap();
    let path = std::env::join_paths([bin_dir.to_path_buf()].iter().chain(path).cloned().chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut fired = false;
    for step in steps {
        match step {
            Step::File { path, content } => std::fs::write(work.join(path), content).unwrap(),
            Step::Run {
                dir,
                commands,
                exit,
            } => {
                let output = Command::new("bash")
                    .args(["-euo", "pipefail", "-c", &commands])
                    .current_dir(work.join(&dir))
                    .env("PATH", &path)
                    .env_remove("CARGO_TARGET_DIR")
                    .env_remove("RUSTFLAGS")
                    .env_remove("CARGO_ENCODED_RUSTFLAGS")
                    .env("HOOKHOST_CACHE_DIR", "off")
                    .env("PYTHONDONTWRITEBYTECODE", "1")
                    .output()
                    .unwrap();
                let stdout = String::from_utf8_lossy(&output.stdout);
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert_eq!(
                    output.status.code(),
                    Some(exit),
                    "`{commands}` in {dir}:\n{stdout}\n{stderr}"
                );
                if commands.contains("hookhost fire") {
                    fired = true;
                    assert!(stdout.contains(blocked), "{stdout}");
                }
            }
        }
    }
    assert!(fired, "the walkthrough tries the hook with hookhost fire");
}
