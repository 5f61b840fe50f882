//! The frame of the screen and the rectangles the views cut their panes from: pure
//! functions, used both to draw and to find what a mouse click hit.

use ratatui::layout::{Constraint, Layout, Rect};

/// The smallest terminal the UI draws in; below it, a message says so.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Areas {
    pub top: Rect,
    pub footer: Rect,
    pub body: Rect,
    pub versions: Option<Rect>,
    pub graph: Option<Rect>,
    pub detail: Option<Rect>,
    pub changes: Option<Rect>,
    pub matrix: Option<Rect>,
    pub too_small: bool,
}

/// The frame for a terminal of `size`: the top bar, the body and the footer; the views put
/// their panes in the body.
pub fn frame(size: Rect) -> Areas {
    let mut a = Areas {
        too_small: size.width < MIN_WIDTH || size.height < MIN_HEIGHT,
        ..Areas::default()
    };
    if a.too_small {
        return a;
    }
    let [top, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(size);
    a.top = top;
    a.body = body;
    a.footer = footer;
    a
}

/// The versions pane on the left of `body` (what it would like, `versions_width`, but at
/// most 40% of the width), and the rest split in an upper and a lower pane.
pub fn versions_beside(body: Rect, versions_width: u16) -> [Rect; 3] {
    let max = (u32::from(body.width) * 2 / 5) as u16;
    let w = versions_width.clamp(24, max.max(24));
    let [left, right] = Layout::horizontal([Constraint::Length(w), Constraint::Min(1)]).areas(body);
    let [upper, lower] =
        Layout::vertical([Constraint::Percentage(52), Constraint::Percentage(48)]).areas(right);
    [left, upper, lower]
}

/// A rectangle of `w` × `h` centred in `area` (clipped to it).
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// The finder and help pop-ups.
pub fn popup(size: Rect) -> Rect {
    let w = (size.width.saturating_sub(8)).clamp(40, 100);
    let h = size.height.saturating_sub(4).max(8);
    centered(size, w, h)
}
