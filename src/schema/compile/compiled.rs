//! What compiling a file set takes and gives: its files ([`SourceRef`]) and its result
//! ([`Compiled`]: status, model, diagnostics, counts, how it was compiled).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::super::diagnostic::Diagnostic;
use super::super::model::{Origin, Schema};

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

impl Compiled {
    /// A set whose compile panicked (a bug in the compilers or in our normalization, on
    /// input nothing bounded yet): failed with a diagnostic that says so, and only that set
    /// — never the whole history.
    pub(super) fn internal_error(why: &str, files: &[SourceRef<'_>]) -> Compiled {
        Compiled::failed(
            format!(
                "internal error while compiling this version ({}): not judged; please report it",
                crate::sanitize::line(why)
            ),
            files.iter().filter(|f| f.origin == Origin::Root).count(),
        )
    }
}
