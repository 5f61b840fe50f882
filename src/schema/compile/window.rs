//! Distinct file sets compiled side by side, a window of them at a time.
//!
//! [`Cache::compile_window`] takes versions in order and compiles the longest run of them
//! that fits one window: at most [`SETS_PER_THREAD`] distinct sets not compiled before per
//! thread (the first windows hold fewer, so that the terminal UI, which asks for the
//! selected version and its base first, gets them at once), and at most [`WINDOW_TEXT`]
//! bytes of text beyond the first set. Sets side by side each hold their parses and pool
//! at once, and what a set's compile holds follows its text (a 10 MB file peaks near
//! 1 GB): large sets compile alone, and the peak grows by at most about that much text's
//! worth, whatever the number of cores.
//!
//! In a window: the blobs not parsed yet parse in parallel; each set is gathered (its
//! parses, the embedded protos its imports name) in parallel; the parses no later version
//! reads leave the cache (a set then hands protox the only copy instead of a clone); the
//! protoc units of every set run together, one protoc call per core; then each set is
//! linked and normalized on its own thread. Nothing a set gives depends on which sets
//! compile beside it or before it (parses and units are functions of their blobs, the
//! fingerprint memo of its keys), so the results are those of one thread, whatever the
//! number of threads. A panic while compiling a set fails that set, never the window.

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::parse::{self, key_of, readable};
use super::set::{Prepared, finish, prepare};
use super::units::{self, Target};
use super::{Cache, CompileStats, Compiled, SetKey, SourceRef, persist, set_key};

/// Distinct sets compiled side by side per thread, at most.
const SETS_PER_THREAD: usize = 4;

/// Text in a window beyond its first set, at most (bytes): protobuf's tags (0.75 MB each)
/// go eight to a window on two cores (10 windows). Each window ends on its slowest set and
/// protoc call (a core idles meanwhile): with 4 MiB (five or six tags, 14 windows) a cold
/// protobuf `log` took 1.92 s, with 6 MiB 1.87 s, at the same peak.
const WINDOW_TEXT: usize = 6 << 20;

/// Runs `f`; a panic in it (a bug in the compilers or in our normalization, on input nothing
/// bounded yet) becomes `Err(why)`.
pub(super) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".to_string())
    })
}

/// The text of a set, in bytes.
fn text_of(files: &[SourceRef<'_>]) -> usize {
    files.iter().map(|f| f.text.map_or(0, str::len)).sum()
}

impl Cache {
    /// Compiles the first versions of `versions` (each a file set, in order) that make one
    /// window, and returns their results in order: at least one when `versions` is not
    /// empty. A set compiled before is not compiled again.
    pub fn compile_window(&mut self, versions: &[&[SourceRef<'_>]]) -> Vec<Arc<Compiled>> {
        let threads = rayon::current_num_threads().max(1);
        let most = (threads << self.windows.min(2)).min(SETS_PER_THREAD * threads);
        let mut keys: Vec<SetKey> = Vec::new();
        let mut new: HashMap<SetKey, usize> = HashMap::new();
        let mut sets: Vec<&[SourceRef<'_>]> = Vec::new();
        let mut text = 0;
        for files in versions {
            let key = set_key(files);
            if !self.sets.contains_key(&key) && !new.contains_key(&key) {
                let bytes = text_of(files);
                if !sets.is_empty() && (sets.len() >= most || text + bytes > WINDOW_TEXT) {
                    break;
                }
                text += bytes;
                new.insert(key.clone(), sets.len());
                sets.push(files);
            }
            keys.push(key);
        }
        let taken = &versions[..keys.len()];
        for files in taken {
            self.spend(files);
        }
        // Each new set's result, and whether it compiled without a panic.
        let results: Vec<(Arc<Compiled>, bool)> = if sets.is_empty() {
            Vec::new()
        } else {
            self.windows += 1;
            let mut compiled = self.compile_or_load(&sets).into_iter();
            sets.iter()
                .map(|files| match compiled.next() {
                    Some(Ok(c)) => (Arc::new(c), true),
                    Some(Err(why)) => (Arc::new(Compiled::internal_error(&why, files)), false),
                    None => (
                        Arc::new(Compiled::internal_error("no result", files)),
                        false,
                    ),
                })
                .collect()
        };
        if let Some(disk) = &self.disk {
            self.stats.disk = disk.stats();
        }
        self.stats.files_memo = self.normalized.counts();
        let mut first = vec![true; results.len()];
        let mut out = Vec::with_capacity(keys.len());
        for key in keys {
            match new.get(&key) {
                Some(&k) if first[k] => {
                    first[k] = false;
                    let (done, ok) = &results[k];
                    // A set whose compile panicked is tried again by a later window.
                    if *ok {
                        self.stats.sets_compiled += 1;
                        self.sets.insert(key, done.clone());
                    }
                    out.push(done.clone());
                }
                Some(&k) => {
                    self.stats.sets_reused += 1;
                    out.push(results[k].0.clone());
                }
                None => {
                    self.stats.sets_reused += 1;
                    let done = self.sets.get(&key).cloned();
                    out.push(
                        done.unwrap_or_else(|| {
                            Arc::new(Compiled::internal_error("no result", &[]))
                        }),
                    );
                }
            }
        }
        for files in taken {
            self.forget_spent(files);
        }
        out
    }

    /// Parses `files` (distinct blobs not parsed yet) in parallel. A blob whose parse panics
    /// is left out: the set that reads it parses it again, and fails on its own.
    pub(super) fn parse_all(&mut self, files: &[SourceRef<'_>]) {
        let parsed: Vec<_> = files
            .par_iter()
            .map(|f| {
                let mut stats = CompileStats::default();
                let p = guarded(|| parse::parse(f, &mut stats)).ok();
                (key_of(f), p, stats)
            })
            .collect();
        for (key, p, stats) in parsed {
            self.stats.add(&stats);
            if let Some(p) = p {
                self.parsed.insert(key, p);
            }
        }
    }

    /// Compiles each job (a set, or the files of a set the on-disk cache misses) side by
    /// side; also returns each pool file's fingerprint digest and which files protox put in
    /// the pool. `Err`: the job's compile panicked (why).
    pub(super) fn compile_jobs<'a>(
        &mut self,
        jobs: &[Vec<SourceRef<'a>>],
    ) -> Vec<Result<(Compiled, persist::Extra), String>> {
        let mut seen = HashSet::new();
        let todo: Vec<SourceRef<'a>> = jobs
            .iter()
            .flat_map(|j| readable(j))
            .filter(|f| !self.parsed.contains_key(&key_of(f)) && seen.insert(key_of(f)))
            .collect();
        self.parse_all(&todo);

        let held = &self.parsed;
        let gathered: Vec<_> = jobs
            .par_iter()
            .map(|files| {
                let mut stats = CompileStats::default();
                let out = guarded(|| {
                    let mut g = parse::gather(held, files, &mut stats);
                    let fresh = std::mem::take(&mut g.fresh);
                    (prepare(g), fresh)
                });
                (out, stats)
            })
            .collect();
        let mut prepared: Vec<Result<Prepared<'a>, String>> = Vec::with_capacity(jobs.len());
        for (out, stats) in gathered {
            self.stats.add(&stats);
            prepared.push(out.map(|(p, fresh)| {
                for (key, parse) in fresh {
                    self.parsed.entry(key).or_insert(parse);
                }
                p
            }));
        }
        // The jobs hold the parses they read: those no version to come reads leave the
        // cache, so that protox is handed the only copy (moved, not cloned beside the pool).
        for p in prepared.iter().flatten() {
            self.forget_spent(&p.files);
        }

        self.run_protoc(&mut prepared);

        let (units, memo) = (&self.units, &self.normalized);
        let finished: Vec<_> = prepared
            .into_par_iter()
            .map(|p| {
                let mut stats = CompileStats::default();
                let out = p.and_then(|p| guarded(|| finish(p, units, memo, &mut stats)));
                (out, stats)
            })
            .collect();
        finished
            .into_iter()
            .map(|(out, stats)| {
                self.stats.add(&stats);
                out
            })
            .collect()
    }

    /// The protoc units of every prepared set, together (one protoc call per core); should
    /// that panic, set by set, a set whose units panic failing alone.
    fn run_protoc(&mut self, prepared: &mut [Result<Prepared<'_>, String>]) {
        let started = Instant::now();
        let targets: Vec<&Target<'_>> =
            prepared.iter().flatten().flat_map(|p| &p.targets).collect();
        let (texts, units, known) = (&self.texts, &mut self.units, &mut self.known);
        let together = guarded(|| units::compile(texts, units, known, &targets));
        let n = targets.len();
        drop(targets);
        match together {
            Ok((compiled, inherited)) => {
                self.stats.protoc_units += compiled;
                self.stats.protoc_inherited += inherited;
                self.stats.protoc_reused += n - compiled;
            }
            Err(_) => {
                for p in prepared.iter_mut() {
                    let Ok(set) = p else {
                        continue;
                    };
                    let targets: Vec<&Target<'_>> = set.targets.iter().collect();
                    let (texts, units, known) = (&self.texts, &mut self.units, &mut self.known);
                    match guarded(|| units::compile(texts, units, known, &targets)) {
                        Ok((compiled, inherited)) => {
                            self.stats.protoc_units += compiled;
                            self.stats.protoc_inherited += inherited;
                            self.stats.protoc_reused += targets.len() - compiled;
                        }
                        Err(why) => *p = Err(why),
                    }
                }
            }
        }
        self.stats.protoc += started.elapsed();
    }
}
