//! Reading committed trees and blobs, each once for the whole history: the [`Reader`] and its
//! caches (tree listings, whole-tree indexes, blob text, scanned imports), and a commit's
//! whole tree as the place where imports found in no proto root are looked up.

use std::collections::{HashMap, HashSet};
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

/// What an entry of a tree's listing is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A `.proto` file.
    Proto,
    /// A symbolic link (any name).
    Link,
    /// A submodule (a commit of another repository): never read, in tags or in the working
    /// tree.
    Submodule,
    /// A folder (or a file) deeper than [`MAX_PATH_DEPTH`] components or [`MAX_PATH_BYTES`]
    /// bytes below the listed tree: not entered.
    TooDeep,
}

/// One entry of a tree's listing, by its path relative to the tree.
pub(super) struct Entry {
    pub path: String,
    pub id: Oid,
    pub kind: Kind,
}

/// Paths below a listed folder (a proto root, a folder reached through a link, the top of
/// the tree) have at most this many components...
pub(super) const MAX_PATH_DEPTH: usize = 256;
/// ...and at most this many bytes (Linux's `PATH_MAX`). Deeper folders are not entered and
/// are reported with the version (a tree 30,000 folders deep once overflowed the stack and
/// cost memory quadratic in its depth).
pub(super) const MAX_PATH_BYTES: usize = 4096;

/// What is left of the path limits below a folder: components and bytes for the paths of
/// its entries. The working tree's walk uses the same rule, so both skip the same paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Budget {
    pub depth: usize,
    pub bytes: usize,
}

impl Budget {
    /// The budget of a listed folder itself.
    pub const TOP: Budget = Budget {
        depth: MAX_PATH_DEPTH,
        bytes: MAX_PATH_BYTES,
    };

    /// Whether a file named `name` fits.
    pub fn fits(self, name: &str) -> bool {
        self.depth >= 1 && name.len() <= self.bytes
    }

    /// The budget inside the folder `name`, if it may be entered (one of its files fits).
    pub fn enter(self, name: &str) -> Option<Budget> {
        (self.depth >= 2 && name.len() + 2 <= self.bytes).then(|| Budget {
            depth: self.depth - 1,
            bytes: self.bytes - name.len() - 1,
        })
    }

    /// The smallest budget that holds both.
    fn max(self, other: Budget) -> Budget {
        Budget {
            depth: self.depth.max(other.depth),
            bytes: self.bytes.max(other.bytes),
        }
    }

    fn covers(self, need: Budget) -> bool {
        need.depth <= self.depth && need.bytes <= self.bytes
    }
}

/// A complete listing (nothing cut) and the smallest budget under which it stays complete.
struct Listing {
    entries: Arc<Vec<Entry>>,
    need: Budget,
}

/// File name -> repository path and blob id of every `.proto` file of a whole tree.
type Index = HashMap<String, Vec<(String, Oid)>>;

/// At most this many whole-tree indexes are kept (consecutive versions rarely share a tree).
const MAX_INDEXES: usize = 8;

pub(super) struct Reader<'r> {
    pub repo: &'r Repository,
    /// Tree id -> every `.proto` file, link and submodule below it, when nothing was cut.
    trees: HashMap<Oid, Listing>,
    /// (Tree id, budget) -> its listing with the folders too deep for that budget cut.
    cut: HashMap<(Oid, Budget), Arc<Vec<Entry>>>,
    /// Blob id -> text, read once for the whole history.
    blobs: HashMap<Oid, Result<Arc<str>, String>>,
    /// Top tree id -> its index, built when an import is found in no proto root.
    indexes: HashMap<Oid, Arc<Index>>,
    /// Link blob id -> its target, if readable.
    pub link_targets: HashMap<Oid, Option<String>>,
    /// Blob id -> the imports of its text, scanned once for the whole history.
    imports: HashMap<String, Arc<Vec<String>>>,
    /// Tree id -> the tree, for lookups by name (a path resolved, a commit compared with its
    /// parent): the folders above what is read are read once, not once per commit.
    /// At most [`MAX_TREES`].
    opened: HashMap<Oid, Tree<'r>>,
    /// Top tree id -> the version read from it (its files shared): a tree is read once
    /// however many tags point at it (2,000 tags on one commit of 10,000 files were 2,000
    /// listings of 10,000 files, 7.7 GB).
    pub(super) read: HashMap<Oid, super::Version>,
    pub stats: ReadStats,
}

/// At most this many trees are kept open for lookups by name.
const MAX_TREES: usize = 2048;

impl<'r> Reader<'r> {
    /// A reader of `repo` with empty caches.
    pub(super) fn new(repo: &'r Repository) -> Reader<'r> {
        Reader {
            repo,
            trees: HashMap::new(),
            cut: HashMap::new(),
            blobs: HashMap::new(),
            indexes: HashMap::new(),
            link_targets: HashMap::new(),
            imports: HashMap::new(),
            opened: HashMap::new(),
            read: HashMap::new(),
            stats: ReadStats::default(),
        }
    }

    /// The tree `id`, kept open for the next lookups (see [`Reader::opened`]).
    pub(super) fn tree(&mut self, id: Oid) -> Option<Tree<'r>> {
        if let Some(t) = self.opened.get(&id) {
            return Some(t.clone());
        }
        let tree = self.repo.find_tree(id).ok()?;
        if self.opened.len() >= MAX_TREES {
            self.opened.clear();
        }
        self.opened.insert(id, tree.clone());
        Some(tree)
    }
}

/// A tree being listed: its entries, the next one to look at, what it holds so far.
struct Frame {
    id: Oid,
    name: String,
    budget: Budget,
    entries: Vec<(String, Option<ObjectType>, Oid, i32)>,
    next: usize,
    out: Vec<Entry>,
    cut: bool,
    need: Budget,
}

impl Frame {
    fn new(id: Oid, name: String, budget: Budget, tree: &Tree<'_>) -> Frame {
        Frame {
            id,
            name,
            budget,
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
            cut: false,
            need: Budget { depth: 0, bytes: 0 },
        }
    }

    /// Adds the listing of its subfolder `name` (needing `need`; `cut` if cut).
    fn add_folder(&mut self, name: &str, list: &[Entry], need: Budget, cut: bool) {
        self.out.extend(list.iter().map(|e| Entry {
            path: format!("{name}/{}", e.path),
            id: e.id,
            kind: e.kind,
        }));
        self.cut |= cut;
        let entered = Budget {
            depth: 2,
            bytes: name.len() + 2,
        };
        let below = Budget {
            depth: need.depth + 1,
            bytes: need.bytes + name.len() + 1,
        };
        self.need = self.need.max(entered).max(below);
    }

    /// Adds an entry named `name`, or a [`Kind::TooDeep`] one when it does not fit.
    fn add_file(&mut self, name: String, id: Oid, kind: Kind) {
        if self.budget.fits(&name) {
            self.need = self.need.max(Budget {
                depth: 1,
                bytes: name.len(),
            });
            self.out.push(Entry {
                path: name,
                id,
                kind,
            });
        } else {
            self.too_deep(name, id);
        }
    }

    fn too_deep(&mut self, name: String, id: Oid) {
        self.cut = true;
        self.out.push(Entry {
            path: name,
            id,
            kind: Kind::TooDeep,
        });
    }
}

impl Reader<'_> {
    /// Every `.proto` file, link and submodule below `tree`, down to the path limits
    /// ([`Budget::TOP`]; deeper folders are [`Kind::TooDeep`] entries). Cached by tree id
    /// (and budget, when something was cut) so that a subtree shared by many versions is
    /// walked once. Iterative, and each path is built once per listing: a deep tree costs
    /// neither stack nor memory beyond the limits.
    pub(super) fn list_tree(&mut self, tree: &Tree<'_>) -> Arc<Vec<Entry>> {
        let top = Budget::TOP;
        if let Some((list, _, _)) = self.cached(tree.id(), top) {
            return list;
        }
        self.stats.trees_walked += 1;
        let mut stack = vec![Frame::new(tree.id(), String::new(), top, tree)];
        let mut open: HashSet<Oid> = HashSet::from([tree.id()]);
        while let Some(frame) = stack.last_mut() {
            let Some((name, kind, id, mode)) = frame.entries.get(frame.next).cloned() else {
                let Some(done) = stack.pop() else { break };
                open.remove(&done.id);
                let list = Arc::new(done.out);
                if done.cut {
                    self.cut.insert((done.id, done.budget), list.clone());
                } else {
                    self.trees.insert(
                        done.id,
                        Listing {
                            entries: list.clone(),
                            need: done.need,
                        },
                    );
                }
                match stack.last_mut() {
                    Some(parent) => parent.add_folder(&done.name, &list, done.need, done.cut),
                    None => return list,
                }
                continue;
            };
            frame.next += 1;
            match kind {
                Some(ObjectType::Blob) if is_link(mode) => frame.add_file(name, id, Kind::Link),
                Some(ObjectType::Blob) if name.ends_with(".proto") => {
                    frame.add_file(name, id, Kind::Proto)
                }
                Some(ObjectType::Commit) => frame.add_file(name, id, Kind::Submodule),
                Some(ObjectType::Tree) => {
                    let Some(budget) = frame.budget.enter(&name) else {
                        frame.too_deep(name, id);
                        continue;
                    };
                    if let Some((list, need, cut)) = self.cached(id, budget) {
                        if let Some(frame) = stack.last_mut() {
                            frame.add_folder(&name, &list, need, cut);
                        }
                    } else if !open.contains(&id)
                        && let Ok(sub) = self.repo.find_tree(id)
                    {
                        self.stats.trees_walked += 1;
                        open.insert(id);
                        stack.push(Frame::new(id, name, budget, &sub));
                    }
                }
                _ => {}
            }
        }
        Arc::new(Vec::new())
    }

    /// The listing of tree `id` under `budget`, if known: (entries, need, cut).
    fn cached(&self, id: Oid, budget: Budget) -> Option<(Arc<Vec<Entry>>, Budget, bool)> {
        if let Some(l) = self.trees.get(&id)
            && budget.covers(l.need)
        {
            return Some((l.entries.clone(), l.need, false));
        }
        self.cut
            .get(&(id, budget))
            .map(|list| (list.clone(), budget, true))
    }

    /// File name -> every `.proto` file of the whole tree `top` (links not followed).
    fn index(&mut self, top: &Tree<'_>) -> Arc<Index> {
        if let Some(index) = self.indexes.get(&top.id()) {
            return index.clone();
        }
        let mut index = Index::new();
        for e in self.list_tree(top).iter().filter(|e| e.kind == Kind::Proto) {
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
        // The size first, from the object's header: a blob over the cap is not inflated.
        let over = self
            .repo
            .odb()
            .and_then(|odb| odb.read_header(id))
            .ok()
            .and_then(|(size, _)| over_cap(size as u64));
        let text = match over {
            Some(why) => Err(why),
            None => match self.repo.find_blob(id) {
                Ok(blob) => {
                    self.stats.blobs_read += 1;
                    self.stats.bytes_read += blob.size();
                    decode_text(blob.content())
                }
                Err(e) => Err(format!("cannot read blob {id}: {}", e.message())),
            },
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
    /// The proto roots, when only part of them was listed (`--path`): imports are looked
    /// up there first, as `protoc -I` would.
    roots: Vec<String>,
    /// buf.yaml's excludes, which decide such a file's origin as a listing would.
    excludes: Vec<String>,
}

impl<'a, 'r, 't> CommitTree<'a, 'r, 't> {
    /// The whole of `tree`, read through `reader`; indexed only when first asked.
    pub(super) fn new(reader: &'a mut Reader<'r>, tree: &'a Tree<'t>) -> Self {
        CommitTree {
            reader,
            tree,
            index: None,
            roots: Vec::new(),
            excludes: Vec::new(),
        }
    }

    /// Looks imports up in `roots` first (their files were listed only in part).
    pub(super) fn with_roots(mut self, roots: &super::buf::Roots) -> Self {
        self.roots = roots.roots.clone();
        self.excludes = roots.excludes.clone();
        self
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

    fn in_roots(&mut self, import: &str) -> Option<super::resolve::Found> {
        for root in &self.roots {
            let path = super::resolve::join(root, import);
            if let super::links::End::File { real, id } = self.reader.resolve(self.tree, "", &path)
            {
                // As a listing of the root would: excluded by buf.yaml, or judged.
                let origin = super::links::origin(&path, &real, &self.excludes);
                return Some((real, id.to_string(), self.reader.read_blob(id), origin));
            }
        }
        None
    }

    fn imports(&mut self, blob: &str, text: &str) -> Arc<Vec<String>> {
        self.reader
            .imports
            .entry(blob.to_string())
            .or_insert_with(|| Arc::new(crate::proto_text::scan(text)))
            .clone()
    }
}

impl Reader<'_> {
    /// The text of a small file of `tree` (a path relative to its top: `buf.yaml`,
    /// `buf.lock`, `Proto.toml`), if it exists, is UTF-8 and at most
    /// [`crate::small_file::CAP`] bytes, like the working tree's (`small_file`): links
    /// followed inside the repository only, its size read before its content.
    pub(super) fn config_text(&mut self, tree: &Tree<'_>, path: &str) -> Option<String> {
        let super::links::End::File { id, .. } = self.resolve(tree, "", path) else {
            return None;
        };
        let (size, kind) = self.repo.odb().ok()?.read_header(id).ok()?;
        if kind != ObjectType::Blob || size as u64 > crate::small_file::CAP {
            return None;
        }
        let blob = self.repo.find_blob(id).ok()?;
        std::str::from_utf8(blob.content()).ok().map(str::to_string)
    }
}

/// Why a file of `size` bytes is not read: it is over the per-file cap ([`crate::limits`]).
/// Asked before the file is read, from a blob's header or a file's metadata.
pub(super) fn over_cap(size: u64) -> Option<String> {
    let cap = crate::limits::get().file_bytes;
    (size > cap as u64).then(|| {
        format!(
            "not read: the file is {size} bytes, over the per-file cap of {cap} bytes \
             (set {} to raise it)",
            crate::limits::FILE_VAR
        )
    })
}

/// The text of a file, or why it is not read: over the per-file cap, or not UTF-8.
pub(super) fn decode_text(bytes: &[u8]) -> Result<Arc<str>, String> {
    if let Some(why) = over_cap(bytes.len() as u64) {
        return Err(why);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(Arc::from(s)),
        Err(e) => Err(format!(
            "the file is not valid UTF-8 (at byte {}); protobuf sources must be UTF-8",
            e.valid_up_to()
        )),
    }
}
