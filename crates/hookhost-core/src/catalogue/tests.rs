//! The catalogue's table, index and embedded files agree, and names and options are checked
//! with the policies' own parsers.

use sha2::{Digest as _, Sha256};

use super::*;

#[test]
fn the_table_the_index_and_the_embedded_files_agree() {
    let index = Index::embedded();
    let names: Vec<&str> = POLICIES.iter().map(|policy| policy.name).collect();
    let indexed: Vec<&str> = index.policies.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, indexed);
    for policy in POLICIES {
        let digest: String = Sha256::digest(policy.component)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(digest, policy.entry().sha256, "{}", policy.name);
        assert!(policy.readme.starts_with(&format!("# {}", policy.name)));
    }
}

#[test]
fn unknown_names_get_the_closest_one() {
    assert_eq!(Policy::named("git-safety").unwrap().name, "git-safety");
    assert_eq!(
        Policy::named("destrutive").unwrap_err(),
        "unknown policy \"destrutive\" (did you mean \"destructive\"?); the catalogue has: \
         destructive, protected-paths, secrets, git-safety, egress, ralph-single-mode, \
         ralph-task-file (`hookhost policies` describes them)"
    );
    assert!(!Policy::named("zzz").unwrap_err().contains("did you mean"));
}

#[test]
fn options_are_checked_by_each_policys_parser() {
    use serde_json::json;
    let cases = [
        ("destructive", json!({}), Ok(())),
        (
            "destructive",
            json!({"packs": ["git", "rce"], "ask": ["git"]}),
            Ok(()),
        ),
        (
            "destructive",
            json!({"pakcs": ["git"]}),
            Err(
                "unknown option `pakcs` (did you mean `packs`?); the options are: packs, allow, ask, skip_rules",
            ),
        ),
        (
            "destructive",
            json!({"packs": ["gti"]}),
            Err(
                "unknown pack `gti` in `packs` (did you mean `git`?); the packs are: filesystem, system, disks, git, database, containers, kubernetes, cloud, iac, rce, exfiltration",
            ),
        ),
        ("secrets", json!({"action": "ask"}), Ok(())),
        ("egress", json!({"allow": ["example.com"]}), Ok(())),
    ];
    for (name, config, expected) in cases {
        let got = Policy::find(name).unwrap().check_options(&config);
        assert_eq!(got, expected.map_err(str::to_string), "{name} {config}");
    }
}

#[test]
fn spec_paths_name_their_policy() {
    let policy = Policy::find("egress").unwrap();
    assert_eq!(named_by(&policy.spec_path()), Some("egress"));
    assert_eq!(named_by(Path::new("hooks/guard.wasm")), None);
}
