//! The explorer's core on the demo history and on small hand-made histories: comparison
//! trees with every change attached, cycles, filters, paths, facts, lifecycles and names.

use std::collections::HashSet;
use std::sync::OnceLock;

use protolapse::explore::compare::{Comparison, Layout, Path, Sides, Step};
use protolapse::explore::facts::{self, Mark};
use protolapse::explore::names;
use protolapse::history::demo::{Snapshot, write_repo};
use protolapse::history::{self, HistoryOptions};
use protolapse::judge::{Ignores, Scope};
use protolapse::load::{self, Loaded, Project, VersionId, lineage};
use protolapse::policy::{SemverVerdict, Settings};
use protolapse::rules::{Bump, RuleId, Severity};

fn demo() -> &'static Project {
    static P: OnceLock<Project> = OnceLock::new();
    P.get_or_init(|| {
        let dir = history::demo::build().unwrap();
        load::load(dir.path(), &HistoryOptions::default(), |_, _| {}).unwrap()
    })
}

fn index(p: &Project, name: &str) -> usize {
    p.versions
        .iter()
        .position(|v| v.version.name == name)
        .unwrap()
}

fn side(p: &Project, i: usize) -> Loaded {
    p.versions[i].clone()
}

fn compare_in(p: &Project, old: &str, new: &str, root: &str) -> Comparison {
    Comparison::build(
        Some(side(p, index(p, old))),
        side(p, index(p, new)),
        root,
        &Ignores::default(),
    )
}

fn compare(old: &str, new: &str, root: &str) -> Comparison {
    compare_in(demo(), old, new, root)
}

fn all_rows(c: &Comparison) -> Vec<protolapse::explore::Row> {
    let all: HashSet<Path> = c.expand_all(&[], false, 10_000).into_iter().collect();
    c.rows(&all, Layout::default())
}

fn node_at<'a>(
    rows: &'a [protolapse::explore::Row],
    element: &str,
) -> &'a protolapse::explore::Row {
    rows.iter()
        .find(|r| r.node.element == element)
        .unwrap_or_else(|| panic!("no node {element}"))
}

fn rules_of(c: &Comparison, r: &protolapse::explore::Row) -> Vec<RuleId> {
    r.node.changes.iter().map(|&i| c.changes[i].rule).collect()
}

#[test]
fn the_tree_pairs_fields_and_attaches_their_changes() {
    let c = compare("v1.1.1", "v2.0.0", "physics.v1.FlightPath");
    let rows = all_rows(&c);
    let outside = node_at(&rows, "physics.v1.FlightPath.outside");
    assert_eq!(outside.path, vec![Step::Field(3)]);
    assert!(rules_of(&c, outside).contains(&RuleId::FIELD_MESSAGE_TYPE_CHANGED));
    assert_eq!(outside.node.worst, Some(Severity::Breaking));
    assert_eq!(outside.node.ty, "Reading");
    assert_eq!(outside.node.old_ty.as_deref(), Some("Temperature"));
    // A removed field stays in the new tree, on the old side only.
    let label = rows
        .iter()
        .find(|r| r.path == vec![Step::Field(3), Step::Field(3)])
        .unwrap();
    assert_eq!(label.node.name, "label");
    assert_eq!(label.node.sides, Sides::Old);
    assert_eq!(rules_of(&c, label), [RuleId::FIELD_REMOVED]);
    // A renamed field with a new type carries both changes.
    let mk = node_at(&rows, "physics.v1.Reading.milli_kelvin");
    assert_eq!(mk.node.old_name.as_deref(), Some("value"));
    let r = rules_of(&c, mk);
    assert!(
        r.contains(&RuleId::FIELD_RENAMED) && r.contains(&RuleId::FIELD_TYPE_CHANGED),
        "{r:?}"
    );
    // The root carries its type-level changes; below it, the worst.
    assert!(rules_of(&c, &rows[0]).contains(&RuleId::ONEOF_RENAMED));
    assert_eq!(rows[0].node.below, Some(Severity::Breaking));
    // Unchanged fields have nothing.
    let id = node_at(&rows, "physics.v1.FlightPath.id");
    assert!(id.node.changes.is_empty() && id.node.worst.is_none() && id.node.below.is_none());
}

#[test]
fn every_change_of_every_demo_pair_lands_on_a_node() {
    let p = demo();
    for root in ["physics.v1.FlightPath", "physics.v1.FlightService"] {
        for w in 1..p.versions.len() {
            let prev = lineage::previous_to_compare(&p.versions, VersionId::at(w));
            let Some(prev) = prev else { continue };
            let c = Comparison::build(
                Some(side(p, prev.index())),
                side(p, w),
                root,
                &Ignores::default(),
            );
            let unattached: Vec<String> = c
                .unattached
                .iter()
                .map(|&i| format!("{} {}", c.changes[i].rule, c.changes[i].element))
                .collect();
            assert!(
                unattached.is_empty(),
                "{root} {} -> {}: {unattached:?}",
                c.old.name(),
                c.new.name()
            );
            for i in 0..c.changes.len() {
                assert!(c.path_of_change(i).is_some(), "change {i} has no path");
            }
        }
    }
}

#[test]
fn services_expand_into_rpcs_requests_and_responses() {
    let c = compare("v0.1.0", "v0.2.0", "physics.v1.FlightService");
    let rows = all_rows(&c);
    let list = node_at(&rows, "physics.v1.FlightService.ListFlights");
    assert_eq!(list.node.sides, Sides::New);
    assert_eq!(rules_of(&c, list), [RuleId::RPC_ADDED]);
    let kelvin = rows
        .iter()
        .find(|r| r.node.name == "SCALE_KELVIN")
        .expect("enum values are nodes");
    assert_eq!(rules_of(&c, kelvin), [RuleId::ENUM_VALUE_ADDED]);
    // The rpc's response reaches the root's types: what changed there shows below the rpc,
    // the worst being SCALE_KELVIN, whose name an old ProtoJSON parser rejects.
    let get = node_at(&rows, "physics.v1.FlightService.GetFlight");
    assert_eq!(get.node.below, Some(Severity::Breaking));
}

#[test]
fn the_changed_only_layout_keeps_changed_paths() {
    let c = compare("v1.1.1", "v2.0.0", "physics.v1.FlightPath");
    let expanded: HashSet<Path> = c.expand_all(&[], true, 1000).into_iter().collect();
    let rows = c.rows(
        &expanded,
        Layout {
            changed_only: true,
            limit: 0,
        },
    );
    assert!(rows.len() > 5);
    assert!(
        rows.iter()
            .all(|r| r.depth == 0 || r.node.worst_here_or_below().is_some())
    );
    assert!(
        !rows
            .iter()
            .any(|r| r.node.element == "physics.v1.FlightPath.id")
    );
    // Every change is visible in the filtered, expanded tree.
    let shown: HashSet<usize> = rows.iter().flat_map(|r| r.node.changes.clone()).collect();
    assert_eq!(shown.len(), c.changes.len() - c.unattached.len());
}

#[test]
fn paths_lead_to_names_and_changes() {
    let c = compare("v1.1.1", "v2.0.0", "physics.v1.FlightPath");
    let p = c.path_to("physics.v1.Reading.milli_kelvin").unwrap();
    assert_eq!(p, vec![Step::Field(3), Step::Field(1)]);
    assert_eq!(c.node(&p).unwrap().name, "milli_kelvin");
    // The old name finds the same node.
    assert_eq!(c.path_to("physics.v1.Temperature.value"), Some(p));
    assert_eq!(c.path_to("physics.v1.Reading"), Some(vec![Step::Field(3)]));
    assert_eq!(c.path_to("physics.v1.NoSuchThing"), None);
}

fn history_of(snaps: &[(&str, &str)]) -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    let snapshots: Vec<Snapshot> = snaps
        .iter()
        .map(|(tag, text)| Snapshot {
            tag: tag.to_string(),
            message: None,
            files: vec![("t.proto".to_string(), text.to_string())],
        })
        .collect();
    write_repo(dir.path(), &snapshots, 1_700_000_000, 86_400).unwrap();
    let p = load::load(dir.path(), &HistoryOptions::default(), |_, _| {}).unwrap();
    (dir, p)
}

#[test]
fn cycles_are_marked_and_not_expanded() {
    let a = "syntax = \"proto3\"; package p;\n\
             message Tree { Node root = 1; }\n\
             message Node { repeated Node children = 1; Tree owner = 2; }\n";
    let b = "syntax = \"proto3\"; package p;\n\
             message Tree { Node root = 1; string name = 2; }\n\
             message Node { repeated Node children = 1; Tree owner = 2; int64 weight = 3; }\n";
    let (_dir, p) = history_of(&[("v1.0.0", a), ("v1.1.0", b)]);
    let c = compare_in(&p, "v1.0.0", "v1.1.0", "p.Tree");
    let rows = all_rows(&c);
    let cycles: Vec<&str> = rows
        .iter()
        .filter(|r| r.cycle)
        .map(|r| r.node.name.as_str())
        .collect();
    assert_eq!(cycles, ["children", "owner"]);
    assert!(rows.iter().filter(|r| r.cycle).all(|r| !r.expanded));
    assert!(rows.len() < 20, "{}", rows.len());
    // Changes below a cycle still reach the root.
    assert_eq!(rows[0].node.below, Some(Severity::Hazard));
    let weight = node_at(&rows, "p.Node.weight");
    assert_eq!(weight.node.sides, Sides::New);
}

#[test]
fn facts_carry_the_analysis_semver_verdicts_and_hazards() {
    let p = demo();
    let f = facts::analyze(p, &Settings::default());
    assert_eq!(f.error, None);
    let at = |n: &str| &f.versions[index(p, n)];
    assert_eq!(at("v0.1.0").previous, None);
    let id = |n: &str| VersionId::at(index(p, n));
    assert_eq!(at("v1.1.0").previous, Some(id("v1.0.0")));
    assert_eq!(at("v1.1.0").semver, Some(SemverVerdict::TooSmall));
    assert_eq!(at("v1.1.0").required, Some(Bump::Major));
    assert_eq!(at("v1.1.0").bump, Some(Bump::Minor));
    assert!(at("v1.1.0").reason.is_some());
    assert_eq!(at("v1.0.0").semver, Some(SemverVerdict::Ok));
    // After the broken v1.2.0, v2.0.0 compares with v1.1.1.
    assert_eq!(at("v2.0.0").previous, Some(id("v1.1.1")));
    assert!(at("v1.1.0").worst.is_some() && at("v1.1.0").changes > 0);
    // The reuse of removed numbers is a history-wide hazard of v1.1.1.
    assert!(!at("v1.1.1").hazards.is_empty(), "{:?}", at("v1.1.1"));
    // The analysis takes its previous versions from the one place that decides them.
    for v in &p.versions {
        assert_eq!(
            lineage::previous_to_compare(&p.versions, v.id),
            f.versions[v.id.index()].previous,
            "{}",
            v.name()
        );
    }
    // While the history loads, a version not compiled yet is no candidate: with v1.1.1
    // pending, v2.0.0 is compared with a compiled release below it.
    let mut loading = p.versions.clone();
    let pending = index(p, "v1.1.1");
    loading[pending] = Loaded::pending(id("v1.1.1"), loading[pending].version.clone());
    let prev = lineage::previous_to_compare(&loading, id("v2.0.0"));
    assert!(prev.is_some_and(|x| x != id("v1.1.1") && loading[x.index()].schema().is_some()));
}

#[test]
fn the_policy_matrix_judges_every_version_with_every_policy() {
    let p = demo();
    let m = facts::policy_matrix(p, &Settings::default());
    let col = |n: &str| m.columns.iter().find(|c| c.name == n).unwrap();
    assert_eq!(m.columns.len(), 8);
    let any = col("ALLOW_ANY");
    assert_eq!(
        any.results[0], None,
        "the first version has nothing to check"
    );
    assert!(any.results[1..].iter().all(|r| *r != Some(Mark::Fail)));
    let backward = col("BACKWARD");
    let v110 = index(p, "v1.1.0");
    assert_eq!(backward.results[v110], Some(Mark::Fail));
    assert!(
        backward.reasons[v110]
            .as_deref()
            .unwrap_or("")
            .contains("BACKWARD")
    );
    let deny = col("DENY_ALL");
    assert_eq!(deny.results[index(p, "v0.2.0")], Some(Mark::Fail));
}

/// The demo's v1.2.0 compiled 5 of its 7 files, and FlightPath's file is one of those that
/// did not: reached from FlightPath, nothing of v1.2.0 was read, so no check passes on it.
#[test]
fn a_version_whose_root_did_not_compile_is_not_judged_anywhere() {
    let p = demo();
    let settings = Settings {
        scope: Scope::Root("physics.v1.FlightPath".into()),
        ..Settings::default()
    };
    let v120 = index(p, "v1.2.0");
    let m = facts::policy_matrix(p, &settings);
    for c in &m.columns {
        assert_eq!(c.results[v120], Some(Mark::NotJudged), "{}", c.name);
        let why = c.reasons[v120].as_deref().unwrap_or("");
        assert!(why.starts_with("not judged: "), "{}: {why}", c.name);
    }
    let f = facts::analyze(p, &settings);
    let at = &f.versions[v120];
    assert_eq!(at.semver, Some(SemverVerdict::NotJudged));
    assert_eq!(at.semver.and_then(Mark::of_semver), Some(Mark::NotJudged));
    let reason = at.reason.as_deref().unwrap_or("");
    assert!(
        reason.contains("the root's file, did not compile in v1.2.0"),
        "{reason}"
    );
    // The whole schema: the changes in its two broken files are not judged, so neither
    // is the version; the versions around it still are.
    let whole = facts::analyze(p, &Settings::default());
    assert_eq!(whole.versions[v120].semver, Some(SemverVerdict::NotJudged));
    assert_eq!(
        whole.versions[index(p, "v2.0.0")].semver,
        Some(SemverVerdict::Ok)
    );
}

#[test]
fn names_are_found_fuzzily_across_versions() {
    let p = demo();
    let mut ix = names::Index::new();
    for (i, v) in p.versions.iter().enumerate() {
        ix.add(i, &v.compiled.schema.content);
    }
    let hits = ix.search("flightp", true, 10);
    let first = &ix.entries[hits[0].entry];
    assert_eq!(first.name, "physics.v1.FlightPath");
    assert_eq!(first.first, 0);
    assert!(!hits[0].indices.is_empty());
    assert!(hits.iter().all(|h| ix.entries[h.entry].kind.is_root()));
    // Fields too, with the versions they lived in.
    let hits = ix.search("v1.Tag.key", false, 5);
    let e = &ix.entries[hits[0].entry];
    assert_eq!(e.name, "physics.v1.Tag.key");
    assert_eq!(e.kind, names::Kind::Field);
    assert_eq!((e.first, e.last), (index(p, "v0.2.0"), index(p, "v0.3.0")));
    // An empty query lists roots by name.
    assert!(!ix.search("", true, 100).is_empty());
}

/// A message's extensions are nodes among its fields, named `[pkg.name]`, with their changes.
#[test]
fn extensions_are_nodes_of_the_message_they_extend() {
    let c = compare("v2.1.0", "v2.2.0", "physics.v1.Annotation");
    let rows = all_rows(&c);
    let ext = node_at(&rows, "physics.v1.source");
    assert_eq!(ext.node.name, "[physics.v1.source]");
    assert_eq!(ext.path, vec![Step::Field(100)]);
    assert_eq!(ext.node.sides, Sides::New);
    assert_eq!(rules_of(&c, ext), [RuleId::EXTENSION_ADDED]);
    // Removed in 3.0: still in the tree, on the old side, with its removal.
    let c = compare("v2.2.0", "v3.0.0", "physics.v1.Annotation");
    let rows = all_rows(&c);
    let ext = node_at(&rows, "physics.v1.source");
    assert_eq!(ext.node.sides, Sides::Old);
    assert_eq!(rules_of(&c, ext), [RuleId::EXTENSION_REMOVED]);
    assert!(
        c.unattached
            .iter()
            .all(|&i| c.changes[i].rule != RuleId::EXTENSION_REMOVED)
    );
}
