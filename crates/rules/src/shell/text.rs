//! When a command cannot be read (an unclosed quote, more than 10,000 characters), Claude Code
//! still holds deny and ask rules to it by searching its text (2.1.332: its `TZl`, `Dd` and
//! `Id` functions): the literal pieces of the rule must appear in order, each on a word
//! boundary where the rule has one, in the text as written, without quotes and backslashes, or
//! with `$'...'` decoded first.

use super::pattern::{Pattern, squeeze};

/// A literal piece of a rule, and whether it starts or ends a word.
struct Piece {
    text: String,
    word_start: bool,
    word_end: bool,
}

fn pieces(pattern: &Pattern) -> Vec<Piece> {
    let tokens: Vec<String> = match pattern {
        Pattern::Exact(text) | Pattern::Prefix(text) => vec![text.clone()],
        Pattern::Wildcard(pattern, _) => {
            let mut tokens = Vec::new();
            let mut current = String::new();
            let mut chars = pattern.trim().chars().peekable();
            while let Some(c) = chars.next() {
                match (c, chars.peek()) {
                    ('\\', Some('*' | '\\')) => {
                        current.push(c);
                        current.push(chars.next().unwrap_or_default());
                    }
                    ('*', _) => {
                        if !current.is_empty() {
                            tokens.push(std::mem::take(&mut current));
                        }
                        tokens.push("*".to_string());
                    }
                    _ => current.push(c),
                }
            }
            if !current.is_empty() {
                tokens.push(current);
            }
            tokens
        }
    };
    let count = tokens.len();
    tokens
        .iter()
        .enumerate()
        .filter(|(_, token)| *token != "*")
        .map(|(i, token)| Piece {
            text: token
                .replace("\\*", "*")
                .replace("\\\\", "\\")
                .trim()
                .to_string(),
            word_start: i == 0 || token.starts_with([' ', '\t']),
            word_end: i + 1 == count || token.ends_with([' ', '\t']),
        })
        .collect()
}

/// Whether the rule's pieces appear in `text` as Claude Code's fallback search finds them.
pub(crate) fn found_in(pattern: &Pattern, text: &str) -> bool {
    let pieces = pieces(pattern);
    if !pieces
        .iter()
        .any(|piece| piece.text.chars().any(char::is_alphanumeric))
    {
        return false;
    }
    let forms: [fn(&str) -> String; 3] = [
        |text| text.to_string(),
        |text| text.replace(['\'', '"', '\\'], ""),
        |text| decode_ansi_c(text).replace(['\'', '"', '\\'], ""),
    ];
    let texts = [text.to_string(), text.replace("\\\n", "")];
    forms.iter().any(|form| {
        let wanted: Vec<(String, bool, bool)> = pieces
            .iter()
            .map(|piece| {
                (
                    squeeze(&form(&piece.text)).into_owned(),
                    piece.word_start,
                    piece.word_end,
                )
            })
            .filter(|(text, ..)| !text.is_empty())
            .collect();
        texts
            .iter()
            .any(|text| in_order(&wanted, &squeeze(&form(text))))
    })
}

fn in_order(pieces: &[(String, bool, bool)], text: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
    let mut from = 0;
    for (piece, start, end) in pieces {
        let mut at = from;
        loop {
            let Some(found) = text.get(at..).and_then(|rest| rest.find(piece.as_str())) else {
                return false;
            };
            let found = at + found;
            let before = text[..found].chars().next_back();
            let after = text[found + piece.len()..].chars().next();
            if (*start && word(before)) || (*end && word(after)) {
                at = found + text[found..].chars().next().map_or(1, char::len_utf8);
                continue;
            }
            from = found + piece.len();
            break;
        }
    }
    !pieces.is_empty()
}

/// `$'...'` strings decoded (`\x41`, `\101`, `\u0041`), the rest as it is.
fn decode_ansi_c(text: &str) -> String {
    let Some(start) = text.find("$'") else {
        return text.to_string();
    };
    let (head, tail) = text.split_at(start);
    let tail = tail.replace("$'", "'");
    let mut out = String::from(head);
    let mut chars = tail.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let (radix, max) = match chars.peek() {
            Some('x') => (16, 2),
            Some('u') => (16, 4),
            Some('U') => (16, 8),
            Some('0'..='7') => (8, 3),
            _ => {
                out.push(c);
                continue;
            }
        };
        if radix == 16 {
            chars.next();
        }
        let mut digits = String::new();
        while digits.len() < max && chars.peek().is_some_and(|d| d.is_digit(radix)) {
            digits.extend(chars.next());
        }
        match u32::from_str_radix(&digits, radix)
            .ok()
            .and_then(char::from_u32)
        {
            Some(decoded) => out.push(decoded),
            None => {
                out.push('\\');
                out.push_str(&digits);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Pattern, found_in};

    #[test]
    fn pieces_are_found_on_word_boundaries() {
        for (rule, text, expected) in [
            ("rm *", "echo 'unclosed; rm -rf /", true),
            ("rm *", "echo 'unclosed; farm -rf /", false),
            ("rm:*", "x \"unclosed r\"m -rf", true),
            ("git push --force *", "git push --force 'origin", true),
            ("git push --force *", "git push --forced 'x", false),
            ("rm *", "$'\\x72m' -rf / 'unclosed", true),
        ] {
            assert_eq!(
                found_in(&Pattern::new(rule), text),
                expected,
                "{rule} in {text}"
            );
        }
    }
}
