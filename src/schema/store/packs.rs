//! The entries of a store, in packs (`pack.rs`): those put in this run wait in a batch, in
//! memory and readable, until a pack's worth ([`PACK_BYTES`]) or the run's end; the index
//! of the packs on disk is read once, when first needed. A pack found unsound is removed as
//! a whole, and its entries count as misses.

use std::collections::HashMap;
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use super::entry::{self, Kind, Payload};
use super::{ENTRIES, Store, TOUCH_AFTER, pack};

/// The size a batch is written at as a pack, at most (a run that writes less writes one
/// pack; see `Store::pack_bytes`).
pub(super) const PACK_BYTES: u64 = 8 << 20;

type Key = (u8, [u8; 32]);

/// The entries of a store: the batch not written yet, and the packs on disk.
#[derive(Debug, Default)]
pub(super) struct Packs {
    batch: Mutex<Batch>,
    /// None until first read.
    index: Mutex<Option<HashMap<Key, Place>>>,
}

#[derive(Debug, Default)]
struct Batch {
    entries: Vec<(Kind, [u8; 32], Vec<u8>)>,
    at: HashMap<Key, usize>,
    bytes: u64,
}

/// Where an entry on disk lies.
#[derive(Debug, Clone)]
struct Place {
    pack: Arc<PackFile>,
    at: u64,
    len: u64,
}

#[derive(Debug)]
struct PackFile {
    path: PathBuf,
    file: File,
    modified: Option<SystemTime>,
    /// Found unsound (and removed): its entries are misses.
    bad: AtomicBool,
    touched: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a read found.
pub(super) enum Found {
    Entry(Payload, u64),
    Missing,
    /// Its pack was not sound: removed.
    Rejected,
}

impl Store {
    /// The pack files of the store, by path; each opened with its entries, or why not.
    fn pack_files(&self) -> Vec<(PathBuf, Result<pack::Opened, pack::NotOpened>)> {
        let Ok(files) = std::fs::read_dir(self.root.join(ENTRIES)) else {
            return Vec::new();
        };
        files
            .flatten()
            .map(|f| f.path())
            .filter(|p| p.extension().is_some_and(|e| e == pack::EXT))
            .map(|p| {
                let opened = pack::open(&p);
                (p, opened)
            })
            .collect()
    }

    /// The index of the packs on disk (read now when not read yet): unsound packs are
    /// removed.
    fn index(&self) -> MutexGuard<'_, Option<HashMap<Key, Place>>> {
        let mut index = lock(&self.packs.index);
        if index.is_none() {
            let mut map = HashMap::new();
            for (path, opened) in self.pack_files() {
                match opened {
                    Ok((file, slots)) => self.add(&mut map, path, file, &slots),
                    Err(pack::NotOpened::Unsound) => self.reject(&path),
                    Err(pack::NotOpened::OtherFormat) => {}
                }
            }
            *index = Some(map);
        }
        index
    }

    fn add(&self, map: &mut HashMap<Key, Place>, path: PathBuf, file: File, slots: &[pack::Slot]) {
        let modified = file.metadata().and_then(|m| m.modified()).ok();
        let pack = Arc::new(PackFile {
            path,
            file,
            modified,
            bad: AtomicBool::new(false),
            touched: AtomicBool::new(false),
        });
        for s in slots {
            let place = Place {
                pack: pack.clone(),
                at: s.at,
                len: s.len,
            };
            map.entry((s.kind.byte(), s.key)).or_insert(place);
        }
    }

    fn reject(&self, path: &std::path::Path) {
        self.counters.rejected.fetch_add(1, Ordering::Relaxed);
        let _ = std::fs::remove_file(path);
    }

    /// The entry of `kind` and `key`: from the batch, else from its pack (checked).
    pub(super) fn find(&self, kind: Kind, key: &[u8; 32]) -> Found {
        let k = (kind.byte(), *key);
        {
            let batch = lock(&self.packs.batch);
            if let Some(&i) = batch.at.get(&k) {
                let payload = batch.entries[i].2.clone();
                let n = payload.len() as u64;
                return Found::Entry(Payload::bare(payload), n);
            }
        }
        let place = self.index().as_ref().and_then(|m| m.get(&k).cloned());
        let Some(place) = place.filter(|p| !p.pack.bad.load(Ordering::Relaxed)) else {
            return Found::Missing;
        };
        let read = pack::read_at(&place.pack.file, place.at, place.len);
        match read.and_then(|bytes| entry::open(bytes, kind, key)) {
            Some(payload) => {
                touch(&place.pack);
                Found::Entry(payload, place.len)
            }
            None => {
                if !place.pack.bad.swap(true, Ordering::Relaxed) {
                    self.reject(&place.pack.path);
                }
                Found::Rejected
            }
        }
    }

    /// Whether an entry of `kind` and `key` is there (not whether it is sound).
    pub(super) fn has(&self, kind: Kind, key: &[u8; 32]) -> bool {
        let k = (kind.byte(), *key);
        if lock(&self.packs.batch).at.contains_key(&k) {
            return true;
        }
        let index = self.index();
        let place = index.as_ref().and_then(|m| m.get(&k));
        place.is_some_and(|p| !p.pack.bad.load(Ordering::Relaxed))
    }

    /// Adds an entry to the batch (written as a pack once the batch is a pack's worth);
    /// false when it was there already.
    pub(super) fn batch(&self, kind: Kind, key: &[u8; 32], payload: Vec<u8>) -> bool {
        let mut batch = lock(&self.packs.batch);
        let k = (kind.byte(), *key);
        if batch.at.contains_key(&k) {
            return false;
        }
        batch.bytes += (entry::HEADER + payload.len()) as u64;
        let i = batch.entries.len();
        batch.entries.push((kind, *key, payload));
        batch.at.insert(k, i);
        if batch.bytes >= self.pack_bytes() {
            self.write_batch(&mut batch);
        }
        true
    }

    /// Writes what the batch holds as a pack.
    pub(super) fn flush(&self) {
        self.write_batch(&mut lock(&self.packs.batch));
    }

    /// Writes the batch as a pack (its entries join the index); a failure turns the store
    /// off for the rest of the run.
    fn write_batch(&self, batch: &mut Batch) {
        if batch.entries.is_empty() {
            return;
        }
        let taken = std::mem::take(batch);
        if self.broken.load(Ordering::Relaxed) {
            return;
        }
        match pack::write(&self.root.join(ENTRIES), &taken.entries) {
            Ok((path, _, slots)) => {
                self.wrote.store(true, Ordering::Relaxed);
                // Read back from the pack from now on (were it gone already, the entries
                // are misses).
                if let Some(map) = lock(&self.packs.index).as_mut()
                    && let Ok(file) = File::open(&path)
                {
                    self.add(map, path, file, &slots);
                }
            }
            Err(_) => self.broken.store(true, Ordering::Relaxed),
        }
    }

    /// The number of entries in the packs on disk.
    pub(super) fn entries_on_disk(&self) -> u64 {
        let packs = self.pack_files();
        packs
            .iter()
            .filter_map(|(_, p)| p.as_ref().ok())
            .map(|(_, slots)| slots.len() as u64)
            .sum()
    }

    /// Merges the packs of `small` into one (what is sound in them), then removes them: a
    /// store written by many runs, each a few entries, keeps a few files.
    pub(super) fn merge(&self, small: &[PathBuf]) {
        let mut seen = std::collections::HashSet::new();
        let mut entries = Vec::new();
        for path in small {
            let Ok((file, slots)) = pack::open(path) else {
                continue;
            };
            for s in slots {
                let bytes = pack::read_at(&file, s.at, s.len);
                if seen.contains(&(s.kind.byte(), s.key)) {
                    continue;
                }
                if let Some(p) = bytes.and_then(|b| entry::open(b, s.kind, &s.key)) {
                    seen.insert((s.kind.byte(), s.key));
                    entries.push((s.kind, s.key, p.to_vec()));
                }
            }
        }
        if pack::write(&self.root.join(ENTRIES), &entries).is_ok() {
            for path in small {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// Marks a pack as used now (for eviction), at most once per run and per [`TOUCH_AFTER`].
fn touch(pack: &PackFile) {
    let now = SystemTime::now();
    let stale = pack
        .modified
        .is_some_and(|t| now.duration_since(t).is_ok_and(|d| d > TOUCH_AFTER));
    if stale
        && !pack.touched.swap(true, Ordering::Relaxed)
        && let Ok(file) = File::options().append(true).open(&pack.path)
    {
        let _ = file.set_modified(now);
    }
}
