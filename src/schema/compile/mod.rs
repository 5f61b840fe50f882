//! Compiling the `.proto` text of a version, sharing work across versions.
//!
//! Two compilers enter here, and only here. `protox` (`protox_link`) compiles in process
//! what it can read (proto2 and proto3): each distinct blob is parsed once (keyed by import
//! path and blob id), and each distinct file set is linked and normalized once (keyed by its
//! sorted (path, blob id, origin)). Files are linked one at a time into one pool: a file that
//! fails (a syntax error, a missing import, a symbol defined twice) is reported with its
//! reason and the rest of the version still loads. Google's `protoc` (`units`) compiles what
//! protox cannot read (editions files and the files that import them), by unit: one file
//! and its import closure, each distinct unit once (see [`super::protoc`]). Its descriptors
//! join the same pool.
//!
//! An import found neither in the version's files nor among the well-known types is looked
//! up in a small set of third-party protos embedded in the binary (googleapis, gogoproto,
//! protoc-gen-validate, protovalidate) — what `buf.yaml` dependencies most often name.

mod bounds;
mod locate;
mod persist;
mod pool;
mod protox_link;
#[cfg(test)]
mod tests;
mod units;
mod visibility;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use protox::file::File;
use serde::{Deserialize, Serialize};

use super::diagnostic::Diagnostic;
use super::docs;
use super::fingerprint::Memo;
use super::model::{FileDocs, Origin, Schema};
use super::normalize::normalize;
use super::thirdparty;
use crate::proto_text::{edition_line, without_bom};
use locate::diagnostic;
use units::{Target, Unit, UnitKey};

pub use persist::DiskStats;

/// One input file: import path, blob id (equal ids mean equal text), text, and why it is in
/// the set (only [`Origin::Root`] files are judged and counted).
#[derive(Debug, Clone, Copy)]
pub struct SourceRef<'a> {
    pub path: &'a str,
    pub blob: &'a str,
    pub text: Result<&'a str, &'a str>,
    pub origin: Origin,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every file compiled.
    Complete,
    /// Some files compiled; the others have diagnostics.
    Partial,
    /// Nothing compiled.
    Failed,
    /// Not compiled yet (a version the terminal UI shows while the history loads).
    Pending,
}

impl Status {
    /// Some of the version compiled: it has a schema to compare (complete or partial).
    pub fn has_schema(self) -> bool {
        matches!(self, Status::Complete | Status::Partial)
    }
}

/// The result of compiling one file set.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub status: Status,
    /// The model of what compiled (empty when nothing did).
    pub schema: Arc<Schema>,
    pub diagnostics: Vec<Diagnostic>,
    /// Files under the proto roots (the judged ones), and how many of them compiled.
    pub files_total: usize,
    pub files_ok: usize,
    /// How the set was compiled: files compiled by protox and by protoc (judged files and
    /// what they import), and the files that came from elsewhere than the proto roots.
    pub how: HowCompiled,
}

impl Compiled {
    /// The stand-in for a version that is not compiled yet: no schema, no diagnostics.
    pub fn pending() -> Compiled {
        Compiled {
            status: Status::Pending,
            schema: Arc::default(),
            diagnostics: Vec::new(),
            files_total: 0,
            files_ok: 0,
            how: HowCompiled::default(),
        }
    }

    /// A file set of `files_total` judged files that could not be compiled at all, with the
    /// one diagnostic that says why.
    pub fn failed(message: String, files_total: usize) -> Compiled {
        Compiled {
            status: Status::Failed,
            files_total,
            diagnostics: vec![Diagnostic {
                file: String::new(),
                line: 0,
                column: 0,
                message,
            }],
            ..Compiled::pending()
        }
    }
}

/// How a file set was compiled, for `log` and the version detail.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct HowCompiled {
    pub protox: usize,
    /// Files protoc compiled (editions files and their importers), by import path.
    pub protoc: Vec<String>,
    /// Files not under the proto roots, by origin: excluded, found in the tree, embedded.
    pub resolved: BTreeMap<String, Origin>,
}

impl HowCompiled {
    /// One line, when the version took more than protox on its proto roots:
    /// `protoc: 3 files; imports: 2 embedded, 5 in the tree, 12 excluded`.
    pub fn summary(&self) -> Option<String> {
        let mut parts = Vec::new();
        if !self.protoc.is_empty() {
            parts.push(format!(
                "protoc: {} file{}",
                self.protoc.len(),
                if self.protoc.len() == 1 { "" } else { "s" }
            ));
        }
        let count = |o: Origin| self.resolved.values().filter(|x| **x == o).count();
        let resolved: Vec<String> = [
            (Origin::Embedded, "embedded"),
            (Origin::Tree, "in the tree"),
            (Origin::Excluded, "excluded"),
        ]
        .into_iter()
        .filter_map(|(o, name)| match count(o) {
            0 => None,
            n => Some(format!("{n} {name}")),
        })
        .collect();
        if !resolved.is_empty() {
            parts.push(format!("imports: {}", resolved.join(", ")));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// Time spent per phase, and how much work was shared.
#[derive(Debug, Clone, Default)]
pub struct CompileStats {
    pub parse: Duration,
    pub link: Duration,
    pub normalize: Duration,
    pub blobs_parsed: usize,
    pub sets_compiled: usize,
    pub sets_reused: usize,
    /// protoc units (a file and its import closure) compiled, reused, and the wall time of
    /// the protoc phase (units run in parallel).
    pub protoc_units: usize,
    pub protoc_reused: usize,
    pub protoc: Duration,
    /// Files opened with protox (judged files of distinct sets).
    pub protox_files: usize,
    /// The on-disk cache (all zero without it).
    pub disk: DiskStats,
}

/// A blob as protox parsed it, or the imports of one it cannot read (an editions file, or
/// syntax newer than protox's parser), with protox's reason in the second case.
#[derive(Clone)]
enum Parsed {
    Protox(Arc<File>, Arc<FileDocs>),
    Protoc(Arc<Vec<String>>, Option<Diagnostic>),
}

impl Parsed {
    fn imports(&self) -> Vec<String> {
        match self {
            Parsed::Protox(f, _) => f.file_descriptor_proto().dependency.clone(),
            Parsed::Protoc(i, _) => i.as_ref().clone(),
        }
    }
}

/// The shared compiler: keep one for a whole history. It uses the on-disk cache when the
/// process turned it on (`store::configure`).
#[derive(Default)]
pub struct Cache {
    parsed: HashMap<(String, String), Result<Parsed, Diagnostic>>,
    sets: HashMap<Vec<(String, String, Origin)>, Arc<Compiled>>,
    units: HashMap<UnitKey, Unit>,
    /// Files (path, blob) protoc rejected: units holding one run alone.
    rejected: HashSet<(String, String)>,
    fingerprints: Memo,
    /// How many more versions read each planned (path, blob) (see [`Cache::plan`]): a parse
    /// no later version reads is dropped as soon as its file set is linked.
    uses_left: HashMap<(String, String), usize>,
    /// The on-disk cache, when on.
    disk: Option<persist::Disk>,
    pub stats: CompileStats,
}

/// A file set, parsed: the files (with the embedded ones its imports reach), each file's
/// parse, and what each imports.
struct Gathered<'a> {
    files: Vec<SourceRef<'a>>,
    parsed: HashMap<String, Parsed>,
    failed_parse: HashSet<String>,
    diagnostics: Vec<Diagnostic>,
}

impl Cache {
    /// Says which files each version to come will compile, in any order: a parse is then
    /// kept only while a version still to be compiled reads it (a 10 MB file's parse is a
    /// sixth of its load's peak). Without a plan every parse is kept.
    pub fn plan<'a>(&mut self, versions: impl IntoIterator<Item = &'a [SourceRef<'a>]>) {
        for files in versions {
            for f in files {
                *self
                    .uses_left
                    .entry((f.path.to_string(), f.blob.to_string()))
                    .or_default() += 1;
            }
        }
    }

    /// Compiles a file set, or returns the result of an equal set compiled before.
    pub fn compile(&mut self, files: &[SourceRef<'_>]) -> Arc<Compiled> {
        for f in files {
            if let Some(n) = self
                .uses_left
                .get_mut(&(f.path.to_string(), f.blob.to_string()))
            {
                *n = n.saturating_sub(1);
            }
        }
        // Where a file came from decides whether it is judged: part of the key.
        let mut key: Vec<(String, String, Origin)> = files
            .iter()
            .map(|f| (f.path.to_string(), f.blob.to_string(), f.origin))
            .collect();
        key.sort();
        if let Some(done) = self.sets.get(&key).cloned() {
            self.stats.sets_reused += 1;
            self.forget_spent(files);
            return done;
        }
        let compiled = Arc::new(self.compile_or_load(files));
        if let Some(disk) = &self.disk {
            self.stats.disk = disk.stats.clone();
        }
        self.stats.sets_compiled += 1;
        self.sets.insert(key, compiled.clone());
        compiled
    }

    /// Drops the parses of `files` that no planned version still reads.
    fn forget_spent(&mut self, files: &[SourceRef<'_>]) {
        for f in files {
            let key = (f.path.to_string(), f.blob.to_string());
            if self.uses_left.get(&key) == Some(&0) {
                self.uses_left.remove(&key);
                // What the on-disk cache keeps of a parse (its record) outlives it.
                if let (Some(Ok(p)), Some(disk)) = (self.parsed.remove(&key), self.disk.as_mut()) {
                    disk.remember(key, &p);
                }
            }
        }
    }

    fn parse(&mut self, f: &SourceRef<'_>) -> Result<Parsed, Diagnostic> {
        let key = (f.path.to_string(), f.blob.to_string());
        if let Some(done) = self.parsed.get(&key) {
            return done.clone();
        }
        let started = Instant::now();
        let result = match f.text {
            Err(reason) => Err(Diagnostic {
                file: f.path.to_string(),
                line: 0,
                column: 0,
                message: reason.to_string(),
            }),
            // Too deep for the compilers (their parsers recurse): neither sees it.
            Ok(text) if let Some(d) = bounds::check(f.path, text) => Err(d),
            Ok(text) if edition_line(text).is_some() => Ok(Parsed::Protoc(
                Arc::new(crate::proto_text::scan(text)),
                None,
            )),
            // What protox cannot parse goes to protoc, which has the last word.
            Ok(text) => Ok(protox_parse::parse(f.path, text)
                .map(|mut proto| {
                    let docs = Arc::new(docs::of_file(&proto));
                    // Link without source info: docs are taken above, once per blob. The
                    // parse is owned, so nothing of it is copied (a copy of a 10 MB file's
                    // source info was a tenth of its load's time).
                    proto.source_code_info = None;
                    Parsed::Protox(Arc::new(File::from_file_descriptor_proto(proto)), docs)
                })
                .unwrap_or_else(|e| {
                    Parsed::Protoc(
                        Arc::new(crate::proto_text::scan(text)),
                        Some(diagnostic(&e.into(), f.path, |_| Some(text))),
                    )
                })),
        };
        self.stats.parse += started.elapsed();
        self.stats.blobs_parsed += 1;
        self.parsed.insert(key, result.clone());
        result
    }

    /// Parses every file of the set, and adds the embedded third-party protos that imports
    /// found nowhere in the set name (and what they import).
    fn gather<'a>(&mut self, given: &[SourceRef<'a>]) -> Gathered<'a> {
        // A byte order mark is dropped before either compiler reads the text (protox
        // refuses it); it is invisible, so lines and columns do not move.
        let mut files: Vec<SourceRef<'a>> = given
            .iter()
            .map(|f| SourceRef {
                text: f.text.map(without_bom),
                ..*f
            })
            .collect();
        files.sort_by_key(|f| f.path);
        files.dedup_by_key(|f| f.path);
        let mut parsed: HashMap<String, Parsed> = HashMap::new();
        let mut failed_parse: HashSet<String> = HashSet::new();
        let mut parse_errors: Vec<Diagnostic> = Vec::new();
        for f in &files {
            match self.parse(f) {
                Ok(p) => {
                    parsed.insert(f.path.to_string(), p);
                }
                Err(d) => {
                    failed_parse.insert(f.path.to_string());
                    parse_errors.push(d);
                }
            }
        }
        let mut known: HashSet<String> = files.iter().map(|f| f.path.to_string()).collect();
        let mut queue: Vec<String> = parsed.values().flat_map(Parsed::imports).collect();
        while let Some(import) = queue.pop() {
            if !known.insert(import.clone()) {
                continue;
            }
            let Some((path, text)) = thirdparty::get(&import) else {
                continue;
            };
            let f = SourceRef {
                path,
                blob: path,
                text: Ok(text),
                origin: Origin::Embedded,
            };
            if let Ok(p) = self.parse(&f) {
                queue.extend(p.imports());
                parsed.insert(path.to_string(), p);
            }
            files.push(f);
        }
        // Parse errors of files that are not judged matter only when something imports them.
        let imported: HashSet<String> = parsed.values().flat_map(Parsed::imports).collect();
        let diagnostics = parse_errors
            .into_iter()
            .filter(|d| {
                let origin = files.iter().find(|f| f.path == d.file).map(|f| f.origin);
                origin == Some(Origin::Root) || imported.contains(&d.file)
            })
            .collect();
        Gathered {
            files,
            parsed,
            failed_parse,
            diagnostics,
        }
    }

    /// Compiles a set; also returns each pool file's fingerprint digest, and which files
    /// protox put in the pool (protoc the others).
    fn compile_new(&mut self, given: &[SourceRef<'_>]) -> (Compiled, persist::Extra) {
        let Gathered {
            files,
            mut parsed,
            failed_parse,
            mut diagnostics,
        } = self.gather(given);
        let origin_of: HashMap<&str, Origin> = files.iter().map(|f| (f.path, f.origin)).collect();
        // A file that did not parse on its own (unreadable, too deep) is given to no compiler.
        let texts: HashMap<&str, &str> = files
            .iter()
            .filter(|f| !failed_parse.contains(f.path))
            .filter_map(|f| f.text.ok().map(|t| (f.path, t)))
            .collect();
        // Keyed by the set's paths, not the parses': those go before the model is built.
        let deps: HashMap<&str, Vec<String>> = files
            .iter()
            .filter_map(|f| Some((f.path, parsed.get(f.path)?.imports())))
            .collect();
        let needs_protoc = needs_protoc(&parsed, &deps);

        // Parses no version to come reads leave the cache before the link: protox is then
        // handed the only copy (moved, not cloned beside the pool it builds).
        self.forget_spent(&files);
        let (mut pool, link_errors, mut file_docs) =
            self.link_protox(&files, &mut parsed, &needs_protoc, &texts, &failed_parse);
        let by_protox: HashSet<String> = pool.files().map(|f| f.name().to_string()).collect();

        // protoc, by unit, for the judged files protox could not link.
        let started = Instant::now();
        let blob_of: HashMap<&str, &str> = files.iter().map(|f| (f.path, f.blob)).collect();
        let targets: Vec<Target<'_>> = files
            .iter()
            .filter(|f| f.origin == Origin::Root && needs_protoc.contains(f.path))
            // A file that imports one that did not parse is left out (said by `unexplained`).
            .filter(|f| {
                !units::closure(f.path, |p| deps.get(p))
                    .iter()
                    .any(|p| failed_parse.contains(p))
            })
            .map(|f| {
                let mut t = Target::new(f.path, f.blob, &deps, &blob_of, &texts);
                if let Some(Parsed::Protoc(_, e)) = parsed.get(f.path) {
                    t.protox_error = e.as_ref();
                }
                t.edition_line = texts.get(f.path).and_then(|t| edition_line(t)).unwrap_or(0);
                t
            })
            .collect();
        let compiled = units::compile(&mut self.units, &mut self.rejected, &targets);
        self.stats.protoc_units += compiled;
        self.stats.protoc_reused += targets.len() - compiled;
        let joined = units::join(&mut pool, &self.units, &targets, &mut diagnostics);
        self.stats.protoc += started.elapsed();
        let pool = pool::sound(pool, &mut diagnostics);
        diagnostics.extend(link_errors);
        let mut protoc_done = Vec::new();
        for (path, docs) in joined.done {
            file_docs.insert(path.clone(), docs);
            protoc_done.push(path);
        }
        protoc_done.sort();
        // The pool holds what the parses said: the rest of them go before the model is built
        // beside the pool.
        drop(targets);
        drop(parsed);

        let started = Instant::now();
        // Files of the set that ended up in the pool (as imports or opened).
        let own: HashMap<String, (String, Arc<FileDocs>, Origin)> = pool
            .files()
            .filter_map(|f| {
                let origin = *origin_of.get(f.name())?;
                // The blob keys the fingerprint memo: always the set's, never a blank.
                let blob = blob_of
                    .get(f.name())
                    .copied()
                    .unwrap_or_default()
                    .to_string();
                let docs = file_docs.remove(f.name()).unwrap_or_default();
                Some((f.name().to_string(), (blob, docs, origin)))
            })
            .collect();
        let files_total = files.iter().filter(|f| f.origin == Origin::Root).count();
        let files_ok = own.values().filter(|(_, _, o)| *o == Origin::Root).count();

        let how = HowCompiled {
            protox: own.len().saturating_sub(protoc_done.len()),
            protoc: protoc_done,
            resolved: own
                .iter()
                .filter(|(_, (_, _, o))| *o != Origin::Root)
                .map(|(n, (_, _, o))| (n.clone(), *o))
                .collect(),
        };
        let (schema, digests) = normalize(
            &pool,
            &own,
            &joined.editions,
            &joined.local,
            &mut self.fingerprints,
            &mut diagnostics,
        );
        let schema = Arc::new(schema);
        self.stats.normalize += started.elapsed();

        let unexplained = unexplained(&files, &own, &deps, &diagnostics);
        diagnostics.extend(unexplained);
        if files_total == 0 {
            diagnostics.push(Diagnostic {
                file: String::new(),
                line: 0,
                column: 0,
                message: "no .proto files under the proto paths".to_string(),
            });
        }
        let status = if files_total > 0 && files_ok == files_total {
            Status::Complete
        } else if files_ok > 0 {
            Status::Partial
        } else {
            Status::Failed
        };
        let compiled = Compiled {
            status,
            schema,
            diagnostics,
            files_total,
            files_ok,
            how,
        };
        (compiled, persist::Extra { digests, by_protox })
    }
}

/// Never a silent drop: a judged file that is not in the pool and that no diagnostic names
/// gets one (usually it imports a file that failed, whose error names only that file).
fn unexplained<V>(
    files: &[SourceRef<'_>],
    own: &HashMap<String, V>,
    deps: &HashMap<&str, Vec<String>>,
    diagnostics: &[Diagnostic],
) -> Vec<Diagnostic> {
    let named: HashSet<&str> = diagnostics.iter().map(|d| d.file.as_str()).collect();
    files
        .iter()
        .filter(|f| f.origin == Origin::Root && !own.contains_key(f.path))
        .filter(|f| !named.contains(f.path))
        .map(|f| {
            // Usually an import that failed: the error was reported on the import.
            let failed_import = units::closure(f.path, |p| deps.get(p))
                .into_iter()
                .find(|p| p != f.path && named.contains(p.as_str()));
            Diagnostic {
                file: f.path.to_string(),
                line: 0,
                column: 0,
                message: match failed_import {
                    Some(p) => format!(
                        "not compiled: it imports `{p}`, which did not compile (see its error)"
                    ),
                    None => "not compiled: the compilers gave no reason; it is left out of \
                             this version (please report this)"
                        .into(),
                },
            }
        })
        .collect()
}

/// What protox cannot link: the files it cannot parse (editions) and, transitively, every
/// file that imports one.
fn needs_protoc(
    parsed: &HashMap<String, Parsed>,
    deps: &HashMap<&str, Vec<String>>,
) -> BTreeSet<String> {
    let mut importers: HashMap<&str, Vec<&str>> = HashMap::new();
    for (file, imports) in deps {
        for import in imports {
            importers.entry(import.as_str()).or_default().push(file);
        }
    }
    let mut out: BTreeSet<String> = parsed
        .iter()
        .filter(|(_, p)| matches!(p, Parsed::Protoc(..)))
        .map(|(n, _)| n.clone())
        .collect();
    // Each file is visited once: a long chain of imports costs its length, not its square.
    let mut todo: Vec<String> = out.iter().cloned().collect();
    while let Some(file) = todo.pop() {
        for importer in importers.get(file.as_str()).into_iter().flatten() {
            if out.insert(importer.to_string()) {
                todo.push(importer.to_string());
            }
        }
    }
    out
}
