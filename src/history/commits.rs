//! `--commits [RANGE]`: versions from commits instead of tags. The commits of RANGE
//! (`HEAD` by default, a branch, `A..B`), first parents only, oldest first; a commit is a
//! version when it changed what is in scope: a `.proto` file under the proto roots (under
//! `--path` with one), a file those import (transitively), or a file that says where the
//! proto roots are (`buf.yaml`, `buf.work.yaml`, `buf.lock`, `Proto.toml`).
//!
//! What a commit changed is found by comparing its tree with its parent's from the top,
//! entering only the folders whose ids differ and that lead to something watched: the cost
//! follows what changed, not the size of the tree. A commit that changed something watched
//! is read as a version (its file set resolved as any commit's) and kept when its files
//! differ from the last version's; the files it has are what is watched next.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use git2::{ObjectType, Oid, Repository};

use super::resolve::shown_path;
use super::tree::{MAX_PATH_DEPTH, Reader, is_link};
use super::{HistoryError, HistoryOptions, Version, VersionKind, scope, tags};

/// Files at the top of the tree (or of a proto root) that decide a version's file set.
const CONFIG_FILES: &[&str] = &[
    "buf.yaml",
    "buf.work.yaml",
    "buf.lock",
    super::BUFFRS_MANIFEST,
];

/// The versions of the commits of `range` (see the module docs), and how many commits
/// were walked.
pub(super) fn versions(
    reader: &mut Reader<'_>,
    root: &Path,
    opts: &HistoryOptions,
    range: &str,
) -> Result<(Vec<Version>, usize), HistoryError> {
    let repo = reader.repo;
    let git_err = |e: git2::Error| HistoryError::Git {
        path: root.to_path_buf(),
        message: e.message().to_string(),
    };
    let shown = shown_path(if range.is_empty() { "HEAD" } else { range });
    let commits = first_parents(repo, range)?;
    let Some(&oldest) = commits.first() else {
        return Err(HistoryError::NoVersions(format!(
            "no commits in `{shown}`\n  help: give a range whose end is not an ancestor of its start (--commits=A..B), or leave the range out for HEAD's history"
        )));
    };
    // A range starts from the parent of its oldest commit: what its first change changed.
    let base = if range.contains("..") {
        repo.find_commit(oldest)
            .ok()
            .and_then(|c| c.parent_id(0).ok())
    } else {
        None
    };
    let tagged: HashMap<Oid, tags::Tag> = tags::list(repo, root, opts)?
        .selected
        .into_iter()
        .map(|t| (t.commit, t))
        .collect();
    let paths = scope::normalize(&opts.paths);

    let mut versions: Vec<Version> = Vec::new();
    let mut watch: Option<Watch> = None;
    let mut previous: Option<Oid> = None;
    for &id in base.iter().chain(&commits) {
        let commit = repo.find_commit(id).map_err(git_err)?;
        let tree = commit.tree_id();
        let changed = match (&watch, previous) {
            (Some(w), Some(p)) => w.changed(reader, p, tree),
            _ => true,
        };
        previous = Some(tree);
        if !changed {
            continue;
        }
        let tag = tagged.get(&id);
        let name = match tag {
            Some(t) => t.name.clone(),
            None => short_id(&commit),
        };
        let semver = tag.and_then(|t| t.semver.clone());
        let Ok(mut v) = reader.commit_version(id, &name, semver, VersionKind::Commit, opts) else {
            continue;
        };
        v.message = commit.summary().ok().flatten().map(plain);
        watch = Some(Watch::of(&v, &paths));
        let in_scope = v.files.iter().any(|f| f.origin == super::Origin::Root)
            || v.problems.iter().any(|p| p.fatal);
        let same = versions.last().is_some_and(|last| same_files(last, &v));
        if in_scope && !same {
            versions.push(v);
        }
    }
    // The base only says where the range starts: a range that changed nothing has no
    // version of its own.
    let changed_in_range = versions
        .iter()
        .any(|v| Some(v.commit.as_str()) != base.map(|b| b.to_string()).as_deref());
    if !changed_in_range {
        let scope = if paths.is_empty() {
            String::new()
        } else {
            format!(" under --path {}", paths.join(", "))
        };
        return Err(HistoryError::NoVersions(format!(
            "no commit of `{shown}` ({} commit{} walked, first parents only) changed a .proto file{scope} or one it imports\n  help: widen the range (--commits=A..B) or the scope (--path, -I)",
            commits.len(),
            if commits.len() == 1 { "" } else { "s" },
        )));
    }
    Ok((versions, commits.len() + usize::from(base.is_some())))
}

/// The commits of `range`, first parents only, oldest first.
fn first_parents(repo: &Repository, range: &str) -> Result<Vec<Oid>, HistoryError> {
    let unknown = |rev: &str, e: git2::Error| HistoryError::UnknownRevision {
        rev: rev.to_string(),
        message: e.message().to_string(),
    };
    if range.contains("...") {
        return Err(HistoryError::UnknownRevision {
            rev: range.to_string(),
            message: "`A...B` (a symmetric difference) is no line of first parents; use A..B"
                .into(),
        });
    }
    let (start, end) = match range.split_once("..") {
        Some((a, b)) => (Some(a), b),
        None => (None, range),
    };
    let end = if end.is_empty() { "HEAD" } else { end };
    let peel = |rev: &str| {
        repo.revparse_single(rev)
            .and_then(|o| o.peel_to_commit())
            .map(|c| c.id())
            .map_err(|e| unknown(rev, e))
    };
    let tip = peel(end)?;
    if start.is_none() {
        // The whole line of first parents: follow it, no walk to sort.
        let mut commits = Vec::new();
        let mut next = Some(tip);
        while let Some(id) = next {
            commits.push(id);
            next = repo
                .find_commit(id)
                .map_err(|e| unknown(end, e))?
                .parent_id(0)
                .ok();
        }
        commits.reverse();
        return Ok(commits);
    }
    let mut walk = repo.revwalk().map_err(|e| unknown(range, e))?;
    walk.simplify_first_parent()
        .map_err(|e| unknown(range, e))?;
    walk.push(tip).map_err(|e| unknown(end, e))?;
    if let Some(start) = start {
        let start = if start.is_empty() { "HEAD" } else { start };
        walk.hide(peel(start)?).map_err(|e| unknown(start, e))?;
    }
    let mut commits: Vec<Oid> = walk.flatten().collect();
    commits.reverse();
    Ok(commits)
}

/// The commit's id, as short as is unique (at least 7 digits).
fn short_id(commit: &git2::Commit<'_>) -> String {
    commit
        .as_object()
        .short_id()
        .ok()
        .and_then(|b| b.as_str().ok().map(str::to_string))
        .unwrap_or_else(|| commit.id().to_string()[..7].to_string())
}

/// A commit subject: one line, control characters replaced, at most 200 characters.
fn plain(s: &str) -> String {
    shown_path(s.trim())
}

/// Whether two versions read the same files (same paths, contents, origins) and problems.
fn same_files(a: &Version, b: &Version) -> bool {
    a.files.len() == b.files.len()
        && a.files
            .iter()
            .zip(b.files.iter())
            .all(|(x, y)| x.path == y.path && x.blob == y.blob && x.origin == y.origin)
        && a.problems == b.problems
        && a.proto_roots == b.proto_roots
}

/// What a commit must change to be read: the `.proto` files and links under `dirs`, and
/// the exact `files` (the last version's files, wherever they are, and the config files).
struct Watch {
    dirs: Vec<String>,
    files: HashSet<String>,
    /// Folder -> the names in it that lead to something watched (for folders above `dirs`
    /// and `files`).
    toward: HashMap<String, BTreeSet<String>>,
}

impl Watch {
    fn of(v: &Version, paths: &[String]) -> Watch {
        let roots = if v.proto_roots.is_empty() {
            vec![".".to_string()]
        } else {
            v.proto_roots.clone()
        };
        let dirs = scope::watched_dirs(paths, &roots);
        let mut files: HashSet<String> = v.files.iter().map(|f| f.repo_path.clone()).collect();
        for name in CONFIG_FILES {
            files.insert(name.to_string());
            for root in roots.iter().filter(|r| *r != ".") {
                files.insert(format!("{root}/{name}"));
            }
        }
        let mut toward: HashMap<String, BTreeSet<String>> = HashMap::new();
        for path in dirs.iter().chain(&files) {
            let mut rest = path.as_str();
            while !rest.is_empty() {
                let (parent, name) = rest.rsplit_once('/').unwrap_or(("", rest));
                toward
                    .entry(parent.to_string())
                    .or_default()
                    .insert(name.to_string());
                rest = parent;
            }
        }
        Watch {
            dirs,
            files,
            toward,
        }
    }

    /// Whether `path` is one of the watched folders or below one.
    fn inside(&self, path: &str) -> bool {
        self.dirs.iter().any(|d| scope::under(path, d))
    }

    /// Whether going from tree `old` to tree `new` changed something watched.
    fn changed(&self, reader: &mut Reader<'_>, old: Oid, new: Oid) -> bool {
        self.diff(reader, "", Some(old), Some(new), 0)
    }

    fn diff(
        &self,
        reader: &mut Reader<'_>,
        dir: &str,
        old: Option<Oid>,
        new: Option<Oid>,
        depth: usize,
    ) -> bool {
        if old == new {
            return false;
        }
        if depth >= MAX_PATH_DEPTH {
            // Too deep to compare: read the commit, which says what it could not list.
            return true;
        }
        let old = old.and_then(|id| reader.tree(id));
        let new = new.and_then(|id| reader.tree(id));
        type Side = Option<(Oid, i32, Option<ObjectType>)>;
        let entry = |t: &Option<git2::Tree<'_>>, name: &str| -> Side {
            let e = t.as_ref()?.get_name(name)?;
            Some((e.id(), e.filemode(), e.kind()))
        };
        let names: Vec<String> = if self.inside(dir) {
            let mut all: BTreeSet<String> = BTreeSet::new();
            for t in old.iter().chain(new.iter()) {
                all.extend(t.iter().filter_map(|e| e.name().ok().map(str::to_string)));
            }
            all.into_iter().collect()
        } else {
            match self.toward.get(dir) {
                Some(names) => names.iter().cloned().collect(),
                None => return false,
            }
        };
        for name in names {
            let (o, n) = (entry(&old, &name), entry(&new, &name));
            if o.map(|x| (x.0, x.1)) == n.map(|x| (x.0, x.1)) {
                continue;
            }
            let path = if dir.is_empty() {
                name.clone()
            } else {
                format!("{dir}/{name}")
            };
            let tree = |s: Side| s.filter(|x| x.2 == Some(ObjectType::Tree)).map(|x| x.0);
            let (ot, nt) = (tree(o), tree(n));
            if (ot.is_some() || nt.is_some())
                && (self.inside(&path) || self.toward.contains_key(&path))
                && self.diff(reader, &path, ot, nt, depth + 1)
            {
                return true;
            }
            let file = |s: Side| s.filter(|x| x.2 != Some(ObjectType::Tree));
            let (of, nf) = (file(o), file(n));
            if of.is_none() && nf.is_none() {
                continue;
            }
            if self.files.contains(&path) {
                return true;
            }
            let link = of.into_iter().chain(nf).any(|x| is_link(x.1));
            if self.inside(&path) && (name.ends_with(".proto") || link) {
                return true;
            }
        }
        false
    }
}
