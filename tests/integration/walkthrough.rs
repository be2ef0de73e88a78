//! hook-sdk/README.md's walkthrough, followed as written: every file it shows is written,
//! every command it shows is run, and `hookhost fire` must block the force push.

use std::path::Path;
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

fn steps(readme: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        let Some(marker) = line
            .strip_prefix("<!-- walkthrough: ")
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
    let steps = steps(&readme);
    assert!(steps.len() >= 5, "the walkthrough lost its steps");

    // The README's layout: the user's crate next to a checkout of hookhost.
    let work = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(repo, work.path().join("hookhost")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(&cargo)
        .args(["new", "--lib", "--quiet", "no-force-push"])
        .current_dir(work.path())
        .status()
        .unwrap();
    assert!(status.success());

    // `hookhost` on PATH is the binary under test.
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_hookhost")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut fired = false;
    for step in steps {
        match step {
            Step::File { path, content } => {
                std::fs::write(work.path().join(path), content).unwrap()
            }
            Step::Run {
                dir,
                commands,
                exit,
            } => {
                let output = Command::new("bash")
                    .args(["-euo", "pipefail", "-c", &commands])
                    .current_dir(work.path().join(&dir))
                    .env("PATH", &path)
                    .env_remove("CARGO_TARGET_DIR")
                    .env_remove("RUSTFLAGS")
                    .env_remove("CARGO_ENCODED_RUSTFLAGS")
                    .env("HOOKHOST_CACHE_DIR", "off")
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
                    assert!(
                        stdout.contains("=> BLOCKED: blocked by no-force-push: force pushes rewrite shared history"),
                        "{stdout}"
                    );
                }
            }
        }
    }
    assert!(fired, "the walkthrough tries the hook with hookhost fire");
}
