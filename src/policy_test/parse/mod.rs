//! A test file read as hooks.toml is: the spanned TOML tree walked by hand, so that every
//! problem of the file is reported with its line, column and case, and a misspelt key, event,
//! agent or decision gets a "did you mean". Nothing that could make a case pass without
//! checking anything is let through: a file without cases, a case without expectations, a
//! layer file that does not exist.
//!
//! Longer than 400 lines: a test file is walked as one spanned tree (the file, its layers, each
//! case, its event and expectations), every problem located and tied to its case; `fields`
//! holds the typed readers it shares with hooks.toml's.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

mod expect;
mod fields;

use super::{Case, CaseEvent, CaseLayers, Named};
use crate::config::{ConfigProblem, Problems, close_to, to_json};
use crate::dialect::AgentFormat;
use crate::event::catalog;
use expect::parse_expect;
use fields::Fields;

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
const LAYER_KEYS: &[&str] = &["managed", "user", "project", "local"];

/// The case a problem belongs to: its index and name.
pub(super) type CaseRef = Option<(usize, Option<String>)>;

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
                    agent_names()
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
                format!(
                    "`stdin` is an agent's own JSON: say whose with `agent` ({})",
                    agent_names()
                ),
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
        let name = crate::agent::resolve_name(format, given).map_err(|e| e.to_string())?;
        // A name neither the agent nor hookhost knows, close to one of the agent's own, is
        // that name misspelt.
        let known = catalog::builtin(given).is_some()
            || format
                .events()
                .iter()
                .any(|spec| spec.agent == given || spec.hookhost == given);
        let lower = given.to_ascii_lowercase();
        let meant = format.events().iter().find(|spec| {
            !known
                && crate::event::catalog::within_two_edits(&spec.agent.to_ascii_lowercase(), &lower)
        });
        return match meant {
            Some(spec) => Err(format!(
                "unknown {} event {}; did you mean {}? (a misspelt event would reach no hook)",
                format.agent(),
                crate::text::quote(given),
                spec.agent
            )),
            None => Ok(name),
        };
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

/// Hook names, each with where it is written.
pub(super) fn named(list: Vec<(String, Range<usize>)>, sink: &Problems<'_>) -> Vec<Named> {
    list.into_iter()
        .map(|(name, span)| Named {
            name,
            location: sink.lines.locate(span.start),
        })
        .collect()
}

/// The agents a case may name: every format `agent-hook --format` takes.
pub(super) fn agent_names() -> String {
    let names: Vec<&str> = AgentFormat::ALL.iter().map(|(_, name)| *name).collect();
    names.join(", ")
}

pub(super) fn texts(list: Vec<(String, Range<usize>)>) -> Vec<String> {
    list.into_iter().map(|(text, _)| text).collect()
}

pub(super) fn did_you_mean(known: &[&str], word: &str) -> String {
    close_to(known, word)
        .map(|known| format!("; did you mean `{known}`?"))
        .unwrap_or_default()
}
