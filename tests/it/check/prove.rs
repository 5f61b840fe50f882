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

/// A proto2 required field added beside an optional one: every message the old version
/// writes fails the new parse — on the required field's own change (FIELD_ADDED of `c`,
/// breaking), not on the optional field's. The samples of `b` say so and are not counted
/// against `b`'s safe claim (they were, and `check --prove` failed on `b`).
fn repo_with_a_required_field_beside() -> Repo {
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

/// Whether `check --format json` reported a contradicted safe claim.
fn contradicted(v: &Value) -> bool {
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .any(|f| f["rule"] == "PROVE_CONTRADICTED")
}

#[test]
fn a_required_field_beside_is_its_own_change_not_the_others() {
    let r = repo_with_a_required_field_beside();
    let args = [
        "check",
        "--policy",
        "ALLOW_ANY",
        "--prove",
        "--format",
        "json",
    ];
    let (code, out, err) = run(&args, r.path());
    assert_eq!(code, 0, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(!contradicted(&v), "{out}");
    let proof = |element: &str| {
        v["proofs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["element"] == element)
            .unwrap_or_else(|| panic!("no proof of {element}: {out}"))
            .clone()
    };
    let b = proof("t.M.b");
    let cell = &b["wire"]["backward"];
    assert_ne!(cell["contradiction"], true, "{b}");
    assert!(
        cell["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s.as_str().unwrap().contains("the reader requires `c`")),
        "{b}"
    );
    // The required field's own addition: every old message fails the new parse.
    let c = proof("t.M.c");
    assert_eq!(c["wire"]["backward"]["observed"], "breaking", "{c}");
}

/// A transitive policy's older releases are proved too; a field the base made required
/// is not the subject's optional field's doing against the older release either.
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
    r.write(
        "m.proto",
        &p2("message M {\n  optional int32 a = 1;\n  optional int32 b = 2;\n  required int32 c = 3;\n}"),
    );
    let args = [
        "check",
        "--policy",
        "BACKWARD_TRANSITIVE",
        "--prove",
        "--format",
        "json",
    ];
    let (_, out, err) = run(&args, r.path());
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    assert!(!contradicted(&v), "{out}");
    // `proofs` are the base's pair.
    assert!(
        v["proofs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["element"] == "t.M.b"),
        "{out}"
    );
}
