//! protox's side of a file set: the files it can link, opened one at a time, so that one
//! file's error leaves the rest.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use prost_reflect::DescriptorPool;
use protox::file::{File, FileResolver, GoogleFileResolver};

use super::super::diagnostic::Diagnostic;
use super::super::model::FileDocs;
use super::locate::{diagnostic, locate, root_hint};
use super::{Cache, Origin, Parsed, SourceRef};

impl Cache {
    /// protox links what needs no protoc, the judged files opened one at a time; returns the
    /// pool, the link errors, and the docs of the files it holds.
    pub(super) fn link_protox(
        &mut self,
        files: &[SourceRef<'_>],
        parsed: &HashMap<String, Parsed>,
        needs_protoc: &BTreeSet<String>,
        texts: &HashMap<&str, &str>,
        failed_parse: &HashSet<String>,
    ) -> (
        DescriptorPool,
        Vec<Diagnostic>,
        HashMap<String, Arc<FileDocs>>,
    ) {
        let started = Instant::now();
        let mut file_docs: HashMap<String, Arc<FileDocs>> = HashMap::new();
        let mut protox_files: HashMap<String, Arc<File>> = HashMap::new();
        for f in files {
            if let Some(Parsed::Protox(file, docs)) = parsed.get(f.path)
                && !needs_protoc.contains(f.path)
            {
                protox_files.insert(f.path.to_string(), file.clone());
                file_docs.insert(f.path.to_string(), docs.clone());
            }
        }
        let names: Vec<String> = files
            .iter()
            .filter(|f| f.origin == Origin::Root && protox_files.contains_key(f.path))
            .map(|f| f.path.to_string())
            .collect();
        self.stats.protox_files += names.len();
        let mut compiler = protox::Compiler::with_file_resolver(SetResolver {
            files: protox_files,
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
        self.stats.link += started.elapsed();
        (compiler.descriptor_pool(), link_errors, file_docs)
    }
}

/// Our files first, then protox's well-known types.
struct SetResolver {
    files: HashMap<String, Arc<File>>,
    google: GoogleFileResolver,
}

impl FileResolver for SetResolver {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        match self.files.get(name) {
            Some(f) => Ok(File::clone(f)),
            None => self.google.open_file(name),
        }
    }
}
