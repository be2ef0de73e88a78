//! `hookhost check`: validate, load and prepare every hook, then show them.

use std::process::ExitCode;

use anyhow::{Context as _, Result};
use hookhost::config::HookSource;
use hookhost::{Config, ConfigError, HookRunner, OnFailure, RunnerOptions};

use super::render;

#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    config: super::ConfigArgs,
}

pub fn run(args: CheckArgs) -> Result<ExitCode> {
    let path = args.config.config_path()?;
    let options = RunnerOptions::new(args.config.cwd()?);
    let loaded = Config::load(&path).and_then(|config| {
        let all = config.hooks.clone();
        HookRunner::new(config, options).map(|runner| (all, runner))
    });
    let (hooks, runner) = match loaded {
        Ok(loaded) => loaded,
        Err(error @ ConfigError::Invalid { .. }) => {
            eprintln!("{error}");
            return Ok(ExitCode::from(super::EXIT_ERROR));
        }
        Err(error) => return Err(error).context("hookhost check failed"),
    };

    let rows: Vec<Vec<String>> = hooks
        .iter()
        .map(|hook| {
            let mut grants = access(&hook.source);
            if let Some((_, info)) = runner
                .wasm_hooks()
                .find(|(spec, _)| spec.index == hook.index)
            {
                grants.push(if info.signers.is_empty() {
                    "unsigned".to_string()
                } else {
                    format!("signed by {}", info.signers.join("+"))
                });
            }
            if hook.on_failure == OnFailure::Allow {
                grants.push("advisory (on_failure=allow)".into());
            }
            if !hook.enabled {
                grants.push("DISABLED".into());
            }
            vec![
                format!("#{}", hook.index + 1),
                hook.name.clone(),
                hook.role.label().to_string(),
                hook.match_tool.clone().unwrap_or_else(|| "*".into()),
                hook.source.kind().to_string(),
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
            &["#", "NAME", "EVENT", "TOOL", "KIND", "TIMEOUT", "ACCESS"],
            &rows
        )
    );
    let enabled = hooks.iter().filter(|h| h.enabled).count();
    println!(
        "\n{}: {} hook{} ({} enabled), all valid",
        path.display(),
        hooks.len(),
        if hooks.len() == 1 { "" } else { "s" },
        enabled
    );
    Ok(ExitCode::SUCCESS)
}

/// What a hook can reach, in a few words.
fn access(source: &HookSource) -> Vec<String> {
    let mut grants = Vec::new();
    match source {
        HookSource::Command(command) => {
            grants.push("user account".to_string());
            if let Some(cwd) = &command.cwd {
                grants.push(format!("cwd={}", cwd.display()));
            }
            if !command.env.is_empty() {
                let names: Vec<&str> = command.env.keys().map(String::as_str).collect();
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
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            if !g.read.is_empty() {
                grants.push(format!("read={}", paths(&g.read)));
            }
            if !g.write.is_empty() {
                grants.push(format!("write={}", paths(&g.write)));
            }
            let mut env: Vec<&str> = g.env_inherit.iter().map(String::as_str).collect();
            env.extend(g.env_set.keys().map(String::as_str));
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
