//! History loading on hand-built repositories, one concept a module: which versions and in
//! what order, what reading and compiling them shares, each version's file set (proto roots,
//! buf.yaml, imports found elsewhere), committed links, and compiling as the owners build.
//! The helpers the parts share live here.

mod commits;
mod links;
mod owners_build;
mod roots;
mod shared_work;
mod versions;

use crate::common::Repo;
use protolapse::history::{self, HistoryOptions, Origin, Version, VersionKind};
use protolapse::load;

const A1: &str = "// First.\nmessage A {\n  int32 x = 1;\n}";
const A2: &str = "// First.\nmessage A {\n  int32 x = 1;\n  string y = 2;\n}";

fn opts() -> HistoryOptions {
    HistoryOptions {
        worktree: true,
        ..Default::default()
    }
}

/// (import path, repository path, origin) of each file of a version.
fn files(v: &Version) -> Vec<(&str, &str, Origin)> {
    v.files
        .iter()
        .map(|f| (f.path.as_str(), f.repo_path.as_str(), f.origin))
        .collect()
}

fn names(h: &load::Project) -> Vec<String> {
    h.versions.iter().map(|v| v.version.name.clone()).collect()
}

const HTTP: &str =
    "syntax = \"proto3\";\npackage google.api;\nmessage HttpRule { string get = 1; }\n";

fn importer(package: &str, imports: &[&str]) -> String {
    let lines: String = imports
        .iter()
        .map(|i| format!("import \"{i}\";\n"))
        .collect();
    format!("syntax = \"proto3\";\npackage {package};\n{lines}message M {{}}\n")
}

/// The tagged version and the work tree read as a version: the same files, read two ways.
fn tag_and_worktree(r: &Repo, o: HistoryOptions) -> (Version, Version) {
    let o = HistoryOptions {
        worktree: true,
        worktree_always: true,
        ..o
    };
    let h = history::load(r.path(), &o).unwrap();
    assert_eq!(h.versions.len(), 2, "{:?}", h.versions);
    let mut it = h.versions.into_iter();
    let (tag, wt) = (it.next().unwrap(), it.next().unwrap());
    assert_eq!(wt.kind, VersionKind::Worktree);
    (tag, wt)
}

/// A file as compared between versions: path, repo path, blob, origin, text.
type FileKey = (String, String, String, Origin, Result<String, String>);

fn same_files(a: &Version, b: &Version) {
    let key = |v: &Version| -> Vec<FileKey> {
        v.files
            .iter()
            .map(|f| {
                let text = f.text.clone().map(|t| t.to_string());
                (
                    f.path.clone(),
                    f.repo_path.clone(),
                    f.blob.clone(),
                    f.origin,
                    text,
                )
            })
            .collect()
    };
    assert_eq!(key(a), key(b), "{} and {} differ", a.name, b.name);
}

fn has_note(v: &Version, part: &str) {
    assert!(
        v.resolution.iter().any(|n| n.contains(part)),
        "no note with {part:?} in {:#?}",
        v.resolution
    );
}
