//! Hostile shapes for the type graph (issue 13): a long chain of message references is
//! printed in every `graph` format without recursion per level and with bounded output, and
//! the explorer's tree of the same chain is built, propagates a change from the bottom to the
//! root, and is laid out no deeper than its limit.

use std::collections::HashSet;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use protolapse::explore::compare::{Comparison, Layout, MAX_DEPTH, Path};
use protolapse::history::HistoryOptions;
use protolapse::judge::Ignores;
use protolapse::load;
use protolapse::rules::Severity;

use crate::common::{Repo, bin, proto};

/// Deep enough that a recursive printer overflows the stack in a debug build, and that an
/// indentation growing per level prints ~64 MB.
const CHAIN: usize = 8_000;

/// `M0 -> M1 -> ... -> M{n}`; the last message's field changes type in `v2.0.0`.
fn chain(n: usize) -> Repo {
    let body = |ty: &str| {
        let mut s: String = (0..n)
            .map(|i| format!("message M{i} {{ M{} next = 1; }}\n", i + 1))
            .collect();
        s.push_str(&format!("message M{n} {{ {ty} x = 1; }}\n"));
        s
    };
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", &body("int32")));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("a.proto", &proto("p", &body("string")));
    r.commit("two");
    r.tag("v2.0.0");
    r
}

/// Runs the binary with a deadline; returns (exit code, stdout length, stdout head, stderr).
fn run_within(args: &[&str], cwd: &std::path::Path, limit: Duration) -> (i32, String, String) {
    let mut cmd = Command::new(bin());
    cmd.env("PROTOLAPSE_CACHE_DIR", crate::common::cache_dir());
    cmd.args(args).current_dir(cwd);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(cmd.output());
    });
    let out = rx
        .recv_timeout(limit)
        .unwrap_or_else(|_| panic!("protolapse {args:?} did not finish within {limit:?}"))
        .expect("run protolapse");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_long_reference_chain_prints_in_every_graph_format_with_bounded_output() {
    let r = chain(CHAIN);
    for format in ["text", "dot", "mermaid", "json"] {
        let (code, out, err) = run_within(
            &[
                "graph", "--at", "v2.0.0", "--root", "p.M0", "--format", format,
            ],
            r.path(),
            Duration::from_secs(120),
        );
        assert_eq!(code, 0, "{format}: {err}");
        // Linear in the number of types: ~230 bytes a type in pretty JSON (the text tree's
        // indentation grew per level: ~64 MB here).
        assert!(
            out.len() < 400 * CHAIN,
            "{format}: {} bytes for {CHAIN} types",
            out.len()
        );
        let last = format!("p.M{CHAIN}");
        assert!(out.contains(&last), "{format}: the chain's end is missing");
        if format == "text" {
            // Past the indentation limit, a line says its depth.
            assert!(
                out.contains(&format!("[depth {CHAIN}] 1 next: {last}")),
                "{}",
                &out[out.len().saturating_sub(300)..]
            );
        }
    }
}

#[test]
fn the_explorers_tree_of_a_long_chain_is_built_and_laid_out_to_its_depth_limit() {
    let r = chain(CHAIN);
    let project = load::load(r.path(), &HistoryOptions::default(), |_, _| {}).unwrap();
    let [old, new] = [0, 1].map(|i| project.versions[i].clone());
    let c = Comparison::build(Some(old), new, "p.M0", &Ignores::default());
    // The change at the bottom reaches the root through every level.
    assert_eq!(c.root_node().below, Some(Severity::Breaking));
    let all: HashSet<Path> = c.expand_all(&[], false, usize::MAX).into_iter().collect();
    assert!(all.iter().all(|p| p.len() < MAX_DEPTH), "{}", all.len());
    let rows = c.rows(&all, Layout::default());
    assert_eq!(rows.iter().map(|r| r.depth).max(), Some(MAX_DEPTH));
    let deepest = rows.iter().find(|r| r.depth == MAX_DEPTH).unwrap();
    assert!(deepest.cut && !deepest.expanded, "{deepest:?}");
    // A type within the limit is found; one below it is not (it cannot be shown).
    assert!(c.path_to("p.M10").is_some());
    assert!(c.path_to(&format!("p.M{CHAIN}")).is_none());
}
