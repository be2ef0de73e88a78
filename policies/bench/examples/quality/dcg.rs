//! destructive_command_guard (dcg), run as Claude Code runs a PreToolUse hook command: the
//! event as JSON on stdin, its `permissionDecision` read back (`deny` and `ask` are blocks),
//! in a home of its own, with its default packs or with every pack `dcg packs` lists.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// destructive_command_guard, run as Claude Code runs a PreToolUse hook command.
pub struct Dcg {
    binary: PathBuf,
    home: PathBuf,
    all_packs_config: PathBuf,
}

impl Dcg {
    pub fn find(crate_dir: &Path) -> Dcg {
        let binary = std::env::var_os("DCG")
            .map(PathBuf::from)
            .unwrap_or_else(|| crate_dir.join("../../target/dcg-0.16.0/bin/dcg"));
        assert!(
            binary.exists(),
            "dcg is not installed at {}: run policies/bench/install-dcg.sh (or set DCG=/path/to/dcg 0.16.0)",
            binary.display()
        );
        let home = std::env::temp_dir().join(format!("policy-quality-dcg-{}", std::process::id()));
        std::fs::create_dir_all(home.join(".config")).expect("a home for dcg");
        let packs = Command::new(&binary)
            .args(["packs", "--format", "json"])
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .output()
            .expect("dcg packs runs");
        let listing: serde_json::Value =
            serde_json::from_slice(&packs.stdout).unwrap_or_else(|e| {
                panic!(
                    "dcg packs --format json: {e}: {}",
                    String::from_utf8_lossy(&packs.stdout)
                )
            });
        let mut ids: Vec<String> = Vec::new();
        collect_pack_ids(&listing, &mut ids);
        assert!(ids.len() > 10, "dcg packs listed only {ids:?}");
        let all_packs_config = home.join("all-packs.toml");
        let quoted: Vec<String> = ids.iter().map(|id| format!("{id:?}")).collect();
        std::fs::write(
            &all_packs_config,
            format!("[packs]\nenabled = [{}]\n", quoted.join(", ")),
        )
        .expect("config written");
        eprintln!(
            "dcg: {} ({} packs for the all-packs configuration)",
            binary.display(),
            ids.len()
        );
        Dcg {
            binary,
            home,
            all_packs_config,
        }
    }

    pub fn blocks(&self, command: &str, all_packs: bool) -> bool {
        let event = serde_json::json!({
            "session_id": "quality",
            "transcript_path": "/dev/null",
            "cwd": self.home,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": { "command": command },
        });
        let mut dcg = Command::new(&self.binary);
        dcg.current_dir(&self.home)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("DCG_NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if all_packs {
            dcg.env("DCG_CONFIG", &self.all_packs_config);
        }
        let mut child = dcg.spawn().expect("dcg starts");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(event.to_string().as_bytes())
            .expect("event written");
        let output = child.wait_with_output().expect("dcg answers");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let decision = serde_json::from_str::<serde_json::Value>(stdout.trim())
            .ok()
            .and_then(|v| {
                v["hookSpecificOutput"]["permissionDecision"]
                    .as_str()
                    .map(str::to_string)
            });
        matches!(decision.as_deref(), Some("deny" | "ask")) || output.status.code() == Some(2)
    }
}

fn collect_pack_ids(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(id) = map.get("id").and_then(|v| v.as_str()) {
                out.push(id.to_string());
            }
            map.values().for_each(|v| collect_pack_ids(v, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_pack_ids(v, out)),
        _ => {}
    }
}

impl Drop for Dcg {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.home);
    }
}
