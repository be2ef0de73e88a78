//! `hookhost check`: validate, load and prepare every hook, then show them: events, matcher,
//! kind, protocol or interface, timeout, and what each can reach.
//!
//! Longer than 400 lines: `hookhost check` shows every kind of hook with one table's columns
//! (events, matcher, kind, protocol or interface, timeout, reach); `layers` holds what it says
//! of the layers.

use std::process::ExitCode;

use anyhow::{Context as _, Result};
use hookhost::config::{ConfigProblem, HookSource, ManagedFile};
use hookhost::{Config, ConfigError, HookRunner, OnFailure, RunnerOptions};

use super::render::{self, safe};
use layers::{managed_line, recording, trust_lines};

mod gates;
mod layers;

#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    config: super::ConfigArgs,
}

pub fn run(args: CheckArgs) -> Result<ExitCode> {
    let layers = args.config.layers()?;
    let cwd = args.config.cwd()?;
    let mut options = RunnerOptions::new(&cwd);
    let cache = options.cache.clone();
    let compiles = super::progress::watch_compiles(&mut options);
    // The organisation's layer first: a file that cannot be trusted is reported like an
    // invalid one (every agent's tool calls are blocked until it is fixed).
    let managed = ManagedFile::locate();
    if let Some(managed) = &managed {
        match managed.ownership() {
            Ok(ownership) => println!("{}", managed_line(managed, ownership)),
            Err(error) => {
                eprintln!("{}", safe(&hookhost::text::error_chain(&error)));
                return Ok(ExitCode::from(super::EXIT_ERROR));
            }
        }
    }
    // Each file's warnings, with its path; an invalid file is reported whole.
    let mut warnings = Vec::new();
    // Hooks whose script or program is missing: they would fail at every call.
    let mut cannot_run = Vec::new();
    // Whose `[projects]` holds: the organisation's when its file sets one.
    let mut policy_owner = None;
    for path in [managed.as_ref().map(|m| &m.path)]
        .into_iter()
        .chain([&layers.user, &layers.project, &layers.local].map(Option::as_ref))
        .flatten()
    {
        match Config::load(path) {
            Ok(config) => {
                if managed.as_ref().is_some_and(|m| &m.path == path) {
                    policy_owner = config.projects.as_ref().map(|_| "organisation's");
                }
                warnings.extend(config.warnings.iter().map(|w| problem_line(path, w)));
                for found in hookhost::approvals::unrunnable(&config, &options.cwd) {
                    let hook = &config.hooks[found.hook];
                    let problem = ConfigProblem {
                        location: hook.location,
                        hook: Some((hook.index, Some(hook.name.clone()))),
                        message: found.message,
                    };
                    match found.missing_file {
                        true => cannot_run.push(problem_line(path, &problem)),
                        false => warnings.push(problem_line(path, &problem)),
                    }
                }
            }
            Err(error @ ConfigError::Invalid { .. }) => {
                eprintln!("{}", safe_multiline(&error.to_string()));
                return Ok(ExitCode::from(super::EXIT_ERROR));
            }
            Err(error) => return Err(error).context("hookhost check failed"),
        }
    }
    let runner = match HookRunner::load_layers(&layers, options) {
        Ok(runner) => runner,
        Err(error @ ConfigError::Invalid { .. }) => {
            eprintln!("{}", safe_multiline(&error.to_string()));
            return Ok(ExitCode::from(super::EXIT_ERROR));
        }
        Err(error) => return Err(error).context("hookhost check failed"),
    };
    let path = runner.config_path().to_path_buf();

    let wasm = runner.wasm_hooks();
    if wasm
        .iter()
        .any(|(_, info)| info.cache == hookhost::wasm::CacheOutcome::NoKey)
    {
        // Never silently untrusted: a cache without its key is not used, and costs a compile
        // at every load until the key is fixed.
        let why = match cache.check_key() {
            Err(error) => format!("{:#}", anyhow::Error::from(error)),
            Ok(()) => "its key could not be read when the hooks loaded".to_string(),
        };
        warnings.push(format!(
            "the compile cache is not used, so every wasm hook is compiled at each load: {}",
            safe(&why)
        ));
    }
    let held = runner.held_hooks();
    let skipped = runner.skipped_hooks();
    let hooks: Vec<_> = runner.configured_hooks().collect();
    let layered = hooks
        .iter()
        .any(|hook| hook.layer != hookhost::Layer::Project);
    let rows: Vec<Vec<String>> = hooks
        .iter()
        .enumerate()
        .map(|(position, hook)| {
            let mut grants = access(&hook.source);
            if let Some((_, info)) = wasm.iter().find(|(spec, _)| std::ptr::eq(*spec, *hook)) {
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
            match hook.mode {
                hookhost::Mode::Enforce => {}
                hookhost::Mode::Monitor => grants.push("MONITOR: reported, not enforced".into()),
                hookhost::Mode::Warn => grants.push("WARN: its blocks only warn".into()),
            }
            if !hook.enabled {
                grants.push("DISABLED".into());
            }
            if held.iter().any(|(spec, _)| std::ptr::eq(*spec, *hook)) {
                grants.push(format!(
                    "HELD by the {} [projects] policy",
                    policy_owner.unwrap_or("user's")
                ));
            }
            if skipped.iter().any(|(spec, _)| std::ptr::eq(*spec, *hook)) {
                grants.push("SKIPPED by the organisation's managed_only".into());
            }
            let mut row = vec![
                format!("#{}", position + 1),
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
            ];
            if layered {
                row.push(hook.layer.as_str().to_string());
            }
            row
        })
        .collect();
    let mut header = vec!["#", "NAME", "EVENT", "MATCHER", "KIND", "TIMEOUT", "ACCESS"];
    if layered {
        header.push("FROM");
    }
    print!("{}", render::table(&header, &rows));
    let rules = runner.rules();
    if !rules.is_empty() {
        println!(
            "\nrules (asked before the guards on PreToolUse: deny, then ask, then allow; the first that holds decides):"
        );
        print!("{}", rules_table(&rules));
    }
    for (what, list) in [("held", &held), ("skipped", &skipped)] {
        for (spec, reason) in list {
            println!(
                "{what}: #{} {}: {}",
                hooks
                    .iter()
                    .position(|h| std::ptr::eq(*h, *spec))
                    .unwrap_or(0)
                    + 1,
                safe(&spec.name),
                safe(reason)
            );
        }
    }
    for line in layers.managed_overrides()? {
        println!("managed: {}", safe(&line));
    }
    warnings.extend(same_names_as_managed(&hooks));
    for (spec, info) in &wasm {
        let position = hooks
            .iter()
            .position(|h| std::ptr::eq(*h, *spec))
            .unwrap_or(0)
            + 1;
        println!(
            "imports of #{position} {}: {}",
            safe(&spec.name),
            grouped(&info.imports.all)
        );
        if !info.imports.denied.is_empty() {
            println!(
                "  denied (linked, every call fails): {}",
                grouped(&info.imports.denied)
            );
        }
        if info.inline {
            if info
                .imports
                .all
                .iter()
                .all(|i| hookhost::wasm::provided_inline(i))
            {
                println!(
                    "  runs on the calling thread: it imports nothing that can block or keep state"
                );
            } else {
                println!(
                    "  starts on the calling thread; goes on on a fiber at its first call of WASI \
                     or `state`"
                );
            }
        }
        // A grant a hook cannot use is a misunderstanding worth saying out loud: a hook built
        // without WASI has no way to files or variables, whatever its entry grants.
        let unusable = unusable_grants(&spec.source, &info.imports.all);
        if !unusable.is_empty() {
            warnings.push(format!(
                "#{position} {} imports no WASI, so its `{}` grants give it nothing: build it \
                 for wasm32-wasip2 to use them, or remove them",
                safe(&spec.name),
                unusable.join("`, `"),
            ));
        }
    }
    if let Some(line) = compiled_line(&hooks, &wasm, &compiles) {
        println!("{line}");
    }
    for line in trust_lines(managed.as_ref().map(|m| &m.path), &layers) {
        println!("{line}");
    }
    for line in recording(&layers, &mut warnings)? {
        println!("{line}");
    }
    // Whether the agents run what the project's settings ask them to: their trust gates skip
    // an untrusted project's hooks without a word.
    for gate in gates::gates(&cwd) {
        let (agent, file, detail) = (gate.agent, safe(&gate.file), safe(&gate.detail));
        match gate.open {
            true => println!("agent: {agent} runs the hooks of {file}: {detail}"),
            false => warnings.push(format!(
                "{agent} will not run the hooks of {file}: {detail}"
            )),
        }
    }
    for warning in &warnings {
        println!("warning: {warning}");
    }
    for problem in &cannot_run {
        eprintln!("error: {problem}");
    }
    let enabled = hooks.iter().filter(|h| h.enabled).count();
    println!(
        "\n{}: {} hook{} ({} enabled){}, {}{}",
        path.display(),
        hooks.len(),
        if hooks.len() == 1 { "" } else { "s" },
        enabled,
        match rules.len() {
            0 => String::new(),
            1 => ", 1 rule".to_string(),
            n => format!(", {n} rules"),
        },
        match cannot_run.len() {
            0 => "all valid".to_string(),
            1 => "1 cannot run".to_string(),
            n => format!("{n} cannot run"),
        },
        match warnings.len() {
            0 => String::new(),
            1 => ", 1 warning".to_string(),
            n => format!(", {n} warnings"),
        }
    );
    Ok(match cannot_run.is_empty() {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(super::EXIT_ERROR),
    })
}

/// The `[[rules]]` that count: name, action, mode, where each was written.
fn rules_table(rules: &[hookhost::LoadedRule]) -> String {
    let rows: Vec<Vec<String>> = rules
        .iter()
        .map(|rule| {
            vec![
                safe(&rule.name),
                rule.action.to_string(),
                match rule.mode {
                    hookhost::Mode::Enforce => "enforce".to_string(),
                    hookhost::Mode::Monitor => "MONITOR: reported, not enforced".to_string(),
                    hookhost::Mode::Warn => "WARN: its blocks only warn".to_string(),
                },
                format!(
                    "{}{}",
                    safe(&rule.source),
                    rule.layer
                        .map(|layer| format!(" ({})", layer.as_str()))
                        .unwrap_or_default()
                ),
            ]
        })
        .collect();
    render::table(&["RULE", "ACTION", "MODE", "WRITTEN AT"], &rows)
}

/// Which wasm hooks were compiled at this load (and how long each took) and which came from
/// the compile cache.
fn compiled_line(
    hooks: &[&hookhost::HookSpec],
    wasm: &[(&hookhost::HookSpec, hookhost::WasmInfo)],
    compiles: &super::progress::Compiles,
) -> Option<String> {
    let compiles = compiles.lock().unwrap_or_else(|e| e.into_inner());
    let (mut compiled, mut cached) = (Vec::new(), Vec::new());
    for (spec, info) in wasm {
        let position = hooks
            .iter()
            .position(|h| std::ptr::eq(*h, *spec))
            .unwrap_or(0)
            + 1;
        let named = format!("#{position} {}", safe(&spec.name));
        if info.cache == hookhost::wasm::CacheOutcome::Hit {
            cached.push(named);
            continue;
        }
        compiled.push(
            match compiles.iter().find(|compile| compile.hook == spec.name) {
                Some(c) => format!(
                    "#{position} {}",
                    super::progress::describe(&c.hook, c.bytes, c.elapsed)
                ),
                None => named,
            },
        );
    }
    let mut parts = Vec::new();
    if !compiled.is_empty() {
        parts.push(format!("compiled {}", compiled.join(", ")));
    }
    if !cached.is_empty() {
        parts.push(format!("from the compile cache {}", cached.join(", ")));
    }
    (!parts.is_empty()).then(|| format!("wasm: {}", parts.join("; ")))
}

/// A warning for each hook of another layer named like a hook of the organisation's: both
/// run (a name never replaces a managed hook), which a reader of reports should know.
fn same_names_as_managed(hooks: &[&hookhost::HookSpec]) -> Vec<String> {
    let managed: Vec<&str> = hooks
        .iter()
        .filter(|hook| hook.layer == hookhost::Layer::Managed)
        .map(|hook| hook.name.as_str())
        .collect();
    hooks
        .iter()
        .filter(|hook| {
            hook.layer != hookhost::Layer::Managed && managed.contains(&hook.name.as_str())
        })
        .map(|hook| {
            format!(
                "{} of the {} layer has the name of a hook of the organisation's managed layer: \
                 both run, the organisation's first (a name never replaces or disables a \
                 managed hook); rename it to tell them apart",
                safe(&hook.name),
                hook.layer.as_str()
            )
        })
        .collect()
}

fn problem_line(path: &std::path::Path, problem: &ConfigProblem) -> String {
    let path = path.display().to_string();
    let path = render::safe(&path);
    format!("{path}:{}", render::safe(&problem.to_string()))
}

/// The error's lines, each with control characters escaped (the library already quotes what
/// it took from the file; this is a second fence for the terminal).
fn safe_multiline(text: &str) -> String {
    text.lines().map(safe).collect::<Vec<_>>().join("\n")
}

/// Interface names grouped by package: `wasi:sockets@0.2.9 {network, tcp}`.
fn grouped(names: &[String]) -> String {
    let mut packages: Vec<(String, Vec<&str>)> = Vec::new();
    for name in names {
        let (path, version) = name.split_once('@').unwrap_or((name, ""));
        let (package, interface) = path.split_once('/').unwrap_or((path, ""));
        let package = if version.is_empty() {
            package.to_string()
        } else {
            format!("{package}@{version}")
        };
        match packages.iter_mut().find(|(p, _)| *p == package) {
            Some((_, interfaces)) => interfaces.push(interface),
            None => packages.push((package, vec![interface])),
        }
    }
    if packages.is_empty() {
        return "nothing".to_string();
    }
    packages.sort();
    packages
        .iter()
        .map(|(package, interfaces)| {
            let mut interfaces = interfaces.clone();
            interfaces.sort_unstable();
            safe(&format!("{package} {{{}}}", interfaces.join(", ")))
        })
        .collect::<Vec<_>>()
        .join(", ")
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
/// The grants (`read`, `write`, `env`) of a wasm hook that imports no WASI, which therefore
/// cannot use them; empty when it imports WASI or has none.
fn unusable_grants(source: &HookSource, imports: &[String]) -> Vec<&'static str> {
    let HookSource::Wasm(wasm) = source else {
        return Vec::new();
    };
    if imports.iter().any(|import| import.starts_with("wasi:")) {
        return Vec::new();
    }
    let g = &wasm.grants;
    [
        ("read", !g.read.is_empty()),
        ("write", !g.write.is_empty()),
        ("env", !g.env_inherit.is_empty() || !g.env_set.is_empty()),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
    .collect()
}

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
