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
}
