//! Real data: the opentelemetry-proto history (32 tags, annotated and lightweight, protos
//! under `opentelemetry/`, a `buf.yaml` at the root), cloned from the shared bundle.

use std::path::PathBuf;
use std::process::Command;

use protolapse::history::HistoryOptions;
use protolapse::load;
use protolapse::schema::Status;

fn fixture(name: &str) -> Option<PathBuf> {
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

fn clone(bundle: &std::path::Path) -> tempfile::TempDir {
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
                .as_deref()
                .map(|s| (v.version.name.as_str(), s))
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
