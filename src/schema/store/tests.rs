//! The store's own tests: what a run puts is read back, unsound packs are removed, the
//! store stays under its cap and keeps a few files.

use super::*;

impl Store {
    /// The payload under `key`, copied out (for comparing).
    fn got(&self, kind: Kind, key: &[u8; 32]) -> Option<Vec<u8>> {
        self.get(kind, key).map(|p| p.to_vec())
    }
}

fn packs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir.join(ENTRIES))
        .unwrap()
        .flatten()
        .map(|f| f.path())
        .filter(|p| packs::is_pack(p))
        .collect();
    out.sort();
    out
}

/// What a run puts is readable at once, on disk as one pack once settled, and read back
/// by the next run; a second put of a key keeps the first.
#[test]
fn entries_put_are_read_at_once_and_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), 1 << 30).unwrap();
    for k in 0..50u8 {
        store.put(Kind::Part, &[k; 32], vec![k; 100]);
    }
    store.put(Kind::Part, &[0; 32], vec![7; 3]);
    assert_eq!(store.got(Kind::Part, &[3; 32]), Some(vec![3; 100]));
    assert_eq!(store.got(Kind::Record, &[3; 32]), None, "another kind");
    assert!(packs(dir.path()).is_empty(), "nothing written yet");
    store.settle();
    assert_eq!(packs(dir.path()).len(), 1);
    assert_eq!(store.usage().entries, 50);
    let next = Store::open(dir.path(), 1 << 30).unwrap();
    assert!(next.contains(Kind::Part, &[49; 32]));
    assert_eq!(next.got(Kind::Part, &[0; 32]), Some(vec![0; 100]));
    assert_eq!(next.got(Kind::Part, &[49; 32]), Some(vec![49; 100]));
    assert_eq!(next.got(Kind::Part, &[50; 32]), None);
    assert_eq!(next.counters.reads.load(Ordering::Relaxed), 2);
}

/// An entry whose bytes were changed in its pack is not trusted: its pack is removed,
/// its entries are misses, and the next run writes them again.
#[test]
fn an_entry_spoiled_in_its_pack_removes_the_pack() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), 1 << 30).unwrap();
    store.put(Kind::Set, &[1; 32], b"first payload".to_vec());
    store.put(Kind::Set, &[2; 32], b"second payload".to_vec());
    drop(store);
    let [path] = packs(dir.path()).try_into().unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.windows(5).position(|w| w == b"first").unwrap();
    bytes[at] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let store = Store::open(dir.path(), 1 << 30).unwrap();
    assert_eq!(store.got(Kind::Set, &[1; 32]), None);
    assert_eq!(store.counters.rejected.load(Ordering::Relaxed), 1);
    assert!(!path.exists(), "the pack is removed");
    assert_eq!(
        store.got(Kind::Set, &[2; 32]),
        None,
        "its other entries too"
    );
    assert!(!store.contains(Kind::Set, &[2; 32]));
}

/// Past the cap, the least recently used packs go until the store fits (a pack is at
/// most an eighth of the cap: the newest stay); many small packs become one; files that
/// are not packs (an older layout) go once unused for an hour.
#[test]
fn tidying_evicts_past_the_cap_merges_small_packs_and_drops_other_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(ENTRIES)).unwrap();
    let legacy = dir.path().join(ENTRIES).join("00ff.part");
    std::fs::write(&legacy, b"an entry of format 2").unwrap();
    let unused = SystemTime::now() - 2 * TOUCH_AFTER;
    let file = std::fs::File::options().append(true).open(&legacy).unwrap();
    file.set_modified(unused).unwrap();
    let fresh = dir.path().join(ENTRIES).join(".tmp-being-written");
    std::fs::write(&fresh, b"half a pack").unwrap();
    let store = Store::open(dir.path(), 16_000).unwrap();
    for k in 0..40u8 {
        store.put(Kind::Part, &[k; 32], vec![k; 1000]);
    }
    store.settle();
    assert!(!legacy.exists());
    assert!(fresh.exists(), "another run's, being written");
    let usage = store.usage();
    assert!(usage.bytes <= 16_000, "{usage:?}");
    assert!(usage.entries >= 8, "{usage:?}");
    assert_eq!(
        store.got(Kind::Part, &[39; 32]),
        Some(vec![39; 1000]),
        "newest"
    );
    assert!(store.counters.evicted.load(Ordering::Relaxed) > 0);

    let dir = tempfile::tempdir().unwrap();
    for run in 0..(MAX_PACKS as u8 + 2) {
        let store = Store::open(dir.path(), 1 << 30).unwrap();
        store.put(Kind::Changes, &[run; 32], vec![run; 10]);
        store.settle();
    }
    // Merged when the 33rd came; the 34th beside it.
    assert_eq!(packs(dir.path()).len(), 2, "merged");
    let store = Store::open(dir.path(), 1 << 30).unwrap();
    assert_eq!(store.usage().entries, MAX_PACKS as u64 + 2);
    assert_eq!(store.got(Kind::Changes, &[5; 32]), Some(vec![5; 10]));
}

/// A pack of another format (another protolapse's) is neither read nor removed, by a run
/// that reads the index or by a tidy that merges small packs.
#[test]
fn a_pack_of_another_format_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), 1 << 30).unwrap();
    store.put(Kind::Set, &[1; 32], b"theirs".to_vec());
    drop(store);
    let [theirs] = packs(dir.path()).try_into().unwrap();
    let mut bytes = std::fs::read(&theirs).unwrap();
    bytes[16..20].copy_from_slice(&(FORMAT + 1).to_le_bytes());
    std::fs::write(&theirs, &bytes).unwrap();
    for run in 0..(MAX_PACKS as u8 + 2) {
        let store = Store::open(dir.path(), 1 << 30).unwrap();
        assert_eq!(store.got(Kind::Set, &[1; 32]), None);
        store.put(Kind::Changes, &[run; 32], vec![run; 10]);
        store.settle();
        assert_eq!(store.counters.rejected.load(Ordering::Relaxed), 0);
    }
    assert_eq!(std::fs::read(&theirs).unwrap(), bytes, "left as it was");
    let store = Store::open(dir.path(), 1 << 30).unwrap();
    assert_eq!(store.usage().entries, MAX_PACKS as u64 + 2);
    // Merged when the 33rd file came (theirs one of them); two runs since.
    assert_eq!(packs(dir.path()).len(), 4, "{:?}", packs(dir.path()));
}

/// A named pipe named as a pack is not opened (it would block the run), nor removed.
#[cfg(unix)]
#[test]
fn a_pipe_named_as_a_pack_does_not_block_a_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(ENTRIES)).unwrap();
    let fifo = dir.path().join(ENTRIES).join("00.pack");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo here: nothing to check
    }
    let root = dir.path().to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let store = Store::open(&root, 1 << 30).unwrap();
        let _ = tx.send((store.got(Kind::Part, &[1; 32]), store.usage().entries));
    });
    let got = rx.recv_timeout(Duration::from_secs(20));
    assert_eq!(got.ok(), Some((None, 0)));
    assert!(fifo.exists());
}

/// A merge whose output is one of its inputs (the others add nothing) keeps it.
#[test]
fn a_merge_never_removes_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), 1 << 30).unwrap();
    store.put(Kind::Part, &[1; 32], b"kept".to_vec());
    store.settle();
    let [first] = packs(dir.path()).try_into().unwrap();
    let copy = dir.path().join(ENTRIES).join("copy.pack");
    std::fs::copy(&first, &copy).unwrap();
    store.merge(&[first.clone(), copy.clone()]);
    assert_eq!(packs(dir.path()), vec![first]);
    let next = Store::open(dir.path(), 1 << 30).unwrap();
    assert_eq!(next.got(Kind::Part, &[1; 32]), Some(b"kept".to_vec()));
}
