//! Pair summaries kept between runs (`judge::stored`): a transitive policy's warm run prints
//! what its cold and uncached runs print; the summaries it reads are the ones it uses (a
//! forged entry changes the verdicts, so the test would fail if they were recomputed); a
//! corrupt entry is dropped and recomputed.

use std::path::Path;

use crate::cache::history;
use crate::common::{KIND_SUMMARIES, PackEntry, cache_entries, rewrite_packs, run_cached};

const LOG: &[&str] = &["log", "--policy", "FULL_TRANSITIVE", "--format", "json"];
/// A summary: pair key (32), worst cells (6), warnings (6 × 4), changed (1), not judged (4).
const RECORD: usize = 32 + 6 + 24 + 1 + 4;

fn log(repo: &Path, dir: Option<&Path>) -> (i32, String, String) {
    run_cached(LOG, repo, dir)
}

/// The store's summaries entries.
fn summaries(dir: &Path) -> Vec<PackEntry> {
    cache_entries(dir, KIND_SUMMARIES)
}

/// Every version's policy verdict, from `log --format json`.
fn passes(json: &str) -> Vec<bool> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["versions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["policy"]["pass"].as_bool())
        .collect()
}

#[test]
fn warm_transitive_runs_read_the_summaries_cold_runs_kept() {
    let r = history();
    let dir = tempfile::tempdir().unwrap();
    let uncached = log(r.path(), None);
    let cold = log(r.path(), Some(dir.path()));
    let kept = summaries(dir.path());
    assert_eq!(kept.len(), 1, "one entry for the scope and ignores");
    let warm = log(r.path(), Some(dir.path()));
    assert_eq!(cold, uncached);
    assert_eq!(warm, uncached);
    let before = passes(&uncached.1);
    assert!(before.iter().any(|p| *p), "some version passes: {before:?}");

    // Forge the entry: every pair breaks on the wire, backward and forward, sealed as the
    // store seals it. The next run fails every version it checks: it read them.
    let payload = kept[0].payload();
    assert_eq!(payload.len() % RECORD, 0);
    assert!(
        payload.len() / RECORD >= 2,
        "the pairs not adjacent were kept: {}",
        payload.len() / RECORD
    );
    let mut forged = payload.to_vec();
    for rec in forged.chunks_exact_mut(RECORD) {
        rec[32] = 3; // wire, backward: breaking
        rec[33] = 3; // wire, forward: breaking
    }
    rewrite_packs(dir.path(), |e| {
        if e.kind == KIND_SUMMARIES {
            e.reseal(&forged);
        }
    });
    let read = log(r.path(), Some(dir.path()));
    let after = passes(&read.1);
    assert_eq!(after.len(), before.len());
    assert!(
        before.iter().zip(&after).any(|(b, a)| *b && !*a),
        "a forged summary changes a verdict: {before:?} -> {after:?}"
    );

    // A corrupt entry is not trusted: dropped, recomputed, written again.
    rewrite_packs(dir.path(), |e| {
        if e.kind == KIND_SUMMARIES
            && let Some(last) = e.bytes.last_mut()
        {
            *last ^= 1;
        }
    });
    assert_eq!(log(r.path(), Some(dir.path())), uncached);
    assert_eq!(log(r.path(), Some(dir.path())), uncached);
}
