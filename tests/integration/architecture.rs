//! The house's shape, checked on every test run (docs/architecture.md): the crates of the
//! workspace point one way (a crate depends only on crates below it, in the declared order
//! [`CRATES`]), the modules of each crate point one way, every source file says what it holds,
//! and a file that outgrows about 400 lines of code says why.
//!
//! A module may use what sits below it, never what sits above: two modules that each need the
//! other are a knot a reader must untie before changing either. The check reads every file of
//! `src/` with syn, follows every `crate::`, `super::` and `self::` path (in `use` items, types
//! and expressions) to the module that defines the item, through re-exports, and looks for
//! cycles between the files and folders of each folder (`src/` itself, `src/load/`, ...).
//! Test code (`#[cfg(test)]` items, `tests.rs`, `tests_*.rs`, `test_support.rs`) is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module path below the crate root: `["runner", "dispatch"]`.
type ModPath = Vec<String>;

#[test]
fn modules_point_one_way() {
    for src in source_dirs() {
        let cycles = House::read(&src).cycles();
        let shown = src.strip_prefix(repo_dir()).unwrap().display().to_string();
        assert!(
            cycles.is_empty(),
            "import cycles between modules of {shown} (a module may use what sits below it, \
             never what sits above; move the shared piece below both users, see \
             docs/architecture.md):\n{}",
            cycles.join("\n")
        );
    }
}

/// The workspace's crates, bottom first: a crate may depend on those before it, never on one
/// after it (docs/architecture.md, "Crates"). Every hookhost crate of the workspace is listed.
const CRATES: &[&str] = &[
    "hookhost-tools",
    "hookhost-redact",
    "hookhost-rules",
    "hookhost-init",
    "hookhost-client",
    "hookhost-core",
    "hookhost-trust",
    "hookhost-wasm",
    "hookhost-log",
    "hookhost",
    "hookhost-capi",
    "hookhost-capi-static",
    "hookhost-python",
    "hookhost-node",
    "hookhost-fuzz-harness",
];

#[test]
fn crates_depend_only_on_crates_below_them() {
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for manifest in manifests() {
        let text = std::fs::read_to_string(&manifest).unwrap();
        let parsed: toml::Table = toml::from_str(&text).unwrap();
        let Some(name) = parsed
            .get("package")
            .and_then(|package| package.get("name"))
            .and_then(|name| name.as_str())
        else {
            continue;
        };
        if !name.starts_with("hookhost") {
            continue;
        }
        seen.insert(name.to_string());
        let shown = manifest
            .strip_prefix(repo_dir())
            .unwrap()
            .display()
            .to_string();
        let Some(position) = CRATES.iter().position(|listed| *listed == name) else {
            problems.push(format!(
                "{shown}: {name} is not in CRATES: say where it sits"
            ));
            continue;
        };
        for table in ["dependencies", "build-dependencies"] {
            let Some(deps) = parsed.get(table).and_then(|deps| deps.as_table()) else {
                continue;
            };
            for dep in deps.keys().filter(|dep| dep.starts_with("hookhost")) {
                match CRATES.iter().position(|listed| listed == dep) {
                    Some(below) if below < position => {}
                    Some(_) => problems.push(format!(
                        "{shown}: {name} depends on {dep}, which sits above it in CRATES"
                    )),
                    None => problems.push(format!(
                        "{shown}: {name} depends on {dep}, which is not in CRATES"
                    )),
                }
            }
        }
    }
    for listed in CRATES {
        if !seen.contains(*listed) {
            problems.push(format!("CRATES lists {listed}, which no Cargo.toml names"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_source_file_says_what_it_holds_and_stays_readable() {
    let mut problems = Vec::new();
    let files: Vec<PathBuf> = source_dirs()
        .iter()
        .flat_map(|src| rust_files(src))
        .collect();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(repo_dir()).unwrap().display().to_string();
        // A crate root may take its doc from its README (`#![doc = include_str!(...)]`).
        if !text.starts_with("//!") && !text.starts_with("#![doc = include_str!(") {
            problems.push(format!(
                "{shown}: opens with no `//!` module doc saying what it holds"
            ));
        }
        let lines = code_lines(&text);
        let head: String = text.lines().take(40).collect::<Vec<_>>().join("\n");
        if lines > LONG_FILE_LINES && !head.contains("Longer than") {
            problems.push(format!(
                "{shown}: {lines} lines before its unit tests; split it along its seams, or say \
                 at its top why it is one piece (a module-doc sentence starting with \
                 \"Longer than\")"
            ));
        }
    }
    // One module-file style: a folder module is `foo/mod.rs`, never `foo.rs` beside `foo/`.
    for file in &files {
        if file.with_extension("").is_dir() {
            let shown = file.strip_prefix(repo_dir()).unwrap().display().to_string();
            problems.push(format!(
                "{shown}: a module file beside its folder; move it to {}/mod.rs",
                shown.trim_end_matches(".rs")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What moved when the house was rebuilt is still where embedders found it: each path below
/// compiles (a `use` of a path that no longer resolves fails the build of this test).
#[test]
#[allow(unused_imports)]
fn paths_embedders_use_still_resolve() {
    use hookhost::agent::claude::{EVENTS as CLAUDE_EVENTS, OTHER as CLAUDE_OTHER};
    use hookhost::agent::copilot::{EVENTS as COPILOT_EVENTS, event as copilot_event};
    use hookhost::agent::gemini::{EVENTS as GEMINI_EVENTS, agent_name};
    use hookhost::agent::{
        AgentError, AgentEventSpec, AgentFormat, AgentReply, BlockAs, ContextAs,
    };
    use hookhost::config::{
        CommandSpec, DEFAULT_MAX_MEMORY_MB, Grants, HookSource, Location, MAX_MEMORY_MB_LIMIT,
        WasmSpec,
    };
    #[cfg(feature = "wasm")]
    use hookhost::oci::reference::{Digest, OciReference};
    #[cfg(feature = "wasm")]
    use hookhost::oci::store::{BlobState, write_file_atomically};
    #[cfg(feature = "wasm")]
    use hookhost::wasm::{CacheMode, CacheOutcome};
    #[cfg(feature = "wasm")]
    use hookhost::{WasmImports, WasmInfo};

    // The tables behind the old paths are the dialects' own.
    assert!(std::ptr::eq(
        &CLAUDE_EVENTS,
        &hookhost::dialect::claude::EVENTS
    ));
    assert_eq!(
        copilot_event("preToolUse").map(|spec| spec.hookhost),
        Some("PreToolUse")
    );
    assert_eq!(agent_name("PreToolUse"), "BeforeTool");
    #[cfg(feature = "wasm")]
    {
        let dir = std::path::PathBuf::from("/tmp/cache");
        assert_eq!(CacheMode::Dir(dir.clone()).resolve(), Some(dir));
    }
}

/// The seeded knots are found, so that a check that finds nothing is not a check that sees
/// nothing: a cycle through a re-export, one through `super::`, and one through a path in an
/// expression.
#[test]
fn a_cycle_is_found_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "lib.rs",
        "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\nmod f;\npub use c::Thing;\npub use f::Fthing;\n",
    );
    // `a` needs `c` (through a root re-export) and `b`; `b` needs `a` in an expression.
    write(
        "a.rs",
        "//! a\nuse crate::Thing;\nuse crate::b::Helper;\npub struct A;\n",
    );
    write(
        "b.rs",
        "//! b\npub struct Helper;\nfn f() { let _ = crate::a::A; }\n",
    );
    // `c` names `a` only in test code, which is no cycle.
    write(
        "c.rs",
        "//! c\npub struct Thing;\n#[cfg(test)]\nmod tests { use crate::a::A; }\n",
    );
    // `e` needs `f` only through the root re-export; `f` names `e` inside a macro's arguments.
    write("e.rs", "//! e\nuse crate::Fthing;\npub struct E;\n");
    write(
        "f.rs",
        "//! f\npub struct Fthing;\nfn h() { println!(\"{:?}\", crate::e::E); }\n",
    );
    write("d/mod.rs", "//! d\nmod x;\nmod y;\n");
    write("d/x.rs", "//! x\nuse super::y::Y;\npub struct X;\n");
    write(
        "d/y.rs",
        "//! y\npub struct Y;\nfn g() { let _ = super::x::X; }\n",
    );
    let cycles = House::read(dir.path()).cycles();
    assert_eq!(
        cycles,
        [
            "cycle in src/ (top-level modules): a <-> b\n    a -> b: Helper\n    b -> a: A",
            "cycle in src/ (top-level modules): e <-> f\n    e -> f: Fthing\n    f -> e: E",
            "cycle in src/d/: x <-> y\n    x -> y: Y\n    y -> x: X",
        ],
        "{cycles:#?}"
    );
}

/// Files with more lines of code than this (unit tests at the bottom of a module do not
/// count: they belong there) say at their top why they are one piece.
const LONG_FILE_LINES: usize = 400;

/// The lines of `text` before its unit tests (the first `#[cfg(test)]` at the left margin).
fn code_lines(text: &str) -> usize {
    text.lines()
        .take_while(|line| !line.starts_with("#[cfg(test)]"))
        .count()
}

fn repo_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `src/` of the root crate and of every crate under `crates/`.
fn source_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![repo_dir().join("src")];
    if let Ok(entries) = std::fs::read_dir(repo_dir().join("crates")) {
        let mut crates: Vec<PathBuf> = entries
            .flatten()
            .map(|entry| entry.path().join("src"))
            .filter(|src| src.is_dir())
            .collect();
        crates.sort();
        dirs.extend(crates);
    }
    dirs
}

/// The manifests of the workspace's members (the root's `members`, globs expanded).
fn manifests() -> Vec<PathBuf> {
    let root = repo_dir().join("Cargo.toml");
    let parsed: toml::Table = toml::from_str(&std::fs::read_to_string(&root).unwrap()).unwrap();
    let members = parsed["workspace"]["members"].as_array().unwrap();
    let mut found = Vec::new();
    for member in members.iter().filter_map(|member| member.as_str()) {
        match member.strip_suffix("/*") {
            Some(dir) => {
                let mut inner: Vec<PathBuf> = std::fs::read_dir(repo_dir().join(dir))
                    .unwrap()
                    .flatten()
                    .map(|entry| entry.path().join("Cargo.toml"))
                    .filter(|manifest| manifest.is_file())
                    .collect();
                inner.sort();
                found.extend(inner);
            }
            None => found.push(repo_dir().join(member).join("Cargo.toml")),
        }
    }
    found
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_string_lossy();
    name == "tests.rs" || name == "test_support.rs" || name.starts_with("tests_")
}

/// The module a file defines: `runner/mod.rs` is `runner`, `lib.rs` and `main.rs` the root.
fn module_of(src: &Path, file: &Path) -> ModPath {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut path: ModPath = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        path.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        path.pop();
    }
    path
}

/// Every module of the crate, the names each one imports, and every path each one names, as
/// written: paths are resolved once every module is known.
#[derive(Default)]
struct House {
    modules: BTreeSet<ModPath>,
    /// Per module, what a name brought in by `use` stands for, as written there.
    imports: BTreeMap<ModPath, BTreeMap<String, Vec<String>>>,
    /// Per module, the paths it names, as written.
    uses: BTreeMap<ModPath, Vec<Vec<String>>>,
}

impl House {
    fn read(src: &Path) -> House {
        let mut house = House::default();
        for file in rust_files(src) {
            if is_test_file(&file) {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let parsed = syn::parse_file(&text)
                .unwrap_or_else(|e| panic!("{} does not parse: {e}", file.display()));
            house.read_items(module_of(src, &file), &parsed.items);
        }
        house
    }

    fn read_items(&mut self, here: ModPath, items: &[syn::Item]) {
        self.modules.insert(here.clone());
        for item in items {
            if is_test_only(item_attrs(item)) {
                continue;
            }
            match item {
                syn::Item::Mod(module) => {
                    let mut inner = here.clone();
                    inner.push(module.ident.to_string());
                    self.modules.insert(inner.clone());
                    if let Some((_, items)) = &module.content {
                        self.read_items(inner, items);
                    }
                }
                syn::Item::Use(item) => {
                    let mut leaves = Vec::new();
                    use_leaves(&item.tree, Vec::new(), &mut leaves);
                    for (written, name) in leaves {
                        if let Some(name) = name {
                            self.imports
                                .entry(here.clone())
                                .or_default()
                                .insert(name, written.clone());
                        }
                        self.uses.entry(here.clone()).or_default().push(written);
                    }
                }
                other => {
                    let mut paths = PathCollector::default();
                    paths.visit_item(other);
                    self.uses
                        .entry(here.clone())
                        .or_default()
                        .extend(paths.found);
                }
            }
        }
    }

    /// `written`, a path in module `here`, as a path from the crate root, when it is the
    /// house's: from `crate`, `super` or `self`, from a child module of `here`, or from a name
    /// `here` imports. Other paths (std, a dependency, a local name) are not.
    fn absolute(&self, here: &ModPath, written: &[String], depth: usize) -> Option<ModPath> {
        let first = written.first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "super" | "self" => here.clone(),
            _ => {
                let mut child = here.clone();
                child.push(first.clone());
                if self.modules.contains(&child) {
                    child.extend(written[1..].iter().cloned());
                    return Some(child);
                }
                let imported = self.imports.get(here)?.get(first)?;
                if depth == 0 || imported.first() == Some(first) {
                    return None;
                }
                let mut path = self.absolute(here, imported, depth - 1)?;
                path.extend(written[1..].iter().cloned());
                return Some(path);
            }
        };
        let mut rest = &written[1..];
        if first == "super" {
            base.pop()?;
        }
        while rest.first().is_some_and(|s| s == "super") {
            base.pop()?;
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The module that defines what `path` (from the crate root) names: its longest prefix
    /// that is a module, with names imported there followed to where they come from.
    fn defining_module(&self, path: &ModPath) -> ModPath {
        let mut path = path.clone();
        for _ in 0..16 {
            let module_len = (0..=path.len())
                .rev()
                .find(|&n| self.modules.contains(&path[..n]))
                .unwrap_or(0);
            let module = path[..module_len].to_vec();
            let Some(next) = path.get(module_len) else {
                return module;
            };
            let followed = self
                .imports
                .get(&module)
                .and_then(|names| names.get(next))
                .and_then(|written| self.absolute(&module, written, 8))
                .filter(|target| !target.starts_with(&path[..module_len + 1]));
            match followed {
                Some(mut target) => {
                    target.extend_from_slice(&path[module_len + 1..]);
                    path = target;
                }
                None => return module,
            }
        }
        path
    }

    /// Every cycle between the children of each folder, with the names that tie it.
    fn cycles(&self) -> Vec<String> {
        // (folder, from child, to child) -> names
        let mut edges: BTreeMap<(ModPath, String, String), BTreeSet<String>> = BTreeMap::new();
        for (from, paths) in &self.uses {
            for written in paths {
                let Some(path) = self.absolute(from, written, 8) else {
                    continue;
                };
                let to = self.defining_module(&path);
                let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
                if common < from.len() && common < to.len() {
                    let name = written.last().cloned().unwrap_or_default();
                    edges
                        .entry((
                            from[..common].to_vec(),
                            from[common].clone(),
                            to[common].clone(),
                        ))
                        .or_default()
                        .insert(name);
                }
            }
        }
        let folders: BTreeSet<&ModPath> = edges.keys().map(|(folder, _, _)| folder).collect();
        let mut found = Vec::new();
        for folder in folders {
            let graph: BTreeMap<&str, BTreeSet<&str>> = edges
                .keys()
                .filter(|(f, _, _)| f == folder)
                .fold(BTreeMap::new(), |mut graph, (_, a, b)| {
                    graph.entry(a.as_str()).or_default().insert(b.as_str());
                    graph
                });
            for component in strongly_connected(&graph) {
                let place = if folder.is_empty() {
                    "src/ (top-level modules)".to_string()
                } else {
                    format!("src/{}/", folder.join("/"))
                };
                let mut text = format!("cycle in {place}: {}", component.join(" <-> "));
                for a in &component {
                    for b in &component {
                        let key = (folder.clone(), a.to_string(), b.to_string());
                        if let Some(names) = edges.get(&key) {
                            let names: Vec<&str> = names.iter().map(String::as_str).collect();
                            text.push_str(&format!("\n    {a} -> {b}: {}", names.join(", ")));
                        }
                    }
                }
                found.push(text);
            }
        }
        found
    }
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        _ => &[],
    }
}

/// `#[cfg(test)]`, `#[cfg(all(test, ...))]`: code that exists only in the crate's tests.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        if !attr.path().is_ident("cfg") {
            return false;
        }
        let Ok(list) = attr.meta.require_list() else {
            return false;
        };
        let tokens = list.tokens.to_string();
        tokens == "test" || (tokens.starts_with("all") && tokens.contains("test"))
    })
}

/// The leaves of a `use` tree: each path as written, and the name it brings in (none for a
/// glob or `_`).
fn use_leaves(
    tree: &syn::UseTree,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let with = |segment: &syn::Ident| {
        let mut path = prefix.clone();
        path.push(segment.to_string());
        path
    };
    match tree {
        syn::UseTree::Path(p) => use_leaves(&p.tree, with(&p.ident), out),
        syn::UseTree::Name(n) if n.ident == "self" => {
            let name = prefix.last().cloned();
            out.push((prefix, name));
        }
        syn::UseTree::Name(n) => out.push((with(&n.ident), Some(n.ident.to_string()))),
        syn::UseTree::Rename(r) => {
            let name = (r.rename != "_").then(|| r.rename.to_string());
            let path = if r.ident == "self" {
                prefix
            } else {
                with(&r.ident)
            };
            out.push((path, name));
        }
        syn::UseTree::Glob(_) => out.push((prefix, None)),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                use_leaves(tree, prefix.clone(), out);
            }
        }
    }
}

/// Every path in an item (types, expressions, patterns, trait bounds), outside test code.
#[derive(Default)]
struct PathCollector {
    found: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.found
            .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, path);
    }

    /// A macro's arguments are tokens, not syntax: `crate::`/`super::` paths are read off them.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        paths_in_tokens(mac.tokens.clone(), &mut self.found);
    }

    fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
        if !is_test_only(&module.attrs) {
            syn::visit::visit_item_mod(self, module);
        }
    }

    fn visit_impl_item_fn(&mut self, function: &'ast syn::ImplItemFn) {
        if !is_test_only(&function.attrs) {
            syn::visit::visit_impl_item_fn(self, function);
        }
    }
}

/// `crate::a::b`, `super::x` and `self::y` paths in a token stream, groups included.
fn paths_in_tokens(tokens: proc_macro2::TokenStream, found: &mut Vec<Vec<String>>) {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Group(group) => paths_in_tokens(group.stream(), found),
            TokenTree::Ident(ident)
                if matches!(ident.to_string().as_str(), "crate" | "super" | "self") =>
            {
                let mut path = vec![ident.to_string()];
                // `::` is two `:` puncts; a path goes on while `:: ident` follows.
                while let (
                    Some(TokenTree::Punct(a)),
                    Some(TokenTree::Punct(b)),
                    Some(TokenTree::Ident(next)),
                ) = (tokens.get(i + 1), tokens.get(i + 2), tokens.get(i + 3))
                {
                    if a.as_char() != ':' || b.as_char() != ':' {
                        break;
                    }
                    path.push(next.to_string());
                    i += 3;
                }
                if path.len() > 1 {
                    found.push(path);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Tarjan's strongly connected components of more than one node, each sorted.
fn strongly_connected<'a>(graph: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<Vec<&'a str>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(v: &'a str, graph: &BTreeMap<&'a str, BTreeSet<&'a str>>, s: &mut State<'a>) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, graph, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for &v in graph.keys() {
        if !state.index.contains_key(v) {
            visit(v, graph, &mut state);
        }
    }
    state.out.sort();
    state.out
}
