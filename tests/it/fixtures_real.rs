//! Real data: the opentelemetry-proto history (32 tags, annotated and lightweight, protos
//! under `opentelemetry/`, a `buf.yaml` at the root), cloned from the shared bundle.

use std::path::PathBuf;
use std::process::Command;

use protolapse::history::HistoryOptions;
use protolapse::load;
use protolapse::rules::RuleId;
use protolapse::schema::Status;

pub(crate) fn fixture(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("PROTOLAPSE_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures"));
    let path = dir.join(name);
    if path.exists() {
        Some(path)
    } else if std::env::var_os("CI").is_some() {
        panic!("fixture {} is missing in CI", path.display());
    } else {
        eprintln!(
            "fixture {} not found: set PROTOLAPSE_FIXTURES to run this test",
            path.display()
        );
        None
    }
}

pub(crate) fn clone(bundle: &std::path::Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("git")
        .args(["clone", "-q"])
        .arg(bundle)
        .arg(dir.path().join("repo"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[test]
fn opentelemetry_history_loads_completely() {
    let Some(bundle) = fixture("opentelemetry-proto.bundle") else {
        return;
    };
    let dir = clone(&bundle);
    let repo = dir.path().join("repo");
    let mut calls = Vec::new();
    let p = load::load(
        &repo,
        &HistoryOptions {
            worktree: true,
            ..Default::default()
        },
        |d, t| calls.push((d, t)),
    )
    .unwrap();

    assert_eq!(p.versions.len(), 32);
    assert_eq!(calls.len(), 32);
    assert_eq!(calls.last(), Some(&(32, 32)));
    assert_eq!(p.versions[0].version.name, "v0.3.0");
    assert_eq!(p.versions[31].version.name, "v1.11.0");
    let complete = p
        .versions
        .iter()
        .filter(|v| v.compiled.status == Status::Complete)
        .count();
    assert_eq!(complete, 32, "every tag compiles");
    // Later tags have a buf.yaml (v1: the root is its folder); early ones do not.
    assert!(p.versions.iter().all(|v| v.version.proto_roots == ["."]));
    assert_eq!(p.versions[31].version.roots_from, "buf.yaml");
    assert!(p.versions.iter().all(|v| {
        v.version
            .files
            .iter()
            .all(|f| f.path.starts_with("opentelemetry/"))
    }));
    // Mixed tag kinds.
    let annotated = p
        .versions
        .iter()
        .filter(|v| v.version.message.is_some())
        .count();
    assert!(annotated > 0 && annotated < 32, "{annotated} annotated");

    // Repeated fingerprints are exactly the releases without a schema change.
    let repeats: Vec<(&str, &str)> = p
        .versions
        .iter()
        .filter_map(|v| {
            v.unchanged_since
                .map(|s| (v.version.name.as_str(), p.versions[s.index()].name()))
        })
        .collect();
    assert_eq!(repeats, [("v1.0.0", "v0.20.0"), ("v1.3.1", "v1.3.0")]);
    for w in p.versions.windows(2) {
        let same_fp = w[0].fingerprint() == w[1].fingerprint();
        assert_eq!(
            same_fp,
            w[1].unchanged_since.is_some(),
            "{}",
            w[1].version.name
        );
    }
    let distinct: std::collections::HashSet<_> =
        p.versions.iter().filter_map(|v| v.fingerprint()).collect();
    assert_eq!(distinct.len(), 30);
    // Work is shared: 32 tags, far fewer distinct blobs than tags x files.
    let files: usize = p.versions.iter().map(|v| v.version.files.len()).sum();
    assert!(
        p.stats.blobs_read * 2 < files,
        "{} blobs for {files} files",
        p.stats.blobs_read
    );
    assert_eq!(p.stats.compile.sets_compiled, 30);
}

/// The whole-history analysis on opentelemetry-proto: what its history really did.
#[test]
fn opentelemetry_history_is_judged() {
    use protolapse::judge::{IgnoreRule, Ignores};
    use protolapse::policy::{self, Policy, SemverVerdict, Settings};
    let Some(bundle) = fixture("opentelemetry-proto.bundle") else {
        return;
    };
    let dir = clone(&bundle);
    let p = load::load(
        &dir.path().join("repo"),
        &HistoryOptions::default(),
        |_, _| {},
    )
    .unwrap();
    let a = policy::analyze(
        &p,
        &Settings {
            policy: Some(Policy::BackwardTransitive),
            ..Default::default()
        },
    )
    .unwrap();
    let at = |name: &str| {
        let i = p
            .versions
            .iter()
            .position(|v| v.version.name == name)
            .unwrap();
        &a.versions[i]
    };
    // v1.0.0 re-tagged v0.20.0's schema.
    assert!(at("v1.0.0").semver.unchanged);
    assert_eq!(at("v1.0.0").semver.verdict, SemverVerdict::Ok);
    // The development "profiles" packages broke in minor releases (CHANGELOG 1.4.0: renamed
    // v1experimental -> v1development, Sample.label and Location.type_index dropped; 1.5.0:
    // Profile.attributes removed).
    for v in ["v1.4.0", "v1.5.0", "v1.6.0"] {
        assert_eq!(at(v).semver.verdict, SemverVerdict::TooSmall, "{v}");
        assert!(
            at(v)
                .semver
                .deciding
                .iter()
                .all(|c| c.element.contains("profiles")),
            "{v}"
        );
    }
    // Profile.original_payload went bytes -> string -> bytes (v1.6.0, v1.8.0, v1.9.0): string
    // and bytes share an encoding, so that is no revert hazard; the history has none.
    assert!(a.hazards.is_empty(), "{:?}", a.hazards);
    // Transitively, 1.x is not backward compatible with the 0.x protocol it replaced.
    assert!(!at("v1.11.0").policy.as_ref().unwrap().pass);
    // InstrumentationLibrarySpans -> ScopeSpans (v0.15.0) differs in field names only: safe
    // on the wire, not a break.
    let renamed = at("v0.15.0")
        .changes
        .as_ref()
        .unwrap()
        .iter()
        .find(|c| {
            c.element == "opentelemetry.proto.trace.v1.ResourceSpans.scope_spans"
                && c.rule == RuleId::FIELD_MESSAGE_TYPE_CHANGED
        })
        .unwrap();
    assert_eq!(
        renamed.verdict.wire.backward,
        protolapse::rules::Severity::Safe
    );

    // Ignore the development packages, as the project itself does (CHANGELOG 1.4.0, #576:
    // "exclude Profiles protocol from breaking-changes"): 1.x is then clean.
    let dev = |g: &str| IgnoreRule {
        rule: None,
        path: Some(glob::Pattern::new(g).unwrap()),
        element: None,
        unstable_package: false,
        reason: Some("development".into()),
    };
    let a = policy::analyze(
        &p,
        &Settings {
            policy: Some(Policy::BackwardTill("v1.0.0".into())),
            ignores: Ignores {
                rules: vec![
                    dev("opentelemetry/proto/profiles/**"),
                    dev("opentelemetry/proto/collector/profiles/**"),
                ],
            },
            ..Default::default()
        },
    )
    .unwrap();
    for (v, r) in p.versions.iter().zip(&a.versions) {
        if v.version.semver.as_ref().is_some_and(|s| s.major >= 1) {
            assert!(r.policy.as_ref().unwrap().pass, "{}", v.version.name);
            assert_ne!(
                r.semver.verdict,
                SemverVerdict::TooSmall,
                "{}",
                v.version.name
            );
        }
    }
}

/// protobuf's own history, at the tags where its test protos moved to editions: each
/// migration compiles on both sides and changes nothing on the wire or in JSON.
#[test]
fn protobuf_editions_migrations_keep_their_meaning() {
    let Some(bundle) = fixture("protobuf-src-tags.bundle") else {
        return;
    };
    let dir = clone(&bundle);
    let pairs = [
        (
            "v4.23.4",
            "v24.0-rc1",
            "google/protobuf/unittest_arena.proto",
        ),
        (
            "v5.26.1",
            "v27.0-rc1",
            "google/protobuf/unittest_import_lite.proto",
        ),
    ];
    let at = |tag: &str| {
        let p = load::load(
            &dir.path().join("repo"),
            &HistoryOptions {
                tags: Some(tag.into()),
                proto_paths: vec!["src".into()],
                ..Default::default()
            },
            |_, _| {},
        )
        .unwrap();
        p.versions[0].compiled.clone()
    };
    for (old, new, file) in pairs {
        let (o, n) = (at(old), at(new));
        for (tag, c) in [(old, &o), (new, &n)] {
            assert!(
                c.schema.content.files.contains_key(file)
                    && !c.diagnostics.iter().any(|d| d.file == file),
                "{file} compiles in {tag}: {:?}",
                c.diagnostics
            );
        }
        let syntax = |c: &protolapse::schema::Compiled| c.schema.content.files[file].syntax.clone();
        assert_eq!(
            (syntax(&o).as_str(), syntax(&n).as_str()),
            ("proto2", "edition 2023")
        );
        let changes = protolapse::rules::check(
            &protolapse::diff::pair_whole(&o.schema.content, &n.schema.content),
            &o.schema,
            &n.schema,
        );
        let of_file: Vec<_> = changes
            .iter()
            .filter(|c| {
                c.element == file
                    || [&c.old_location, &c.new_location].iter().any(|l| {
                        l.as_deref()
                            .is_some_and(|l| l.starts_with(&format!("{file}:")))
                    })
            })
            .collect();
        assert!(
            of_file.iter().any(|c| c.rule == RuleId::SYNTAX_CHANGED),
            "{of_file:?}"
        );
        for c in of_file {
            assert!(c.verdict.data_safe(), "{old} -> {new}: {c:?}");
        }
    }
}

/// The newest tag: every editions file compiles except what is named, each for a reason of
/// its own (no file is left out for being an editions file).
#[test]
fn protobuf_newest_tag_compiles_its_editions_files() {
    let Some(bundle) = fixture("protobuf-src-tags.bundle") else {
        return;
    };
    let dir = clone(&bundle);
    let p = load::load(
        &dir.path().join("repo"),
        &HistoryOptions {
            tags: Some("v36.0".into()),
            proto_paths: vec!["src".into()],
            ..Default::default()
        },
        |_, _| {},
    )
    .unwrap();
    let c = &p.versions[0].compiled;
    assert!(c.how.protoc.len() >= 48, "{:?}", c.how.protoc);
    let mut failed: Vec<(&str, &str)> = c
        .diagnostics
        .iter()
        .map(|d| {
            let why = if d.message.contains("UNSTABLE") {
                "edition UNSTABLE: no feature defaults"
            } else if d.message.contains("already defined") {
                "defines what a sibling test file defines"
            } else {
                "other"
            };
            (d.file.as_str(), why)
        })
        .collect();
    failed.sort();
    failed.dedup();
    assert_eq!(
        failed,
        [
            (
                "google/protobuf/compiler/cpp/cpp_file_options_test.proto",
                "edition UNSTABLE: no feature defaults"
            ),
            (
                "google/protobuf/compiler/ruby/ruby_generated_code_proto2.proto",
                "defines what a sibling test file defines"
            ),
            (
                "google/protobuf/compiler/ruby/ruby_generated_pkg_implicit.proto",
                "defines what a sibling test file defines"
            ),
            (
                "google/protobuf/test_protos/repeated_field_proxy_test.proto",
                "edition UNSTABLE: no feature defaults"
            ),
        ]
    );
    assert_eq!(c.files_total - c.files_ok, 4);
}
