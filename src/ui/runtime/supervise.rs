//! The terminal is restored even when the UI's process dies without unwinding: a stack
//! overflow (in any thread) or `abort` ends a process at once, with no destructor, hook or
//! signal handler of ours left to run. So the UI runs in a child process and this one waits:
//! it puts the terminal in raw mode first (remembering the mode the user had), the child
//! takes it from there, and whatever way the child ends, this process puts back the mode it
//! remembered, leaves the alternate screen, stops mouse reporting and shows the cursor.

use std::io;
use std::process::Command;

use ratatui::crossterm::event::DisableMouseCapture;
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};

/// Set in the child's environment: the child runs the UI itself.
const CHILD: &str = "PROTOLAPSE_UI_CHILD";

/// In the child: `None`, run the UI here. Otherwise runs this same command line as the
/// child, waits for it, restores the terminal, and returns the exit status to exit with
/// (the child printed its own errors).
pub fn in_child() -> io::Result<Option<i32>> {
    if std::env::var_os(CHILD).is_some() {
        return Ok(None);
    }
    let exe = std::env::current_exe()?;
    // Raw mode here first: crossterm remembers the mode it replaced, and that is the mode the
    // user had, whatever the child leaves behind.
    enable_raw_mode()?;
    let status = Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(CHILD, "1")
        .status();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
    let status = status?;
    if let Some(code) = status.code() {
        return Ok(Some(code));
    }
    eprintln!(
        "error: the terminal UI stopped abnormally ({}); the terminal was restored\n  help: please report it; the headless commands (protolapse log, check, diff) show the same history",
        signal_name(&status)
    );
    Ok(Some(2))
}

#[cfg(unix)]
fn signal_name(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(6) => "aborted: a stack overflow or an internal error".into(),
        Some(9) => "killed".into(),
        Some(11) => "segmentation fault".into(),
        Some(s) => format!("signal {s}"),
        None => status.to_string(),
    }
}

#[cfg(not(unix))]
fn signal_name(status: &std::process::ExitStatus) -> String {
    status.to_string()
}
