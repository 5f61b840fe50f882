//! Nothing green that was not read: a version whose root, or whose files, did not compile is
//! *not judged* in `log` (text and JSON) and `check`, never ok or pass; and a bare repository
//! has no working tree to show or to check.

use crate::common::{Repo, proto, run};
use serde_json::Value;

/// `Root` (in a.proto) reaches `Leaf` (in b.proto). v1.1.0 breaks a.proto only (the root's
/// file: partial, 1 of 2); v1.2.0 breaks both (failed); v1.3.0 mends them and adds a field.
fn repo_with_a_broken_root() -> Repo {
    let mut r = Repo::new();
    let root = |body: &str| {
        format!(
            "syntax = \"proto3\";\npackage p;\nimport \"b.proto\";\n\nmessage Root {{\n{body}\n}}\n"
        )
    };
    let leaf = proto("p", "message Leaf {\n  string datum = 1;\n}");
    r.write("a.proto", &root("  Leaf leaf = 1;"));
    r.write("b.proto", &leaf);
    r.commit("one");
    r.tag("v1.0.0");
    // The root's file does not parse; b.proto still compiles.
    r.write("a.proto", &root("  Leaf leaf = 1 oops;"));
    r.commit("root broken");
    r.tag("v1.1.0");
    r.write(
        "b.proto",
        "syntax = \"proto3\";\npackage p;\nmessage Leaf { oops }\n",
    );
    r.commit("all broken");
    r.tag("v1.2.0");
    r.write("a.proto", &root("  Leaf leaf = 1;\n  int32 count = 2;"));
    r.write("b.proto", &leaf);
    r.commit("mended");
    r.tag("v1.3.0");
    r
}

fn row<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no row {name} in\n{out}"))
}

#[test]
fn log_marks_versions_whose_root_did_not_compile_as_not_judged() {
    let r = repo_with_a_broken_root();
    let args = ["log", "--root", "Root", "--policy", "BACKWARD"];
    let (code, out, err) = run(&args, r.path());
    assert_eq!(code, 0, "{err}");
    // The partial version: its root's file did not compile, so nothing of it was read.
    let partial = row(&out, "v1.1.0");
    assert!(partial.contains("partial 1/2"), "{partial}");
    // What it requires is unknown too: "-", not "none".
    assert!(partial.contains("minor  -  "), "{partial}");
    assert!(
        !partial.contains(" ok ") && !partial.contains("pass"),
        "{partial}"
    );
    assert_eq!(partial.matches("not judged").count(), 3, "{partial}");
    assert!(
        partial.contains("not judged: a.proto, the root's file, did not compile in v1.1.0"),
        "{partial}"
    );
    // The version that did not compile at all.
    let failed = row(&out, "v1.2.0");
    assert!(failed.contains("failed"), "{failed}");
    assert!(
        !failed.contains(" ok ") && !failed.contains("pass"),
        "{failed}"
    );
    assert!(failed.contains("not judged"), "{failed}");
    assert!(!failed.contains("none"), "nothing was compared: {failed}");
    // The mended version is compared with the last one that compiled its root, and judged.
    let mended = row(&out, "v1.3.0");
    assert!(
        mended.contains(" ok ") && mended.contains("pass"),
        "{mended}"
    );
    assert!(
        out.contains(
            "semver: 1 ok, 0 too small, 0 larger than needed, 2 not judged (v1.1.0, v1.2.0)"
        ),
        "{out}"
    );
    assert!(
        out.contains("2 pass, 0 fail, 2 not judged (v1.1.0, v1.2.0)"),
        "{out}"
    );

    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let (code, out, err) = run(&json_args, r.path());
    assert_eq!(code, 0, "{err}");
    let log: Value = serde_json::from_str(&out).unwrap();
    let by = |name: &str| {
        log["versions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap()
            .clone()
    };
    for name in ["v1.1.0", "v1.2.0"] {
        let v = by(name);
        assert_eq!(v["semver"], "not_judged", "{name}: {v}");
        assert!(v["not_judged"].is_string(), "{name}: {v}");
        assert_eq!(v["policy"]["pass"], false, "{name}");
        assert_eq!(v["policy"]["judged"], false, "{name}");
    }
    assert_eq!(
        by("v1.1.0")["not_judged"],
        "a.proto, the root's file, did not compile in v1.1.0 (+1 more change)"
    );
    assert_eq!(by("v1.2.0")["not_judged"], "did not compile");
    let mended = by("v1.3.0");
    assert_eq!(mended["semver"], "ok");
    assert_eq!(mended["not_judged"], Value::Null);
    assert_eq!(mended["policy"]["judged"], true);
    assert_eq!(mended["policy"]["pass"], true);
}

#[test]
fn log_of_the_whole_schema_does_not_pass_changes_it_could_not_read() {
    let r = repo_with_a_broken_root();
    let (code, out, err) = run(&["log", "--format", "json"], r.path());
    assert_eq!(code, 0, "{err}");
    let log: Value = serde_json::from_str(&out).unwrap();
    let v = &log["versions"][1];
    assert_eq!(v["name"], "v1.1.0");
    // Root is gone from what compiled; the change is listed, not judged, and counts for
    // no verdict: a semver "ok" here would be green for something nobody read.
    assert!(v["changes"]["not_judged"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["semver"], "not_judged", "{v}");
    assert!(
        v["semver_reason"]
            .as_str()
            .unwrap()
            .starts_with("not judged: a.proto did not compile in v1.1.0"),
        "{v}"
    );
}

#[test]
fn check_does_not_pass_a_subject_whose_root_was_not_read() {
    let r = repo_with_a_broken_root();
    // The working tree keeps v1.1.0's broken root file: against v1.1.0 nothing changed that
    // compiled, yet nothing was read either.
    r.write(
        "a.proto",
        "syntax = \"proto3\";\npackage p;\nimport \"b.proto\";\n\nmessage Root {\n  Leaf leaf = 1 oops;\n}\n",
    );
    let (code, out, err) = run(
        &[
            "check",
            "--root",
            "Root",
            "--against",
            "v1.1.0",
            "--version",
            "1.1.1",
        ],
        r.path(),
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("NOT JUDGED: 0 errors"), "{out}");
    assert!(!out.contains("PASS"), "{out}");
    assert!(
        out.contains("not judged: p.Root is not in the 1 of 2 files that compiled"),
        "{out}"
    );
    assert!(out.contains("semver: not judged"), "{out}");

    let (code, out, _) = run(
        &[
            "check",
            "--root",
            "Root",
            "--against",
            "v1.1.0",
            "--format",
            "json",
        ],
        r.path(),
    );
    assert_eq!(code, 1, "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["pass"], false);
    assert!(report["not_judged"].is_string(), "{report}");
}

#[test]
fn a_bare_repository_has_no_working_tree_and_check_says_to_name_a_revision() {
    let r = repo_with_a_broken_root();
    let bare = tempfile::tempdir().unwrap();
    let target = bare.path().join("mirror.git");
    r.git(&["clone", "-q", "--bare", ".", target.to_str().unwrap()]);

    let (code, out, err) = run(&["log"], &target);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("WORKTREE"), "{out}");
    assert!(row(&out, "v1.3.0").contains("complete"), "{out}");

    let (code, out, err) = run(&["check"], &target);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("no working tree to check"), "{err}");
    assert!(err.contains("--rev REV"), "{err}");

    // With a revision it runs.
    let (code, out, err) = run(&["check", "--rev", "main", "--against", "v1.0.0"], &target);
    assert!(code == 0 || code == 1, "{out}{err}");
    assert!(
        out.contains("Checking main as version 1.3.0 against v1.0.0"),
        "{out}"
    );
}
