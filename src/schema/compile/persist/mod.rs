//! The compiler's side of the on-disk cache (`schema::store`): what is kept per file, under
//! which key, and how a file set is put together from it.
//!
//! Per file of a pool, its *part* of the model: its `File`, the messages, enums, services
//! and extensions it declares, its docs and its fingerprint digest. What a file compiles
//! to depends on its text, on what it imports (transitively), and on which compiler put
//! each of those files into the pool (protox, or protoc for editions files and their
//! importers; the well-known types differ between them). So a part's key is SHA-256 over:
//! the entry format, protolapse's version and the binary itself (size and time), protoc's
//! identity when protoc had a hand in it, the file's path, blob, origin and compiler, and
//! the path, blob and compiler of every file of its import closure. Not the whole file set:
//! when one file of a monorepo changes, the others keep their keys.
//!
//! A file set is put together from parts when every file it would compile has one, and
//! nothing between files that do not import each other would fail (a name defined twice,
//! two extensions with one number): then a compile would have given no diagnostic, and the
//! parts are exactly what it would have normalized. When only some files miss, those are
//! compiled with what they import, and the set is put together. A set whose compile gave
//! diagnostics (most of protobuf's tags: test protos that clash) cannot be predicted from
//! its files: its outcome (diagnostics, counts, fingerprint, and the key of each file's
//! part) is kept under a key of the whole set, and put together from that. A part is kept
//! under its file's key only when the compile put every file of its closure into the pool
//! through the compiler the plan expects and no diagnostic names the file; else under a key
//! of the set. Nothing is kept of a compile whose failure may not come again (protoc
//! stopped, not started, or killed) or that panicked.
//! Computing the keys needs each file's imports and whether protox reads it: a small
//! *record* per blob, kept as well.

mod disk;
mod part;
mod plan;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use super::{Cache, Compiled, Parsed, SourceRef};
use crate::proto_text::without_bom;
pub(super) use disk::Disk;
use disk::Lookup;
use plan::given;

type ParsedMap = HashMap<(String, String), Result<Parsed, super::Diagnostic>>;

/// What a compile knows beyond its result, for storing it.
pub(super) struct Extra {
    /// Each pool file's fingerprint digest.
    pub digests: HashMap<String, [u8; 32]>,
    /// The files protox put in the pool (protoc put the others).
    pub by_protox: HashSet<String>,
}

impl Cache {
    /// A compiler with the process's on-disk cache, if it is on.
    pub fn new() -> Self {
        Cache {
            disk: super::super::store::global().map(Disk::new),
            ..Self::default()
        }
    }

    /// A compiler with this on-disk cache (or none).
    pub fn with_store(store: Option<Arc<super::super::store::Store>>) -> Self {
        Cache {
            disk: store.map(Disk::new),
            ..Self::default()
        }
    }

    /// A file set put together from the on-disk cache when it can be; else, when only some
    /// files miss, those compiled with what they need (and stored) and the set put
    /// together; else compiled whole (and stored when clean).
    pub(super) fn compile_or_load(&mut self, files: &[SourceRef<'_>]) -> Compiled {
        let Some(disk) = self.disk.as_mut() else {
            return self.compile_new(files).0;
        };
        // Files never seen (a monorepo's changed file) are parsed now: their keys need it.
        let unseen: Vec<SourceRef<'_>> = files
            .iter()
            .filter(|f| disk.record(&self.parsed, f.path, f.blob).is_none())
            .map(|f| SourceRef {
                text: f.text.map(without_bom),
                ..*f
            })
            .collect();
        for f in &unseen {
            let _ = self.parse(f);
        }
        let Some(disk) = self.disk.as_mut() else {
            return self.compile_new(files).0;
        };
        let started = Instant::now();
        let first = disk.lookup(&self.parsed, files);
        disk.stats.lookup += started.elapsed();
        match first {
            Lookup::Hit(c) => {
                disk.stats.sets_hit += 1;
                return c;
            }
            Lookup::Missing(plan, missing) => {
                let subset = plan.subset(files, &missing);
                if subset.len() < given(files).len() {
                    let (sub, extra) = self.compile_new(&subset);
                    self.save(&subset, &sub, &extra);
                    if let Some(disk) = self.disk.as_mut() {
                        let started = Instant::now();
                        let second = disk.lookup(&self.parsed, files);
                        disk.stats.lookup += started.elapsed();
                        if let Lookup::Hit(c) = second {
                            disk.stats.sets_partial += 1;
                            disk.stats.files_compiled += subset.len();
                            return c;
                        }
                    }
                }
            }
            Lookup::Miss => {}
        }
        let (c, extra) = self.compile_new(files);
        self.save(files, &c, &extra);
        if let Some(disk) = self.disk.as_mut() {
            disk.stats.sets_missed += 1;
        }
        c
    }

    fn save(&mut self, files: &[SourceRef<'_>], compiled: &Compiled, extra: &Extra) {
        if let Some(disk) = self.disk.as_mut() {
            let started = Instant::now();
            disk.save(&self.parsed, files, compiled, extra);
            disk.stats.store += started.elapsed();
        }
    }
}

/// Counters of the cache for one history (for `bench`).
#[derive(Debug, Clone, Default)]
pub struct DiskStats {
    /// File sets put together from the cache, those put together after compiling the
    /// files that missed (and the files those compiles took), and those compiled whole.
    pub sets_hit: usize,
    /// Of them, put together from an entry of the whole set (one with diagnostics).
    pub sets_whole: usize,
    pub sets_partial: usize,
    pub files_compiled: usize,
    pub sets_missed: usize,
    pub parts_hit: usize,
    pub parts_missed: usize,
    pub records_hit: usize,
    pub records_missed: usize,
    pub parts_stored: usize,
    pub records_stored: usize,
    /// Time spent looking up, putting together and storing.
    pub lookup: std::time::Duration,
    pub store: std::time::Duration,
}
