//! What each view is, asked by the rest of the UI: one plain `match` over [`View`] per
//! question, into the view's own module.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::ui::app::keys::Context;
use crate::ui::app::{App, MatrixNav, Pane};
use crate::ui::widgets::layout::{self, Areas};

use super::{View, changes, graph, history, policy};

impl View {
    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            View::Graph => graph::TITLE,
            View::Changes => changes::TITLE,
            View::History => history::TITLE,
            View::Policy => policy::TITLE,
        }
    }

    /// What the view's key does, in the help screen.
    pub fn help(self) -> &'static str {
        match self {
            View::Graph => graph::HELP,
            View::Changes => changes::HELP,
            View::History => history::HELP,
            View::Policy => policy::HELP,
        }
    }

    /// The key context of the view's own pane (the versions and detail panes have theirs).
    pub fn context(self) -> Context {
        match self {
            View::Graph => graph::CONTEXT,
            View::Changes => changes::CONTEXT,
            View::History => history::CONTEXT,
            View::Policy => policy::CONTEXT,
        }
    }

    /// The panes Tab goes through, in order.
    pub fn panes(self) -> &'static [Pane] {
        match self {
            View::Graph => graph::PANES,
            View::Changes => changes::PANES,
            View::History => history::PANES,
            View::Policy => policy::PANES,
        }
    }

    /// The pane that has the focus when the view opens.
    pub fn main_pane(self) -> Pane {
        match self {
            View::Graph => graph::MAIN,
            View::Changes => changes::MAIN,
            View::History => history::MAIN,
            View::Policy => policy::MAIN,
        }
    }

    /// Where each pane goes for a terminal of `size`; `versions_width` is what the versions
    /// pane would like.
    pub fn areas(self, size: Rect, versions_width: u16) -> Areas {
        let mut a = layout::frame(size);
        if a.too_small {
            return a;
        }
        match self {
            View::Graph => graph::layout(&mut a, versions_width),
            View::Changes => changes::layout(&mut a, versions_width),
            View::History => history::layout(&mut a),
            View::Policy => policy::layout(&mut a),
        }
        a
    }

    /// Draws the view's panes.
    pub fn render(self, app: &App, a: &Areas, buf: &mut Buffer) {
        match self {
            View::Graph => graph::render(app, a, buf),
            View::Changes => changes::render(app, a, buf),
            View::History => history::render(app, a, buf),
            View::Policy => policy::render(app, a, buf),
        }
    }

    /// What the view does as it opens, coming from another view.
    pub fn open(self, app: &mut App) {
        match self {
            View::Graph | View::Changes => {}
            View::History => history::open(app),
            View::Policy => policy::open(app),
        }
    }

    /// The cursor of the view's matrix, when it has one.
    pub fn matrix_nav(self, app: &mut App) -> Option<&mut MatrixNav> {
        match self {
            View::Graph | View::Changes => None,
            View::History => Some(&mut app.history_nav),
            View::Policy => Some(&mut app.policy_nav),
        }
    }

    /// A click at (`column`, `row`) in the view's matrix pane `rect`, below its header row
    /// `top`.
    pub fn click_matrix(self, app: &mut App, rect: Rect, column: u16, row: u16, top: u16) {
        match self {
            View::Graph | View::Changes => {}
            View::History => history::click(app, rect, column, row, top),
            View::Policy => policy::click(app, rect, column, row, top),
        }
    }

    /// Keeps the cursor of the view's matrix pane `area` inside what it shows.
    pub fn fit_matrix(self, app: &mut App, area: Rect) {
        match self {
            View::Graph | View::Changes => {}
            View::History => history::fit(app, area),
            View::Policy => policy::fit(app, area),
        }
    }
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
