//! `--path`: which files of a version are in scope — those under one of the given folders
//! (a repository path, or an import path below a proto root) — and what they import,
//! transitively, which is compiled and judged with them (an imported file outside the
//! folders changes what they mean: a field of a type it declares is a field of theirs). The one place that says what a path covers: the commit walk
//! (`commits`), a commit's file set (`git`) and the working tree's all ask it.

use std::collections::{HashMap, HashSet, VecDeque};

use super::SourceFile;

/// The folders given, normalized: no `./`, no trailing `/`; `.` (the whole tree) is ``.
pub(super) fn normalize(paths: &[String]) -> Vec<String> {
    let mut out: Vec<String> = paths
        .iter()
        .map(|p| {
            p.split('/')
                .filter(|c| !c.is_empty() && *c != ".")
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether `path` is `dir` or below it (`` holds everything).
pub(super) fn under(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || path == dir
        || (path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/')
}

/// Whether a file at import path `import` (content at `repo_path`) is under one of `paths`.
pub(super) fn covers(paths: &[String], import: &str, repo_path: &str) -> bool {
    paths
        .iter()
        .any(|p| under(import, p) || under(repo_path, p))
}

/// The folders to list below the proto root `root` (import paths; `` for the whole root):
/// each of `paths` that is below it, read as a repository path or as an import path.
pub(super) fn subs_in_root(paths: &[String], root: &str) -> Vec<String> {
    let root = if root == "." { "" } else { root };
    let mut subs: Vec<String> = Vec::new();
    for p in paths {
        let sub = if root.is_empty() || under(root, p) {
            // The whole root is under the folder (or the root is the top).
            if root.is_empty() {
                p.clone()
            } else {
                String::new()
            }
        } else if under(p, root) {
            p[root.len() + 1..].to_string()
        } else {
            p.clone()
        };
        subs.push(sub);
    }
    if subs.iter().any(String::is_empty) {
        return vec![String::new()];
    }
    subs.sort();
    subs.dedup();
    subs
}

/// The repository folders whose `.proto` files are in scope for a version with these proto
/// roots: the roots themselves without `paths`, else the folders of `paths` below them.
pub(super) fn watched_dirs(paths: &[String], roots: &[String]) -> Vec<String> {
    let mut dirs = Vec::new();
    for root in roots {
        let top = if root == "." { "" } else { root.as_str() };
        if paths.is_empty() {
            dirs.push(top.to_string());
            continue;
        }
        for sub in subs_in_root(paths, root) {
            dirs.push(super::resolve::join(top, &sub));
        }
    }
    // A folder given as a repository path outside every root still holds its files.
    if !roots.is_empty() {
        dirs.extend(paths.iter().cloned());
    }
    dirs.sort();
    dirs.dedup();
    dirs
}

/// Keeps of `files` those under `paths` and what they import, transitively (by import
/// path); a file kept only for its importers is judged with them, as a file of the schema.
/// Returns how many files were kept for their importers.
pub(super) fn retain_closure(files: &mut Vec<SourceFile>, paths: &[String]) -> usize {
    if paths.is_empty() {
        return 0;
    }
    let by_path: HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let mut keep: HashSet<usize> = HashSet::new();
    let mut queue: VecDeque<usize> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| covers(paths, &f.path, &f.repo_path))
        .map(|(i, _)| i)
        .collect();
    while let Some(i) = queue.pop_front() {
        if !keep.insert(i) {
            continue;
        }
        let Ok(text) = &files[i].text else { continue };
        for import in crate::proto_text::scan(text) {
            if let Some(&j) = by_path.get(import.as_str())
                && !keep.contains(&j)
            {
                queue.push_back(j);
            }
        }
    }
    let mut imported = 0;
    let mut i = 0;
    files.retain_mut(|f| {
        let kept = keep.contains(&i);
        i += 1;
        if kept && !covers(paths, &f.path, &f.repo_path) {
            imported += 1;
        }
        kept
    });
    imported
}

/// The note on a version read with `--path`.
pub(super) fn note(paths: &[String], in_scope: usize, imported: usize) -> String {
    format!(
        "--path {}: {in_scope} file{} in scope, {imported} imported file{} outside it judged with {}",
        paths.join(", "),
        if in_scope == 1 { "" } else { "s" },
        if imported == 1 { "" } else { "s" },
        if in_scope == 1 { "it" } else { "them" },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Origin;
    use std::sync::Arc;

    fn file(path: &str, text: &str) -> SourceFile {
        SourceFile {
            path: path.into(),
            repo_path: format!("proto/{path}"),
            blob: path.into(),
            text: Ok(Arc::from(text)),
            origin: Origin::Root,
        }
    }

    #[test]
    fn the_scope_is_the_folders_and_what_they_import() {
        let mut files = vec![
            file("a/v1/x.proto", "import \"common/c.proto\";"),
            file("common/c.proto", "import \"common/d.proto\";"),
            file("common/d.proto", ""),
            file("other/o.proto", "import \"common/c.proto\";"),
        ];
        let paths = normalize(&["./proto/a/v1/".to_string()]);
        assert_eq!(paths, ["proto/a/v1"]);
        assert_eq!(retain_closure(&mut files, &paths), 2);
        let kept: Vec<(&str, Origin)> = files.iter().map(|f| (&*f.path, f.origin)).collect();
        assert_eq!(
            kept,
            [
                ("a/v1/x.proto", Origin::Root),
                ("common/c.proto", Origin::Root),
                ("common/d.proto", Origin::Root)
            ]
        );
    }

    #[test]
    fn a_path_is_read_below_each_root() {
        let p = normalize(&["proto/a".into(), "b".into()]);
        assert_eq!(subs_in_root(&p, "proto"), ["a", "b"]);
        assert_eq!(subs_in_root(&p, "."), ["b", "proto/a"]);
        assert_eq!(subs_in_root(&normalize(&[".".into()]), "proto"), [""]);
        assert!(!under("ab/c", "a") && under("a/c", "a") && under("a", "a"));
        assert_eq!(watched_dirs(&[], &[".".into()]), [""]);
    }
}
