//! A version's file set, completed the way the owners' build (buf, `protoc -I`) resolves
//! imports: files under the proto roots, then imports found nowhere in the roots looked up
//! in the whole tree by path suffix, then one file kept where the same file is reachable
//! under two import paths. Knows no git: the tree is a [`TreeFiles`].

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use super::duplicates::{drop_duplicates, merge_origins};
use super::{Origin, ReadProblem, SourceFile};
use crate::proto_text::scan as scan_imports;

/// At most this many notes per version; the rest are counted in a last line.
const MAX_NOTES: usize = 50;
/// At most this many files are added from the tree per version.
const MAX_TREE_FILES: usize = 10_000;
/// Folder names that hold other projects' protos by convention.
const VENDOR_DIRS: &[&str] = &[
    "vendor",
    "vendored",
    "third_party",
    "third-party",
    "thirdparty",
    "external",
    "common-protos",
];

/// The vendor folder a repository path lies under (`a/third_party` for
/// `a/third_party/google/api/http.proto`), if any.
pub(super) fn vendor_dir(repo_path: &str) -> Option<&str> {
    let mut end = 0;
    for part in repo_path.split('/') {
        end += part.len();
        if VENDOR_DIRS.contains(&part) && end < repo_path.len() {
            return Some(&repo_path[..end]);
        }
        end += 1;
    }
    None
}

/// At most this many same-named candidates are read to see whether they are copies.
const MAX_COPIES_READ: usize = 16;

/// protobuf's well-known files, which the compilers supply.
const WELL_KNOWN: &[&str] = &[
    "google/protobuf/any.proto",
    "google/protobuf/api.proto",
    "google/protobuf/compiler/plugin.proto",
    "google/protobuf/descriptor.proto",
    "google/protobuf/duration.proto",
    "google/protobuf/empty.proto",
    "google/protobuf/field_mask.proto",
    "google/protobuf/source_context.proto",
    "google/protobuf/struct.proto",
    "google/protobuf/timestamp.proto",
    "google/protobuf/type.proto",
    "google/protobuf/wrappers.proto",
    // What protoc's include folder adds: editions' language features.
    "google/protobuf/cpp_features.proto",
    "google/protobuf/go_features.proto",
    "google/protobuf/java_features.proto",
];

/// The whole tree of a version (a commit's, or the work tree), for import lookups.
pub(super) trait TreeFiles {
    /// Repository paths of every `.proto` file named `name` in the tree (links not followed).
    fn named(&mut self, name: &str) -> Vec<String>;
    /// The blob id and text of the file at `repo_path`, one of those [`TreeFiles::named`] gave.
    fn read(&mut self, repo_path: &str) -> Option<(String, Result<Arc<str>, String>)>;
    /// The imports of a file's text (blob `blob`); a reader shared by many versions caches
    /// them by blob.
    fn imports(&mut self, _blob: &str, text: &str) -> Arc<Vec<String>> {
        Arc::new(scan_imports(text))
    }
    /// The file at import path `import` under one of the version's proto roots, when only
    /// part of them was listed (`--path`).
    fn in_roots(&mut self, _import: &str) -> Option<Found> {
        None
    }
}

/// A file found under a proto root by import path: (repository path, blob id, text, its
/// origin as a listing of the root gives it).
pub(super) type Found = (String, String, Result<Arc<str>, String>, Origin);

/// A version's file set while it is assembled. The first file at an import path wins (the
/// order of the proto roots, like `protoc -I`).
#[derive(Default)]
pub(super) struct FileSet {
    files: Vec<SourceFile>,
    taken: HashSet<String>,
    notes: Vec<String>,
    problems: Vec<ReadProblem>,
    /// Folder links followed so far (a budget shared by all roots).
    pub folder_links: usize,
}

impl FileSet {
    /// Whether a file at import path `path` would be added (no file has that path yet).
    pub fn wants(&self, path: &str) -> bool {
        !self.taken.contains(path)
    }

    pub fn push(&mut self, file: SourceFile) {
        if self.taken.insert(file.path.clone()) {
            self.files.push(file);
        }
    }

    /// Records a line for [`super::Version::resolution`] (made plain here).
    pub fn note(&mut self, line: &str) {
        self.notes.push(plain(line));
    }

    /// Records a problem for [`super::Version::problems`] (its message made plain here).
    pub fn problem(&mut self, mut problem: ReadProblem) {
        problem.message = plain(&problem.message);
        if !self.problems.contains(&problem) {
            self.problems.push(problem);
        }
    }

    /// Completes the set from `tree` (imports found in no root), keeps one file per
    /// duplicate, sorts; returns the files, the notes and the problems.
    pub fn finish(
        mut self,
        tree: &mut impl TreeFiles,
    ) -> (Vec<SourceFile>, Vec<String>, Vec<ReadProblem>) {
        if self.problems.iter().any(|p| p.fatal) {
            // The file set is unknown: nothing is compiled from a guess.
            self.files.clear();
            return (Vec::new(), capped(self.notes), self.problems);
        }
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        let imports = self.add_from_tree(tree);
        self.vendored();
        self.drop_duplicates(&imports);
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        let excluded = self
            .files
            .iter()
            .filter(|f| f.origin == Origin::Excluded)
            .count();
        if excluded > 0 {
            self.notes.push(format!(
                "{excluded} file{} excluded by buf.yaml {} compiled for {} importers only",
                plural(excluded),
                if excluded == 1 { "is" } else { "are" },
                if excluded == 1 { "its" } else { "their" },
            ));
        }
        self.problems.truncate(MAX_NOTES);
        (self.files, capped(self.notes), self.problems)
    }

    /// Looks up, in the whole tree, the imports that no file of the set has, and those of the
    /// files added, until none is left. Returns every file's imports (by its path).
    fn add_from_tree(&mut self, tree: &mut impl TreeFiles) -> HashMap<String, Vec<String>> {
        let mut imports: HashMap<String, Vec<String>> = HashMap::new();
        let mut asked = HashSet::new();
        // import path -> where it was found, for the notes.
        let mut found: Vec<(String, String)> = Vec::new();
        let mut from_roots = 0;
        let mut queue: VecDeque<usize> = (0..self.files.len()).collect();
        while let Some(i) = queue.pop_front() {
            let list = match &self.files[i].text {
                Ok(text) => tree.imports(&self.files[i].blob, text).as_ref().clone(),
                Err(_) => Vec::new(),
            };
            let importer = self.files[i].path.clone();
            for import in &list {
                if self.taken.contains(import)
                    || WELL_KNOWN.contains(&import.as_str())
                    || !plausible(import)
                    || !asked.insert(import.clone())
                    || found.len() + from_roots >= MAX_TREE_FILES
                {
                    continue;
                }
                if let Some((repo_path, blob, text, origin)) = tree.in_roots(import) {
                    // Under a proto root, outside `--path`: judged with its importers (see
                    // `scope::retain_closure`), unless buf.yaml excludes it.
                    from_roots += 1;
                    self.taken.insert(import.clone());
                    self.files.push(SourceFile {
                        path: import.clone(),
                        repo_path,
                        blob,
                        text,
                        origin,
                    });
                    queue.push_back(self.files.len() - 1);
                    continue;
                }
                let name = import.rsplit('/').next().unwrap_or(import);
                let suffix = format!("/{import}");
                let mut hits: Vec<String> = tree
                    .named(name)
                    .into_iter()
                    .filter(|p| p == import || p.ends_with(&suffix))
                    .collect();
                hits.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
                let Some(first) = hits.first().cloned() else {
                    continue;
                };
                let strictly_shortest = hits.get(1).is_none_or(|second| second.len() > first.len());
                if hits.len() > 1 && !copies(tree, &hits) {
                    if !strictly_shortest {
                        self.note(&format!(
                            "import `{import}` (from {importer}) matches {} files in the tree: {}; add -I for the one you mean",
                            hits.len(),
                            shown(&hits, 5),
                        ));
                        continue;
                    }
                    // Like protoc with the nearest include folder: the shortest match.
                    self.note(&format!(
                        "import `{import}` (from {importer}) matches {} different files in the tree: {}; using {first}, the shortest (add -I to choose another)",
                        hits.len(),
                        shown(&hits, 5),
                    ));
                }
                let Some((blob, text)) = tree.read(&first) else {
                    continue;
                };
                if hits.len() > 1 && copies(tree, &hits) {
                    self.note(&format!(
                        "import `{import}` (from {importer}) matches {} copies of one file in the tree: {}; using {first}",
                        hits.len(),
                        shown(&hits, 5),
                    ));
                }
                found.push((import.clone(), first.clone()));
                self.taken.insert(import.clone());
                self.files.push(SourceFile {
                    path: import.clone(),
                    repo_path: first,
                    blob,
                    text,
                    origin: Origin::Tree,
                });
                queue.push_back(self.files.len() - 1);
            }
            imports.insert(importer, list);
        }
        self.note_found(found);
        imports
    }

    /// Files whose import path goes through a vendor folder (`vendor/`, `third_party/`,
    /// `common-protos/`, ...: the proto root is above it) are copies of other projects' protos,
    /// kept for a build that reaches them through another include folder (`-I common-protos`):
    /// compiled for their importers only and never judged, so that a vendored dependency is
    /// not reviewed as the API, and its copies merge with the paths importers use instead of
    /// colliding ("already defined"). A proto root inside the vendor folder (`-I
    /// third_party/foo`) leaves the vendor folder out of the import paths: those files are
    /// judged.
    fn vendored(&mut self) {
        let mut dirs: BTreeMap<String, usize> = BTreeMap::new();
        let mut copies = Vec::new();
        for f in &mut self.files {
            if f.origin != Origin::Root {
                continue;
            }
            // A copy of a well-known file kept under another path
            // (`x/github.com/gogo/protobuf/protobuf/google/protobuf/any.proto`) would define
            // `google.protobuf.Any` a second time.
            if WELL_KNOWN
                .iter()
                .any(|w| f.path.strip_suffix(w).is_some_and(|p| p.ends_with('/')))
            {
                f.origin = Origin::Tree;
                copies.push(f.path.clone());
                continue;
            }
            let Some(dir) = vendor_dir(&f.path) else {
                continue;
            };
            f.origin = Origin::Tree;
            let shown = f
                .repo_path
                .strip_suffix(f.path.as_str())
                .unwrap_or("")
                .to_string()
                + dir;
            *dirs.entry(shown).or_default() += 1;
        }
        if !copies.is_empty() {
            self.note(&format!(
                "{} cop{} of well-known files under other paths ({}) {} compiled only for files that import them by that path, not judged",
                copies.len(),
                if copies.len() == 1 { "y" } else { "ies" },
                shown(&copies, 3),
                if copies.len() == 1 { "is" } else { "are" },
            ));
        }
        for (dir, n) in dirs {
            self.note(&format!(
                "{n} file{} under the vendor folder {dir}/ {} compiled for {} importers only, not judged (set proto_paths to judge them)",
                plural(n),
                if n == 1 { "is" } else { "are" },
                if n == 1 { "its" } else { "their" },
            ));
        }
    }

    /// One note per folder the imports were found under (the `-I` that would have found them).
    fn note_found(&mut self, found: Vec<(String, String)>) {
        let mut by_dir: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for (import, repo_path) in found {
            let dir = repo_path
                .strip_suffix(import.as_str())
                .map(|d| d.trim_end_matches('/'))
                .filter(|d| !d.is_empty())
                .unwrap_or(".")
                .to_string();
            by_dir.entry(dir).or_default().push((import, repo_path));
        }
        for (dir, mut list) in by_dir {
            list.sort();
            if let [(import, repo_path)] = list.as_slice() {
                self.note(&format!("{import}: found in the tree at {repo_path}"));
            } else {
                let imports: Vec<String> = list.into_iter().map(|(i, _)| i).collect();
                self.note(&format!(
                    "{} imports found in the tree under {dir}/ (as with -I {dir}): {}",
                    imports.len(),
                    shown(&imports, 5),
                ));
            }
        }
    }

    /// The duplicate rule; see [`drop_duplicates`].
    fn drop_duplicates(&mut self, imports: &HashMap<String, Vec<String>>) {
        let (keep, dropped) = drop_duplicates(&self.files, imports);
        let mut by_prefix: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for d in &dropped {
            if d.dropped.len() < d.kept.len() {
                self.notes.push(plain(&format!(
                    "{} is the same file as {}, which importers use; compiled once, as {}",
                    d.dropped, d.kept, d.kept
                )));
            } else if d.both_imported {
                self.notes.push(plain(&format!(
                    "{} and {} are the same file and both are imported; compiled once, as {} (an import of {} does not resolve)",
                    d.dropped, d.kept, d.kept, d.dropped
                )));
            } else if let Some(prefix) = d
                .dropped
                .strip_suffix(d.kept.as_str())
                .filter(|p| p.ends_with('/'))
            {
                by_prefix
                    .entry(prefix.to_string())
                    .or_default()
                    .push(d.kept.clone());
            } else {
                self.notes.push(plain(&format!(
                    "{} is the same file as {}; compiled once, as {}",
                    d.dropped, d.kept, d.kept
                )));
            }
        }
        for (prefix, kept) in by_prefix {
            if let [one] = kept.as_slice() {
                self.note(&format!(
                    "{prefix}{one} is the same file as {one}; compiled once, as {one}"
                ));
            } else {
                self.note(&format!(
                    "{} files under {prefix} are the same files as their paths without it ({}); compiled once each, at the shorter path",
                    kept.len(),
                    shown(&kept, 3)
                ));
            }
        }
        merge_origins(&mut self.files, &keep, &dropped);
        let mut keep = keep.into_iter();
        self.files.retain(|_| keep.next().unwrap_or(true));
    }
}

/// Whether the files at `paths` all have one content (copies of one file).
fn copies(tree: &mut impl TreeFiles, paths: &[String]) -> bool {
    if paths.len() > MAX_COPIES_READ {
        return false;
    }
    let mut blobs = paths.iter().map(|p| tree.read(p).map(|(blob, _)| blob));
    let Some(Some(first)) = blobs.next() else {
        return false;
    };
    blobs.all(|b| b.as_deref() == Some(first.as_str()))
}

/// An import path that can name a file of the tree: relative, no `.` or `..` folders.
fn plausible(path: &str) -> bool {
    path.ends_with(".proto")
        && !path.contains('\\')
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

/// Text from the repository made plain for a note: control characters become `?`.
pub(super) fn plain(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// A path or link target from the repository, plain and at most 200 characters.
pub(super) fn shown_path(text: &str) -> String {
    let mut out = plain(text);
    if out.chars().count() > 200 {
        out = out.chars().take(200).collect::<String>() + "...";
    }
    out
}

fn shown(items: &[String], max: usize) -> String {
    let mut out = items
        .iter()
        .take(max)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        out.push_str(&format!(", ... ({} more)", items.len() - max));
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Sorted, without repeats, at most [`MAX_NOTES`] lines and a count of the rest.
fn capped(mut notes: Vec<String>) -> Vec<String> {
    notes.sort();
    notes.dedup();
    if notes.len() > MAX_NOTES {
        let more = notes.len() - MAX_NOTES;
        notes.truncate(MAX_NOTES);
        notes.push(format!("... and {more} more"));
    }
    notes
}

/// Joins a folder and a path below it; `.` and `` are the top.
pub(super) fn join(dir: &str, path: &str) -> String {
    match (dir, path) {
        ("." | "", p) => p.to_string(),
        (d, "") => d.to_string(),
        (d, p) => format!("{d}/{p}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_are_sorted_and_capped() {
        let notes: Vec<String> = (0..60).rev().map(|i| format!("n{i:02}")).collect();
        let out = capped(notes);
        assert_eq!(out.len(), MAX_NOTES + 1);
        assert_eq!(out[0], "n00");
        assert_eq!(out[MAX_NOTES], "... and 10 more");
        assert_eq!(plain("a\u{1b}[31mb\n"), "a?[31mb?");
    }
}
