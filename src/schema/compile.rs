//! Compiling the `.proto` text of a version with `protox`, sharing work across versions.
//!
//! Each distinct blob is parsed once (keyed by import path and blob id), and each distinct
//! file set is linked and normalized once (keyed by its sorted list of (path, blob id)).
//! Files are linked one at a time into one pool: a file that fails (a syntax error, a
//! missing import, a symbol defined twice, an `edition` file) is reported with its reason
//! and the rest of the version still loads.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use miette::Diagnostic as _;
use protox::file::{File, FileResolver, GoogleFileResolver};
use serde::Serialize;

use super::docs::{self, FileDocs};
use super::fingerprint::Memo;
use super::model::Schema;
use super::normalize::normalize;

/// One input file: import path, blob id (equal ids mean equal text) and text.
#[derive(Debug, Clone, Copy)]
pub struct SourceRef<'a> {
    pub path: &'a str,
    pub blob: &'a str,
    pub text: Result<&'a str, &'a str>,
}

/// A problem in one file, 1-based line and column (0 when unknown).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.file.is_empty(), self.line) {
            (true, _) => write!(f, "{}", self.message),
            (false, 0) => write!(f, "{}: {}", self.file, self.message),
            (false, _) => write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            ),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every file compiled.
    Complete,
    /// Some files compiled; the others have diagnostics.
    Partial,
    /// Nothing compiled.
    Failed,
}

/// The result of compiling one file set.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub status: Status,
    /// The model of what compiled (empty when nothing did).
    pub schema: Arc<Schema>,
    pub diagnostics: Vec<Diagnostic>,
    pub files_total: usize,
    pub files_ok: usize,
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
}

/// A parsed blob and the docs of its declarations.
type Parsed = (Arc<File>, Arc<FileDocs>);

/// The shared compiler: keep one for a whole history.
#[derive(Default)]
pub struct Cache {
    parsed: HashMap<(String, String), Result<Parsed, Diagnostic>>,
    sets: HashMap<Vec<(String, String)>, Arc<Compiled>>,
    fingerprints: Memo,
    pub stats: CompileStats,
}

impl Cache {
    pub fn new() -> Self {
        Self::default()
    }

    /// Compiles a file set, or returns the result of an equal set compiled before.
    pub fn compile(&mut self, files: &[SourceRef<'_>]) -> Arc<Compiled> {
        let mut key: Vec<(String, String)> = files
            .iter()
            .map(|f| (f.path.to_string(), f.blob.to_string()))
            .collect();
        key.sort();
        if let Some(done) = self.sets.get(&key) {
            self.stats.sets_reused += 1;
            return done.clone();
        }
        let compiled = Arc::new(self.compile_new(files));
        self.stats.sets_compiled += 1;
        self.sets.insert(key, compiled.clone());
        compiled
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
            Ok(text) => match edition_line(text) {
                Some(line) => Err(Diagnostic {
                    file: f.path.to_string(),
                    line,
                    column: 1,
                    message: "editions are not supported yet: this file uses `edition`, and \
                              the protox parser reads proto2 and proto3 only; it is left out"
                        .to_string(),
                }),
                None => File::from_source(f.path, text)
                    .map(|file| {
                        let docs = Arc::new(docs::of_file(file.file_descriptor_proto()));
                        // Link without source info: docs are taken above, once per blob.
                        let mut proto = file.file_descriptor_proto().clone();
                        proto.source_code_info = None;
                        (Arc::new(File::from_file_descriptor_proto(proto)), docs)
                    })
                    .map_err(|e| diagnostic(&e, f.path, |_| Some(text))),
            },
        };
        self.stats.parse += started.elapsed();
        self.stats.blobs_parsed += 1;
        self.parsed.insert(key, result.clone());
        result
    }

    fn compile_new(&mut self, files: &[SourceRef<'_>]) -> Compiled {
        let mut diagnostics = Vec::new();
        let mut parsed = HashMap::new();
        let mut file_docs = HashMap::new();
        let mut sorted: Vec<&SourceRef<'_>> = files.iter().collect();
        sorted.sort_by_key(|f| f.path);
        for f in &sorted {
            match self.parse(f) {
                Ok((file, docs)) => {
                    parsed.insert(f.path.to_string(), file);
                    file_docs.insert(f.path.to_string(), (f.blob.to_string(), docs));
                }
                Err(d) => diagnostics.push(d),
            }
        }
        let texts: HashMap<&str, &str> = files
            .iter()
            .filter_map(|f| f.text.ok().map(|t| (f.path, t)))
            .collect();

        let started = Instant::now();
        let names: Vec<String> = sorted
            .iter()
            .map(|f| f.path.to_string())
            .filter(|p| parsed.contains_key(p))
            .collect();
        let failed_parse: HashSet<String> = sorted
            .iter()
            .map(|f| f.path.to_string())
            .filter(|p| !parsed.contains_key(p))
            .collect();
        let mut compiler = protox::Compiler::with_file_resolver(SetResolver {
            files: parsed,
            google: GoogleFileResolver::new(),
        });
        compiler.include_imports(true).include_source_info(true);
        let mut ok = HashSet::new();
        for name in &names {
            match compiler.open_file(name) {
                Ok(_) => {
                    ok.insert(name.clone());
                }
                Err(e) => {
                    let mut d = diagnostic(&e, name, |file| texts.get(file).copied());
                    if d.line == 0 {
                        // Linked without source info: find the place the message names.
                        let text = texts.get(d.file.as_str()).copied().unwrap_or("");
                        let docs = file_docs
                            .get(d.file.as_str())
                            .map(|(_, docs)| docs.as_ref());
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
                    diagnostics.push(d);
                }
            }
        }
        let pool = compiler.descriptor_pool();
        self.stats.link += started.elapsed();

        let started = Instant::now();
        // Files of the repository that ended up in the pool (as imports or opened).
        let own: HashMap<String, (String, Arc<FileDocs>)> = pool
            .files()
            .filter_map(|f| file_docs.remove_entry(f.name()))
            .collect();
        let files_ok = own.len();
        let schema = Arc::new(normalize(
            &pool,
            &own,
            &mut self.fingerprints,
            &mut diagnostics,
        ));
        self.stats.normalize += started.elapsed();

        let files_total = files.len();
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
        Compiled {
            status,
            schema,
            diagnostics,
            files_total,
            files_ok,
        }
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

/// The 1-based line of a top-level `edition = "...";` statement, if any.
fn edition_line(text: &str) -> Option<u32> {
    text.lines().enumerate().find_map(|(i, line)| {
        let rest = line.trim_start().strip_prefix("edition")?;
        rest.trim_start()
            .starts_with('=')
            .then(|| u32::try_from(i + 1).unwrap_or(u32::MAX))
    })
}

/// A protox error as a diagnostic: file, line and column from its first label.
fn diagnostic<'t>(
    e: &protox::Error,
    fallback_file: &str,
    text_of: impl Fn(&str) -> Option<&'t str>,
) -> Diagnostic {
    let file = e.file().unwrap_or(fallback_file).to_string();
    let offset = e
        .labels()
        .and_then(|mut labels| labels.next())
        .map(|l| l.offset());
    let (line, column) = match (offset, text_of(&file)) {
        (Some(offset), Some(text)) => line_col(text, offset),
        _ => (0, 0),
    };
    let mut message = e.to_string();
    if let Some(help) = e.help() {
        message.push_str(&format!(" (help: {help})"));
    }
    Diagnostic {
        file,
        line,
        column,
        message,
    }
}

/// For an import that is not found but exists deeper in the tree (`import "a/b.proto"` with
/// `src/a/b.proto` present), the proto root the user probably meant.
fn root_hint<'a>(message: &str, paths: impl Iterator<Item = &'a str>) -> Option<String> {
    let rest = message.strip_prefix("import '")?;
    let missing = &rest[..rest.find('\'')?];
    let suffix = format!("/{missing}");
    let found = paths.filter(|p| p.ends_with(&suffix)).min()?;
    let prefix = &found[..found.len() - suffix.len()];
    Some(format!(
        " (help: `{found}` exists; if `{prefix}` is a proto root, pass -I {prefix} or set proto_paths)"
    ))
}

/// Where a link error is, from the names it quotes: a declaration of this file with that
/// name, else the quoted text (an import), else the first use of the short name.
fn locate(message: &str, text: &str, docs: Option<&FileDocs>) -> (u32, u32) {
    let quoted: Vec<&str> = message.split('\'').skip(1).step_by(2).collect();
    for name in &quoted {
        if let Some(doc) = docs.and_then(|d| d.get(*name)) {
            return (doc.line, 1);
        }
        if let Some(offset) = text.find(&format!("\"{name}\"")) {
            return line_col(text, offset);
        }
    }
    for name in &quoted {
        let short = name.rsplit('.').next().unwrap_or(name);
        if short.is_empty() {
            continue;
        }
        let mut from = 0;
        while let Some(i) = text[from..].find(short) {
            let at = from + i;
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !word(text[..at].chars().next_back())
                && !word(text[at + short.len()..].chars().next())
            {
                return line_col(text, at);
            }
            from = at + short.len();
        }
    }
    (0, 0)
}

fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src<'a>(path: &'a str, blob: &'a str, text: &'a str) -> SourceRef<'a> {
        SourceRef {
            path,
            blob,
            text: Ok(text),
        }
    }

    #[test]
    fn a_broken_file_leaves_the_rest() {
        let mut cache = Cache::new();
        let out = cache.compile(&[
            src(
                "a.proto",
                "1",
                "syntax = \"proto3\";\nmessage A { int32 x = 1; }\n",
            ),
            src(
                "b.proto",
                "2",
                "syntax = \"proto3\";\nmessage B {\n  int32 y = ;\n}\n",
            ),
        ]);
        assert_eq!(out.status, Status::Partial);
        assert_eq!((out.files_ok, out.files_total), (1, 2));
        assert!(out.schema.content.messages.contains_key("A"));
        let d = &out.diagnostics[0];
        assert_eq!((d.file.as_str(), d.line), ("b.proto", 3));
        assert!(d.column > 1, "{d:?}");
    }

    #[test]
    fn sets_and_blobs_are_compiled_once() {
        let mut cache = Cache::new();
        let a = src("a.proto", "1", "syntax = \"proto3\";\nmessage A {}\n");
        let b = src("b.proto", "2", "syntax = \"proto3\";\nmessage B {}\n");
        cache.compile(&[a, b]);
        cache.compile(&[b, a]);
        cache.compile(&[a]);
        assert_eq!(cache.stats.sets_compiled, 2);
        assert_eq!(cache.stats.sets_reused, 1);
        assert_eq!(cache.stats.blobs_parsed, 2);
    }

    #[test]
    fn editions_are_reported_clearly() {
        let mut cache = Cache::new();
        let out = cache.compile(&[src("e.proto", "1", "// c\nedition = \"2023\";\n")]);
        assert_eq!(out.status, Status::Failed);
        assert_eq!(out.diagnostics[0].line, 2);
        assert!(
            out.diagnostics[0]
                .message
                .contains("editions are not supported")
        );
    }

    #[test]
    fn link_errors_are_located() {
        let mut cache = Cache::new();
        let out = cache.compile(&[
            src(
                "a.proto",
                "1",
                "syntax = \"proto3\";\npackage p;\nmessage A {}\n",
            ),
            src(
                "b.proto",
                "2",
                "syntax = \"proto3\";\npackage p;\n\nmessage A {}\n",
            ),
            src(
                "c.proto",
                "3",
                "syntax = \"proto3\";\npackage q;\nmessage C {\n  Missing m = 1;\n}\n",
            ),
            src(
                "d.proto",
                "4",
                "syntax = \"proto3\";\n\nimport \"nope.proto\";\n",
            ),
        ]);
        let at = |f: &str| {
            let d = out.diagnostics.iter().find(|d| d.file == f).unwrap();
            (d.line, d.column)
        };
        assert_eq!(at("b.proto"), (4, 1), "{:?}", out.diagnostics);
        assert_eq!(at("c.proto"), (4, 3), "{:?}", out.diagnostics);
        assert_eq!(at("d.proto"), (3, 8), "{:?}", out.diagnostics);
        let hint = root_hint(
            "import 'g/x.proto' not found",
            ["src/g/x.proto", "a.proto"].into_iter(),
        );
        assert_eq!(
            hint.as_deref(),
            Some(
                " (help: `src/g/x.proto` exists; if `src` is a proto root, pass -I src or set proto_paths)"
            )
        );
    }

    #[test]
    fn duplicate_symbols_keep_the_first_file() {
        let mut cache = Cache::new();
        let out = cache.compile(&[
            src("a.proto", "1", "syntax = \"proto3\";\nmessage Dup {}\n"),
            src(
                "b_test.proto",
                "2",
                "syntax = \"proto3\";\nmessage Dup {}\n",
            ),
        ]);
        assert_eq!(out.status, Status::Partial);
        assert_eq!(out.diagnostics[0].file, "b_test.proto");
        assert!(
            out.diagnostics[0].message.contains("Dup"),
            "{:?}",
            out.diagnostics
        );
    }
}
