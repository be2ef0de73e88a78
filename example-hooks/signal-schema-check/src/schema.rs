//! The seed's six policy rules for one signal file, and how findings become a verdict.

use hook_sdk::Verdict;
use yaml_rust2::{Yaml, YamlLoader};

/// The signal types the Orchestrator's Poll-Signals routine knows (rule 2).
pub const SIGNAL_TYPES: [&str; 6] = ["STEER", "PAUSE", "ABORT", "INFO", "APPROVE", "SKIP"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Severity {
    Block,
    Warn,
}

/// What the rules found wrong with one signal file, in rule order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    problems: Vec<(Severity, String)>,
}

impl Findings {
    fn block(&mut self, reason: String) {
        self.problems.push((Severity::Block, reason));
    }

    fn warn(&mut self, reason: String) {
        self.problems.push((Severity::Warn, reason));
    }

    /// Findings of a file that cannot be parsed at all (rule 1).
    pub fn not_yaml(detail: &str) -> Findings {
        let mut findings = Findings::default();
        findings.block(format!("Signal file is not valid YAML: {detail}"));
        findings
    }

    /// True when a rule says BLOCK.
    pub fn blocks(&self) -> bool {
        self.problems.iter().any(|(s, _)| *s == Severity::Block)
    }

    /// True when no rule found anything.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// `path: problem; problem`, warnings marked as such when `mark_warnings`.
    fn line(&self, path: &str, mark_warnings: bool) -> String {
        let problems: Vec<String> = self
            .problems
            .iter()
            .map(|(severity, reason)| match severity {
                Severity::Warn if mark_warnings => format!("warning: {reason}"),
                _ => reason.clone(),
            })
            .collect();
        format!("{path}: {}", problems.join("; "))
    }

    /// The verdict for the file at `path`: BLOCK when a rule blocks (its reason also lists the
    /// warnings, so that the model fixes everything at once), WARN when only warnings, else
    /// PASS.
    pub fn verdict(&self, path: &str) -> Verdict {
        Findings::merged(&[(path.to_string(), self.clone())])
    }

    /// One verdict for several files (SessionStart): every file with findings, in order, on
    /// one line each separated by ` | `.
    pub fn merged(files: &[(String, Findings)]) -> Verdict {
        let block = files.iter().any(|(_, findings)| findings.blocks());
        let lines: Vec<String> = files
            .iter()
            .filter(|(_, findings)| !findings.is_clean())
            .map(|(path, findings)| findings.line(path, block))
            .collect();
        match (block, lines.is_empty()) {
            (true, _) => Verdict::block(lines.join(" | ")),
            (false, false) => Verdict::warn(lines.join(" | ")),
            (false, true) => Verdict::allow(),
        }
    }
}

/// Applies the six rules to a signal file named `file_name` holding `content`.
pub fn validate(file_name: &str, content: &str) -> Findings {
    let mut findings = Findings::default();
    match signal_mapping(content) {
        Ok(signal) => check_fields(&signal, &mut findings),
        Err(reason) => findings.block(reason),
    }
    if !is_signal_file_name(file_name) {
        findings.warn(format!(
            "Signal filename '{}' does not match signal.<YYMMDD-HHmmss>.yaml (the signal is still processed)",
            shown(file_name)
        ));
    }
    findings
}

/// Rule 1, and the shape every other rule needs: one YAML document holding a mapping.
fn signal_mapping(content: &str) -> Result<yaml_rust2::yaml::Hash, String> {
    let documents = YamlLoader::load_from_str(content)
        .map_err(|error| format!("Signal file is not valid YAML: {error}"))?;
    match <[Yaml; 1]>::try_from(documents) {
        Ok([Yaml::Hash(mapping)]) => Ok(mapping),
        Ok([other]) => Err(format!(
            "Signal file must be a YAML mapping with `type` and `message` fields, found {}",
            describe(&other)
        )),
        Err(documents) if documents.is_empty() => Err(
            "Signal file is empty: it must be a YAML mapping with `type` and `message` fields"
                .to_string(),
        ),
        Err(documents) => Err(format!(
            "Signal file holds {} YAML documents; it must hold exactly one",
            documents.len()
        )),
    }
}

/// Rules 2 to 5.
fn check_fields(signal: &yaml_rust2::yaml::Hash, findings: &mut Findings) {
    let field = |name: &str| {
        signal
            .get(&Yaml::String(name.to_string()))
            .filter(|value| !value.is_null())
    };
    let allowed = SIGNAL_TYPES.join(", ");
    match field("type") {
        Some(Yaml::String(kind)) if SIGNAL_TYPES.contains(&kind.as_str()) => {}
        Some(Yaml::String(kind)) if SIGNAL_TYPES.contains(&kind.to_uppercase().as_str()) => {
            findings.block(format!(
                "Invalid signal type '{}' (types are upper case: {}). Must be one of: {allowed}",
                shown(kind),
                kind.to_uppercase()
            ));
        }
        Some(other) => findings.block(format!(
            "Invalid signal type {}. Must be one of: {allowed}",
            describe(other)
        )),
        None => findings.block(format!("Missing signal type. Must be one of: {allowed}")),
    }
    match field("message") {
        Some(Yaml::String(text)) if !text.trim().is_empty() => {}
        // A number or a boolean is text that is not empty.
        Some(Yaml::Integer(_) | Yaml::Real(_) | Yaml::Boolean(_)) => {}
        Some(Yaml::Array(_) | Yaml::Hash(_)) => findings.block(format!(
            "Signal message must be non-empty text, found {}",
            describe(field("message").expect("matched"))
        )),
        _ => findings.block("Signal message must be non-empty".to_string()),
    }
    match field("target") {
        Some(Yaml::String(target)) if target.trim().is_empty() => {
            findings.warn("Signal target is missing; it defaults to ALL".to_string())
        }
        Some(_) => {}
        None => findings.warn("Signal target is missing; it defaults to ALL".to_string()),
    }
    if let Some(iteration) = signal.get(&Yaml::String("iteration".to_string())) {
        match iteration {
            Yaml::Integer(n) if *n > 0 => {}
            other => findings.warn(format!(
                "Signal iteration must be a positive integer, found {}",
                describe(other)
            )),
        }
    }
}

/// Rule 6: `signal.<YYMMDD-HHmmss>.yaml`, ASCII digits.
pub fn is_signal_file_name(name: &str) -> bool {
    let Some(stamp) = name
        .strip_prefix("signal.")
        .and_then(|rest| rest.strip_suffix(".yaml"))
    else {
        return false;
    };
    let bytes = stamp.as_bytes();
    bytes.len() == 13
        && bytes[6] == b'-'
        && bytes[..6].iter().chain(&bytes[7..]).all(u8::is_ascii_digit)
}

/// A YAML value as a message names it.
fn describe(value: &Yaml) -> String {
    match value {
        Yaml::String(text) => format!("'{}'", shown(text)),
        Yaml::Integer(n) => format!("'{n}'"),
        Yaml::Real(text) => format!("'{}'", shown(text)),
        Yaml::Boolean(b) => format!("'{b}'"),
        Yaml::Null => "null".to_string(),
        Yaml::Array(_) => "a list".to_string(),
        Yaml::Hash(_) => "a mapping".to_string(),
        Yaml::Alias(_) | Yaml::BadValue => "an invalid value".to_string(),
    }
}

/// Untrusted text in a message: control characters escaped, at most 80 characters.
fn shown(text: &str) -> String {
    let escaped: String = text.escape_debug().collect();
    match escaped.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &escaped[..cut]),
        None => escaped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: &str = "signal.260215-180000.yaml";
    const TYPES: &str = "Must be one of: STEER, PAUSE, ABORT, INFO, APPROVE, SKIP";

    /// A case's name, the file's name, its content, and the prefixes of the BLOCK and WARN
    /// reasons expected, in rule order.
    type Case<'a> = (&'a str, &'a str, &'a str, &'a [&'a str], &'a [&'a str]);

    #[test]
    fn the_six_rules() {
        let target_missing = "Signal target is missing; it defaults to ALL";
        #[rustfmt::skip]
        let cases: &[Case<'_>] = &[
            ("valid", NAME, "type: STEER\ntarget: ALL\nmessage: focus on parsing\niteration: 2\n", &[], &[]),
            ("every type", NAME, "type: APPROVE\ntarget: Ralph-v2-Executor\nmessage: ok\n", &[], &[]),
            ("block-style message", NAME, "type: INFO\ntarget: ALL\nmessage: |\n  line one\n  line two\n", &[], &[]),
            ("flow mapping", NAME, "{type: SKIP, target: ALL, message: skip task-3}", &[], &[]),
            ("rule 1: unclosed flow", NAME, "type: STEER\nmessage: [oops\n", &["Signal file is not valid YAML: "], &[]),
            ("rule 1: bad indentation", NAME, "type: STEER\n  message: x\n target: y\n", &["Signal file is not valid YAML: "], &[]),
            ("rule 1: duplicated key", NAME, "type: STEER\ntype: ABORT\nmessage: m\ntarget: ALL\n", &["Signal file is not valid YAML: "], &[]),
            ("rule 1: a list", NAME, "- type: STEER\n", &["Signal file must be a YAML mapping with `type` and `message` fields, found a list"], &[]),
            ("rule 1: a scalar", NAME, "STEER", &["Signal file must be a YAML mapping with `type` and `message` fields, found 'STEER'"], &[]),
            ("rule 1: empty", NAME, "", &["Signal file is empty: it must be a YAML mapping with `type` and `message` fields"], &[]),
            ("rule 1: two documents", NAME, "type: STEER\nmessage: a\n---\ntype: PAUSE\nmessage: b\n", &["Signal file holds 2 YAML documents; it must hold exactly one"], &[]),
            ("rule 2: the seed's example", NAME, "type: INVALID\nmessage: test", &["Invalid signal type 'INVALID'. Must be one of: STEER, PAUSE, ABORT, INFO, APPROVE, SKIP"], &[target_missing]),
            ("rule 2: lower case", NAME, "type: steer\nmessage: m\ntarget: ALL", &["Invalid signal type 'steer' (types are upper case: STEER). Must be one of: STEER, PAUSE, ABORT, INFO, APPROVE, SKIP"], &[]),
            ("rule 2: missing", NAME, "message: m\ntarget: ALL", &["Missing signal type. Must be one of: STEER, PAUSE, ABORT, INFO, APPROVE, SKIP"], &[]),
            ("rule 2: null", NAME, "type: ~\nmessage: m\ntarget: ALL", &["Missing signal type. "], &[]),
            ("rule 2: a number", NAME, "type: 3\nmessage: m\ntarget: ALL", &["Invalid signal type '3'. "], &[]),
            ("rule 2: a list", NAME, "type: [STEER]\nmessage: m\ntarget: ALL", &["Invalid signal type a list. "], &[]),
            ("rule 3: the seed's example", NAME, "type: STEER\nmessage: ''", &["Signal message must be non-empty"], &[target_missing]),
            ("rule 3: blank", NAME, "type: STEER\nmessage: '  \t '\ntarget: ALL", &["Signal message must be non-empty"], &[]),
            ("rule 3: missing", NAME, "type: STEER\ntarget: ALL", &["Signal message must be non-empty"], &[]),
            ("rule 3: null", NAME, "type: STEER\nmessage:\ntarget: ALL", &["Signal message must be non-empty"], &[]),
            ("rule 3: a mapping", NAME, "type: STEER\nmessage: {a: b}\ntarget: ALL", &["Signal message must be non-empty text, found a mapping"], &[]),
            ("rule 3: a number is text", NAME, "type: INFO\nmessage: 42\ntarget: ALL", &[], &[]),
            ("rule 4: missing", NAME, "type: PAUSE\nmessage: wait", &[], &[target_missing]),
            ("rule 4: blank", NAME, "type: PAUSE\nmessage: wait\ntarget: ' '", &[], &[target_missing]),
            ("rule 5: zero", NAME, "type: PAUSE\nmessage: m\ntarget: ALL\niteration: 0", &[], &["Signal iteration must be a positive integer, found '0'"]),
            ("rule 5: negative", NAME, "type: PAUSE\nmessage: m\ntarget: ALL\niteration: -2", &[], &["Signal iteration must be a positive integer, found '-2'"]),
            ("rule 5: a string", NAME, "type: PAUSE\nmessage: m\ntarget: ALL\niteration: '3'", &[], &["Signal iteration must be a positive integer, found '3'"]),
            ("rule 5: a float", NAME, "type: PAUSE\nmessage: m\ntarget: ALL\niteration: 1.5", &[], &["Signal iteration must be a positive integer, found '1.5'"]),
            ("rule 5: null", NAME, "type: PAUSE\nmessage: m\ntarget: ALL\niteration:", &[], &["Signal iteration must be a positive integer, found null"]),
            ("rule 6: .yml", "signal.260215-180000.yml", "type: INFO\nmessage: m\ntarget: ALL", &[], &["Signal filename 'signal.260215-180000.yml' does not match signal.<YYMMDD-HHmmss>.yaml (the signal is still processed)"]),
            ("rule 6: no stamp", "signal.yaml", "type: INFO\nmessage: m\ntarget: ALL", &[], &["Signal filename 'signal.yaml' does not match"]),
            ("rule 6: short stamp", "signal.26021-180000.yaml", "type: INFO\nmessage: m\ntarget: ALL", &[], &["Signal filename 'signal.26021-180000.yaml' does not match"]),
            ("every rule at once", "s.yaml", "type: X\nmessage: ''\niteration: 0", &["Invalid signal type 'X'. ", "Signal message must be non-empty"], &[target_missing, "Signal iteration must be a positive integer, found '0'", "Signal filename 's.yaml' does not match"]),
        ];
        for (name, file_name, content, blocks, warns) in cases {
            let findings = validate(file_name, content);
            let got = |severity: Severity| -> Vec<&str> {
                findings
                    .problems
                    .iter()
                    .filter(|(s, _)| *s == severity)
                    .map(|(_, reason)| reason.as_str())
                    .collect()
            };
            for (severity, expected) in [(Severity::Block, blocks), (Severity::Warn, warns)] {
                let got = got(severity);
                assert_eq!(got.len(), expected.len(), "{name}: {severity:?} {got:?}");
                for (reason, prefix) in got.iter().zip(expected.iter()) {
                    assert!(
                        reason.starts_with(prefix),
                        "{name}: {reason:?} should start with {prefix:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn verdicts_list_every_finding() {
        let path = "s/signals/inputs/x.yaml";
        assert_eq!(
            validate(NAME, "type: INVALID\nmessage: test\ntarget: ALL").verdict(path),
            Verdict::block(format!("{path}: Invalid signal type 'INVALID'. {TYPES}"))
        );
        assert_eq!(
            validate("x.yaml", "type: INVALID\nmessage: test").verdict(path),
            Verdict::block(format!(
                "{path}: Invalid signal type 'INVALID'. {TYPES}; warning: Signal target is missing; it defaults to ALL; warning: Signal filename 'x.yaml' does not match signal.<YYMMDD-HHmmss>.yaml (the signal is still processed)"
            ))
        );
        assert_eq!(
            validate(NAME, "type: INFO\nmessage: m").verdict(path),
            Verdict::warn(format!(
                "{path}: Signal target is missing; it defaults to ALL"
            ))
        );
        assert_eq!(
            validate(NAME, "type: INFO\nmessage: m\ntarget: ALL").verdict(path),
            Verdict::allow()
        );
    }

    #[test]
    fn untrusted_text_is_escaped_and_cut() {
        let findings = validate(
            NAME,
            &format!(
                "type: \"A\\x1b[2J{}\"\nmessage: m\ntarget: ALL",
                "B".repeat(200)
            ),
        );
        let Verdict {
            answer: hook_sdk::Answer::Block(reason),
            ..
        } = findings.verdict("p")
        else {
            panic!("{findings:?}");
        };
        assert!(
            reason.starts_with("p: Invalid signal type 'A\\u{1b}[2JBBB"),
            "{reason}"
        );
        assert!(reason.contains("B…'."), "{reason}");
    }
}
