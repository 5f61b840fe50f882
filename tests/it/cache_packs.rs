//! The cache's packs under concurrent runs: runs that each write packs and merge the small
//! ones, side by side on one folder, lose no entry and leave every pack sound.

use std::collections::BTreeMap;

use crate::cache::history;
use crate::common::{KIND_CHANGES, PackEntry, cache_entries, cache_packs, run_env, write_pack};

/// Forty small packs, one entry each (more than a run leaves before it merges), then four
/// runs at once: each writes its own packs and merges the small ones it finds. Every entry
/// seeded is still there, with its payload; the folder holds fewer files; a warm run writes
/// nothing.
#[test]
fn concurrent_runs_merging_small_packs_lose_nothing() {
    let r = history();
    let dir = tempfile::tempdir().unwrap();
    let entries = dir.path().join("entries");
    std::fs::create_dir_all(&entries).unwrap();
    let mut seeded = BTreeMap::new();
    for i in 0..40u8 {
        let key = [i; 32];
        let payload = vec![i; 64 + usize::from(i)];
        let e = PackEntry::sealed(KIND_CHANGES, key, &payload);
        write_pack(&entries.join(format!("seed{i:02}.pack")), &[e]);
        seeded.insert(key, payload);
    }
    let vars = [("PROTOLAPSE_CACHE_DIR", dir.path().as_os_str())];
    let (_, expected, _) = run_env(&["log", "--format", "json", "--no-cache"], r.path(), &[]);
    let outs: Vec<(i32, String, String)> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..4)
            .map(|_| s.spawn(|| run_env(&["log", "--format", "json"], r.path(), &vars)))
            .collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (code, out, err) in outs {
        assert_eq!((code, out), (0, expected.clone()), "{err}");
    }
    let kept: BTreeMap<[u8; 32], Vec<u8>> = cache_entries(dir.path(), KIND_CHANGES)
        .into_iter()
        .map(|e| (e.key, e.payload().to_vec()))
        .collect();
    for (key, payload) in &seeded {
        assert_eq!(kept.get(key), Some(payload), "entry {}", key[0]);
    }
    let packs = cache_packs(dir.path());
    assert!(packs.len() < 40, "merged: {} packs", packs.len());
    // Every pack sound: a warm run reads, rejects and writes nothing.
    let before: Vec<_> = packs.iter().map(|(p, _)| p.clone()).collect();
    let (_, warm, _) = run_env(&["log", "--format", "json"], r.path(), &vars);
    assert_eq!(warm, expected);
    let after: Vec<_> = cache_packs(dir.path())
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(before, after);
}
