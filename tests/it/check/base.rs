//! Which release a change is checked against, and what counts against it: errors found past
//! the base, violations the base already had, a file that stops compiling, a release that left
//! a file out, a revision on a tag.

use crate::common::{Repo, proto, run};
use serde_json::Value;

/// Regressions found in review: each of these once let a breaking change through.
#[test]
fn transitive_errors_are_found_past_the_base() {
    let mut r = Repo::new();
    r.write(
        "t.proto",
        &proto("t", "message M {\n  string x = 1;\n  int32 y = 2;\n}"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    // x removed without reserving 1: a warning against v1.0.0.
    r.write("t.proto", &proto("t", "message M {\n  int32 y = 2;\n}"));
    r.commit("two");
    r.tag("v1.1.0");
    // Number 1 comes back as an int32: a plain addition against v1.1.0, a type change that
    // misreads v1.0.0's strings.
    r.write(
        "t.proto",
        &proto("t", "message M {\n  int32 x = 1;\n  int32 y = 2;\n}"),
    );
    let (code, out, _) = run(&["check"], r.path());
    assert_eq!(code, 0, "BACKWARD sees only v1.1.0: {out}");
    assert!(out.contains("warning[HAZARD_NUMBER_REUSED]"), "{out}");
    let (code, out, _) = run(&["check", "--policy", "BACKWARD_TRANSITIVE"], r.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[FIELD_TYPE_CHANGED]"), "{out}");
    assert!(
        out.contains("wire backward breaking against v1.0.0"),
        "{out}"
    );
}

#[test]
fn violations_the_base_already_had_are_warnings() {
    let mut r = Repo::new();
    r.write("t.proto", &proto("t", "message M {\n  string x = 1;\n}"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("t.proto", &proto("t", "message M {\n  int32 x = 1;\n}"));
    r.commit("two");
    r.tag("v2.0.0");
    // Nothing new since v2.0.0: the old break against v1.0.0 is not this change's doing, and
    // is summarized rather than listed.
    let (code, out, _) = run(&["check", "--policy", "BACKWARD_TRANSITIVE"], r.path());
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("warning[FIELD_TYPE_CHANGED]"), "{out}");
    assert!(
        out.contains("warning: 1 violation against older releases that v2.0.0 already had, not this change's doing: 1 FIELD_TYPE_CHANGED"),
        "{out}"
    );
    let (_, out, _) = run(
        &[
            "check",
            "--policy",
            "BACKWARD_TRANSITIVE",
            "--format",
            "json",
        ],
        r.path(),
    );
    let j: Value = serde_json::from_str(&out).unwrap();
    let f = &j["findings"][0];
    assert_eq!(f["preexisting"], true);
    assert_eq!(f["severity"], "warning");
    assert!(f["why"].as_str().unwrap().contains("already so in v2.0.0"));
    // GitHub annotations leave it out.
    let (_, out, _) = run(
        &[
            "check",
            "--policy",
            "BACKWARD_TRANSITIVE",
            "--format",
            "github",
        ],
        r.path(),
    );
    assert!(!out.contains("::warning"), "{out}");
}

#[test]
fn a_file_that_stops_compiling_fails_the_check() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("t", "message A {\n  int32 x = 1;\n}"));
    r.write(
        "b.proto",
        &proto("t", "message B {\n  int32 y = 1;\n  int32 z = 2;\n}"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    // b.proto breaks (and drops a field): its changes cannot be judged, so it must fail.
    r.write(
        "b.proto",
        "syntax = \"proto3\";\npackage t;\nmessage B {\n  int32 y = 1\n}\n",
    );
    let (code, out, _) = run(&["check"], r.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[COMPILE_ERROR]"), "{out}");
    assert!(out.contains("--> b.proto:5"), "{out}");
}

#[test]
fn a_release_that_left_a_file_out_is_not_the_base() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("t", "message A {\n  int32 x = 1;\n}"));
    r.write("b.proto", &proto("t", "message B {\n  string y = 1;\n}"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "b.proto",
        "syntax = \"proto3\";\npackage t;\nmessage B {\n  string y = 1\n}\n",
    );
    r.commit("broken");
    r.tag("v1.1.0");
    // The tree fixes b.proto and changes y's type: compared with v1.0.0, which had b.proto.
    r.write("b.proto", &proto("t", "message B {\n  int64 y = 1;\n}"));
    let (code, out, _) = run(&["check"], r.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("against v1.0.0"), "{out}");
    assert!(out.contains("error[FIELD_TYPE_CHANGED]"), "{out}");
}

#[test]
fn a_revision_on_a_tag_is_checked_as_that_release() {
    let tmp = std::env::temp_dir();
    // v1.1.1 is a tagged commit: checked against v1.1.0 as version 1.1.1, not against the
    // later v2.0.0.
    let (code, out, _) = run(&["check", "--demo", "--rev", "v1.1.1"], &tmp);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("Checking v1.1.1 as version 1.1.1 against v1.1.0"),
        "{out}"
    );
    assert!(out.contains("error[SEMVER_TOO_SMALL]"), "{out}");
}
