//! The compile cache against planted files (issue 32): a cache entry is native code that runs
//! in the agent's process, outside the sandbox, and whoever can write the cache directory can
//! plant one. Whatever they plant, what runs is the component the hook names, compiled by this
//! user's hookhost: an entry or record not authenticated under the user's key is never run.
//!
//! Two components that answer differently whatever their configuration: A (the trivial guard)
//! allows every call, B (the answerer, configured to block) blocks with "B ran".

use std::path::{Path, PathBuf};

use hookhost::wasm::{CacheMode, CacheOutcome};
use hookhost::{Decision, HookRunner};
use sha2::Digest as _;

use crate::support::{Project, build_fixture, pre_bash};

/// What B answers when its code runs.
const B_RAN: &str = "B ran";

struct Planted {
    project: Project,
    /// A's component, and B's, as files of the project.
    a: PathBuf,
    b: PathBuf,
    /// The cache under attack, and the user's key (outside it).
    cache: PathBuf,
    key: PathBuf,
}

/// How a load went: how the component was obtained, the digest the hook reports, and what
/// a call came to.
#[derive(Debug, PartialEq, Eq)]
struct Loaded {
    cache: CacheOutcome,
    sha256: String,
    answer: String,
}

impl Planted {
    fn new() -> Planted {
        let project = Project::new();
        let a = project.path("a.wasm");
        let b = project.path("b.wasm");
        std::fs::copy(build_fixture("trivial-guard"), &a).unwrap();
        std::fs::copy(build_fixture("answerer"), &b).unwrap();
        Planted {
            cache: project.path("cache"),
            key: project.path("data/cache.key"),
            project,
            a,
            b,
        }
    }

    /// Loads `wasm` (pinned to its own digest if `pinned`) with the cache authenticated by
    /// `key`, and calls it once.
    async fn load(&self, wasm: &Path, pinned: bool, key: &Path) -> Loaded {
        let pin = if pinned {
            format!("sha256 = \"{}\"\n", digest(wasm))
        } else {
            String::new()
        };
        let config = self.project.config(&format!(
            "[[hooks]]\nname = \"hook\"\nevent = \"PreToolUse\"\nwasm = '{}'\n{pin}\
             [hooks.config]\nanswer = \"block\"\nreason = \"{B_RAN}\"\n",
            wasm.display()
        ));
        let mut options = self.project.options();
        options.cache = CacheMode::Keyed {
            dir: self.cache.clone(),
            key: key.to_path_buf(),
        };
        let runner = HookRunner::load(config, options).unwrap_or_else(|e| panic!("{e}"));
        let info = runner.wasm_hooks().into_iter().next().unwrap().1;
        let answer = match pre_bash(&runner, &serde_json::json!({"command": "ls"}))
            .await
            .decision
        {
            Decision::Allow => "allowed".to_string(),
            Decision::Block(block) => block.reason,
            other => panic!("A allows, B blocks; got {other:?}"),
        };
        Loaded {
            cache: info.cache,
            sha256: info.sha256,
            answer,
        }
    }

    /// What A must come to whenever it loads, however it was obtained.
    fn a_as(&self, cache: CacheOutcome) -> Loaded {
        Loaded {
            cache,
            sha256: digest(&self.a),
            answer: "allowed".to_string(),
        }
    }

    /// Fills the cache with the genuine entries of B, then of A.
    async fn both_compiled(&self) {
        let b = self.load(&self.b, true, &self.key).await;
        assert_eq!(
            (b.cache, b.answer.as_str()),
            (CacheOutcome::Compiled, B_RAN)
        );
        assert_eq!(
            self.load(&self.a, true, &self.key).await,
            self.a_as(CacheOutcome::Compiled)
        );
    }

    /// The artefact of the component `wasm` in the cache, and its sum.
    fn entry(&self, wasm: &Path) -> (PathBuf, PathBuf) {
        let name = format!("{}.cwasm", digest(wasm));
        for engine in std::fs::read_dir(&self.cache).unwrap().flatten() {
            let artefact = engine.path().join(&name);
            if artefact.exists() {
                let sum = PathBuf::from(format!("{}.sum", artefact.display()));
                return (artefact, sum);
            }
        }
        panic!("no entry {name} in {}", self.cache.display())
    }
}

fn digest(wasm: &Path) -> String {
    sha2::Sha256::digest(std::fs::read(wasm).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// B's entry and sum copied over A's: A is compiled again and behaves as A, pinned or not.
#[tokio::test]
async fn an_entry_copied_from_another_component_is_recompiled_not_run() {
    let planted = Planted::new();
    planted.both_compiled().await;
    let (a_artefact, a_sum) = planted.entry(&planted.a);
    let (b_artefact, b_sum) = planted.entry(&planted.b);
    for pinned in [true, false] {
        std::fs::copy(&b_artefact, &a_artefact).unwrap();
        std::fs::copy(&b_sum, &a_sum).unwrap();
        assert_eq!(
            planted.load(&planted.a, pinned, &planted.key).await,
            planted.a_as(CacheOutcome::Replaced),
            "pinned: {pinned}"
        );
    }
    assert_eq!(
        planted.load(&planted.a, true, &planted.key).await,
        planted.a_as(CacheOutcome::Hit),
        "A's own entry, rewritten, is used again"
    );
}

/// Once A's artefact has been checked and recorded (it is then no longer read in full at each
/// load), B's entry written over it, in place or by a rename, is still caught.
#[tokio::test]
async fn an_entry_replaced_after_its_check_was_recorded_is_recompiled() {
    let planted = Planted::new();
    planted.both_compiled().await;
    let (a_artefact, a_sum) = planted.entry(&planted.a);
    let (b_artefact, b_sum) = planted.entry(&planted.b);
    let renamed = planted.project.path("b.cwasm");
    type Plant = fn(&Path, &Path, &Path);
    let cases: [(&str, Plant); 2] = [
        ("written in place", |b, a, _| {
            std::fs::copy(b, a).unwrap();
        }),
        ("renamed over it", |b, a, renamed| {
            std::fs::copy(b, renamed).unwrap();
            std::fs::rename(renamed, a).unwrap();
        }),
    ];
    for (name, plant) in cases {
        // A checked artefact is recorded only once it is older than the racy window (2 s, of
        // whole seconds).
        std::thread::sleep(std::time::Duration::from_millis(3100));
        assert_eq!(
            planted.load(&planted.a, true, &planted.key).await,
            planted.a_as(CacheOutcome::Hit),
            "{name}"
        );
        assert!(
            std::fs::read_dir(planted.cache.join("checked")).is_ok_and(|mut d| d.next().is_some()),
            "{name}: the check is recorded"
        );
        plant(&b_artefact, &a_artefact, &renamed);
        std::fs::copy(&b_sum, &a_sum).unwrap();
        assert_eq!(
            planted.load(&planted.a, true, &planted.key).await,
            planted.a_as(CacheOutcome::Replaced),
            "{name}"
        );
    }
}

/// B's artefact under A's name with a checksum anyone can compute over it: recompiled.
#[tokio::test]
async fn an_entry_with_a_checksum_anyone_can_compute_is_recompiled() {
    let planted = Planted::new();
    planted.both_compiled().await;
    let (a_artefact, a_sum) = planted.entry(&planted.a);
    let (b_artefact, _) = planted.entry(&planted.b);
    let b_code = std::fs::read(&b_artefact).unwrap();
    let crc = crc32fast::hash(&b_code);
    let len = b_code.len();
    let cases = [
        (
            "the previous layout's length and CRC-32",
            format!("hookhost-cwasm-2 {len} {crc:08x}\n"),
        ),
        (
            "this layout's first word, a CRC-32 for the MAC",
            format!("hookhost-cwasm-3 {len} {crc:08x}\n"),
        ),
    ];
    for (name, sum) in cases {
        std::fs::write(&a_artefact, &b_code).unwrap();
        std::fs::write(&a_sum, sum).unwrap();
        assert_eq!(
            planted.load(&planted.a, true, &planted.key).await,
            planted.a_as(CacheOutcome::Replaced),
            "{name}"
        );
    }
}

/// A cache filled under another key (another user's, another machine's, a CI cache restored
/// from elsewhere) is compiled again entry by entry, never run.
#[tokio::test]
async fn a_cache_made_with_another_key_is_recompiled() {
    let planted = Planted::new();
    let elsewhere = planted.project.path("elsewhere/cache.key");
    assert_eq!(
        planted.load(&planted.a, true, &elsewhere).await,
        planted.a_as(CacheOutcome::Compiled)
    );
    assert_eq!(
        planted.load(&planted.a, true, &elsewhere).await,
        planted.a_as(CacheOutcome::Hit),
        "the cache works under the key that made it"
    );
    assert_eq!(
        planted.load(&planted.a, true, &planted.key).await,
        planted.a_as(CacheOutcome::Replaced)
    );
    assert_eq!(
        planted.load(&planted.a, true, &planted.key).await,
        planted.a_as(CacheOutcome::Hit)
    );
}

/// A `files/` record that says A's file has B's digest (whose genuine entry is in the cache):
/// without a pin to refuse it, it is ignored and A is hashed, compiled and run.
#[tokio::test]
async fn a_forged_digest_record_is_ignored() {
    use std::os::unix::fs::MetadataExt as _;
    let planted = Planted::new();
    let b = planted.load(&planted.b, false, &planted.key).await;
    assert_eq!(b.answer, B_RAN);
    let meta = std::fs::metadata(&planted.a).unwrap();
    // The record's name and stamp: the file's device, inode, size, mtime and ctime.
    let record = planted
        .cache
        .join(format!("files/{:x}-{:x}", meta.dev(), meta.ino()));
    let stamp = format!(
        "{} {}.{:09} {}.{:09}",
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec()
    );
    let cases = [
        (
            "the previous layout's record",
            format!("{stamp} {}\n", b.sha256),
            CacheOutcome::Compiled,
        ),
        (
            "this layout's record with a made-up MAC",
            format!("{stamp} {} {}\n", b.sha256, "0".repeat(64)),
            CacheOutcome::Hit,
        ),
    ];
    for (name, forged, outcome) in cases {
        std::fs::create_dir_all(record.parent().unwrap()).unwrap();
        std::fs::write(&record, forged).unwrap();
        assert_eq!(
            planted.load(&planted.a, false, &planted.key).await,
            planted.a_as(outcome),
            "{name}"
        );
    }
}

/// A key that group or others may read proves nothing: the cache is not used (not even its
/// genuine entries) and the load and `hookhost check` say why.
#[tokio::test]
async fn a_key_open_to_others_is_not_used() {
    use std::os::unix::fs::PermissionsExt as _;
    let planted = Planted::new();
    assert_eq!(
        planted.load(&planted.a, true, &planted.key).await,
        planted.a_as(CacheOutcome::Compiled)
    );
    std::fs::set_permissions(&planted.key, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(
        planted.load(&planted.a, true, &planted.key).await,
        planted.a_as(CacheOutcome::NoKey)
    );
    let mode = CacheMode::Keyed {
        dir: planted.cache.clone(),
        key: planted.key.clone(),
    };
    let why = format!(
        "the compile cache's key {} is open to group or others (mode 644); remove it: a new one \
         is made and the cache compiled again",
        planted.key.display()
    );
    assert_eq!(mode.check_key().unwrap_err().to_string(), why);

    #[cfg(feature = "cli")]
    {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
            .args(["check", "--config"])
            .arg(planted.project.path(".forgeflare/hooks.toml"))
            .env("HOOKHOST_CACHE_DIR", &planted.cache)
            .env(hookhost::wasm::CACHE_KEY_ENV, &planted.key)
            .env(
                "HOOKHOST_CONFIG_DIR",
                planted.project.path(".no-user-config"),
            )
            .env("HOOKHOST_DATA_DIR", planted.project.path(".no-user-data"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains(&format!(
                "warning: the compile cache is not used, so every wasm hook is compiled at each \
                 load: {why}"
            )),
            "{stdout}"
        );
    }

    // Once the exposed key is replaced, the cache is used again, under the new key.
    std::fs::remove_file(&planted.key).unwrap();
    assert_eq!(
        planted.load(&planted.a, true, &planted.key).await,
        planted.a_as(CacheOutcome::Replaced)
    );
}
