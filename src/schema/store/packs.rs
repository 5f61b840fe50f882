//! The entries of a store, in packs (`pack.rs`): those put in this run wait in a batch, in
//! memory and readable, until a pack's worth (`Store::pack_bytes`) or the run's end; the
//! index of the packs on disk is read once, when first needed. A pack found unsound is
//! removed as a whole, and its entries count as misses; a pack that cannot be read now (gone,
//! out of file handles) is a miss and is left alone. No pack is held open: each read opens
//! its file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use super::entry::{self, Kind, Payload};
use super::{ENTRIES, Store, TOUCH_AFTER, pack};
use pack::NotOpened;

/// The size a batch is written at as a pack, when the cap allows (a pack ends with the
/// entry that reaches it; a run that writes less writes one pack).
pub(super) const PACK_BYTES: u64 = 8 << 20;

/// The packs an index reads at most (a store written as this one writes holds a few dozen).
const PACKS_READ: usize = 4096;

type Key = (u8, [u8; 32]);

/// The entries of a store: the batch not written yet, the batches being written, and the
/// packs on disk.
#[derive(Debug, Default)]
pub(super) struct Packs {
    batch: Mutex<Batch>,
    /// Batches taken to be written, readable until their pack joins the index.
    writing: Mutex<Vec<Arc<Batch>>>,
    /// None until first read.
    index: Mutex<Option<HashMap<Key, Place>>>,
    /// The packs this run wrote, in order: the newest of all, whatever their files' times
    /// say (packs written within one tick of the clock have the same).
    written: Mutex<Vec<PathBuf>>,
}

#[derive(Debug, Default)]
struct Batch {
    entries: Vec<(Kind, [u8; 32], Vec<u8>)>,
    at: HashMap<Key, usize>,
    bytes: u64,
}

impl Batch {
    fn get(&self, k: &Key) -> Option<&Vec<u8>> {
        self.at
            .get(k)
            .and_then(|&i| self.entries.get(i))
            .map(|e| &e.2)
    }
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
    modified: Option<SystemTime>,
    /// Found unsound (and removed): its entries are misses.
    bad: AtomicBool,
    touched: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether `path` is a pack's file (a regular file named `*.pack`).
pub(super) fn is_pack(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == pack::EXT)
}

impl Store {
    /// The regular files named as packs in the store's folder.
    pub(super) fn pack_paths(&self) -> Vec<PathBuf> {
        let Ok(files) = std::fs::read_dir(self.root.join(ENTRIES)) else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = files
            .flatten()
            .filter(|f| f.file_type().is_ok_and(|t| t.is_file()))
            .map(|f| f.path())
            .filter(|p| is_pack(p))
            .collect();
        paths.sort();
        paths.truncate(PACKS_READ);
        paths
    }

    /// The index of the packs on disk (read now when not read yet): unsound packs are
    /// removed.
    fn index(&self) -> MutexGuard<'_, Option<HashMap<Key, Place>>> {
        let mut index = lock(&self.packs.index);
        if index.is_none() {
            let mut map = HashMap::new();
            for path in self.pack_paths() {
                match pack::open(&path) {
                    Ok((_, slots)) => add(&mut map, path, &slots),
                    Err(NotOpened::Unsound) => self.reject(&path),
                    Err(NotOpened::OtherFormat | NotOpened::Unreadable) => {}
                }
            }
            *index = Some(map);
        }
        index
    }

    fn reject(&self, path: &Path) {
        self.counters.rejected.fetch_add(1, Ordering::Relaxed);
        let _ = std::fs::remove_file(path);
    }

    /// What `take` makes of the payload of `k`, if this run put it and it is not on disk
    /// yet.
    fn unwritten<T>(&self, k: &Key, take: impl Fn(&Vec<u8>) -> T) -> Option<T> {
        if let Some(p) = lock(&self.packs.batch).get(k) {
            return Some(take(p));
        }
        let writing = lock(&self.packs.writing);
        writing.iter().find_map(|b| b.get(k).map(&take))
    }

    /// The payload stored under `key`: put in this run, else read from its pack and
    /// checked; None when there is none, or it is not sound (then its pack is removed).
    pub fn get(&self, kind: Kind, key: &[u8; 32]) -> Option<Payload> {
        let c = &self.counters;
        let k = (kind.byte(), *key);
        if let Some(payload) = self.unwritten(&k, Vec::clone) {
            c.reads.fetch_add(1, Ordering::Relaxed);
            return Some(Payload::bare(payload));
        }
        let place = self.index().as_ref().and_then(|m| m.get(&k).cloned());
        let Some(place) = place.filter(|p| !p.pack.bad.load(Ordering::Relaxed)) else {
            c.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        let read =
            pack::Reader::open(&place.pack.path).and_then(|mut r| r.read(place.at, place.len));
        match read.map(|bytes| entry::open(bytes, kind, key)) {
            Ok(Some(payload)) => {
                c.reads.fetch_add(1, Ordering::Relaxed);
                c.read_bytes.fetch_add(place.len, Ordering::Relaxed);
                touch(&place.pack);
                Some(payload)
            }
            Ok(None) | Err(NotOpened::Unsound) => {
                if !place.pack.bad.swap(true, Ordering::Relaxed) {
                    self.reject(&place.pack.path);
                }
                None
            }
            Err(NotOpened::Unreadable | NotOpened::OtherFormat) => {
                c.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Whether an entry is stored under `key` (not whether it is sound: [`Store::get`]
    /// checks that).
    pub fn contains(&self, kind: Kind, key: &[u8; 32]) -> bool {
        let k = (kind.byte(), *key);
        if self.unwritten(&k, |_| ()).is_some() {
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
            self.write_batch(batch);
        }
        true
    }

    /// Writes what the batch holds as a pack.
    pub(super) fn flush(&self) {
        self.write_batch(lock(&self.packs.batch));
    }

    /// Writes the batch as a pack, outside its lock (its entries readable meanwhile), and
    /// adds the pack to the index; a failure turns the store off for the rest of the run.
    fn write_batch(&self, mut batch: MutexGuard<'_, Batch>) {
        if batch.entries.is_empty() {
            return;
        }
        let taken = Arc::new(std::mem::take(&mut *batch));
        if self.broken.load(Ordering::Relaxed) {
            return;
        }
        lock(&self.packs.writing).push(taken.clone());
        drop(batch);
        match pack::write(&self.root.join(ENTRIES), &taken.entries) {
            Ok((path, slots)) => {
                self.wrote.store(true, Ordering::Relaxed);
                lock(&self.packs.written).push(path.clone());
                if let Some(map) = self.index().as_mut() {
                    add(map, path, &slots);
                }
            }
            Err(_) => self.broken.store(true, Ordering::Relaxed),
        }
        lock(&self.packs.writing).retain(|b| !Arc::ptr_eq(b, &taken));
    }

    /// Where `path` comes among the packs this run wrote (1 for the first), 0 for any other
    /// file: the least recently used go first by this, then by their times.
    pub(super) fn written_rank(&self) -> impl Fn(&Path) -> usize {
        let written = lock(&self.packs.written).clone();
        move |path| written.iter().position(|p| p == path).map_or(0, |i| i + 1)
    }

    /// The number of entries in the packs on disk.
    pub(super) fn entries_on_disk(&self) -> u64 {
        let packs = self.pack_paths().into_iter().map(|p| pack::open(&p));
        packs.flatten().map(|(_, slots)| slots.len() as u64).sum()
    }

    /// Merges the packs of `small` into one (what is sound in them), then removes those it
    /// read: a store written by many runs, each a few entries, keeps a few files. Packs it
    /// cannot read, or of another format, are left as they are.
    pub(super) fn merge(&self, small: &[PathBuf]) {
        let mut seen = std::collections::HashSet::new();
        let mut entries = Vec::new();
        let mut read = Vec::new();
        for path in small {
            let Ok((mut file, slots)) = pack::open(path) else {
                continue;
            };
            for s in slots {
                if !seen.insert((s.kind.byte(), s.key)) {
                    continue;
                }
                let bytes = file.read(s.at, s.len).ok();
                if let Some(p) = bytes.and_then(|b| entry::open(b, s.kind, &s.key)) {
                    entries.push((s.kind, s.key, p.to_vec()));
                }
            }
            read.push(path);
        }
        if read.len() < 2 {
            return;
        }
        if let Ok((merged, _)) = pack::write(&self.root.join(ENTRIES), &entries) {
            for path in read.into_iter().filter(|p| **p != merged) {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

fn add(map: &mut HashMap<Key, Place>, path: PathBuf, slots: &[pack::Slot]) {
    let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
    let pack = Arc::new(PackFile {
        path,
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

/// Marks a pack as used now (for eviction), at most once per run and per [`TOUCH_AFTER`].
fn touch(pack: &PackFile) {
    let now = SystemTime::now();
    let stale = pack
        .modified
        .is_some_and(|t| now.duration_since(t).is_ok_and(|d| d > TOUCH_AFTER));
    if stale
        && !pack.touched.swap(true, Ordering::Relaxed)
        && let Ok(file) = std::fs::File::options().append(true).open(&pack.path)
    {
        let _ = file.set_modified(now);
    }
}
