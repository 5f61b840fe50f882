//! The main views, one per key: `1` is the first of [`View::ALL`], and the tabs show them in
//! that order. Each view is one module saying all it is — its title, the help line of its key,
//! its key context, its panes (where they go, the focus order, which has focus first), how
//! it draws them, and what its own cursors do — and [`View`] asks it with a plain `match`
//! (in `dispatch.rs`). `screen.rs` draws the whole screen around the view.
//!
//! Adding a view: its module here, its variant below, its arms in `dispatch.rs`.
//!
//! The enum is plain data, imported by `app` (the state holds the view on screen) and by the
//! key table; the view modules and `dispatch.rs` may import `app`, `panes` and `widgets`.

mod changes;
mod dispatch;
mod graph;
mod history;
mod policy;
pub(super) mod screen;

pub use dispatch::tabs;

/// The main views.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Graph,
    Changes,
    History,
    Policy,
}

impl View {
    /// Every view, in the order of their keys and tabs.
    pub const ALL: [View; 4] = [View::Graph, View::Changes, View::History, View::Policy];
}
