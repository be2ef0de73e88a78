//! Splices into a JSON file's text: a child appended to an object or array, a child taken out,
//! a value replaced. Every other byte stays where it was, and taking out what was appended
//! gives back the text as it was (the round trip `hookhost init --remove` relies on).

use super::parse::{Kind, Node};
use super::value::{Json, Style};

/// A child to append: an array item, or an object member.
pub(crate) enum Child<'a> {
    Item(&'a Json),
    Member(&'a str, &'a Json),
}

impl Child<'_> {
    fn pretty(&self, style: &Style, indent: &str) -> String {
        match self {
            Child::Item(value) => value.pretty(style, indent),
            Child::Member(key, value) => {
                let mut out = String::new();
                super::value::write_string(key, &mut out);
                out.push_str(": ");
                out.push_str(&value.pretty(style, indent));
                out
            }
        }
    }

    fn inline(&self) -> String {
        match self {
            Child::Item(value) => value.inline(),
            Child::Member(key, value) => {
                let mut out = String::new();
                super::value::write_string(key, &mut out);
                out.push_str(": ");
                out.push_str(&value.inline());
                out
            }
        }
    }
}

/// The spans of a container's children: its members (key to value) or its items.
fn children(container: &Node) -> Vec<std::ops::Range<usize>> {
    match &container.kind {
        Kind::Object(members) => members.iter().map(|m| m.span.clone()).collect(),
        Kind::Array(items) => items.iter().map(|i| i.span.clone()).collect(),
        _ => unreachable!("only objects and arrays have children"),
    }
}

/// The whitespace that starts the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// Whether only whitespace comes before byte `at` on its line.
fn starts_line(text: &str, at: usize) -> bool {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..at].trim_matches([' ', '\t']).is_empty()
}

fn splice(text: &str, range: std::ops::Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..range.start]);
    out.push_str(with);
    out.push_str(&text[range.end..]);
    out
}

/// `text` with `child` appended to `container` (an object or array of `text`), laid out as
/// its siblings are: on a line of its own at their indentation, or inline after them.
pub(crate) fn append(text: &str, container: &Node, child: Child<'_>, style: &Style) -> String {
    let open = container.span.start;
    let close = container.span.end - 1;
    let spans = children(container);
    let Some(last) = spans.last() else {
        let outer = line_indent(text, open);
        let indent = format!("{outer}{}", style.unit);
        let body = child.pretty(style, &indent);
        let inside = &text[open + 1..close];
        return if inside.trim().is_empty() {
            let with = format!("{nl}{indent}{body}{nl}{outer}", nl = style.newline);
            splice(text, open + 1..close, &with)
        } else {
            // Only comments inside: they stay, after the child.
            splice(
                text,
                open + 1..open + 1,
                &format!("{}{indent}{body}", style.newline),
            )
        };
    };
    if text[open..close].contains('\n') {
        let indent = if starts_line(text, last.start) {
            line_indent(text, last.start).to_string()
        } else {
            format!("{}{}", line_indent(text, open), style.unit)
        };
        let body = child.pretty(style, &indent);
        let with = format!(",{}{indent}{body}", style.newline);
        splice(text, last.end..last.end, &with)
    } else {
        splice(text, last.end..last.end, &format!(", {}", child.inline()))
    }
}

/// `text` with the child at `index` of `container` taken out, with the separator between it
/// and its neighbour; the only child leaves the container empty (`{}`, `[]`).
pub(crate) fn remove(text: &str, container: &Node, index: usize) -> String {
    let spans = children(container);
    let open = container.span.start;
    let close = container.span.end - 1;
    if spans.len() == 1 {
        return splice(text, open + 1..close, "");
    }
    if index == spans.len() - 1 {
        // The last: from the end of the one before (its comma with it).
        splice(text, spans[index - 1].end..spans[index].end, "")
    } else {
        // Any other: up to the start of the next.
        splice(text, spans[index].start..spans[index + 1].start, "")
    }
}

/// `text` with `node` replaced by `value`, across lines at the node's indentation when the
/// node starts its own line, else inline.
pub(crate) fn replace(text: &str, node: &Node, value: &Json, style: &Style) -> String {
    let start = node.span.start;
    let with = if starts_line(text, start) {
        value.pretty(style, line_indent(text, start))
    } else {
        value.inline()
    };
    splice(text, node.span.clone(), &with)
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    fn item() -> Json {
        Json::Object(vec![("command".into(), Json::str("hookhost"))])
    }

    /// Appends the item to the array at `hooks.E` of `text`, checks the result parses, and
    /// that taking it out again gives `text` back.
    fn round_trip(text: &str) -> String {
        let style = Style::of(text);
        let root = parse(text, true).unwrap();
        let array = root.get("E").unwrap();
        let value = item();
        let added = append(text, array, Child::Item(&value), &style);
        let again = parse(&added, true).unwrap();
        let array = again.get("E").unwrap();
        let Kind::Array(items) = &array.kind else {
            panic!()
        };
        assert!(item().matches(items.last().unwrap()), "{added}");
        assert_eq!(remove(&added, array, items.len() - 1), text, "{added}");
        added
    }

    #[test]
    fn append_follows_the_layout() {
        // (original, after appending)
        let cases: &[(&str, &str)] = &[
            (
                "{\"E\": []}",
                "{\"E\": [\n  {\n    \"command\": \"hookhost\"\n  }\n]}",
            ),
            (
                "{\n    \"E\": [\n        {\"a\": 1}\n    ]\n}",
                "{\n    \"E\": [\n        {\"a\": 1},\n        {\n            \"command\": \"hookhost\"\n        }\n    ]\n}",
            ),
            (
                "{\"E\": [{\"a\": 1}]}",
                "{\"E\": [{\"a\": 1}, {\"command\": \"hookhost\"}]}",
            ),
            (
                "{\r\n\t\"E\": [\r\n\t\t1\r\n\t]\r\n}",
                "{\r\n\t\"E\": [\r\n\t\t1,\r\n\t\t{\r\n\t\t\t\"command\": \"hookhost\"\r\n\t\t}\r\n\t]\r\n}",
            ),
            (
                "{\n  \"E\": [ // none yet\n  ]\n}",
                "{\n  \"E\": [\n    {\n      \"command\": \"hookhost\"\n    } // none yet\n  ]\n}",
            ),
        ];
        for (original, expected) in cases {
            let added = if original.contains("none yet") {
                // Comments in an empty array stay, but removal empties the array.
                let root = parse(original, true).unwrap();
                let value = item();
                append(
                    original,
                    root.get("E").unwrap(),
                    Child::Item(&value),
                    &Style::of(original),
                )
            } else {
                round_trip(original)
            };
            assert_eq!(&added, expected, "{original:?}");
        }
    }

    #[test]
    fn remove_keeps_the_neighbours() {
        let text = "{\n  \"E\": [\n    1,\n    2,\n    3\n  ]\n}";
        let root = parse(text, false).unwrap();
        let array = root.get("E").unwrap();
        assert_eq!(
            remove(text, array, 0),
            "{\n  \"E\": [\n    2,\n    3\n  ]\n}"
        );
        assert_eq!(
            remove(text, array, 1),
            "{\n  \"E\": [\n    1,\n    3\n  ]\n}"
        );
        assert_eq!(
            remove(text, array, 2),
            "{\n  \"E\": [\n    1,\n    2\n  ]\n}"
        );
        let members = "{\"a\": 1, \"b\": 2}";
        let root = parse(members, false).unwrap();
        assert_eq!(remove(members, &root, 0), "{\"b\": 2}");
        assert_eq!(remove(members, &root, 1), "{\"a\": 1}");
    }

    #[test]
    fn members_append_and_replace() {
        let text = "{\n  \"keep\": true\n}\n";
        let root = parse(text, false).unwrap();
        let value = Json::Object(vec![("E".into(), Json::Array(vec![]))]);
        let added = append(
            text,
            &root,
            Child::Member("hooks", &value),
            &Style::of(text),
        );
        assert_eq!(
            added,
            "{\n  \"keep\": true,\n  \"hooks\": {\n    \"E\": []\n  }\n}\n"
        );
        let root = parse(&added, false).unwrap();
        let hooks = root.get("hooks").unwrap();
        let replaced = replace(
            &added,
            hooks,
            &Json::Literal("null".into()),
            &Style::of(text),
        );
        assert_eq!(replaced, "{\n  \"keep\": true,\n  \"hooks\": null\n}\n");
        assert_eq!(remove(&added, &root, 1), text);
    }
}
