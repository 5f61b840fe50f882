//! The terminal UI. The only module that uses `ratatui` and `crossterm`. Its parts, each a
//! folder whose `mod.rs` says what it holds and what it may import; arrows point down:
//!
//! - `runtime/`: the event loop (`event_loop.rs`), the terminal, the background workers and
//!   the loader, and the UI's benchmark. Feeds actions to [`App::update`] and draws the app.
//! - `views/`: the [`View`]s of the `1`–`4` keys, one module each (`graph.rs`, `changes.rs`,
//!   `history.rs`, `policy.rs`) behind one enum asked with a plain `match` (`dispatch.rs`);
//!   and the whole screen (`screen.rs`).
//! - `panes/`: one `impl Widget` per screen area (versions, type graph, detail, changes,
//!   history and policy matrices, finder, help, top bar and footer) drawing a snapshot of
//!   the state: no I/O, no computation beyond layout.
//! - `app/`: the state (`state.rs`, `focus.rs`), what can happen (`action.rs`) and how the
//!   app answers (`command.rs`, `find.rs`, `mouse.rs`, `ensure.rs`, `fit.rs`), the slow work
//!   it asks for (`request.rs`), the key table (`keys.rs`, `key.rs`), the graph tree
//!   (`tree.rs`). No thread and no terminal.
//! - `widgets/`: text fitting, the theme, the frame of the screen (no UI state).
//!
//! May import every layer below (through `explore`, `load`, `rules`, `schema`); never
//! `git2`: the loader goes through `history` and `load`, which hand over plain data.

pub mod app;
mod panes;
pub mod runtime;
pub mod views;
pub mod widgets;

pub use app::action::{Action, Command, Mouse};
pub use app::state::App;
pub use runtime::event_loop::run;
pub use runtime::loader::{LoadOptions, Source};
pub use views::View;
