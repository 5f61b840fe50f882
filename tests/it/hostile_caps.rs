//! The caps on a file, a version and a history (issue 13, `protolapse::limits`): a version
//! over a cap is shown as not compiled, with a one-line reason naming the cap and how to raise
//! it, and the other versions are still judged. The caps are lowered through their
//! environment variables so that the repositories stay small.

use std::process::Command;

use crate::common::{Repo, bin, proto};

/// `log --format json` with `vars` set: the versions, by name.
fn log(r: &Repo, vars: &[(&str, &str)]) -> Vec<serde_json::Value> {
    let out = Command::new(bin())
        .env("PROTOLAPSE_CACHE_DIR", crate::common::cache_dir())
        .args(["log", "--format", "json"])
        .current_dir(r.path())
        .envs(vars.iter().copied())
        .output()
        .expect("run protolapse");
    let text = String::from_utf8_lossy(&out.stdout);
    let json: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{e}: {text}\n{}", String::from_utf8_lossy(&out.stderr)));
    json["versions"].as_array().cloned().unwrap_or_default()
}

fn named<'a>(versions: &'a [serde_json::Value], name: &str) -> &'a serde_json::Value {
    versions
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {versions:?}"))
}

/// v1.0.0 small, v2.0.0 with a large file, v3.0.0 small again.
fn three_versions(large: &str) -> Repo {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", "message A { int32 x = 1; }"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("big.proto", large);
    r.commit("two");
    r.tag("v2.0.0");
    r.remove("big.proto");
    r.write(
        "a.proto",
        &proto("p", "message A { int32 x = 1; int32 y = 2; }"),
    );
    r.commit("three");
    r.tag("v3.0.0");
    r
}

fn large() -> String {
    let body: String = (0..200)
        .map(|i| format!("message M{i} {{ int32 a = 1; string b = 2; }}\n"))
        .collect();
    proto("q", &body)
}

/// The version's first diagnostic, as JSON text (a line break would show as `\\n`).
fn first_diagnostic(v: &serde_json::Value) -> String {
    v["diagnostics"][0].to_string()
}

#[test]
fn a_file_over_the_per_file_cap_is_reported_and_the_rest_is_judged() {
    let r = three_versions(&large());
    let versions = log(&r, &[("PROTOLAPSE_MAX_FILE_BYTES", "4096")]);
    let v2 = named(&versions, "v2.0.0");
    assert_ne!(v2["status"], "complete", "{v2}");
    let d = first_diagnostic(v2);
    assert!(
        d.contains("big.proto")
            && d.contains("per-file cap of 4096 bytes")
            && d.contains("PROTOLAPSE_MAX_FILE_BYTES")
            && !d.contains("\\n"),
        "{d}"
    );
    // The small file of v2 and the other versions still compile and are judged.
    assert_eq!(v2["status"], "partial", "{v2}");
    assert_eq!(named(&versions, "v1.0.0")["status"], "complete");
    let v3 = named(&versions, "v3.0.0");
    assert_eq!(v3["status"], "complete", "{v3}");
    assert!(v3["not_judged"].is_null(), "{v3}");
    // Without the lowered cap, the file is read.
    let versions = log(&r, &[]);
    assert_eq!(named(&versions, "v2.0.0")["status"], "complete");
}

#[test]
fn a_version_over_the_per_version_cap_is_not_compiled_and_the_rest_is_judged() {
    let r = three_versions(&large());
    let versions = log(&r, &[("PROTOLAPSE_MAX_VERSION_BYTES", "4096")]);
    let v2 = named(&versions, "v2.0.0");
    assert_eq!(v2["status"], "failed", "{v2}");
    let d = first_diagnostic(v2);
    assert!(
        d.contains("per-version cap of 4096 bytes")
            && d.contains("PROTOLAPSE_MAX_VERSION_BYTES")
            && !d.contains("\\n"),
        "{d}"
    );
    assert_eq!(named(&versions, "v1.0.0")["status"], "complete");
    let v3 = named(&versions, "v3.0.0");
    assert_eq!(v3["status"], "complete", "{v3}");
    // v3 is compared with v1, the last version that compiled: judged, not a pass on nothing.
    assert_eq!(v3["previous"], "v1.0.0", "{v3}");
    assert!(v3["not_judged"].is_null(), "{v3}");
}

#[test]
fn versions_past_the_history_cap_are_the_oldest_and_are_reported() {
    let mut r = Repo::new();
    let mut body = String::new();
    for k in 0..6 {
        body.push_str(&format!("message M{k} {{ int32 a = 1; }}\n"));
        r.write("a.proto", &proto("p", &body));
        r.commit(&format!("c{k}"));
        r.tag(&format!("v1.{k}.0"));
    }
    // Version k holds 2 + 2(k+1) statements (syntax, package, each message's `{` and `;`),
    // all of them new (the one file changes each time), then an eighth of them and two for
    // its file for the version's own maps: the three newest count 18 + 16 + 14 = 48, the
    // fourth 11 more.
    let versions = log(&r, &[("PROTOLAPSE_MAX_HISTORY_STATEMENTS", "48")]);
    for k in 3..6 {
        let v = named(&versions, &format!("v1.{k}.0"));
        assert_eq!(v["status"], "complete", "{v}");
    }
    for k in 0..3 {
        let v = named(&versions, &format!("v1.{k}.0"));
        assert_eq!(v["status"], "failed", "{v}");
        let d = first_diagnostic(v);
        assert!(
            d.contains("cap of 48 statements") && d.contains("PROTOLAPSE_MAX_HISTORY_STATEMENTS"),
            "{d}"
        );
    }
    let v4 = named(&versions, "v1.4.0");
    assert_eq!(v4["previous"], "v1.3.0", "{v4}");
    assert!(v4["not_judged"].is_null(), "{v4}");
}

/// `(blobs, bytes)` read from git, from the `PROTOLAPSE_DEBUG_LOAD` line of `log`.
fn read_from_git(r: &Repo, vars: &[(&str, &str)]) -> (usize, usize) {
    let out = Command::new(bin())
        .env("PROTOLAPSE_CACHE_DIR", crate::common::cache_dir())
        .env(protolapse::load::needs::DEBUG_VAR, "1")
        .args(["--no-cache", "log"])
        .current_dir(r.path())
        .envs(vars.iter().copied())
        .output()
        .expect("run protolapse");
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find_map(|l| l.split_once("; read "))
        .map(|(_, rest)| rest.to_string())
        .unwrap_or_else(|| panic!("no debug line in {err}"));
    // "N blobs (B bytes)"
    let numbers: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    match numbers.as_slice() {
        [blobs, bytes, ..] => (*blobs, *bytes),
        _ => panic!("cannot read {line}"),
    }
}

#[test]
fn a_blob_over_the_per_file_cap_is_never_read_into_memory() {
    let big = large();
    let r = three_versions(&big);
    let (blobs_capped, bytes_capped) = read_from_git(&r, &[("PROTOLAPSE_MAX_FILE_BYTES", "4096")]);
    let (blobs, bytes) = read_from_git(&r, &[]);
    // Its size comes from the object's header: the blob is not inflated, only the small ones.
    assert!(bytes >= big.len(), "{bytes}");
    assert!(bytes_capped < 4096, "{bytes_capped}");
    assert_eq!(blobs_capped + 1, blobs);
}

#[test]
fn a_working_tree_file_over_the_per_file_cap_is_reported_like_a_committed_one() {
    let r = three_versions(&large());
    r.write("big.proto", &large());
    let versions = log(&r, &[("PROTOLAPSE_MAX_FILE_BYTES", "4096")]);
    let wt = named(&versions, "WORKTREE");
    assert_eq!(wt["status"], "partial", "{wt}");
    let d = first_diagnostic(wt);
    assert!(
        d.contains("big.proto") && d.contains("per-file cap of 4096 bytes"),
        "{d}"
    );
}

/// The history cap counts what a history holds: a version that changes one small file of a
/// large set costs that file and its own maps, not the whole set again (a commit history of
/// one API in a monorepo), while a set that shares nothing costs all of its statements.
#[test]
fn the_history_cap_counts_a_large_unchanged_file_once() {
    let mut r = Repo::new();
    let mut big = String::new();
    for k in 0..40 {
        big.push_str(&format!("message Big{k} {{ int32 a = 1; }}\n"));
    }
    // 2 + 80 statements, unchanged from the first version on.
    r.write("big.proto", &proto("p", &big));
    for k in 0..6 {
        r.write(
            "small.proto",
            &proto("q", &format!("message S {{ int32 f{k} = 1; }}\n")),
        );
        r.commit(&format!("c{k}"));
        r.tag(&format!("v1.{k}.0"));
    }
    // Each version holds 86 statements: 516 over the six if each set counted them all.
    // Counted as held: big.proto once (82), each small.proto (4), an eighth of 86 (11) and
    // two per file (4) per version: 82 + 6 × 19 = 196.
    let versions = log(&r, &[("PROTOLAPSE_MAX_HISTORY_STATEMENTS", "196")]);
    for k in 0..6 {
        let v = named(&versions, &format!("v1.{k}.0"));
        assert_eq!(v["status"], "complete", "{v}");
    }
    // One less, and the oldest version is the one left out.
    let versions = log(&r, &[("PROTOLAPSE_MAX_HISTORY_STATEMENTS", "195")]);
    assert_eq!(named(&versions, "v1.0.0")["status"], "failed");
    assert_eq!(named(&versions, "v1.1.0")["status"], "complete");
}
