//! `--commits` and `--path`: versions from the commits that changed the schema in scope
//! (first parents only, oldest first), a folder's schema with what it imports, ranges, tags
//! on commits, and what is said when nothing changed.

use super::names;
use crate::common::{Repo, proto, run};
use protolapse::history::{self, HistoryError, HistoryOptions, Origin, VersionKind};
use protolapse::load;

fn commits(range: &str, paths: &[&str]) -> HistoryOptions {
    HistoryOptions {
        commits: Some(range.to_string()),
        paths: paths.iter().map(|p| p.to_string()).collect(),
        ..Default::default()
    }
}

const COMMON: &str = "syntax = \"proto3\";\npackage common;\nmessage Money { int64 units = 1; }\n";
const COMMON2: &str =
    "syntax = \"proto3\";\npackage common;\nmessage Money { int64 units = 1; int32 nanos = 2; }\n";

fn api(field: &str) -> String {
    format!(
        "syntax = \"proto3\";\npackage pay.v1;\nimport \"common/money.proto\";\nmessage Payment {{ common.Money amount = 1;{field} }}\n"
    )
}

/// pay/v1 imports common/; other/ is another API. Returns the commit ids, oldest first.
fn monorepo(r: &mut Repo) -> Vec<String> {
    let mut ids = Vec::new();
    r.write("common/money.proto", COMMON);
    r.write("pay/v1/pay.proto", &api(""));
    r.write("README.md", "hello");
    ids.push(r.commit("Add the payments API"));
    r.write("other/o.proto", &proto("other", "message O {}"));
    ids.push(r.commit("Another API, nothing of pay"));
    r.write("README.md", "hello again");
    ids.push(r.commit("Docs only"));
    r.write("common/money.proto", COMMON2);
    ids.push(r.commit("Money gets nanos\n\nBody text."));
    r.write("pay/v1/pay.proto", &api(" string memo = 2;"));
    ids.push(r.commit("Payments get a memo"));
    ids
}

#[test]
fn a_commit_touching_only_an_import_outside_the_path_is_a_version() {
    let mut r = Repo::new();
    let ids = monorepo(&mut r);
    let h = history::load(r.path(), &commits("HEAD", &["pay/v1"])).unwrap();
    let found: Vec<&str> = h.versions.iter().map(|v| v.commit.as_str()).collect();
    // "Another API" and "Docs only" changed nothing pay/v1 reads; "Money gets nanos" changed
    // only the imported common/money.proto.
    assert_eq!(found, [&*ids[0], &*ids[3], &*ids[4]]);
    let v = &h.versions[1];
    assert_eq!(v.kind, VersionKind::Commit);
    assert_eq!(v.name, ids[3][..v.name.len()]);
    assert!(v.name.len() >= 7, "{}", v.name);
    assert_eq!(v.message.as_deref(), Some("Money gets nanos"));
    let files: Vec<(&str, Origin)> = v.files.iter().map(|f| (&*f.path, f.origin)).collect();
    assert_eq!(
        files,
        [
            ("common/money.proto", Origin::Root),
            ("pay/v1/pay.proto", Origin::Root)
        ]
    );
    // The imported file is judged with pay/v1: Money's new field is a change of its schema
    // (compiled but not judged, that commit once showed no change at all).
    let dir = r.path().to_str().unwrap();
    let (code, out, err) = run(
        &[
            "--commits",
            "--path",
            "pay/v1",
            "diff",
            dir,
            &ids[0][..12],
            &ids[3][..12],
            "--format",
            "json",
        ],
        r.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"common.Money.nanos\""), "{out}");
    // Without --path, every commit that changed a .proto is one.
    let all = history::load(r.path(), &commits("HEAD", &[])).unwrap();
    assert_eq!(all.versions.len(), 4, "{:?}", names_of(&all));
}

fn names_of(h: &history::History) -> Vec<&str> {
    h.versions.iter().map(|v| v.name.as_str()).collect()
}

#[test]
fn merges_follow_the_first_parent() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", "message A {}"));
    let first = r.commit("first");
    r.git(&["checkout", "-q", "-b", "side"]);
    r.write("a.proto", &proto("p", "message A { int32 x = 1; }"));
    let side1 = r.commit("side one");
    r.write(
        "a.proto",
        &proto("p", "message A { int32 x = 1; int32 y = 2; }"),
    );
    let side2 = r.commit("side two");
    r.git(&["checkout", "-q", "main"]);
    r.write("b.proto", &proto("p", "message B {}"));
    let main1 = r.commit("main one");
    r.git(&["merge", "-q", "--no-ff", "-m", "Merge side", "side"]);
    let merge = r.git(&["rev-parse", "HEAD"]);
    let h = history::load(r.path(), &commits("HEAD", &[])).unwrap();
    let found: Vec<&str> = h.versions.iter().map(|v| v.commit.as_str()).collect();
    // The side branch's commits are not on main's line; the merge brings their change.
    assert_eq!(found, [&*first, &*main1, &*merge]);
    assert!(!found.contains(&&*side1) && !found.contains(&&*side2));
    assert_eq!(h.versions[2].message.as_deref(), Some("Merge side"));
}

#[test]
fn a_range_starts_from_its_base_and_a_range_without_change_says_so() {
    let mut r = Repo::new();
    let ids = monorepo(&mut r);
    let range = format!("{}..{}", ids[0], ids[3]);
    let h = history::load(r.path(), &commits(&range, &["pay/v1"])).unwrap();
    let found: Vec<&str> = h.versions.iter().map(|v| v.commit.as_str()).collect();
    // The base (the range's start) first: what the first change is compared with.
    assert_eq!(found, [&*ids[0], &*ids[3]]);

    let quiet = format!("{}..{}", ids[0], ids[2]);
    let err = history::load(r.path(), &commits(&quiet, &["pay/v1"])).unwrap_err();
    let HistoryError::NoVersions(msg) = &err else {
        panic!("{err:?}")
    };
    assert!(
        msg.contains("no commit of") && msg.contains("2 commits walked") && msg.contains("pay/v1"),
        "{msg}"
    );
    let err = history::load(r.path(), &commits("nosuch..HEAD", &[])).unwrap_err();
    assert!(
        matches!(err, HistoryError::UnknownRevision { .. }),
        "{err:?}"
    );
}

#[test]
fn a_tagged_commit_carries_its_tag() {
    let mut r = Repo::new();
    let ids = monorepo(&mut r);
    r.git(&["tag", "v1.1.0", &ids[3]]);
    let p = load::load(r.path(), &commits("HEAD", &["pay/v1"]), |_, _| {}).unwrap();
    let v = &p.versions[1].version;
    assert_eq!(v.name, "v1.1.0");
    assert_eq!(
        v.semver.as_ref().map(|s| s.to_string()).as_deref(),
        Some("1.1.0")
    );
    assert_eq!(v.kind, VersionKind::Commit);
    // Found by tag, by short hash; compared with the commit before it.
    assert!(p.find("v1.1.0").is_some());
    assert_eq!(p.find(&ids[4][..8]).map(|l| l.id.index()), Some(2));
    assert_eq!(
        load::lineage::previous_to_compare(&p.versions, p.versions[2].id),
        Some(p.versions[1].id)
    );
    assert_eq!(names(&p)[1], "v1.1.0");
}

#[test]
fn the_cli_takes_commits_and_path_before_or_after_the_command() {
    let mut r = Repo::new();
    let ids = monorepo(&mut r);
    let dir = r.path().to_str().unwrap();
    let (code, out, err) = run(&["--commits", "--path", "pay/v1", "log", dir], r.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&ids[4][..7]) && out.contains("3 versions"),
        "{out}"
    );
    let range = format!("--commits={}..HEAD", &ids[2]);
    let (code, out, err) = run(&["log", dir, &range, "--path", "pay/v1"], r.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("3 versions") && out.contains(&ids[3][..7]),
        "{out}"
    );
    assert!(
        out.contains("semver: not checked") && out.contains("no breaking change"),
        "{out}"
    );
    assert!(out.contains("\"Money gets nanos\""), "{out}");
    // A range given without `=` is not taken for a repository.
    let (code, _, err) = run(&["--commits", "HEAD~1..HEAD", "log", dir], r.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--commits=HEAD~1..HEAD"), "{err}");
    // --path before and after the subcommand: both folders.
    let (code, out, err) = run(
        &[
            "--commits",
            "--path",
            "pay/v1",
            "log",
            dir,
            "--path",
            "other",
        ],
        r.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("4 versions"), "{out}");
    let (code, _, err) = run(
        &["--commits=HEAD~1..HEAD", "--path", "other", "log", dir],
        r.path(),
    );
    assert_ne!(code, 0);
    assert!(err.contains("no commit of `HEAD~1..HEAD`"), "{err}");
}

/// An import found under a proto root for `--path` takes its origin as a listing of the root
/// would: one buf.yaml excludes is compiled for its importers, not judged.
#[test]
fn an_import_buf_yaml_excludes_stays_excluded_under_a_path() {
    let mut r = Repo::new();
    r.write(
        "buf.yaml",
        "version: v1\nbuild:\n  excludes:\n    - common\n",
    );
    r.write("common/money.proto", COMMON);
    r.write("pay/v1/pay.proto", &api(""));
    r.commit("one");
    let h = history::load(r.path(), &commits("HEAD", &["pay/v1"])).unwrap();
    let files: Vec<(&str, Origin)> = h.versions[0]
        .files
        .iter()
        .map(|f| (&*f.path, f.origin))
        .collect();
    assert_eq!(
        files,
        [
            ("common/money.proto", Origin::Excluded),
            ("pay/v1/pay.proto", Origin::Root)
        ]
    );
}
