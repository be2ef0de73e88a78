//! `hookhost-client`: the command an agent's hook settings name when the `hookhost serve`
//! daemon keeps the project's hooks loaded. All of it is the `hookhost-client` crate, which
//! depends on std and libc only: nothing of hookhost's library is linked in.

fn main() {
    hookhost_client::run()
}
