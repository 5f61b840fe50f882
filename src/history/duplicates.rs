//! **The duplicate rule**: one file reached at two import paths is compiled once.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::SourceFile;

/// A file left out because the same file is in the set at another import path.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Dropped {
    pub dropped: String,
    pub kept: String,
    pub both_imported: bool,
}

/// **The duplicate rule.** Two files of a set are one file when they have the same blob and
/// one's import path is the other's with folders in front (`X/P` and `P`): the same file seen
/// through two proto roots (`.` and `common-protos`), or through a link (`google` ->
/// `common-protos/google`), or found in the tree by the import path `P`. Compiling both would
/// define every symbol twice, which `protoc` and buf reject ("already defined"). Of each
/// group of such files one is kept: the import path that the set's import statements use (a
/// build imports a file by one path), and among several used, or none, the shortest (the
/// path relative to the innermost root: what importers write). The kept file takes the most
/// judged origin of the group (Root, then Excluded, then Tree): it is the same file.
///
/// Returns which files to keep (by index) and what was dropped for what.
pub(super) fn drop_duplicates(
    files: &[SourceFile],
    imports: &HashMap<String, Vec<String>>,
) -> (Vec<bool>, Vec<Dropped>) {
    let mut keep = vec![true; files.len()];
    let mut dropped = Vec::new();
    let mut by_blob: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        if f.text.is_ok() && !f.blob.is_empty() {
            by_blob.entry(f.blob.as_str()).or_default().push(i);
        }
    }
    let imported: HashSet<&str> = imports.values().flatten().map(String::as_str).collect();
    for group in by_blob.values().filter(|g| g.len() > 1) {
        // Components of the suffix relation (union-find over the group).
        let mut parent: Vec<usize> = (0..group.len()).collect();
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        // Each path's shorter forms (`X/P` -> `P`) that are in the group: linear in the
        // paths' lengths, however many identical files (empty ones, say) there are.
        let at: HashMap<&str, usize> = group
            .iter()
            .enumerate()
            .map(|(k, &i)| (files[i].path.as_str(), k))
            .collect();
        for (a, &i) in group.iter().enumerate() {
            let path = files[i].path.as_str();
            for (cut, _) in path.match_indices('/') {
                if let Some(&b) = at.get(&path[cut + 1..]) {
                    let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                    parent[ra] = rb;
                }
            }
        }
        let mut components: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (k, &i) in group.iter().enumerate() {
            let r = find(&mut parent, k);
            components.entry(r).or_default().push(i);
        }
        for members in components.values().filter(|m| m.len() > 1) {
            let Some(&winner) = members.iter().min_by(|&&a, &&b| {
                let (pa, pb) = (&files[a].path, &files[b].path);
                (!imported.contains(pa.as_str()))
                    .cmp(&!imported.contains(pb.as_str()))
                    .then(pa.len().cmp(&pb.len()))
                    .then(pa.cmp(pb))
            }) else {
                continue;
            };
            for &m in members.iter().filter(|&&m| m != winner) {
                keep[m] = false;
                dropped.push(Dropped {
                    dropped: files[m].path.clone(),
                    kept: files[winner].path.clone(),
                    both_imported: imported.contains(files[m].path.as_str())
                        && imported.contains(files[winner].path.as_str()),
                });
            }
        }
    }
    dropped.sort_by(|a, b| a.dropped.cmp(&b.dropped));
    (keep, dropped)
}

/// Applies the origin rule of [`drop_duplicates`] to the files kept.
pub(super) fn merge_origins(files: &mut [SourceFile], keep: &[bool], dropped: &[Dropped]) {
    let index: HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let mut updates = Vec::new();
    for d in dropped {
        if let (Some(&k), Some(&x)) = (index.get(d.kept.as_str()), index.get(d.dropped.as_str()))
            && keep[k]
        {
            updates.push((k, files[x].origin));
        }
    }
    for (k, origin) in updates {
        files[k].origin = files[k].origin.min(origin); // the most judged
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::origin::Origin;
    use std::sync::Arc;

    fn file(path: &str, blob: &str, origin: Origin) -> SourceFile {
        SourceFile {
            path: path.into(),
            repo_path: path.into(),
            blob: blob.into(),
            text: Ok(Arc::from("")),
            origin,
        }
    }

    #[test]
    fn duplicates_keep_the_imported_then_the_shortest_path() {
        let files = vec![
            file("api/a.proto", "1", Origin::Root),
            file("common/google/api/http.proto", "2", Origin::Root),
            file("google/api/http.proto", "2", Origin::Excluded),
            file("other/http.proto", "2", Origin::Root), // same blob, not nested: kept
            file("vendor/x/y.proto", "3", Origin::Root),
            file("x/y.proto", "3", Origin::Tree),
            file("ax/y.proto", "3", Origin::Root), // `ax/` is no folder in front of `x/`
        ];
        let imports = HashMap::from([(
            "api/a.proto".to_string(),
            vec!["vendor/x/y.proto".to_string()],
        )]);
        let (keep, dropped) = drop_duplicates(&files, &imports);
        assert_eq!(keep, [true, false, true, true, true, false, true]);
        assert_eq!(
            dropped,
            [
                Dropped {
                    dropped: "common/google/api/http.proto".into(),
                    kept: "google/api/http.proto".into(),
                    both_imported: false,
                },
                Dropped {
                    dropped: "x/y.proto".into(),
                    kept: "vendor/x/y.proto".into(),
                    both_imported: false,
                },
            ]
        );
        let mut files = files;
        merge_origins(&mut files, &keep, &dropped);
        assert_eq!(files[2].origin, Origin::Root, "the most judged origin");
    }
}
