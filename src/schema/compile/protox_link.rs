//! protox's side of a file set: the files it can link, opened one at a time, so that one
//! file's error leaves the rest.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use prost_reflect::DescriptorPool;
use protox::file::{File, FileResolver, GoogleFileResolver};

use super::super::diagnostic::Diagnostic;
use super::super::model::FileDocs;
use super::locate::{diagnostic, locate, root_hint};
use super::{CompileStats, Origin, Parsed, SourceRef};

/// protox links what needs no protoc, the judged files opened one at a time; returns the
/// pool, the link errors, and the docs of the files it holds.
pub(super) fn link_protox(
    files: &[SourceRef<'_>],
    parsed: &mut HashMap<String, Parsed>,
    needs_protoc: &BTreeSet<String>,
    texts: &HashMap<&str, &str>,
    failed_parse: &HashSet<String>,
    stats: &mut CompileStats,
) -> (
    DescriptorPool,
    Vec<Diagnostic>,
    HashMap<String, Arc<FileDocs>>,
) {
    let started = Instant::now();
    let mut file_docs: HashMap<String, Arc<FileDocs>> = HashMap::new();
    let mut protox_files: HashMap<String, Slot> = HashMap::new();
    for f in files {
        if needs_protoc.contains(f.path) {
            continue;
        }
        // Moved out of the set's parses: the cache's copy, if any, is the other owner.
        if let Some(Parsed::Protox(file, docs)) = parsed.remove(f.path) {
            file_docs.insert(f.path.to_string(), docs);
            // Its text is kept only where the parse is given away.
            let text = (Arc::strong_count(&file) == 1)
                .then(|| texts.get(f.path).map(|t| t.to_string()))
                .flatten();
            protox_files.insert(f.path.to_string(), Slot::Parsed(file, text));
        }
    }
    let names: Vec<String> = files
        .iter()
        .filter(|f| f.origin == Origin::Root && protox_files.contains_key(f.path))
        .map(|f| f.path.to_string())
        .collect();
    stats.protox_files += names.len();
    let mut compiler = protox::Compiler::with_file_resolver(SetResolver {
        files: Mutex::new(protox_files),
        google: GoogleFileResolver::new(),
    });
    compiler.include_imports(true).include_source_info(true);
    // Link errors follow the errors of files that failed on their own (parse, protoc).
    let mut link_errors = Vec::new();
    for name in &names {
        if let Err(e) = compiler.open_file(name) {
            let mut d = diagnostic(&e, name, |file| texts.get(file).copied());
            if d.line == 0 {
                // Linked without source info: find the place the message names.
                let text = texts.get(d.file.as_str()).copied().unwrap_or("");
                let docs = file_docs.get(d.file.as_str()).map(Arc::as_ref);
                (d.line, d.column) = locate(&d.message, text, docs);
            }
            if let Some(hint) = root_hint(&d.message, texts.keys().copied()) {
                d.message.push_str(&hint);
            }
            if let Some(missing) = failed_parse
                .iter()
                .find(|p| d.message.contains(&format!("'{p}'")))
            {
                d.message
                    .push_str(&format!(" (`{missing}` did not compile, see above)"));
            }
            link_errors.push(d);
        }
    }
    stats.link += started.elapsed();
    (compiler.descriptor_pool(), link_errors, file_docs)
}

/// A file of the set for protox: its parse, shared with the cache or the only copy (then
/// with its text, to parse again should protox ask twice), or the text of one given away.
enum Slot {
    Parsed(Arc<File>, Option<String>),
    Given(Option<String>),
}

/// Our files first, then protox's well-known types.
struct SetResolver {
    files: Mutex<HashMap<String, Slot>>,
    google: GoogleFileResolver,
}

impl FileResolver for SetResolver {
    /// A parse no one else holds is moved into protox: a 10 MB file's parse is 185 MB, and
    /// a copy beside the pool protox builds from it was the top of its load. protox asks
    /// again only for a file that failed to join the pool (an importer retries it): that
    /// one is parsed again from its text, which gives the same descriptor.
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        let mut files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(slot) = files.get_mut(name) else {
            drop(files);
            return self.google.open_file(name);
        };
        match std::mem::replace(slot, Slot::Given(None)) {
            Slot::Parsed(file, Some(text)) if Arc::strong_count(&file) == 1 => {
                *slot = Slot::Given(Some(text));
                Ok(Arc::try_unwrap(file).unwrap_or_else(|shared| File::clone(&shared)))
            }
            Slot::Parsed(file, text) => {
                let out = File::clone(&file);
                *slot = Slot::Parsed(file, text);
                Ok(out)
            }
            Slot::Given(text) => {
                let again = protox_parse::parse(name, text.as_deref().unwrap_or_default());
                *slot = Slot::Given(text);
                let mut proto = again.map_err(protox::Error::from)?;
                proto.source_code_info = None;
                Ok(File::from_file_descriptor_proto(proto))
            }
        }
    }
}
