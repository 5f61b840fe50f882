//! The policy view (`4`): the versions × semver and each policy, as a matrix over the whole
//! body; it opens on the selected version.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use crate::ui::app::keys::Context;
use crate::ui::app::tree;
use crate::ui::app::{App, Pane};
use crate::ui::panes::policy::{self as pane, PolicyPane, column_at, visible_rows};
use crate::ui::widgets::layout::Areas;

pub const TITLE: &str = "Policy";
pub const HELP: &str = "policy view: versions × semver and policies";
pub const CONTEXT: Context = Context::Policy;
pub const PANES: &[Pane] = &[Pane::Matrix];
pub const MAIN: Pane = Pane::Matrix;

pub fn layout(a: &mut Areas) {
    a.matrix = Some(a.body);
}

pub fn render(app: &App, a: &Areas, buf: &mut Buffer) {
    if let Some(r) = a.matrix {
        (&PolicyPane(app)).render(r, buf);
    }
}

/// The matrix opens on the selected version.
pub fn open(app: &mut App) {
    app.policy_nav.row = app.selected.index();
}

/// A click on a cell moves the cursor there.
pub fn click(app: &mut App, rect: Rect, column: u16, row: u16, top: u16) {
    let col = column.saturating_sub(rect.x + 1) as usize;
    app.policy_nav.row = app.policy_nav.row_scroll + (row - top - 1) as usize;
    if let Some(c) = column_at(app, rect, col) {
        app.policy_nav.col = c;
    }
}

/// Keeps the cursor on a version and a column the matrix shows.
pub fn fit(app: &mut App, area: Rect) {
    let nv = app.versions.len();
    let ncols = pane::window(app, area).total;
    let rows = visible_rows(area);
    let nav = &mut app.policy_nav;
    nav.row = nav.row.min(nv.saturating_sub(1));
    nav.col = nav.col.min(ncols - 1);
    tree::fit(&mut nav.row_scroll, nav.row, nv, rows);
    let room = pane::room(app, area);
    let nav = &mut app.policy_nav;
    tree::fit(&mut nav.col_scroll, nav.col, ncols, room);
}
