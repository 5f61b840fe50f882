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

use rayon::prelude::*;

use super::parse::{ParsedMap, key_of, readable};
use super::window::guarded;
use super::{Cache, Compiled, SourceRef, Status};
pub(super) use disk::Disk;
use disk::Lookup;

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
        Self::with_store(super::super::store::global())
    }

    /// A compiler with this on-disk cache (or none).
    pub fn with_store(store: Option<Arc<super::super::store::Store>>) -> Self {
        let shared = Arc::default();
        Cache {
            disk: store.map(|s| Arc::new(Disk::new(s, Arc::clone(&shared)))),
            shared,
            ..Self::default()
        }
    }

    /// Distinct sets compiled side by side, each put together from the on-disk cache when it
    /// can be; else, when only some files miss, those compiled with what they need (and
    /// stored) and the set put together; else compiled whole (and stored when clean). A
    /// panic fails its set only (`Err`: why).
    pub(super) fn compile_or_load(
        &mut self,
        sets: &[&[SourceRef<'_>]],
    ) -> Vec<Result<Compiled, String>> {
        let Some(disk) = self.disk.clone() else {
            let jobs: Vec<_> = sets.iter().map(|s| s.to_vec()).collect();
            let mut out: Vec<Result<Compiled, String>> = self
                .compile_jobs(&jobs)
                .into_iter()
                .map(|r| r.map(|(c, _)| c))
                .collect();
            self.share_fresh(out.iter_mut().flatten());
            return out;
        };
        // Files never seen (a monorepo's changed file) are parsed now: their keys need it.
        let held = &self.parsed;
        let mut seen = HashSet::new();
        let blobs: Vec<SourceRef<'_>> = sets
            .iter()
            .flat_map(|s| readable(s))
            .filter(|f| !held.contains_key(&key_of(f)) && seen.insert(key_of(f)))
            .collect();
        let unseen: Vec<SourceRef<'_>> = blobs
            .into_par_iter()
            .filter(|f| disk.record(held, f.path, f.blob).is_none())
            .collect();
        self.parse_all(&unseen);
        let held = &self.parsed;
        let first: Vec<Result<Lookup, String>> = sets
            .par_iter()
            .map(|files| guarded(|| disk.lookup(held, files)))
            .collect();
        let mut out: Vec<Option<Result<Compiled, String>>> =
            (0..sets.len()).map(|_| None).collect();
        // (set, compiled in part)
        let mut jobs: Vec<(usize, bool)> = Vec::new();
        let mut files: Vec<Vec<SourceRef<'_>>> = Vec::new();
        for (i, (found, set)) in first.into_iter().zip(sets).enumerate() {
            match found {
                Err(why) => out[i] = Some(Err(why)),
                Ok(Lookup::Hit(c)) => {
                    disk.count(|s| s.sets_hit += 1);
                    out[i] = Some(Ok(c));
                }
                Ok(Lookup::Missing(subset)) => {
                    jobs.push((i, true));
                    files.push(subset);
                }
                Ok(Lookup::Miss) => {
                    jobs.push((i, false));
                    files.push(set.to_vec());
                }
            }
        }
        let compiled = self.compile_and_save(&files);
        // Sets compiled whole hold declarations of their own (those put together from parts
        // share them as the parts are read).
        let mut fresh: Vec<usize> = Vec::new();
        let mut whole: Vec<usize> = Vec::new();
        let mut partial: Vec<(usize, usize)> = Vec::new();
        for ((i, part), (result, job)) in jobs.into_iter().zip(compiled.into_iter().zip(&files)) {
            match result {
                // A part whose compile had diagnostics kept its parts under keys of its own
                // (see `Disk::put`): the set cannot be put together, it is compiled whole.
                Ok((c, _))
                    if part && (c.status != Status::Complete || !c.diagnostics.is_empty()) =>
                {
                    whole.push(i)
                }
                Ok(_) if part => partial.push((i, job.len())),
                Ok((c, _)) => {
                    out[i] = Some(Ok(c));
                    fresh.push(i);
                }
                Err(why) => out[i] = Some(Err(why)),
            }
            if !part {
                self.count(|s| s.sets_missed += 1);
            }
        }
        // Sets compiled in part, put together now that their files' parts are stored.
        let held = &self.parsed;
        let second: Vec<Result<Lookup, String>> = partial
            .par_iter()
            .map(|&(i, _)| guarded(|| disk.lookup(held, sets[i])))
            .collect();
        for (&(i, n), found) in partial.iter().zip(second) {
            match found {
                Ok(Lookup::Hit(c)) => {
                    disk.count(|s| {
                        s.sets_partial += 1;
                        s.files_compiled += n;
                    });
                    out[i] = Some(Ok(c));
                }
                _ => whole.push(i),
            }
        }
        whole.sort_unstable();
        let files: Vec<Vec<SourceRef<'_>>> = whole.iter().map(|&i| sets[i].to_vec()).collect();
        for (&i, result) in whole.iter().zip(self.compile_and_save(&files)) {
            self.count(|s| {
                s.sets_missed += 1;
                s.sets_in_vain += 1;
            });
            out[i] = Some(result.map(|(c, _)| c));
        }
        fresh.extend(whole);
        let fresh: HashSet<usize> = fresh.into_iter().collect();
        let compiled = out
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| fresh.contains(i));
        self.share_fresh(compiled.filter_map(|(_, r)| r.as_mut()?.as_mut().ok()));
        out.into_iter()
            .map(|r| r.unwrap_or_else(|| Err("no result".to_string())))
            .collect()
    }

    /// Compiles `jobs` and stores what each gave (side by side).
    fn compile_and_save(
        &mut self,
        jobs: &[Vec<SourceRef<'_>>],
    ) -> Vec<Result<(Compiled, Extra), String>> {
        let results = self.compile_jobs(jobs);
        if let Some(disk) = self.disk.as_ref() {
            let held = &self.parsed;
            jobs.par_iter().zip(&results).for_each(|(files, result)| {
                if let Ok((compiled, extra)) = result {
                    disk.save(held, files, compiled, extra);
                }
            });
        }
        results
    }

    fn count(&self, f: impl FnOnce(&mut DiskStats)) {
        if let Some(disk) = self.disk.as_ref() {
            disk.count(f);
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
    /// Of those compiled, the sets compiled in part first: the part gave diagnostics, or
    /// its parts could not be put together.
    pub sets_in_vain: usize,
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
