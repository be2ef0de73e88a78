//! Writes the generated copies of the table (the Python and JavaScript SDKs, the README) from
//! `src/table.rs`: `cargo run -p hookhost-tools --example gen-sdk-tables`.

use std::path::Path;

use hookhost_tools::sdk_tables::{COPIES, splice};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (path, section) in COPIES {
        let file = root.join(path);
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let new = splice(&text, &section())
            .unwrap_or_else(|e| panic!("{}: {e}: add the two marker lines", file.display()));
        if new == text {
            println!("{path}: up to date");
        } else {
            std::fs::write(&file, new).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            println!("{path}: written");
        }
    }
}
