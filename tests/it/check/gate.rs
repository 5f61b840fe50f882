//! The gate: exit status 0 when it passes, 1 on a violation (with rule, location, reason and
//! fix), 2 when it cannot run; every output format; and the version to check as, given or
//! from a buffrs manifest.

use super::repo_with_a_breaking_worktree;
use crate::common::{Repo, proto, run};
use serde_json::Value;

#[test]
fn exit_status_zero_when_it_passes() {
    let mut r = Repo::new();
    r.write("t.proto", &proto("t", "message M {\n  int32 a = 1;\n}"));
    r.commit("one");
    r.tag("v1.0.0");
    // A clean tree equal to the release passes.
    let (code, out, err) = run(&["check"], r.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Checking WORKTREE against v1.0.0 (policy BACKWARD at wire level)"),
        "{out}"
    );
    assert!(out.contains("PASS"), "{out}");
    // An added field passes BACKWARD, and as 1.1.0 it is the right bump.
    r.write(
        "t.proto",
        &proto("t", "message M {\n  int32 a = 1;\n  int32 b = 2;\n}"),
    );
    let (code, out, err) = run(&["check", "--version", "1.1.0"], r.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("semver: ok"), "{out}");
    // ... but as a patch it is too small: exit 1.
    let (code, out, _) = run(&["check", "--version", "1.0.1"], r.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[SEMVER_TOO_SMALL]"), "{out}");
    assert!(out.contains("publish it as 1.1.0"), "{out}");
}

#[test]
fn exit_status_one_on_a_violation_with_rule_location_reason_and_fix() {
    let r = repo_with_a_breaking_worktree();
    let (code, out, err) = run(&["check"], r.path());
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("Checking WORKTREE against v1.1.0"), "{out}");
    assert!(out.contains("error[FIELD_TYPE_CHANGED]"), "{out}");
    assert!(out.contains("  --> t.proto:5"), "{out}");
    assert!(
        out.contains("t.M.a: int32 a = 1  ->  sint32 a = 1"),
        "{out}"
    );
    assert!(
        out.contains("= why: wire backward breaking against v1.1.0"),
        "{out}"
    );
    assert!(out.contains("= fix: "), "{out}");
    assert!(
        out.contains("= see: protolapse explain FIELD_TYPE_CHANGED"),
        "{out}"
    );
    assert!(out.contains("FAIL: 1 error"), "{out}");
    // The same against the older release, by name.
    let (code, out, _) = run(&["check", "--against", "v1.0.0"], r.path());
    assert_eq!(code, 1);
    assert!(out.contains("against v1.0.0"), "{out}");
    // ALLOW_ANY lets it through.
    let (code, _, _) = run(&["check", "--policy", "ALLOW_ANY"], r.path());
    assert_eq!(code, 0);
}

#[test]
fn exit_status_two_when_it_cannot_run() {
    let r = repo_with_a_breaking_worktree();
    for (args, needle) in [
        (vec!["check", "--policy", "BACKWARDS"], "not a policy"),
        (
            vec!["check", "--level", "bytes"],
            "invalid value 'bytes' for '--level <LEVEL>'",
        ),
        (
            vec!["check", "--against", "v9.9.9"],
            "no version or git revision is named `v9.9.9`",
        ),
        (vec!["check", "--version", "one"], "not semver"),
        (
            vec!["check", "--policy", "BACKWARD_TILL(v7.0.0)"],
            "no version is named `v7.0.0`",
        ),
        (vec!["check", "--root", "Nope"], "unknown root `Nope`"),
    ] {
        let (code, _, err) = run(&args, r.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // Nothing to compare with: no tag.
    let mut bare = Repo::new();
    bare.write("t.proto", &proto("t", "message M {}"));
    bare.commit("one");
    let (code, _, err) = run(&["check", "--rev", "HEAD"], bare.path());
    assert_eq!(code, 2, "{err}");
    // Not a repository.
    let tmp = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&["check"], tmp.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a git repository"), "{err}");
}

#[test]
fn every_format() {
    let r = repo_with_a_breaking_worktree();
    // JSON.
    let (code, out, _) = run(&["check", "--format", "json"], r.path());
    assert_eq!(code, 1);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["pass"], false);
    assert_eq!(j["subject"], "WORKTREE");
    assert_eq!(j["base"], "v1.1.0");
    assert_eq!(j["policy"], "BACKWARD");
    assert_eq!(j["required_bump"], "major");
    let f = &j["findings"][0];
    assert_eq!(f["severity"], "error");
    assert_eq!(f["rule"], "FIELD_TYPE_CHANGED");
    assert_eq!(f["file"], "t.proto");
    assert_eq!(f["line"], 5);
    assert!(f["fix"].as_str().is_some_and(|s| !s.is_empty()));
    // GitHub workflow commands.
    let (code, out, _) = run(&["check", "--format", "github"], r.path());
    assert_eq!(code, 1);
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("::error file=t.proto,line=5,title=FIELD_TYPE_CHANGED::"),
        "{first}"
    );
    assert!(
        first.contains("%0AFix: "),
        "multi-line messages are escaped: {first}"
    );
    assert!(
        out.lines()
            .last()
            .unwrap()
            .starts_with("::notice title=protolapse::FAIL")
    );
    // SARIF 2.1.0.
    let (code, out, _) = run(&["check", "--format", "sarif"], r.path());
    assert_eq!(code, 1);
    let s: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["version"], "2.1.0");
    let run0 = &s["runs"][0];
    assert_eq!(run0["tool"]["driver"]["name"], "protolapse");
    let rule = &run0["tool"]["driver"]["rules"][0];
    assert_eq!(rule["id"], "FIELD_TYPE_CHANGED");
    assert!(
        rule["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("# FIELD_TYPE_CHANGED")
    );
    let res = &run0["results"][0];
    assert_eq!(res["ruleId"], "FIELD_TYPE_CHANGED");
    assert_eq!(res["level"], "error");
    assert_eq!(res["ruleIndex"], 0);
    assert_eq!(
        res["partialFingerprints"]["protolapse/v1"]
            .as_str()
            .map(str::len),
        Some(64)
    );
    let loc = &res["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "t.proto");
    assert_eq!(loc["region"]["startLine"], 5);
}

#[test]
fn buffrs_manifest_gives_the_version_and_package_rules() {
    let mut r = Repo::new();
    r.write(
        "Proto.toml",
        "[package]\ntype = \"lib\"\nname = \"physics\"\nversion = \"1.0.0\"\n",
    );
    r.write(
        "proto/t.proto",
        &proto("physics", "message M {\n  int32 a = 1;\n}"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    // A new service in a lib package, and the version not bumped past an added message.
    r.write(
        "Proto.toml",
        "[package]\ntype = \"lib\"\nname = \"physics\"\nversion = \"1.0.1\"\n",
    );
    r.write(
        "proto/t.proto",
        &proto(
            "physics",
            "message M {\n  int32 a = 1;\n}\nmessage N {}\nservice S {\n  rpc Get(M) returns (N);\n}",
        ),
    );
    let (code, out, _) = run(&["check"], r.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("as version 1.0.1"), "{out}");
    assert!(out.contains("error[BUFFRS_LIB_HAS_SERVICE]"), "{out}");
    assert!(out.contains("error[SEMVER_TOO_SMALL]"), "{out}");
}
