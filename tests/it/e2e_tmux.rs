//! End to end: the real binary in a real terminal (tmux, on its own server socket). Open the
//! demo, pick a root with the finder, move through versions, open every view (changes,
//! history and policy, sideways to their last column), the help, quit, and check the screen
//! at each step and the terminal afterwards.

use std::process::Command;
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn new() -> Tmux {
        Tmux::named("demo")
    }

    /// Each test its own server: tests run in parallel in one process.
    fn named(test: &str) -> Tmux {
        let socket = format!("protolapse-e2e-{test}-{}", std::process::id());
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

    /// Waits until the screen satisfies `ok` and is settled (the same on two captures in a
    /// row: a capture can land in the middle of a redraw on a busy machine); fails with the
    /// last screen after 20 s.
    fn wait(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ok(&s) {
                std::thread::sleep(Duration::from_millis(100));
                if self.screen() == s {
                    return s;
                }
                continue;
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
    let cache = crate::common::cache_dir();
    let cache = cache.display();
    let cmd = format!(
        "TERM=xterm-256color PROTOLAPSE_CACHE_DIR={cache} {bin} --demo; echo \"exited with $?\"; sleep 30"
    );
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
    // The demo opens on the graph of the root it names, on the version it names, against
    // its previous relevant version (the broken v1.2.0 is skipped: v2.0.0 against v1.1.1).
    let s = t.wait("the graph of FlightPath", |s| {
        s.contains("root FlightPath")
            && s.contains("waypoints")
            && s.contains("breaking")
            && !s.contains("compiling")
    });
    assert!(
        s.contains("protolapse") && !s.contains("Pick the root"),
        "{s}"
    );
    assert!(s.contains("v1.1.1 → v2.0.0"), "{s}");
    // The root finder, over every message and service.
    t.keys(&["r"]);
    t.wait("the root finder", |s| {
        s.contains("Pick the root") && s.contains("physics.v1.FlightPath")
    });
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
    assert!(s.contains("v1.1.1 → v2.0.0"), "{s}");
    // The pick leaves the focus in the graph: `h` on its root goes back to the versions, then
    // up, each version against its previous relevant one.
    t.keys(&["g", "h", "k"]);
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
    // The history view: the fields × the versions, `$` to the last version.
    t.keys(&["3"]);
    t.wait("the history view", |s| {
        s.contains("History · physics.v1.FlightPath × versions")
    });
    t.keys(&["$"]);
    t.wait("the last version in the history view", |s| {
        s.contains("v4.0.0") && s.contains("◂ 1 more · versions 2–15 of 15")
    });
    // The policy view: every check, `$` to the last one, `0` back to the first.
    t.keys(&["4"]);
    t.wait("the policy view", |s| {
        s.contains("Policy · versions × checks") && s.contains("SEMVER")
    });
    t.keys(&["$"]);
    t.wait("the last policy column", |s| s.contains("FULL_TR ="));
    t.keys(&["0"]);
    t.wait("the first policy column", |s| s.contains("SEMVER: BUMP"));
    t.keys(&["1"]);
    t.wait("back to the graph", |s| {
        s.contains("Detail") && s.contains("waypoints")
    });
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
        .env("PROTOLAPSE_CACHE_DIR", crate::common::cache_dir())
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
    // A path that is not a repository, or no path at all, fails before the terminal is
    // taken over, and says which.
    let out = Command::new(bin).arg("/nonexistent/path").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/path does not exist"));
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(bin).arg(empty.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a git repository"));
}

/// The children of a process (Linux).
fn children(pid: &str) -> Vec<String> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// A process that dies without unwinding (a stack overflow aborts; here, SIGABRT and SIGKILL
/// sent to the UI's process) runs no destructor and no hook: the terminal is restored all
/// the same — the cooked mode, the main screen, the cursor, no mouse reporting.
#[cfg(target_os = "linux")]
#[test]
fn the_terminal_is_restored_when_the_ui_dies_without_unwinding() {
    for signal in ["ABRT", "KILL"] {
        let bin = env!("CARGO_BIN_EXE_protolapse");
        let t = Tmux::named(&format!("abort-{signal}"));
        let cmd = format!(
            "TERM=xterm-256color PROTOLAPSE_CACHE_DIR={} {bin} --demo; echo \"exited with $?\"; stty -a | tr ' ' '\\n' | grep -x -- '-\\?icanon'; sleep 30",
            crate::common::cache_dir().display()
        );
        t.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "e2e",
            "-x",
            "100",
            "-y",
            "30",
            &cmd,
        ]);
        t.wait("the UI", |s| s.contains("root FlightPath"));
        let state = || {
            t.run(&[
                "display",
                "-p",
                "-t",
                "e2e",
                "#{alternate_on} #{cursor_flag} #{mouse_any_flag}",
            ])
        };
        assert_eq!(
            state().trim(),
            "1 0 1",
            "the UI is in the alternate screen, cursor hidden, mouse on"
        );
        let shell = t.run(&["display", "-p", "-t", "e2e", "#{pane_pid}"]);
        let parent = children(shell.trim());
        let ui = parent.first().map(|p| children(p)).unwrap_or_default();
        assert_eq!(
            ui.len(),
            1,
            "the UI runs in a child process: {parent:?} {ui:?}"
        );
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &ui[0]])
            .status();
        assert!(killed.is_ok_and(|s| s.success()));
        let s = t.wait("the shell after the UI", |s| {
            s.contains("exited with") && s.lines().any(|l| l.trim().ends_with("icanon"))
        });
        assert!(s.contains("exited with 2"), "{s}");
        assert!(
            s.contains("stopped abnormally")
                && s.replace('\n', "").contains("terminal was restored"),
            "{s}"
        );
        // Cooked mode: `icanon` (not `-icanon`) in stty's report.
        assert!(s.lines().any(|l| l.trim() == "icanon"), "{s}");
        assert_eq!(
            state().trim(),
            "0 1 0",
            "main screen, cursor shown, mouse off"
        );
    }
}
