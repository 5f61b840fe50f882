//! History loading on hand-built repositories: tags, ordering, globs, revisions, the work
//! tree, proto roots, broken versions and shared work.

mod common;

use common::{Repo, proto};
use protolapse::history::{self, HistoryError, HistoryOptions, VersionKind};
use protolapse::load;
use protolapse::schema::Status;

const A1: &str = "// First.\nmessage A {\n  int32 x = 1;\n}";
const A2: &str = "// First.\nmessage A {\n  int32 x = 1;\n  string y = 2;\n}";

fn opts() -> HistoryOptions {
    HistoryOptions {
        worktree: true,
        ..Default::default()
    }
}

fn names(h: &load::Project) -> Vec<String> {
    h.versions.iter().map(|v| v.version.name.clone()).collect()
}

#[test]
fn tags_are_peeled_filtered_and_ordered_by_semver() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", A1));
    r.commit("one");
    r.annotated("v0.2.0", "Second minor\n\nwith a body");
    r.tag("release-candidate"); // not semver: left out by default
    r.write("a.proto", &proto("p", A2));
    r.commit("two");
    r.tag("v0.10.0-rc.1").tag("v0.10.0"); // two tags on one commit
    let tree = r.git(&["rev-parse", "HEAD^{tree}"]);
    r.git(&["tag", "v9.9.9", &tree]); // a tag on a tree
    r.commit("three");
    r.tag("0.9.0"); // no `v`, tagged later than 0.10.0 but older in semver

    let p = load::load(r.path(), &opts(), |_, _| {}).unwrap();
    assert_eq!(names(&p), ["v0.2.0", "0.9.0", "v0.10.0-rc.1", "v0.10.0"]);
    let v020 = &p.versions[0].version;
    assert_eq!(v020.message.as_deref(), Some("Second minor\n\nwith a body"));
    assert_eq!(v020.kind, VersionKind::Tag);
    assert_eq!(p.versions[2].version.message, None);
    assert_eq!(p.versions[2].version.commit, p.versions[3].version.commit);
    // 0.9.0 was tagged on a later commit with the same protos: the run starts there.
    assert_eq!(p.versions[2].unchanged_since.as_deref(), Some("0.9.0"));
    assert_eq!(p.versions[3].unchanged_since.as_deref(), Some("0.9.0"));
    assert_eq!(p.skipped.len(), 1);
    assert_eq!(p.skipped[0].name, "v9.9.9");
    assert!(p.skipped[0].reason.contains("tree"), "{:?}", p.skipped);
}

#[test]
fn glob_strips_the_monorepo_prefix_and_orders_non_semver_by_time() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", A1));
    r.commit("one");
    r.tag("physics/v0.2.0").tag("chem/v1.0.0").tag("zeta-build");
    r.write("a.proto", &proto("p", A2));
    r.commit("two");
    r.tag("physics/v0.1.5").tag("alpha-build");

    let o = HistoryOptions {
        tags: Some("physics/v*".into()),
        ..opts()
    };
    let p = load::load(r.path(), &o, |_, _| {}).unwrap();
    assert_eq!(names(&p), ["physics/v0.1.5", "physics/v0.2.0"]);
    let sv: Vec<String> = p
        .versions
        .iter()
        .map(|v| v.version.semver.as_ref().unwrap().to_string())
        .collect();
    assert_eq!(sv, ["0.1.5", "0.2.0"]);

    let o = HistoryOptions {
        tags: Some("*-build".into()),
        ..opts()
    };
    let p = load::load(r.path(), &o, |_, _| {}).unwrap();
    // Not semver: by commit time, though "alpha" sorts first by name.
    assert_eq!(names(&p), ["zeta-build", "alpha-build"]);
}

#[test]
fn revisions_and_the_work_tree_are_extra_versions() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", A1));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("a.proto", &proto("p", A2));
    r.commit("two");

    let o = HistoryOptions {
        revs: vec!["main".into()],
        ..opts()
    };
    let p = load::load(r.path(), &o, |_, _| {}).unwrap();
    assert_eq!(
        names(&p),
        ["v1.0.0", "main"],
        "a clean tree adds no WORKTREE"
    );
    assert_eq!(p.versions[1].version.kind, VersionKind::Rev);

    // A change that is only in the work tree (and an ignored file that is not).
    r.write(".gitignore", "build/\n");
    r.write("build/gen.proto", "not even protobuf");
    r.write("b.proto", &proto("p", "message B {}"));
    let p = load::load(r.path(), &o, |_, _| {}).unwrap();
    assert_eq!(names(&p), ["v1.0.0", "main", "WORKTREE"]);
    let wt = &p.versions[2];
    assert_eq!(wt.version.kind, VersionKind::Worktree);
    let files: Vec<&str> = wt.version.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, ["a.proto", "b.proto"]);
    assert_eq!(wt.compiled.status, Status::Complete);
    // The blob id of an unchanged file in the work tree is git's own.
    assert_eq!(
        wt.version.files[0].blob,
        p.versions[1].version.files[0].blob
    );

    let err = history::load(
        r.path(),
        &HistoryOptions {
            revs: vec!["nope".into()],
            ..opts()
        },
    )
    .unwrap_err();
    assert!(matches!(err, HistoryError::UnknownRevision { .. }), "{err}");
}

#[test]
fn proto_roots_come_from_flags_then_buf_yaml() {
    let mut r = Repo::new();
    r.write(
        "buf.yaml",
        "version: v2\nmodules:\n  - path: proto\n    excludes: [proto/internal]\n",
    );
    r.write("proto/api/v1/a.proto", &proto("api.v1", A1));
    r.write(
        "proto/api/v1/b.proto",
        "syntax = \"proto3\";\npackage api.v1;\nimport \"api/v1/a.proto\";\nmessage B { A a = 1; }\n",
    );
    r.write("proto/internal/x.proto", "broken on purpose");
    r.write("other/c.proto", &proto("other", "message C {}"));
    r.commit("one");
    r.tag("v1.0.0");

    let p = load::load(r.path(), &opts(), |_, _| {}).unwrap();
    let v = &p.versions[0];
    assert_eq!(v.version.roots_from, "buf.yaml");
    let files: Vec<&str> = v.version.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, ["api/v1/a.proto", "api/v1/b.proto"]);
    assert_eq!(v.compiled.status, Status::Complete);

    let o = HistoryOptions {
        proto_paths: vec!["other".into()],
        ..opts()
    };
    let p = load::load(r.path(), &o, |_, _| {}).unwrap();
    let files: Vec<&str> = p.versions[0]
        .version
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(files, ["c.proto"]);
}

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
    assert_eq!(p.versions[1].unchanged_since.as_deref(), Some("v1.0.0"));
    assert!(std::sync::Arc::ptr_eq(
        &p.versions[0].compiled,
        &p.versions[1].compiled
    ));
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
    assert_eq!(p.versions[1].unchanged_since.as_deref(), Some("v1.0.0"));
    assert_eq!(p.versions[2].unchanged_since, None);
    let a = p.versions[1].compiled.schema.doc("p.A").unwrap();
    assert_eq!((a.comment.as_str(), a.line), ("Reworded.", 5));
    let x = p.versions[1].compiled.schema.doc("p.A.x").unwrap();
    assert_eq!((x.file.as_str(), x.line), ("a.proto", 6));
}

#[test]
fn no_matching_tags_and_no_repository_are_clear_errors() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", A1));
    r.commit("one");
    r.tag("nightly");
    let err = history::load(r.path(), &opts()).unwrap_err().to_string();
    assert!(err.contains("no tag is a semver version"), "{err}");
    assert!(err.contains("nightly") && err.contains("--tags"), "{err}");

    let plain = tempfile::tempdir().unwrap();
    let err = history::load(plain.path(), &opts()).unwrap_err();
    assert!(matches!(err, HistoryError::NotARepository { .. }), "{err}");
    assert!(err.to_string().contains("--demo"));
}
