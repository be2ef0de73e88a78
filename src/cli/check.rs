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
        HookRunner::new(config, options).map(|_| all)
    });
    let hooks = match loaded {
        Ok(hooks) => hooks,
        Err(error @ ConfigError::Invalid { .. }) => {
            eprintln!("{error}");
            return Ok(ExitCode::from(super::EXIT_ERROR));
        }
        Err(error) => return Err(error).context("hookhost check failed"),
    };

    let rows: Vec<Vec<String>> = hooks
        .iter()
        .map(|hook| {
            let mut grants = Vec::new();
            let HookSource::Command(command) = &hook.source;
            if let Some(cwd) = &command.cwd {
                grants.push(format!("cwd={}", cwd.display()));
            }
            if !command.env.is_empty() {
                let names: Vec<&str> = command.env.keys().map(String::as_str).collect();
                grants.push(format!("env+={}", names.join(",")));
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
