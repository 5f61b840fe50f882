//! `check --prove`: the changes from the base proved by round trips in every format, and a
//! safe claim a sample contradicts fails the check even where the policy allowed the change.

use crate::common::{Repo, proto, run};
use serde_json::Value;

#[test]
fn check_prove_prints_cells_and_without_it_nothing_changes() {
    let mut r = Repo::new();
    r.write("t.proto", &proto("t", "message M {\n  int32 a = 1;\n}"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "t.proto",
        &proto("t", "message M {\n  int32 a = 1;\n  int32 b = 2;\n}"),
    );
    let (code, plain, err) = run(&["check"], r.path());
    assert_eq!(code, 0, "{plain}{err}");
    assert!(!plain.contains("Round trips"), "{plain}");
    let (code, out, err) = run(&["check", "--prove"], r.path());
    assert_eq!(code, 0, "{out}{err}");
    // The report is the same, the round trips follow it.
    assert!(out.starts_with(&plain), "{out}");
    assert!(out.contains("Round trips"), "{out}");
    assert!(out.contains("  FIELD_ADDED t.M.b"), "{out}");
    assert!(
        out.contains("wire backward  rule safe      observed safe"),
        "{out}"
    );
    assert!(!out.contains("wrote "), "{out}");
    let (code, out, err) = run(&["check", "--prove=samples"], r.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("wrote ") && out.contains(" -> read "), "{out}");
    // JSON: `proofs` as diff writes them, only when asked for.
    let (_, out, _) = run(&["check", "--format", "json"], r.path());
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v.get("proofs").is_none(), "{out}");
    let (code, out, _) = run(&["check", "--prove", "--format", "json"], r.path());
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let (_, diff, _) = run(
        &["diff", "v1.0.0", "WORKTREE", "--prove", "--format", "json"],
        r.path(),
    );
    let d: Value = serde_json::from_str(&diff).unwrap();
    assert_eq!(v["proofs"], d["proofs"], "{out}\n{diff}");
    assert_eq!(v["proofs"][0]["wire"]["backward"]["contradiction"], false);
}

/// A proto2 required field added beside an optional one: every sample of the message the
/// old version writes fails the new parse, which contradicts FIELD_ADDED's safe backward
/// cells (docs/prove.md, Limits) — a safe claim contradicted in a real repository.
fn repo_with_a_contradicted_safe_claim() -> Repo {
    let mut r = Repo::new();
    let p2 = |body: &str| format!("syntax = \"proto2\";\npackage t;\n\n{body}\n");
    r.write("m.proto", &p2("message M {\n  optional int32 a = 1;\n}"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "m.proto",
        &p2("message M {\n  optional int32 a = 1;\n  optional int32 b = 2;\n  required int32 c = 3;\n}"),
    );
    r
}

#[test]
fn a_contradicted_safe_claim_fails_check_in_every_format() {
    let r = repo_with_a_contradicted_safe_claim();
    let allow = ["check", "--policy", "ALLOW_ANY"];
    let (code, out, err) = run(&allow, r.path());
    assert_eq!(code, 0, "allowed without --prove: {out}{err}");
    let with = |more: &[&str]| {
        let args: Vec<&str> = allow
            .iter()
            .chain(["--prove"].iter())
            .chain(more)
            .copied()
            .collect();
        run(&args, r.path())
    };
    let (code, out, err) = with(&[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("error[PROVE_CONTRADICTED]: FIELD_ADDED calls the wire backward cell of t.M.b safe, but a round trip shows it breaking: sample "), "{out}");
    assert!(out.contains("  --> m.proto:"), "{out}");
    assert!(
        out.contains(
            "= why: round trips against v1.0.0: wire backward: rule safe, observed breaking"
        ),
        "{out}"
    );
    assert!(out.contains("FAIL: 1 error"), "{out}");
    assert!(out.contains("CONTRADICTION"), "{out}");
    // GitHub: an error annotation naming the element and the sample.
    let (code, out, _) = with(&["--format", "github"]);
    assert_eq!(code, 1, "{out}");
    let line = out
        .lines()
        .find(|l| l.contains("title=PROVE_CONTRADICTED"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.starts_with("::error file=m.proto,line="), "{line}");
    assert!(line.contains("t.M.b") && line.contains("sample "), "{line}");
    // JUnit: a failing test case.
    let (code, out, _) = with(&["--format", "junit"]);
    assert_eq!(code, 1, "{out}");
    let case = out
        .split("<testcase ")
        .find(|c| c.starts_with("name=\"PROVE_CONTRADICTED t.M.b\""))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        case.contains("<failure type=\"PROVE_CONTRADICTED\""),
        "{case}"
    );
    // JSON: the finding, and the contradiction on the cell.
    let (code, out, _) = with(&["--format", "json"]);
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["pass"], false);
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "PROVE_CONTRADICTED" && f["element"] == "t.M.b")
    );
    let added = v["proofs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["element"] == "t.M.b")
        .unwrap();
    assert_eq!(added["wire"]["backward"]["contradiction"], true);
}

/// A transitive policy's older releases are proved too: a contradiction the subject makes
/// only against an older release fails; one the base already made there warns.
#[test]
fn the_older_releases_of_a_transitive_policy_are_proved() {
    let p2 = |body: &str| format!("syntax = \"proto2\";\npackage t;\n\n{body}\n");
    let mut r = Repo::new();
    r.write("m.proto", &p2("message M {\n  optional int32 a = 1;\n}"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "m.proto",
        &p2("message M {\n  optional int32 a = 1;\n  required int32 c = 3;\n}"),
    );
    r.commit("two");
    r.tag("v1.1.0");
    // Against v1.1.0 `b` is an added optional field, nothing to contradict; against
    // v1.0.0, every sample v1.0.0 writes lacks `c`.
    r.write(
        "m.proto",
        &p2("message M {\n  optional int32 a = 1;\n  optional int32 b = 2;\n  required int32 c = 3;\n}"),
    );
    let args = [
        "check",
        "--policy",
        "ALLOW_ANY",
        "--prove",
        "--format",
        "json",
    ];
    let (code, out, err) = run(&args, r.path());
    assert_eq!(code, 0, "ALLOW_ANY checks no older release: {out}{err}");
    let args = [
        "check",
        "--policy",
        "BACKWARD_TRANSITIVE",
        "--prove",
        "--format",
        "json",
    ];
    let (code, out, err) = run(&args, r.path());
    assert_eq!(code, 1, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "PROVE_CONTRADICTED")
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(f["element"], "t.M.b", "{f}");
    assert_eq!(f["severity"], "error", "{f}");
    assert!(f["why"].as_str().unwrap().contains("against v1.0.0"), "{f}");
    // `proofs` are the base's pair, where nothing is contradicted.
    assert!(
        v["proofs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["wire"]["backward"]["contradiction"] != true),
        "{out}"
    );
}
