//! The app: its state ([`App`]), what can happen to it ([`action`]), and how it answers, one
//! concept a file: what a command, a finder pick or a mouse event does, what slow work to ask
//! for, how cursors keep inside their panes; the key table; the graph tree's state.
//! No thread and no terminal here.
//!
//! May import `widgets` (the theme, the frame) and the [`crate::ui::views::View`] enum it holds;
//! never a pane, and a view only through the enum's methods.

pub mod action;
mod command;
pub mod key;
pub mod keys;
mod request;
pub mod state;
pub mod tree;

pub use action::{Action, Command, Mouse};
pub use state::{App, FindMode, Overlay, Pane, Phase};
