//! Small text helpers for the panes: wrapping styled lines to a width, padding, truncating.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
/// Display width of a string.
pub fn width(s: &str) -> usize {
    Span::raw(s).width()
}

/// Where a text is cut to fit a width: the characters kept, and on which side the `…` goes.
/// The one place that decides how text is shortened: prose and labels keep their head
/// ([`cut_head`]); names — element paths, type names, field names — keep their tail, where
/// they differ from their neighbours ([`cut_name`]: `…ResourceSpans.scope_spans`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The kept characters, as char indices into the text.
    pub chars: std::ops::Range<usize>,
    /// A `…` before the kept characters (a name's head was cut).
    pub before: bool,
    /// A `…` after them (a text's tail was cut).
    pub after: bool,
}

impl Cut {
    /// The kept text with its `…`.
    pub fn apply(&self, s: &str) -> String {
        let kept: String = s
            .chars()
            .skip(self.chars.start)
            .take(self.chars.len())
            .collect();
        match (self.before, self.after) {
            (true, _) => format!("…{kept}"),
            (_, true) => format!("{kept}…"),
            _ => kept,
        }
    }
}

fn char_width(ch: char) -> usize {
    width(ch.encode_utf8(&mut [0; 4]))
}

/// A text cut to `w` columns keeping its head: `abc…`.
pub fn cut_head(s: &str, w: usize) -> Cut {
    let n = s.chars().count();
    if width(s) <= w {
        return Cut {
            chars: 0..n,
            before: false,
            after: false,
        };
    }
    let mut used = 0;
    let mut end = 0;
    for ch in s.chars() {
        let cw = char_width(ch);
        if used + cw + 1 > w {
            break;
        }
        used += cw;
        end += 1;
    }
    Cut {
        chars: 0..end,
        before: false,
        after: w > 0,
    }
}

/// A name cut to `w` columns keeping its tail: `…Spans.scope_spans`; from just after a `.`
/// (`…ResourceSpans.scope_spans`) when that keeps at least half of what fits.
pub fn cut_name(s: &str, w: usize) -> Cut {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    if width(s) <= w {
        return Cut {
            chars: 0..n,
            before: false,
            after: false,
        };
    }
    let room = w.saturating_sub(1);
    let mut used = 0;
    let mut start = n;
    while start > 0 {
        let cw = char_width(chars[start - 1]);
        if used + cw > room {
            break;
        }
        used += cw;
        start -= 1;
    }
    if let Some(dot) = chars[start..].iter().position(|c| *c == '.') {
        let from = start + dot + 1;
        let kept: usize = chars[from..].iter().map(|c| char_width(*c)).sum();
        if from < n && kept * 2 >= room {
            start = from;
        }
    }
    Cut {
        chars: start..n,
        before: w > 0,
        after: false,
    }
}

/// Pads to exactly `w` columns.
fn pad(s: String, w: usize) -> String {
    let pad = w.saturating_sub(width(&s));
    format!("{s}{}", " ".repeat(pad))
}

/// Pads or truncates prose or a label (keeping its head: `abc…`) to exactly `w` columns.
pub fn fit(s: &str, w: usize) -> String {
    pad(cut_head(s, w).apply(s), w)
}

/// Pads or truncates a name (keeping its tail: `…Spans.scope_spans`) to exactly `w` columns.
pub fn fit_name(s: &str, w: usize) -> String {
    pad(cut_name(s, w).apply(s), w)
}

/// A name cut to at most `w` columns keeping its tail, unpadded (a title's name).
pub fn short_name(s: &str, w: usize) -> String {
    cut_name(s, w).apply(s)
}

/// A change of names (`old → new`, a field's type) in exactly `w` columns: both sides stay
/// on screen, each cut as a name, the shorter giving the longer what it does not need.
pub fn fit_change(old: &str, new: &str, w: usize) -> String {
    const ARROW: &str = " → ";
    let whole = format!("{old}{ARROW}{new}");
    if width(&whole) <= w {
        return pad(whole, w);
    }
    let room = w.saturating_sub(width(ARROW));
    if room < 4 {
        return fit_name(&whole, w);
    }
    let (ow, nw) = (width(old), width(new));
    let half = room / 2;
    let (a, b) = if ow <= half {
        (ow, room - ow)
    } else if nw <= room - half {
        (room - nw, nw)
    } else {
        (half, room - half)
    };
    pad(
        format!(
            "{}{ARROW}{}",
            cut_name(old, a).apply(old),
            cut_name(new, b).apply(new)
        ),
        w,
    )
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
            // A word longer than the room left: cut it after its last token boundary that
            // fits (`google.protobuf.` | `FieldDescriptorProto`), on a line of its own when
            // none fits here; mid-token only when a token is longer than a whole line.
            let room = (w - used).max(1);
            let at = match crate::proto_text::token_break(&p, room) {
                Some(at) => at,
                None if used > indent => {
                    out.push(Line::from(std::mem::take(&mut cur)).style(line.style));
                    cur.push(Span::raw(" ".repeat(indent)));
                    used = indent;
                    continue;
                }
                None => room,
            };
            let head: String = p.chars().take(at).collect();
            let rest: String = p.chars().skip(at).collect();
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
    fn long_names_wrap_between_tokens() {
        let l = Line::from("google.protobuf.FieldDescriptorProto.Label label = 4;");
        let text: Vec<String> = wrap(l, 24).iter().map(|l| l.to_string()).collect();
        assert_eq!(
            text,
            [
                "google.protobuf.",
                "FieldDescriptorProto.",
                "Label label = 4;"
            ]
        );
        // After a short word, a name that cannot fit starts its own line.
        let l = Line::from("optional opentelemetry.proto.common.v1.AnyValue value = 1;");
        let text: Vec<String> = wrap(l, 20).iter().map(|l| l.to_string()).collect();
        assert!(text.iter().all(|t| t.chars().count() <= 20), "{text:?}");
        for t in &text {
            let last = t.trim_end().chars().last().unwrap_or('.');
            assert!(
                t.ends_with(' ') || matches!(last, '.' | ';') || t == text.last().unwrap(),
                "{text:?}"
            );
        }
        // A token longer than a line is cut, as before.
        let text: Vec<String> = wrap(Line::from("abcdefghij"), 4)
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(text, ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn fit_pads_and_truncates() {
        assert_eq!(fit("abc", 5), "abc  ");
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abcdef", 0), "");
    }

    #[test]
    fn names_keep_their_tail_from_a_dot() {
        let path = "opentelemetry.proto.trace.v1.ResourceSpans.scope_spans";
        assert_eq!(fit_name(path, 27), "…ResourceSpans.scope_spans ");
        // No dot that keeps half of the room: the last characters that fit.
        assert_eq!(fit_name(path, 10), "…ope_spans");
        assert_eq!(fit_name("duration_ms", 8), "…tion_ms");
        assert_eq!(fit_name("id", 4), "id  ");
        assert_eq!(fit_name("abc", 1), "…");
        assert_eq!(fit_name("abc", 0), "");
    }

    #[test]
    fn a_change_keeps_both_sides() {
        assert_eq!(fit_change("uint32", "sint32", 16), "uint32 → sint32 ");
        let t = fit_change("physics.v1.Temperature", "physics.v2.Temperature2", 30);
        assert_eq!(t, "…Temperature → …Temperature2  ");
        let t = fit_change("uint32", "physics.v1.Temperature", 20);
        assert_eq!(t, "uint32 → …emperature");
        assert!(fit_change("a.Bbbbbbbbb", "a.Cccccccccc", 12).contains(" → …"));
        assert_eq!(width(&fit_change("a.Bbbbbbbbb", "a.Cccccccccc", 12)), 12);
    }
}
