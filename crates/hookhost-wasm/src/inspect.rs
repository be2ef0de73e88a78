//! Load-time checks of a hook component, each with a message that says what is wrong and how
//! to fix it: not a component at all, a component built against another version of the WIT
//! package, a missing export, or an import from outside WASI and hookhost's own package.
//!
//! WASI interfaces hookhost does not implement (`wasi:sockets`, `wasi:http`, ...) do not stop a
//! component from loading: language runtimes import them whether the hook uses them or not.
//! They are linked as functions that fail when called (`denied`), and `hookhost check` lists
//! them ([`Imports`]).

use wasmtime::Engine;
use wasmtime::component::Component;
use wasmtime::component::types::ComponentItem;

use super::bindings::{HANDLER, Interface, PACKAGE};
use crate::text;

/// The WASI interfaces hookhost implements (under the sandbox's grants): preview 2 without
/// sockets and http.
const PROVIDED: &[&str] = &[
    "wasi:io/",
    "wasi:clocks/wall-clock@",
    "wasi:clocks/monotonic-clock@",
    "wasi:random/",
    "wasi:cli/",
    "wasi:filesystem/",
];
const OWN_IMPORTS: &[&str] = &["host", "state", "types"];

/// Whether hookhost links `import` (an interface name such as `wasi:sockets/tcp@0.2.9`) as
/// denied: a WASI interface it does not implement.
pub(crate) fn is_denied(import: &str) -> bool {
    import.starts_with("wasi:") && !PROVIDED.iter().any(|prefix| import.starts_with(prefix))
}

/// What a component imports, as `hookhost check` shows it.
pub(crate) struct Imports {
    /// Every import, in the component's order (`wasi:io/poll@0.2.9`, `hookhost:hooks/host@0.2.0`).
    pub(crate) all: Vec<String>,
    /// The imports linked as denied: every call of theirs fails (`wasi:sockets/tcp@0.2.9`).
    pub(crate) denied: Vec<String>,
}

/// The imports of a loaded component.
pub(crate) fn imports(engine: &Engine, component: &Component) -> Imports {
    let all: Vec<String> = component
        .component_type()
        .imports(engine)
        .map(|(name, _)| name.to_string())
        .collect();
    let denied = all.iter().filter(|name| is_denied(name)).cloned().collect();
    Imports { all, denied }
}

/// The interface and version of an import of hookhost's own package:
/// `hookhost:hooks/host@0.2.0` is `("host", "0.2.0")`, a name without a version has
/// `"(none)"`; `None` for any other package.
pub(crate) fn own_interface(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix(PACKAGE)?.strip_prefix('/')?;
    Some(rest.split_once('@').unwrap_or((rest, "(none)")))
}

/// What kind of WebAssembly binary a hook file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Binary {
    /// A component (component model, layer 1): what hookhost runs.
    Component,
    /// A core module: a hook built without WASI, wrapped into a component at load
    /// (`core_module`).
    CoreModule,
}

/// Checks the file's header before anything is compiled.
pub(crate) fn check_header(bytes: &[u8]) -> Result<Binary, String> {
    if bytes.len() < 8 && bytes.starts_with(&b"\0asm"[..bytes.len().min(4)]) && !bytes.is_empty() {
        return Err(format!(
            "is truncated: {} bytes, shorter than a WebAssembly header",
            bytes.len()
        ));
    }
    match bytes {
        [0x00, b'a', b's', b'm', 0x0d, 0x00, 0x01, 0x00, ..] => Ok(Binary::Component),
        [0x00, b'a', b's', b'm', 0x01, 0x00, 0x00, 0x00, ..] => Ok(Binary::CoreModule),
        [0x00, b'a', b's', b'm', ..] => Err(
            "is a WebAssembly binary of an unsupported layer or version; hookhost runs \
             components (component model, layer 1)"
                .to_string(),
        ),
        _ => Err("is not a WebAssembly file (it does not start with \\0asm)".to_string()),
    }
}

/// Checks a compiled component against the `hook` world of a version hookhost runs, and says
/// which.
pub(crate) fn check_component(engine: &Engine, component: &Component) -> Result<Interface, String> {
    let ty = component.component_type();
    let ours = || {
        Interface::ALL
            .iter()
            .map(|interface| interface.package())
            .collect::<Vec<_>>()
            .join(" or ")
    };
    let supported = |version: &str| Interface::ALL.iter().any(|i| i.version() == version);

    for (name, _) in ty.imports(engine) {
        if let Some((interface, version)) = own_interface(name) {
            if !supported(version) {
                return Err(version_mismatch(version, &ours()));
            }
            if !OWN_IMPORTS.contains(&interface) {
                return Err(format!(
                    "imports `{}`, which is not part of {}; it provides {}",
                    text::name(name),
                    ours(),
                    OWN_IMPORTS.join(", ")
                ));
            }
            continue;
        }
        // Any other WASI interface is linked as denied (see `denied`); only imports from outside
        // WASI mean the component was built for another host.
        if !name.starts_with("wasi:") {
            return Err(format!(
                "imports `{}`, which hookhost does not provide: hooks may import WASI \
                 preview 2 and hookhost's own interfaces ({}). Rebuild it against the `hook` world \
                 of wit/hookhost.wit",
                text::name(name),
                OWN_IMPORTS
                    .iter()
                    .map(|interface| format!("{PACKAGE}/{interface}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }

    let prefix = format!("{PACKAGE}/{HANDLER}@");
    let Some((interface, wanted, handler)) = Interface::ALL.iter().find_map(|interface| {
        let wanted = format!("{prefix}{}", interface.version());
        ty.get_export(engine, &wanted)
            .map(|handler| (*interface, wanted, handler))
    }) else {
        if let Some((other, _)) = ty
            .exports(engine)
            .find(|(name, _)| name.starts_with(&prefix))
        {
            return Err(version_mismatch(&other[prefix.len()..], &ours()));
        }
        let exports: Vec<&str> = ty.exports(engine).map(|(name, _)| name).collect();
        return Err(format!(
            "does not implement the {} `hook` world: missing export `{prefix}{}` (it exports: {})",
            Interface::V0_2.package(),
            Interface::V0_2.version(),
            names_list(&exports)
        ));
    };
    let ComponentItem::ComponentInstance(instance) = handler.ty else {
        return Err(format!(
            "exports `{wanted}`, but not as an interface instance"
        ));
    };
    for function in interface.functions() {
        match instance.get_export(engine, function) {
            Some(item) if matches!(item.ty, ComponentItem::ComponentFunc(_)) => {}
            _ => {
                return Err(format!(
                    "does not implement the {} `hook` world: missing export `{wanted}#{function}`",
                    interface.package()
                ));
            }
        }
    }
    Ok(interface)
}

/// The names a component chose, for a message: each cut and escaped, at most
/// [`NAMES_LISTED`] of them.
fn names_list(names: &[&str]) -> String {
    if names.is_empty() {
        return "nothing".to_string();
    }
    let mut listed: Vec<String> = names
        .iter()
        .take(NAMES_LISTED)
        .map(|name| text::name(name).into_owned())
        .collect();
    if names.len() > NAMES_LISTED {
        listed.push(format!("and {} more", names.len() - NAMES_LISTED));
    }
    listed.join(", ")
}

/// How many of a component's exports a load error lists.
const NAMES_LISTED: usize = 8;

fn version_mismatch(theirs: &str, ours: &str) -> String {
    let theirs = text::name(theirs);
    format!(
        "was built against {PACKAGE}@{theirs}, but this hookhost runs {ours}; rebuild the hook against {} (update hook-sdk) or use a matching hookhost",
        Interface::V0_2.package()
    )
}
