//! A table wider than its pane scrolls sideways: which of its columns are on screen, and the
//! marks that say columns are hidden on either side (`◂` / `▸` at the edges of the header,
//! and a note with the counts on the pane's bottom border). The history and policy matrices
//! both draw their columns through a [`Window`], so they say it the same way.

use std::ops::Range;

/// The columns `first..first + shown` of `total` are on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub first: usize,
    pub shown: usize,
    pub total: usize,
}

/// The mark at the left edge of the header when columns are hidden there.
pub const LEFT: &str = "◂";
/// The mark at the right edge of the header when columns are hidden there.
pub const RIGHT: &str = "▸";

impl Window {
    /// The columns from `first` (at most `total - 1`) that fit in `room` columns (at least one).
    pub fn new(first: usize, room: usize, total: usize) -> Window {
        let first = first.min(total.saturating_sub(1));
        let shown = room.max(1).min(total - first.min(total));
        Window {
            first,
            shown,
            total,
        }
    }

    pub fn range(&self) -> Range<usize> {
        self.first..self.first + self.shown
    }

    /// How many columns are hidden on the left.
    pub fn left(&self) -> usize {
        self.first
    }

    /// How many columns are hidden on the right.
    pub fn right(&self) -> usize {
        self.total.saturating_sub(self.first + self.shown)
    }

    /// The header's left edge: [`LEFT`] when columns are hidden there, else a blank.
    pub fn left_mark(&self) -> &'static str {
        if self.left() > 0 { LEFT } else { " " }
    }

    /// The header's right edge: [`RIGHT`] when columns are hidden there, else a blank.
    pub fn right_mark(&self) -> &'static str {
        if self.right() > 0 { RIGHT } else { " " }
    }

    /// The note for the pane's bottom border, `what` naming the columns ("columns",
    /// "versions"): ` ◂ 2 more · versions 3–7 of 9 · 2 more ▸ `; none when all are shown.
    pub fn note(&self, what: &str) -> Option<String> {
        if self.shown >= self.total {
            return None;
        }
        let mut out = String::from(" ");
        if self.left() > 0 {
            out.push_str(&format!("{LEFT} {} more · ", self.left()));
        }
        out.push_str(&format!(
            "{what} {}–{} of {}",
            self.first + 1,
            self.first + self.shown,
            self.total
        ));
        if self.right() > 0 {
            out.push_str(&format!(" · {} more {RIGHT}", self.right()));
        }
        out.push(' ');
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_what_is_hidden_on_each_side() {
        let w = Window::new(2, 3, 9);
        assert_eq!(w.range(), 2..5);
        assert_eq!((w.left(), w.right()), (2, 4));
        assert_eq!((w.left_mark(), w.right_mark()), (LEFT, RIGHT));
        assert_eq!(
            w.note("columns").as_deref(),
            Some(" ◂ 2 more · columns 3–5 of 9 · 4 more ▸ ")
        );
        let all = Window::new(0, 12, 9);
        assert_eq!((all.shown, all.note("columns")), (9, None));
        assert_eq!((all.left_mark(), all.right_mark()), (" ", " "));
        let end = Window::new(7, 3, 9);
        assert_eq!((end.range(), end.right_mark()), (7..9, " "));
        assert_eq!(Window::new(0, 0, 0).range(), 0..0);
    }
}
