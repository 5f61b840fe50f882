//! What runs the app: the event loop ([`run`]), the terminal set-up and its restoring, the
//! background workers (the newest request replaces a waiting one; a worker sends a small
//! result back as an action), the loader that reads and compiles the history, and the UI's
//! benchmark, and the parent process that restores the terminal however the UI ends.
//!
//! May import `app` (it feeds actions to [`crate::ui::App::update`] and runs its requests)
//! and `widgets`; draws only through `impl Widget for &App`.

pub mod bench;
pub mod event_loop;
pub mod loader;
pub mod supervise;
mod terminal;
pub mod worker;

pub use event_loop::{Options, run};
pub use terminal::width as terminal_width;
