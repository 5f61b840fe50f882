//! Every compatibility policy on one history (previous version, transitive, TILL, combined),
//! with and without strict, and the levels judging different cells.

use super::{commit_tag, evolving, load};
use crate::common::{Repo, proto};
use protolapse::load::Project;
use protolapse::policy::{self, Analysis, Level, Policy, Settings};
use protolapse::rules::RuleId;

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

/// An added rpc or service changes no data: forward policies pass (a new client calling an
/// old server gets UNIMPLEMENTED, which the message notes); removing one still fails backward.
#[test]
fn added_rpcs_and_services_pass_forward_policies_and_removals_fail() {
    let mut r = Repo::new();
    let one = "message Req {}\nservice Svc {\n  rpc Get(Req) returns (Req);\n}";
    let more = "message Req {}\nservice Svc {\n  rpc Get(Req) returns (Req);\n  rpc List(Req) returns (Req);\n}\nservice Admin {\n  rpc Reset(Req) returns (Req);\n}";
    commit_tag(&mut r, "v1.0.0", "t.proto", &proto("t", one));
    commit_tag(&mut r, "v1.1.0", "t.proto", &proto("t", more));
    commit_tag(&mut r, "v2.0.0", "t.proto", &proto("t", one));
    let p = load(&r);
    for level in [Level::Wire, Level::Json] {
        for policy in ["FORWARD", "FULL"] {
            assert_eq!(
                passes(&analyze(&p, policy, level, true))[..2],
                [true, true],
                "{policy}"
            );
        }
        assert_eq!(
            passes(&analyze(&p, "BACKWARD", level, false)),
            [true, true, false],
            "removals break old clients"
        );
    }
}
