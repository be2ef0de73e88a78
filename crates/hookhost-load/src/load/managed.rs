//! The organisation's layer among the others: loaded first from the managed file (see
//! [`ManagedFile`]), and the rules that keep the user's and the project's files from switching
//! it off: nobody else may `disable` its hooks or set `managed_only`; its `[trust]` holds for
//! every layer; its `[projects]`, `[log]` and `[telemetry]` win over the user's; and with
//! `managed_only = true` every other layer's hooks are skipped (reported, never run, never
//! blocking).

use std::path::Path;

use crate::config::{Config, ConfigError, ConfigProblem, Layer, ManagedFile, ProjectsSpec};

/// The organisation's configuration, with its hooks marked as its, when this machine has one;
/// `None` otherwise (and then nothing changes). A managed file that cannot be trusted or read
/// is an error: the runner fails closed on it.
pub(super) fn managed_layer() -> Result<Option<(Layer, Config)>, ConfigError> {
    let Some(managed) = ManagedFile::locate() else {
        return Ok(None);
    };
    let mut config = managed.load()?;
    for hook in &mut config.hooks {
        hook.layer = Layer::Managed;
    }
    Ok(Some((Layer::Managed, config)))
}

/// Why the hooks of layers other than the organisation's do not run: its `managed_only`.
pub(super) fn skipped_reason(configs: &[(Layer, Config)]) -> Option<String> {
    let (_, managed) = configs
        .iter()
        .find(|(layer, config)| *layer == Layer::Managed && config.managed_only == Some(true))?;
    Some(format!(
        "the organisation's managed configuration ({}) sets managed_only = true, so only its \
         hooks run",
        managed.path.display()
    ))
}

/// The `[projects]` that holds: the organisation's when it sets one, else the user's.
pub(super) fn pick_projects(configs: &[(Layer, Config)]) -> ProjectsSpec {
    [Layer::Managed, Layer::User]
        .into_iter()
        .find_map(|wanted| {
            configs
                .iter()
                .find(|(layer, _)| *layer == wanted)
                .and_then(|(_, config)| config.projects.clone())
        })
        .unwrap_or_default()
}

/// What a file of `layer` may not do to the organisation's layer: set `managed_only`, or
/// `disable` one of its hooks.
pub(super) fn check_managed_keys(
    layer: Layer,
    config: &Config,
    configs: &[(Layer, Config)],
    problems: &mut Vec<ConfigProblem>,
) {
    if layer == Layer::Managed {
        return;
    }
    let managed = configs.iter().find(|(l, _)| *l == Layer::Managed);
    let managed_path = managed.map_or_else(
        || crate::config::MANAGED_CONFIG_PATH.to_string(),
        |(_, config)| config.path.display().to_string(),
    );
    if config.managed_only.is_some() {
        problems.push(ConfigProblem {
            location: config.managed_only_at,
            hook: None,
            message: format!(
                "`managed_only` belongs in the organisation's managed configuration \
                 ({managed_path}): the organisation's layer cannot be switched on or off by a \
                 user's or a project's file; remove it"
            ),
        });
    }
    for name in &config.disable {
        let managed_hook = managed.is_some_and(|(_, m)| m.hooks.iter().any(|h| &h.name == name));
        if managed_hook {
            problems.push(ConfigProblem {
                location: config.disable_at,
                hook: None,
                message: format!(
                    "`disable` names {}, a hook of the organisation's managed configuration \
                     ({managed_path}): the organisation's layer cannot be disabled by a project \
                     or a user; remove it from `disable` (a project hook of the same name must \
                     be renamed to be disabled)",
                    crate::text::quote(name)
                ),
            });
        }
    }
}

/// Whether `name` names a hook of the organisation's layer (a `disable` of it is refused by
/// [`check_managed_keys`], not reported again as "not a hook of the project").
pub(super) fn is_managed_hook(configs: &[(Layer, Config)], name: &str) -> bool {
    configs
        .iter()
        .filter(|(layer, _)| *layer == Layer::Managed)
        .any(|(_, config)| config.hooks.iter().any(|hook| hook.name == name))
}

/// What the organisation's layer overrides in the others, one line each, for `hookhost check`:
/// the user's `[projects]`, `[log]` and `[telemetry]`, and, with `managed_only`, every other
/// layer's hooks; and a variable that names another managed file, ignored.
pub(super) fn overrides(configs: &[(Layer, Config)]) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(managed) = ManagedFile::locate()
        && let Some(ignored) = &managed.variable_ignored
    {
        lines.push(format!(
            "{} names {}, which is ignored: {} exists, and the system file always wins",
            crate::config::MANAGED_CONFIG_ENV,
            ignored.display(),
            managed.path.display()
        ));
    }
    let Some((_, managed)) = configs.iter().find(|(layer, _)| *layer == Layer::Managed) else {
        return lines;
    };
    let at = |path: &Path| path.display().to_string();
    for (layer, config) in configs.iter().filter(|(layer, _)| *layer != Layer::Managed) {
        let mut overridden = Vec::new();
        if *layer == Layer::User && config.projects.is_some() && managed.projects.is_some() {
            overridden.push("[projects]");
        }
        if config.log.is_some() && managed.log.is_some() {
            overridden.push("[log]");
        }
        if *layer == Layer::User && config.telemetry.is_some() && managed.telemetry.is_some() {
            overridden.push("[telemetry]");
        }
        if !overridden.is_empty() {
            lines.push(format!(
                "the organisation's {} ({}) override{} the {} file's ({})",
                overridden.join(", "),
                at(&managed.path),
                if overridden.len() == 1 { "s" } else { "" },
                layer.as_str(),
                at(&config.path)
            ));
        }
    }
    if managed.managed_only == Some(true) {
        let skipped: usize = configs
            .iter()
            .filter(|(layer, _)| *layer != Layer::Managed)
            .map(|(_, config)| config.hooks.len())
            .sum();
        lines.push(format!(
            "the organisation's managed_only = true ({}): only its hooks (and hooks the agent \
             registers in-process) run; {skipped} hook(s) of the other layers are skipped",
            at(&managed.path)
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str, path: &str) -> Config {
        Config::parse(text, path).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The organisation's `[trust]` holds for every other layer (`build_layers` passes it as
    /// inherited to each), its key files read from its own directory, never the project's
    /// (where anyone could put a file of that name).
    #[cfg(feature = "wasm")]
    #[test]
    fn the_organisations_trust_holds_for_every_other_layer_with_its_own_key_files() {
        let org_dir = tempfile::tempdir().unwrap();
        let project_dir = tempfile::tempdir().unwrap();
        let org = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
        let impostor = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
        for (dir, pair) in [(&org_dir, &org), (&project_dir, &impostor)] {
            std::fs::create_dir_all(dir.path().join("keys")).unwrap();
            std::fs::write(
                dir.path().join("keys/org.pub"),
                pair.pk.to_box().unwrap().to_string(),
            )
            .unwrap();
        }
        let managed = config(
            "[trust]\nrequire_signed = true\n[[trust.keys]]\nid = \"org\"\nfile = \"keys/org.pub\"\n",
            org_dir.path().join("hooks.toml").to_str().unwrap(),
        );
        let project = config("", project_dir.path().join("hooks.toml").to_str().unwrap());
        let mut problems = Vec::new();
        let policy = super::super::trust::trust_policy(&project, &[&managed], &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(policy.minisign.require_signed);
        assert_eq!(policy.minisign.keys.len(), 1);
        assert_eq!(
            policy.minisign.keys[0].key, org.pk,
            "never the project's keys/org.pub"
        );
    }

    #[test]
    fn the_organisations_projects_win_over_the_users() {
        let user = config("[projects]\npolicy = \"allow\"\n", "user.toml");
        let managed = config("[projects]\npolicy = \"sandboxed\"\n", "managed.toml");
        let policy = |configs: &[(Layer, Config)]| pick_projects(configs).policy;
        assert_eq!(
            policy(&[(Layer::User, user.clone())]),
            crate::config::ProjectPolicy::Allow
        );
        assert_eq!(
            policy(&[(Layer::Managed, managed), (Layer::User, user.clone())]),
            crate::config::ProjectPolicy::Sandboxed
        );
        let silent = config("", "managed.toml");
        assert_eq!(
            policy(&[(Layer::Managed, silent), (Layer::User, user)]),
            crate::config::ProjectPolicy::Allow,
            "a managed file without [projects] leaves the user's"
        );
    }
}
