//! Where hookhost keeps a user's files, by the XDG base directory rules, each with a variable of
//! hookhost's own that wins: configuration (`$HOOKHOST_CONFIG_DIR`, `$XDG_CONFIG_HOME/hookhost`,
//! `~/.config/hookhost`), data that must not be lost or shared (`$HOOKHOST_DATA_DIR`,
//! `$XDG_DATA_HOME/hookhost`, `~/.local/share/hookhost`: approvals, the compile cache's key),
//! and what can be made again (`$XDG_CACHE_HOME/hookhost`, `~/.cache/hookhost`: compiled hooks,
//! pulled bundles). An empty variable counts as unset, as XDG says.

use std::path::{Component, Path, PathBuf};

/// The variable that moves hookhost's configuration directory.
pub const CONFIG_DIR_ENV: &str = "HOOKHOST_CONFIG_DIR";
/// The variable that moves hookhost's data directory.
pub const DATA_DIR_ENV: &str = "HOOKHOST_DATA_DIR";

/// The user's hookhost configuration directory (their own hooks.toml).
pub fn config_dir() -> Option<PathBuf> {
    own_or_xdg(CONFIG_DIR_ENV, "XDG_CONFIG_HOME", ".config")
}

/// The user's hookhost data directory.
pub fn data_dir() -> Option<PathBuf> {
    own_or_xdg(DATA_DIR_ENV, "XDG_DATA_HOME", ".local/share")
}

/// The user's hookhost state directory (`$XDG_STATE_HOME/hookhost`, `~/.local/state/hookhost`):
/// where a decision log a project may not place elsewhere is kept.
pub fn state_dir() -> Option<PathBuf> {
    xdg("XDG_STATE_HOME", ".local/state")
}

/// The user's hookhost cache directory (each cache has its own variable on top): the wasm
/// runtime's compile cache and the bundle store.
#[cfg_attr(not(feature = "wasm"), allow(dead_code))]
pub fn cache_dir() -> Option<PathBuf> {
    xdg("XDG_CACHE_HOME", ".cache")
}

fn own_or_xdg(own: &str, xdg_var: &str, home_default: &str) -> Option<PathBuf> {
    var(own).or_else(|| xdg(xdg_var, home_default))
}

/// `$XDG_..._HOME/hookhost`, else `$HOME/{home_default}/hookhost`.
fn xdg(xdg_var: &str, home_default: &str) -> Option<PathBuf> {
    var(xdg_var)
        .or_else(|| var("HOME").map(|home| home.join(home_default)))
        .map(|dir| dir.join("hookhost"))
}

fn var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// `a/./b/../c` as `a/c`, without asking the file system: a path that does not exist yet (or
/// whose symlinks must not be followed) normalised by its words alone.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
