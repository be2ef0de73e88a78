//! A throwaway project directory with hook scripts and a hooks.toml.

use std::path::{Path, PathBuf};

use hookhost::{HookRunner, RunnerOptions};

pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Project {
        Project {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root().join(relative)
    }

    /// Writes `.forgeflare/hooks.toml` and returns its path.
    pub fn config(&self, toml: &str) -> PathBuf {
        let path = self.path(".forgeflare/hooks.toml");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, toml).unwrap();
        path
    }

    pub fn options(&self) -> RunnerOptions {
        let mut options = RunnerOptions::new(self.root());
        options.forward_stderr = false;
        options
    }

    /// A native runner over `toml`, panicking on configuration errors.
    pub fn runner(&self, toml: &str) -> HookRunner {
        let path = self.config(toml);
        HookRunner::load(path, self.options()).unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path(relative))
            .unwrap_or_else(|e| panic!("reading {relative}: {e}"))
    }

    pub fn read_json(&self, relative: &str) -> serde_json::Value {
        serde_json::from_str(&self.read(relative)).unwrap()
    }
}

/// A hooks.toml entry for a command hook.
pub fn hook(event: &str, command: &str, extra: &str) -> String {
    format!("[[hooks]]\nevent = \"{event}\"\ncommand = '''{command}'''\n{extra}\n\n")
}

/// Processes whose command line contains `marker` (zombies have none, so are not counted).
pub fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(marker) {
                found.push(format!(
                    "{}: {cmdline}",
                    entry.file_name().to_string_lossy()
                ));
            }
        }
    }
    found
}

/// Waits (up to a generous bound) until no process has `marker` in its command line.
pub fn wait_until_gone(marker: &str) -> Vec<String> {
    for _ in 0..100 {
        if processes_with(marker).is_empty() {
            return Vec::new();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    processes_with(marker)
}
