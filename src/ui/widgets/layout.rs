//! Where each pane goes, from the terminal size and the view: one pure function, used both to
//! draw and to find what a mouse click hit.

use ratatui::layout::{Constraint, Layout, Rect};

use crate::ui::app::action::View;

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

/// The panes for a terminal of `size` showing `view`; `versions_width` is what the versions
/// pane would like (it gets at most 40% of the width).
pub fn areas(size: Rect, view: View, versions_width: u16) -> Areas {
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
    match view {
        View::Graph | View::Changes => {
            let max = (u32::from(body.width) * 2 / 5) as u16;
            let w = versions_width.clamp(24, max.max(24));
            let [left, right] =
                Layout::horizontal([Constraint::Length(w), Constraint::Min(1)]).areas(body);
            let [upper, lower] =
                Layout::vertical([Constraint::Percentage(52), Constraint::Percentage(48)])
                    .areas(right);
            a.versions = Some(left);
            if view == View::Graph {
                a.graph = Some(upper);
            } else {
                a.changes = Some(upper);
            }
            a.detail = Some(lower);
        }
        View::History | View::Policy => a.matrix = Some(body),
    }
    a
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

/// The tab labels, right-aligned in the top bar.
pub fn tabs(top: Rect) -> Vec<(View, Rect)> {
    let labels: Vec<(View, String)> = View::ALL
        .iter()
        .enumerate()
        .map(|(i, v)| (*v, format!(" {} {} ", i + 1, v.title())))
        .collect();
    let total: u16 = labels.iter().map(|(_, l)| l.chars().count() as u16).sum();
    let mut x = top.right().saturating_sub(total);
    labels
        .into_iter()
        .map(|(v, l)| {
            let w = l.chars().count() as u16;
            let r = Rect::new(x, top.y, w, 1);
            x += w;
            (v, r)
        })
        .collect()
}
