//! Whole-history analysis on hand-built histories: every policy, the semver check (previous
//! relevant version, backports, pre-releases, below 1.0, broken and unchanged versions), each
//! history-wide hazard, field lifecycles, ignores and buffrs package rules.

use crate::common::{Repo, proto};
use protolapse::history::HistoryOptions;
use protolapse::judge::{IgnoreRule, Ignores};
use protolapse::load::{self, Project};
use protolapse::policy::lifecycle::State;
use protolapse::policy::{
    self, Analysis, HazardKind, Level, Policy, Pre1, SemverVerdict, Settings,
};
use protolapse::rules::RuleId;

fn load(r: &Repo) -> Project {
    load::load(r.path(), &HistoryOptions::default(), |_, _| {}).expect("load")
}

fn commit_tag(r: &mut Repo, tag: &str, file: &str, text: &str) {
    r.write(file, text);
    r.commit(tag);
    r.tag(tag);
}

/// v1.0.0 a; v1.1.0 + b; v1.2.0 - a (not reserved); v1.3.0 number 1 reused as a string;
/// v2.0.0 b int32 -> int64.
fn evolving() -> (Repo, Project) {
    let mut r = Repo::new();
    let steps = [
        ("v1.0.0", "message M {\n  int32 a = 1;\n}"),
        ("v1.1.0", "message M {\n  int32 a = 1;\n  int32 b = 2;\n}"),
        ("v1.2.0", "message M {\n  int32 b = 2;\n}"),
        ("v1.3.0", "message M {\n  int32 b = 2;\n  string a2 = 1;\n}"),
        ("v2.0.0", "message M {\n  int64 b = 2;\n  string a2 = 1;\n}"),
    ];
    for (tag, body) in steps {
        commit_tag(&mut r, tag, "t.proto", &proto("t", body));
    }
    let p = load(&r);
    (r, p)
}

fn analyze(p: &Project, policy: &str, level: Level, strict: bool) -> Analysis {
    policy::analyze(
        p,
        &Settings {
            policy: Some(policy.parse().expect("policy")),
            level,
            strict,
            ..Default::default()
        },
    )
    .expect("analyze")
}

/// (pass, against) per version.
fn results(a: &Analysis) -> Vec<(bool, Option<String>)> {
    a.versions
        .iter()
        .map(|r| {
            let p = r.policy.as_ref().expect("policy result");
            (p.pass, p.against.clone())
        })
        .collect()
}

fn passes(a: &Analysis) -> Vec<bool> {
    results(a).into_iter().map(|(p, _)| p).collect()
}

#[test]
fn every_policy_on_one_history() {
    let (_r, p) = evolving();
    assert_eq!(p.versions.len(), 5);
    let wire = |policy: &str| passes(&analyze(&p, policy, Level::Wire, false));
    let strict = |policy: &str| passes(&analyze(&p, policy, Level::Wire, true));

    assert_eq!(wire("ALLOW_ANY"), [true; 5]);
    assert_eq!(wire("DENY_ALL"), [true, false, false, false, false]);
    // Backward against the previous version: a removal warns, int32 -> int64 reads old data.
    assert_eq!(wire("BACKWARD"), [true; 5]);
    // ... but under strict, the removal of an unreserved number is a hazard that fails.
    assert_eq!(strict("BACKWARD"), [true, true, false, true, true]);
    // Transitive: v1.3.0 reads v1.1.0's int32 `a` under number 1 as a string.
    let bt = analyze(&p, "BACKWARD_TRANSITIVE", Level::Wire, false);
    assert_eq!(passes(&bt), [true, true, true, false, false]);
    let v13 = bt.versions[3].policy.as_ref().unwrap();
    assert_eq!(
        v13.against.as_deref(),
        Some("v1.1.0"),
        "the nearest failure"
    );
    assert_eq!(v13.failed_against, ["v1.1.0", "v1.0.0"]);
    let first = v13.first_violation.as_ref().unwrap();
    assert_eq!(first.change.rule, RuleId::FIELD_TYPE_CHANGED);
    assert_eq!(first.change.number, Some(1));
    // Forward: int64 -> int32 readers lose values (lossy): a warning, a failure when strict.
    assert_eq!(wire("FORWARD"), [true; 5]);
    assert_eq!(strict("FORWARD"), [true, true, true, true, false]);
    let fwd = analyze(&p, "FORWARD", Level::Wire, false);
    assert_eq!(fwd.versions[4].policy.as_ref().unwrap().warnings, 1);
    assert_eq!(wire("FORWARD_TRANSITIVE"), [true, true, true, false, false]);
    assert_eq!(wire("FULL"), [true; 5]);
    assert_eq!(strict("FULL"), [true, true, false, true, false]);
    assert_eq!(wire("FULL_TRANSITIVE"), [true, true, true, false, false]);
    // TILL: only versions from the named one on count.
    assert_eq!(wire("BACKWARD_TILL(v1.2.0)"), [true; 5]);
    assert_eq!(
        wire("BACKWARD_TILL(v1.0.0)"),
        [true, true, true, false, false]
    );
    assert_eq!(wire("FORWARD_TILL(v1.2.0)"), [true; 5]);
    let till = analyze(&p, "BACKWARD_TILL(v1.2.0)", Level::Wire, false);
    assert!(
        till.versions[1]
            .policy
            .as_ref()
            .unwrap()
            .note
            .as_deref()
            .is_some_and(|n| n.contains("window")),
        "v1.1.0 is before the window"
    );
    assert_eq!(
        wire("BACKWARD_TILL(v1.2.0)_AND_FORWARD_TILL(v1.0.0)"),
        [true, true, true, false, false]
    );
    // An unknown TILL version is an error that names it.
    let err = policy::analyze(
        &p,
        &Settings {
            policy: Some(Policy::BackwardTill("v9.9.9".into())),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("v9.9.9"), "{err}");
}

#[test]
fn levels_judge_different_cells() {
    let mut r = Repo::new();
    commit_tag(
        &mut r,
        "v1.0.0",
        "t.proto",
        &proto("t", "message M {\n  int32 count = 1;\n}"),
    );
    // A rename: the wire does not care, JSON does.
    commit_tag(
        &mut r,
        "v1.1.0",
        "t.proto",
        &proto("t", "message M {\n  int32 total = 1;\n}"),
    );
    let p = load(&r);
    assert_eq!(
        passes(&analyze(&p, "FULL", Level::Wire, false)),
        [true, true]
    );
    assert_eq!(
        passes(&analyze(&p, "FULL", Level::Json, false)),
        [true, false]
    );
}

#[test]
fn semver_against_the_previous_relevant_version() {
    let mut r = Repo::new();
    let m = |body: &str| proto("t", &format!("message M {{\n{body}\n}}"));
    commit_tag(&mut r, "v0.1.0", "t.proto", &m("  int32 a = 1;"));
    // Breaking below 1.0: a minor bump is enough under Cargo's convention.
    commit_tag(&mut r, "v0.2.0", "t.proto", &m("  int64 a = 1;"));
    // Only a comment: unchanged.
    commit_tag(
        &mut r,
        "v0.2.1",
        "t.proto",
        &m("  // The count.\n  int64 a = 1;"),
    );
    commit_tag(
        &mut r,
        "v1.0.0",
        "t.proto",
        &m("  int64 a = 1;\n  int32 b = 2;"),
    );
    // A patch that adds a field: too small.
    commit_tag(
        &mut r,
        "v1.0.1",
        "t.proto",
        &m("  int64 a = 1;\n  int32 b = 2;\n  int32 c = 3;"),
    );
    commit_tag(
        &mut r,
        "v2.0.0-rc.1",
        "t.proto",
        &m("  int64 a = 1;\n  int32 c = 3;"),
    );
    commit_tag(&mut r, "v2.0.0-rc.2", "t.proto", &m("  int64 a = 1;"));
    commit_tag(&mut r, "v2.0.0", "t.proto", &m("  int64 a = 1;"));
    // A broken release, then one after it.
    commit_tag(
        &mut r,
        "v2.1.0",
        "t.proto",
        "syntax = \"proto3\";\npackage t;\nmessage M {\n  int64 a = 1\n}\n",
    );
    commit_tag(
        &mut r,
        "v2.2.0",
        "t.proto",
        &m("  int64 a = 1;\n  int32 d = 4;"),
    );
    // A backport tagged after 2.x: compares with v1.0.1, not with v2.2.0.
    r.git(&["checkout", "-q", "v1.0.1"]);
    commit_tag(
        &mut r,
        "v1.0.2",
        "t.proto",
        &m("  int64 a = 1;\n  int32 b = 2;\n  int32 c = 3;\n  // Fixed doc.\n"),
    );
    r.git(&["checkout", "-q", "main"]);
    let p = load(&r);
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let row = |name: &str| {
        let i = p
            .versions
            .iter()
            .position(|v| v.version.name == name)
            .unwrap_or_else(|| panic!("{name}"));
        let r = &a.versions[i];
        (
            r.previous
                .map(|j| p.versions[j.index()].version.name.as_str()),
            r.semver.verdict,
            r.semver.reason.clone(),
        )
    };
    assert_eq!(row("v0.1.0").0, None);
    assert_eq!(row("v0.1.0").1, SemverVerdict::None);
    assert_eq!(row("v0.2.0").1, SemverVerdict::Ok, "{}", row("v0.2.0").2);
    let unchanged = row("v0.2.1");
    assert_eq!(unchanged.1, SemverVerdict::Ok);
    assert!(unchanged.2.contains("unchanged"), "{}", unchanged.2);
    let patch = row("v1.0.1");
    assert_eq!(patch.0, Some("v1.0.0"));
    assert_eq!(patch.1, SemverVerdict::TooSmall);
    assert!(
        a.versions[p
            .versions
            .iter()
            .position(|v| v.version.name == "v1.0.1")
            .unwrap()]
        .semver
        .deciding
        .iter()
        .any(|c| c.rule == RuleId::FIELD_ADDED)
    );
    // Pre-releases compare with their predecessor; the release with the last release.
    assert_eq!(row("v2.0.0-rc.1").0, Some("v1.0.2"));
    assert_eq!(row("v2.0.0-rc.2").0, Some("v2.0.0-rc.1"));
    assert_eq!(row("v2.0.0-rc.2").1, SemverVerdict::Ok);
    assert_eq!(row("v2.0.0").0, Some("v1.0.2"));
    assert_eq!(row("v2.0.0").1, SemverVerdict::Ok);
    // The backport.
    assert_eq!(row("v1.0.2").0, Some("v1.0.1"));
    assert_eq!(row("v1.0.2").1, SemverVerdict::Ok);
    // The broken version says so; the next compares with the last one that compiled.
    assert_eq!(row("v2.1.0").1, SemverVerdict::None);
    assert!(row("v2.1.0").2.contains("did not compile"));
    let after = row("v2.2.0");
    assert_eq!(after.0, Some("v2.0.0"));
    assert!(after.2.contains("v2.1.0 did not compile"), "{}", after.2);

    // Strict below 1.0: the breaking 0.2.0 needed 1.0.0.
    let strict = policy::analyze(
        &p,
        &Settings {
            pre1: Pre1::Strict,
            ..Default::default()
        },
    )
    .unwrap();
    let i = p
        .versions
        .iter()
        .position(|v| v.version.name == "v0.2.0")
        .unwrap();
    assert_eq!(strict.versions[i].semver.verdict, SemverVerdict::TooSmall);
}

#[test]
fn history_wide_hazards() {
    let mut r = Repo::new();
    let n = |body: &str| {
        proto(
            "t",
            &format!("message N {{\n{body}\n}}\nenum E {{\n  E_ZERO = 0;\n  E_A = 1;\n}}"),
        )
    };
    commit_tag(
        &mut r,
        "v1.0.0",
        "t.proto",
        &n("  int32 x = 1;\n  int32 y = 2;\n  reserved 5 to 7;\n  reserved \"old\";"),
    );
    commit_tag(
        &mut r,
        "v1.1.0",
        "t.proto",
        &n("  int64 x = 1;\n  int32 y = 2;\n  reserved 5 to 7;\n  reserved \"old\";"),
    );
    // x back to int32 (reverted), y removed, E_A removed.
    let removed = "syntax = \"proto3\";\npackage t;\n\nmessage N {\n  int32 x = 1;\n  reserved 5 to 7;\n  reserved \"old\";\n}\nenum E {\n  E_ZERO = 0;\n}\n";
    commit_tag(&mut r, "v1.2.0", "t.proto", removed);
    // Not adjacent to v1.1.0, where y was 2: y comes back as 3; the reservations are gone.
    let last = "syntax = \"proto3\";\npackage t;\n\nmessage N {\n  int32 x = 1;\n  int32 y = 3;\n  reserved 7;\n}\nenum E {\n  E_ZERO = 0;\n  E_B = 1;\n}\n";
    commit_tag(&mut r, "v1.3.0", "t.proto", last);
    let p = load(&r);
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let kinds: Vec<(HazardKind, &str, Option<i64>)> = a
        .hazards
        .iter()
        .map(|h| (h.kind, h.element.as_str(), h.number))
        .collect();
    assert!(
        kinds.contains(&(HazardKind::TypeReverted, "t.N.x", Some(1))),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(HazardKind::NameReused, "t.N.y", Some(3))),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(HazardKind::ReservationDropped, "t.N", Some(5))),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(HazardKind::ReservationDropped, "t.N.old", None)),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(HazardKind::NumberReused, "t.E.E_B", Some(1))),
        "{kinds:?}"
    );
    let reverted = a
        .hazards
        .iter()
        .find(|h| h.kind == HazardKind::TypeReverted)
        .unwrap();
    assert_eq!(reverted.versions, ["v1.0.0", "v1.1.0", "v1.2.0"]);
    let dropped = a
        .hazards
        .iter()
        .find(|h| h.kind == HazardKind::ReservationDropped && h.number == Some(5))
        .unwrap();
    assert!(dropped.message.contains("5 to 6"), "{}", dropped.message);
    // Each hazard is listed under the version where it shows.
    let at = |name: &str| {
        let i = p
            .versions
            .iter()
            .position(|v| v.version.name == name)
            .unwrap();
        a.versions[i].hazards.len()
    };
    assert_eq!(at("v1.2.0"), 1);
    assert_eq!(at("v1.3.0"), a.hazards.len() - 1);
}

#[test]
fn a_number_reused_across_versions_that_never_meet() {
    let (_r, p) = evolving();
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let h = a
        .hazards
        .iter()
        .find(|h| h.kind == HazardKind::NumberReused)
        .expect("reuse of number 1");
    assert_eq!(h.element, "t.M.a2");
    assert_eq!(h.versions, ["v1.1.0", "v1.2.0", "v1.3.0"]);
}

#[test]
fn lifecycle_of_each_field() {
    let (_r, p) = evolving();
    let name = policy::lifecycle::resolve(&p.versions, "M").unwrap();
    assert_eq!(name, "t.M");
    let l = policy::lifecycle(&p.versions, &name);
    let row = |n: i64| l.rows.iter().find(|r| r.number == n).unwrap();
    let states = |n: i64| row(n).cells.iter().map(|c| c.state).collect::<Vec<_>>();
    use State::*;
    assert_eq!(states(1), [Added, Kept, Removed, Added, Kept]);
    assert_eq!(row(1).names, ["a", "a2"]);
    assert_eq!(states(2), [Absent, Added, Kept, Kept, Changed]);
    assert_eq!(row(2).cells[4].rules, [RuleId::FIELD_TYPE_CHANGED]);
    assert!(policy::lifecycle::resolve(&p.versions, "Nope").is_err());
}

#[test]
fn ignores_from_config_and_inline_comments() {
    let (_r, p) = evolving();
    let ignores = Ignores {
        rules: vec![IgnoreRule {
            rule: Some("FIELD_TYPE_CHANGED".into()),
            path: None,
            element: Some(glob::Pattern::new("t.M.*").unwrap()),
            reason: Some("migrated".into()),
        }],
    };
    let a = policy::analyze(
        &p,
        &Settings {
            policy: Some(Policy::BackwardTransitive),
            ignores,
            ..Default::default()
        },
    )
    .unwrap();
    // The type change of number 1 is ignored: transitive passes now.
    assert!(a.versions.iter().all(|r| r.policy.as_ref().unwrap().pass));
    let v2 = &a.versions[4];
    let c = v2
        .changes
        .as_ref()
        .unwrap()
        .iter()
        .find(|c| c.rule == RuleId::FIELD_TYPE_CHANGED)
        .unwrap();
    assert_eq!(c.ignored.as_deref(), Some("migrated"));
    assert_eq!(v2.counts.ignored, 1);

    // Inline: on the field itself, and on the message for a removed field.
    let mut r = Repo::new();
    commit_tag(
        &mut r,
        "v1.0.0",
        "t.proto",
        &proto("t", "message M {\n  int32 a = 1;\n  int32 gone = 2;\n}"),
    );
    commit_tag(
        &mut r,
        "v2.0.0",
        "t.proto",
        &proto(
            "t",
            "// protolapse:ignore FIELD_REMOVED nobody reads it\nmessage M {\n  int64 a = 1; // protolapse:ignore FIELD_TYPE_CHANGED all readers are 64-bit\n}",
        ),
    );
    let p = load(&r);
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let changes = a.versions[1].changes.as_ref().unwrap();
    let reason = |rule: RuleId| {
        changes
            .iter()
            .find(|c| c.rule == rule)
            .and_then(|c| c.ignored.clone())
    };
    assert_eq!(
        reason(RuleId::FIELD_TYPE_CHANGED).as_deref(),
        Some("all readers are 64-bit")
    );
    assert_eq!(
        reason(RuleId::FIELD_REMOVED).as_deref(),
        Some("nobody reads it")
    );
    assert_eq!(
        a.versions[1].semver.required,
        Some(protolapse::rules::Bump::Patch)
    );
}

#[test]
fn buffrs_package_rules() {
    let mut r = Repo::new();
    r.write(
        "Proto.toml",
        "[package]\ntype = \"lib\"\nname = \"physics\"\nversion = \"1.0.0\"\n",
    );
    r.write(
        "proto/units.proto",
        &proto("physics.units", "message Meter {\n  double value = 1;\n}"),
    );
    r.write(
        "proto/other.proto",
        &proto(
            "chemistry",
            "message X {}\nservice S {\n  rpc Get(X) returns (X);\n}",
        ),
    );
    r.commit("v1.0.0");
    r.tag("v1.0.0");
    let p = load(&r);
    // buffrs keeps protos under proto/.
    assert_eq!(p.versions[0].version.proto_roots, ["proto"]);
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let rules: Vec<&str> = a.versions[0].package.iter().map(|v| v.rule).collect();
    assert_eq!(rules, ["BUFFRS_LIB_HAS_SERVICE", "BUFFRS_PACKAGE_MISMATCH"]);
    assert!(a.versions[0].package[1].message.contains("chemistry"));
}

#[test]
fn an_extension_number_reused_is_a_hazard() {
    let mut r = Repo::new();
    let head = "syntax = \"proto2\";\npackage t;\nmessage E {\n  extensions 100 to 199;\n}\n";
    commit_tag(
        &mut r,
        "v1.0.0",
        "t.proto",
        &format!("{head}extend E {{\n  optional int32 size = 100;\n}}\n"),
    );
    commit_tag(&mut r, "v1.1.0", "t.proto", head);
    commit_tag(
        &mut r,
        "v1.2.0",
        "t.proto",
        &format!("{head}extend E {{\n  optional string label = 100;\n}}\n"),
    );
    let p = load(&r);
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let h = a
        .hazards
        .iter()
        .find(|h| h.kind == HazardKind::NumberReused)
        .unwrap_or_else(|| panic!("{:?}", a.hazards));
    assert_eq!(h.element, "t.label");
    assert_eq!(h.number, Some(100));
    assert_eq!(h.versions, ["v1.0.0", "v1.1.0", "v1.2.0"]);
    assert!(h.message.contains("t.E (extensions)"), "{}", h.message);
    // The message's lifecycle shows its extensions as rows of their own.
    let l = policy::lifecycle(&p.versions, "t.E");
    let row = l.rows.iter().find(|r| r.number == 100).expect("row 100");
    assert_eq!(row.names, ["[t.size]", "[t.label]"]);
    use State::*;
    assert_eq!(
        row.cells.iter().map(|c| c.state).collect::<Vec<_>>(),
        [Added, Removed, Added]
    );
}
