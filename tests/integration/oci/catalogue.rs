//! `hookhost policies publish`: a policy of hookhost's catalogue pushed to a real registry
//! with push's code, signed by the team's cosign key on the way; a project then pins that copy
//! (`wasm = "oci://..."`, `hookhost lock`) under `[trust]` that requires both the catalogue
//! key's signature inside the bundle and the team's beside it, and it blocks `rm -rf /`.

use super::Team;
use super::cosign::{PASSWORD, PASSWORD_VAR};
use super::registry::Registry;

#[test]
fn a_published_catalogue_policy_is_pinned_and_runs_from_the_registry() {
    let registry = Registry::start(false);
    let team = Team::new();
    let (team_pub, _) = team.cosign_key("team");
    let reference = registry.reference("policies/destructive:0.1.0");
    let pushed = team.expect(
        0,
        &[
            "policies",
            "publish",
            "destructive",
            &reference,
            "--sign",
            "team.key",
            "--password-env",
            PASSWORD_VAR,
        ],
        &[(PASSWORD_VAR, PASSWORD)],
    );
    assert!(pushed.contains("with cosign key"), "{pushed}");
    let pull = team.ok(&["pull", &reference, "--output", "pulled.wasm"]);
    let pulled =
        std::fs::read(team.project.path("pulled.wasm")).unwrap_or_else(|e| panic!("{e}: {pull}"));
    assert_eq!(
        pulled,
        hookhost::catalogue::Policy::find("destructive")
            .unwrap()
            .component,
        "the registry holds the catalogue's bundle byte for byte"
    );

    let catalogue_key = hookhost::catalogue::PUBLIC_KEY.lines().nth(1).unwrap();
    team.config(&format!(
        r#"[trust]
require_signed = true

[[trust.keys]]
id = "hookhost-catalogue"
key = "{catalogue_key}"

[[trust.keys]]
id = "team"
kind = "cosign"
file = "{}"

[[trust.rules]]
match = "oci://127.0.0.1:*"
all_of = ["hookhost-catalogue", "team"]

[[hooks]]
event = "PreToolUse"
wasm = "{reference}"

[hooks.config]
packs = ["filesystem"]
"#,
        team_pub.display()
    ));
    team.ok(&["lock"]);
    team.guard_runs();

    let unknown = team.expect(1, &["policies", "publish", "destrutive", &reference], &[]);
    assert!(
        unknown.contains("did you mean \"destructive\"?"),
        "{unknown}"
    );
}
