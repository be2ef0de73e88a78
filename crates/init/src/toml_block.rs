//! hookhost's block in a hooks.toml: the profile's hooks between two marker lines, appended
//! after the user's own hooks (so theirs keep running first, in declaration order), rewritten
//! in place by the next `init`, and taken out by `--remove` with the one line break that
//! separated it, which gives back the file as it was, byte for byte.
//!
//! An existing hooks.toml is never overwritten: the user's hooks, comments and tables stay as
//! they are. A profile hook whose name the file already uses is left out of the block (the
//! user's own is kept, and the plan says so).

use std::ops::Range;
use std::path::Path;

use crate::error::InitError;
use crate::profile::Profile;

/// The first line of the block starts so.
pub(crate) const START: &str = "# >>> hookhost init";
/// The block's last line.
pub(crate) const END: &str = "# <<< hookhost init";

fn newline_of(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// The block's byte range in `text` (its first line through the end of its last), if it has
/// one.
fn find(path: &Path, text: &str) -> Result<Option<Range<usize>>, InitError> {
    let mut offset = 0;
    let mut start = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if start.is_none() && bare.starts_with(START) {
            start = Some(offset);
        } else if let Some(start) = start
            && bare == END
        {
            return Ok(Some(start..offset + line.len()));
        }
        offset += line.len();
    }
    match start {
        Some(at) => Err(InitError::HooksToml {
            path: path.to_path_buf(),
            message: format!(
                "line {}: hookhost's block starts here but has no `{END}` line; restore it, or delete the block, and run again",
                text[..at].matches('\n').count() + 1
            ),
        }),
        None => Ok(None),
    }
}

fn toml_error(path: &Path, error: toml::de::Error, what: &str) -> InitError {
    InitError::HooksToml {
        path: path.to_path_buf(),
        message: format!("{what}: {}", error.to_string().trim_end()),
    }
}

/// The block for `profile` in `newline`'s line endings, without the hooks in `skip`.
fn block(profile: Profile, skip: &[String], newline: &str) -> String {
    let text = format!(
        "{START}: profile {profile} (`hookhost init` rewrites this block, `hookhost init --remove` takes it out)\n{}{END}\n",
        profile.toml(skip)
    );
    text.replace('\n', newline)
}

/// `existing` (the hooks.toml's text; `None`: there is none) with the block of `profile` added
/// or rewritten, and notes for the user.
pub(crate) fn add(
    path: &Path,
    existing: Option<&str>,
    profile: Profile,
) -> Result<(String, Vec<String>), InitError> {
    let text = existing.unwrap_or("");
    let newline = newline_of(text);
    let found = find(path, text)?;
    let theirs = match &found {
        Some(range) => format!("{}{}", &text[..range.start], &text[range.end..]),
        None => text.to_string(),
    };
    let table: toml::Table = toml::from_str(&theirs)
        .map_err(|e| toml_error(path, e, "not valid TOML (fix it, then run again)"))?;
    let names: Vec<String> = table
        .get("hooks")
        .and_then(|hooks| hooks.as_array())
        .into_iter()
        .flatten()
        .filter_map(|hook| Some(hook.get("name")?.as_str()?.to_string()))
        .filter(|name| profile.hook_names().contains(&name.as_str()))
        .collect();
    let mut notes: Vec<String> = names
        .iter()
        .map(|name| format!("{}: a hook named {name:?} is already there: yours is kept, and the profile's {name} is left out", path.display()))
        .collect();
    if let Some(mode) = table
        .get("mode")
        .and_then(|m| m.as_str())
        .filter(|m| *m != "enforce")
    {
        notes.push(format!(
            "{}: the file's top-level mode = {mode:?} applies to the profile's hooks too",
            path.display()
        ));
    }
    let block = block(profile, &names, newline);
    let updated = match (found, existing) {
        (Some(range), _) => format!("{}{block}{}", &text[..range.start], &text[range.end..]),
        (None, None) => block,
        // One line break before the block: a blank line after a file that ends with one,
        // the end of the last line of one that does not. `remove` takes exactly that out.
        (None, Some(_)) => format!("{text}{newline}{block}"),
    };
    toml::from_str::<toml::Table>(&updated)
        .map_err(|e| toml_error(path, e, "the profile's hooks cannot be added to this file (does it define `hooks` in another way than [[hooks]] tables?)"))?;
    Ok((updated, notes))
}

/// `text` without hookhost's block; `None` when nothing else was in the file (init made it).
pub(crate) fn remove(path: &Path, text: &str) -> Result<Option<String>, InitError> {
    let Some(range) = find(path, text)? else {
        return Ok(Some(text.to_string()));
    };
    if range.start == 0 {
        let rest = &text[range.end..];
        return Ok((!rest.is_empty()).then(|| rest.to_string()));
    }
    let newline = newline_of(text);
    let before = text[..range.start]
        .strip_suffix(newline)
        .unwrap_or(&text[..range.start]);
    Ok(Some(format!("{before}{}", &text[range.end..])))
}

/// Whether `text` has hookhost's block.
pub(crate) fn has_block(text: &str) -> bool {
    text.lines().any(|line| line.starts_with(START))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> &'static Path {
        Path::new("hooks.toml")
    }

    #[test]
    fn added_then_removed_gives_the_file_back() {
        let originals = [
            "",
            "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"./guard.sh\"\n",
            "# no final newline\n[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"",
            "[[hooks]]\r\nevent = \"Stop\"\r\ncommand = \"x\"\r\n\r\n",
            "[log]\npath = \"decisions.jsonl\"\n",
        ];
        for original in originals {
            for profile in Profile::ALL {
                let (added, _) = add(path(), Some(original), profile).unwrap();
                assert!(added.starts_with(original), "{original:?}");
                let (again, _) = add(path(), Some(&added), profile).unwrap();
                assert_eq!(again, added, "idempotent: {original:?}");
                assert_eq!(remove(path(), &added).unwrap().as_deref(), Some(original));
                if original.contains('\r') {
                    assert!(!added.replace("\r\n", "").contains('\n'), "CRLF kept");
                }
            }
        }
        let (created, _) = add(path(), None, Profile::Standard).unwrap();
        assert!(created.starts_with(START));
        assert_eq!(remove(path(), &created).unwrap(), None);
    }

    #[test]
    fn another_profile_rewrites_the_block_in_place() {
        let original = "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\n";
        let (standard, _) = add(path(), Some(original), Profile::Standard).unwrap();
        let edited = format!("{standard}\n[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"y\"\n");
        let (strict, _) = add(path(), Some(&edited), Profile::Strict).unwrap();
        assert!(strict.contains("name = \"egress\""));
        assert!(
            strict.ends_with("command = \"y\"\n"),
            "the block stays where it was"
        );
        assert_eq!(
            remove(path(), &strict).unwrap().unwrap(),
            format!("{original}\n[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"y\"\n")
        );
    }

    #[test]
    fn the_users_names_win() {
        let original =
            "[[hooks]]\nname = \"secrets\"\nevent = \"PreToolUse\"\ncommand = \"./mine.sh\"\n";
        let (added, notes) = add(path(), Some(original), Profile::Standard).unwrap();
        assert_eq!(added.matches("name = \"secrets\"").count(), 1);
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].contains("a hook named \"secrets\" is already there"),
            "{notes:?}"
        );
    }

    #[test]
    fn bad_files_are_refused() {
        // (text, message start)
        let cases: &[(&str, &str)] = &[
            ("[[hooks]\n", "not valid TOML"),
            ("hooks = []\n", "the profile's hooks cannot be added"),
            (
                "# >>> hookhost init: profile standard\n[[hooks]]\n",
                "line 1: hookhost's block starts here but has no",
            ),
        ];
        for (text, message) in cases {
            let error = add(path(), Some(text), Profile::Standard).unwrap_err();
            let InitError::HooksToml { message: got, .. } = &error else {
                panic!("{error}")
            };
            assert!(got.starts_with(message), "{text:?}: {got}");
        }
    }
}
