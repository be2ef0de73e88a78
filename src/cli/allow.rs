//! `hookhost allow`: approve a project's hooks, as they are now (`[projects] policy =
//! "approve"` in the user's configuration). A changed file needs approval again.

use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use hookhost::Config;
use hookhost::approvals::Approvals;

use super::render::safe;

#[derive(clap::Args)]
pub struct AllowArgs {
    #[command(flatten)]
    config: super::ConfigArgs,
    /// Withdraw the approval instead
    #[arg(long)]
    revoke: bool,
}

pub fn run(args: AllowArgs) -> Result<ExitCode> {
    let layers = args.config.layers()?;
    let Some(path) = Approvals::default_path() else {
        bail!(
            "cannot tell where to record approvals: set HOOKHOST_DATA_DIR, XDG_DATA_HOME or HOME"
        );
    };
    let mut approvals = Approvals::load(&path)
        .with_context(|| format!("cannot read the approvals {}", path.display()))?;
    let files: Vec<_> = [&layers.project, &layers.local]
        .into_iter()
        .flatten()
        .collect();
    if files.is_empty() {
        bail!("there is no project configuration here to approve");
    }
    for file in files {
        if args.revoke {
            let had = approvals.revoke(file);
            println!(
                "{} {}",
                if had { "revoked" } else { "was not approved:" },
                file.display()
            );
            continue;
        }
        // What is approved is shown, so the approval is an informed one.
        let config = Config::load(file)?;
        println!("{}:", file.display());
        for hook in &config.hooks {
            let what = match &hook.source {
                hookhost::config::HookSource::Command(command) => {
                    format!("runs `{}`", safe(&command.command))
                }
                hookhost::config::HookSource::Wasm(wasm) => {
                    format!(
                        "runs the component {}",
                        safe(&wasm.path.display().to_string())
                    )
                }
            };
            println!("  {} ({}): {what}", safe(&hook.name), safe(&hook.label()));
        }
        let digest = approvals.approve(file)?;
        println!("approved: sha256 {digest}");
    }
    approvals
        .save(&path)
        .with_context(|| format!("cannot write the approvals {}", path.display()))?;
    Ok(ExitCode::SUCCESS)
}
