//! `protolapse check`, `log` and `blame` from the command line: every exit status and format
//! of the gate, the demo's deliberate mistakes, configuration, and the JSON contracts.

use crate::common::{Repo, proto, run};
use serde_json::Value;

/// A released v1.0.0 and v1.1.0, and a working tree that changes a field's type.
fn repo_with_a_breaking_worktree() -> Repo {
    let mut r = Repo::new();
    r.write("t.proto", &proto("t", "message M {\n  int32 a = 1;\n}"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "t.proto",
        &proto("t", "message M {\n  int32 a = 1;\n  string b = 2;\n}"),
    );
    r.commit("two");
    r.tag("v1.1.0");
    r.write(
        "t.proto",
        &proto("t", "message M {\n  sint32 a = 1;\n  string b = 2;\n}"),
    );
    r
}

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
        (vec!["check", "--level", "bytes"], "not a level"),
        (
            vec!["check", "--against", "v9.9.9"],
            "no version is named `v9.9.9`",
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
fn strict_turns_warnings_into_failures() {
    let mut r = Repo::new();
    r.write(
        "t.proto",
        &proto("t", "message M {\n  int32 a = 1;\n  int32 b = 2;\n}"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    // Removing a field without reserving its number: a hazard.
    r.write("t.proto", &proto("t", "message M {\n  int32 a = 1;\n}"));
    let (code, out, _) = run(&["check"], r.path());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning[FIELD_REMOVED]"), "{out}");
    let (code, out, _) = run(&["check", "--strict"], r.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[FIELD_REMOVED]"), "{out}");
    // protolapse.toml can say the same, and ignore the change.
    r.write("protolapse.toml", "strict = true\n");
    let (code, _, _) = run(&["check"], r.path());
    assert_eq!(code, 1);
    r.write(
        "protolapse.toml",
        "strict = true\n[[ignore]]\nrule = \"FIELD_REMOVED\"\nelement = \"t.M.*\"\nreason = \"b was never written\"\n",
    );
    let (code, out, _) = run(&["check"], r.path());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 ignored"), "{out}");
    // A bad key names itself and the file: exit 2.
    r.write("protolapse.toml", "strictness = true\n");
    let (code, _, err) = run(&["check"], r.path());
    assert_eq!(code, 2);
    assert!(
        err.contains("strictness") && err.contains("protolapse.toml"),
        "{err}"
    );
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
fn the_demo_mistakes_are_found() {
    let tmp = std::env::temp_dir();
    // v1.1.0 was tagged as a minor but breaks.
    let (code, out, _) = run(
        &["check", "--demo", "--rev", "v1.1.0", "--version", "1.1.0"],
        &tmp,
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[SEMVER_TOO_SMALL]"), "{out}");
    assert!(out.contains("publish it as 2.0.0"), "{out}");
    // v1.1.1 reuses removed and reserved numbers.
    let (code, out, _) = run(
        &["check", "--demo", "--rev", "v1.1.1", "--version", "1.1.1"],
        &tmp,
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[FIELD_RESERVED_NUMBER_REUSED]"), "{out}");
    assert!(out.contains("HAZARD_NUMBER_REUSED"), "{out}");
    // log shows both, and the default check of the demo's tree passes.
    let (code, out, _) = run(&["log", "--demo", "--format", "json"], &tmp);
    assert_eq!(code, 0);
    let log: Value = serde_json::from_str(&out).unwrap();
    let v = |name: &str| {
        log["versions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(v("v1.1.0")["semver"], "too_small");
    assert_eq!(v("v1.1.0")["bump"], "minor");
    assert_eq!(v("v1.1.0")["required_bump"], "major");
    assert_eq!(v("v1.1.0")["previous"], "v1.0.0");
    assert_eq!(v("v1.1.1")["semver"], "too_small");
    let hazards = v("v1.1.1")["hazards"].as_array().unwrap().clone();
    assert!(
        hazards.iter().any(|h| h["kind"] == "number_reused"
            && h["element"] == "physics.v1.FlightPath.duration_ms"
            && h["versions"].as_array().unwrap().len() == 3),
        "{hazards:?}"
    );
    // After the broken v1.2.0, v2.0.0 is compared with the last version that compiled the
    // files v1.2.0 left out.
    assert_eq!(v("v2.0.0")["previous"], "v1.1.1");
    assert!(
        v("v2.0.0")["semver_reason"]
            .as_str()
            .unwrap()
            .contains("v1.2.0 left out files that did not compile"),
        "{}",
        v("v2.0.0")["semver_reason"]
    );
    assert_eq!(v("v0.1.0")["semver"], "none");
    assert_eq!(v("v0.1.0")["previous"], Value::Null);
    assert_eq!(v("v0.2.1")["semver"], "ok");
    let (code, _, _) = run(&["check", "--demo"], &tmp);
    assert_eq!(code, 0);
}

#[test]
fn log_with_a_policy() {
    let tmp = std::env::temp_dir();
    let (code, out, err) = run(
        &["log", "--demo", "--policy", "BACKWARD", "--format", "json"],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");
    let log: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(log["policy"]["name"], "BACKWARD");
    assert_eq!(log["policy"]["level"], "wire");
    let v110 = log["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "v1.1.0")
        .unwrap();
    assert_eq!(v110["policy"]["name"], "BACKWARD");
    assert_eq!(v110["policy"]["pass"], false);
    assert_eq!(v110["policy"]["against"], "v1.0.0");
    assert_eq!(
        v110["policy"]["first_violation"]["rule"],
        "FIELD_REQUIRED_ADDED"
    );
    assert!(v110["changes"]["breaking"].as_u64().unwrap() >= 1);
    let (code, out, _) = run(&["log", "--demo", "--policy", "BACKWARD"], &tmp);
    assert_eq!(code, 0);
    assert!(
        out.contains("BACKWARD fails against v1.0.0: FIELD_REQUIRED_ADDED"),
        "{out}"
    );
    assert!(
        out.contains("semver: a minor bump, but its changes require major"),
        "{out}"
    );
    assert!(out.contains("policy BACKWARD at wire level: "), "{out}");
}

#[test]
fn blame_prints_each_fields_lifecycle() {
    let tmp = std::env::temp_dir();
    let (code, out, err) = run(&["blame", "--demo", "FlightPath"], &tmp);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("message physics.v1.FlightPath"), "{out}");
    // Field 4: duration_s, removed and reserved in v0.3.0, reused as duration_ms in v1.1.1.
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("4  "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(row.contains("duration_s/duration_ms"), "{row}");
    assert!(row.contains("-v0.3.0 reserved"), "{row}");
    assert!(row.contains("+v1.1.1 int64 duration_ms = 4"), "{row}");
    let (code, out, _) = run(
        &[
            "blame",
            "--demo",
            "physics.v1.FlightStatus",
            "--format",
            "json",
        ],
        &tmp,
    );
    assert_eq!(code, 0);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["kind"], "enum");
    assert_eq!(j["versions"].as_array().unwrap().len(), 15);
    let (code, _, err) = run(&["blame", "--demo", "FlightPth"], &tmp);
    assert_eq!(code, 2);
    assert!(
        err.contains("closest") && err.contains("FlightPath"),
        "{err}"
    );
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

#[test]
fn inline_directives_cover_the_change_that_introduces_them_only() {
    let mut r = Repo::new();
    r.write(
        "t.proto",
        &proto("t", "message M {\n  int32 x = 1;\n  int32 y = 2;\n}"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "t.proto",
        &proto(
            "t",
            "message M {\n  int64 x = 1; // protolapse:ignore FIELD_TYPE_CHANGED all readers are 64-bit\n  int32 y = 2;\n}",
        ),
    );
    r.commit("two");
    r.tag("v1.1.0");
    let (code, out, _) = run(&["check", "--against", "v1.0.0", "--strict"], r.path());
    assert_eq!(code, 0, "the directive covers its own change: {out}");
    // The comment stays, the type changes again: the old directive does not cover it.
    r.write(
        "t.proto",
        &proto(
            "t",
            "message M {\n  string x = 1; // protolapse:ignore FIELD_TYPE_CHANGED all readers are 64-bit\n  int32 y = 2;\n}",
        ),
    );
    let (code, out, _) = run(&["check"], r.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[FIELD_TYPE_CHANGED]"), "{out}");
    // A directive on the syntax line covers a removed field of that file.
    r.write(
        "t.proto",
        "// protolapse:ignore FIELD_REMOVED y was never written\nsyntax = \"proto3\";\npackage t;\n\nmessage M {\n  int64 x = 1;\n}\n",
    );
    let (code, out, _) = run(&["check", "--strict"], r.path());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 ignored"), "{out}");
}

#[test]
fn hazards_can_be_ignored() {
    let mut r = Repo::new();
    r.write("t.proto", &proto("t", "message M {\n  int32 x = 1;\n}"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("t.proto", &proto("t", "message M {\n  int64 x = 1;\n}"));
    r.commit("two");
    r.tag("v1.1.0");
    // Back to int32: a reverted type, a hazard that fails under --strict.
    r.write("t.proto", &proto("t", "message M {\n  int32 x = 1;\n}"));
    let (code, out, _) = run(&["check", "--strict", "--policy", "ALLOW_ANY"], r.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[HAZARD_TYPE_REVERTED]"), "{out}");
    r.write(
        "protolapse.toml",
        "[[ignore]]\nrule = \"HAZARD_TYPE_REVERTED\"\nelement = \"t.M.x\"\nreason = \"nothing was written as int64\"\n",
    );
    let (code, out, _) = run(&["check", "--strict", "--policy", "ALLOW_ANY"], r.path());
    assert_eq!(code, 0, "{out}");
    // --no-strict overrides the file.
    r.write("protolapse.toml", "strict = true\n");
    let (code, _, _) = run(&["check", "--policy", "ALLOW_ANY"], r.path());
    assert_eq!(code, 1);
    let (code, _, _) = run(&["check", "--policy", "ALLOW_ANY", "--no-strict"], r.path());
    assert_eq!(code, 0);
}
