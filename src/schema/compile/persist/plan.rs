//! A file set as the cache sees it: the files a clean compile's pool holds, which compiler
//! puts each there, and each file's key (see `persist`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::super::super::model::Origin;
use super::super::super::protoc;
use super::super::super::thirdparty;
use super::super::{HowCompiled, Parsed, SourceRef};

/// What a file's key needs from its blob.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(in super::super) struct Record {
    imports: Vec<String>,
    /// protox cannot parse it (an editions file): protoc compiles it and its importers.
    protoc: bool,
}

impl Record {
    pub(in super::super) fn of(parsed: &Parsed) -> Record {
        Record {
            imports: parsed.imports(),
            protoc: matches!(parsed, Parsed::Protoc(..)),
        }
    }
}

/// Which compiler put a file into the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Via {
    Protox,
    Protoc,
}

/// A file the set's pool holds when it compiles cleanly.
#[derive(Debug)]
pub(super) struct Node {
    pub(super) blob: String,
    /// None for a well-known type the compiler supplies.
    pub(super) origin: Option<Origin>,
    pub(super) via: Via,
    /// The file and everything it imports, transitively.
    pub(super) closure: Vec<String>,
    pub(super) key: [u8; 32],
}

/// A file set as the cache sees it: what a clean compile's pool holds, and each file's key.
#[derive(Debug)]
pub(super) struct Plan {
    /// Every file has a record and every import was found.
    pub(super) complete: bool,
    pub(super) reached: BTreeMap<String, Node>,
    /// Judged files, and those of them protoc compiles.
    pub(super) roots: Vec<String>,
    protoc_roots: Vec<String>,
    /// What each file imports (the set's, the embedded and the well-known files).
    deps: HashMap<String, Vec<String>>,
}

/// protolapse itself (see [`store::build_id`](super::super::super::store::build_id)).
pub(super) fn base_id() -> &'static [u8; 32] {
    super::super::super::store::build_id()
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

pub(super) fn record_key(path: &str, blob: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"record\0");
    h.update(base_id());
    h.update(path.as_bytes());
    h.update([0]);
    h.update(blob.as_bytes());
    h.finalize().into()
}

/// The files of a set as the compiler takes them: sorted by path, the first of one path.
pub(super) fn given<'a>(files: &[SourceRef<'a>]) -> Vec<(&'a str, &'a str, Origin)> {
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
    /// The plan of a set, from each file's record (`record(path, blob)`). A file without a
    /// record (it does not parse) and an import found nowhere make the plan incomplete:
    /// they and the files that reach them get no key.
    pub(super) fn new(
        given_files: &[SourceRef<'_>],
        mut record: impl FnMut(&str, &str) -> Option<Record>,
    ) -> Plan {
        let mut files: Vec<(String, String, Option<Origin>)> = given(given_files)
            .into_iter()
            .map(|(p, b, o)| (p.to_string(), b.to_string(), Some(o)))
            .collect();
        let mut records: HashMap<String, Record> = HashMap::new();
        // A file not read this time (over a cap) is not compiled, whatever its blob.
        let mut unknown: HashSet<String> = given_files
            .iter()
            .filter(|f| f.text.is_err())
            .map(|f| f.path.to_string())
            .collect();
        for (p, b, _) in &files {
            if unknown.contains(p) {
                continue;
            }
            match record(p, b) {
                Some(r) => {
                    records.insert(p.clone(), r);
                }
                None => {
                    unknown.insert(p.clone());
                }
            }
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
            match record(path, path) {
                Some(r) => {
                    queue.extend(r.imports.iter().cloned());
                    records.insert(path.to_string(), r);
                }
                None => {
                    unknown.insert(path.to_string());
                }
            }
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
                .filter(|p| !deps.contains_key(*p) && !unknown.contains(*p))
                .map(str::to_string)
                .collect();
            if reached.is_empty() {
                break;
            }
            for p in reached {
                match well_known_imports(&p) {
                    Some(imports) => {
                        deps.insert(p.clone(), imports);
                        well_known.push(p);
                    }
                    None => {
                        unknown.insert(p);
                    }
                }
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
            let closure = reach([p], &deps);
            if closure.iter().any(|q| unknown.contains(*q)) {
                continue;
            }
            let Some(&(blob, origin)) = facts.get(p) else {
                continue;
            };
            let mut h = Sha256::new();
            h.update(b"part\0");
            h.update(base_id());
            if closure.iter().any(|q| via(q) == Via::Protoc) {
                h.update(protoc::identity());
            }
            h.update([origin.map_or(255, |o| o as u8), via(p) as u8]);
            for q in &closure {
                let blob = facts.get(q).map_or("", |f| f.0);
                h.update(q.as_bytes());
                h.update([0]);
                h.update(blob.as_bytes());
                h.update([0, via(q) as u8]);
            }
            h.update(p.as_bytes());
            let node = Node {
                blob: blob.to_string(),
                origin,
                via: via(p),
                closure: closure.into_iter().map(str::to_string).collect(),
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
        Plan {
            complete: unknown.is_empty(),
            reached,
            roots,
            protoc_roots,
            deps,
        }
    }

    /// What a compile of the set reports in `how`, when it is clean.
    pub(super) fn how(&self) -> HowCompiled {
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

    /// The set's files a compile needs to give the parts of `missing`: the judged files
    /// whose closure holds one of them, and their closures.
    pub(super) fn subset<'a>(
        &self,
        files: &[SourceRef<'a>],
        missing: &HashSet<String>,
    ) -> Vec<SourceRef<'a>> {
        let roots = self
            .roots
            .iter()
            .map(String::as_str)
            .filter(|r| reach([*r], &self.deps).iter().any(|p| missing.contains(*p)));
        let needed = reach(roots, &self.deps);
        files
            .iter()
            .filter(|f| needed.contains(f.path))
            .copied()
            .collect()
    }
}
