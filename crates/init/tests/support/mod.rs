//! What the init tests share: a temporary home and project, a snapshot of every file under
//! them, and the hookhost commands a settings file holds.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use hookhost_init::{Agent, EntryShape, Roots, Scope, is_hookhost_command};

pub const SCOPES: [Scope; 2] = [Scope::Project, Scope::User];

/// A home and a project in a temporary directory.
pub struct Env {
    dir: tempfile::TempDir,
    pub roots: Roots,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&project).unwrap();
        let roots = Roots::new(&home, project);
        Env { dir, roots }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    pub fn write(&self, path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

/// Every file under `dir` and its bytes (directories init made and left empty do not count).
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(path);
            } else {
                files.insert(path.clone(), fs::read(&path).unwrap_or_default());
            }
        }
    }
    files
}

/// The hookhost commands of a settings file, in order (Gemini's comments stripped first).
pub fn hookhost_commands(agent: Agent, text: &str) -> Vec<String> {
    let spec = agent.spec();
    let clean: String = if spec.comments {
        strip_comments(text)
    } else {
        text.to_string()
    };
    let json: serde_json::Value =
        serde_json::from_str(&clean).unwrap_or_else(|e| panic!("{e}: {clean}"));
    let mut commands = Vec::new();
    for items in json["hooks"].as_object().unwrap().values() {
        for item in items.as_array().unwrap() {
            let handlers = match spec.shape {
                EntryShape::Grouped => item["hooks"].as_array().unwrap().clone(),
                EntryShape::Flat => vec![item.clone()],
            };
            for handler in handlers {
                let command = handler[spec.command_key]
                    .as_str()
                    .or(handler["command"].as_str())
                    .unwrap_or("");
                if is_hookhost_command(command) {
                    commands.push(command.to_string());
                }
            }
        }
    }
    commands
}

/// `text` without `//` and `/* */` comments outside strings.
fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                while chars.peek().is_some_and(|c| *c != '\n') {
                    chars.next();
                }
            }
            ('/', Some('*')) => {
                chars.next();
                while let Some(c) = chars.next() {
                    if c == '*' && chars.peek() == Some(&'/') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The settings file of `agent` in `scope`.
pub fn settings_path(roots: &Roots, agent: Agent, scope: Scope) -> PathBuf {
    match scope {
        Scope::Project => roots.project.join(agent.spec().project_file),
        Scope::User => roots.agent_home(agent).join(agent.spec().user_file),
    }
}
