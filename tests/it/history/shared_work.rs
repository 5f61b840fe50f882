//! What reading and compiling a history shares and keeps apart: a broken version never hides
//! the rest, blobs and compiled file sets are shared across versions, and fingerprints ignore
//! comments but not content.

use super::{A1, A2, opts};
use crate::common::{Repo, proto};
use protolapse::judge::{Comparer, Ignores, Scope};
use protolapse::load;
use protolapse::schema::Status;

#[test]
fn a_broken_tag_never_hides_the_rest() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", A1));
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "a.proto",
        "syntax = \"proto3\";\nmessage A {\n  int32 x = ;\n}\n",
    );
    r.write("b.proto", &proto("q", "message B {}"));
    r.write(
        "c.proto",
        "syntax = \"proto3\";\nimport \"missing.proto\";\n",
    );
    r.commit("two");
    r.tag("v1.1.0");
    std::fs::write(r.path().join("a.proto"), [b's', 0xff, 0xfe]).unwrap();
    r.remove("b.proto");
    r.remove("c.proto");
    r.commit("three");
    r.tag("v1.2.0");
    r.write("a.proto", &proto("p", A2));
    r.commit("four");
    r.tag("v2.0.0");

    let p = load::load(r.path(), &opts(), |_, _| {}).unwrap();
    let status: Vec<Status> = p.versions.iter().map(|v| v.compiled.status).collect();
    assert_eq!(
        status,
        [
            Status::Complete,
            Status::Partial,
            Status::Failed,
            Status::Complete
        ]
    );
    let broken = &p.versions[1].compiled;
    assert_eq!((broken.files_ok, broken.files_total), (1, 3));
    let a = broken
        .diagnostics
        .iter()
        .find(|d| d.file == "a.proto")
        .unwrap();
    assert_eq!((a.line, a.column), (3, 13));
    let c = broken
        .diagnostics
        .iter()
        .find(|d| d.file == "c.proto")
        .unwrap();
    assert!(c.message.contains("missing.proto"), "{c:?}");
    let bad = &p.versions[2].compiled.diagnostics[0];
    assert!(bad.message.contains("UTF-8"), "{bad:?}");
    assert!(p.versions[2].fingerprint().is_none());
}

#[test]
fn blobs_and_file_sets_are_shared_across_versions() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", A1));
    r.write("b.proto", &proto("q", "message B {}"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("README.md", "not a proto change");
    r.commit("docs");
    r.tag("v1.0.1");
    r.write("a.proto", &proto("p", A2));
    r.commit("two");
    r.tag("v1.1.0");

    let p = load::load(r.path(), &opts(), |_, _| {}).unwrap();
    let s = &p.stats;
    assert_eq!(s.blobs_read, 3, "a.proto twice, b.proto once");
    assert_eq!(s.compile.blobs_parsed, 3);
    assert_eq!((s.compile.sets_compiled, s.compile.sets_reused), (2, 1));
    assert_eq!(
        p.versions[1]
            .unchanged_since
            .map(|s| p.versions[s.index()].name()),
        Some("v1.0.0")
    );
    assert!(std::sync::Arc::ptr_eq(
        &p.versions[0].compiled,
        &p.versions[1].compiled
    ));
}

/// Tags on one commit read its tree once: their versions share one file list (2,000 tags on
/// one commit of 10,000 files were 2,000 listings, 7.7 GB), each with its own name, and one
/// compiled schema; a pair of them has nothing to compare.
#[test]
fn tags_on_one_tree_share_its_reading() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", A1));
    r.commit("one");
    r.tag("v1.0.0").tag("v1.0.1");
    r.annotated("v1.0.2", "the same again");
    r.write("a.proto", &proto("p", A2));
    r.commit("two");
    r.tag("v1.1.0");

    let h = protolapse::history::load(r.path(), &opts()).unwrap();
    let v = &h.versions;
    let names: Vec<&str> = v.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["v1.0.0", "v1.0.1", "v1.0.2", "v1.1.0"]);
    assert!(std::sync::Arc::ptr_eq(&v[0].files, &v[1].files));
    assert!(std::sync::Arc::ptr_eq(&v[0].files, &v[2].files));
    assert!(!std::sync::Arc::ptr_eq(&v[0].files, &v[3].files));
    assert_eq!(v[2].message.as_deref(), Some("the same again"));
    assert_eq!(v[0].message, None);
    assert_eq!(v[0].commit, v[1].commit);

    let p = load::load(r.path(), &opts(), |_, _| {}).unwrap();
    // Only the first version of a tree reaches the compiler; the others take its result.
    let s = &p.stats.compile;
    assert_eq!((s.sets_compiled, s.sets_reused), (2, 0));
    assert!(std::sync::Arc::ptr_eq(
        &p.versions[0].compiled,
        &p.versions[2].compiled
    ));
    let cmp = Comparer::new(&p, Scope::Whole, Ignores::default());
    let id = |i: usize| p.versions[i].id;
    assert_eq!(cmp.changes(id(0), id(1)).map(|c| c.len()), Some(0));
    assert!(cmp.changes(id(2), id(3)).is_some_and(|c| !c.is_empty()));
}

#[test]
fn comments_do_not_change_the_fingerprint_but_content_does() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", A1));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("a.proto", &proto("p", &A1.replace("First.", "Reworded.")));
    r.commit("comment");
    r.tag("v1.0.1");
    r.write("a.proto", &proto("p", &A1.replace("int32", "int64")));
    r.commit("type");
    r.tag("v1.1.0");

    let p = load::load(r.path(), &opts(), |_, _| {}).unwrap();
    let fp: Vec<&str> = p
        .versions
        .iter()
        .map(|v| v.fingerprint().unwrap())
        .collect();
    assert_eq!(fp[0], fp[1]);
    assert_ne!(fp[1], fp[2]);
    assert_eq!(fp[0].len(), 64);
    assert_eq!(
        p.versions[1]
            .unchanged_since
            .map(|s| p.versions[s.index()].name()),
        Some("v1.0.0")
    );
    assert_eq!(p.versions[2].unchanged_since, None);
    let a = p.versions[1].compiled.schema.doc("p.A").unwrap();
    assert_eq!((&*a.comment, a.line), ("Reworded.", 5));
    let x = p.versions[1].compiled.schema.doc("p.A.x").unwrap();
    assert_eq!((&*x.file, x.line), ("a.proto", 6));
}
