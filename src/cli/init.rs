//! `hookhost init`: protects an agent in one step, over the `hookhost-init` crate. It writes
//! the agent's hook settings (hookhost on every event it serves there) and a hooks.toml block
//! with a profile of the catalogue's policies; `--dry-run` shows the diff and writes nothing;
//! `--remove` takes out exactly what init added (docs/init.md).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use hookhost_init::{Agent, Options, Plan, Profile, Roots, Scope};

#[derive(clap::Args)]
pub struct InitArgs {
    /// The agent: claude, copilot, gemini, codex or cursor
    #[arg(long, value_name = "AGENT")]
    agent: String,
    /// The policies hooks.toml gets: standard or strict
    #[arg(long, value_name = "PROFILE", default_value = "standard")]
    profile: String,
    /// The user's settings (every project) and the user's hooks.toml
    #[arg(long, conflicts_with = "project")]
    user: bool,
    /// The project's settings and hooks.toml (the default)
    #[arg(long)]
    project: bool,
    /// Print the diff of every file, and write nothing
    #[arg(long)]
    dry_run: bool,
    /// Take out what init added (hookhost's entries, the profile's block)
    #[arg(long, conflicts_with = "profile")]
    remove: bool,
    /// Only these events (the agent's names or hookhost's), comma-separated
    #[arg(long, value_name = "EVENTS", value_delimiter = ',')]
    events: Option<Vec<String>>,
    /// The project directory (default: the current directory)
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

pub fn run(args: InitArgs) -> Result<ExitCode> {
    let agent = Agent::from_name(&args.agent)?;
    let scope = if args.user {
        Scope::User
    } else {
        Scope::Project
    };
    let project = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let roots = Roots::from_env(project)?;
    let plan = if args.remove {
        Plan::remove(agent, scope, &roots)?
    } else {
        let profile = Profile::from_name(&args.profile)?;
        Plan::new(agent, scope, profile, &options(&args, scope), &roots)?
    };
    if args.dry_run {
        print!("{}", plan.diff());
    } else if !plan.is_noop() {
        plan.apply()?;
    }
    report(&plan, &args);
    Ok(ExitCode::SUCCESS)
}

/// How the entries are written: the user's settings name this hookhost by its absolute path
/// (agents started with another PATH still find it), a project's the bare name (its settings
/// are committed); the daemon's client where it is installed beside this hookhost.
fn options(args: &InitArgs, scope: Scope) -> Options {
    let exe = std::env::current_exe().ok();
    let client_installed = exe
        .as_ref()
        .is_some_and(|exe| exe.with_file_name("hookhost-client").is_file());
    let hookhost = match (scope, &exe) {
        (Scope::User, Some(exe)) => exe.display().to_string(),
        _ => "hookhost".to_string(),
    };
    Options {
        use_client: client_installed,
        hookhost,
        events: args.events.clone(),
        ..Options::default()
    }
}

/// What was (or would be) written, the notes, and the agent's trust step.
fn report(plan: &Plan, args: &InitArgs) {
    let verb = match (args.dry_run, args.remove) {
        (true, _) => "would change",
        (false, false) => "wrote",
        (false, true) => "changed",
    };
    let changed: Vec<_> = plan.files.iter().filter(|file| file.changes()).collect();
    if changed.is_empty() {
        eprintln!("hookhost init: nothing to change for {}", plan.agent.name());
    }
    for file in changed {
        let what = match (&file.before, &file.after) {
            (None, Some(_)) => "created",
            (Some(_), None) => "deleted",
            _ => "updated",
        };
        eprintln!("{verb} {} ({what})", file.path.display());
    }
    for note in &plan.notes {
        eprintln!("note: {note}");
    }
    if !args.dry_run && !plan.trust.is_empty() {
        eprintln!("{}", plan.trust);
    }
}
