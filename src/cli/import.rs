//! `hookhost import [--from claude|copilot|gemini|codex|cursor] [--output PATH] [--dry-run]
//! [--force]`:
//! the hooks of the agents' settings files as a hooks.toml (`hookhost::agent::import`), written
//! atomically and never over an existing file without `--force`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use hookhost::agent::AgentFormat;
use hookhost::agent::import::{self, Source};

use super::DEFAULT_CONFIGS;

#[derive(clap::Args)]
pub struct ImportArgs {
    /// Import only this agent's settings [default: every agent's that is found]
    #[arg(long, value_name = "AGENT", value_parser = hookhost::agent::AgentFormat::NAMES)]
    from: Option<String>,
    /// Where to write [default: the project's hooks file: .forgeflare/hooks.toml if it
    /// exists, else hooks.toml]
    #[arg(long, short, value_name = "PATH")]
    output: Option<PathBuf>,
    /// Print the hooks.toml on stdout and the report on stderr; write nothing
    #[arg(long)]
    dry_run: bool,
    /// Replace an existing file
    #[arg(long)]
    force: bool,
    /// The project directory [default: .]
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

pub fn run(args: ImportArgs) -> Result<ExitCode> {
    let dir = match &args.cwd {
        Some(dir) => super::absolute(dir)?,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let from = args.from.as_deref().and_then(AgentFormat::from_name);
    let sources = import::sources(&dir, from);
    if sources.is_empty() {
        bail!(
            "no agent hook settings found in {}: looked for .claude/settings.json, .claude/settings.local.json, .github/hooks/*.json, .gemini/settings.json, .codex/hooks.json, .codex/config.toml and .cursor/hooks.json{}",
            dir.display(),
            from.map(|f| format!(" (only {}'s, --from {f})", f.agent()))
                .unwrap_or_default()
        );
    }
    let output = match &args.output {
        Some(path) => dir.join(path),
        None => DEFAULT_CONFIGS
            .iter()
            .map(|name| dir.join(name))
            .find(|path| path.exists())
            .unwrap_or_else(|| dir.join("hooks.toml")),
    };
    let imported = import::import(&sources, &dir, &output)?;
    let shown = output
        .strip_prefix(&dir)
        .unwrap_or(&output)
        .display()
        .to_string();
    if args.dry_run {
        print!("{}", imported.toml);
    } else {
        if output.exists() && !args.force {
            bail!(
                "{shown} already exists; pass --force to replace it, --output PATH to write elsewhere, or --dry-run to see the result"
            );
        }
        write_atomically(&output, &imported.toml, args.force)?;
    }
    report(&sources, &dir, &imported, &shown, args.dry_run);
    Ok(ExitCode::SUCCESS)
}

fn report(sources: &[Source], dir: &Path, imported: &import::Imported, shown: &str, dry_run: bool) {
    let names: Vec<String> = sources
        .iter()
        .map(|s| {
            s.path
                .strip_prefix(dir)
                .unwrap_or(&s.path)
                .display()
                .to_string()
        })
        .collect();
    let verb = if dry_run { "would write" } else { "wrote" };
    eprintln!(
        "{verb} {shown}: {} hook{} from {}",
        imported.hooks,
        if imported.hooks == 1 { "" } else { "s" },
        names.join(", ")
    );
    if !imported.notes.is_empty() {
        eprintln!("not carried over as it was ({}):", imported.notes.len());
        for note in &imported.notes {
            eprintln!("  {}", super::render::safe(note));
        }
    }
    if !dry_run {
        eprintln!(
            "next: `hookhost check`, then point the agent at hookhost instead (docs/agents.md) so these hooks do not run twice"
        );
    }
}

/// Writes `text` to `path` whole and durably, creating its directory (without `replace`,
/// only if `path` still does not exist).
fn write_atomically(path: &Path, text: &str, replace: bool) -> Result<()> {
    let parent = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let written = if replace {
        hookhost::durable::write_atomically(path, text.as_bytes())
    } else {
        hookhost::durable::write_new_atomically(path, text.as_bytes())
    };
    written.with_context(|| format!("cannot write {}", path.display()))
}
