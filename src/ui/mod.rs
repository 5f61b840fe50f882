//! The terminal UI: app state, actions, the event loop, background workers, and one file per
//! screen area. The only module that uses `ratatui` and `crossterm`.
//!
//! - [`app`]: the state and [`App::update`]; [`nav`]: what each command does.
//! - [`keys`]: every key in one table (drives input, the footer and the `?` help).
//! - [`worker`], [`loader`]: background threads that send small notifications.
//! - [`screen`] draws the whole screen from the panes: [`versions`], [`graph`], [`detail`],
//!   [`changes`], [`history`], [`policy`], [`finder`], [`help`], [`chrome`] (top bar and
//!   footer). Each is an `impl Widget for &T` that draws a snapshot of the state: no I/O,
//!   no computation beyond layout.
//!
//! May import every layer below (through `explore`, `load`, `rules`, `schema`); never
//! `git2`: the loader goes through `history` and `load`, which hand over plain data.

pub mod action;
pub mod app;
pub mod bench;
mod changes;
mod chrome;
mod detail;
mod finder;
mod graph;
mod help;
mod history;
pub mod keys;
pub mod layout;
pub mod loader;
mod nav;
mod policy;
pub mod runtime;
mod screen;
mod sync;
mod terminal;
mod text;
pub mod theme;
pub mod tree;
mod versions;
pub mod worker;

pub use action::{Action, Command, View};
pub use app::App;
pub use loader::{LoadOptions, Source};
pub use runtime::run;
