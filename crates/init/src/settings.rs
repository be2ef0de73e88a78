//! One agent's settings file: the entry hookhost gets on each event ([`entry`]), merged into
//! what the file holds ([`merge`]) and taken out again ([`strip`]), as splices of the file's
//! text.
//!
//! hookhost's entries are the ones whose command runs hookhost ([`is_hookhost_command`]):
//! init owns those, on the events it writes. An event keeps exactly one, the one init would
//! write (an older one is replaced where it stands; a hookhost handler inside a group with the
//! user's handlers is taken out of it, since it would run hookhost a second time), and the
//! user's entries are never touched.

use std::path::Path;

use crate::agents::{AgentEvent, AgentSpec, EntryShape};
use crate::command::{command_line, is_hookhost_command};
use crate::error::InitError;
use crate::json::{self, Child, Json, Kind, Node, Style};
use crate::options::Options;

/// hookhost's entry on `event`, as it is written under the event.
pub(crate) fn entry(spec: &AgentSpec, event: &AgentEvent, options: &Options) -> Json {
    let mut handler = Vec::new();
    if let Some(name) = spec.handler_name {
        handler.push(("name".to_string(), Json::str(name)));
    }
    handler.push(("type".to_string(), Json::str("command")));
    handler.push((
        spec.command_key.to_string(),
        Json::Str(command_line(spec, event, options)),
    ));
    if !spec.fixed_budget.contains(&event.name) {
        let units = options.timeout_secs.saturating_mul(1000) / spec.timeout_unit_ms;
        handler.push((
            spec.timeout_key.to_string(),
            Json::Literal(units.to_string()),
        ));
    }
    if let (true, Some((key, literal))) = (event.gate, spec.fail_closed) {
        handler.push((key.to_string(), Json::Literal(literal.to_string())));
    }
    let handler = Json::Object(handler);
    match spec.shape {
        EntryShape::Flat => handler,
        EntryShape::Grouped => {
            let mut group = Vec::new();
            if let (true, Some(all)) = (event.tool, spec.catch_all) {
                group.push(("matcher".to_string(), Json::str(all)));
            }
            group.push(("hooks".to_string(), Json::Array(vec![handler])));
            Json::Object(group)
        }
    }
}

/// A whole settings file holding only `entries`, for a file that does not exist yet.
fn fresh(spec: &AgentSpec, entries: &[(&'static AgentEvent, Json)]) -> String {
    let events = entries
        .iter()
        .map(|(event, item)| (event.name.to_string(), Json::Array(vec![item.clone()])))
        .collect();
    let mut root = Vec::new();
    if spec.version_one {
        root.push(("version".to_string(), Json::Literal("1".into())));
    }
    root.push(("hooks".to_string(), Json::Object(events)));
    let mut text = Json::Object(root).pretty(&Style::default(), "");
    text.push('\n');
    text
}

/// What one item under an event is, as far as hookhost is concerned.
enum Item {
    /// Only hookhost: a handler that runs it, or a group of nothing but such handlers.
    Ours,
    /// A group of the user's handlers with hookhost handlers among them (at these indexes).
    Mixed(Vec<usize>),
    Theirs,
}

fn handler_runs_hookhost(spec: &AgentSpec, handler: &Node) -> bool {
    [spec.command_key, "command", "bash"]
        .iter()
        .filter_map(|key| handler.get(key)?.as_str())
        .any(is_hookhost_command)
}

fn classify(spec: &AgentSpec, item: &Node) -> Item {
    match spec.shape {
        EntryShape::Flat if handler_runs_hookhost(spec, item) => Item::Ours,
        EntryShape::Flat => Item::Theirs,
        EntryShape::Grouped => {
            let Some(Kind::Array(handlers)) = item.get("hooks").map(|h| &h.kind) else {
                return Item::Theirs;
            };
            let ours: Vec<usize> = (0..handlers.len())
                .filter(|&i| handler_runs_hookhost(spec, &handlers[i]))
                .collect();
            match ours.len() {
                0 => Item::Theirs,
                n if n == handlers.len() => Item::Ours,
                _ => Item::Mixed(ours),
            }
        }
    }
}

/// A syntax or shape error in `path`, at byte `at` of `text`.
fn error_at(path: &Path, text: &str, at: usize, message: impl Into<String>) -> InitError {
    let (line, column) = json::line_column(text, at);
    InitError::Settings {
        path: path.to_path_buf(),
        line,
        column,
        message: message.into(),
    }
}

/// The root object of `text`, and its `hooks` object if it has one.
fn parse_root(spec: &AgentSpec, path: &Path, text: &str) -> Result<Node, InitError> {
    let root = json::parse(text, spec.comments).map_err(|e| {
        let message = format!(
            "not valid JSON: {} ({} reads this file as JSON)",
            e.message, spec.product
        );
        error_at(path, text, e.at, message)
    })?;
    if !matches!(root.kind, Kind::Object(_)) {
        return Err(error_at(
            path,
            text,
            root.span.start,
            format!(
                "{} at the top, where {} reads an object",
                root.describe(),
                spec.product
            ),
        ));
    }
    if spec.version_one
        && let Some(version) = root.get("version")
        && version.kind != Kind::Literal("1".into())
    {
        return Err(error_at(
            path,
            text,
            version.span.start,
            format!(
                "version {}: {} reads version 1 files, and init writes version 1 entries",
                &text[version.span.clone()],
                spec.product
            ),
        ));
    }
    if let Some(hooks) = root.get("hooks")
        && !matches!(hooks.kind, Kind::Object(_))
    {
        return Err(error_at(
            path,
            text,
            hooks.span.start,
            format!(
                "`hooks` is {}, where {} reads an object of events",
                hooks.describe(),
                spec.product
            ),
        ));
    }
    Ok(root)
}

/// Notes on settings that keep the entries from running.
fn off_switches(spec: &AgentSpec, path: &Path, root: &Node) -> Vec<String> {
    let mut notes = Vec::new();
    let is = |node: Option<&Node>, literal: &str| {
        node.is_some_and(|n| n.kind == Kind::Literal(literal.into()))
    };
    if is(root.get("disableAllHooks"), "true") {
        notes.push(format!("{}: disableAllHooks is true, so {} runs no hook (hookhost's included) until it is removed", path.display(), spec.product));
    }
    if is(
        root.get("hooksConfig").and_then(|c| c.get("enabled")),
        "false",
    ) {
        notes.push(format!("{}: hooksConfig.enabled is false, so {} runs no hook (hookhost's included) until it is removed", path.display(), spec.product));
    }
    notes
}

/// `existing` (the file's text, `None` when there is none) with `entries` merged in, and
/// notes for the user.
pub(crate) fn merge(
    spec: &AgentSpec,
    path: &Path,
    existing: Option<&str>,
    entries: &[(&'static AgentEvent, Json)],
) -> Result<(String, Vec<String>), InitError> {
    let Some(original) = existing.filter(|text| !text.trim().is_empty()) else {
        return Ok((fresh(spec, entries), Vec::new()));
    };
    let style = Style::of(original);
    let mut text = original.to_string();
    let notes = off_switches(spec, path, &parse_root(spec, path, &text)?);
    for (event, item) in entries {
        // One splice at a time, each on the text as the last one left it.
        loop {
            let root = parse_root(spec, path, &text)?;
            let Some(hooks) = root.get("hooks") else {
                let events = Json::Object(vec![(
                    event.name.to_string(),
                    Json::Array(vec![item.clone()]),
                )]);
                text = json::append(&text, &root, Child::Member("hooks", &events), &style);
                break;
            };
            let Some(list) = hooks.get(event.name) else {
                let list = Json::Array(vec![item.clone()]);
                text = json::append(&text, hooks, Child::Member(event.name, &list), &style);
                break;
            };
            let Kind::Array(items) = &list.kind else {
                return Err(error_at(
                    path,
                    &text,
                    list.span.start,
                    format!(
                        "`hooks.{}` is {}, where {} reads a list of hooks",
                        event.name,
                        list.describe(),
                        spec.product
                    ),
                ));
            };
            let classes: Vec<Item> = items.iter().map(|i| classify(spec, i)).collect();
            if let Some((group, handlers)) = classes.iter().enumerate().find_map(|(i, c)| match c {
                Item::Mixed(handlers) => Some((i, handlers)),
                _ => None,
            }) {
                let inner = items[group].get("hooks").expect("a mixed group has hooks");
                text = json::remove(&text, inner, handlers[handlers.len() - 1]);
                continue;
            }
            let ours: Vec<usize> = (0..items.len())
                .filter(|&i| matches!(classes[i], Item::Ours))
                .collect();
            match ours.as_slice() {
                [] => text = json::append(&text, list, Child::Item(item), &style),
                [one] if item.matches(&items[*one]) => {}
                [one] => text = json::replace(&text, &items[*one], item, &style),
                [.., last] => {
                    text = json::remove(&text, list, *last);
                    continue;
                }
            }
            break;
        }
    }
    Ok((text, notes))
}

/// `existing` with every hookhost entry taken out, events and `hooks` left empty by that
/// removed too, and whether nothing else is left in the file (`{}`, or `{"version": 1}`):
/// then it goes.
pub(crate) fn strip(
    spec: &AgentSpec,
    path: &Path,
    existing: &str,
) -> Result<(String, bool), InitError> {
    let mut text = existing.to_string();
    loop {
        let root = parse_root(spec, path, &text)?;
        let Some(hooks) = root.get("hooks") else {
            break;
        };
        let Kind::Object(events) = &hooks.kind else {
            break;
        };
        let Some(edit) = events.iter().enumerate().find_map(|(e, member)| {
            let Kind::Array(items) = &member.value.kind else {
                return None;
            };
            let classes: Vec<Item> = items.iter().map(|i| classify(spec, i)).collect();
            if !items.is_empty() && classes.iter().all(|c| matches!(c, Item::Ours)) {
                // The event holds only hookhost: the event goes, or `hooks` if it was the last.
                return Some(if events.len() == 1 {
                    let Kind::Object(top) = &root.kind else {
                        unreachable!()
                    };
                    let at = top
                        .iter()
                        .position(|m| m.key == "hooks")
                        .expect("hooks is a member");
                    json::remove(&text, &root, at)
                } else {
                    json::remove(&text, hooks, e)
                });
            }
            classes
                .iter()
                .enumerate()
                .find_map(|(i, class)| match class {
                    Item::Ours => Some(json::remove(&text, &member.value, i)),
                    Item::Mixed(handlers) => {
                        let inner = items[i].get("hooks").expect("a mixed group has hooks");
                        Some(json::remove(&text, inner, handlers[handlers.len() - 1]))
                    }
                    Item::Theirs => None,
                })
        }) else {
            break;
        };
        text = edit;
    }
    let root = parse_root(spec, path, &text)?;
    let Kind::Object(members) = &root.kind else {
        unreachable!()
    };
    let empty = match members.as_slice() {
        [] => true,
        [only] => spec.version_one && only.key == "version",
        _ => false,
    };
    Ok((text, empty))
}

/// Whether `text` (any file: JSON or TOML) seems to name a hookhost command: for the note
/// that another file of the agent's would run hookhost a second time.
pub(crate) fn mentions_hookhost(text: &str) -> bool {
    text.split(['"', '\'', '\n'])
        .any(|piece| is_hookhost_command(piece.trim()))
}
