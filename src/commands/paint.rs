//! Colour for the text the headless commands print, when `--color` (default `auto`: a
//! terminal, unless NO_COLOR; CLICOLOR_FORCE forces it) says so. The reports stay plain
//! text (`report` knows no terminal); this paints the marks our own formats put at the start
//! of a line — `error[RULE]`, `--> file:line`, a verdict word — in the colours of the
//! terminal UI (breaking red, lossy magenta, hazard yellow, safe green). Repository text
//! cannot start a line (it is sanitized to one line), so only our marks are painted.

use anstyle::{AnsiColor, Style};

/// Whether to colour standard output: `--color`, then (for `auto`) NO_COLOR,
/// CLICOLOR_FORCE, CLICOLOR and whether standard output is a terminal, as `anstream` decides.
pub fn enabled(choice: anstream::ColorChoice) -> bool {
    choice.write_global();
    anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
}

fn fg(c: AnsiColor) -> Style {
    Style::new().fg_color(Some(c.into()))
}

fn paint(style: Style, text: &str) -> String {
    format!("{style}{text}{style:#}")
}

fn verdict(word: &str) -> Option<Style> {
    Some(match word {
        "breaking" => fg(AnsiColor::Red).bold(),
        "lossy" => fg(AnsiColor::Magenta).bold(),
        "hazard" => fg(AnsiColor::Yellow).bold(),
        "safe" => fg(AnsiColor::Green),
        _ => return None,
    })
}

/// `check`'s text: the severity of each finding, its location and notes, the verdict.
pub fn check(text: &str, on: bool) -> String {
    if !on {
        return text.to_string();
    }
    let red = fg(AnsiColor::Red).bold();
    let yellow = fg(AnsiColor::Yellow).bold();
    let blue = fg(AnsiColor::Blue).bold();
    let green = fg(AnsiColor::Green).bold();
    lines(text, |line| {
        for (mark, style) in [("error", red), ("warning", yellow)] {
            if let Some(rest) = line.strip_prefix(mark)
                && rest.starts_with('[')
                && let Some((id, msg)) = rest.split_once("]:")
            {
                return format!(
                    "{}{}",
                    paint(style, &format!("{mark}{id}]")),
                    paint(Style::new().bold(), &format!(":{msg}"))
                );
            }
        }
        for mark in ["  --> ", "   = ", "   | "] {
            if let Some(rest) = line.strip_prefix(mark) {
                return format!("{}{rest}", paint(blue, mark));
            }
        }
        for (mark, style) in [("PASS", green), ("FAIL", red), ("NOT JUDGED", red)] {
            if let Some(rest) = line.strip_prefix(mark) {
                return format!("{}{rest}", paint(style, mark));
            }
        }
        line.to_string()
    })
}

/// `diff`'s text: each change's verdict word.
pub fn diff(text: &str, on: bool) -> String {
    if !on {
        return text.to_string();
    }
    lines(text, |line| {
        let word = line.split(' ').next().unwrap_or_default();
        match verdict(word) {
            Some(style) => format!("{}{}", paint(style, word), &line[word.len()..]),
            None => line.to_string(),
        }
    })
}

fn lines(text: &str, f: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        out.push_str(&f(body));
        out.push_str(end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_is_the_text_unchanged_and_on_keeps_it_under_the_colour() {
        let text = "error[X]: m\n  --> a.proto:1\nbreaking R  a.proto:1\nplain\n";
        assert_eq!(check(text, false), text);
        assert_eq!(diff(text, false), text);
        let strip = |s: String| {
            let mut out = String::new();
            let mut esc = false;
            for c in s.chars() {
                match (esc, c) {
                    (false, '\u{1b}') => esc = true,
                    (true, 'm') => esc = false,
                    (true, _) => {}
                    (false, c) => out.push(c),
                }
            }
            out
        };
        let painted = check(text, true);
        assert!(painted.contains('\u{1b}'));
        assert_eq!(strip(painted), text);
        assert_eq!(strip(diff(text, true)), text);
        assert!(diff(text, true).contains("breaking\u{1b}[0m R"));
    }
}
