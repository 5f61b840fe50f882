//! The on-disk cache: compiled and normalized results kept between runs, in the platform's
//! cache folder (`~/.cache/protolapse` on Linux), or `PROTOLAPSE_CACHE_DIR`.
//!
//! A store is a folder of packs: files of entries (`pack.rs`), each entry under the SHA-256
//! of its key. What an entry holds and what its key covers is the compiler's business
//! (`compile::persist`); here: reading and writing entries safely. Each entry carries a
//! header (magic, format version, kind, its own key) and the SHA-256 of its payload, each
//! pack an index with its own digest: a corrupt, truncated or foreign pack or entry is never
//! trusted, the pack is removed and its entries count as misses. The entries a run puts are
//! readable at once and written together, a pack per few MiB (`packs.rs`), to a temporary
//! file renamed into place, so concurrent runs never see half a pack. The size is bounded:
//! when a run wrote, the store is brought under its cap (512 MiB,
//! `PROTOLAPSE_CACHE_MAX_BYTES`) by removing the least recently used packs (by modification
//! time, refreshed on use; the packs the run wrote last of all), and many small packs are
//! merged into one.
//!
//! The command line turns it on once per process ([`configure`]); a `Cache` made without
//! it (tests, the library) never touches the disk. A folder that cannot be created or
//! written turns the store off with one warning; the command goes on uncached.

mod entry;
mod pack;
mod packs;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

pub use entry::{FORMAT, Kind, Payload};

/// The default cap on the store's size.
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;
pub const DIR_VAR: &str = "PROTOLAPSE_CACHE_DIR";
pub const MAX_VAR: &str = "PROTOLAPSE_CACHE_MAX_BYTES";
/// The folder under the store's root that holds the entries (the only one `clear` removes).
const ENTRIES: &str = "entries";
/// More packs than this, and a writing run merges the small ones.
const MAX_PACKS: usize = 32;
/// A pack under this size is small; a tidy merges this many small packs at most.
const SMALL_PACK: u64 = 1 << 20;
const MERGE_AT_MOST: usize = 64;
/// A pack used within this long is not touched again (one write less per hit).
const TOUCH_AFTER: Duration = Duration::from_secs(3600);

/// An open store.
#[derive(Debug)]
pub struct Store {
    root: PathBuf,
    max_bytes: u64,
    /// Set after a write failed: the rest of the run goes uncached.
    broken: AtomicBool,
    /// Whether this run wrote a pack not settled yet.
    wrote: AtomicBool,
    pub counters: Counters,
    packs: packs::Packs,
}

/// What a run did with the store (for `bench`).
#[derive(Debug, Default)]
pub struct Counters {
    pub reads: AtomicU64,
    pub read_bytes: AtomicU64,
    pub misses: AtomicU64,
    /// Packs found not sound (corrupt, truncated, foreign, or holding such an entry),
    /// removed.
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

/// Writes what the store of this process was given and not written yet: what a command
/// calls before it exits. Nothing when the store was not opened.
pub fn finish() {
    if let Some(Some(store)) = GLOBAL.get().and_then(|g| g.store.get()) {
        store.settle();
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
            counters: Counters::default(),
            packs: packs::Packs::default(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// Stores `payload` under `key`: readable at once, written with the rest of the run's
    /// entries (see `packs.rs`). A failure to write turns the store off for the rest of the
    /// run.
    pub fn put(&self, kind: Kind, key: &[u8; 32], payload: Vec<u8>) {
        if self.broken.load(Ordering::Relaxed) {
            return;
        }
        let size = (entry::HEADER + payload.len()) as u64;
        if self.batch(kind, key, payload) {
            self.counters.writes.fetch_add(1, Ordering::Relaxed);
            self.counters
                .written_bytes
                .fetch_add(size, Ordering::Relaxed);
        }
    }

    /// The size a batch of entries is written at: a pack is never more than an eighth of
    /// the cap, so that eviction keeps the newest.
    fn pack_bytes(&self) -> u64 {
        (self.max_bytes / 8).clamp(1, packs::PACK_BYTES)
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
        Usage {
            entries: self.entries_on_disk(),
            bytes: self.files().iter().map(|(_, n, _)| n).sum(),
        }
    }

    /// Removes every entry; returns what was removed.
    pub fn clear(&self) -> std::io::Result<Usage> {
        let usage = self.usage();
        match std::fs::remove_dir_all(self.root.join(ENTRIES)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(usage),
        }
    }

    /// What a writer calls when it is done: what this run put is written, and when it wrote,
    /// the store is tidied (see [`Store::tidy`]).
    pub fn settle(&self) {
        self.flush();
        if self.wrote.swap(false, Ordering::Relaxed) {
            self.tidy();
        }
    }

    /// Removes the files that are not packs and were not used for an hour (temporary files
    /// left by a run that was killed; entries of an older layout); merges the small packs
    /// when there are more than [`MAX_PACKS`]; then removes the least recently used files
    /// while over the cap.
    fn tidy(&self) {
        let is_pack = packs::is_pack;
        let now = SystemTime::now();
        let mut files = self.files();
        files.retain(|(path, _, used)| {
            let old = now.duration_since(*used).is_ok_and(|d| d > TOUCH_AFTER);
            let gone = !is_pack(path) && old && std::fs::remove_file(path).is_ok();
            !gone
        });
        let mut small: Vec<&(PathBuf, u64, SystemTime)> = files
            .iter()
            .filter(|(p, size, _)| is_pack(p) && *size < SMALL_PACK)
            .collect();
        let packs = files.iter().filter(|(p, _, _)| is_pack(p)).count();
        if packs > MAX_PACKS && small.len() > 1 {
            small.sort_by_key(|(_, size, _)| *size);
            let merged: Vec<PathBuf> = small
                .iter()
                .take(MERGE_AT_MOST)
                .map(|(p, _, _)| p.clone())
                .collect();
            self.merge(&merged);
            files = self.files();
        }
        // Temporary files being written by another run are not the store's yet.
        files.retain(|(p, _, _)| is_pack(p) || !is_temporary(p));
        let mut total: u64 = files.iter().map(|(_, n, _)| n).sum();
        let rank = self.written_rank();
        files.sort_by_cached_key(|(path, _, used)| (rank(path), *used));
        for (path, size, _) in files {
            if total <= self.max_bytes {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(size);
                self.counters.evicted.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

fn is_temporary(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with(".tmp"))
}

impl Drop for Store {
    /// What was put and not written yet is written (a store of the library's; the command
    /// line's lives as long as the process and is written by [`finish`]).
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests;
