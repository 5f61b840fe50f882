//! The app: its state ([`App`]), what can happen to it ([`action`]), and how it answers, one
//! concept a file: what a command, a finder pick or a mouse event does, which slow work to
//! ask for, how cursors keep inside their panes; where the user is ([`focus`]); the key table
//! ([`keys`]); the graph tree's state ([`tree`]). No thread and no terminal here.
//!
//! May import `widgets`, the [`crate::ui::views::View`] enum the state holds (and the view's
//! answers through its methods), and a pane's geometry (the rows it keeps for itself) so
//! that cursors and clicks agree with what is drawn.

pub mod action;
mod command;
mod ensure;
mod find;
mod fit;
pub mod focus;
pub mod key;
pub mod keys;
mod mouse;
mod proofs;
mod request;
pub mod state;
pub mod tree;

pub use action::{Action, Command, MatrixProgress, Mouse};
pub use focus::{DetailNav, FindMode, Finder, ListNav, MatrixNav, Overlay, Pane};
pub use proofs::ProofState;
pub use request::{CompareKey, ProveKey, Request};
pub use state::{App, Phase};
