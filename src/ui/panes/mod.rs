//! One `impl Widget for &T` per screen area: the versions list, the type graph, the detail
//! pane, the changes list, the history and policy matrices, the finder and help pop-ups, and
//! the top bar and footer. Each draws a snapshot of the [`crate::ui::App`]: no I/O, no
//! computation beyond layout. Some also say their geometry (rows shown, the column under the
//! mouse) so that the app's cursors and clicks agree with what is drawn.
//!
//! May import `app` (the state it draws, the key table for the footer and help) and
//! `widgets`; never another folder of the UI. Panes are private to the UI: the views compose
//! them.

pub(super) mod changes;
pub(super) mod chrome;
pub(super) mod detail;
pub(super) mod finder;
pub(super) mod graph;
pub(super) mod help;
pub(super) mod history;
pub(super) mod legend;
pub(super) mod policy;
pub(super) mod versions;
