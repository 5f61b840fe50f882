//! The semver check against the previous relevant version: below 1.0, unchanged versions,
//! patches too small, pre-releases, backports, broken versions and strict pre-1.0.

use super::{commit_tag, load};
use crate::common::{Repo, proto};
use protolapse::policy::{self, Pre1, SemverVerdict, Settings};
use protolapse::rules::RuleId;

#[test]
fn semver_against_the_previous_relevant_version() {
    let mut r = Repo::new();
    let m = |body: &str| proto("t", &format!("message M {{\n{body}\n}}"));
    commit_tag(&mut r, "v0.1.0", "t.proto", &m("  int32 a = 1;"));
    // Breaking below 1.0: a minor bump is enough under Cargo's convention.
    commit_tag(&mut r, "v0.2.0", "t.proto", &m("  int64 a = 1;"));
    // Only a comment: unchanged.
    commit_tag(
        &mut r,
        "v0.2.1",
        "t.proto",
        &m("  // The count.\n  int64 a = 1;"),
    );
    commit_tag(
        &mut r,
        "v1.0.0",
        "t.proto",
        &m("  int64 a = 1;\n  int32 b = 2;"),
    );
    // A patch that adds a field: too small.
    commit_tag(
        &mut r,
        "v1.0.1",
        "t.proto",
        &m("  int64 a = 1;\n  int32 b = 2;\n  int32 c = 3;"),
    );
    commit_tag(
        &mut r,
        "v2.0.0-rc.1",
        "t.proto",
        &m("  int64 a = 1;\n  int32 c = 3;"),
    );
    commit_tag(&mut r, "v2.0.0-rc.2", "t.proto", &m("  int64 a = 1;"));
    commit_tag(&mut r, "v2.0.0", "t.proto", &m("  int64 a = 1;"));
    // A broken release, then one after it.
    commit_tag(
        &mut r,
        "v2.1.0",
        "t.proto",
        "syntax = \"proto3\";\npackage t;\nmessage M {\n  int64 a = 1\n}\n",
    );
    commit_tag(
        &mut r,
        "v2.2.0",
        "t.proto",
        &m("  int64 a = 1;\n  int32 d = 4;"),
    );
    // A backport tagged after 2.x: compares with v1.0.1, not with v2.2.0.
    r.git(&["checkout", "-q", "v1.0.1"]);
    commit_tag(
        &mut r,
        "v1.0.2",
        "t.proto",
        &m("  int64 a = 1;\n  int32 b = 2;\n  int32 c = 3;\n  // Fixed doc.\n"),
    );
    r.git(&["checkout", "-q", "main"]);
    let p = load(&r);
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let row = |name: &str| {
        let i = p
            .versions
            .iter()
            .position(|v| v.version.name == name)
            .unwrap_or_else(|| panic!("{name}"));
        let r = &a.versions[i];
        (
            r.previous
                .map(|j| p.versions[j.index()].version.name.as_str()),
            r.semver.verdict,
            r.semver.reason.clone(),
        )
    };
    assert_eq!(row("v0.1.0").0, None);
    assert_eq!(row("v0.1.0").1, SemverVerdict::None);
    assert_eq!(row("v0.2.0").1, SemverVerdict::Ok, "{}", row("v0.2.0").2);
    let unchanged = row("v0.2.1");
    assert_eq!(unchanged.1, SemverVerdict::Ok);
    // Comments changed: not "unchanged", which is kept for where nothing changed.
    assert!(
        unchanged.2.contains("only comments changed"),
        "{}",
        unchanged.2
    );
    let patch = row("v1.0.1");
    assert_eq!(patch.0, Some("v1.0.0"));
    assert_eq!(patch.1, SemverVerdict::TooSmall);
    assert!(
        a.versions[p
            .versions
            .iter()
            .position(|v| v.version.name == "v1.0.1")
            .unwrap()]
        .semver
        .deciding
        .iter()
        .any(|c| c.rule == RuleId::FIELD_ADDED)
    );
    // Pre-releases compare with their predecessor; the release with the last release.
    assert_eq!(row("v2.0.0-rc.1").0, Some("v1.0.2"));
    assert_eq!(row("v2.0.0-rc.2").0, Some("v2.0.0-rc.1"));
    assert_eq!(row("v2.0.0-rc.2").1, SemverVerdict::Ok);
    assert_eq!(row("v2.0.0").0, Some("v1.0.2"));
    assert_eq!(row("v2.0.0").1, SemverVerdict::Ok);
    // The backport.
    assert_eq!(row("v1.0.2").0, Some("v1.0.1"));
    assert_eq!(row("v1.0.2").1, SemverVerdict::Ok);
    // The broken version is not judged, and says why; the next compares with the last one
    // that compiled.
    assert_eq!(row("v2.1.0").1, SemverVerdict::NotJudged);
    assert!(row("v2.1.0").2.contains("did not compile"));
    let after = row("v2.2.0");
    assert_eq!(after.0, Some("v2.0.0"));
    assert!(after.2.contains("v2.1.0 did not compile"), "{}", after.2);

    // Strict below 1.0: the breaking 0.2.0 needed 1.0.0.
    let strict = policy::analyze(
        &p,
        &Settings {
            pre1: Pre1::Strict,
            ..Default::default()
        },
    )
    .unwrap();
    let i = p
        .versions
        .iter()
        .position(|v| v.version.name == "v0.2.0")
        .unwrap();
    assert_eq!(strict.versions[i].semver.verdict, SemverVerdict::TooSmall);
}
