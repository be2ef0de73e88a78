//! The organisation's hooks.toml (`/etc/hookhost/hooks.toml`): where it is, and whether it can
//! be trusted to be the organisation's (who owns it, who may write it).
//!
//! The variable [`MANAGED_CONFIG_ENV`] names another file, for tests and packaging, but only
//! on a machine that has no system file: a present `/etc/hookhost/hooks.toml` always wins, so
//! a developer cannot swap the organisation's file for one of their own. What the variable
//! names must be owned by root or by the user who runs hookhost; the system file by root; and
//! neither may be writable by anyone else, nor sit in a directory anyone else may write to. A
//! file that fails this is refused, never ignored: the runner fails closed on it.

use std::ffi::OsString;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use super::{Config, ConfigError};

/// Where an organisation that manages a machine puts the hooks its developers cannot turn off.
pub const MANAGED_CONFIG_PATH: &str = "/etc/hookhost/hooks.toml";
/// The variable that names the managed file where [`MANAGED_CONFIG_PATH`] does not exist.
pub const MANAGED_CONFIG_ENV: &str = "HOOKHOST_MANAGED_CONFIG";

/// Which rule found the managed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManagedOrigin {
    /// [`MANAGED_CONFIG_PATH`]: it must be owned by root.
    System,
    /// [`MANAGED_CONFIG_ENV`] (no system file exists): owned by root or by the current user.
    Variable,
}

/// The organisation's hooks.toml on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedFile {
    /// The file as found (messages name it).
    pub path: PathBuf,
    /// The rule that found it.
    pub origin: ManagedOrigin,
    /// Set when the variable names a file too, and is ignored because the system file exists:
    /// `hookhost check` says so.
    pub variable_ignored: Option<PathBuf>,
}

/// Who owns the managed file and its mode, once they passed the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ownership {
    /// The file's owner.
    pub uid: u32,
    /// Its permission bits.
    pub mode: u32,
}

impl ManagedFile {
    /// The managed file of this machine, if it has one: [`MANAGED_CONFIG_PATH`] when it exists
    /// (whatever [`MANAGED_CONFIG_ENV`] says), else the file the variable names. Called each
    /// time layers are loaded; a machine without either has no organisation's layer.
    pub fn locate() -> Option<ManagedFile> {
        ManagedFile::locate_in(
            Path::new(MANAGED_CONFIG_PATH),
            std::env::var_os(MANAGED_CONFIG_ENV),
        )
    }

    /// [`ManagedFile::locate`] with the system path and the variable given.
    pub(crate) fn locate_in(system: &Path, variable: Option<OsString>) -> Option<ManagedFile> {
        let variable = variable.filter(|v| !v.is_empty()).map(PathBuf::from);
        // Anything but "not there" counts as there: a system file hookhost cannot even stat
        // is refused when it is loaded, not replaced by the variable's.
        match std::fs::symlink_metadata(system) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                variable.map(|path| ManagedFile {
                    path,
                    origin: ManagedOrigin::Variable,
                    variable_ignored: None,
                })
            }
            _ => Some(ManagedFile {
                path: system.to_path_buf(),
                origin: ManagedOrigin::System,
                variable_ignored: variable,
            }),
        }
    }

    /// Checks who owns the file and may write it, then reads and validates it. A file that
    /// does not exist is an error too: the variable named it, and a typo must not mean "no
    /// guards".
    pub fn load(&self) -> Result<Config, ConfigError> {
        self.ownership()?;
        Config::load(&self.path)
    }

    /// The file's owner and mode when the file, and the directories it sits in, are written
    /// only by root (or, for a file the variable names, by the current user); otherwise an
    /// error that says which file, what is wrong and how to fix it.
    pub fn ownership(&self) -> Result<Ownership, ConfigError> {
        let refuse = |message: String| ConfigError::Read {
            path: self.path.clone(),
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, message),
        };
        let real = std::fs::canonicalize(&self.path).map_err(|source| ConfigError::Read {
            path: self.path.clone(),
            source,
        })?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        let trusted = |uid: u32| uid == 0 || (self.origin == ManagedOrigin::Variable && uid == me);
        let owners = match self.origin {
            ManagedOrigin::System => "root".to_string(),
            ManagedOrigin::Variable => format!("root or you (uid {me})"),
        };
        let metadata = std::fs::metadata(&real).map_err(|source| ConfigError::Read {
            path: self.path.clone(),
            source,
        })?;
        let ownership = Ownership {
            uid: metadata.uid(),
            mode: metadata.mode() & 0o7777,
        };
        let mut wrong = Vec::new();
        if !trusted(ownership.uid) {
            wrong.push(format!(
                "it is owned by uid {}, and must be owned by {owners}",
                ownership.uid
            ));
        }
        if ownership.mode & 0o022 != 0 {
            wrong.push(format!(
                "its mode is {:o}, so {} can write it",
                ownership.mode,
                writers(ownership.mode)
            ));
        }
        if !wrong.is_empty() {
            let shown = self.path.display();
            return Err(refuse(format!(
                "the organisation's managed hooks.toml is refused: {}; every tool call is \
                 blocked until it is fixed: run `chown root:root {shown}; chmod 644 {shown}`",
                wrong.join(", and ")
            )));
        }
        // Whoever may write a directory may replace the file in it: the file's own directory
        // and, when the path is a symlink, the link's.
        let mut dirs: Vec<PathBuf> = [self.path.parent(), real.parent()]
            .into_iter()
            .flatten()
            .map(|dir| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()))
            .collect();
        dirs.dedup();
        for dir in dirs {
            let metadata = std::fs::metadata(&dir).map_err(|source| ConfigError::Read {
                path: self.path.clone(),
                source,
            })?;
            let (uid, mode) = (metadata.uid(), metadata.mode() & 0o7777);
            if !trusted(uid) || mode & 0o022 != 0 {
                let shown = dir.display();
                return Err(refuse(format!(
                    "the organisation's managed hooks.toml is refused: its directory {shown} is \
                     owned by uid {uid} with mode {mode:o}, and must be owned by {owners} and \
                     writable by nobody else; every tool call is blocked until it is fixed: run \
                     `chown root:root {shown}; chmod 755 {shown}`"
                )));
            }
        }
        Ok(ownership)
    }
}

/// Who besides the owner may write a file of `mode`: "its group", "everyone", or both.
fn writers(mode: u32) -> &'static str {
    match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (true, true) => "its group and everyone",
        (true, false) => "its group",
        _ => "everyone",
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    #[test]
    fn a_present_system_file_wins_over_the_variable() {
        let dir = tempfile::tempdir().unwrap();
        let system = dir.path().join("system.toml");
        let mine = Some(OsString::from("/home/dev/mine.toml"));
        let found = ManagedFile::locate_in(&system, mine.clone()).unwrap();
        assert_eq!(found.origin, ManagedOrigin::Variable, "no system file");
        assert_eq!(found.path, Path::new("/home/dev/mine.toml"));
        assert_eq!(ManagedFile::locate_in(&system, Some(OsString::new())), None);
        assert_eq!(ManagedFile::locate_in(&system, None), None);
        std::fs::write(&system, "").unwrap();
        let found = ManagedFile::locate_in(&system, mine).unwrap();
        assert_eq!(found.origin, ManagedOrigin::System);
        assert_eq!(found.path, system);
        assert_eq!(
            found.variable_ignored.as_deref(),
            Some(Path::new("/home/dev/mine.toml"))
        );
    }

    #[test]
    fn a_file_others_can_write_is_refused_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = dir.path().join("hooks.toml");
        std::fs::write(&path, "").unwrap();
        let managed = ManagedFile {
            path: path.clone(),
            origin: ManagedOrigin::Variable,
            variable_ignored: None,
        };
        for (mode, refused) in [
            (0o644, None),
            (0o600, None),
            (0o664, Some("its mode is 664, so its group can write it")),
            (0o646, Some("its mode is 646, so everyone can write it")),
            (0o666, Some("so its group and everyone can write it")),
        ] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            match (managed.ownership(), refused) {
                (Ok(ownership), None) => assert_eq!(ownership.mode, mode),
                (Err(error), Some(why)) => {
                    let text = error.one_line();
                    assert!(text.contains(why), "{mode:o}: {text}");
                    assert!(
                        text.contains(&format!(
                            "run `chown root:root {0}; chmod 644 {0}`",
                            path.display()
                        )),
                        "{text}"
                    );
                }
                (got, want) => panic!("{mode:o}: {got:?}, wanted {want:?}"),
            }
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let text = managed.ownership().unwrap_err().one_line();
        assert!(text.contains("its directory"), "{text}");
        assert!(text.contains("with mode 777"), "{text}");
    }
}
