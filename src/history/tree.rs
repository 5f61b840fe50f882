//! Reading committed trees and blobs, each once for the whole history: the [`Reader`] and its
//! caches (tree listings, whole-tree indexes, blob text, scanned imports), and a commit's
//! whole tree as the place where imports found in no proto root are looked up.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use git2::{ObjectType, Oid, Repository, Tree};

use super::ReadStats;
use super::resolve::TreeFiles;

/// Git's file mode of a symbolic link.
const LINK_MODE: i32 = 0o120000;

/// Whether a tree entry is a symbolic link.
pub(super) fn is_link(filemode: i32) -> bool {
    filemode == LINK_MODE
}

/// One entry of a tree's listing: a `.proto` file, or a symbolic link (any name), by its
/// path relative to the tree.
pub(super) struct Entry {
    pub path: String,
    pub id: Oid,
    pub link: bool,
}

/// File name -> repository path and blob id of every `.proto` file of a whole tree.
type Index = HashMap<String, Vec<(String, Oid)>>;

/// At most this many whole-tree indexes are kept (consecutive versions rarely share a tree).
const MAX_INDEXES: usize = 8;

pub(super) struct Reader<'r> {
    pub repo: &'r Repository,
    /// Tree id -> every `.proto` file and link below it.
    trees: HashMap<Oid, Arc<Vec<Entry>>>,
    /// Blob id -> text, read once for the whole history.
    blobs: HashMap<Oid, Result<Arc<str>, String>>,
    /// Top tree id -> its index, built when an import is found in no proto root.
    indexes: HashMap<Oid, Arc<Index>>,
    /// Link blob id -> its target, if readable.
    pub link_targets: HashMap<Oid, Option<String>>,
    /// Blob id -> the imports of its text, scanned once for the whole history.
    imports: HashMap<String, Arc<Vec<String>>>,
    pub stats: ReadStats,
}

impl<'r> Reader<'r> {
    /// A reader of `repo` with empty caches.
    pub(super) fn new(repo: &'r Repository) -> Reader<'r> {
        Reader {
            repo,
            trees: HashMap::new(),
            blobs: HashMap::new(),
            indexes: HashMap::new(),
            link_targets: HashMap::new(),
            imports: HashMap::new(),
            stats: ReadStats::default(),
        }
    }
}

impl Reader<'_> {
    /// Every `.proto` file and link below `tree`, cached by tree id so that a subtree shared
    /// by many versions is walked once. Iterative: a deep tree cannot exhaust the stack.
    pub(super) fn list_tree(&mut self, tree: &Tree<'_>) -> Arc<Vec<Entry>> {
        if let Some(list) = self.trees.get(&tree.id()) {
            return list.clone();
        }
        /// A tree being listed: its entries, the next one to look at, what it holds so far.
        struct Frame {
            id: Oid,
            name: String,
            entries: Vec<(String, Option<ObjectType>, Oid, i32)>,
            next: usize,
            out: Vec<Entry>,
        }
        let frame = |id: Oid, name: String, tree: &Tree<'_>| Frame {
            id,
            name,
            entries: tree
                .iter()
                .filter_map(|e| {
                    let name = e.name().ok()?;
                    let odd = name.is_empty() || name == "." || name == ".." || name.contains('/');
                    (!odd).then(|| (name.to_string(), e.kind(), e.id(), e.filemode()))
                })
                .collect(),
            next: 0,
            out: Vec::new(),
        };
        self.stats.trees_walked += 1;
        let mut stack = vec![frame(tree.id(), String::new(), tree)];
        let mut open: HashSet<Oid> = HashSet::from([tree.id()]);
        while let Some(top) = stack.last_mut() {
            let Some((name, kind, id, mode)) = top.entries.get(top.next).cloned() else {
                let Some(done) = stack.pop() else { break };
                open.remove(&done.id);
                let list = Arc::new(done.out);
                self.trees.insert(done.id, list.clone());
                match stack.last_mut() {
                    Some(parent) => parent.out.extend(list.iter().map(|e| Entry {
                        path: format!("{}/{}", done.name, e.path),
                        id: e.id,
                        link: e.link,
                    })),
                    None => return list,
                }
                continue;
            };
            top.next += 1;
            match kind {
                Some(ObjectType::Blob) if is_link(mode) => top.out.push(Entry {
                    path: name,
                    id,
                    link: true,
                }),
                Some(ObjectType::Blob) if name.ends_with(".proto") => top.out.push(Entry {
                    path: name,
                    id,
                    link: false,
                }),
                Some(ObjectType::Tree) => {
                    if let Some(list) = self.trees.get(&id) {
                        top.out.extend(list.iter().map(|e| Entry {
                            path: format!("{name}/{}", e.path),
                            id: e.id,
                            link: e.link,
                        }));
                    } else if !open.contains(&id)
                        && let Ok(sub) = self.repo.find_tree(id)
                    {
                        self.stats.trees_walked += 1;
                        open.insert(id);
                        stack.push(frame(id, name, &sub));
                    }
                }
                _ => {}
            }
        }
        Arc::new(Vec::new())
    }

    /// File name -> every `.proto` file of the whole tree `top` (links not followed).
    fn index(&mut self, top: &Tree<'_>) -> Arc<Index> {
        if let Some(index) = self.indexes.get(&top.id()) {
            return index.clone();
        }
        let mut index = Index::new();
        for e in self.list_tree(top).iter().filter(|e| !e.link) {
            let name = e.path.rsplit('/').next().unwrap_or(&e.path);
            index
                .entry(name.to_string())
                .or_default()
                .push((e.path.clone(), e.id));
        }
        let index = Arc::new(index);
        if self.indexes.len() >= MAX_INDEXES {
            self.indexes.clear();
        }
        self.indexes.insert(top.id(), index.clone());
        index
    }

    pub(super) fn read_blob(&mut self, id: Oid) -> Result<Arc<str>, String> {
        if let Some(text) = self.blobs.get(&id) {
            return text.clone();
        }
        let text = match self.repo.find_blob(id) {
            Ok(blob) => {
                self.stats.blobs_read += 1;
                self.stats.bytes_read += blob.size();
                decode_text(blob.content())
            }
            Err(e) => Err(format!("cannot read blob {id}: {}", e.message())),
        };
        self.blobs.insert(id, text.clone());
        text
    }
}

/// A commit's whole tree, for the imports found in no proto root.
pub(super) struct CommitTree<'a, 'r, 't> {
    reader: &'a mut Reader<'r>,
    tree: &'a Tree<'t>,
    index: Option<Arc<Index>>,
}

impl<'a, 'r, 't> CommitTree<'a, 'r, 't> {
    /// The whole of `tree`, read through `reader`; indexed only when first asked.
    pub(super) fn new(reader: &'a mut Reader<'r>, tree: &'a Tree<'t>) -> Self {
        CommitTree {
            reader,
            tree,
            index: None,
        }
    }

    fn index(&mut self) -> Arc<Index> {
        if let Some(index) = &self.index {
            return index.clone();
        }
        let index = self.reader.index(self.tree);
        self.index = Some(index.clone());
        index
    }
}

impl TreeFiles for CommitTree<'_, '_, '_> {
    fn named(&mut self, name: &str) -> Vec<String> {
        self.index()
            .get(name)
            .map(|list| list.iter().map(|(p, _)| p.clone()).collect())
            .unwrap_or_default()
    }

    fn read(&mut self, repo_path: &str) -> Option<(String, Result<Arc<str>, String>)> {
        let name = repo_path.rsplit('/').next().unwrap_or(repo_path);
        let id = self
            .index()
            .get(name)?
            .iter()
            .find(|(p, _)| p == repo_path)?
            .1;
        Some((id.to_string(), self.reader.read_blob(id)))
    }

    fn imports(&mut self, blob: &str, text: &str) -> Arc<Vec<String>> {
        self.reader
            .imports
            .entry(blob.to_string())
            .or_insert_with(|| Arc::new(crate::proto_text::scan(text)))
            .clone()
    }
}

/// The text of a file of `tree` (a path relative to its top), if it exists and is UTF-8.
pub(super) fn read_tree_text(repo: &Repository, tree: &Tree<'_>, path: &str) -> Option<String> {
    let entry = tree.get_path(Path::new(path)).ok()?;
    let blob = repo.find_blob(entry.id()).ok()?;
    std::str::from_utf8(blob.content()).ok().map(str::to_string)
}

/// A file over the per-file cap ([`crate::limits`]) is reported instead of read.
pub(super) fn decode_text(bytes: &[u8]) -> Result<Arc<str>, String> {
    let cap = crate::limits::get().file_bytes;
    if bytes.len() > cap {
        return Err(format!(
            "not read: the file is {} bytes, over the per-file cap of {cap} bytes \
             (set {} to raise it)",
            bytes.len(),
            crate::limits::FILE_VAR
        ));
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(Arc::from(s)),
        Err(e) => Err(format!(
            "the file is not valid UTF-8 (at byte {}); protobuf sources must be UTF-8",
            e.valid_up_to()
        )),
    }
}
