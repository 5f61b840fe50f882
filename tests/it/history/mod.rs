//! History loading on hand-built repositories: tags, ordering, globs, revisions, the work
//! tree, proto roots, broken versions and shared work.

use crate::common::{Repo, proto};
use protolapse::history::{self, HistoryError, HistoryOptions, Origin, Version, VersionKind};
use protolapse::load;
use protolapse::rules::RuleId;
use protolapse::schema::Status;

const A1: &str = "// First.\nmessage A {\n  int32 x = 1;\n}";
const A2: &str = "// First.\nmessage A {\n  int32 x = 1;\n  string y = 2;\n}";

fn opts() -> HistoryOptions {
    HistoryOptions {
        worktree: true,
        ..Default::default()
    }
}

/// (import path, repository path, origin) of each file of a version.
fn files(v: &Version) -> Vec<(&str, &str, Origin)> {
    v.files
        .iter()
        .map(|f| (f.path.as_str(), f.repo_path.as_str(), f.origin))
        .collect()
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
    assert_eq!(
        p.versions[2]
            .unchanged_since
            .map(|s| p.versions[s.index()].name()),
        Some("0.9.0")
    );
    assert_eq!(
        p.versions[3]
            .unchanged_since
            .map(|s| p.versions[s.index()].name()),
        Some("0.9.0")
    );
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

    let h = history::load(r.path(), &opts()).unwrap();
    let v = &h.versions[0];
    assert_eq!(v.roots_from, "buf.yaml");
    // The excluded file stays in the set, importable but not judged.
    assert_eq!(
        files(v),
        [
            ("api/v1/a.proto", "proto/api/v1/a.proto", Origin::Root),
            ("api/v1/b.proto", "proto/api/v1/b.proto", Origin::Root),
            (
                "internal/x.proto",
                "proto/internal/x.proto",
                Origin::Excluded
            ),
        ]
    );

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

// --- Resolving imports the way the owners' build does ---------------------------------------

const HTTP: &str =
    "syntax = \"proto3\";\npackage google.api;\nmessage HttpRule { string get = 1; }\n";

fn importer(package: &str, imports: &[&str]) -> String {
    let lines: String = imports
        .iter()
        .map(|i| format!("import \"{i}\";\n"))
        .collect();
    format!("syntax = \"proto3\";\npackage {package};\n{lines}message M {{}}\n")
}

/// The tagged version and the work tree read as a version: the same files, read two ways.
fn tag_and_worktree(r: &Repo, o: HistoryOptions) -> (Version, Version) {
    let o = HistoryOptions {
        worktree: true,
        worktree_always: true,
        ..o
    };
    let h = history::load(r.path(), &o).unwrap();
    assert_eq!(h.versions.len(), 2, "{:?}", h.versions);
    let mut it = h.versions.into_iter();
    let (tag, wt) = (it.next().unwrap(), it.next().unwrap());
    assert_eq!(wt.kind, VersionKind::Worktree);
    (tag, wt)
}

/// A file as compared between versions: path, repo path, blob, origin, text.
type FileKey = (String, String, String, Origin, Result<String, String>);

fn same_files(a: &Version, b: &Version) {
    let key = |v: &Version| -> Vec<FileKey> {
        v.files
            .iter()
            .map(|f| {
                let text = f.text.clone().map(|t| t.to_string());
                (
                    f.path.clone(),
                    f.repo_path.clone(),
                    f.blob.clone(),
                    f.origin,
                    text,
                )
            })
            .collect()
    };
    assert_eq!(key(a), key(b), "{} and {} differ", a.name, b.name);
}

fn has_note(v: &Version, part: &str) {
    assert!(
        v.resolution.iter().any(|n| n.contains(part)),
        "no note with {part:?} in {:#?}",
        v.resolution
    );
}

#[test]
fn excluded_files_stay_in_the_set_for_their_importers() {
    let mut r = Repo::new();
    r.write("buf.yaml", "version: v1\nbuild:\n  excludes: [vendor]\n");
    r.write("a.proto", &importer("a", &["vendor/x.proto"]));
    r.write("vendor/x.proto", &proto("vendor", "message X {}"));
    r.commit("one");
    r.tag("v1.0.0");

    let (v, wt) = tag_and_worktree(&r, HistoryOptions::default());
    assert_eq!(
        files(&v),
        [
            ("a.proto", "a.proto", Origin::Root),
            ("vendor/x.proto", "vendor/x.proto", Origin::Excluded),
        ]
    );
    assert!(v.files[1].text.is_ok());
    has_note(
        &v,
        "1 file excluded by buf.yaml is compiled for its importers only",
    );
    same_files(&v, &wt);
}

#[test]
fn a_symlinked_vendor_folder_is_followed_and_compiled_once() {
    // istio/api: third-party protos in common-protos/ (excluded by buf.yaml), reached by
    // their import paths through a committed link `google -> common-protos/google`.
    let mut r = Repo::new();
    r.write(
        "buf.yaml",
        "version: v1\nbuild:\n  excludes:\n    - common-protos\n",
    );
    r.write("api/a.proto", &importer("api", &["google/api/http.proto"]));
    r.write("common-protos/google/api/http.proto", HTTP);
    r.symlink("google", "common-protos/google");
    r.commit("one");
    r.tag("v1.0.0");

    let (v, wt) = tag_and_worktree(&r, HistoryOptions::default());
    assert_eq!(
        files(&v),
        [
            ("api/a.proto", "api/a.proto", Origin::Root),
            (
                "google/api/http.proto",
                "common-protos/google/api/http.proto",
                Origin::Excluded
            ),
        ],
        "{:#?}",
        v.resolution
    );
    has_note(&v, "link `google` -> `common-protos/google` followed");
    has_note(
        &v,
        "common-protos/google/api/http.proto is the same file as google/api/http.proto",
    );
    same_files(&v, &wt);

    // A clean work tree with links is no extra version.
    let h = history::load(r.path(), &opts()).unwrap();
    assert_eq!(h.versions.len(), 1);
}

#[test]
fn links_leaving_the_repository_are_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    let secret = "syntax = \"proto3\";\npackage secret;\nmessage Secret {}\n";
    std::fs::write(outside.path().join("secret.proto"), secret).unwrap();
    let out = outside.path().to_str().unwrap();

    let mut r = Repo::new();
    r.write("a.proto", &proto("a", "message A {}"));
    r.symlink("abs.proto", &format!("{out}/secret.proto"));
    r.symlink("sub/up.proto", "../../secret.proto"); // one `..` too many
    r.symlink("dangling.proto", "nothing/here.proto");
    r.symlink("ext", out); // a folder outside: skipped, nothing read
    r.symlink("sub/ext2", "../.."); // the repository's parent
    r.commit("one");
    r.tag("v1.0.0");

    let (v, wt) = tag_and_worktree(&r, HistoryOptions::default());
    let paths: Vec<&str> = v.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        ["a.proto", "abs.proto", "dangling.proto", "sub/up.proto"]
    );
    let err = |p: &str| v.files.iter().find(|f| f.path == p).unwrap().text.clone();
    assert_eq!(
        err("abs.proto").unwrap_err(),
        format!("symbolic link to `{out}/secret.proto` leaves the repository; not followed")
    );
    assert_eq!(
        err("sub/up.proto").unwrap_err(),
        "symbolic link to `../../secret.proto` leaves the repository; not followed"
    );
    assert_eq!(
        err("dangling.proto").unwrap_err(),
        "symbolic link to `nothing/here.proto` points to nothing in this version"
    );
    for f in v.files.iter().chain(&wt.files) {
        if let Ok(text) = &f.text {
            assert!(!text.contains("Secret"), "{} was read from outside", f.path);
        }
    }
    has_note(&v, "link `ext`: symbolic link to");
    same_files(&v, &wt);
}

#[test]
fn link_cycles_terminate() {
    let mut r = Repo::new();
    r.symlink("a.proto", "b.proto");
    r.symlink("b.proto", "a.proto");
    r.symlink("loop", "."); // a folder linking to itself
    r.write("d1/x.proto", &proto("x", "message X {}"));
    r.write("d2/y.proto", &proto("y", "message Y {}"));
    r.symlink("d1/up", ".."); // to its parent
    r.symlink("d1/b", "../d2"); // d1/b -> d2, d2/a -> d1: a cycle through two folders
    r.symlink("d2/a", "../d1");
    r.commit("one");
    r.tag("v1.0.0");

    let (v, wt) = tag_and_worktree(&r, HistoryOptions::default());
    let paths: Vec<&str> = v.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "a.proto",
            "b.proto",
            "d1/b/a/x.proto",
            "d1/b/y.proto",
            "d1/x.proto",
            "d2/a/b/y.proto",
            "d2/a/x.proto",
            "d2/y.proto",
        ]
    );
    let a = v.files[0].text.clone().unwrap_err();
    assert!(a.contains("more than 16 links"), "{a}");
    has_note(
        &v,
        "link `loop` -> `.` leads to a folder that contains it (a cycle)",
    );
    has_note(
        &v,
        "link `d1/up` -> `..` leads to a folder that contains it",
    );
    same_files(&v, &wt);
}

#[test]
fn one_file_through_two_roots_is_kept_once() {
    let mut r = Repo::new();
    r.write("api/a.proto", &importer("api", &["google/api/http.proto"]));
    r.write("common-protos/google/api/http.proto", HTTP);
    r.commit("one");
    r.tag("v1.0.0");

    let o = HistoryOptions {
        proto_paths: vec![".".into(), "common-protos".into()],
        ..Default::default()
    };
    let (v, wt) = tag_and_worktree(&r, o);
    assert_eq!(
        files(&v),
        [
            ("api/a.proto", "api/a.proto", Origin::Root),
            (
                "google/api/http.proto",
                "common-protos/google/api/http.proto",
                Origin::Root
            ),
        ]
    );
    has_note(
        &v,
        "common-protos/google/api/http.proto is the same file as google/api/http.proto; compiled once, as google/api/http.proto",
    );
    same_files(&v, &wt);
}

#[test]
fn imports_found_in_no_root_are_looked_up_in_the_tree() {
    let mut r = Repo::new();
    r.write(
        "proto/a.proto",
        &importer(
            "a",
            &[
                "google/api/http.proto",
                "dup.proto",
                "same.proto",
                "google/protobuf/timestamp.proto",
                "nowhere.proto",
            ],
        ),
    );
    // Found by suffix, and what it imports in turn.
    r.write(
        "third_party/googleapis/google/api/http.proto",
        &importer("google.api", &["google/api/launch.proto"]),
    );
    r.write(
        "third_party/googleapis/google/api/launch.proto",
        &proto("google.api", "enum Stage { S = 0; }"),
    );
    // Two different files: ambiguous, nothing added.
    r.write("x/dup.proto", &proto("x", "message D {}"));
    r.write("y/dup.proto", &proto("y", "message D {}"));
    // Two copies of one file: either will do.
    r.write("c1/same.proto", &proto("same", "message S {}"));
    r.write("c2/same.proto", &proto("same", "message S {}"));
    r.commit("one");
    r.tag("v1.0.0");

    let o = HistoryOptions {
        proto_paths: vec!["proto".into()],
        ..Default::default()
    };
    let (v, wt) = tag_and_worktree(&r, o);
    assert_eq!(
        files(&v),
        [
            ("a.proto", "proto/a.proto", Origin::Root),
            (
                "google/api/http.proto",
                "third_party/googleapis/google/api/http.proto",
                Origin::Tree
            ),
            (
                "google/api/launch.proto",
                "third_party/googleapis/google/api/launch.proto",
                Origin::Tree
            ),
            ("same.proto", "c1/same.proto", Origin::Tree),
        ]
    );
    has_note(
        &v,
        "import `dup.proto` (from a.proto) matches 2 files in the tree: x/dup.proto, y/dup.proto; add -I for the one you mean",
    );
    has_note(
        &v,
        "2 imports found in the tree under third_party/googleapis/ (as with -I third_party/googleapis): google/api/http.proto, google/api/launch.proto",
    );
    has_note(
        &v,
        "matches 2 copies of one file in the tree: c1/same.proto, c2/same.proto; using c1/same.proto",
    );
    let mut sorted = v.resolution.clone();
    sorted.sort();
    assert_eq!(v.resolution, sorted, "notes are sorted");
    same_files(&v, &wt);
}

// Compiling as the owners build: editions, vendored links, excluded imports, buf deps.

fn only(p: &load::Project) -> &load::Loaded {
    assert_eq!(p.versions.len(), 1, "{:?}", names(p));
    &p.versions[0]
}

fn tags_only() -> HistoryOptions {
    HistoryOptions::default()
}

#[test]
fn an_editions_migration_compiles_and_keeps_its_meaning() {
    use protolapse::schema::model::Presence;
    let mut r = Repo::new();
    r.write(
        "a.proto",
        "syntax = \"proto3\";\npackage p;\nmessage A {\n  int32 x = 1;\n  optional int32 y = 2;\n  repeated int32 r = 3;\n  E e = 4;\n}\nenum E { E_UNSPECIFIED = 0; E_ONE = 1; }\n",
    );
    r.commit("proto3");
    r.tag("v1.0.0");
    r.write(
        "a.proto",
        "edition = \"2023\";\npackage p;\noption features.field_presence = IMPLICIT;\nmessage A {\n  int32 x = 1;\n  int32 y = 2 [features.field_presence = EXPLICIT];\n  repeated int32 r = 3;\n  E e = 4;\n}\nenum E { E_UNSPECIFIED = 0; E_ONE = 1; }\n",
    );
    r.commit("edition 2023, same behaviour");
    r.tag("v1.0.1");
    let p = load::load(r.path(), &tags_only(), |_, _| {}).unwrap();
    let (old, new) = (&p.versions[0].compiled, &p.versions[1].compiled);
    assert_eq!(new.status, Status::Complete, "{:?}", new.diagnostics);
    assert_eq!(new.how.protoc, ["a.proto"]);
    let (o, n) = (&old.schema.content, &new.schema.content);
    assert_eq!(n.files["a.proto"].syntax, "edition 2023");
    assert_eq!(n.messages["p.A"].fields[&1].presence, Presence::Implicit);
    assert_eq!(n.messages["p.A"].fields[&2].presence, Presence::Explicit);
    for (num, f) in &o.messages["p.A"].fields {
        let g = &n.messages["p.A"].fields[num];
        assert_eq!(
            (f.presence, f.packed, &f.ty, f.cardinality),
            (g.presence, g.packed, &g.ty, g.cardinality),
            "field {num}"
        );
    }
    assert_eq!(o.enums["p.E"].closed, n.enums["p.E"].closed);
    // Every change of the migration is safe on the wire and in JSON.
    let a = protolapse::policy::analyze(&p, &Default::default()).unwrap();
    let changes = a.versions[1].changes.as_ref().unwrap();
    assert!(
        changes.iter().any(|c| c.rule == RuleId::SYNTAX_CHANGED),
        "{changes:?}"
    );
    for c in changes.iter() {
        assert!(c.verdict.data_safe(), "{c:?}");
    }
}

#[test]
fn a_symlinked_vendor_folder_compiles_complete() {
    let mut r = Repo::new();
    r.write(
        "common-protos/google/api/http.proto",
        "syntax = \"proto3\";\npackage google.api;\nmessage HttpRule { string get = 2; }\n",
    );
    // A second copy elsewhere in the vendor folder would collide if it were judged.
    r.write(
        "common-protos/github.com/x/google/api/http.proto",
        "syntax = \"proto3\";\npackage google.api;\nmessage HttpRule { string get = 2; string put = 3; }\n",
    );
    r.symlink("google", "common-protos/google");
    r.write(
        "api/v1/svc.proto",
        "syntax = \"proto3\";\npackage api.v1;\nimport \"google/api/http.proto\";\nmessage Req { google.api.HttpRule rule = 1; }\n",
    );
    r.commit("vendored");
    r.tag("v1.0.0");
    let p = load::load(r.path(), &tags_only(), |_, _| {}).unwrap();
    let v = only(&p);
    assert_eq!(
        v.compiled.status,
        Status::Complete,
        "{:?}",
        v.compiled.diagnostics
    );
    let c = &v.compiled.schema.content;
    assert!(c.messages.contains_key("api.v1.Req"));
    // The vendored file is compiled for its importer, not judged as the API.
    let http = &c.files["google/api/http.proto"];
    assert!(http.external, "{http:?}");
    assert_eq!(c.messages["google.api.HttpRule"].fields.len(), 1);
    assert!(
        v.version
            .resolution
            .iter()
            .any(|n| n.contains("vendor folder")),
        "{:?}",
        v.version.resolution
    );
}

#[test]
fn an_excluded_file_is_imported_but_not_judged() {
    let mut r = Repo::new();
    r.write(
        "buf.yaml",
        "version: v2\nmodules:\n  - path: proto\n    excludes: [proto/internal]\n",
    );
    r.write(
        "proto/internal/shared.proto",
        "syntax = \"proto3\";\npackage internal;\nmessage Shared { int32 id = 1; }\n",
    );
    r.write(
        "proto/api/v1/a.proto",
        "syntax = \"proto3\";\npackage api.v1;\nimport \"internal/shared.proto\";\nmessage A { internal.Shared s = 1; }\n",
    );
    r.commit("one");
    r.tag("v1.0.0");
    let p = load::load(r.path(), &tags_only(), |_, _| {}).unwrap();
    let v = only(&p);
    assert_eq!(
        v.compiled.status,
        Status::Complete,
        "{:?}",
        v.compiled.diagnostics
    );
    assert_eq!((v.compiled.files_ok, v.compiled.files_total), (1, 1));
    let schema = &v.compiled.schema;
    let own: Vec<&str> = schema.own_files().map(|f| f.name.as_str()).collect();
    assert_eq!(own, ["api/v1/a.proto"]);
    assert_eq!(
        schema.content.files["internal/shared.proto"].origin,
        protolapse::schema::Origin::Excluded
    );
}

#[test]
fn a_buf_dependency_missing_from_the_tree_comes_from_the_embedded_set() {
    let mut r = Repo::new();
    r.write(
        "buf.yaml",
        "version: v2\ndeps:\n  - buf.build/googleapis/googleapis\n",
    );
    r.write(
        "svc/v1/svc.proto",
        "syntax = \"proto3\";\npackage svc.v1;\nimport \"google/api/annotations.proto\";\nimport \"google/api/field_behavior.proto\";\nmessage GetReq { string name = 1 [(google.api.field_behavior) = REQUIRED]; }\nmessage GetResp { string name = 1; }\nservice Svc {\n  rpc Get(GetReq) returns (GetResp) { option (google.api.http) = { get: \"/v1/{name}\" }; }\n}\n",
    );
    r.commit("one");
    r.tag("v1.0.0");
    let p = load::load(r.path(), &tags_only(), |_, _| {}).unwrap();
    let v = only(&p);
    assert_eq!(
        v.compiled.status,
        Status::Complete,
        "{:?}",
        v.compiled.diagnostics
    );
    let how = &v.compiled.how;
    assert_eq!(
        how.resolved.get("google/api/annotations.proto"),
        Some(&protolapse::schema::Origin::Embedded)
    );
    assert!(how.resolved.contains_key("google/api/http.proto"));
    let m = &v.compiled.schema.content.services["svc.v1.Svc"].methods["Get"];
    assert!(
        m.options.contains_key("(google.api.http)"),
        "{:?}",
        m.options
    );
}

#[test]
fn a_moved_buf_dependency_pin_is_a_hazard_not_green() {
    let lock = |commit: &str| {
        format!(
            "version: v2\ndeps:\n  - name: buf.build/googleapis/googleapis\n    commit: {commit}\n    digest: b5:0\n"
        )
    };
    let mut r = Repo::new();
    r.write(
        "buf.yaml",
        "version: v2\ndeps:\n  - buf.build/googleapis/googleapis\n",
    );
    r.write("buf.lock", &lock("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    r.write(
        "svc.proto",
        "syntax = \"proto3\";\npackage svc;\nimport \"google/api/field_behavior.proto\";\nmessage Req { string name = 1 [(google.api.field_behavior) = REQUIRED]; }\n",
    );
    r.commit("one");
    r.tag("v1.0.0");
    r.write("buf.lock", &lock("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"));
    r.commit("bump googleapis");
    r.tag("v1.0.1");
    let p = load::load(r.path(), &tags_only(), |_, _| {}).unwrap();
    assert_eq!(
        p.versions[1].version.dependencies[0].commit,
        "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    );
    // The schema text is the same: without the pin, this would pass as unchanged.
    assert!(p.versions[1].unchanged_since.is_some());
    let a = protolapse::policy::analyze(&p, &Default::default()).unwrap();
    let h: Vec<_> = a
        .hazards
        .iter()
        .filter(|h| h.kind == protolapse::policy::HazardKind::DependencyChanged)
        .collect();
    assert_eq!(h.len(), 1, "{:?}", a.hazards);
    assert_eq!(h[0].element, "buf.build/googleapis/googleapis");
    assert_eq!(h[0].versions, ["v1.0.0", "v1.0.1"]);
    assert!(h[0].message.contains("not judged"), "{}", h[0].message);
}
