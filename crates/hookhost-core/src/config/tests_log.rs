//! `[log]`'s switches (`drop_contents`, `redact`, `required`): a value that is not a boolean
//! is a problem located at the value, naming the key, what it takes and what it found, and
//! the file is refused (a log that keeps secrets the user meant to drop never opens).

use super::*;

/// Every problem of an invalid file, as `line:col: message` strings.
fn problems(text: &str) -> Vec<String> {
    match Config::parse(text, "proj/.forgeflare/hooks.toml") {
        Ok(config) => panic!("expected an invalid config, read {:?}:\n{text}", config.log),
        Err(error) => error.problems().iter().map(|p| p.to_string()).collect(),
    }
}

#[test]
fn a_switch_that_is_not_a_boolean_is_a_located_error() {
    const HEAD: &str = "[log]\npath = \"d.jsonl\"\n";
    #[rustfmt::skip]
    let cases: [(&str, &str, &[&str]); 7] = [
        ("drop_contents as a string", "drop_contents = \"yes\"\n", &["3:17: `log.drop_contents` must be true or false, found string"]),
        ("drop_contents as a quoted false", "drop_contents = \"false\"\n", &["3:17: `log.drop_contents` must be true or false, found string"]),
        ("drop_contents as a number", "drop_contents = 0\n", &["3:17: `log.drop_contents` must be true or false, found integer"]),
        ("redact as a list", "redact = [true]\n", &["3:10: `log.redact` must be true or false, found array"]),
        ("redact as a table", "redact = { secrets = true }\n", &["3:10: `log.redact` must be true or false, found table"]),
        ("required as a string", "required = \"true\"\n", &["3:12: `log.required` must be true or false, found string"]),
        ("both, each named", "drop_contents = 1\nredact = \"no\"\n", &[
            "3:17: `log.drop_contents` must be true or false, found integer",
            "4:10: `log.redact` must be true or false, found string",
        ]),
    ];
    for (name, keys, expected) in cases {
        assert_eq!(problems(&format!("{HEAD}{keys}")), expected, "{name}");
    }
}

#[test]
fn the_error_names_the_file() {
    let error = Config::parse(
        "[log]\npath = \"d.jsonl\"\nredact = \"off\"\n",
        "proj/.forgeflare/hooks.toml",
    )
    .unwrap_err();
    assert_eq!(
        error.one_line(),
        "proj/.forgeflare/hooks.toml:3:10: `log.redact` must be true or false, found string"
    );
}
