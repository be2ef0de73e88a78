//! `--dry-run`'s output: a unified diff per file, `/dev/null` for a file that is created or
//! deleted, as `git diff` and `patch` read it.

use std::path::Path;

/// The unified diff from `before` to `after` of `path` (`None`: the file does not exist), with
/// three lines of context; empty when nothing changes.
pub(crate) fn unified(path: &Path, before: Option<&str>, after: Option<&str>) -> String {
    if before == after {
        return String::new();
    }
    let name = path.display();
    let old = before.map_or_else(|| "/dev/null".to_string(), |_| format!("a/{name}"));
    let new = after.map_or_else(|| "/dev/null".to_string(), |_| format!("b/{name}"));
    similar::TextDiff::from_lines(before.unwrap_or(""), after.unwrap_or(""))
        .unified_diff()
        .context_radius(3)
        .header(&old, &new)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_changed_and_deleted() {
        let path = Path::new("p/settings.json");
        assert_eq!(unified(path, Some("a\n"), Some("a\n")), "");
        assert_eq!(
            unified(path, None, Some("{}\n")),
            "--- /dev/null\n+++ b/p/settings.json\n@@ -0,0 +1 @@\n+{}\n"
        );
        assert_eq!(
            unified(path, Some("a\nb\n"), Some("a\nc\n")),
            "--- a/p/settings.json\n+++ b/p/settings.json\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
        );
        assert!(
            unified(path, Some("x\n"), None).starts_with("--- a/p/settings.json\n+++ /dev/null\n")
        );
    }
}
