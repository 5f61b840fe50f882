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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::super::fingerprint;
use super::super::model::{
    Content, Enum, Extension, File, FileDocs, Message, Origin, Schema, Service,
};
use super::super::store::{FORMAT, Kind, Store};
use super::super::thirdparty;
use super::{Compiled, HowCompiled, Parsed, SourceRef, Status};

/// What a file's key needs from its blob.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Record {
    imports: Vec<String>,
    /// protox cannot parse it (an editions file): protoc compiles it and its importers.
    protoc: bool,
}

impl Record {
    pub(super) fn of(parsed: &Parsed) -> Record {
        Record {
            imports: parsed.imports(),
            protoc: matches!(parsed, Parsed::Protoc(..)),
        }
    }
}

/// A file's part of a compiled set's model.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Part {
    file: File,
    messages: Vec<Message>,
    enums: Vec<Enum>,
    services: Vec<Service>,
    extensions: Vec<Extension>,
    docs: Option<Arc<FileDocs>>,
    digest: [u8; 32],
}

/// Which compiler put a file into the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    Protox,
    Protoc,
}

/// A file the set's pool holds when it compiles cleanly.
#[derive(Debug)]
struct Node {
    blob: String,
    /// None for a well-known type the compiler supplies.
    origin: Option<Origin>,
    key: [u8; 32],
}

/// A file set as the cache sees it: what a clean compile's pool holds, and each file's key.
#[derive(Debug)]
pub(super) struct Plan {
    reached: BTreeMap<String, Node>,
    /// Judged files, and those of them protoc compiles.
    roots: usize,
    protoc_roots: Vec<String>,
}

/// Counters of the cache for one history (for `bench`).
#[derive(Debug, Clone, Default)]
pub struct DiskStats {
    /// File sets put together from the cache, and those compiled.
    pub sets_hit: usize,
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

/// protolapse itself: the format, its version, and this very binary (size and time), so that
/// a build with other compilers, other embedded protos or another normalization never
/// reads the entries of this one.
fn base_id() -> &'static [u8; 32] {
    static ID: OnceLock<[u8; 32]> = OnceLock::new();
    ID.get_or_init(|| {
        let mut h = Sha256::new();
        h.update(FORMAT.to_le_bytes());
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        h.update([0]);
        if let Ok(meta) = std::env::current_exe().and_then(std::fs::metadata) {
            h.update(meta.len().to_le_bytes());
            let time = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            h.update(time.map_or(0, |d| d.as_nanos()).to_le_bytes());
        }
        h.finalize().into()
    })
}

/// Which protoc runs (path, version, size and time of the program), or why none does.
fn protoc_id() -> &'static [u8; 32] {
    static ID: OnceLock<[u8; 32]> = OnceLock::new();
    ID.get_or_init(|| {
        let mut h = Sha256::new();
        match super::super::protoc::locate() {
            Ok(p) => {
                h.update(p.program.to_string_lossy().as_bytes());
                h.update([0]);
                h.update(p.major.to_le_bytes());
                if let Some(i) = &p.include {
                    h.update(i.to_string_lossy().as_bytes());
                }
                h.update([0]);
                if let Ok(meta) = std::fs::metadata(&p.program) {
                    h.update(meta.len().to_le_bytes());
                    let time = meta
                        .modified()
                        .ok()
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
                    h.update(time.map_or(0, |d| d.as_nanos()).to_le_bytes());
                }
            }
            Err(why) => h.update(format!("none: {why}").as_bytes()),
        }
        h.finalize().into()
    })
}

/// The imports of a well-known type protox supplies; None when it is not one.
fn well_known_imports(path: &str) -> Option<Vec<String>> {
    static KNOWN: OnceLock<Mutex<HashMap<String, Option<Vec<String>>>>> = OnceLock::new();
    let known = KNOWN.get_or_init(Mutex::default);
    if let Ok(map) = known.lock()
        && let Some(hit) = map.get(path)
    {
        return hit.clone();
    }
    use protox::file::FileResolver;
    let imports = protox::file::GoogleFileResolver::new()
        .open_file(path)
        .ok()
        .map(|f| f.file_descriptor_proto().dependency.clone());
    if let Ok(mut map) = known.lock() {
        map.insert(path.to_string(), imports.clone());
    }
    imports
}

fn record_key(path: &str, blob: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"record\0");
    h.update(base_id());
    h.update(path.as_bytes());
    h.update([0]);
    h.update(blob.as_bytes());
    h.finalize().into()
}

/// The files of a set as the compiler takes them: sorted by path, the first of one path.
fn given<'a>(files: &[SourceRef<'a>]) -> Vec<(&'a str, &'a str, Origin)> {
    let mut out: Vec<(&str, &str, Origin)> =
        files.iter().map(|f| (f.path, f.blob, f.origin)).collect();
    out.sort_by_key(|f| f.0);
    out.dedup_by_key(|f| f.0);
    out
}

/// Every file reachable from `from` through `deps`, `from` included.
fn reach<'a>(
    from: impl IntoIterator<Item = &'a str>,
    deps: &'a HashMap<String, Vec<String>>,
) -> BTreeSet<&'a str> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<&str> = from.into_iter().collect();
    while let Some(f) = stack.pop() {
        if seen.insert(f) {
            stack.extend(deps.get(f).into_iter().flatten().map(String::as_str));
        }
    }
    seen
}

impl Plan {
    /// The plan of a set, from each file's record (`record(path, blob)`); None when a
    /// record is missing or an import is found nowhere (a compile would fail).
    fn new(
        files: &[SourceRef<'_>],
        mut record: impl FnMut(&str, &str) -> Option<Record>,
    ) -> Option<Plan> {
        let mut files: Vec<(String, String, Option<Origin>)> = given(files)
            .into_iter()
            .map(|(p, b, o)| (p.to_string(), b.to_string(), Some(o)))
            .collect();
        let mut records: HashMap<String, Record> = HashMap::new();
        for (p, b, _) in &files {
            records.insert(p.clone(), record(p, b)?);
        }
        // Embedded third-party protos, as `gather` adds them: for imports found nowhere in
        // the set, and what they import.
        let mut known: HashSet<String> = files.iter().map(|f| f.0.clone()).collect();
        let mut queue: Vec<String> = records.values().flat_map(|r| r.imports.clone()).collect();
        while let Some(import) = queue.pop() {
            if !known.insert(import.clone()) {
                continue;
            }
            let Some((path, _)) = thirdparty::get(&import) else {
                continue;
            };
            let r = record(path, path)?;
            queue.extend(r.imports.iter().cloned());
            records.insert(path.to_string(), r);
            files.push((path.to_string(), path.to_string(), Some(Origin::Embedded)));
        }
        let mut deps: HashMap<String, Vec<String>> = records
            .iter()
            .map(|(p, r)| (p.clone(), r.imports.clone()))
            .collect();
        let roots: Vec<String> = files
            .iter()
            .filter(|f| f.2 == Some(Origin::Root))
            .map(|f| f.0.clone())
            .collect();
        // The well-known types the roots reach (their own imports included).
        let mut well_known: Vec<String> = Vec::new();
        loop {
            let reached: Vec<String> = reach(roots.iter().map(String::as_str), &deps)
                .into_iter()
                .filter(|p| !deps.contains_key(*p))
                .map(str::to_string)
                .collect();
            if reached.is_empty() {
                break;
            }
            for p in reached {
                let imports = well_known_imports(&p)?;
                deps.insert(p.clone(), imports);
                well_known.push(p);
            }
        }
        // protoc compiles what protox cannot parse and, transitively, what imports it.
        let mut importers: HashMap<&str, Vec<&str>> = HashMap::new();
        for (file, imports) in &deps {
            for i in imports {
                importers.entry(i.as_str()).or_default().push(file);
            }
        }
        let mut needs_protoc: HashSet<&str> = records
            .iter()
            .filter(|(_, r)| r.protoc)
            .map(|(p, _)| p.as_str())
            .collect();
        let mut todo: Vec<&str> = needs_protoc.iter().copied().collect();
        while let Some(f) = todo.pop() {
            for i in importers.get(f).into_iter().flatten() {
                if needs_protoc.insert(i) {
                    todo.push(i);
                }
            }
        }
        let by_protox = reach(
            roots
                .iter()
                .map(String::as_str)
                .filter(|r| !needs_protoc.contains(r)),
            &deps,
        );
        let via = |p: &str| {
            if needs_protoc.contains(p) || !by_protox.contains(p) {
                Via::Protoc
            } else {
                Via::Protox
            }
        };
        let facts: HashMap<&str, (&str, Option<Origin>)> = files
            .iter()
            .map(|(p, b, o)| (p.as_str(), (b.as_str(), *o)))
            .chain(well_known.iter().map(|p| (p.as_str(), ("", None))))
            .collect();
        let mut reached = BTreeMap::new();
        for p in reach(roots.iter().map(String::as_str), &deps) {
            let (blob, origin) = facts.get(p).copied()?;
            let closure = reach([p], &deps);
            let mut h = Sha256::new();
            h.update(b"part\0");
            h.update(base_id());
            if closure.iter().any(|q| via(q) == Via::Protoc) {
                h.update(protoc_id());
            }
            h.update([origin.map_or(255, |o| o as u8), via(p) as u8]);
            for q in closure {
                let (blob, _) = facts.get(q).copied()?;
                h.update(q.as_bytes());
                h.update([0]);
                h.update(blob.as_bytes());
                h.update([0, via(q) as u8]);
            }
            h.update(p.as_bytes());
            let node = Node {
                blob: blob.to_string(),
                origin,
                key: h.finalize().into(),
            };
            reached.insert(p.to_string(), node);
        }
        let mut protoc_roots: Vec<String> = roots
            .iter()
            .filter(|r| needs_protoc.contains(r.as_str()))
            .cloned()
            .collect();
        protoc_roots.sort();
        Some(Plan {
            reached,
            roots: roots.len(),
            protoc_roots,
        })
    }

    /// What a compile of the set reports in `how`, when it is clean.
    fn how(&self) -> HowCompiled {
        let own: Vec<(&String, Origin)> = self
            .reached
            .iter()
            .filter_map(|(p, n)| n.origin.map(|o| (p, o)))
            .collect();
        HowCompiled {
            protox: own.len().saturating_sub(self.protoc_roots.len()),
            protoc: self.protoc_roots.clone(),
            resolved: own
                .iter()
                .filter(|(_, o)| *o != Origin::Root)
                .map(|(p, o)| ((*p).clone(), *o))
                .collect(),
        }
    }
}

impl Disk {
    pub(super) fn new(store: Arc<Store>) -> Disk {
        Disk {
            store,
            records: HashMap::new(),
            parts: HashMap::new(),
            stored: HashSet::new(),
            stats: DiskStats::default(),
        }
    }

    fn record(
        &mut self,
        parsed: &HashMap<(String, String), Result<Parsed, super::Diagnostic>>,
        path: &str,
        blob: &str,
    ) -> Option<Record> {
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

    /// The set put together from the cache, when every file it needs is there and nothing
    /// between them would fail.
    pub(super) fn assemble(
        &mut self,
        parsed: &HashMap<(String, String), Result<Parsed, super::Diagnostic>>,
        files: &[SourceRef<'_>],
    ) -> Option<Compiled> {
        let started = Instant::now();
        let out = self.try_assemble(parsed, files);
        self.stats.lookup += started.elapsed();
        match out {
            Some(_) => self.stats.sets_hit += 1,
            None => self.stats.sets_missed += 1,
        }
        out
    }

    fn try_assemble(
        &mut self,
        parsed: &HashMap<(String, String), Result<Parsed, super::Diagnostic>>,
        files: &[SourceRef<'_>],
    ) -> Option<Compiled> {
        let plan = Plan::new(files, |p, b| self.record(parsed, p, b))?;
        if plan.roots == 0 {
            return None;
        }
        let mut parts: Vec<(&String, Arc<Part>)> = Vec::with_capacity(plan.reached.len());
        for (path, node) in &plan.reached {
            let part = self.part(&node.key)?;
            // A part stored under another file's key is not this file's.
            if part.file.name != *path {
                return None;
            }
            parts.push((path, part));
        }
        if conflicts(parts.iter().map(|(_, p)| p.as_ref())) {
            return None;
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
        Some(Compiled {
            status: Status::Complete,
            schema: Arc::new(schema),
            diagnostics: Vec::new(),
            files_total: plan.roots,
            files_ok: plan.roots,
            how: plan.how(),
        })
    }

    /// Stores the parts of a set that compiled without any diagnostic (and the records of
    /// its files), when the plan agrees with what the compile did.
    pub(super) fn save(
        &mut self,
        parsed: &HashMap<(String, String), Result<Parsed, super::Diagnostic>>,
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

/// A compiled set's model, cut into the parts of its files.
fn split(compiled: &Compiled, digests: &HashMap<String, [u8; 32]>) -> HashMap<String, Part> {
    let schema = &compiled.schema;
    let c: &Content = &schema.content;
    let mut parts: HashMap<String, Part> = c
        .files
        .iter()
        .map(|(name, file)| {
            let part = Part {
                file: file.clone(),
                messages: Vec::new(),
                enums: Vec::new(),
                services: Vec::new(),
                extensions: Vec::new(),
                docs: schema.docs.get(name).cloned(),
                digest: digests.get(name).copied().unwrap_or_default(),
            };
            (name.clone(), part)
        })
        .collect();
    for m in c.messages.values() {
        if let Some(p) = parts.get_mut(&m.file) {
            p.messages.push(m.clone());
        }
    }
    for e in c.enums.values() {
        if let Some(p) = parts.get_mut(&e.file) {
            p.enums.push(e.clone());
        }
    }
    for s in c.services.values() {
        if let Some(p) = parts.get_mut(&s.file) {
            p.services.push(s.clone());
        }
    }
    for x in c.all_extensions() {
        if let Some(p) = parts.get_mut(&x.file) {
            p.extensions.push(x.clone());
        }
    }
    parts
}

/// Whether files that compiled apart would clash in one pool: a name declared by two files
/// (or declared by one and a package of another), or two extensions of one message with
/// one number. Names that only nest inside a declaration cannot clash between files.
fn conflicts<'a>(parts: impl Iterator<Item = &'a Part>) -> bool {
    let mut packages: HashSet<&str> = HashSet::new();
    let mut symbols: HashSet<String> = HashSet::new();
    let mut numbers: HashSet<(&str, u32)> = HashSet::new();
    let mut clash = false;
    for part in parts {
        let package = part.file.package.as_str();
        let mut prefix = package;
        while !prefix.is_empty() {
            packages.insert(prefix);
            prefix = prefix.rsplit_once('.').map_or("", |(p, _)| p);
        }
        let scoped = |name: &str| match package {
            "" => name.to_string(),
            p => format!("{p}.{name}"),
        };
        let top = part
            .messages
            .iter()
            .filter(|m| m.parent.is_none())
            .map(|m| m.full_name.clone())
            .chain(
                part.enums
                    .iter()
                    .filter(|e| e.parent.is_none())
                    .flat_map(|e| {
                        std::iter::once(e.full_name.clone())
                            .chain(e.values.iter().map(|v| scoped(&v.name)))
                    }),
            )
            .chain(part.services.iter().map(|s| s.full_name.clone()))
            .chain(
                part.extensions
                    .iter()
                    .filter(|x| x.scope.is_none())
                    .map(|x| x.full_name.clone()),
            );
        for name in top {
            clash |= !symbols.insert(name);
        }
        for x in &part.extensions {
            clash |= !numbers.insert((x.extendee.as_str(), x.field.number));
        }
    }
    clash || symbols.iter().any(|s| packages.contains(s.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_reads_back_as_it_was_written() {
        let text = "syntax = \"proto2\";\npackage p;\nimport \"google/protobuf/descriptor.proto\";\n\
            extend google.protobuf.FieldOptions { optional string tag = 50000; }\n\
            message M { optional int32 a = 1 [default = 3, (tag) = \"x\"]; map<string, M> m = 2;\n\
            oneof o { string s = 3; } enum E { X = 0; } optional group G = 4 { optional int32 b = 5; } }\n\
            service S { rpc Call(M) returns (stream M); }\n";
        let mut cache = super::super::Cache::new();
        let (compiled, digests) = cache.compile_new(&[SourceRef {
            path: "p.proto",
            blob: "b1",
            text: Ok(text),
            origin: Origin::Root,
        }]);
        assert!(
            compiled.diagnostics.is_empty(),
            "{:?}",
            compiled.diagnostics
        );
        for (name, part) in split(&compiled, &digests) {
            let bytes = postcard::to_allocvec(&part).unwrap();
            let back: Part = postcard::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(format!("{back:?}"), format!("{part:?}"), "{name}");
        }
    }
}
