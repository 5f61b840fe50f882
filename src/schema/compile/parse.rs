//! Parsing: each distinct blob once, by protox's parser (or, for a file only protoc reads,
//! its imports), and a set's files gathered with their parses and the embedded third-party
//! protos their imports name. A parse depends on the blob alone, so blobs parse on any
//! thread in any order and give the same result.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use protox::file::File;

use super::super::diagnostic::Diagnostic;
use super::super::docs;
use super::super::thirdparty;
use super::locate::diagnostic;
use super::{CompileStats, Origin, Parsed, SourceRef, bounds};
use crate::proto_text::{edition_line, without_bom};

/// A blob's parse (or why it has none), by (import path, blob id).
pub(super) type ParseKey = (String, String);
pub(super) type ParsedMap = HashMap<ParseKey, Result<Parsed, Diagnostic>>;

pub(super) fn key_of(f: &SourceRef<'_>) -> ParseKey {
    (f.path.to_string(), f.blob.to_string())
}

/// The files of a set as the compilers read them: a byte order mark dropped (protox refuses
/// it; it is invisible, so lines and columns do not move), sorted by path, the first of one
/// path.
pub(super) fn readable<'a>(given: &[SourceRef<'a>]) -> Vec<SourceRef<'a>> {
    let mut files: Vec<SourceRef<'a>> = given
        .iter()
        .map(|f| SourceRef {
            text: f.text.map(without_bom),
            ..*f
        })
        .collect();
    files.sort_by_key(|f| f.path);
    files.dedup_by_key(|f| f.path);
    files
}

/// Parses one blob; `stats` counts it.
pub(super) fn parse(f: &SourceRef<'_>, stats: &mut CompileStats) -> Result<Parsed, Diagnostic> {
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
                // Link without source info: the docs take it, once per blob. The parse
                // is owned, so nothing of it is copied (a copy of a 10 MB file's source
                // info was a tenth of its load's time).
                let source = docs::source(docs::ReadBy::Protox, f.path, f.blob);
                let docs = Arc::new(docs::of_file(&mut proto, source));
                Parsed::Protox(Arc::new(File::from_file_descriptor_proto(proto)), docs)
            })
            .unwrap_or_else(|e| {
                Parsed::Protoc(
                    Arc::new(crate::proto_text::scan(text)),
                    Some(diagnostic(&e.into(), f.path, |_| Some(text))),
                )
            })),
    };
    stats.parse += started.elapsed();
    stats.blobs_parsed += 1;
    result
}

/// A file set, parsed: the files (with the embedded ones its imports reach), each file's
/// parse, and what each imports.
pub(super) struct Gathered<'a> {
    pub files: Vec<SourceRef<'a>>,
    pub parsed: HashMap<String, Parsed>,
    pub failed_parse: HashSet<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// Blobs parsed here, not found in `held` (embedded protos met for the first time).
    pub fresh: Vec<(ParseKey, Result<Parsed, Diagnostic>)>,
}

/// Takes each file's parse from `held` (parsing what it lacks), and adds the embedded
/// third-party protos that imports found nowhere in the set name (and what they import).
pub(super) fn gather<'a>(
    held: &ParsedMap,
    given: &[SourceRef<'a>],
    stats: &mut CompileStats,
) -> Gathered<'a> {
    let mut files = readable(given);
    let mut fresh = Vec::new();
    let mut parse_one = |f: &SourceRef<'_>| match held.get(&key_of(f)) {
        Some(done) => done.clone(),
        None => {
            let p = parse(f, stats);
            fresh.push((key_of(f), p.clone()));
            p
        }
    };
    let mut parsed: HashMap<String, Parsed> = HashMap::new();
    let mut failed_parse: HashSet<String> = HashSet::new();
    let mut parse_errors: Vec<Diagnostic> = Vec::new();
    for f in &files {
        match parse_one(f) {
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
        if let Ok(p) = parse_one(&f) {
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
        fresh,
    }
}
