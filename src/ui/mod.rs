//! The terminal UI. The only module that uses `ratatui` and `crossterm`. Its parts, each a
//! folder whose `mod.rs` says what it holds and what it may import:
//!
//! - [`widgets`]: text fitting, the theme, the frame of the screen (no UI state).
//! - [`app`]: the state, [`App::update`], what each command and click does, the key table, the
//!   requests for slow work. No thread and no terminal.
//! - [`panes`]: one `impl Widget` per screen area (versions, type graph, detail, changes,
//!   history and policy matrices, finder, help, top bar and footer), drawing a snapshot of
//!   the state: no I/O, no computation beyond layout.
//! - [`views`]: the [`View`]s of the `1`–`4` keys, one module each, behind one enum
//!   dispatched with a plain `match`; and the whole screen.
//! - [`runtime`]: the event loop, the terminal, the background workers and the loader, and
//!   the UI's benchmark.
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
