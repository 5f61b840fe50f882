//! Transitive policies over distinct schemas: a history whose contents repeat (A, B, A, B, C)
//! is judged as the straightforward computation judges it — every version against every
//! earlier tag, each pair compared from scratch — in the whole schema and in a root's scope
//! (where versions that differ only outside what the root reaches are compared once).

use std::collections::BTreeSet;

use proptest::prelude::*;

use crate::common::{Repo, proto};
use protolapse::history::HistoryOptions;
use protolapse::judge::{Ignores, Scope, Side, judge};
use protolapse::load::{self, Project, lineage};
use protolapse::policy::registry::{earlier_tags, requirements};
use protolapse::policy::{self, Policy, Settings};
use protolapse::rules::Severity;

/// The schemas a history is drawn from. `Root` reaches `M` (and `E`); `U` is outside what it
/// reaches, so variants 0 and 4, and 1 and 5, are equal in the root's scope only.
const SCHEMAS: [&str; 6] = [
    "message Root {\n  M m = 1;\n}\nmessage M {\n  int32 a = 1;\n  string b = 2;\n}\nmessage U {\n  int32 x = 1;\n}",
    "message Root {\n  M m = 1;\n}\nmessage M {\n  string a = 1;\n}\nmessage U {\n  int32 x = 1;\n}",
    "message Root {\n  M m = 1;\n  E e = 2;\n}\nmessage M {\n  int32 a = 1;\n  string b = 2;\n  bool c = 3;\n}\nenum E {\n  E_ZERO = 0;\n}\nmessage U {\n  int32 x = 1;\n}",
    "message Root {\n  M m = 1;\n}\nmessage M {\n  double a = 1;\n  reserved 2;\n}\nmessage U {\n  int32 x = 1;\n}",
    "message Root {\n  M m = 1;\n}\nmessage M {\n  int32 a = 1;\n  string b = 2;\n}\nmessage U {\n  string x = 1;\n}",
    "message Root {\n  M m = 1;\n}\nmessage M {\n  string a = 1;\n}",
];

/// A history with one tag per entry: (tag, schema index).
fn history(tags: &[(&str, usize)]) -> (Repo, Project) {
    let mut r = Repo::new();
    for (tag, k) in tags {
        r.write("s.proto", &proto("t", SCHEMAS[*k]));
        r.commit(tag);
        r.tag(tag);
    }
    let p = load::load(r.path(), &HistoryOptions::default(), |_, _| {}).expect("load");
    (r, p)
}

/// One version's verdict: pass, the nearest version it fails against, every version it fails
/// against and every version it was checked against (names, nearest first).
type Verdict = (bool, Option<String>, Vec<String>, Vec<String>);

fn computed(p: &Project, policy: &Policy, scope: &Scope) -> Vec<Verdict> {
    let settings = Settings {
        scope: scope.clone(),
        policy: Some(policy.clone()),
        ..Default::default()
    };
    let a = policy::analyze(p, &settings).expect("analyze");
    a.versions
        .iter()
        .map(|r| {
            let r = r.policy.as_ref().expect("a policy result");
            (
                r.pass,
                r.against.clone(),
                r.failed_against.clone(),
                r.checked.clone(),
            )
        })
        .collect()
}

/// The reference: every version against every version its policy names, each pair judged
/// from scratch with `judge` (no sharing of any kind), at the wire level.
fn naive(p: &Project, policy: &Policy, scope: &Scope) -> Vec<Verdict> {
    let versions = &p.versions;
    let previous = lineage::previous_of_each(versions);
    versions
        .iter()
        .map(|v| {
            let pre = v.version.semver.as_ref().is_some_and(|s| !s.pre.is_empty());
            let earlier = earlier_tags(versions, v.id, !pre);
            let reqs = requirements(policy, versions, previous[v.id.index()], &earlier);
            let (mut failed, mut checked) = (Vec::new(), Vec::new());
            for (j, backward, forward) in reqs {
                let old = &versions[j.index()];
                let (Some(a), Some(b)) = (Side::of(old), Side::of(v)) else {
                    continue;
                };
                checked.push(old.version.name.clone());
                let changes = judge(&a, &b, scope, &Ignores::default());
                let fails = changes.iter().filter(|c| c.ignored.is_none()).any(|c| {
                    (backward && c.verdict.wire.backward == Severity::Breaking)
                        || (forward && c.verdict.wire.forward == Severity::Breaking)
                });
                if fails {
                    failed.push(old.version.name.clone());
                }
            }
            (failed.is_empty(), failed.first().cloned(), failed, checked)
        })
        .collect()
}

const TRANSITIVE: [Policy; 3] = [
    Policy::BackwardTransitive,
    Policy::ForwardTransitive,
    Policy::FullTransitive,
];

fn scopes() -> [Scope; 2] {
    [Scope::Whole, Scope::Root("t.Root".into())]
}

#[test]
fn repeated_contents_judge_as_every_pair_does() {
    let (_r, p) = history(&[
        ("v1.0.0", 0),
        ("v1.1.0", 1),
        ("v1.2.0", 0),
        ("v1.3.0", 1),
        ("v1.4.0", 2),
        ("v1.5.0", 4),
        ("v1.6.0", 5),
        ("v1.7.0", 3),
    ]);
    // The history repeats: fewer distinct contents than versions.
    let distinct: BTreeSet<&str> = p.versions.iter().filter_map(|v| v.fingerprint()).collect();
    assert_eq!(distinct.len(), 6);
    for scope in scopes() {
        for policy in TRANSITIVE {
            let got = computed(&p, &policy, &scope);
            assert_eq!(got, naive(&p, &policy, &scope), "{policy} in {scope:?}");
        }
    }
    // Something fails, and a version equal to an earlier one still lists it as checked.
    let full = computed(&p, &Policy::FullTransitive, &Scope::Whole);
    assert!(full.iter().any(|v| !v.0));
    assert_eq!(full[2].3, ["v1.1.0", "v1.0.0"]);
    assert_eq!(
        full[2].2,
        ["v1.1.0"],
        "v1.2.0 = v1.0.0 fails only against v1.1.0"
    );
}

#[test]
fn outside_the_root_versions_that_differ_are_one_schema() {
    // v1.1.0 differs from v1.0.0 only in U, which the root does not reach; v1.2.0 also drops
    // U. In the root's scope all three judge alike against v1.3.0's string.
    let (_r, p) = history(&[("v1.0.0", 0), ("v1.1.0", 4), ("v1.2.0", 0), ("v1.3.0", 5)]);
    let root = Scope::Root("t.Root".into());
    let got = computed(&p, &Policy::BackwardTransitive, &root);
    assert_eq!(got, naive(&p, &Policy::BackwardTransitive, &root));
    assert_eq!(got[3].2, ["v1.2.0", "v1.1.0", "v1.0.0"]);
    assert!(got[1].0 && got[2].0, "nothing the root reaches changed");
    // In the whole schema v1.1.0's U breaks against v1.0.0 (int32 -> string).
    let whole = computed(&p, &Policy::BackwardTransitive, &Scope::Whole);
    assert_eq!(whole[1].2, ["v1.0.0"]);
}

#[test]
fn the_policy_matrix_reports_progress_and_stops_when_no_longer_wanted() {
    let (_r, p) = history(&[("v1.0.0", 0), ("v1.1.0", 1), ("v1.2.0", 2), ("v1.3.0", 3)]);
    let settings = Settings::default();
    let seen = std::sync::Mutex::new(Vec::new());
    let m = protolapse::explore::facts::policy_matrix_with(&p, &settings, &|d, t| {
        seen.lock().expect("lock").push((d, t));
        true
    })
    .expect("a matrix");
    let seen = seen.into_inner().expect("lock");
    let total = seen.first().map(|s| s.1).expect("progress");
    assert!(total > 0);
    assert_eq!(seen.last(), Some(&(total, total)), "{seen:?}");
    assert_eq!(m, protolapse::explore::facts::policy_matrix(&p, &settings));
    // Not wanted any more: nothing more is compared, and no matrix comes back.
    let stopped = protolapse::explore::facts::policy_matrix_with(&p, &settings, &|_, _| false);
    assert!(stopped.is_none());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    /// Any short history over a few schemas (repeats likely): the distinct-schema computation
    /// gives every version the verdicts of the all-pairs one, for each transitive policy, in
    /// the whole schema and in the root's scope.
    #[test]
    fn distinct_schemas_give_the_all_pairs_verdicts(
        picks in proptest::collection::vec(0usize..SCHEMAS.len(), 2..7),
        pre in 0usize..8,
    ) {
        let names: Vec<String> = (0..picks.len())
            .map(|i| if i == pre { format!("v1.{i}.0-rc.1") } else { format!("v1.{i}.0") })
            .collect();
        let tags: Vec<(&str, usize)> = names.iter().map(String::as_str).zip(picks).collect();
        let (_r, p) = history(&tags);
        for scope in scopes() {
            for policy in TRANSITIVE {
                prop_assert_eq!(
                    computed(&p, &policy, &scope),
                    naive(&p, &policy, &scope),
                    "{} in {:?}", policy, scope
                );
            }
        }
    }
}
