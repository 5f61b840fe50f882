//! Colours with a meaning, the same everywhere: safe green, hazard yellow, lossy magenta,
//! breaking red; unchanged and removed things dim. With `NO_COLOR` set, only modifiers
//! (bold, dim, reversed, crossed out) remain, and every verdict is also written as a word or
//! a marker so that nothing depends on colour alone.

use ratatui::style::{Color, Modifier, Style};

use crate::explore::facts::Mark;
use crate::rules::Severity;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to a non-empty value (no-color.org).
    pub fn from_env() -> Theme {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    pub fn severity(&self, s: Severity) -> Style {
        match s {
            Severity::Safe => self.fg(Color::Green),
            Severity::Hazard => self.fg(Color::Yellow),
            Severity::Lossy => self.fg(Color::Magenta),
            Severity::Breaking => self.fg(Color::Red).add_modifier(Modifier::BOLD),
        }
    }

    /// A severity, or dim when there is none.
    pub fn maybe(&self, s: Option<Severity>) -> Style {
        s.map(|s| self.severity(s)).unwrap_or_else(|| self.dim())
    }

    pub fn dim(&self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn removed(&self) -> Style {
        self.dim().add_modifier(Modifier::CROSSED_OUT)
    }

    pub fn ok(&self) -> Style {
        self.severity(Severity::Safe)
    }

    pub fn bad(&self) -> Style {
        self.severity(Severity::Breaking)
    }

    pub fn warn(&self) -> Style {
        self.severity(Severity::Hazard)
    }

    /// A check's mark and its style: `✓` pass, `✗` fail, `⊘` not judged (a file that did
    /// not compile hides what decides it: never green). Not a dash: the history view's
    /// `−` means removed.
    pub fn mark(&self, m: Mark) -> (&'static str, Style) {
        match m {
            Mark::Pass => ("✓", self.ok()),
            Mark::Fail => ("✗", self.bad()),
            Mark::NotJudged => ("⊘", self.warn()),
        }
    }

    pub fn header(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// The selected row: a background when the pane has focus, bold when it has not.
    pub fn selected(&self, focused: bool) -> Style {
        match (self.color, focused) {
            (true, true) => Style::new().bg(Color::Indexed(237)),
            (true, false) => Style::new().bg(Color::Indexed(235)),
            (false, true) => Style::new().add_modifier(Modifier::REVERSED),
            (false, false) => Style::new().add_modifier(Modifier::UNDERLINED),
        }
    }

    pub fn border(&self, focused: bool) -> Style {
        match (self.color, focused) {
            (true, true) => Style::new().fg(Color::Cyan),
            (true, false) => Style::new().fg(Color::DarkGray),
            (false, true) => Style::new().add_modifier(Modifier::BOLD),
            (false, false) => Style::new(),
        }
    }

    pub fn title(&self, focused: bool) -> Style {
        let s = Style::new().add_modifier(Modifier::BOLD);
        if focused && self.color {
            s.fg(Color::Cyan)
        } else {
            s
        }
    }

    /// Keys in the footer and the help screen.
    pub fn key(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// Matched characters in the finder.
    pub fn matched(&self) -> Style {
        self.fg(Color::Yellow)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    /// The differing words of two declarations.
    pub fn differs(&self, s: Option<Severity>) -> Style {
        self.maybe(s)
            .remove_modifier(Modifier::DIM)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    pub fn accent(&self) -> Style {
        self.fg(Color::Cyan)
    }
}

/// The marker and word of a severity: `breaking`, `lossy`, ...
pub fn word(s: Severity) -> &'static str {
    s.as_str()
}
