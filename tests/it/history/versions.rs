//! Which versions are loaded and in what order: tags peeled and ordered by semver, globs and
//! their prefixes, revisions and the work tree as extra versions, and clear errors when there
//! is nothing to load.

use super::{A1, A2, names, opts};
use crate::common::{Repo, proto};
use protolapse::history::{self, HistoryError, HistoryOptions, VersionKind};
use protolapse::load;
use protolapse::schema::Status;

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

#[test]
fn a_tracked_file_under_an_ignored_folder_is_part_of_the_work_tree() {
    let mut r = Repo::new();
    r.write(".gitignore", "gen/\n");
    r.write("a.proto", &proto("p", A1));
    r.write("gen/g.proto", &proto("g", "message G {}"));
    r.git(&["add", "-f", "gen/g.proto"]);
    r.commit("one");
    r.tag("v1.0.0");
    // The work tree changes a.proto; gen/ also holds a file git does not track.
    r.write("a.proto", &proto("p", A2));
    r.write("gen/untracked.proto", &proto("u", "message U {}"));
    let p = load::load(r.path(), &opts(), |_, _| {}).unwrap();
    assert_eq!(names(&p), ["v1.0.0", "WORKTREE"]);
    let files = |i: usize| -> Vec<String> {
        p.versions[i]
            .version
            .files
            .iter()
            .map(|f| f.path.clone())
            .collect()
    };
    assert_eq!(files(0), ["a.proto", "gen/g.proto"]);
    // As git sees it: the tracked file stays, the ignored untracked one stays out.
    assert_eq!(files(1), ["a.proto", "gen/g.proto"]);
}

/// A git folder without a `config` (a mirror copied as it is) is read as a bare repository:
/// libgit2 takes its parent folder for a work tree, which made a `WORKTREE` version of
/// whatever sat beside it (a failed version with no `.proto` file). A clone with a work
/// tree still has one.
#[test]
fn a_git_folder_without_config_has_no_work_tree() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", A1));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("a.proto", &proto("p", A2));
    let holder = tempfile::tempdir().expect("temp dir");
    let mirror = holder.path().join("repo");
    let copied = std::process::Command::new("cp")
        .arg("-r")
        .arg(r.path().join(".git"))
        .arg(&mirror)
        .status()
        .expect("cp");
    assert!(copied.success());
    std::fs::remove_file(mirror.join("config")).expect("remove config");
    let o = opts();
    let project = load::load(&mirror, &o, |_, _| {}).expect("load the mirror");
    assert_eq!(names(&project), ["v1.0.0"]);
    let root = history::repo_root(&mirror).expect("root");
    assert_eq!(root.canonicalize().ok(), mirror.canonicalize().ok());
    // The clone itself, with its edited work tree, has one.
    let project = load::load(r.path(), &o, |_, _| {}).expect("load the clone");
    assert_eq!(names(&project), ["v1.0.0", "WORKTREE"]);
    let git = |args: &[&std::ffi::OsStr]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .status()
            .expect("git");
        assert!(ok.success());
    };
    let copy = |to: &std::path::Path| {
        git(&[
            "init".as_ref(),
            "-q".as_ref(),
            to.parent().expect("holder").as_os_str(),
        ]);
        let ok = std::process::Command::new("cp")
            .arg("-r")
            .arg(r.path().join(".git"))
            .arg(to)
            .status()
            .expect("cp");
        assert!(ok.success());
    };
    // The same mirror inside another repository's work tree: still no work tree of its own.
    let other = tempfile::tempdir().expect("temp dir");
    let vendored = other.path().join("vendor.git");
    copy(&vendored);
    std::fs::remove_file(vendored.join("config")).expect("remove config");
    std::fs::write(other.path().join("a.proto"), proto("p", A2)).expect("write");
    let project = load::load(&vendored, &o, |_, _| {}).expect("load the vendored mirror");
    assert_eq!(names(&project), ["v1.0.0"]);
    // A git folder whose config names its work tree keeps it.
    let named = tempfile::tempdir().expect("temp dir");
    let dot = named.path().join("dot.git");
    copy(&dot);
    git(&[
        "--git-dir".as_ref(),
        dot.as_os_str(),
        "config".as_ref(),
        "core.worktree".as_ref(),
        named.path().as_os_str(),
    ]);
    git(&[
        "--git-dir".as_ref(),
        dot.as_os_str(),
        "config".as_ref(),
        "core.bare".as_ref(),
        "false".as_ref(),
    ]);
    std::fs::write(named.path().join("a.proto"), proto("p", A2)).expect("write");
    let project = load::load(&dot, &o, |_, _| {}).expect("load the named work tree");
    assert_eq!(names(&project), ["v1.0.0", "WORKTREE"]);
}
