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
//! parts are exactly what it would have normalized. Anything else compiles as before, and a
//! compile without any diagnostic stores its parts. Failures are never stored.
//! Computing the keys needs each file's imports and whether protox reads it: a small
//! *record* per blob, kept as well.

mod part;
mod plan;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use super::super::fingerprint;
use super::super::model::Schema;
use super::super::store::{Kind, Store};
use super::{Cache, Compiled, Parsed, SourceRef, Status};
use crate::proto_text::without_bom;
use part::{Part, conflicts, split};
use plan::{Plan, Record, given, record_key};

type ParsedMap = HashMap<(String, String), Result<Parsed, super::Diagnostic>>;

/// What the cache holds of a set.
enum Lookup {
    Hit(Compiled),
    /// Every file planned, these without a part.
    Missing(Plan, HashSet<String>),
    Miss,
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
                    let (sub, digests) = self.compile_new(&subset);
                    self.save(&subset, &sub, &digests);
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
        let (c, digests) = self.compile_new(files);
        self.save(files, &c, &digests);
        if let Some(disk) = self.disk.as_mut() {
            disk.stats.sets_missed += 1;
        }
        c
    }

    fn save(
        &mut self,
        files: &[SourceRef<'_>],
        compiled: &Compiled,
        digests: &HashMap<String, [u8; 32]>,
    ) {
        if let Some(disk) = self.disk.as_mut() {
            disk.save(&self.parsed, files, compiled, digests);
        }
    }
}

/// Counters of the cache for one history (for `bench`).
#[derive(Debug, Clone, Default)]
pub struct DiskStats {
    /// File sets put together from the cache, those put together after compiling the
    /// files that missed (and the files those compiles took), and those compiled whole.
    pub sets_hit: usize,
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

/// The disk side of one `Cache`: the store and what was read from it or written this run.
pub(super) struct Disk {
    store: Arc<Store>,
    records: HashMap<(String, String), Option<Record>>,
    parts: HashMap<[u8; 32], Option<Arc<Part>>>,
    stored: HashSet<[u8; 32]>,
    pub(super) stats: DiskStats,
}

impl Drop for Disk {
    fn drop(&mut self) {
        if self.store.wrote.load(std::sync::atomic::Ordering::Relaxed) {
            self.store.evict();
        }
    }
}

impl Disk {
    fn new(store: Arc<Store>) -> Disk {
        Disk {
            store,
            records: HashMap::new(),
            parts: HashMap::new(),
            stored: HashSet::new(),
            stats: DiskStats::default(),
        }
    }

    fn record(&mut self, parsed: &ParsedMap, path: &str, blob: &str) -> Option<Record> {
        let key = (path.to_string(), blob.to_string());
        if let Some(Ok(p)) = parsed.get(&key) {
            return Some(Record::of(p));
        }
        if let Some(r) = self.records.get(&key) {
            return r.clone();
        }
        let r: Option<Record> = self
            .store
            .get(Kind::Record, &record_key(path, blob))
            .and_then(|bytes| postcard::from_bytes(&bytes).ok());
        if r.is_some() {
            self.stats.records_hit += 1;
            self.stored.insert(record_key(path, blob));
        } else {
            self.stats.records_missed += 1;
        }
        self.records.insert(key, r.clone());
        r
    }

    fn part(&mut self, key: &[u8; 32]) -> Option<Arc<Part>> {
        if let Some(p) = self.parts.get(key) {
            return p.clone();
        }
        let part: Option<Arc<Part>> = self
            .store
            .get(Kind::Part, key)
            .and_then(|bytes| postcard::from_bytes::<Part>(&bytes).ok())
            .map(Arc::new);
        if part.is_some() {
            self.stats.parts_hit += 1;
            self.stored.insert(*key);
        } else {
            self.stats.parts_missed += 1;
        }
        self.parts.insert(*key, part.clone());
        part
    }

    /// The set put together from the cache when every file it needs is there and nothing
    /// between them would fail; else which files miss (none: the set cannot be planned,
    /// or its parts clash).
    fn lookup(&mut self, parsed: &ParsedMap, files: &[SourceRef<'_>]) -> Lookup {
        let Some(plan) = Plan::new(files, |p, b| self.record(parsed, p, b)) else {
            return Lookup::Miss;
        };
        if plan.roots.is_empty() {
            return Lookup::Miss;
        }
        let mut parts: Vec<(&String, Arc<Part>)> = Vec::with_capacity(plan.reached.len());
        let mut missing = HashSet::new();
        for (path, node) in &plan.reached {
            match self.part(&node.key) {
                // A part stored under another file's key is not this file's.
                Some(part) if part.file.name == *path => parts.push((path, part)),
                _ => {
                    missing.insert(path.clone());
                }
            }
        }
        if !missing.is_empty() {
            return Lookup::Missing(plan, missing);
        }
        if conflicts(parts.iter().map(|(_, p)| p.as_ref())) {
            return Lookup::Miss;
        }
        let mut schema = Schema::default();
        let mut deps = BTreeMap::new();
        let mut digests = HashMap::new();
        for (path, part) in &parts {
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

    /// Stores the parts of a set that compiled without any diagnostic (and the records of
    /// its files), when the plan agrees with what the compile did.
    fn save(
        &mut self,
        parsed: &ParsedMap,
        files: &[SourceRef<'_>],
        compiled: &Compiled,
        digests: &HashMap<String, [u8; 32]>,
    ) {
        if compiled.status != Status::Complete || !compiled.diagnostics.is_empty() {
            return;
        }
        let started = Instant::now();
        let plan = Plan::new(files, |p, b| {
            match parsed.get(&(p.to_string(), b.to_string())) {
                Some(Ok(x)) => Some(Record::of(x)),
                _ => None,
            }
        });
        let content = &compiled.schema.content;
        let Some(plan) = plan.filter(|plan| {
            plan.how() == compiled.how
                && plan.reached.len() == content.files.len()
                && plan.reached.keys().all(|p| content.files.contains_key(p))
                && plan.reached.keys().all(|p| digests.contains_key(p))
        }) else {
            self.stats.store += started.elapsed();
            return;
        };
        for (path, blob, _) in plan
            .reached
            .iter()
            .filter(|(_, n)| n.origin.is_some())
            .map(|(p, n)| (p, &n.blob, n.origin))
        {
            let key = record_key(path, blob);
            if self.stored.contains(&key) {
                continue;
            }
            if let Some(Ok(x)) = parsed.get(&(path.clone(), blob.clone()))
                && let Ok(bytes) = postcard::to_allocvec(&Record::of(x))
            {
                self.store.put(Kind::Record, &key, &bytes);
                self.stats.records_stored += 1;
            }
            self.stored.insert(key);
        }
        // Records of the files the pool does not hold (they parsed: the set is clean).
        for (path, blob, _) in given(files) {
            let key = record_key(path, blob);
            if self.stored.insert(key)
                && let Some(Ok(x)) = parsed.get(&(path.to_string(), blob.to_string()))
                && let Ok(bytes) = postcard::to_allocvec(&Record::of(x))
            {
                self.store.put(Kind::Record, &key, &bytes);
                self.stats.records_stored += 1;
            }
        }
        let mut split = split(compiled, digests);
        for (path, node) in &plan.reached {
            // Parts of other sets' files are usually there already (a monorepo's commit
            // changes one file).
            if self.stored.contains(&node.key) || self.store.get(Kind::Part, &node.key).is_some() {
                self.stored.insert(node.key);
                continue;
            }
            let Some(part) = split.remove(path.as_str()) else {
                continue;
            };
            if let Ok(bytes) = postcard::to_allocvec(&part) {
                self.store.put(Kind::Part, &node.key, &bytes);
                self.stats.parts_stored += 1;
            }
            self.stored.insert(node.key);
            self.parts.insert(node.key, Some(Arc::new(part)));
        }
        self.stats.store += started.elapsed();
    }
}
