//! The history view (`3`): one message's fields × the versions, as a matrix over the whole
//! body; it opens on the selected version and on the field under the graph's cursor.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use crate::ui::app::keys::Context;
use crate::ui::app::tree;
use crate::ui::app::{App, Pane};
use crate::ui::panes::history::{HistoryPane, geometry};
use crate::ui::widgets::layout::Areas;

pub const TITLE: &str = "History";
pub const HELP: &str = "history view: fields × versions";
pub const CONTEXT: Context = Context::History;
pub const PANES: &[Pane] = &[Pane::Matrix];
pub const MAIN: Pane = Pane::Matrix;

pub fn layout(a: &mut Areas) {
    a.matrix = Some(a.body);
}

pub fn render(app: &App, a: &Areas, buf: &mut Buffer) {
    if let Some(r) = a.matrix {
        (&HistoryPane(app)).render(r, buf);
    }
}

/// The matrix opens on the selected version.
pub fn open(app: &mut App) {
    app.history_nav.col = app.selected.index();
    // On the row of the field under the graph's cursor.
    app.history_focus = app.tree.row().and_then(|r| r.node.number);
}

/// A click on a cell moves the cursor there.
pub fn click(app: &mut App, rect: Rect, column: u16, row: u16, top: u16) {
    let col = column.saturating_sub(rect.x + 1) as usize;
    let life = app
        .history_container()
        .and_then(|c| app.lifecycles.get(&c).cloned());
    let nav = &mut app.history_nav;
    nav.row = nav.row_scroll + (row - top - 1) as usize;
    if let Some(l) = life {
        let (label, cell, _, _) = geometry(app, &l, rect);
        if col >= label {
            app.history_nav.col = app.history_nav.col_scroll + (col - label) / cell;
        }
    }
}

/// Keeps the cursor on a field and a version the matrix shows.
pub fn fit(app: &mut App, area: Rect) {
    let nv = app.versions.len();
    let life = app
        .history_container()
        .and_then(|c| app.lifecycles.get(&c).cloned());
    if let Some(l) = life {
        let (_, _, cols, rows) = geometry(app, &l, area);
        if let Some(n) = app.history_focus.take()
            && let Some(i) = l.rows.iter().position(|r| r.number == n)
        {
            app.history_nav.row = i;
        }
        let nav = &mut app.history_nav;
        nav.row = nav.row.min(l.rows.len().saturating_sub(1));
        nav.col = nav.col.min(nv.saturating_sub(1));
        tree::fit(&mut nav.row_scroll, nav.row, l.rows.len(), rows);
        tree::fit(&mut nav.col_scroll, nav.col, nv, cols);
    }
}
