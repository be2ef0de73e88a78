//! `hookhost check`: validate, load and prepare every hook, then show them: events, matcher,
//! kind, protocol or interface, timeout, and what each can reach.

use std::process::ExitCode;

use anyhow::{Context as _, Result};
use hookhost::config::{ConfigProblem, HookSource};
use hookhost::{Config, ConfigError, HookRunner, OnFailure, RunnerOptions};

use super::render::{self, safe};

#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    config: super::ConfigArgs,
}

pub fn run(args: CheckArgs) -> Result<ExitCode> {
    let path = args.config.config_path()?;
    let options = RunnerOptions::new(args.config.cwd()?);
    let loaded = Config::load(&path).and_then(|config| {
        let warnings = config.warnings.clone();
        HookRunner::new(config, options).map(|runner| (warnings, runner))
    });
    let (warnings, runner) = match loaded {
        Ok(loaded) => loaded,
        Err(error @ ConfigError::Invalid { .. }) => {
            eprintln!("{}", safe_multiline(&error.to_string()));
            return Ok(ExitCode::from(super::EXIT_ERROR));
        }
        Err(error) => return Err(error).context("hookhost check failed"),
    };

    let wasm = runner.wasm_hooks();
    let hooks: Vec<_> = runner.configured_hooks().collect();
    let rows: Vec<Vec<String>> = hooks
        .iter()
        .map(|hook| {
            let mut grants = access(&hook.source);
            if let Some((_, info)) = wasm.iter().find(|(spec, _)| spec.index == hook.index) {
                grants.push(format!("interface={}", info.interface));
                grants.push(if info.signers.is_empty() {
                    "unsigned".to_string()
                } else {
                    format!("signed by {}", info.signers.join("+"))
                });
            }
            if hook.on_failure == Some(OnFailure::Allow) {
                grants.push("advisory (on_failure=allow)".into());
            }
            if hook.on_failure == Some(OnFailure::Block) {
                grants.push("fails closed (on_failure=block)".into());
            }
            if !hook.enabled {
                grants.push("DISABLED".into());
            }
            vec![
                format!("#{}", hook.index + 1),
                safe(&hook.name),
                format!(
                    "{}{}",
                    safe(&hook.label()),
                    if hook.background { " (async)" } else { "" }
                ),
                safe(&hook.matcher.to_string()),
                kind(&hook.source),
                format!("{}ms", hook.timeout_ms()),
                if grants.is_empty() {
                    "full user account (command)".into()
                } else {
                    grants.join(" ")
                },
            ]
        })
        .collect();
    print!(
        "{}",
        render::table(
            &["#", "NAME", "EVENT", "MATCHER", "KIND", "TIMEOUT", "ACCESS"],
            &rows
        )
    );
    for warning in &warnings {
        println!("warning: {}", problem_line(&path, warning));
    }
    let enabled = hooks.iter().filter(|h| h.enabled).count();
    println!(
        "\n{}: {} hook{} ({} enabled), all valid{}",
        path.display(),
        hooks.len(),
        if hooks.len() == 1 { "" } else { "s" },
        enabled,
        match warnings.len() {
            0 => String::new(),
            1 => ", 1 warning".to_string(),
            n => format!(", {n} warnings"),
        }
    );
    Ok(ExitCode::SUCCESS)
}

fn problem_line(path: &std::path::Path, problem: &ConfigProblem) -> String {
    format!("{}:{}", path.display(), problem)
}

/// The error's lines, each with control characters escaped (the library already quotes what
/// it took from the file; this is a second fence for the terminal).
fn safe_multiline(text: &str) -> String {
    text.lines().map(safe).collect::<Vec<_>>().join("\n")
}

/// `command (claude)`, `wasm`.
fn kind(source: &HookSource) -> String {
    match source {
        HookSource::Command(command) if command.protocol != hookhost::Protocol::Forgeflare => {
            format!("command ({})", command.protocol)
        }
        other => other.kind().to_string(),
    }
}

/// What a hook can reach, in a few words.
fn access(source: &HookSource) -> Vec<String> {
    let mut grants = Vec::new();
    match source {
        HookSource::Command(command) => {
            grants.push("user account".to_string());
            if let Some(cwd) = &command.cwd {
                grants.push(format!("cwd={}", safe(&cwd.display().to_string())));
            }
            if !command.env.is_empty() {
                let names: Vec<String> = command.env.keys().map(|k| safe(k)).collect();
                grants.push(format!("env+={}", names.join(",")));
            }
        }
        HookSource::Wasm(wasm) => {
            let g = &wasm.grants;
            grants.push(format!("mem={}MiB", g.max_memory_mb));
            if let Some(fuel) = g.fuel {
                grants.push(format!("fuel={fuel}"));
            }
            let paths = |list: &[std::path::PathBuf]| {
                list.iter()
                    .map(|p| safe(&p.display().to_string()))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            if !g.read.is_empty() {
                grants.push(format!("read={}", paths(&g.read)));
            }
            if !g.write.is_empty() {
                grants.push(format!("write={}", paths(&g.write)));
            }
            let mut env: Vec<String> = g.env_inherit.iter().map(|k| safe(k)).collect();
            env.extend(g.env_set.keys().map(|k| safe(k)));
            if !env.is_empty() {
                grants.push(format!("env={}", env.join(",")));
            }
            if g.read.is_empty() && g.write.is_empty() && env.is_empty() {
                grants.push("no files, no env".to_string());
            }
        }
    }
    grants
}
