//! The on-disk cache: compiled and normalized results kept between runs, in the platform's
//! cache folder (`~/.cache/protolapse` on Linux), or `PROTOLAPSE_CACHE_DIR`.
//!
//! A store is a folder of entries, one file each, named by the SHA-256 of its key. What an
//! entry holds and what its key covers is the compiler's business (`compile::persist`);
//! here: reading and writing entries safely. Each entry carries a header (magic, format
//! version, kind, its own key) and the SHA-256 of its payload: a corrupt, truncated or
//! foreign entry is never trusted, it is removed and counted as a miss. Entries are written
//! to a temporary file in the same folder and renamed into place, so concurrent runs never
//! see half an entry. The size is bounded: when a run wrote entries and the store is over
//! its cap (512 MiB, `PROTOLAPSE_CACHE_MAX_BYTES`), the least recently used entries (by
//! modification time, refreshed on use) are removed.
//!
//! The command line turns it on once per process ([`configure`]); a `Cache` made without
//! it (tests, the library) never touches the disk. A folder that cannot be created or
//! written turns the store off with one warning; the command goes on uncached.

mod entry;
mod later;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

pub use entry::{FORMAT, Kind, Payload};
pub use later::Hold;

/// The default cap on the store's size.
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;
pub const DIR_VAR: &str = "PROTOLAPSE_CACHE_DIR";
pub const MAX_VAR: &str = "PROTOLAPSE_CACHE_MAX_BYTES";
/// The folder under the store's root that holds the entries (the only one `clear` removes).
const ENTRIES: &str = "entries";
/// The size of the entries as last counted, and the writing runs since: a run that wrote
/// adds its bytes, and lists the folder only when that passes the cap (or every
/// [`RECOUNT_EVERY`] writing runs, in case concurrent runs lost an addition).
const USAGE: &str = "usage";
const RECOUNT_EVERY: u64 = 64;
/// An entry used within this long is not touched again (one write less per hit).
const TOUCH_AFTER: Duration = Duration::from_secs(3600);

/// An open store.
#[derive(Debug)]
pub struct Store {
    root: PathBuf,
    max_bytes: u64,
    /// Set after a write failed: the rest of the run goes uncached.
    broken: AtomicBool,
    pub(crate) wrote: AtomicBool,
    /// Of `counters.written_bytes`, what a settle has already counted.
    settled_bytes: AtomicU64,
    pub counters: Counters,
    /// Entries written on the store's own thread (see [`Store::put_later`]).
    later: later::Later,
}

/// What a run did with the store (for `bench`).
#[derive(Debug, Default)]
pub struct Counters {
    pub reads: AtomicU64,
    pub read_bytes: AtomicU64,
    pub misses: AtomicU64,
    /// Entries found but not trusted (corrupt, truncated, foreign), removed.
    pub rejected: AtomicU64,
    pub writes: AtomicU64,
    pub written_bytes: AtomicU64,
    pub evicted: AtomicU64,
}

/// The number of entries and their size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub entries: u64,
    pub bytes: u64,
}

/// Where the store of this process lives: `PROTOLAPSE_CACHE_DIR`, else the platform's cache
/// folder for protolapse; None when neither is known.
pub fn location() -> Option<PathBuf> {
    match std::env::var_os(DIR_VAR) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => directories::ProjectDirs::from("", "", "protolapse")
            .map(|d| d.cache_dir().to_path_buf()),
    }
}

/// The cap of this process: `PROTOLAPSE_CACHE_MAX_BYTES` (a number of bytes, `_` allowed),
/// else [`DEFAULT_MAX_BYTES`].
pub fn max_bytes() -> u64 {
    std::env::var(MAX_VAR)
        .ok()
        .and_then(|v| v.trim().replace('_', "").parse().ok())
        .unwrap_or(DEFAULT_MAX_BYTES)
}

/// protolapse itself: the entries' format, its version, and this very binary (size and
/// time), so that a build with other compilers, other embedded protos, another
/// normalization or other rules never reads the entries of this one. Every key covers it.
pub fn build_id() -> &'static [u8; 32] {
    static ID: OnceLock<[u8; 32]> = OnceLock::new();
    ID.get_or_init(|| {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(FORMAT.to_le_bytes());
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        h.update([0]);
        if let Ok(meta) = std::env::current_exe().and_then(std::fs::metadata) {
            stamp(&mut h, &meta);
        }
        h.finalize().into()
    })
}

/// A program's identity as a key sees it: its size and time of modification.
pub(crate) fn stamp(h: &mut sha2::Sha256, meta: &std::fs::Metadata) {
    use sha2::Digest;
    h.update(meta.len().to_le_bytes());
    let time = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
    h.update(time.map_or(0, |d| d.as_nanos()).to_le_bytes());
}

struct Global {
    enabled: bool,
    warn: fn(&str),
    store: OnceLock<Option<Arc<Store>>>,
}

static GLOBAL: OnceLock<Global> = OnceLock::new();

/// Turns the store on (or, with `enabled` false, keeps it off) for this process; the first
/// call wins. The store opens when first used; `warn` gets the one line that says why it
/// could not (the command goes on uncached).
pub fn configure(enabled: bool, warn: fn(&str)) {
    let _ = GLOBAL.set(Global {
        enabled,
        warn,
        store: OnceLock::new(),
    });
}

/// The store of this process, opened on first use; None when it is off or cannot be used.
pub fn global() -> Option<Arc<Store>> {
    let g = GLOBAL.get()?;
    if !g.enabled {
        return None;
    }
    g.store
        .get_or_init(|| {
            let opened = location()
                .ok_or_else(|| format!("no cache folder is known for this user (set {DIR_VAR})"))
                .and_then(|root| Store::open(&root, max_bytes()));
            match opened {
                Ok(s) => Some(Arc::new(s)),
                Err(why) => {
                    (g.warn)(&format!("{why}; going on without the cache"));
                    None
                }
            }
        })
        .clone()
}

/// Waits for what the store of this process still has to write (see [`Store::put_later`]):
/// what a command calls before it exits. Nothing when the store was not opened.
pub fn finish() {
    if let Some(Some(store)) = GLOBAL.get().and_then(|g| g.store.get()) {
        store.wait();
    }
}

/// Holds the writer of this process's store while alive (see [`Store::hold`]): what a
/// computation the user waits for takes, so that the cache's files are created after it.
pub fn hold() -> Hold {
    match GLOBAL.get().and_then(|g| g.store.get()) {
        Some(Some(store)) => store.hold(),
        _ => Hold::none(),
    }
}

impl Store {
    /// Opens (creating it) the store at `root`; fails when the folder cannot be created or
    /// written.
    pub fn open(root: &Path, max_bytes: u64) -> Result<Store, String> {
        let entries = root.join(ENTRIES);
        let shown = root.display();
        std::fs::create_dir_all(&entries)
            .map_err(|e| format!("cannot create the cache folder {shown}: {e}"))?;
        // A probe: a folder that exists but cannot be written is found now, once.
        tempfile::NamedTempFile::new_in(&entries)
            .map_err(|e| format!("cannot write in the cache folder {shown}: {e}"))?;
        Ok(Store {
            root: root.to_path_buf(),
            max_bytes,
            broken: AtomicBool::new(false),
            wrote: AtomicBool::new(false),
            settled_bytes: AtomicU64::new(0),
            counters: Counters::default(),
            later: later::Later::default(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// One folder of entries, not sharded: creating a folder costs as much as a file, and a
    /// store holds a few thousand entries.
    fn path(&self, kind: Kind, key: &[u8; 32]) -> PathBuf {
        self.root
            .join(ENTRIES)
            .join(format!("{}.{}", entry::hex(key), kind.ext()))
    }

    /// The payload stored under `key`, checked; None when there is none or it is not sound
    /// (then it is removed).
    pub fn get(&self, kind: Kind, key: &[u8; 32]) -> Option<Payload> {
        let path = self.path(kind, key);
        let Some((bytes, modified)) = read(&path) else {
            self.counters.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        let c = &self.counters;
        let size = bytes.len() as u64;
        match entry::open(bytes, kind, key) {
            Some(payload) => {
                c.reads.fetch_add(1, Ordering::Relaxed);
                c.read_bytes.fetch_add(size, Ordering::Relaxed);
                touch(&path, modified);
                Some(payload)
            }
            None => {
                c.rejected.fetch_add(1, Ordering::Relaxed);
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Whether an entry is stored under `key` (not whether it is sound: [`Store::get`]
    /// checks that).
    pub fn contains(&self, kind: Kind, key: &[u8; 32]) -> bool {
        self.path(kind, key).is_file()
    }

    /// Stores `payload` under `key` (atomically: a temporary file renamed into place). A
    /// failure turns the store off for the rest of the run.
    pub fn put(&self, kind: Kind, key: &[u8; 32], payload: &[u8]) {
        if self.broken.load(Ordering::Relaxed) {
            return;
        }
        let path = self.path(kind, key);
        let header = entry::header(kind, key, payload);
        let written = (|| -> std::io::Result<()> {
            let dir = path.parent().unwrap_or(&self.root);
            let mut tmp = tempfile::Builder::new().prefix(".tmp").tempfile_in(dir)?;
            std::io::Write::write_all(&mut tmp, &header)?;
            std::io::Write::write_all(&mut tmp, payload)?;
            tmp.persist(&path).map_err(|e| e.error)?;
            Ok(())
        })();
        match written {
            Ok(()) => {
                self.wrote.store(true, Ordering::Relaxed);
                self.counters.writes.fetch_add(1, Ordering::Relaxed);
                self.counters
                    .written_bytes
                    .fetch_add((header.len() + payload.len()) as u64, Ordering::Relaxed);
            }
            Err(_) => self.broken.store(true, Ordering::Relaxed),
        }
    }

    /// Every file of the store with its size and time of last use.
    fn files(&self) -> Vec<(PathBuf, u64, SystemTime)> {
        let Ok(files) = std::fs::read_dir(self.root.join(ENTRIES)) else {
            return Vec::new();
        };
        files
            .flatten()
            .filter_map(|f| {
                let meta = f.metadata().ok().filter(|m| m.is_file())?;
                let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                Some((f.path(), meta.len(), used))
            })
            .collect()
    }

    /// How many entries the store holds, and their size.
    pub fn usage(&self) -> Usage {
        let files = self.files();
        Usage {
            entries: files.len() as u64,
            bytes: files.iter().map(|(_, n, _)| n).sum(),
        }
    }

    /// Removes every entry; returns what was removed.
    pub fn clear(&self) -> std::io::Result<Usage> {
        let usage = self.usage();
        let _ = std::fs::remove_file(self.root.join(USAGE));
        match std::fs::remove_dir_all(self.root.join(ENTRIES)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(usage),
        }
    }

    /// What a writer calls when it is done: when this run wrote entries, the store is
    /// brought back under its cap. The folder is listed only when the size last counted plus
    /// what was written since passes the cap (a cache of thousands of entries took a
    /// directory listing and a `stat` per entry after every run that wrote one).
    /// While queued entries are being written, their writer settles when done.
    pub fn settle(&self) {
        if !self.writing() {
            self.settle_now();
        }
    }

    fn settle_now(&self) {
        if !self.wrote.load(Ordering::Relaxed) {
            return;
        }
        let written = self.counters.written_bytes.load(Ordering::Relaxed);
        let new = written.saturating_sub(self.settled_bytes.swap(written, Ordering::Relaxed));
        match self.counted() {
            Some((bytes, runs))
                if bytes.saturating_add(new) <= self.max_bytes && runs < RECOUNT_EVERY =>
            {
                self.count(bytes.saturating_add(new), runs + 1);
            }
            _ => self.evict(),
        }
    }

    /// The size last counted and the writing runs since, if known.
    fn counted(&self) -> Option<(u64, u64)> {
        let text = std::fs::read_to_string(self.root.join(USAGE)).ok()?;
        let mut words = text.split_whitespace().map(|w| w.parse::<u64>().ok());
        Some((words.next()??, words.next()??))
    }

    /// Records the size of the entries (a temporary file renamed into place).
    fn count(&self, bytes: u64, runs: u64) {
        let written = (|| -> std::io::Result<()> {
            let mut tmp = tempfile::Builder::new()
                .prefix(".tmp")
                .tempfile_in(&self.root)?;
            std::io::Write::write_all(&mut tmp, format!("{bytes} {runs}\n").as_bytes())?;
            tmp.persist(self.root.join(USAGE)).map_err(|e| e.error)?;
            Ok(())
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(self.root.join(USAGE));
        }
    }

    /// When over the cap, removes the least recently used entries until it is not (a
    /// temporary file older than an hour, left by a run that was killed, goes first); then
    /// records the size.
    pub fn evict(&self) {
        let mut files = self.files();
        let mut total: u64 = files.iter().map(|(_, n, _)| n).sum();
        if total <= self.max_bytes {
            self.count(total, 0);
            return;
        }
        files.sort_by_key(|(_, _, used)| *used);
        for (path, size, _) in files {
            if total <= self.max_bytes {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(size);
                self.counters.evicted.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.count(total, 0);
    }
}

/// An entry's bytes and its time of last use; None when there is none (or no more than
/// the largest entry we write could be read).
fn read(path: &Path) -> Option<(Vec<u8>, Option<SystemTime>)> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0).min(1 << 30));
    file.take(entry::MAX_ENTRY).read_to_end(&mut bytes).ok()?;
    Some((bytes, meta.modified().ok()))
}

/// Marks an entry as used now (for eviction), at most once per [`TOUCH_AFTER`].
fn touch(path: &Path, modified: Option<SystemTime>) {
    let now = SystemTime::now();
    let stale = modified.is_some_and(|t| now.duration_since(t).is_ok_and(|d| d > TOUCH_AFTER));
    if stale && let Ok(file) = std::fs::File::options().append(true).open(path) {
        let _ = file.set_modified(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Store {
        /// The payload under `key`, copied out (for comparing).
        fn got(&self, kind: Kind, key: &[u8; 32]) -> Option<Vec<u8>> {
            self.get(kind, key).map(|p| p.to_vec())
        }
    }

    /// A run that wrote adds its bytes to the size last counted; the folder is listed (and
    /// the count made exact) when that passes the cap, so a count that lost an addition is
    /// corrected, and nothing is evicted that fits.
    #[test]
    fn settling_adds_what_was_written_and_lists_the_folder_past_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), 10_000).unwrap();
        store.put(Kind::Part, &[1; 32], &[0; 1000]);
        store.settle();
        assert_eq!(
            store.counted(),
            Some((store.usage().bytes, 0)),
            "listed once"
        );
        store.put(Kind::Part, &[2; 32], &[0; 1000]);
        store.settle();
        assert_eq!(store.counted(), Some((store.usage().bytes, 1)), "added");
        // A count too high for what the folder holds: the next run passes the cap with it,
        // lists the folder, counts exactly and evicts nothing.
        std::fs::write(dir.path().join(USAGE), "9500 1\n").unwrap();
        store.put(Kind::Part, &[3; 32], &[0; 1000]);
        store.settle();
        assert_eq!(store.counted(), Some((store.usage().bytes, 0)));
        assert_eq!(store.usage().entries, 3);
        // Past the cap for real: the oldest entries go until it fits.
        for k in 4..12u8 {
            store.put(Kind::Part, &[k; 32], &[0; 1000]);
        }
        store.settle();
        let usage = store.usage();
        assert!(usage.bytes <= 10_000 && usage.entries < 11, "{usage:?}");
        assert_eq!(store.counted(), Some((usage.bytes, 0)));
    }

    /// A held writer writes nothing until the hold is dropped; a run that ends (`wait`)
    /// does not wait for a hold still alive.
    #[test]
    fn a_held_writer_writes_once_released_or_when_the_run_ends() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path(), 1 << 20).unwrap());
        let hold = store.hold();
        let second = store.hold();
        for k in 0..5u8 {
            store.put_later(Kind::Changes, &[k; 32], vec![k; 10]);
        }
        std::thread::sleep(Duration::from_millis(100));
        drop(second);
        std::thread::sleep(Duration::from_millis(50));
        // Past a frame's time, well within `HELD_AT_MOST`: nothing written yet.
        assert!(later::HELD_AT_MOST >= Duration::from_secs(1));
        assert!(store.writing());
        assert_eq!(store.got(Kind::Changes, &[0; 32]), None);
        drop(hold);
        store.wait();
        assert_eq!(store.got(Kind::Changes, &[4; 32]), Some(vec![4; 10]));

        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path(), 1 << 20).unwrap());
        let _hold = store.hold();
        store.put_later(Kind::Changes, &[7; 32], vec![7; 10]);
        let t = std::time::Instant::now();
        store.wait();
        assert!(t.elapsed() < later::HELD_AT_MOST, "{:?}", t.elapsed());
        assert_eq!(store.got(Kind::Changes, &[7; 32]), Some(vec![7; 10]));
    }

    /// Entries put for later are written by the store's thread: a `wait` returns once all
    /// are there, readable and counted (the writer settles when its queue is empty), and a
    /// settle called while they are being written leaves the count to the writer.
    #[test]
    fn entries_put_for_later_are_all_written_and_counted_when_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path(), 1 << 20).unwrap());
        for k in 0..40u8 {
            store.put_later(Kind::Changes, &[k; 32], vec![k; 100 + usize::from(k)]);
        }
        store.settle();
        store.wait();
        for k in 0..40u8 {
            assert_eq!(
                store.got(Kind::Changes, &[k; 32]),
                Some(vec![k; 100 + usize::from(k)]),
                "entry {k}"
            );
        }
        assert_eq!(store.usage().entries, 40);
        assert_eq!(
            store.counted().map(|(bytes, _)| bytes),
            Some(store.usage().bytes)
        );
    }
}
