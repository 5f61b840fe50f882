//! A transitive policy reads each pair of versions as a summary (worst verdict and warnings
//! per level and direction, changes not judged), which the comparer adds up unit by unit —
//! a pair of declarations judged once wherever it meets, with the types its rules looked up
//! by name. Each summary must equal the counts of the pair's changes judged from scratch:
//! on real histories (otel; protobuf's tags, with files that fail to compile, renamed and
//! retyped messages, editions), and on a history made so that one unit's verdict changes
//! with a type it reads while the unit's own declarations stay the same.

use crate::common::{Repo, proto};
use crate::fixtures_real::{clone, fixture};
use protolapse::history::HistoryOptions;
use protolapse::judge::{Comparer, Ignores, PairSummary, Scope, Side, judge};
use protolapse::load::{self, Project};
use protolapse::rules::RuleId;

/// Every pair of versions (old before new) in `scope`: the comparer's summary against the
/// judged changes'. Returns how many pairs differed in anything.
fn check_all_pairs(p: &Project, scope: Scope) -> usize {
    let cmp = Comparer::new(p, scope.clone(), Ignores::default());
    let mut differing = 0;
    for (j, new) in p.versions.iter().enumerate() {
        for old in &p.versions[..j] {
            let (Some(a), Some(b)) = (Side::of(old), Side::of(new)) else {
                continue;
            };
            // A summary leaves comments out (they never change a verdict, and a comment in
            // a file that did not compile is not a change it counts as not judged).
            let changes: Vec<_> = judge(&a, &b, &scope, &Ignores::default())
                .into_iter()
                .filter(|c| c.rule != RuleId::COMMENT_CHANGED)
                .collect();
            let want = PairSummary::of(&changes);
            let got = cmp.summary(old.id, new.id).expect("both compiled");
            assert_eq!(
                got, want,
                "{} -> {} in {scope:?}",
                old.version.name, new.version.name
            );
            differing += usize::from(want != PairSummary::default());
        }
    }
    differing
}

fn load_tags(repo: &std::path::Path, tags: &str, proto_paths: Vec<String>) -> Project {
    let options = HistoryOptions {
        tags: Some(tags.into()),
        proto_paths,
        ..Default::default()
    };
    load::load(repo, &options, |_, _| {}).expect("load")
}

#[test]
fn summaries_equal_the_judged_changes_on_protobufs_tags() {
    let Some(bundle) = fixture("protobuf-src-tags.bundle") else {
        return;
    };
    let dir = clone(&bundle);
    // 13 tags from v2.5.0 to v35.0: files that protoc rejects, unittest packages renamed.
    let p = load_tags(&dir.path().join("repo"), "v*[05].0", vec!["src".into()]);
    assert_eq!(p.versions.len(), 13);
    assert!(p.versions.iter().any(|v| !v.failed_files.is_empty()));
    let pairs = 13 * 12 / 2;
    assert!(check_all_pairs(&p, Scope::Whole) > pairs - 10);
    for root in [
        "google.protobuf.FileDescriptorSet",
        "protobuf_unittest.TestAllTypes",
    ] {
        assert!(check_all_pairs(&p, Scope::Root(root.into())) > 0, "{root}");
    }
}

#[test]
fn summaries_equal_the_judged_changes_on_otels_tags() {
    let Some(bundle) = fixture("opentelemetry-proto.bundle") else {
        return;
    };
    let dir = clone(&bundle);
    let p = load_tags(&dir.path().join("repo"), "v*", Vec::new());
    assert!(p.versions.len() >= 30);
    assert!(check_all_pairs(&p, Scope::Whole) > 100);
    let root = "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest";
    assert!(check_all_pairs(&p, Scope::Root(root.into())) > 10);
}

/// A history of one file `s.proto` in package `t`, one tag (`v1.0.0`, `v1.1.0`, ...) per
/// body, loaded.
fn tagged(bodies: &[impl AsRef<str>]) -> Project {
    let mut r = Repo::new();
    for (i, body) in bodies.iter().enumerate() {
        r.write("s.proto", &proto("t", body.as_ref()));
        let tag = format!("v1.{i}.0");
        r.commit(&tag);
        r.tag(&tag);
    }
    let p = load::load(r.path(), &HistoryOptions::default(), |_, _| {}).expect("load");
    assert_eq!(p.versions.len(), bodies.len());
    p
}

/// `Root` keeps one declaration from v2 on (its field's type is renamed to `Item`), while
/// `Item` changes under it: a verdict on `Root` that was kept from v1 -> v2 would be wrong
/// for v1 -> v3 and v1 -> v4, which hold the same `Root`.
#[test]
fn a_unit_is_judged_again_where_a_type_it_reads_differs() {
    let versions = [
        "message Root {\n  Old item = 1;\n}\nmessage Old {\n  int32 a = 1;\n}",
        "message Root {\n  Item item = 1;\n}\nmessage Item {\n  int32 a = 1;\n}",
        "message Root {\n  Item item = 1;\n}\nmessage Item {\n  string a = 1;\n}",
        "message Root {\n  Item item = 1;\n}\nmessage Item {\n  int64 a = 1;\n  bool b = 2;\n}",
        "message Root {\n  Item item = 1;\n}\nmessage Item {\n  int32 a = 1;\n}",
    ];
    let p = tagged(&versions);
    for scope in [Scope::Whole, Scope::Root("t.Root".into())] {
        assert!(check_all_pairs(&p, scope) >= 8);
    }
    // The verdicts do differ: v1.0.0 -> v1.1.0 reads `Old` as the same shape; -> v1.2.0 not.
    let cmp = Comparer::new(&p, Scope::Root("t.Root".into()), Ignores::default());
    let at = |i: usize| p.versions[i].id;
    let safe = cmp.summary(at(0), at(1)).expect("compiled");
    let broken = cmp.summary(at(0), at(2)).expect("compiled");
    assert_ne!(safe.worst, broken.worst);
}

/// `R1` and `R2` both retype a field from `Old` to `Item`, which differ in a field's name
/// and retype theirs from `OldSub` to `Sub`: the comparison of the two types, worked out for
/// `R1`, is kept and given to `R2` with what it looked up (`Sub`, compared inside with
/// `OldSub`). When `Sub` changes under the same `R1`, `R2` and `Item`,
/// each unit that met the comparison is judged again: every pair's change list, from the
/// comparer in that order, equals the one judged from scratch.
#[test]
fn a_kept_comparison_of_two_types_carries_what_it_read() {
    let item = |sub: &str| {
        format!(
            "message R1 {{\n  Item x = 1;\n}}\nmessage R2 {{\n  Item y = 1;\n}}\nmessage Item {{\n  Sub s = 1;\n  int32 b = 2;\n}}\nmessage Sub {{\n  {sub} n = 1;\n}}"
        )
    };
    let versions = [
        "message R1 {\n  Old x = 1;\n}\nmessage R2 {\n  Old y = 1;\n}\nmessage Old {\n  OldSub s = 1;\n  int32 a = 2;\n}\nmessage OldSub {\n  int32 n = 1;\n}".to_string(),
        item("int32"),
        item("string"),
        item("int32"),
    ];
    let p = tagged(&versions);
    let cmp = Comparer::new(&p, Scope::Whole, Ignores::default());
    let list = |changes: Vec<protolapse::rules::Change>| -> Vec<String> {
        changes
            .iter()
            .filter(|c| c.rule != RuleId::COMMENT_CHANGED)
            .map(|c| format!("{} {} {:?}", c.rule, c.element, c.verdict))
            .collect()
    };
    let mut retyped = Vec::new();
    for (j, new) in p.versions.iter().enumerate() {
        for old in &p.versions[..j] {
            let (Some(a), Some(b)) = (Side::of(old), Side::of(new)) else {
                panic!("every version compiles");
            };
            let want = list(judge(&a, &b, &Scope::Whole, &Ignores::default()));
            let got = list(cmp.changes(old.id, new.id).expect("both compiled"));
            assert_eq!(got, want, "{} -> {}", old.version.name, new.version.name);
            if old.id.index() == 0 {
                retyped.extend(want.into_iter().filter(|c| c.contains("t.R2.y")));
            }
        }
    }
    // From v1.0.0, R2's field reads Sub differently in v1.2.0 than in v1.1.0 and v1.3.0.
    assert_eq!(retyped.len(), 3, "{retyped:#?}");
    assert_eq!(retyped[0], retyped[2]);
    assert_ne!(retyped[0], retyped[1]);
}
