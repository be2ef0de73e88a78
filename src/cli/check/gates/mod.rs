//! Whether each agent will run the hooks this project configures for it. The agents run a
//! repository's hooks only once the user has trusted it, and say nothing when they skip them
//! (`copilot -p`, `codex exec`), so a project whose agent settings call hookhost can be
//! unguarded without a sign. `hookhost check` reads each agent's own trust records, as the
//! versions tests/agents_e2e pins read them, and says for each settings file whether the agent
//! runs it and, if not, exactly what to do:
//!
//! | agent | the project's hooks | run when |
//! |---|---|---|
//! | Claude Code | `.claude/settings.json`, `.claude/settings.local.json` | always under `claude -p`; an interactive session asks once to trust the folder |
//! | Copilot CLI | `.github/hooks/*.json` | the folder (or one above it) is in `trustedFolders` of `~/.copilot/config.json`; or, for one `copilot -p`, `--trust-folder`, `GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true` or `COPILOT_ALLOW_ALL=true` |
//! | Gemini CLI | `.gemini/settings.json` | folder trust is off, or `~/.gemini/trustedFolders.json` trusts the folder (its longest matching rule), or `GEMINI_CLI_TRUST_WORKSPACE=true` |
//! | Codex CLI | `.codex/hooks.json`, `[hooks]` of `.codex/config.toml` | the project is trusted (`[projects."PATH"] trust_level = "trusted"` in `~/.codex/config.toml`) and each hook is, by the hash of its definition (`[hooks.state."FILE:event:group:hook"] trusted_hash`), which `/hooks` records |

use std::path::{Path, PathBuf};

use serde_json::Value;

mod codex;
mod files;

pub(super) use files::Gate;
use files::{env_is, has_hooks, home, read_json, shown};

/// The gates of the agent settings files found in `cwd`.
pub(super) fn gates(cwd: &Path) -> Vec<Gate> {
    let mut gates = Vec::new();
    for file in [".claude/settings.json", ".claude/settings.local.json"] {
        if has_hooks(&read_json(&cwd.join(file))) {
            gates.push(claude(cwd, file));
        }
    }
    let mut copilot_files: Vec<String> = std::fs::read_dir(cwd.join(".github/hooks"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .map(|name| format!(".github/hooks/{name}"))
        .collect();
    copilot_files.sort();
    for file in copilot_files {
        if has_hooks(&read_json(&cwd.join(&file))) {
            gates.push(copilot(cwd, file));
        }
    }
    if has_hooks(&read_json(&cwd.join(".gemini/settings.json"))) {
        gates.push(gemini(cwd));
    }
    gates.extend(codex::gates(cwd));
    gates
}

fn claude(cwd: &Path, file: &str) -> Gate {
    let config = std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(|dir| PathBuf::from(dir).join(".claude.json"))
        .or_else(|| home().map(|home| home.join(".claude.json")));
    let accepted = config.as_deref().map(read_json).is_some_and(|state| {
        state["projects"][cwd.to_string_lossy().as_ref()]["hasTrustDialogAccepted"] == true
    });
    let detail = if accepted {
        "its workspace trust was accepted for this folder".to_string()
    } else {
        "`claude -p` runs them as they are; an interactive `claude` first asks once whether you trust this folder".to_string()
    };
    Gate {
        agent: "Claude Code",
        file: file.to_string(),
        open: true,
        detail,
    }
}

fn copilot(cwd: &Path, file: String) -> Gate {
    let config = std::env::var_os("COPILOT_HOME")
        .map(PathBuf::from)
        .or_else(|| home().map(|home| home.join(".copilot")))
        .map(|dir| dir.join("config.json"));
    let trusted = config.as_deref().map(read_json).and_then(|config| {
        config["trustedFolders"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|folder| cwd.starts_with(folder))
            .map(str::to_string)
    });
    let (open, detail) = match (trusted, config) {
        (Some(folder), Some(config)) => (
            true,
            format!("{folder} is a trusted folder ({})", shown(&config)),
        ),
        _ if env_is("COPILOT_ALLOW_ALL", "true") => (true, "COPILOT_ALLOW_ALL=true trusts the folder for this environment's runs".to_string()),
        _ if env_is("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS", "true") => (true, "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true loads a repository's hooks in this environment's `copilot -p` runs (an interactive session still asks to trust the folder)".to_string()),
        (_, config) => (
            false,
            format!(
                "{} is not a trusted folder, and Copilot CLI skips a repository's hooks in an untrusted one (`copilot -p` without a word). Start `copilot` here once and trust the folder (it is remembered in trustedFolders of {}); or for a `copilot -p` run pass --trust-folder, or set GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true (repository hooks only) or COPILOT_ALLOW_ALL=true (every tool too)",
                cwd.display(),
                config.as_deref().map_or("~/.copilot/config.json".to_string(), shown)
            ),
        ),
    };
    Gate {
        agent: "Copilot CLI",
        file,
        open,
        detail,
    }
}

fn gemini(cwd: &Path) -> Gate {
    let gemini_home = std::env::var_os("GEMINI_CLI_HOME")
        .map(PathBuf::from)
        .or_else(home)
        .map(|home| home.join(".gemini"));
    let folders = std::env::var_os("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        .map(PathBuf::from)
        .or_else(|| {
            gemini_home
                .as_ref()
                .map(|dir| dir.join("trustedFolders.json"))
        });
    let settings = gemini_home.map(|dir| read_json(&dir.join("settings.json")));
    let enabled = settings
        .as_ref()
        .and_then(|settings| settings["security"]["folderTrust"]["enabled"].as_bool())
        .unwrap_or(true);
    let rule = folders.as_deref().map(read_json).and_then(|rules| {
        // Gemini's reading: the longest rule whose folder holds the project decides.
        rules
            .as_object()?
            .iter()
            .filter_map(|(path, level)| {
                let level = level.as_str()?;
                let folder = match level {
                    "TRUST_PARENT" => Path::new(path).parent()?.to_path_buf(),
                    _ => PathBuf::from(path),
                };
                cwd.starts_with(&folder)
                    .then(|| (path.len(), level.to_string()))
            })
            .max()
    });
    let file = folders
        .as_deref()
        .map_or("~/.gemini/trustedFolders.json".to_string(), shown);
    let (open, detail) = if env_is("GEMINI_CLI_TRUST_WORKSPACE", "false") {
        (
            false,
            "GEMINI_CLI_TRUST_WORKSPACE=false distrusts every folder in this environment"
                .to_string(),
        )
    } else if env_is("GEMINI_CLI_TRUST_WORKSPACE", "true") {
        (
            true,
            "GEMINI_CLI_TRUST_WORKSPACE=true trusts the folder for this environment's runs"
                .to_string(),
        )
    } else if !enabled {
        (
            true,
            "folder trust is off (security.folderTrust.enabled = false)".to_string(),
        )
    } else {
        match rule.as_ref().map(|(_, level)| level.as_str()) {
            Some("TRUST_FOLDER" | "TRUST_PARENT") => {
                (true, format!("the folder is trusted ({file})"))
            }
            found => (
                false,
                format!(
                    "{} ({file}), and Gemini CLI runs no project hooks in an untrusted folder (`gemini -p` stops with an error). Start `gemini` here once and trust the folder (it is remembered in {file}); or for one run pass --skip-trust, or set GEMINI_CLI_TRUST_WORKSPACE=true",
                    if found == Some("DO_NOT_TRUST") {
                        "the folder is marked DO_NOT_TRUST"
                    } else {
                        "the folder is not trusted"
                    },
                ),
            ),
        }
    };
    Gate {
        agent: "Gemini CLI",
        file: ".gemini/settings.json".to_string(),
        open,
        detail,
    }
}
