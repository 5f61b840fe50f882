//! Each version's file set, resolved the way the owners' build does: proto roots from the
//! flags, then buf.yaml; files it excludes kept for their importers; one file through two
//! roots kept once; imports found in no root looked up in the tree.

use super::{A1, HTTP, files, has_note, importer, opts, same_files, tag_and_worktree};
use crate::common::{Repo, proto};
use protolapse::history::{self, HistoryOptions, Origin};
use protolapse::load;

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
