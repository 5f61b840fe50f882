//! Text from a repository (tag names, messages, comments, diagnostics) is made safe before it
//! reaches a terminal: control characters, escape sequences and bidi overrides are never
//! written raw.

use std::borrow::Cow;

fn unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// Replaces control characters (but newlines and tabs) with a visible `\u{..}` escape.
pub fn text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| {
                if unsafe_char(c) {
                    c.escape_unicode().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// As [`text`], on one line: newlines and tabs become spaces.
pub fn line(s: &str) -> String {
    text(s).replace(['\n', '\t', '\r'], " ")
}

/// An error message for a terminal or a CI log: one line per part we wrote. Our messages put
/// each hint on its own line (`\n  help: ...`); any other line break or control character
/// came from repository text (a key, a tag, a file name) and is written as a visible escape,
/// so a committed name cannot start a line of its own (a `::warning::` workflow command in a
/// GitHub Actions log, say).
pub fn message(s: &str) -> String {
    const HELP: &str = "\n  help: ";
    s.split(HELP)
        .map(|part| text(part).replace('\n', "\\n").replace('\t', " "))
        .collect::<Vec<_>>()
        .join(HELP)
}

/// Serialized JSON with every control and bidi character that serde leaves raw (C1 controls,
/// bidi overrides and isolates, line and paragraph separators) written as a `\uXXXX` escape:
/// the same JSON value, safe to print in a terminal or a CI log. Such characters occur only
/// inside JSON strings, where the escape means the same character.
pub fn json(s: String) -> String {
    let raw = |c: char| unsafe_char(c) || matches!(c, '\u{2028}' | '\u{2029}');
    if !s.chars().any(raw) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if raw(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_never_pass() {
        let evil = "v1\u{1b}[2J\u{7}ok\u{202e}";
        let out = line(evil);
        assert!(!out.chars().any(|c| c.is_control()), "{out:?}");
        assert!(out.contains("\\u{1b}[2J"));
        assert_eq!(text("plain\nline"), "plain\nline");
        assert_eq!(line("a\nb"), "a b");
    }

    #[test]
    fn a_message_keeps_our_help_lines_and_nothing_else() {
        let m = message("protolapse.toml: unknown field `x\n::warning::pwned\r`\n  help: see docs");
        let lines: Vec<&str> = m.lines().collect();
        assert_eq!(lines.len(), 2, "{m:?}");
        assert!(lines[0].contains("`x\\n::warning::pwned\\u{d}`"), "{m:?}");
        assert_eq!(lines[1], "  help: see docs");
        assert!(!m.chars().any(|c| c.is_control() && c != '\n'), "{m:?}");
    }

    #[test]
    fn json_keeps_its_value_and_escapes_bidi_and_c1() {
        let v = serde_json::json!({"name": "abc\u{202e}txt\u{85}\u{1b}"});
        let out = json(serde_json::to_string(&v).unwrap());
        assert!(!out.chars().any(unsafe_char), "{out:?}");
        assert!(out.contains("\\u202e") && out.contains("\\u0085"), "{out}");
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back, v);
    }
}
