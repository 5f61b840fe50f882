//! Committed symbolic links, read from git and from the work tree alike: a vendor folder
//! followed and compiled once, links leaving the repository never followed, cycles ended.

use super::{HTTP, files, has_note, importer, opts, same_files, tag_and_worktree};
use crate::common::{Repo, proto};
use protolapse::history::{self, HistoryOptions, Origin};

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
    for f in v.files.iter().chain(wt.files.iter()) {
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
fn a_proto_root_linked_out_of_the_repository_fails_tag_and_worktree_alike() {
    // A PR author commits `proto -> /` and names it the proto root: nothing outside the
    // repository may be read, in the tag or in the working tree `check` judges.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.proto"),
        "syntax = \"proto3\";\npackage secret;\nmessage Secret {}\n",
    )
    .unwrap();
    for target in ["/", outside.path().to_str().unwrap(), "../.."] {
        let mut r = Repo::new();
        r.write("a.proto", &proto("a", "message A {}"));
        r.symlink("proto", target);
        r.commit("one");
        r.tag("v1.0.0");
        let o = HistoryOptions {
            proto_paths: vec!["proto".into()],
            ..HistoryOptions::default()
        };
        let (v, wt) = tag_and_worktree(&r, o);
        for v in [&v, &wt] {
            assert!(v.files.is_empty(), "{target}: {:?}", v.files);
            assert_eq!(v.problems.len(), 1, "{target}: {:?}", v.problems);
            let p = &v.problems[0];
            assert!(p.fatal && p.path == "proto", "{p:?}");
            assert!(p.message.contains("leads out of the repository"), "{p:?}");
        }
        assert_eq!(v.problems, wt.problems);
    }
}

#[test]
fn links_and_submodules_follow_one_rule_in_tags_and_the_worktree() {
    let r = Repo::new();
    let top = r.path().to_str().unwrap().to_string();
    r.write("proto/v1/a.proto", &proto("a", "message A {}"));
    r.write("c.proto", &proto("c", "message C {}"));
    r.symlink("api", "proto/v1"); // a root linked inside the repository: followed
    r.symlink("b.proto", "hop.proto"); // a link to a link ...
    r.symlink("hop.proto", &format!("{top}/c.proto")); // ... with an absolute target
    // A submodule: registered in the index, checked out with a .proto inside.
    let sub = Repo::new();
    sub.write("s.proto", &proto("s", "message S {}"));
    let mut sub = sub;
    let head = sub.commit("sub");
    r.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{head},vendor/sub"),
    ]);
    r.write("vendor/sub/s.proto", &proto("s", "message S {}"));
    r.write("vendor/sub/.git", "gitdir: /nowhere\n");
    r.git(&["add", "proto", "c.proto", "api", "b.proto", "hop.proto"]);
    r.git(&["commit", "-q", "-m", "one"]);
    r.tag("v1.0.0");
    // The commit above took the index as it was: vendor/sub is a gitlink, not files.
    assert!(r.git(&["ls-tree", "-r", "HEAD"]).contains("160000 commit"));

    let o = HistoryOptions {
        proto_paths: vec!["api".into(), ".".into()],
        ..HistoryOptions::default()
    };
    let (v, wt) = tag_and_worktree(&r, o);
    let paths: Vec<&str> = v.files.iter().map(|f| f.path.as_str()).collect();
    assert!(paths.contains(&"a.proto"), "{paths:?}");
    assert!(!paths.iter().any(|p| p.contains("s.proto")), "{paths:?}");
    let b = v.files.iter().find(|f| f.path == "b.proto").unwrap();
    assert!(
        b.text
            .as_ref()
            .unwrap_err()
            .contains("leaves the repository"),
        "{:?}",
        b.text
    );
    same_files(&v, &wt);
    for v in [&v, &wt] {
        has_note(v, "submodule `vendor/sub` not read");
    }
    assert_eq!(v.problems, wt.problems);
}

#[test]
fn a_linked_buf_yaml_is_read_by_the_same_rule_in_tags_and_the_worktree() {
    let mut r = Repo::new();
    r.write(
        "config/buf.yaml",
        "version: v1beta1\nbuild:\n  roots: [proto]\n",
    );
    r.symlink("buf.yaml", "config/buf.yaml");
    r.write("proto/a.proto", &proto("a", "message A {}"));
    r.write("b.proto", &proto("b", "message B {}")); // not under the root
    r.commit("one");
    r.tag("v1.0.0");
    let (v, wt) = tag_and_worktree(&r, HistoryOptions::default());
    for v in [&v, &wt] {
        assert_eq!(v.proto_roots, ["proto"], "{}", v.name);
        assert_eq!(v.roots_from, "buf.yaml");
        assert!(v.problems.is_empty(), "{:?}", v.problems);
    }
    same_files(&v, &wt);
}
