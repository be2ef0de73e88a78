//! A test file read as hooks.toml is: the spanned TOML tree walked by hand, so that every
//! problem of the file is reported with its line, column and case, and a misspelt key, event,
//! agent or decision gets a "did you mean". Nothing that could make a case pass without
//! checking anything is let through: a file without cases, a case without expectations, a
//! layer file that does not exist.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{Case, CaseEvent, CaseLayers, Expect, ExpectReply, Named};
use crate::config::{ConfigProblem, Problems, close_to, to_json};
use crate::dialect::AgentFormat;
use crate::event::catalog;

const TOP_KEYS: &[&str] = &["layers", "cwd", "cases"];
const CASE_KEYS: &[&str] = &[
    "name",
    "event",
    "agent",
    "tool",
    "input",
    "payload",
    "stdin",
    "session_id",
    "env",
    "layers",
    "cwd",
    "expect",
];
const EXPECT_KEYS: &[&str] = &[
    "decision",
    "by",
    "reason",
    "hook_failed",
    "updated_input",
    "context",
    "signals",
    "ran",
    "did_not_run",
    "reply",
];
const REPLY_KEYS: &[&str] = &["exit_code", "json", "stdout", "stderr"];
const LAYER_KEYS: &[&str] = &["managed", "user", "project", "local"];
const DECISIONS: &[&str] = &["allow", "approve", "warn", "ask", "block"];

/// The case a problem belongs to: its index and name.
type CaseRef = Option<(usize, Option<String>)>;

/// The cases of the test file at `path`, or every problem found.
pub(super) fn parse_file(text: &str, path: &Path) -> Result<Vec<Case>, Vec<ConfigProblem>> {
    let mut sink = Problems::new(text);
    let (doc, syntax_errors) = DeTable::parse_recoverable(text);
    if !syntax_errors.is_empty() {
        for error in syntax_errors {
            let message = crate::text::one_line(error.message());
            sink.push(
                &error.span().unwrap_or(0..0),
                None,
                format!("TOML syntax error: {message}"),
            );
        }
        return Err(sink.finish());
    }
    let base = path.parent().unwrap_or(Path::new(""));
    let top = Fields {
        table: doc.get_ref(),
        case: None,
        owner: "a test file",
    };
    top.unknown_keys(TOP_KEYS, &mut sink);
    let layers = match top.table("layers", &mut sink) {
        Some((table, _)) => parse_layers(&top.nested(table, "`layers`"), base, &mut sink),
        None => {
            let beside = base.join("hooks.toml");
            if !beside.is_file() {
                sink.push(
                    &(0..0),
                    None,
                    "no `[layers]` table, and no hooks.toml beside this file: name the files the \
                     cases load, like `[layers]` `project = \"../hooks.toml\"`"
                        .to_string(),
                );
            }
            CaseLayers {
                project: Some(beside),
                ..CaseLayers::default()
            }
        }
    };
    let cwd = top.directory("cwd", base, &mut sink);
    let mut cases = Vec::new();
    match top.field("cases") {
        Some(value) => match value.get_ref() {
            DeValue::Array(items) if !items.is_empty() => {
                for (index, item) in items.iter().enumerate() {
                    let defaults = Defaults {
                        layers: &layers,
                        cwd: cwd.as_deref(),
                        base,
                    };
                    if let Some(case) = parse_case(index, item, &defaults, &mut sink) {
                        cases.push(case);
                    }
                }
            }
            _ => sink.push(
                &value.span(),
                None,
                "`cases` must be an array of tables: write each case as a `[[cases]]` table"
                    .to_string(),
            ),
        },
        None => sink.push(
            &(0..0),
            None,
            "this file holds no `[[cases]]`: add one, naming an event and what must come out \
             (a file without cases would pass without testing anything)"
                .to_string(),
        ),
    }
    if sink.is_empty() {
        Ok(cases)
    } else {
        Err(sink.finish())
    }
}

/// What the top of the file sets for every case.
struct Defaults<'a> {
    layers: &'a CaseLayers,
    cwd: Option<&'a Path>,
    base: &'a Path,
}

fn parse_case(
    index: usize,
    item: &Spanned<DeValue<'_>>,
    defaults: &Defaults<'_>,
    sink: &mut Problems<'_>,
) -> Option<Case> {
    let DeValue::Table(table) = item.get_ref() else {
        sink.push(
            &item.span(),
            Some((index, None)),
            format!(
                "a case must be a table, found {}",
                item.get_ref().type_str()
            ),
        );
        return None;
    };
    let errors_before = sink.len();
    let mut case = Fields {
        table,
        case: Some((index, None)),
        owner: "a case",
    };
    let name = case.string("name", sink).map(|(name, _)| name);
    case.case = Some((index, name.clone()));
    if name.is_none() && case.field("name").is_none() {
        case.problem(
            sink,
            &item.span(),
            "a case needs a `name` (reports and JUnit name it)".to_string(),
        );
    }
    case.unknown_keys(CASE_KEYS, sink);
    let agent = parse_agent(&case, sink);
    let event = parse_event(&case, agent, &item.span(), sink);
    let env = case.string_table("env", sink);
    let layers = match case.table("layers", sink) {
        Some((table, _)) => parse_layers(&case.nested(table, "`layers`"), defaults.base, sink),
        None => defaults.layers.clone(),
    };
    let cwd = case
        .directory("cwd", defaults.base, sink)
        .or_else(|| defaults.cwd.map(Path::to_path_buf))
        .unwrap_or_else(|| default_cwd(&layers, defaults.base));
    let expect = match case.table("expect", sink) {
        Some((table, span)) => parse_expect(&case.nested(table, "`expect`"), agent, &span, sink),
        None => {
            case.problem(
                sink,
                &item.span(),
                "a case needs an `expect` table saying what must come out (decision, by, \
                 reason, ...)"
                    .to_string(),
            );
            None
        }
    };
    if sink.len() != errors_before {
        return None;
    }
    Some(Case {
        name: name?,
        location: sink.lines.locate(item.span().start),
        agent,
        event: event?,
        layers,
        cwd: std::path::absolute(&cwd).unwrap_or(cwd),
        env,
        expect: expect?,
    })
}

/// Where a case's hooks run by default: the project's directory (the one holding its
/// hooks.toml, or holding its `.forgeflare`), else the test file's.
fn default_cwd(layers: &CaseLayers, base: &Path) -> PathBuf {
    match &layers.project {
        Some(project) => crate::approvals::Coverage::project_dir(project),
        None => base.to_path_buf(),
    }
}

fn parse_agent(case: &Fields<'_, '_>, sink: &mut Problems<'_>) -> Option<AgentFormat> {
    let (name, span) = case.string("agent", sink)?;
    let names: Vec<&str> = AgentFormat::ALL.iter().map(|(_, name)| *name).collect();
    match AgentFormat::from_name(&name) {
        Some(format) => Some(format),
        None => {
            case.problem(
                sink,
                &span,
                format!(
                    "unknown agent `{}`{} (agents: {})",
                    crate::text::name(&name),
                    did_you_mean(&names, &name.to_ascii_lowercase()),
                    names.join(", ")
                ),
            );
            None
        }
    }
}

/// The event: hookhost's terms (`event`, `tool`, `input`, `payload`, `session_id`), or the
/// agent's own JSON (`stdin`).
fn parse_event(
    case: &Fields<'_, '_>,
    agent: Option<AgentFormat>,
    case_span: &Range<usize>,
    sink: &mut Problems<'_>,
) -> Option<CaseEvent> {
    if let Some(stdin) = case.field("stdin") {
        for key in ["tool", "input", "payload", "session_id"] {
            if let Some((_, span)) = case.key(key) {
                case.problem(
                    sink,
                    &span,
                    format!(
                        "`{key}` has no place beside `stdin`: the agent's JSON on stdin carries \
                         the whole event"
                    ),
                );
            }
        }
        if agent.is_none() && case.field("agent").is_none() {
            case.problem(
                sink,
                &stdin.span(),
                "`stdin` is an agent's own JSON: say whose with `agent` (claude, copilot, \
                 gemini, ...)"
                    .to_string(),
            );
        }
        let text = match stdin.get_ref() {
            DeValue::String(text) => text.to_string(),
            DeValue::Table(_) => to_json(stdin.get_ref()).to_string(),
            other => {
                case.problem(
                    sink,
                    &stdin.span(),
                    format!(
                        "`stdin` must be a table (the agent's JSON object) or a string of JSON, \
                         found {}",
                        other.type_str()
                    ),
                );
                return None;
            }
        };
        let event = case.string("event", sink).map(|(event, _)| event);
        return Some(CaseEvent::Stdin { text, event });
    }
    let Some((given, span)) = case.string("event", sink) else {
        if case.field("event").is_none() {
            case.problem(
                sink,
                case_span,
                "a case needs an `event` (PreToolUse, Stop, a custom one, ...), or an agent's \
                 `stdin`"
                    .to_string(),
            );
        }
        return None;
    };
    let name = event_name(&given, agent).map_err(|message| case.problem(sink, &span, message));
    let tool = case.string("tool", sink);
    let input = case.json_object("input", sink);
    let payload = case.json_object("payload", sink);
    let session_id = case.string("session_id", sink).map(|(id, _)| id);
    let name = name.ok()?;
    let spec = catalog::spec(&name);
    let tool = match (tool, spec.has_tool() && !spec.is_custom()) {
        (Some((tool, _)), _) => Some((
            tool,
            input.unwrap_or_else(|| Value::Object(Default::default())),
        )),
        (None, true) => {
            case.problem(
                sink,
                &span,
                format!("a {name} case names its tool, like `tool = \"Bash\"`"),
            );
            return None;
        }
        (None, false) => {
            if let Some((_, key)) = case.key("input") {
                case.problem(
                    sink,
                    &key,
                    "`input` is a tool's input: add `tool`".to_string(),
                );
            }
            None
        }
    };
    if let (Some(_), Some(builtin), Some((_, key))) =
        (&tool, catalog::builtin(&name), case.key("tool"))
        && !builtin.has_tool()
    {
        case.problem(
            sink,
            &key,
            format!("{name} carries no tool call; remove `tool` and `input`"),
        );
    }
    let payload = match payload {
        Some(Value::Object(fields)) => fields.into_iter().collect(),
        _ => Vec::new(),
    };
    Some(CaseEvent::Fields {
        name,
        tool,
        payload,
        session_id,
    })
}

/// hookhost's name for `given`: a built-in or custom event (the agent's own name for it, with
/// an agent), never one that looks like a misspelt built-in event (it would reach no hook).
fn event_name(given: &str, agent: Option<AgentFormat>) -> Result<String, String> {
    if given.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "the event name {} has whitespace or control characters",
            crate::text::quote(given)
        ));
    }
    if let Some(format) = agent {
        return crate::agent::resolve_name(format, given).map_err(|error| error.to_string());
    }
    match catalog::lookalike(given) {
        Some(meant) => Err(format!(
            "unknown event {}; did you mean \"{}\"? (event names are case-sensitive; a custom \
             event must not look like a built-in one, or it would reach no hook)",
            crate::text::quote(given),
            meant.name
        )),
        None => Ok(given.to_string()),
    }
}

fn parse_layers(fields: &Fields<'_, '_>, base: &Path, sink: &mut Problems<'_>) -> CaseLayers {
    fields.unknown_keys(LAYER_KEYS, sink);
    let mut file = |key: &str| {
        let (text, span) = fields.string(key, sink)?;
        let path = base.join(&text);
        if !path.is_file() {
            fields.problem(
                sink,
                &span,
                format!(
                    "`layers.{key}` names {}, which is not a file (a layer that is not there \
                     must not mean \"no hooks\")",
                    path.display()
                ),
            );
        }
        Some(path)
    };
    CaseLayers {
        managed: file("managed"),
        user: file("user"),
        project: file("project"),
        local: file("local"),
    }
}

fn parse_expect(
    fields: &Fields<'_, '_>,
    agent: Option<AgentFormat>,
    span: &Range<usize>,
    sink: &mut Problems<'_>,
) -> Option<Expect> {
    let errors_before = sink.len();
    fields.unknown_keys(EXPECT_KEYS, sink);
    let decision = fields
        .string("decision", sink)
        .and_then(|(decision, span)| {
            if DECISIONS.contains(&decision.as_str()) {
                return Some(decision);
            }
            fields.problem(
                sink,
                &span,
                format!(
                    "unknown decision `{}`{} (decisions: {})",
                    crate::text::name(&decision),
                    did_you_mean(DECISIONS, &decision.to_ascii_lowercase()),
                    DECISIONS.join(", ")
                ),
            );
            None
        });
    let by = fields.string("by", sink);
    let by = named(by.into_iter().collect(), sink).pop();
    let ran = fields.strings("ran", sink);
    let ran = named(ran, sink);
    let did_not_run = fields.strings("did_not_run", sink);
    let did_not_run = named(did_not_run, sink);
    let expect = Expect {
        decision,
        by,
        reason: texts(fields.strings("reason", sink)),
        hook_failed: fields.bool("hook_failed", sink),
        updated_input: fields.json_object("updated_input", sink),
        context: texts(fields.strings("context", sink)),
        signals: fields
            .field("signals")
            .map(|_| texts(fields.strings("signals", sink))),
        ran,
        did_not_run,
        reply: fields.table("reply", sink).and_then(|(table, span)| {
            if agent.is_none() {
                fields.problem(
                    sink,
                    &span,
                    "`expect.reply` is what an agent reads back: say which agent with \
                         `agent` (claude, copilot, gemini, ...)"
                        .to_string(),
                );
            }
            parse_reply(&fields.nested(table, "`expect.reply`"), sink)
        }),
    };
    let allowed = matches!(expect.decision.as_deref(), Some("allow"));
    for (key, bad) in [
        ("by", allowed && expect.by.is_some()),
        (
            "reason",
            matches!(expect.decision.as_deref(), Some("allow" | "approve"))
                && !expect.reason.is_empty(),
        ),
        (
            "hook_failed",
            expect.hook_failed.is_some() && !matches!(expect.decision.as_deref(), Some("block")),
        ),
    ] {
        if bad && let Some((_, span)) = fields.key(key) {
            let decision = expect.decision.as_deref().unwrap_or_default();
            fields.problem(
                sink,
                &span,
                format!(
                    "`{key}` cannot hold with decision = \"{decision}\" ({}); remove one of them",
                    match key {
                        "hook_failed" => "only a block comes from a hook's failure",
                        "by" => "an allow is nobody's decision",
                        _ => "it has no reason",
                    }
                ),
            );
        }
    }
    if fields.table.is_empty() {
        fields.problem(
            sink,
            span,
            "`expect` checks nothing: say what must come out (decision, by, reason, ran, ...), \
             or the case could never fail"
                .to_string(),
        );
    }
    (sink.len() == errors_before).then_some(expect)
}

fn parse_reply(fields: &Fields<'_, '_>, sink: &mut Problems<'_>) -> Option<ExpectReply> {
    fields.unknown_keys(REPLY_KEYS, sink);
    let exit_code = fields.field("exit_code").and_then(|value| {
        let code = match value.get_ref() {
            DeValue::Integer(int) => u8::from_str_radix(int.as_str(), int.radix()).ok(),
            _ => None,
        };
        if code.is_none() {
            fields.problem(
                sink,
                &value.span(),
                "`exit_code` must be a whole number from 0 to 255".to_string(),
            );
        }
        code
    });
    let json = fields
        .field("json")
        .and_then(|value| match value.get_ref() {
            DeValue::String(text) => match serde_json::from_str(text) {
                Ok(json) => Some(json),
                Err(error) => {
                    fields.problem(
                        sink,
                        &value.span(),
                        format!("`json` is not JSON ({error}); write it as a TOML table"),
                    );
                    None
                }
            },
            other => Some(to_json(other)),
        });
    Some(ExpectReply {
        exit_code,
        json,
        stdout: texts(fields.strings("stdout", sink)),
        stderr: texts(fields.strings("stderr", sink)),
    })
}

/// Hook names, each with where it is written.
fn named(list: Vec<(String, Range<usize>)>, sink: &Problems<'_>) -> Vec<Named> {
    list.into_iter()
        .map(|(name, span)| Named {
            name,
            location: sink.lines.locate(span.start),
        })
        .collect()
}

fn texts(list: Vec<(String, Range<usize>)>) -> Vec<String> {
    list.into_iter().map(|(text, _)| text).collect()
}

fn did_you_mean(known: &[&str], word: &str) -> String {
    close_to(known, word)
        .map(|known| format!("; did you mean `{known}`?"))
        .unwrap_or_default()
}

/// The fields of one table of the file, and the case its problems belong to.
struct Fields<'a, 'i> {
    table: &'a DeTable<'i>,
    case: CaseRef,
    /// What holds these keys, for messages: "a case", "`expect`".
    owner: &'static str,
}

impl<'a, 'i> Fields<'a, 'i> {
    fn nested<'b>(&self, table: &'b DeTable<'i>, owner: &'static str) -> Fields<'b, 'i> {
        Fields {
            table,
            case: self.case.clone(),
            owner,
        }
    }

    fn problem(&self, sink: &mut Problems<'_>, span: &Range<usize>, message: String) {
        sink.push(span, self.case.clone(), message);
    }

    fn field(&self, key: &str) -> Option<&'a Spanned<DeValue<'i>>> {
        self.key(key).map(|(value, _)| value)
    }

    /// A key's value and the key's own span.
    fn key(&self, key: &str) -> Option<(&'a Spanned<DeValue<'i>>, Range<usize>)> {
        self.table
            .iter()
            .find(|(k, _)| k.get_ref().as_ref() == key)
            .map(|(k, v)| (v, k.span()))
    }

    fn unknown_keys(&self, known: &[&str], sink: &mut Problems<'_>) {
        for (key, _) in self.table.iter() {
            let name = key.get_ref().as_ref();
            if !known.contains(&name) {
                self.problem(
                    sink,
                    &key.span(),
                    format!(
                        "unknown key `{}`{} ({} takes: {})",
                        crate::text::name(name),
                        did_you_mean(known, name),
                        self.owner,
                        known.join(", ")
                    ),
                );
            }
        }
    }

    fn string(&self, key: &str, sink: &mut Problems<'_>) -> Option<(String, Range<usize>)> {
        let value = self.field(key)?;
        match value.get_ref() {
            DeValue::String(text) if !text.trim().is_empty() => {
                Some((text.to_string(), value.span()))
            }
            other => {
                self.problem(
                    sink,
                    &value.span(),
                    format!(
                        "`{key}` must be a non-empty string, found {}",
                        if other.is_str() {
                            "an empty one"
                        } else {
                            other.type_str()
                        }
                    ),
                );
                None
            }
        }
    }

    /// A string or a list of strings (each non-empty); absent is empty.
    fn strings(&self, key: &str, sink: &mut Problems<'_>) -> Vec<(String, Range<usize>)> {
        let Some(value) = self.field(key) else {
            return Vec::new();
        };
        let items: Vec<&Spanned<DeValue<'_>>> = match value.get_ref() {
            DeValue::Array(items) => items.iter().collect(),
            _ => vec![value],
        };
        let mut out = Vec::new();
        for item in items {
            match item.get_ref() {
                DeValue::String(text) if !text.is_empty() => {
                    out.push((text.to_string(), item.span()))
                }
                other => self.problem(
                    sink,
                    &item.span(),
                    format!(
                        "`{key}` takes a non-empty string or a list of them, found {}",
                        if other.is_str() {
                            "an empty string"
                        } else {
                            other.type_str()
                        }
                    ),
                ),
            }
        }
        out
    }

    fn bool(&self, key: &str, sink: &mut Problems<'_>) -> Option<bool> {
        let value = self.field(key)?;
        match value.get_ref() {
            DeValue::Boolean(b) => Some(*b),
            other => {
                self.problem(
                    sink,
                    &value.span(),
                    format!("`{key}` must be true or false, found {}", other.type_str()),
                );
                None
            }
        }
    }

    fn table(&self, key: &str, sink: &mut Problems<'_>) -> Option<(&'a DeTable<'i>, Range<usize>)> {
        let value = self.field(key)?;
        match value.get_ref() {
            DeValue::Table(table) => Some((table, value.span())),
            other => {
                self.problem(
                    sink,
                    &value.span(),
                    format!("`{key}` must be a table, found {}", other.type_str()),
                );
                None
            }
        }
    }

    /// A JSON object: a TOML table, or a string holding a JSON object.
    fn json_object(&self, key: &str, sink: &mut Problems<'_>) -> Option<Value> {
        let value = self.field(key)?;
        let json = match value.get_ref() {
            DeValue::Table(_) => Ok(to_json(value.get_ref())),
            DeValue::String(text) => serde_json::from_str::<Value>(text)
                .map_err(|error| format!("`{key}` is not JSON ({error})")),
            other => Err(format!(
                "`{key}` must be a table or a string of JSON, found {}",
                other.type_str()
            )),
        };
        match json {
            Ok(json @ Value::Object(_)) => Some(json),
            Ok(other) => {
                self.problem(
                    sink,
                    &value.span(),
                    format!("`{key}` must be a JSON object, found {other}"),
                );
                None
            }
            Err(message) => {
                self.problem(sink, &value.span(), message);
                None
            }
        }
    }

    /// A table of strings (`env = { NAME = "value" }`).
    fn string_table(&self, key: &str, sink: &mut Problems<'_>) -> Vec<(String, String)> {
        let Some((table, _)) = self.table(key, sink) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in table.iter() {
            match value.get_ref() {
                DeValue::String(text) => out.push((name.get_ref().to_string(), text.to_string())),
                other => self.problem(
                    sink,
                    &value.span(),
                    format!(
                        "every value of `{key}` must be a string, found {}",
                        other.type_str()
                    ),
                ),
            }
        }
        out
    }

    /// A directory relative to `base`, which must exist.
    fn directory(&self, key: &str, base: &Path, sink: &mut Problems<'_>) -> Option<PathBuf> {
        let (text, span) = self.string(key, sink)?;
        let dir = base.join(text);
        if !dir.is_dir() {
            self.problem(
                sink,
                &span,
                format!("`{key}` names {}, which is not a directory", dir.display()),
            );
            return None;
        }
        Some(dir)
    }
}
