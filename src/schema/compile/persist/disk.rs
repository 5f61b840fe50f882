//! The disk side of one `Cache`: looking a set up (its whole-set entry, else its files'
//! parts), putting it together, and storing what a compile gave.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::super::super::fingerprint;
use super::super::super::model::Schema;
use super::super::super::protoc;
use super::super::super::store::{Kind, Store};
use super::super::shared::Shared;
use super::super::{Compiled, Diagnostic, HowCompiled, Parsed, SourceRef, Status};
use super::part::{Part, conflicts, split};
use super::plan::{Plan, Record, Via, base_id, given, record_key};
use super::{DiskStats, Extra, ParsedMap};

/// What the cache holds of a set.
pub(super) enum Lookup<'a> {
    Hit(Compiled),
    /// Some files have no part, and compiling these files (those that miss, what imports
    /// them, and their imports) spares most of the set: then it is put together.
    Missing(Vec<SourceRef<'a>>),
    Miss,
}

/// The outcome of a whole set, with the key of each pool file's part.
#[derive(Serialize, Deserialize)]
struct Outcome {
    status: Status,
    diagnostics: Vec<Diagnostic>,
    files_total: usize,
    files_ok: usize,
    how: HowCompiled,
    fingerprint: String,
    parts: Vec<(String, [u8; 32])>,
}

/// Words of the diagnostics of a failure that may not come again: protoc stopped, not
/// started, killed, or its files not written or read back.
const TRANSIENT: &[&str] = &[
    "for protoc",
    "cannot run protoc",
    "waiting for protoc",
    "protoc took more than",
    "without a message",
    "protoc's output",
    "internal error",
];

/// A part read once, however many sets compiling side by side ask for it.
type PartCell = Arc<OnceLock<Option<Arc<Part>>>>;

/// Shared by the sets of a window (they look up, put together and store in parallel): each
/// map behind its own lock, held for a look-up or an insert only, never while an entry is
/// read, decoded or written.
pub(in super::super) struct Disk {
    store: Arc<Store>,
    records: Mutex<HashMap<(String, String), Option<Record>>>,
    parts: Mutex<HashMap<[u8; 32], PartCell>>,
    /// The compiler's shared declarations: a part read joins them (see `compile::shared`).
    shared: Arc<Mutex<Shared>>,
    stored: Mutex<HashSet<[u8; 32]>>,
    /// The keys of files a compile of this run named in a diagnostic: a set missing one of
    /// them is compiled whole (its part would give the diagnostic again, and its file no
    /// part to put the set together with).
    named: Mutex<HashSet<[u8; 32]>>,
    stats: Mutex<DiskStats>,
}

/// A lock whose holder panicked still guards whole inserts: nothing is half-written.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Drop for Disk {
    fn drop(&mut self) {
        self.store.settle();
    }
}

/// The key of a whole set: its files (path, blob, origin, and why one was not read: over a
/// cap), protolapse and the compilers.
fn set_key(files: &[SourceRef<'_>]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"set\0");
    h.update(base_id());
    h.update(protoc::identity());
    let unread: HashMap<&str, &str> = files
        .iter()
        .filter_map(|f| f.text.err().map(|why| (f.path, why)))
        .collect();
    for (path, blob, origin) in given(files) {
        h.update(path.as_bytes());
        h.update([0]);
        h.update(blob.as_bytes());
        h.update([0, origin as u8]);
        if let Some(why) = unread.get(path) {
            h.update(b"unread\0");
            h.update(why.as_bytes());
            h.update([0]);
        }
    }
    h.finalize().into()
}

/// The key of a file's part that holds for this set only.
fn in_set_key(set: &[u8; 32], path: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"in set\0");
    h.update(set);
    h.update(path.as_bytes());
    h.finalize().into()
}

impl Disk {
    pub(super) fn new(store: Arc<Store>, shared: Arc<Mutex<Shared>>) -> Disk {
        Disk {
            store,
            records: Mutex::default(),
            parts: Mutex::default(),
            shared,
            stored: Mutex::default(),
            named: Mutex::default(),
            stats: Mutex::default(),
        }
    }

    /// The counters so far.
    pub(in super::super) fn stats(&self) -> DiskStats {
        lock(&self.stats).clone()
    }

    pub(super) fn count(&self, f: impl FnOnce(&mut DiskStats)) {
        f(&mut lock(&self.stats));
    }

    /// Keeps the record of a parse the compiler lets go (see `Cache::plan`): the set it was
    /// parsed for is stored after the parse is gone.
    pub(in super::super) fn remember(&self, key: (String, String), parsed: &Parsed) {
        lock(&self.records).insert(key, Some(Record::of(parsed)));
    }

    /// The record of a file parsed in this run, whether or not its parse is still held.
    fn known(&self, parsed: &ParsedMap, path: &str, blob: &str) -> Option<Record> {
        let key = (path.to_string(), blob.to_string());
        match parsed.get(&key) {
            Some(Ok(x)) => Some(Record::of(x)),
            Some(Err(_)) => None,
            None => lock(&self.records).get(&key).cloned().flatten(),
        }
    }

    pub(super) fn record(&self, parsed: &ParsedMap, path: &str, blob: &str) -> Option<Record> {
        let key = (path.to_string(), blob.to_string());
        if let Some(Ok(p)) = parsed.get(&key) {
            return Some(Record::of(p));
        }
        if let Some(r) = lock(&self.records).get(&key) {
            return r.clone();
        }
        let r: Option<Record> = self
            .store
            .get(Kind::Record, &record_key(path, blob))
            .and_then(|bytes| postcard::from_bytes(&bytes).ok());
        if r.is_some() {
            self.count(|s| s.records_hit += 1);
            lock(&self.stored).insert(record_key(path, blob));
        } else {
            self.count(|s| s.records_missed += 1);
        }
        lock(&self.records).insert(key, r.clone());
        r
    }

    fn part(&self, key: &[u8; 32]) -> Option<Arc<Part>> {
        let cell = lock(&self.parts).entry(*key).or_default().clone();
        cell.get_or_init(|| {
            let part: Option<Arc<Part>> = self
                .store
                .get(Kind::Part, key)
                .and_then(|bytes| postcard::from_bytes::<Part>(&bytes).ok())
                .map(|mut part| {
                    let (m, e, s) = (&mut part.messages, &mut part.enums, &mut part.services);
                    let x = &mut part.extensions;
                    super::super::shared::lock(&self.shared).share_part(m, e, s, x);
                    Arc::new(part)
                });
            if part.is_some() {
                self.count(|s| s.parts_hit += 1);
                lock(&self.stored).insert(*key);
            } else {
                self.count(|s| s.parts_missed += 1);
            }
            part
        })
        .clone()
    }

    /// Whether the part of `key` is there, without reading it (a set that misses some goes
    /// on to a compile and reads the rest after it, or never). A part there but unsound is
    /// found missing when read.
    fn has_part(&self, key: &[u8; 32]) -> bool {
        if let Some(cell) = lock(&self.parts).get(key)
            && let Some(part) = cell.get()
        {
            return part.is_some();
        }
        lock(&self.stored).contains(key) || self.store.contains(Kind::Part, key)
    }

    /// Whether the parts there of the files `plan` reaches, all but `missing`, already
    /// clash (then the set cannot be put together, whatever the missing ones hold).
    fn clash(&self, plan: &Plan, missing: &HashSet<String>) -> bool {
        let there = plan.reached.iter().filter(|(p, _)| !missing.contains(*p));
        self.parts_of(there.map(|(p, n)| (p, &n.key)))
            .is_ok_and(|parts| conflicts(parts.iter().map(|(_, p)| p.as_ref())))
    }

    /// The parts of `keys`, each checked to be its file's; None when one is missing.
    fn parts_of<'k>(
        &self,
        keys: impl Iterator<Item = (&'k String, &'k [u8; 32])>,
    ) -> Result<Vec<(&'k String, Arc<Part>)>, HashSet<String>> {
        let mut parts = Vec::new();
        let mut missing = HashSet::new();
        for (path, key) in keys {
            match self.part(key) {
                // A part stored under another file's key is not this file's.
                Some(part) if part.file.name == *path => parts.push((path, part)),
                _ => {
                    missing.insert(path.clone());
                }
            }
        }
        if missing.is_empty() {
            Ok(parts)
        } else {
            Err(missing)
        }
    }

    /// [`Disk::find`], timed.
    pub(super) fn lookup<'a>(&self, parsed: &ParsedMap, files: &[SourceRef<'a>]) -> Lookup<'a> {
        let started = Instant::now();
        let found = self.find(parsed, files);
        self.count(|s| s.lookup += started.elapsed());
        found
    }

    /// The set from its whole-set entry; else put together from its files' parts when
    /// every file it needs has one and nothing between them would fail; else the files to
    /// compile so that it can be (when few files miss, none of them failed in this run, and
    /// the parts there do not clash already); else a miss.
    fn find<'a>(&self, parsed: &ParsedMap, files: &[SourceRef<'a>]) -> Lookup<'a> {
        let whole: Option<Outcome> = self
            .store
            .get(Kind::Set, &set_key(files))
            .and_then(|bytes| postcard::from_bytes(&bytes).ok());
        if let Some(o) = whole
            && let Ok(parts) = self.parts_of(o.parts.iter().map(|(p, k)| (p, k)))
        {
            let (mut schema, _) = put_together(&parts);
            schema.fingerprint = o.fingerprint;
            self.count(|s| s.sets_whole += 1);
            return Lookup::Hit(Compiled {
                status: o.status,
                schema: Arc::new(schema),
                diagnostics: o.diagnostics,
                files_total: o.files_total,
                files_ok: o.files_ok,
                how: o.how,
            });
        }
        let plan = Plan::new(files, |p, b| self.record(parsed, p, b));
        if !plan.complete || plan.roots.is_empty() {
            return Lookup::Miss;
        }
        let missing: HashSet<String> = plan
            .reached
            .iter()
            .filter(|(_, n)| !self.has_part(&n.key))
            .map(|(p, _)| p.clone())
            .collect();
        if !missing.is_empty() {
            // A part that failed in this run fails again.
            let named = lock(&self.named);
            if missing
                .iter()
                .any(|p| plan.reached.get(p).is_some_and(|n| named.contains(&n.key)))
            {
                return Lookup::Miss;
            }
            drop(named);
            let subset = plan.subset(files, &missing);
            // A part compiled, then read back and put together, costs more than the same
            // files compiled whole; and when the parts there already clash, the set's
            // compile fails: it is not put together from parts.
            if subset.len() * 2 > given(files).len() || self.clash(&plan, &missing) {
                return Lookup::Miss;
            }
            return Lookup::Missing(subset);
        }
        let parts = match self.parts_of(plan.reached.iter().map(|(p, n)| (p, &n.key))) {
            Ok(parts) => parts,
            // Parts there but unsound.
            Err(_) => return Lookup::Miss,
        };
        if conflicts(parts.iter().map(|(_, p)| p.as_ref())) {
            return Lookup::Miss;
        }
        let (mut schema, (deps, digests)) = put_together(&parts);
        schema.fingerprint = fingerprint::of_digests(&deps, &digests);
        Lookup::Hit(Compiled {
            status: Status::Complete,
            schema: Arc::new(schema),
            diagnostics: Vec::new(),
            files_total: plan.roots.len(),
            files_ok: plan.roots.len(),
            how: plan.how(),
        })
    }

    fn put_record(&self, parsed: &ParsedMap, path: &str, blob: &str) {
        let key = record_key(path, blob);
        if !lock(&self.stored).contains(&key)
            && let Some(record) = self.known(parsed, path, blob)
            && let Ok(bytes) = postcard::to_allocvec(&record)
            // Another set storing it beside this one writes it instead.
            && lock(&self.stored).insert(key)
        {
            self.store.put(Kind::Record, &key, bytes);
            self.count(|s| s.records_stored += 1);
        }
    }

    /// [`Disk::put`], timed.
    pub(super) fn save(
        &self,
        parsed: &ParsedMap,
        files: &[SourceRef<'_>],
        compiled: &Compiled,
        extra: &Extra,
    ) {
        let started = Instant::now();
        self.put(parsed, files, compiled, extra);
        self.count(|s| s.store += started.elapsed());
    }

    /// Stores what a compile gave: the records of its files, each pool file's part, and,
    /// when it had diagnostics, the whole set's outcome.
    fn put(&self, parsed: &ParsedMap, files: &[SourceRef<'_>], compiled: &Compiled, extra: &Extra) {
        let transient = compiled
            .diagnostics
            .iter()
            .any(|d| TRANSIENT.iter().any(|w| d.message.contains(w)));
        if transient || compiled.status == Status::Pending {
            return;
        }
        let plan = Plan::new(files, |p, b| self.known(parsed, p, b));
        let content = &compiled.schema.content;
        let clean = compiled.status == Status::Complete && compiled.diagnostics.is_empty();
        // A clean set must be what the plan says, or no key of the plan is trusted.
        let plan_holds = !clean
            || (plan.complete
                && plan.how() == compiled.how
                && plan.reached.len() == content.files.len());
        let named: HashSet<&str> = compiled
            .diagnostics
            .iter()
            .map(|d| d.file.as_str())
            .collect();
        let again = named.iter().filter_map(|p| plan.reached.get(*p));
        lock(&self.named).extend(again.map(|n| n.key));
        let observed = |p: &str| {
            if extra.by_protox.contains(p) {
                Via::Protox
            } else {
                Via::Protoc
            }
        };
        let set = set_key(files);
        let mut keys: Vec<(String, [u8; 32])> = Vec::with_capacity(content.files.len());
        for path in content.files.keys() {
            let node = plan.reached.get(path).filter(|n| {
                plan_holds
                    && !named.contains(path.as_str())
                    && n.closure.iter().all(|q| {
                        content.files.contains_key(q)
                            && plan.reached.get(q).is_some_and(|m| m.via == observed(q))
                    })
            });
            keys.push((
                path.clone(),
                node.map_or_else(|| in_set_key(&set, path), |n| n.key),
            ));
        }
        for (path, blob, _) in given(files) {
            self.put_record(parsed, path, blob);
        }
        for (path, node) in &plan.reached {
            if node.origin == Some(crate::origin::Origin::Embedded) {
                self.put_record(parsed, path, &node.blob);
            }
        }
        let mut split = split(compiled, &extra.digests);
        for (path, key) in &keys {
            // Parts of other sets' files are usually there already (not read to know it:
            // one that is not sound is found out, and replaced, by the run that reads it).
            if self.has_part(key) {
                lock(&self.stored).insert(*key);
                continue;
            }
            let Some(part) = split.remove(path.as_str()) else {
                continue;
            };
            // Another set storing it beside this one writes it instead.
            if !lock(&self.stored).insert(*key) {
                continue;
            }
            if let Ok(bytes) = postcard::to_allocvec(&part) {
                self.store.put(Kind::Part, key, bytes);
                self.count(|s| s.parts_stored += 1);
            }
            // Not kept in memory: a cold run holds the models it compiled already (a set
            // put together after a partial compile reads its new parts back).
            lock(&self.parts).remove(key);
        }
        if clean && plan_holds {
            return;
        }
        let outcome = Outcome {
            status: compiled.status,
            diagnostics: compiled.diagnostics.clone(),
            files_total: compiled.files_total,
            files_ok: compiled.files_ok,
            how: compiled.how.clone(),
            fingerprint: compiled.schema.fingerprint.clone(),
            parts: keys,
        };
        if let Ok(bytes) = postcard::to_allocvec(&outcome) {
            self.store.put(Kind::Set, &set, bytes);
        }
    }
}

/// Each file's imports and fingerprint digest, by name.
type Digests = (BTreeMap<String, Vec<String>>, HashMap<String, [u8; 32]>);

/// The model of a set from its files' parts; the files' imports and digests for the
/// fingerprint.
fn put_together(parts: &[(&String, Arc<Part>)]) -> (Schema, Digests) {
    let mut schema = Schema::default();
    let mut deps = BTreeMap::new();
    let mut digests = HashMap::new();
    for (path, part) in parts {
        let c = &mut schema.content;
        c.files.insert((*path).clone(), part.file.clone());
        for m in &part.messages {
            c.messages.insert(m.full_name.clone(), m.clone());
        }
        for e in &part.enums {
            c.enums.insert(e.full_name.clone(), e.clone());
        }
        for s in &part.services {
            c.services.insert(s.full_name.clone(), s.clone());
        }
        for x in &part.extensions {
            c.extensions
                .entry(x.extendee.clone())
                .or_default()
                .insert(x.field.number, x.clone());
        }
        if let Some(d) = &part.docs {
            schema.docs.insert((*path).clone(), d.clone());
        }
        deps.insert((*path).clone(), part.file.imports.clone());
        digests.insert((*path).clone(), part.digest);
    }
    (schema, (deps, digests))
}
