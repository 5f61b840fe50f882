//! End to end: the real binary in a real terminal (tmux, on its own server socket). Open the
//! demo, pick a root with the finder, move through versions, open the changes view, quit,
//! and check the screen at each step and the terminal afterwards.

use std::process::Command;
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn new() -> Tmux {
        let socket = format!("protolapse-e2e-{}", std::process::id());
        Tmux { socket }
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs (it is part of the CI machine)");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.run(&["send-keys", "-t", "e2e", k]);
        }
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "e2e"])
    }

    /// Waits until the screen satisfies `ok`; fails with the last screen after 20 s.
    fn wait(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            if start.elapsed() > Duration::from_secs(20) {
                panic!("timed out waiting for {what}; the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        // Our own server only (its own socket).
        let _ = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

#[test]
fn demo_in_a_real_terminal() {
    let bin = env!("CARGO_BIN_EXE_protolapse");
    let t = Tmux::new();
    // The shell line prints the exit status after the UI quits, and keeps the pane open.
    let cmd = format!("TERM=xterm-256color {bin} --demo; echo \"exited with $?\"; sleep 30");
    t.run(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "e2e",
        "-x",
        "120",
        "-y",
        "40",
        &cmd,
    ]);
    // The root finder opens by itself, over every message and service.
    let s = t.wait("the root finder", |s| {
        s.contains("Pick the root") && s.contains("physics.v1.FlightPath")
    });
    assert!(s.contains("protolapse"), "{s}");
    t.keys(&["-l", "flightpath"]);
    // The results of this query (not of an earlier one, while the index still grows).
    let s = t.wait("the finder's match", |s| {
        s.lines()
            .find(|l| l.contains("message") && l.contains("FlightPath"))
            .is_some()
            && s.contains("› flightpath")
            && !s.contains("searching…")
            && s.contains(" match")
    });
    assert!(!s.contains("WeatherService"), "the query filters:\n{s}");
    t.keys(&["Enter"]);
    let s = t.wait("the graph of FlightPath", |s| {
        s.contains("root FlightPath") && s.contains("waypoints") && !s.contains("Pick the root")
    });
    // The newest version, against the one before.
    assert!(s.contains("v3.0.1 → v4.0.0"), "{s}");
    // To the versions pane, then up: each version against its previous relevant one. The
    // broken v1.2.0 is skipped: v2.0.0 compares with v1.1.1.
    t.keys(&["BTab", "k", "k", "k", "k", "k"]);
    let s = t.wait("v1.1.1 → v2.0.0", |s| s.contains("v1.1.1 → v2.0.0"));
    assert!(s.contains("Versions"), "{s}");
    t.keys(&["k"]);
    let s = t.wait("v1.1.1 → v1.2.0", |s| s.contains("v1.1.1 → v1.2.0"));
    assert!(s.contains("Versions"), "{s}");
    t.keys(&["k"]);
    t.wait("v1.1.0 → v1.1.1", |s| s.contains("v1.1.0 → v1.1.1"));
    // The changes view of that pair, worst first.
    t.keys(&["2"]);
    let s = t.wait("the changes view", |s| {
        s.contains("VERDICT") && s.contains("FIELD_RESERVED_NUMBER_REUSED")
    });
    let first_change = s
        .lines()
        .find(|l| l.contains("breaking") && l.contains("FIELD_") || l.contains("RESERVED"))
        .unwrap_or_default()
        .to_string();
    assert!(!first_change.is_empty(), "{s}");
    // Help, then quit: the terminal comes back (the shell prints the exit status).
    t.keys(&["?"]);
    t.wait("the help", |s| s.contains("Keys · Esc closes"));
    // Escape and q sent at once would read as Alt-q: let the help close first.
    t.keys(&["Escape"]);
    t.wait("the help to close", |s| !s.contains("Keys · Esc closes"));
    t.keys(&["q"]);
    let s = t.wait("the exit", |s| s.contains("exited with 0"));
    assert!(
        !s.contains("Pick the root") && !s.contains("VERDICT"),
        "{s}"
    );
}

#[test]
fn without_a_terminal_the_ui_says_so_and_points_at_the_headless_commands() {
    let bin = env!("CARGO_BIN_EXE_protolapse");
    let out = Command::new(bin)
        .arg("--demo")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("needs a terminal") && err.contains("protolapse log"),
        "{err}"
    );
    // A path that is not a repository fails before the terminal is taken over.
    let out = Command::new(bin).arg("/nonexistent/path").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a git repository"));
}
