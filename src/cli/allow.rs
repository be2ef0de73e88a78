//! `hookhost allow`: approve a project's hooks, as they are now (`[projects] policy =
//! "approve"` in the user's configuration), with the project's files they run. A change to
//! the hooks file or to one of those files needs approval again. What is approved is shown,
//! hook by hook, so the approval is an informed one: each file covered with its digest, what
//! is not covered and why, and what hookhost cannot trace.

use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use hookhost::Config;
use hookhost::approvals::{Approvals, Coverage, HookCoverage, NotRecorded};

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
        let config = Config::load(file)?;
        // Its hooks run where an agent finds the file (the project's directory), unless
        // --cwd says where they will run.
        let cwd = match &args.config.cwd {
            Some(_) => args.config.cwd()?,
            None => Coverage::project_dir(file),
        };
        let coverage = Coverage::of(&config, &cwd);
        println!("{}:", file.display());
        for (hook, covered) in config.hooks.iter().zip(&coverage.hooks) {
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
            show_coverage(covered, &coverage);
        }
        let digest = approvals.approve(file, &coverage)?;
        let files = coverage.files().len();
        println!(
            "approved: sha256 {digest}, with {files} file{} its hooks run",
            if files == 1 { "" } else { "s" }
        );
    }
    approvals
        .save(&path)
        .with_context(|| format!("cannot write the approvals {}", path.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// One hook's coverage, under its line: the files recorded (with the short form of their
/// digests), the paths it names that are not, and what cannot be traced.
fn show_coverage(hook: &HookCoverage, coverage: &Coverage) {
    let shown = |path: &std::path::Path| {
        safe(
            &path
                .strip_prefix(&coverage.root)
                .unwrap_or(path)
                .display()
                .to_string(),
        )
    };
    if hook.files.is_empty() && hook.untraceable.is_empty() {
        println!("    covers no file of the project");
    }
    for (path, sha256) in &hook.files {
        match sha256 {
            Some(sha256) => println!("    covers {} (sha256 {})", shown(path), &sha256[..12]),
            None => println!(
                "    covers {} (absent now: a file created there will need a new approval)",
                shown(path)
            ),
        }
    }
    for (path, why) in &hook.not_recorded {
        let why = match why {
            NotRecorded::Outside => "outside the project, not the repository's to change",
            NotRecorded::Directory => "a directory: the files in it are not recorded",
        };
        println!("    not covered: {} ({why})", shown(path));
    }
    for warning in &hook.untraceable {
        println!("    warning: {}: {}", safe(&hook.name), safe(warning));
    }
}
