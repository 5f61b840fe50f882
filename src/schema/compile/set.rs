//! One file set compiled, in two steps around protoc: [`prepare`] (its files gathered, what
//! protox links and what protoc compiles decided) and [`finish`] (protox's link, protoc's
//! units joined, the model built). Between them, the protoc units of every set compiling
//! side by side run together (`window`). Neither step reads or writes anything shared but
//! through `&`: sets compile on any thread and give the same result.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use super::super::diagnostic::Diagnostic;
use super::super::model::FileDocs;
use super::super::normalize::Memo;
use super::super::normalize::normalize;
use super::parse::Gathered;
use super::protox_link::link_protox;
use super::units::{self, Target, Unit, UnitKey};
use super::{
    CompileStats, Compiled, HowCompiled, Origin, Parsed, SourceRef, Status, persist, pool,
};
use crate::proto_text::edition_line;

/// A set gathered, with what each compiler takes of it.
pub(super) struct Prepared<'a> {
    pub files: Vec<SourceRef<'a>>,
    parsed: HashMap<String, Parsed>,
    failed_parse: HashSet<String>,
    diagnostics: Vec<Diagnostic>,
    /// The texts the compilers read (not those of files that did not parse on their own).
    texts: HashMap<&'a str, &'a str>,
    deps: HashMap<&'a str, Vec<String>>,
    needs_protoc: BTreeSet<String>,
    /// The judged files protoc compiles, by unit.
    pub targets: Vec<Target<'a>>,
}

/// What each compiler takes of a gathered set.
pub(super) fn prepare<'a>(gathered: Gathered<'a>) -> Prepared<'a> {
    let Gathered {
        files,
        parsed,
        failed_parse,
        diagnostics,
        fresh: _,
    } = gathered;
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
    let blob_of: HashMap<&str, &str> = files.iter().map(|f| (f.path, f.blob)).collect();
    // protoc, by unit, for the judged files protox cannot link.
    let target = |path: &'a str, blob: &str| {
        let mut t = Target::new(path, blob, &deps, &blob_of, &texts);
        if let Some(Parsed::Protoc(_, e)) = parsed.get(path) {
            t.protox_error = e.clone();
        }
        t.edition_line = texts.get(path).and_then(|t| edition_line(t)).unwrap_or(0);
        t
    };
    let mut targets: Vec<Target<'_>> = files
        .iter()
        .filter(|f| f.origin == Origin::Root && needs_protoc.contains(f.path))
        // A file that imports one that did not parse is left out (said by `unexplained`).
        .filter(|f| {
            !units::closure(f.path, |p| deps.get(p))
                .iter()
                .any(|p| failed_parse.contains(p))
        })
        .map(|f| target(f.path, f.blob))
        .collect();
    needs(&mut targets, &files, &needs_protoc, target);
    Prepared {
        files,
        parsed,
        failed_parse,
        diagnostics,
        texts,
        deps,
        needs_protoc,
        targets,
    }
}

/// Compiles a prepared set whose protoc units are in `units`; also returns each pool file's
/// fingerprint digest, and which files protox put in the pool (protoc the others).
pub(super) fn finish(
    prepared: Prepared<'_>,
    units: &HashMap<UnitKey, Unit>,
    memo: &Memo,
    stats: &mut CompileStats,
) -> (Compiled, persist::Extra) {
    let Prepared {
        files,
        mut parsed,
        failed_parse,
        mut diagnostics,
        texts,
        deps,
        needs_protoc,
        targets,
    } = prepared;
    // A test makes a set panic here: only that set fails.
    #[cfg(test)]
    if files.iter().any(|f| f.path == super::tests::PANICS) {
        panic!("a test asked for a panic");
    }
    let origin_of: HashMap<&str, Origin> = files.iter().map(|f| (f.path, f.origin)).collect();
    let blob_of: HashMap<&str, &str> = files.iter().map(|f| (f.path, f.blob)).collect();
    let (mut pool, link_errors, mut file_docs) = link_protox(
        &files,
        &mut parsed,
        &needs_protoc,
        &texts,
        &failed_parse,
        stats,
    );
    let by_protox: HashSet<String> = pool.files().map(|f| f.name().to_string()).collect();

    let started = Instant::now();
    let joined = units::join(&mut pool, units, &targets, &mut diagnostics);
    stats.protoc += started.elapsed();
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
        pool,
        &own,
        &joined.editions,
        &joined.local,
        &by_protox,
        memo,
        &mut diagnostics,
    );
    let schema = Arc::new(schema);
    stats.normalize += started.elapsed();

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

/// Fills in each target's [`Target::needs`]: the units of the files in its closure that
/// protoc compiles and that do not import it back. An import that is not itself a judged
/// target (one from outside the repository's roots) joins `targets` unjudged, so that what a
/// unit inherits never depends on which of its imports the version judges.
fn needs<'a>(
    targets: &mut Vec<Target<'a>>,
    files: &[SourceRef<'a>],
    needs_protoc: &BTreeSet<String>,
    target: impl Fn(&'a str, &str) -> Target<'a>,
) {
    let mut at: HashMap<String, usize> = targets
        .iter()
        .enumerate()
        .map(|(i, t)| (t.path.to_string(), i))
        .collect();
    // Not sorted: the embedded files a set's imports reach follow its own.
    let by_path: HashMap<&str, &SourceRef<'a>> = files.iter().map(|f| (f.path, f)).collect();
    let judged = targets.len();
    for i in 0..judged {
        for j in 0..targets[i].blobs.len() {
            let path = targets[i].blobs[j].0.as_str();
            if at.contains_key(path) || !needs_protoc.contains(path) {
                continue;
            }
            let Some(f) = by_path.get(path).copied() else {
                continue;
            };
            let mut t = target(f.path, f.blob);
            t.judged = false;
            at.insert(f.path.to_string(), targets.len());
            targets.push(t);
        }
    }
    for i in 0..targets.len() {
        let t = &targets[i];
        let needs: Vec<UnitKey> = t
            .blobs
            .iter()
            .filter(|(p, _)| *p != t.path)
            .filter_map(|(p, _)| at.get(p).map(|&j| &targets[j]))
            // A closure is sorted by path.
            .filter(|u| {
                u.blobs
                    .binary_search_by(|(p, _)| p.as_str().cmp(t.path))
                    .is_err()
            })
            .map(|u| u.key.clone())
            .collect();
        targets[i].needs = needs;
    }
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
