//! The graph view (`1`): the versions, the type graph of the compared pair from the root, and
//! the detail of the node under the cursor.

use ratatui::buffer::Buffer;
use ratatui::widgets::Widget;

use crate::ui::app::keys::Context;
use crate::ui::app::{App, Pane};
use crate::ui::panes::detail::DetailPane;
use crate::ui::panes::graph::GraphPane;
use crate::ui::panes::versions::VersionsPane;
use crate::ui::widgets::layout::{self, Areas};

pub const TITLE: &str = "Graph";
pub const HELP: &str = "graph view";
pub const CONTEXT: Context = Context::Graph;
pub const PANES: &[Pane] = &[Pane::Versions, Pane::Graph, Pane::Detail];
pub const MAIN: Pane = Pane::Graph;

/// The versions on the left; the graph above the detail on the right.
pub fn layout(a: &mut Areas, versions_width: u16) {
    let [left, upper, lower] = layout::versions_beside(a.body, versions_width);
    a.versions = Some(left);
    a.graph = Some(upper);
    a.detail = Some(lower);
}

pub fn render(app: &App, a: &Areas, buf: &mut Buffer) {
    if let Some(r) = a.versions {
        (&VersionsPane(app)).render(r, buf);
    }
    if let Some(r) = a.graph {
        (&GraphPane(app)).render(r, buf);
    }
    if let Some(r) = a.detail {
        (&DetailPane(app)).render(r, buf);
    }
}
