//! Command-line interface: parse arguments, call the library, render the result.
//!
//! Longer than 400 lines: clap wants the whole command line (every subcommand's arguments) in
//! one `Cli` derive, and `run` dispatches on it; each command's work is in its own module.

mod agent_hook;
mod allow;
mod bench;
mod bundle;
mod check;
mod cosign;
mod event;
#[cfg(feature = "telemetry")]
mod export;
mod fire;
mod import;
mod init;
mod input;
mod keygen;
mod log;
mod new;
#[cfg(feature = "oci")]
mod oci;
#[cfg(all(feature = "catalogue", feature = "oci"))]
mod policies;
mod progress;
mod render;
mod replay;
mod serve;
mod test;
mod utf8;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use clap::{CommandFactory as _, FromArgMatches as _, Parser, Subcommand};

/// Exit status of a command that could not do its job (bad config, I/O).
pub const EXIT_ERROR: u8 = 1;
/// Exit status of `fire` when a guard blocked the event.
pub const EXIT_BLOCKED: u8 = 2;
/// Exit status of `fire` when a hook signalled (and nothing blocked).
pub const EXIT_SIGNALLED: u8 = 3;
/// Exit status of `fire` when a guard defers to the user (`ask`).
pub const EXIT_ASKED: u8 = 4;
/// Exit status of a command line hookhost cannot read (an unknown command or option, a
/// missing argument, text that is not UTF-8 where text is expected): sysexits' EX_USAGE,
/// distinct from "blocked" so that a script can tell a typo from a block.
pub const EXIT_USAGE: u8 = 64;

/// Where hookhost looks for a configuration when `--config` is not given, in order.
const DEFAULT_CONFIGS: [&str; 2] = [".forgeflare/hooks.toml", "hooks.toml"];

#[derive(Parser)]
#[command(
    name = "hookhost",
    version,
    about = "Run and debug the hooks an AI coding agent calls around its tool calls",
    long_about = "hookhost runs the hooks a project declares in hooks.toml (bash commands, sandboxed \
                  .wasm components later) with the same contract forgeflare uses: guards may block a \
                  tool call, observers audit it, PostToolUse hooks may signal convergence, Stop hooks \
                  see the end of a run.",
    after_help = "Examples:\n  \
        hookhost check\n  \
        hookhost fire PreToolUse --tool Bash --input '{\"command\":\"rm -rf /\"}'\n  \
        hookhost fire PostToolUse --tool Bash --input '{\"command\":\"cargo test\"}' --result 'test result: ok'\n  \
        hookhost fire Stop --reason end_turn --json\n  \
        hookhost replay session.jsonl\n  \
        hookhost test --junit report.xml\n  \
        hookhost new my-guard\n  \
        hookhost bench -n 1000\n  \
        hookhost push guard.wasm ghcr.io/acme/destructive-guard:1.2.0\n  \
        hookhost lock"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate and load every hook, then print a table of them.
    #[command(
        after_help = "Exit status: 0 when every hook loads, 1 otherwise (every problem is \
                            printed with file:line:column).\n\nExamples:\n  hookhost check\n  \
                            hookhost check --config demo/hooks.toml"
    )]
    Check(check::CheckArgs),
    /// Run one event through the configured hooks and show what each hook did.
    #[command(
        after_help = "EVENT is any built-in event (PreToolUse, PermissionRequest, PostToolUse, \
                            PostToolUseFailure, UserPromptSubmit, SessionStart, SessionEnd, Notification, Stop, \
                            SubagentStart, SubagentStop, PreCompact) or a custom one.\n\n\
                            Exit status: 0 allowed (approved, warned, nothing signalled), 2 blocked, 3 a hook \
                            signalled, 4 a guard asks the user, 1 error, 64 a command line hookhost cannot read.\n\n\
                            Examples:\n  \
                            hookhost fire PreToolUse --tool Bash --input '{\"command\":\"rm -rf /\"}'\n  \
                            hookhost fire PreToolUse --tool Edit --input-file edit.json --json\n  \
                            hookhost fire PostToolUse --tool Bash --input '{\"command\":\"cargo test\"}' --result 'ok' --is-error\n  \
                            hookhost fire Stop --reason iteration_limit --tool-iterations 50 --total-tokens 120000\n  \
                            hookhost fire UserPromptSubmit --prompt 'refactor the parser' --session-id 260215-173319\n  \
                            hookhost fire SessionStart --session-id 260215-173319 --field source=resume\n  \
                            hookhost fire started --payload '{\"mode\":\"building\"}' --env FRESHER_MODE=building\n  \
                            hookhost fire tool:pre_execute --tool bash --input '{\"command\":\"sudo ls\"}'"
    )]
    Fire(fire::FireArgs),
    /// Run a recorded session through the hooks and report what each hook did.
    #[command(after_help = "The session is JSON Lines, one object per line:\n  \
                            {\"tool\": \"Bash\", \"input\": {\"command\": \"cargo test\"}, \"result\": \"ok\", \"is_error\": false}\n  \
                            {\"stop\": \"end_turn\", \"total_tokens\": 45000}\n\
                            A call may also give \"tool_iterations\"; blank lines are skipped. Blocked calls do not reach \
                            PostToolUse hooks, as in an agent. Hooks run for real (their side effects happen); \
                            convergence.json goes to a temporary directory unless --state-dir says otherwise.\n\n\
                            Examples:\n  hookhost replay demo/session.jsonl --config demo/hooks.toml\n  \
                            hookhost replay recorded.jsonl --keep-going --json")]
    Replay(replay::ReplayArgs),
    /// Read the decision log: what the hooks decided, filtered, as a table, JSON Lines or a
    /// summary per hook.
    #[command(
        after_help = "Reads the file the user's (or the project's) [log] names, and its rotated                             files, oldest first. Lines that are not records (cut by a writer that was                             killed) are skipped and counted on stderr.

                            Examples:
  hookhost log --blocked
  hookhost log --would-block --since 7d --summary
                              hookhost log --hook destructive-guard --json
  hookhost log --file decisions.jsonl --session 260215-173319"
    )]
    Log(log::LogArgs),
    /// Approve this project's hooks as they are now (the user's `[projects] policy = "approve"`).
    #[command(
        after_help = "Prints every hook of the project's hooks.toml (and hooks.local.toml) with the project's \
                            files it runs (the scripts its command names, its component), and records the SHA-256 \
                            of the hooks files and of those files in the user's approvals; a change to any of them \
                            needs approval again. Says which paths are not covered (outside the project, \
                            directories) and which commands it cannot trace to files.\n\n\
                            Examples:\n  hookhost allow\n  hookhost allow --config .forgeflare/hooks.toml\n  \
                            hookhost allow --revoke"
    )]
    Allow(allow::AllowArgs),
    /// The hook command of Claude Code, Copilot CLI, Gemini CLI, Codex CLI or Cursor: read the
    /// agent's event on stdin, run the hooks, answer in the agent's format.
    #[command(
        after_help = "Runs the layered configuration of the event's cwd (the user's hooks.toml, the project's, \
                            hooks.local.toml): wasm, command and every other hook. Answers as the agent reads it: exit 0 \
                            with JSON (deny, ask, allow, rewritten input, context, stop, a message), or exit 2 where the \
                            agent reads an answer only from the exit status. A configuration that does not load denies \
                            tool calls with a message naming the problem.\n\n\
                            Settings entries (docs/agents.md):\n  \
                            Claude Code  .claude/settings.json  {\"type\": \"command\", \"command\": \"hookhost agent-hook --format claude\"}\n  \
                            Copilot CLI  .github/hooks/hookhost.json  {\"type\": \"command\", \"bash\": \"hookhost agent-hook --format copilot --event preToolUse\"}\n  \
                            Gemini CLI   .gemini/settings.json  {\"type\": \"command\", \"command\": \"hookhost agent-hook --format gemini\"}\n  \
                            Codex CLI    .codex/hooks.json  {\"type\": \"command\", \"command\": \"hookhost agent-hook --format codex\"}\n  \
                            Cursor       .cursor/hooks.json  {\"command\": \"hookhost agent-hook --format cursor\", \"failClosed\": true}\n\n\
                            Example:\n  echo '{\"hook_event_name\":\"PreToolUse\",\"cwd\":\".\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf /\"}}' | hookhost agent-hook --format claude"
    )]
    AgentHook(agent_hook::AgentHookArgs),
    /// Run the policy tests of hooks.test.toml files: each case an event through the real
    /// hooks, and what must come out.
    #[command(
        after_help = "A case names an event (built-in or custom), its tool and input or payload,                             optionally the agent it arrives from and the layers present, and what must come                             out: the decision, which hook decided, reason text, the rewritten input, context,                             signals, which hooks ran and which did not, the agent's reply. Each case loads its                             layers afresh and only those (neither this machine's managed file nor your own                             hooks.toml, unless the file names them), so that it gives the same answer in CI.                             See docs/testing.md.\n\n                            Exit status: 0 every case passed, 1 a case failed or could not run, or a test                             file is invalid (every problem at file:line:col), 64 a command line hookhost                             cannot read.\n\n                            Examples:\n  hookhost test\n  hookhost test policies/ --junit report.xml\n                              hookhost test .forgeflare/hooks.test.toml"
    )]
    Test(test::TestArgs),
    /// Run the per-user daemon that answers `agent-hook --daemon` with each project's hooks
    /// kept loaded.
    #[command(
        after_help = "Listens on a Unix socket in a directory only you can open (checked at start); a \
                            connection from another user is refused. Before each call, the files a project's \
                            hooks were loaded from are checked again: a change reloads them, a configuration \
                            that does not load denies tool calls as agent-hook does. SIGTERM or SIGINT: stop \
                            accepting, finish the calls in flight, remove the socket.\n\n\
                            Examples:\n  hookhost serve\n  hookhost serve --idle-exit 0    (under systemd: contrib/hookhost.service)\n  \
                            echo '{...}' | hookhost agent-hook --format claude --daemon=start"
    )]
    Serve(serve::ServeArgs),
    /// Write a hooks.toml from Claude Code's, Copilot CLI's, Gemini CLI's, Codex CLI's and
    /// Cursor's hook settings.
    #[command(
        after_help = "Reads .claude/settings.json, .claude/settings.local.json, .github/hooks/*.json, \
                            .gemini/settings.json, .codex/hooks.json, .codex/config.toml and .cursor/hooks.json \
                            (and reports what Codex's requirements.toml manages). Each hook keeps its agent's \
                            protocol (claude, copilot, gemini, codex, cursor), \
                            so its script runs unchanged; matchers and timeouts are converted, and everything that \
                            cannot be carried over is listed. Never replaces an existing file without --force.\n\n\
                            Exit status: 0 written (or --dry-run), 1 error.\n\n\
                            Examples:\n  hookhost import --dry-run\n  hookhost import --from claude\n  \
                            hookhost import --output .forgeflare/hooks.toml --force"
    )]
    Import(import::ImportArgs),
    /// Protect an agent in one step: its hook settings call hookhost, and hooks.toml gets a profile of policies.
    #[command(
        after_help = "Merges into the settings that exist (your own hooks are kept), idempotent, and reversible \
                            with --remove. The project's files by default; --user for your own (every project). \
                            docs/init.md says what is written where.\n\n\
                            Exit status: 0 written (or --dry-run, or nothing to change), 1 error.\n\n\
                            Examples:\n  hookhost init --agent claude\n  hookhost init --agent codex --profile strict --dry-run\n  \
                            hookhost init --agent copilot --user\n  hookhost init --agent claude --remove"
    )]
    Init(init::InitArgs),
    /// The catalogue of policies built into hookhost: list them, show one, publish one to a registry.
    #[cfg(all(feature = "catalogue", feature = "oci"))]
    #[command(
        after_help = "Use a policy in hooks.toml with `policy = \"NAME\"` and its options in [hooks.config].\n\n\
                            Examples:\n  hookhost policies\n  hookhost policies show destructive\n  \
                            hookhost policies publish destructive ghcr.io/acme/policies/destructive:0.1.0 --sign cosign.key --password-env COSIGN_PASSWORD"
    )]
    Policies(policies::PoliciesArgs),
    /// Create a hook project (Rust on hook-sdk, Python or JavaScript), ready to build into a component.
    #[command(
        after_help = "Examples:\n  hookhost new no-force-push\n  hookhost new my-guard --sdk-path ../hookhost/hook-sdk\n  \
                            hookhost new --lang python py-guard\n  hookhost new --lang js js-guard"
    )]
    New(new::NewArgs),
    /// Time each configured hook on a sample event (p50 and p99).
    #[command(
        after_help = "Measure in release builds (cargo build --release); debug builds of hookhost are ~20x slower \
                            for wasm hooks.\n\nExamples:\n  hookhost bench\n  \
                            hookhost bench --config demo/hooks.toml -n 1000 --input '{\"command\":\"rm -rf /\"}'\n  \
                            hookhost bench PostToolUse --result 'test result: ok'\n  \
                            hookhost bench UserPromptSubmit --prompt 'hello'"
    )]
    Bench(bench::BenchArgs),
    /// Create a key pair for signing bundles: minisign (files), or cosign with --cosign (registries).
    #[command(
        after_help = "The keys are minisign keys: `minisign -G` makes the same kind, and either tool can use \
                            the other's. With --cosign they are cosign keys (ECDSA P-256, the encrypted format of \
                            `cosign generate-key-pair`), which cosign and skopeo can use too.\n\nExamples:\n  hookhost keygen --out team\n  \
                            HOOKHOST_KEY_PASSWORD=... hookhost keygen --out ci --password-env HOOKHOST_KEY_PASSWORD\n  \
                            COSIGN_PASSWORD=... hookhost keygen --cosign --out cosign --password-env COSIGN_PASSWORD"
    )]
    Keygen(keygen::KeygenArgs),
    /// Sign a hook component (and set its metadata): it becomes a bundle that carries both.
    #[command(
        after_help = "Signing again with another key adds a signature (an author's and a security team's). \
                            The signature covers the whole file except the signature sections, metadata included.\n\n\
                            Examples:\n  hookhost sign guard.wasm --key team.key --name destructive-guard --version 1.2.0 --event PreToolUse/guard\n  \
                            hookhost sign guard.wasm --key security.key\n  \
                            hookhost sign --oci ghcr.io/acme/destructive-guard:1.2.0 --key cosign.key --password-env COSIGN_PASSWORD"
    )]
    Sign(bundle::SignArgs),
    /// Check a bundle's signatures against trusted keys.
    #[command(
        after_help = "Exit status: 0 when a trusted, unrevoked key signed it and no signature by a known key \
                            fails; 1 otherwise.\n\nExamples:\n  hookhost verify guard.wasm --trusted team.pub\n  \
                            hookhost verify guard.wasm --trusted security=RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3\n  \
                            hookhost verify guard.wasm --config .forgeflare/hooks.toml"
    )]
    Verify(bundle::VerifyArgs),
    /// Show a bundle's metadata, interface and signatures without running it.
    #[command(
        after_help = "Examples:\n  hookhost inspect guard.wasm\n  hookhost inspect guard.wasm --json\n  \
                            hookhost inspect guard.wasm --extract out && minisign -Vm out/payload.wasm -x out/signature-1.minisig -p team.pub"
    )]
    Inspect(bundle::InspectArgs),
    /// Publish a bundle to an OCI registry, as a CNCF Wasm artifact.
    #[cfg(feature = "oci")]
    #[command(
        after_help = "Credentials come from $HOOKHOST_REGISTRY_USERNAME and $HOOKHOST_REGISTRY_PASSWORD, \
                            else podman's auth.json, else docker's config.json (`docker login` and `podman login` \
                            write them). HTTPS, except for registries on localhost.\n\n\
                            Exit status: 0 pushed, 1 error.\n\n\
                            Examples:\n  hookhost push guard.wasm ghcr.io/acme/destructive-guard:1.2.0\n  \
                            hookhost push guard.wasm oci://localhost:5000/team/guard:dev -a org.opencontainers.image.source=https://git.example/guard\n  \
                            hookhost push guard.wasm registry.internal:5000/team/guard:1.2.0 --plain-http\n  \
                            hookhost push guard.wasm ghcr.io/acme/destructive-guard:1.2.0 --sign cosign.key --password-env COSIGN_PASSWORD"
    )]
    Push(oci::PushArgs),
    /// Fetch a bundle from a registry into the local store (and optionally a file).
    #[cfg(feature = "oci")]
    #[command(
        after_help = "The store is $HOOKHOST_STORE_DIR, else $XDG_CACHE_HOME/hookhost/store, else \
                            ~/.cache/hookhost/store. Nothing half-downloaded is ever left in it.\n\n\
                            Exit status: 0 pulled, 1 error.\n\n\
                            Examples:\n  hookhost pull ghcr.io/acme/destructive-guard:1.2.0\n  \
                            hookhost pull oci://ghcr.io/acme/destructive-guard@sha256:<digest> --output guard.wasm && hookhost inspect guard.wasm"
    )]
    Pull(oci::PullArgs),
    /// Pin every oci:// reference of hooks.toml in hooks.lock, and fetch the bundles.
    #[cfg(feature = "oci")]
    #[command(
        after_help = "hooks.lock is written beside hooks.toml; commit both. Hooks load from the locked \
                            digests in the local store only, never from the network. Entries that still match \
                            hooks.toml are kept (their bundles fetched by digest if missing); --update resolves \
                            every tag again.\n\n\
                            Exit status: 0 locked, 1 error (the lock file is then unchanged).\n\n\
                            Examples:\n  hookhost lock\n  hookhost lock --config demo/hooks.toml\n  \
                            hookhost lock --update"
    )]
    Lock(oci::LockArgs),
}

/// Options every command that reads a configuration shares.
#[derive(clap::Args)]
struct ConfigArgs {
    /// The hooks file [default: .forgeflare/hooks.toml, then hooks.toml]
    #[arg(long, short, value_name = "PATH")]
    config: Option<PathBuf>,
    /// The agent's working directory: hooks run there and see it as `cwd` [default: .]
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

impl ConfigArgs {
    /// The configuration file to use: `--config` (which must exist: a typo in an explicit
    /// path must not mean "no guards"), or the first default that exists.
    fn config_path(&self) -> Result<PathBuf> {
        match self.project_config()? {
            Some(path) => Ok(path),
            None => bail!(
                "no hook configuration found: looked for {} in {}; pass --config PATH",
                DEFAULT_CONFIGS.join(" and "),
                self.cwd()?.display()
            ),
        }
    }

    /// The project's configuration: `--config`, or the first default that exists.
    fn project_config(&self) -> Result<Option<PathBuf>> {
        if let Some(path) = &self.config {
            input::regular_file(path, "configuration")?;
            return Ok(Some(path.clone()));
        }
        let cwd = self.cwd()?;
        Ok(DEFAULT_CONFIGS
            .iter()
            .map(|candidate| cwd.join(candidate))
            .find(|path| path.exists()))
    }

    /// Every layer: the user's own hooks, the project's, its local override (and, when the
    /// machine has one, the organisation's managed file, which loading adds first).
    fn layers(&self) -> Result<hookhost::Layers> {
        let layers = hookhost::Layers::for_project(self.project_config()?);
        if layers.is_empty() {
            self.config_path()?;
        }
        Ok(layers)
    }

    /// The runner for these layers, with hook stderr kept for reports instead of forwarded;
    /// an invalid configuration is an error listing every problem. The path returned names the
    /// project's file (or the user's, without one).
    /// `command` names the agent in decision records (`hookhost fire`, `hookhost replay`),
    /// unless `HOOKHOST_AGENT` does.
    fn load_runner(
        &self,
        state_dir: Option<PathBuf>,
        command: &str,
    ) -> Result<(PathBuf, hookhost::HookRunner)> {
        let layers = self.layers()?;
        let mut options = hookhost::RunnerOptions::new(self.cwd()?);
        options.forward_stderr = false;
        options.state_dir = state_dir;
        progress::watch_compiles(&mut options);
        // A script written for an agent runs as under that agent (`agent-hook`).
        options.protocol_agent_env = true;
        if std::env::var_os("HOOKHOST_AGENT").is_none() {
            options
                .env
                .push(("HOOKHOST_AGENT".to_string(), format!("hookhost {command}")));
        }
        let runner = hookhost::HookRunner::load_layers(&layers, options)?;
        let path = runner.config_path().to_path_buf();
        Ok((path, runner))
    }

    fn cwd(&self) -> Result<PathBuf> {
        let cwd = match &self.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        absolute(&cwd)
    }
}

fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))
}

/// An error in the command line itself: `main` exits with [`EXIT_USAGE`].
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Parses the command line and runs the command.
pub fn run() -> Result<ExitCode> {
    let cli = match parse(std::env::args_os()) {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            // --help, --version.
            error.exit();
        }
        Err(error) => {
            let _ = error.print();
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    match cli.command {
        Command::Check(args) => check::run(args),
        Command::Fire(args) => runtime.block_on(fire::run(args)),
        Command::Replay(args) => runtime.block_on(replay::run(args)),
        Command::Test(args) => runtime.block_on(test::run(args)),
        Command::Log(args) => log::run(args),
        Command::AgentHook(args) => runtime.block_on(agent_hook::run(args)),
        Command::Serve(args) => serve::run(args),
        Command::Import(args) => import::run(args),
        Command::Init(args) => init::run(args),
        #[cfg(all(feature = "catalogue", feature = "oci"))]
        Command::Policies(args) => runtime.block_on(policies::run(args)),
        Command::New(args) => new::run(args),
        Command::Allow(args) => allow::run(args),
        Command::Bench(args) => runtime.block_on(bench::run(args)),
        Command::Keygen(args) => keygen::run(args),
        Command::Sign(args) => bundle::sign(args, &runtime),
        Command::Verify(args) => bundle::verify(args),
        Command::Inspect(args) => bundle::inspect(args),
        #[cfg(feature = "oci")]
        Command::Push(args) => runtime.block_on(oci::push(args)),
        #[cfg(feature = "oci")]
        Command::Pull(args) => runtime.block_on(oci::pull(args)),
        #[cfg(feature = "oci")]
        Command::Lock(args) => runtime.block_on(oci::lock(args)),
    }
}

/// The command line, parsed. Paths are taken as the OS gives them (any bytes on Unix, as
/// cargo, git and ripgrep take them); every other value is text, and one that is not UTF-8 is
/// refused naming its option (clap alone says only that "one or more" arguments are not).
fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Cli, clap::Error> {
    let mut matches = utf8::name_options(Cli::command()).try_get_matches_from(args)?;
    Cli::from_arg_matches_mut(&mut matches)
}
