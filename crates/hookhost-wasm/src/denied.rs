//! The WASI interfaces a hook's language runtime imports and hookhost never grants
//! (`wasi:sockets`, `wasi:http`, any other it does not implement), linked as functions that
//! fail when called. The component loads; the sandbox stays as tight as if they were absent.
//!
//! componentize-py's CPython imports all of `wasi:sockets` and StarlingMonkey (componentize-js)
//! imports `wasi:http` whether or not the hook's code uses them; refusing such components at
//! load would shut out Python and JavaScript hooks.
//!
//! Why stubs rather than wasmtime-wasi's own `wasi:sockets` with every use denied (its
//! `WasiCtx` default: no TCP, no UDP, no name lookup): that is host code the guest can reach,
//! handing it real resources (the network handle), and it grows with each wasmtime release;
//! and there is no wasmtime-wasi implementation of `wasi:http` short of the hyper-based
//! wasmtime-wasi-http crate. A stub runs no host code at all: the guest
//! can never hold a socket, a request or a name lookup, because every function that would create
//! one fails first, for every version of every denied interface, with a message naming the
//! function. The price: the failure is a trap, not an error value the guest could catch, so a
//! hook that tries the network fails the call (a guard fails closed) instead of carrying on
//! without it.

use wasmtime::Engine;
use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, Linker, ResourceType};

use super::call_state::CallState;
use super::inspect;

/// A guest called a function of a denied interface. Raised as a trap from the stub; the call
/// reports it as `trapped: ...` with this message.
#[derive(Debug, thiserror::Error)]
// The function's name is the component's to choose (any kebab-case words, up to 100,000
// bytes): quoted cut and escaped, like every name a message takes from a component.
#[error(
    "called `{}`, which the sandbox denies: {why}",
    crate::text::name(function)
)]
pub(crate) struct DeniedCall {
    function: String,
    why: &'static str,
}

/// The type of every resource a denied interface defines. No instance of it ever exists: the
/// functions that would create one fail.
struct DeniedResource;

/// The linker for `component`: `shared` itself when the component imports nothing denied,
/// else a copy of it with every denied import defined as failing functions.
pub(crate) fn linker_for<'a>(
    shared: &'a Linker<CallState>,
    engine: &Engine,
    component: &Component,
) -> wasmtime::Result<std::borrow::Cow<'a, Linker<CallState>>> {
    let ty = component.component_type();
    if !ty.imports(engine).any(|(name, _)| inspect::is_denied(name)) {
        return Ok(std::borrow::Cow::Borrowed(shared));
    }
    let mut linker = shared.clone();
    define_stubs::<DeniedResource>(&mut linker, engine, component, inspect::is_denied, fail)?;
    Ok(std::borrow::Cow::Owned(linker))
}

/// A host function for any signature, as `Linker::func_new` takes it.
pub(crate) type Stub = Box<
    dyn Fn(
            wasmtime::StoreContextMut<'_, CallState>,
            wasmtime::component::types::ComponentFunc,
            &[wasmtime::component::Val],
            &mut [wasmtime::component::Val],
        ) -> wasmtime::Result<()>
        + Send
        + Sync,
>;

/// Defines, in `linker`, every function of the imports of `component` that `pick` selects as
/// `stub(function, interface)`, and every resource those imports introduce as the host type
/// `R` (of which no instance ever exists: the functions that would create one are stubs).
pub(crate) fn define_stubs<R: 'static>(
    linker: &mut Linker<CallState>,
    engine: &Engine,
    component: &Component,
    pick: impl Fn(&str) -> bool,
    stub: impl Fn(String, &str) -> Stub,
) -> wasmtime::Result<()> {
    let ty = component.component_type();
    // A resource an interface only `use`s (wasi:io's pollable in wasi:sockets/tcp) is the one
    // an earlier import defined, and must stay that one; only resources a picked interface
    // introduces get the stub type. Imports come in definition order.
    let mut seen: Vec<ResourceType> = Vec::new();
    for (name, item) in ty.imports(engine) {
        let picked = pick(name);
        match item.ty {
            ComponentItem::ComponentInstance(instance) => {
                let mut defined = picked.then(|| linker.instance(name)).transpose()?;
                for (export, item) in instance.exports(engine) {
                    match (item.ty, defined.as_mut()) {
                        (ComponentItem::Resource(resource), defined) => {
                            if seen.contains(&resource) {
                                continue;
                            }
                            seen.push(resource);
                            if let Some(defined) = defined {
                                defined
                                    .resource(export, ResourceType::host::<R>(), |_, _| Ok(()))?;
                            }
                        }
                        (ComponentItem::ComponentFunc(_), Some(defined)) => {
                            defined.func_new(export, stub(format!("{name}#{export}"), name))?;
                        }
                        _ => {}
                    }
                }
            }
            ComponentItem::ComponentFunc(_) if picked => {
                linker.root().func_new(name, stub(name.to_string(), name))?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// A host function that fails with [`DeniedCall`] for `function` of `interface`.
fn fail(function: String, interface: &str) -> Stub {
    let why = if interface.starts_with("wasi:sockets/") || interface.starts_with("wasi:http/") {
        "hooks have no network access"
    } else {
        "hookhost does not provide this WASI interface to hooks"
    };
    Box::new(move |_, _, _, _| {
        Err(DeniedCall {
            function: function.clone(),
            why,
        }
        .into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_and_unknown_wasi_interfaces_are_denied_the_rest_provided() {
        let cases = [
            ("wasi:sockets/tcp@0.2.9", true),
            ("wasi:sockets/ip-name-lookup@0.2.0", true),
            ("wasi:http/outgoing-handler@0.2.10", true),
            ("wasi:http/types@0.2.10", true),
            ("wasi:keyvalue/store@0.2.0", true),
            ("wasi:io/poll@0.2.9", false),
            ("wasi:cli/environment@0.2.12", false),
            ("wasi:filesystem/types@0.2.6", false),
            ("wasi:random/insecure-seed@0.2.12", false),
            ("wasi:clocks/wall-clock@0.2.0", false),
            ("hookhost:hooks/host@0.2.0", false),
            ("acme:vault/secrets@1.0.0", false),
        ];
        for (name, denied) in cases {
            assert_eq!(inspect::is_denied(name), denied, "{name}");
        }
    }
}
