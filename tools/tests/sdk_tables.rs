//! The copies of the table the SDKs carry (and the README) are the table: a copy edited by
//! hand, or a row added without regenerating, fails here with the command that fixes it.

use std::path::Path;

use hookhost_tools::sdk_tables::{COPIES, REGENERATE, splice};

#[test]
fn the_sdks_copies_of_the_table_are_generated_from_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut stale = Vec::new();
    for (path, section) in COPIES {
        let text =
            std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        let expected = splice(&text, &section()).unwrap_or_else(|e| panic!("{path}: {e}"));
        if expected != text {
            stale.push(path);
        }
    }
    assert!(
        stale.is_empty(),
        "the generated tool table differs from tools/src/table.rs in {}: run `{REGENERATE}`",
        stale.join(", ")
    );
}
