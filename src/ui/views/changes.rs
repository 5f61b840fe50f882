//! The changes view (`2`): the versions, every change of the compared pair worst first, and
//! the detail of the change under the cursor (Enter shows its node in the graph view).

use ratatui::buffer::Buffer;
use ratatui::widgets::Widget;

use crate::ui::app::keys::Context;
use crate::ui::app::{App, Pane};
use crate::ui::panes::changes::ChangesPane;
use crate::ui::panes::detail::DetailPane;
use crate::ui::panes::versions::VersionsPane;
use crate::ui::widgets::layout::{self, Areas};

pub const TITLE: &str = "Changes";
pub const HELP: &str = "changes view: every change of the pair, worst first";
pub const CONTEXT: Context = Context::Changes;
pub const PANES: &[Pane] = &[Pane::Versions, Pane::Changes, Pane::Detail];
pub const MAIN: Pane = Pane::Changes;

/// The versions on the left; the changes above the detail on the right.
pub fn layout(a: &mut Areas, versions_width: u16) {
    let [left, upper, lower] = layout::versions_beside(a.body, versions_width);
    a.versions = Some(left);
    a.changes = Some(upper);
    a.detail = Some(lower);
}

pub fn render(app: &App, a: &Areas, buf: &mut Buffer) {
    if let Some(r) = a.versions {
        (&VersionsPane(app)).render(r, buf);
    }
    if let Some(r) = a.changes {
        (&ChangesPane(app)).render(r, buf);
    }
    if let Some(r) = a.detail {
        (&DetailPane(app)).render(r, buf);
    }
}
