//! Hostile working trees (issue 13): committed config files that are links to devices or out
//! of the repository, or FIFOs, are refused, never read — every command finishes, and says why.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{Repo, bin, proto};

/// Runs the binary with a deadline: a hang fails the test instead of the suite.
fn run_within(args: &[&str], cwd: &std::path::Path, limit: Duration) -> (i32, String) {
    let mut child = Command::new(bin())
        .env("PROTOLAPSE_CACHE_DIR", crate::common::cache_dir())
        .args(args)
        .current_dir(cwd)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run protolapse");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut err = String::new();
            use std::io::Read;
            if let Some(mut e) = child.stderr.take() {
                e.read_to_string(&mut err).ok();
            }
            return (status.code().unwrap_or(-1), err);
        }
        if started.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            panic!("protolapse {args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn repo() -> Repo {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", "message A { int32 x = 1; }"));
    r.commit("one");
    r.tag("v1.0.0");
    r
}

#[cfg(unix)]
#[test]
fn a_config_linked_to_a_device_is_refused_not_read() {
    let r = repo();
    std::os::unix::fs::symlink("/dev/zero", r.path().join("protolapse.toml")).unwrap();
    let (code, err) = run_within(&["log"], r.path(), Duration::from_secs(20));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("protolapse.toml") && err.contains("not read"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn a_config_that_is_a_fifo_does_not_block() {
    let r = repo();
    let fifo = r.path().join("protolapse.toml");
    if !Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        return; // no mkfifo on this machine
    }
    let (code, err) = run_within(&["log"], r.path(), Duration::from_secs(20));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a regular file"), "{err}");
}

#[cfg(unix)]
#[test]
fn buf_files_of_the_working_tree_linked_to_devices_are_skipped() {
    let r = repo();
    for f in ["buf.yaml", "buf.work.yaml", "buf.lock", "Proto.toml"] {
        std::os::unix::fs::symlink("/dev/zero", r.path().join(f)).unwrap();
    }
    r.write("b.proto", &proto("p", "message B { int32 y = 1; }"));
    let (code, err) = run_within(&["log"], r.path(), Duration::from_secs(20));
    assert_eq!(code, 0, "{err}");
}

/// Repository text in an error message stays on its line: a committed config key with a
/// newline cannot start a `::warning::` workflow command of its own in a CI log.
#[test]
fn repository_text_in_an_error_cannot_start_a_line() {
    let r = repo();
    r.write(
        "protolapse.toml",
        "\"x\\n::warning::pwned\\u001b[2J\" = 1\n",
    );
    let (code, err) = run_within(&["check"], r.path(), Duration::from_secs(20));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("x\\n::warning::pwned"), "{err}");
    for line in err.lines() {
        assert!(
            line.starts_with("error: ") || line.starts_with("  help: "),
            "a line of its own: {line:?} in {err:?}"
        );
    }
    assert!(!err.contains('\u{1b}'), "{err:?}");
}
