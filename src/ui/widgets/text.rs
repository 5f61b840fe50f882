//! Small text helpers for the panes: wrapping styled lines to a width, padding, truncating.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
/// Display width of a string.
pub fn width(s: &str) -> usize {
    Span::raw(s).width()
}

/// Pads or truncates (with `…`) to exactly `w` columns.
pub fn fit(s: &str, w: usize) -> String {
    if width(s) <= w {
        let pad = w - width(s);
        return format!("{s}{}", " ".repeat(pad));
    }
    let mut out = String::new();
    let mut used = 0;
    for ch in s.chars() {
        let cw = width(ch.encode_utf8(&mut [0; 4]));
        if used + cw + 1 > w {
            break;
        }
        out.push(ch);
        used += cw;
    }
    out.push('…');
    used += 1;
    out.push_str(&" ".repeat(w.saturating_sub(used)));
    out
}

/// Wraps a styled line at word boundaries to lines of at most `w` columns (words longer
/// than a line are cut). Leading indentation is kept on continuation lines.
pub fn wrap(line: Line<'static>, w: usize) -> Vec<Line<'static>> {
    let indent: usize = {
        let first: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        first.chars().take_while(|c| *c == ' ').count()
    };
    wrap_hanging(line, w, indent)
}

/// As [`wrap`], continuation lines indented by `indent` columns (at most half the width).
pub fn wrap_hanging(line: Line<'static>, w: usize, indent: usize) -> Vec<Line<'static>> {
    let w = w.max(4);
    let total: usize = line.spans.iter().map(|s| width(&s.content)).sum();
    if total <= w {
        return vec![line];
    }
    let indent = indent.min(w / 2);
    // Split into (word-with-trailing-space, style) pieces.
    let mut pieces: Vec<(String, Style)> = Vec::new();
    for s in &line.spans {
        let mut cur = String::new();
        for ch in s.content.chars() {
            cur.push(ch);
            if ch == ' ' {
                pieces.push((std::mem::take(&mut cur), s.style));
            }
        }
        if !cur.is_empty() {
            pieces.push((cur, s.style));
        }
    }
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut cur: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for (mut p, style) in pieces {
        // Blanks do not start a continuation line.
        if !out.is_empty() && used == indent && p.trim().is_empty() {
            continue;
        }
        loop {
            let pw = width(&p);
            if used + pw <= w || (used == 0 && pw <= w) {
                used += pw;
                cur.push(Span::styled(p, style));
                break;
            }
            if used > indent && width(p.trim_end()) <= w - indent {
                out.push(Line::from(std::mem::take(&mut cur)).style(line.style));
                cur.push(Span::raw(" ".repeat(indent)));
                used = indent;
                if p.trim().is_empty() {
                    break;
                }
                continue;
            }
            // A word longer than the room left: cut it.
            let room = w - used;
            let head: String = p.chars().take(room.max(1)).collect();
            let rest: String = p.chars().skip(room.max(1)).collect();
            cur.push(Span::styled(head, style));
            out.push(Line::from(std::mem::take(&mut cur)).style(line.style));
            cur.push(Span::raw(" ".repeat(indent)));
            used = indent;
            if rest.is_empty() {
                break;
            }
            p = rest;
        }
    }
    if !cur.is_empty() {
        out.push(Line::from(cur).style(line.style));
    }
    out
}

/// Wraps every line.
pub fn wrap_all(lines: Vec<Line<'static>>, w: usize) -> Vec<Line<'static>> {
    lines.into_iter().flat_map(|l| wrap(l, w)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_words_and_keeps_indent() {
        let l = Line::from("  one two three four five six");
        let out = wrap(l, 12);
        let text: Vec<String> = out.iter().map(|l| l.to_string()).collect();
        let words: Vec<&str> = text.iter().flat_map(|l| l.split_whitespace()).collect();
        assert_eq!(words, ["one", "two", "three", "four", "five", "six"]);
        assert!(text.len() >= 3, "{text:?}");
        assert!(out.iter().all(|l| l.width() <= 12), "{text:?}");
        assert!(text.iter().skip(1).all(|l| l.starts_with("  ")), "{text:?}");
    }

    #[test]
    fn fit_pads_and_truncates() {
        assert_eq!(fit("abc", 5), "abc  ");
        assert_eq!(fit("abcdef", 4), "abc…");
    }
}
