//! [`Comparer`]: the pairs of one history in one scope, each pair of distinct contents judged
//! once and shared.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::load::{Loaded, Project, VersionId};
use crate::rules::{Change, RuleId};
use crate::schema::Schema;
use crate::schema::model::FileDocs;

use super::closure::Closure;
use super::stored::Stored;
use super::stored_changes::{List, StoredChanges};
use super::summary::{PairSummary, firsts};
use super::units::Units;
use super::{Ignores, Scope, Side, ignore, judge_with};

/// Summaries per (old, new) pair of representative versions.
type PairCache = foldhash::HashMap<(VersionId, VersionId), PairSummary>;

/// Change lists per (old, new) pair of actual versions.
type KeptChanges = HashMap<(VersionId, VersionId), Arc<Vec<Change>>>;

/// What a list of [`Comparer::first_changes`] depends on beyond the files failed: the two
/// compiled schemas (by address) and whether each side's comments hold directives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct FirstsKey {
    schemas: [usize; 2],
    directives: [bool; 2],
}

/// A list of [`Comparer::first_changes`], with the files failed on each side.
struct Firsts {
    failed: [Arc<std::collections::BTreeSet<String>>; 2],
    changes: Arc<Vec<Change>>,
}

/// Compares versions of one history in one scope.
///
/// `changes(a, b)` is the full list for a pair (locations, ignores and inline directives of
/// those two versions). `summary(a, b)` is what a policy needs, computed once per pair of
/// distinct contents and kept small, so that transitive policies over hundreds of versions
/// stay affordable in time and memory.
pub struct Comparer<'p> {
    versions: &'p [Loaded],
    scope: Scope,
    ignores: Ignores,
    /// The version whose summaries stand for this one's: its canonical version when both
    /// judge the same way (no inline directives, the same files failed), else itself.
    representative: Vec<VersionId>,
    /// Whether a version's comments hold any `protolapse:ignore` directive.
    directives: Vec<bool>,
    /// Each version's [`stored::placement`](super::stored::placement), once (a summary's
    /// key needs it for every pair the version is in).
    placements: Vec<std::sync::OnceLock<[u8; 32]>>,
    cache: Mutex<PairCache>,
    /// Lists of [`Comparer::first_changes`].
    firsts: Mutex<HashMap<FirstsKey, Firsts>>,
    /// The full lists [`Comparer::changes_many`] computed (shared with its caller): a
    /// policy's first violation against an adjacent version is read from them, not judged
    /// again.
    full: Mutex<KeptChanges>,
    /// The units of pairs judged so far, for the summaries of the next.
    units: Units<'p>,
    /// The summaries kept between runs (None when the on-disk cache is off).
    stored: Option<Stored>,
    /// The change lists kept between runs (None when the on-disk cache is off).
    stored_changes: Option<StoredChanges>,
}

impl Drop for Comparer<'_> {
    /// The summaries this run computed are kept for the next (not when unwinding a panic:
    /// a summary half-computed is never one of them, but nothing is written in a hurry).
    fn drop(&mut self) {
        if let Some(s) = &self.stored
            && !std::thread::panicking()
        {
            s.save();
        }
        // The summaries and change lists written after the load's own eviction count too.
        if let Some(store) = crate::schema::store::global() {
            store.settle();
        }
    }
}

/// A map behind a mutex; a panic in another thread cannot leave it half-written (inserts are
/// whole).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<'p> Comparer<'p> {
    pub fn new(project: &'p Project, scope: Scope, ignores: Ignores) -> Comparer<'p> {
        let versions = &project.versions[..];
        // The earliest version with the same content (itself when none).
        let canon: Vec<VersionId> = versions.iter().map(|v| v.same_as.unwrap_or(v.id)).collect();
        let directives = with_directives(versions);
        let representative: Vec<VersionId> = versions
            .iter()
            .map(|v| {
                let c = canon[v.id.index()];
                let same_failures = versions
                    .get(c.index())
                    .is_some_and(|w| w.failed_files == v.failed_files);
                if !directives[v.id.index()] && !directives[c.index()] && same_failures {
                    c
                } else {
                    v.id
                }
            })
            .collect();
        let units = Units::new(versions, &scope);
        let representative = match scope.root() {
            Some(_) => by_closure(versions, &units, representative, &directives),
            None => representative,
        };
        let stored = Stored::open(&scope, &ignores);
        let stored_changes = StoredChanges::open(&scope, &ignores, versions.len());
        Comparer {
            versions,
            units,
            stored,
            stored_changes,
            scope,
            ignores,
            representative,
            directives,
            placements: versions
                .iter()
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            cache: Mutex::new(PairCache::default()),
            firsts: Mutex::new(HashMap::new()),
            full: Mutex::new(HashMap::new()),
        }
    }

    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    pub fn versions(&self) -> &'p [Loaded] {
        self.versions
    }

    /// The schema of a version that compiled (fully or in part).
    pub fn schema(&self, id: VersionId) -> Option<&'p Schema> {
        self.versions.get(id.index())?.schema()
    }

    /// Every change from `old` to `new`, with ignores applied; None when either did not
    /// compile.
    pub fn changes(&self, old: VersionId, new: VersionId) -> Option<Vec<Change>> {
        self.judged(old, new, List::Full)
    }

    /// The list of a pair (see [`List`]), read from the on-disk cache when a run before this
    /// one judged the same pair, else judged (and kept for the next run).
    fn judged(&self, old: VersionId, new: VersionId, list: List) -> Option<Vec<Change>> {
        let (a, b) = (self.side(old)?, self.side(new)?);
        let judge = || {
            let full = list == List::Full;
            let changes = judge_with(&a, &b, &self.scope, &self.ignores, full, Some(&self.units));
            match list {
                List::Firsts => firsts(&changes),
                List::Full | List::Verdicts => changes,
            }
        };
        let Some(stored) = &self.stored_changes else {
            return Some(judge());
        };
        let key = stored.key(list, &a, &b, [self.placement(&a), self.placement(&b)]);
        if let Some(changes) = stored.get(&key) {
            return Some(changes);
        }
        let changes = judge();
        stored.put(&key, &changes);
        Some(changes)
    }

    /// [`Comparer::changes`] without COMMENT_CHANGED (its verdict is safe at every level, so
    /// no policy objects to it): what a policy lists against one pair (`check`'s gate).
    pub fn verdict_changes(&self, old: VersionId, new: VersionId) -> Option<Arc<Vec<Change>>> {
        let changes = match lock(&self.full).get(&(old, new)).cloned() {
            // The same list without its comments (which judging leaves in place).
            Some(all) => all
                .iter()
                .filter(|c| c.rule != RuleId::COMMENT_CHANGED)
                .cloned()
                .collect(),
            None => self.judged(old, new, List::Verdicts)?,
        };
        Some(Arc::new(changes))
    }

    /// The changes of `old` -> `new` that any policy's first violation can be (see
    /// [`firsts`]), in the list's order: what a failing version names in a history's
    /// policy results, a handful of changes where the pair may have thousands. Kept per pair
    /// of compiled schemas: versions that share both judge alike (the same files failed,
    /// the same comments), and a history's versions share a few dozen schemas.
    pub fn first_changes(&self, old: VersionId, new: VersionId) -> Option<Arc<Vec<Change>>> {
        let (a, b) = (self.side(old)?, self.side(new)?);
        let key = FirstsKey {
            schemas: [a.schema, b.schema].map(|s| std::ptr::from_ref(s) as usize),
            directives: [a.directives, b.directives],
        };
        let failed = [&a.version.failed_files, &b.version.failed_files];
        let same = |k: &Firsts| k.failed.iter().zip(failed).all(|(x, y)| **x == **y);
        if let Some(k) = lock(&self.firsts).get(&key).filter(|k| same(k)) {
            return Some(k.changes.clone());
        }
        let full = lock(&self.full).get(&(old, new)).cloned();
        let changes = Arc::new(match full {
            Some(all) => firsts(&all),
            None => self.judged(old, new, List::Firsts)?,
        });
        lock(&self.firsts).entry(key).or_insert_with(|| Firsts {
            failed: failed.map(Arc::clone),
            changes: changes.clone(),
        });
        Some(changes)
    }

    /// Version `id` as one side of a comparison; None when it did not compile.
    fn side(&self, id: VersionId) -> Option<Side<'p>> {
        let v = self.versions.get(id.index())?;
        Some(Side {
            directives: self.directives[id.index()],
            ..Side::of(v)?
        })
    }

    /// Where the files of a side came from, hashed once per version.
    fn placement(&self, s: &Side<'_>) -> [u8; 32] {
        let compute = || super::stored::placement(&s.schema.content);
        match self.placements.get(s.version.id.index()) {
            Some(cell) => *cell.get_or_init(compute),
            None => compute(),
        }
    }

    fn representative(&self, id: VersionId) -> Option<VersionId> {
        self.representative.get(id.index()).copied()
    }

    /// [`Comparer::summary`] when it is known without comparing (from `cache`, the kept
    /// summaries): Some(answer), else None.
    fn known(
        &self,
        cache: &PairCache,
        old: VersionId,
        new: VersionId,
    ) -> Option<Option<PairSummary>> {
        let (Some(a), Some(b)) = (self.representative(old), self.representative(new)) else {
            return Some(None);
        };
        if self.schema(old).is_none() || self.schema(new).is_none() {
            return Some(None);
        }
        if a == b {
            return Some(Some(PairSummary::default()));
        }
        cache.get(&(a, b)).map(|s| Some(*s))
    }

    /// [`Comparer::summary`] of each pair, those kept read under one lock (a transitive
    /// policy asks for hundreds per version, on every core).
    pub fn summaries(&self, pairs: &[(VersionId, VersionId)]) -> Vec<Option<PairSummary>> {
        let known: Vec<Option<Option<PairSummary>>> = {
            let cache = self.lock();
            pairs
                .iter()
                .map(|&(a, b)| self.known(&cache, a, b))
                .collect()
        };
        known
            .into_iter()
            .zip(pairs)
            .map(|(k, &(a, b))| k.unwrap_or_else(|| self.summary(a, b)))
            .collect()
    }

    /// What a policy needs of the pair `old` -> `new`; None when either did not compile.
    pub fn summary(&self, old: VersionId, new: VersionId) -> Option<PairSummary> {
        if let Some(known) = self.known(&self.lock(), old, new) {
            return known;
        }
        let key = (self.representative(old)?, self.representative(new)?);
        let (a, b) = (self.side(key.0)?, self.side(key.1)?);
        // A side with inline directives judges by its comments, which its fingerprint
        // leaves out: such a pair is not kept between runs.
        let stored = self
            .stored
            .as_ref()
            .filter(|_| !a.directives && !b.directives);
        let disk_key = stored.map(|_| {
            Stored::pair_key([a, b].map(|s| {
                (
                    s.schema.fingerprint.as_str(),
                    &*s.version.failed_files,
                    self.placement(&s),
                )
            }))
        });
        if let (Some(st), Some(k)) = (stored, &disk_key)
            && let Some(s) = st.get(k)
        {
            self.lock().insert(key, s);
            return Some(s);
        }
        // Without ignores or inline directives, nothing decides by a change but its verdict
        // and its file: unit by unit, each kept unit judged once. Comments never change a
        // verdict: either way they are not compared.
        let s = if self.ignores.is_empty() && !a.directives && !b.directives {
            self.units.summary(&a, &b, &self.scope)
        } else {
            PairSummary::of(&judge_with(
                &a,
                &b,
                &self.scope,
                &self.ignores,
                false,
                Some(&self.units),
            ))
        };
        self.lock().insert(key, s);
        if let (Some(st), Some(k)) = (stored, disk_key) {
            st.put(k, s);
        }
        Some(s)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PairCache> {
        // A panic in another thread cannot leave the map half-written: inserts are whole.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every change of each pair (as [`Comparer::changes`]), computed on every core; their
    /// summaries are kept for the policies, and the lists for their first violations.
    pub fn changes_many(&self, pairs: &[(VersionId, VersionId)]) -> Vec<Option<Arc<Vec<Change>>>> {
        pairs
            .par_iter()
            .map(|&(a, b)| {
                let changes = Arc::new(self.changes(a, b)?);
                if let (Some(ra), Some(rb)) = (self.representative(a), self.representative(b)) {
                    self.lock()
                        .entry((ra, rb))
                        .or_insert_with(|| PairSummary::of(&changes));
                }
                lock(&self.full).insert((a, b), changes.clone());
                Some(changes)
            })
            .collect()
    }

    /// Computes the summaries of the given pairs on every core, so that later lookups hit.
    pub fn prefetch(&self, pairs: impl IntoIterator<Item = (VersionId, VersionId)>) {
        self.prefetch_with(pairs, &|_, _| true);
    }

    /// [`Comparer::prefetch`], calling `progress(done, total)` after each distinct pair
    /// compared (`total` counts the distinct pairs not known yet); when it returns false, the
    /// pairs not started are left (and false is returned).
    pub fn prefetch_with(
        &self,
        pairs: impl IntoIterator<Item = (VersionId, VersionId)>,
        progress: &(dyn Fn(usize, usize) -> bool + Sync),
    ) -> bool {
        // A transitive policy names every earlier version of each: hundreds of thousands
        // of pairs over a long history, a thousand or so distinct.
        let mut distinct = foldhash::HashSet::default();
        let mut todo: Vec<(VersionId, VersionId)> = Vec::new();
        {
            let cache = self.lock();
            for (a, b) in pairs {
                let (Some(a), Some(b)) = (self.representative(a), self.representative(b)) else {
                    continue;
                };
                if a != b
                    && distinct.insert((a, b))
                    && !cache.contains_key(&(a, b))
                    && self.schema(a).is_some()
                    && self.schema(b).is_some()
                {
                    todo.push((a, b));
                }
            }
        }
        todo.sort_unstable();
        let total = todo.len();
        let done = AtomicUsize::new(0);
        let go_on = AtomicBool::new(progress(0, total));
        todo.par_iter().for_each(|&(a, b)| {
            if !go_on.load(Ordering::Relaxed) {
                return;
            }
            self.summary(a, b);
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            if !progress(d, total) {
                go_on.store(false, Ordering::Relaxed);
            }
        });
        go_on.load(Ordering::Relaxed)
    }
}

/// Whether each version's comments hold an inline directive: each file's docs (shared
/// between the versions whose file is the same) searched once, on every core.
fn with_directives(versions: &[Loaded]) -> Vec<bool> {
    let address = |d: &Arc<FileDocs>| Arc::as_ptr(d) as usize;
    let mut distinct: HashMap<usize, &FileDocs> = HashMap::new();
    for v in versions {
        for d in v.compiled.schema.docs.values() {
            distinct.entry(address(d)).or_insert(d);
        }
    }
    let holding: HashSet<usize> = distinct
        .into_par_iter()
        .filter(|(_, d)| d.values().any(ignore::has_directive))
        .map(|(a, _)| a)
        .collect();
    versions
        .iter()
        .map(|v| {
            v.compiled
                .schema
                .docs
                .values()
                .any(|d| holding.contains(&address(d)))
        })
        .collect()
}

/// In the scope of `root`, versions whose closures are equal (see [`Closure`]) and whose failed
/// files among the closures' files are the same judge alike: the earliest stands for the
/// others. Only versions that already stand for themselves (distinct contents) and hold no
/// inline directive are grouped; each closure is compared with one per group found so far.
fn by_closure<'p>(
    versions: &'p [Loaded],
    units: &Units<'p>,
    representative: Vec<VersionId>,
    directives: &[bool],
) -> Vec<VersionId> {
    let candidates: Vec<&Loaded> = versions
        .iter()
        .filter(|v| representative[v.id.index()] == v.id && !directives[v.id.index()])
        .collect();
    // Each with its closure (a version that did not compile has none, and stands alone).
    let closures: Vec<(&Loaded, Closure<'_>)> = candidates
        .par_iter()
        .filter_map(|v| Some((*v, Closure::of(&v.schema()?.content, units.reach_of(v)?))))
        .collect();
    // A failed file counts where some closure reads it; elsewhere it changes no verdict.
    let read: std::collections::BTreeSet<&str> =
        closures.iter().flat_map(|(_, c)| c.files()).collect();
    let failed = |v: &'_ Loaded| -> Vec<String> {
        v.failed_files
            .iter()
            .filter(|f| read.contains(f.as_str()))
            .cloned()
            .collect()
    };
    let mut groups: Vec<(usize, Vec<String>)> = Vec::new();
    let mut stands_for: HashMap<VersionId, VersionId> = HashMap::new();
    for (k, (v, closure)) in closures.iter().enumerate() {
        let f = failed(v);
        match groups
            .iter()
            .find(|(g, gf)| *gf == f && closures[*g].1 == *closure)
        {
            Some(&(g, _)) => {
                stands_for.insert(v.id, closures[g].0.id);
            }
            None => groups.push((k, f)),
        }
    }
    representative
        .into_iter()
        .map(|r| stands_for.get(&r).copied().unwrap_or(r))
        .collect()
}
