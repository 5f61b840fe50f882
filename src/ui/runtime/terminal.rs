//! Entering and leaving the terminal: raw mode, the alternate screen, mouse capture. The
//! terminal is restored when the guard drops (a normal quit or an error) and by a panic hook
//! (a panic), so the shell is never left in raw mode.

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// The width of the terminal standard output writes to, when it is one.
pub fn width() -> Option<usize> {
    use std::io::IsTerminal;
    if !io::stdout().is_terminal() {
        return None;
    }
    ratatui::crossterm::terminal::size()
        .ok()
        .map(|(w, _)| usize::from(w))
        .filter(|w| *w > 0)
}

static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Restores the terminal, once (later calls do nothing).
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = disable_raw_mode();
        let _ = execute!(
            io::stdout(),
            DisableMouseCapture,
            LeaveAlternateScreen,
            ratatui::crossterm::cursor::Show
        );
    }
}

/// Restores the terminal when dropped.
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Installs a panic hook that restores the terminal before the panic message is printed.
/// A panic in a worker thread (named `protolapse-…`) is caught there and shown in the UI,
/// so it neither restores the terminal under the running UI nor prints over it.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let worker = std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with("protolapse-"));
        if worker && ACTIVE.load(Ordering::SeqCst) {
            return;
        }
        restore();
        previous(info);
    }));
}

/// Enters the UI's terminal mode.
pub fn enter() -> io::Result<(Term, Guard)> {
    install_panic_hook();
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let guard = Guard;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    let mut term = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    term.hide_cursor()?;
    Ok((term, guard))
}
