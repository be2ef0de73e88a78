//! The agents under test: where `.ci/run` installs each (npm, pinned), how it is pointed at the
//! scripted model and kept off every other network, how a user passes its trust gates, and
//! how it runs one prompt non-interactively.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// Where `.ci/run` installs the agents' npm packages.
pub const INSTALL_DIR: &str = ".ci/agents";

/// One agent CLI, pinned.
#[derive(Debug)]
pub struct Agent {
    /// Its name, as docs/agents.md's sections are headed.
    pub name: &'static str,
    /// `agent-hook --format`.
    pub format: &'static str,
    /// Its npm package.
    pub package: &'static str,
    /// The version tested.
    pub version: &'static str,
    /// The command the package installs.
    pub bin: &'static str,
    /// Where docs/agents.md says the project's hook settings go.
    pub settings_file: &'static str,
    /// How the test passes the agent's trust gates, as a user would (for the matrix).
    pub trust: &'static str,
    /// hookhost's names of the agent's events that take context, of those the test adds it on.
    pub events: &'static [&'static str],
}

const ALL_CONTEXT_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
];
/// Codex and Gemini have no event for a failed tool call.
const NO_FAILURE_EVENT: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
];

/// The four agents whose packages can run offline against a local model.
pub const AGENTS: [Agent; 4] = [
    Agent {
        name: "Claude Code",
        format: "claude",
        package: "@anthropic-ai/claude-code",
        version: "2.1.328",
        bin: "claude",
        settings_file: ".claude/settings.json",
        trust: "none under `claude -p` (an interactive session asks once to trust the folder)",
        events: ALL_CONTEXT_EVENTS,
    },
    Agent {
        name: "Copilot CLI",
        format: "copilot",
        package: "@github/copilot",
        version: "1.0.102",
        bin: "copilot",
        settings_file: ".github/hooks/hookhost.json",
        trust: "the folder in `trustedFolders` of `~/.copilot/config.json`, as trusting it in `copilot` records it",
        events: ALL_CONTEXT_EVENTS,
    },
    Agent {
        name: "Codex CLI",
        format: "codex",
        package: "@openai/codex",
        version: "0.169.0",
        bin: "codex",
        settings_file: ".codex/hooks.json",
        trust: "the project trusted in `~/.codex/config.toml`, each hook's hash (from `codex app-server`'s `hooks/list`, what `/hooks` records) as its `trusted_hash`",
        events: NO_FAILURE_EVENT,
    },
    Agent {
        name: "Gemini CLI",
        format: "gemini",
        package: "@google/gemini-cli",
        version: "0.61.0",
        bin: "gemini",
        settings_file: ".gemini/settings.json",
        trust: "the folder as `TRUST_FOLDER` in `~/.gemini/trustedFolders.json`, as trusting it in `gemini` records it",
        events: NO_FAILURE_EVENT,
    },
];

/// The `npm install` line of `.ci/run` that installs every agent.
pub fn install_command() -> String {
    let packages: Vec<String> = AGENTS
        .iter()
        .map(|agent| format!("{}@{}", agent.package, agent.version))
        .collect();
    format!(
        "npm install --prefix {INSTALL_DIR} --no-save {}",
        packages.join(" ")
    )
}

impl Agent {
    /// The installed command, or a panic naming the install command.
    pub fn binary(&self, repo: &Path) -> PathBuf {
        let bin = repo
            .join(INSTALL_DIR)
            .join("node_modules/.bin")
            .join(self.bin);
        let package_json = repo
            .join(INSTALL_DIR)
            .join("node_modules")
            .join(self.package)
            .join("package.json");
        let installed = std::fs::read_to_string(&package_json)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|json| json["version"].as_str().map(str::to_string));
        assert!(
            bin.exists() && installed.as_deref() == Some(self.version),
            "{} {} is not installed in {INSTALL_DIR} (found {}): run `.ci/run`, or install the agents alone with\n  {}",
            self.name,
            self.version,
            installed.as_deref().unwrap_or("nothing"),
            install_command()
        );
        bin
    }

    /// Writes the agent's own files in `home` (and the project's trust): its model at
    /// `model_url`, its telemetry, update checks and other traffic off, the project trusted.
    pub fn prepare(&self, home: &Path, project: &Path, model_url: &str) {
        let write = |relative: &str, text: String| {
            let path = home.join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        let project = project.display().to_string();
        match self.format {
            "claude" => {}
            "copilot" => write(
                ".copilot/config.json",
                json!({ "trustedFolders": [project] }).to_string(),
            ),
            "codex" => write(
                ".codex/config.toml",
                format!(
                    "model = \"gpt-5\"\nmodel_provider = \"scripted\"\ncheck_for_update_on_startup = false\n\
                     [model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{model_url}/v1\"\n\
                     wire_api = \"responses\"\nenv_key = \"SCRIPTED_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\
                     [analytics]\nenabled = false\n[feedback]\nenabled = false\n\
                     [projects.\"{project}\"]\ntrust_level = \"trusted\"\n"
                ),
            ),
            "gemini" => {
                write(
                    ".gemini/settings.json",
                    json!({
                        "security": {"auth": {"selectedType": "gemini-api-key"}},
                        "privacy": {"usageStatisticsEnabled": false},
                        "telemetry": {"enabled": false},
                        "general": {"disableAutoUpdate": true, "disableUpdateNag": true}
                    })
                    .to_string(),
                );
                write(
                    ".gemini/trustedFolders.json",
                    json!({ project: "TRUST_FOLDER" }).to_string(),
                );
            }
            other => unreachable!("{other}"),
        }
    }

    /// The variables of the agent's process: its model, a key the model ignores, and every
    /// switch that keeps it from other traffic.
    pub fn env(&self, home: &Path, model_url: &str) -> Vec<(String, String)> {
        let pairs: Vec<(&str, String)> = match self.format {
            "claude" => vec![
                ("ANTHROPIC_BASE_URL", model_url.to_string()),
                ("ANTHROPIC_API_KEY", "sk-scripted".into()),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
                ("DISABLE_AUTOUPDATER", "1".into()),
                ("DISABLE_TELEMETRY", "1".into()),
                ("DISABLE_ERROR_REPORTING", "1".into()),
            ],
            "copilot" => vec![
                ("COPILOT_OFFLINE", "true".into()),
                ("COPILOT_PROVIDER_BASE_URL", format!("{model_url}/v1")),
                ("COPILOT_PROVIDER_TYPE", "openai".into()),
                ("COPILOT_PROVIDER_API_KEY", "sk-scripted".into()),
                ("COPILOT_MODEL", "gpt-4.1".into()),
                ("COPILOT_AUTO_UPDATE", "false".into()),
                // Its package unpacked once for every run (8 s each otherwise).
                (
                    "COPILOT_PKG_CACHE_HOME",
                    std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
                        .join("agents-e2e-copilot")
                        .display()
                        .to_string(),
                ),
            ],
            "codex" => vec![
                ("CODEX_HOME", home.join(".codex").display().to_string()),
                ("SCRIPTED_API_KEY", "sk-scripted".into()),
            ],
            "gemini" => vec![
                ("GEMINI_API_KEY", "scripted".into()),
                ("GOOGLE_GEMINI_BASE_URL", model_url.to_string()),
                // One process: Gemini otherwise starts itself again with a bigger heap.
                ("GEMINI_CLI_NO_RELAUNCH", "true".into()),
            ],
            other => unreachable!("{other}"),
        };
        pairs
            .into_iter()
            .map(|(name, value)| (name.to_string(), value))
            .collect()
    }

    /// The non-interactive command for `prompt`, as CI would run the agent.
    pub fn command(&self, binary: &Path, prompt: &str) -> Command {
        let mut command = Command::new(binary);
        match self.format {
            "claude" => command.args([
                "-p",
                prompt,
                "--output-format",
                "json",
                "--allowedTools",
                "Bash",
            ]),
            // `--allow-all-paths`: the failing call reads a file outside the project.
            "copilot" => command.args([
                "-p",
                prompt,
                "--allow-all-tools",
                "--allow-all-paths",
                "--disable-client-telemetry",
            ]),
            "codex" => command.args([
                "exec",
                "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox",
                prompt,
            ]),
            "gemini" => command.args(["-p", prompt, "--yolo", "-m", "gemini-2.5-flash"]),
            other => unreachable!("{other}"),
        };
        command
    }
}

/// The project's hook settings for `agent`, exactly as docs/agents.md's section shows them (its
/// first JSON block with a `hooks` object), the hook command `hookhost-client` instead of
/// `hookhost agent-hook` when `client` (the docs: "the flags are agent-hook's").
pub fn documented_settings(docs: &str, agent: &Agent, client: bool) -> String {
    let heading = format!("## {}\n", agent.name);
    let start = docs
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/agents.md has no section {heading:?}"));
    let section = &docs[start + heading.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let block = section
        .split("```json\n")
        .skip(1)
        .filter_map(|rest| rest.split("\n```").next())
        .find(|block| {
            serde_json::from_str::<Value>(block).is_ok_and(|json| json["hooks"].is_object())
        })
        .unwrap_or_else(|| {
            panic!(
                "docs/agents.md's {} section has no settings block",
                agent.name
            )
        });
    match client {
        true => block.replace("hookhost agent-hook", "hookhost-client"),
        false => block.to_string(),
    }
}

/// Trusts the project's Codex hooks as `/hooks` does: asks `codex app-server` (`hooks/list`)
/// for each hook's key and current hash, and records them as `trusted_hash` in
/// `[hooks.state]` of `$CODEX_HOME/config.toml`. Returns the keys trusted.
pub fn trust_codex_hooks(
    binary: &Path,
    project: &Path,
    home: &Path,
    env: &[(String, String)],
    confine: &dyn Fn(&mut Command),
) -> Vec<String> {
    use std::io::{BufRead as _, Write as _};
    let mut command = Command::new(binary);
    command
        .arg("app-server")
        .current_dir(project)
        .env_clear()
        .envs(env.iter().cloned())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    confine(&mut command);
    let mut server = command.spawn().expect("codex app-server starts");
    let mut stdin = server.stdin.take().unwrap();
    let (lines, received) = std::sync::mpsc::channel();
    let stdout = server.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    let answer = |id: u64| -> Value {
        loop {
            let line = received
                .recv_timeout(std::time::Duration::from_secs(60))
                .expect("codex app-server answers within 60 s");
            if let Ok(message) = serde_json::from_str::<Value>(&line)
                && message["id"] == id
            {
                return message;
            }
        }
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"clientInfo": {"name": "hookhost-e2e", "version": "1"}}}));
    answer(1);
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list",
        "params": {"cwds": [project.display().to_string()]}}));
    let listed = answer(2);
    let _ = server.kill();
    let _ = server.wait();
    let hooks: Vec<(String, String)> = listed["result"]["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| entry["hooks"].as_array())
        .flatten()
        .filter(|hook| hook["source"] == "project")
        .filter_map(|hook| {
            Some((
                hook["key"].as_str()?.to_string(),
                hook["currentHash"].as_str()?.to_string(),
            ))
        })
        .collect();
    assert!(
        !hooks.is_empty(),
        "codex app-server listed no project hook: {listed}"
    );
    let config = home.join(".codex/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    for (key, hash) in &hooks {
        text.push_str(&format!(
            "[hooks.state.{}]\ntrusted_hash = \"{hash}\"\n",
            Value::from(key.as_str())
        ));
    }
    std::fs::write(&config, text).unwrap();
    hooks.into_iter().map(|(key, _)| key).collect()
}
