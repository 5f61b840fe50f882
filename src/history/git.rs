//! Reading versions out of a git repository with `git2`, read-only.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use git2::{ObjectType, Oid, Repository, Tree};

use super::buf::{Roots, given_roots, roots_from_buf_files};
use super::order::{compare, parse_tag_version, tag_prefix};
use super::resolve::{FileSet, TreeFiles};
use super::{
    History, HistoryError, HistoryOptions, ReadStats, SkippedTag, Version, VersionId, VersionKind,
};

/// Files larger than this are reported instead of read.
const MAX_PROTO_BYTES: usize = 64 * 1024 * 1024;

/// Opens the repository at (or above) `path` and returns its top folder: the work tree, or
/// the git folder of a bare repository.
pub fn repo_root(path: &Path) -> Result<PathBuf, HistoryError> {
    let repo = open(path)?;
    Ok(top(&repo))
}

fn top(repo: &Repository) -> PathBuf {
    repo.workdir().unwrap_or_else(|| repo.path()).to_path_buf()
}

fn open(path: &Path) -> Result<Repository, HistoryError> {
    Repository::open_ext(path, git2::RepositoryOpenFlags::empty(), [] as [&Path; 0]).map_err(|e| {
        match e.code() {
            git2::ErrorCode::NotFound => HistoryError::NotARepository {
                path: path.to_path_buf(),
            },
            _ => HistoryError::Git {
                path: path.to_path_buf(),
                message: e.message().to_string(),
            },
        }
    })
}

/// Loads every version selected by `opts` from the repository at `path`.
pub fn load(path: &Path, opts: &HistoryOptions) -> Result<History, HistoryError> {
    let started = Instant::now();
    // Blob ids are content hashes we do not need to re-verify on every read; libgit2's check
    // is most of the cost of reading a blob.
    git2::opts::strict_hash_verification(false);
    let repo = open(path)?;
    let root = top(&repo);
    let git_err = |e: git2::Error| HistoryError::Git {
        path: root.clone(),
        message: e.message().to_string(),
    };
    let mut reader = Reader {
        repo: &repo,
        trees: HashMap::new(),
        blobs: HashMap::new(),
        indexes: HashMap::new(),
        link_targets: HashMap::new(),
        imports: HashMap::new(),
        stats: ReadStats::default(),
    };

    let prefix = opts.tags.as_deref().map(tag_prefix).unwrap_or("");
    let pattern = match &opts.tags {
        Some(g) => Some(glob::Pattern::new(g).map_err(|e| HistoryError::BadGlob {
            glob: g.clone(),
            message: e.to_string(),
        })?),
        None => None,
    };

    let mut skipped = Vec::new();
    let mut seen = Vec::new();
    let mut tags = Vec::new();
    for reference in repo.references_glob("refs/tags/*").map_err(git_err)? {
        let Ok(reference) = reference else { continue };
        let Some(name) = reference
            .name()
            .ok()
            .and_then(|n| n.strip_prefix("refs/tags/"))
        else {
            continue;
        };
        let name = name.to_string();
        seen.push(name.clone());
        let selected = match &pattern {
            Some(p) => p.matches(&name),
            None => parse_tag_version(&name, "").is_some(),
        };
        if !selected {
            continue;
        }
        let Some(target) = reference.target() else {
            continue;
        };
        match peel_tag(&repo, target) {
            Ok((commit, message)) => tags.push((name, commit, message)),
            Err(reason) => skipped.push(SkippedTag { name, reason }),
        }
    }

    let mut versions = Vec::new();
    for (name, commit_id, message) in tags {
        let semver = parse_tag_version(&name, prefix);
        match reader.commit_version(commit_id, &name, semver, VersionKind::Tag, opts) {
            Ok(mut v) => {
                v.message = message;
                versions.push(v);
            }
            Err(reason) => skipped.push(SkippedTag { name, reason }),
        }
    }
    versions.sort_by(|a, b| compare((&a.semver, a.time, &a.name), (&b.semver, b.time, &b.name)));

    for rev in &opts.revs {
        let commit = repo
            .revparse_single(rev)
            .and_then(|o| o.peel_to_commit())
            .map_err(|e| HistoryError::UnknownRevision {
                rev: rev.clone(),
                message: e.message().to_string(),
            })?;
        let v = reader
            .commit_version(commit.id(), rev, None, VersionKind::Rev, opts)
            .map_err(|message| HistoryError::UnknownRevision {
                rev: rev.clone(),
                message,
            })?;
        versions.push(v);
    }

    if opts.worktree
        && let Some(v) = reader.worktree_version(opts)
    {
        versions.push(v);
    }
    // Which tagged versions each revision (and the working tree's HEAD) builds on.
    let tagged: Vec<(VersionId, Oid)> = versions
        .iter()
        .enumerate()
        .filter(|(_, v)| v.kind == VersionKind::Tag)
        .filter_map(|(i, v)| Some((VersionId::at(i), Oid::from_str(&v.commit).ok()?)))
        .collect();
    for v in versions.iter_mut().filter(|v| v.kind != VersionKind::Tag) {
        let Ok(commit) = Oid::from_str(&v.commit) else {
            continue;
        };
        v.ancestors = Some(
            tagged
                .iter()
                .filter(|(_, t)| {
                    *t == commit || repo.graph_descendant_of(commit, *t).unwrap_or(false)
                })
                .map(|(id, _)| *id)
                .collect(),
        );
    }

    if versions.is_empty() {
        let shown: Vec<&str> = seen.iter().take(8).map(String::as_str).collect();
        let what = match &opts.tags {
            Some(g) => format!("no tag matches `{g}`"),
            None => "no tag is a semver version (like v1.2.3 or 1.2.3)".to_string(),
        };
        let seen_text = if seen.is_empty() {
            "the repository has no tags".to_string()
        } else {
            format!(
                "{} tags seen: {}{}",
                seen.len(),
                shown.join(", "),
                if seen.len() > shown.len() {
                    ", ..."
                } else {
                    ""
                }
            )
        };
        return Err(HistoryError::NoVersions(format!(
            "no versions to load from {}: {what} ({seen_text})\n  help: select tags with --tags GLOB (for example --tags 'physics/v*'), or add a revision with --rev REV",
            root.display()
        )));
    }

    let mut stats = reader.stats;
    stats.elapsed = started.elapsed();
    Ok(History {
        repo_root: root,
        versions,
        skipped,
        stats,
    })
}

/// Follows a tag (possibly a chain of annotated tags) to its commit; returns the first
/// annotated tag's message. A tag on a tree or blob is an error with the reason.
fn peel_tag(repo: &Repository, target: Oid) -> Result<(Oid, Option<String>), String> {
    let mut object = repo
        .find_object(target, None)
        .map_err(|e| format!("cannot read the tagged object: {}", e.message()))?;
    let mut message = None;
    for _ in 0..64 {
        match object.kind() {
            Some(ObjectType::Tag) => {
                let tag = object
                    .as_tag()
                    .ok_or_else(|| "cannot read the annotated tag".to_string())?;
                if message.is_none() {
                    message = tag
                        .message()
                        .ok()
                        .flatten()
                        .map(|m| m.trim_end().to_string());
                }
                object = tag
                    .target()
                    .map_err(|e| format!("cannot read the tag's target: {}", e.message()))?;
            }
            Some(ObjectType::Commit) => return Ok((object.id(), message)),
            Some(ObjectType::Tree) => return Err("the tag points to a tree, not a commit".into()),
            Some(ObjectType::Blob) => return Err("the tag points to a blob, not a commit".into()),
            _ => return Err("the tag points to an object of unknown kind".into()),
        }
    }
    Err("the tag is a chain of more than 64 tags".into())
}

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

impl Reader<'_> {
    pub(super) fn commit_version(
        &mut self,
        commit_id: Oid,
        name: &str,
        semver: Option<semver::Version>,
        kind: VersionKind,
        opts: &HistoryOptions,
    ) -> Result<Version, String> {
        let commit = self
            .repo
            .find_commit(commit_id)
            .map_err(|e| format!("cannot read commit {commit_id}: {}", e.message()))?;
        let tree = commit
            .tree()
            .map_err(|e| format!("cannot read the tree of {commit_id}: {}", e.message()))?;
        let (roots, roots_from) = self.roots_in_tree(&tree, opts);
        let mut set = FileSet::default();
        for root in &roots.roots {
            self.collect_root(&tree, root, &roots.excludes, &mut set);
        }
        let (files, resolution) = set.finish(&mut CommitTree {
            reader: self,
            tree: &tree,
            index: None,
        });
        let manifest = read_tree_text(self.repo, &tree, super::BUFFRS_MANIFEST);
        let dependencies =
            super::buf::dependency_pins(|path| read_tree_text(self.repo, &tree, path));
        let time = commit.time();
        Ok(Version {
            name: name.to_string(),
            semver,
            kind,
            commit: commit_id.to_string(),
            time: time.seconds(),
            offset_minutes: time.offset_minutes(),
            message: None,
            proto_roots: roots.roots,
            roots_from,
            files,
            resolution,
            manifest,
            dependencies,
            ancestors: None,
        })
    }

    /// Proto roots for a committed tree: the options', else its buf files', else the root.
    fn roots_in_tree(&mut self, tree: &Tree<'_>, opts: &HistoryOptions) -> (Roots, String) {
        given_roots(opts)
            .unwrap_or_else(|| roots_from_buf_files(|path| read_tree_text(self.repo, tree, path)))
    }

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
struct CommitTree<'a, 'r, 't> {
    reader: &'a mut Reader<'r>,
    tree: &'a Tree<'t>,
    index: Option<Arc<Index>>,
}

impl CommitTree<'_, '_, '_> {
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
fn read_tree_text(repo: &Repository, tree: &Tree<'_>, path: &str) -> Option<String> {
    let entry = tree.get_path(Path::new(path)).ok()?;
    let blob = repo.find_blob(entry.id()).ok()?;
    std::str::from_utf8(blob.content()).ok().map(str::to_string)
}

pub(super) fn decode_text(bytes: &[u8]) -> Result<Arc<str>, String> {
    if bytes.len() > MAX_PROTO_BYTES {
        return Err(format!(
            "the file is {} bytes, more than the {} MiB protolapse reads",
            bytes.len(),
            MAX_PROTO_BYTES / (1024 * 1024)
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
