//! Loading a history from a git repository with `git2`, read-only: open it, read each
//! selected tag and revision as a version, order them, and find the releases each revision
//! builds on. Which tags are selected is `tags`; reading trees and blobs is `tree`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use git2::{Oid, Repository, Tree};

use super::buf::{Roots, given_roots, roots_from_buf_files};
use super::order::compare;
use super::resolve::FileSet;
use super::tree::{CommitTree, Reader};
use super::{
    History, HistoryError, HistoryOptions, ReadProblem, SkippedTag, Version, VersionId, VersionKind,
};
use super::{commits, scope, tags};

/// Opens the repository at (or above) `path` and returns its top folder: the work tree, or
/// the git folder of a bare repository.
pub fn repo_root(path: &Path) -> Result<PathBuf, HistoryError> {
    let repo = open(path)?;
    Ok(top(&repo))
}

fn top(repo: &Repository) -> PathBuf {
    workdir(repo).unwrap_or_else(|| repo.path()).to_path_buf()
}

/// The repository's work tree; None for a bare one. libgit2 takes a git folder without a
/// `config` (a mirror copied as it is) to have its parent folder as work tree: when that
/// folder's `.git` is not this git folder, there is none (it made a `WORKTREE` version of
/// whatever sat beside the mirror). A work tree set in a config, a `.git` file of a linked
/// work tree or submodule, and a clone are left as libgit2 finds them.
pub(super) fn workdir(repo: &Repository) -> Option<&Path> {
    let dir = repo.workdir()?;
    let git = repo.path();
    let guessed = !git.join("config").exists() && git.parent() == Some(dir);
    if guessed && dir.join(".git").canonicalize().ok() != git.canonicalize().ok() {
        return None;
    }
    Some(dir)
}

fn open(path: &Path) -> Result<Repository, HistoryError> {
    if !path.exists() {
        return Err(HistoryError::NoSuchPath {
            path: path.to_path_buf(),
        });
    }
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
    let mut reader = Reader::new(&repo);

    let tags = match &opts.commits {
        Some(_) => tags::Tags::default(),
        None => tags::list(&repo, &root, opts)?,
    };
    let mut skipped = tags.skipped;
    let mut versions = Vec::new();
    if let Some(range) = &opts.commits {
        let (found, walked) = commits::versions(&mut reader, &root, opts, range)?;
        reader.stats.commits_walked = walked;
        versions = found;
    }
    for tag in tags.selected {
        match reader.commit_version(tag.commit, &tag.name, tag.semver, VersionKind::Tag, opts) {
            Ok(mut v) => {
                v.message = tag.message;
                versions.push(v);
            }
            Err(reason) => skipped.push(SkippedTag {
                name: tag.name,
                reason,
            }),
        }
    }
    if opts.commits.is_none() {
        versions
            .sort_by(|a, b| compare((&a.semver, a.time, &a.name), (&b.semver, b.time, &b.name)));
    }

    for name in &opts.wanted {
        let known = versions.iter().any(|v: &Version| v.answers_to(name))
            || name == super::WORKTREE
            || opts.revs.contains(name);
        if known {
            continue;
        }
        let Ok(commit) = repo.revparse_single(name).and_then(|o| o.peel_to_commit()) else {
            continue;
        };
        if let Ok(v) = reader.commit_version(commit.id(), name, None, VersionKind::Rev, opts) {
            versions.push(v);
        }
    }

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
    let mut reachable: HashMap<Oid, HashSet<Oid>> = HashMap::new();
    let revisions = versions
        .iter_mut()
        .filter(|v| matches!(v.kind, VersionKind::Rev | VersionKind::Worktree));
    for v in revisions {
        let Ok(commit) = Oid::from_str(&v.commit) else {
            continue;
        };
        let found = reachable
            .entry(commit)
            .or_insert_with(|| tagged_ancestors(&repo, commit, &tagged));
        v.ancestors = Some(
            tagged
                .iter()
                .filter(|(_, t)| found.contains(t))
                .map(|(id, _)| *id)
                .collect(),
        );
    }

    if versions.is_empty() {
        return Err(tags::none_selected(&tags.seen, opts, &root));
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

/// The commits of `tagged` that are `commit` or one of its ancestors: one walk of the
/// history below `commit` (asking git for each tag would walk it once per tag), which stops
/// as soon as every tagged commit has been seen.
fn tagged_ancestors(repo: &Repository, commit: Oid, tagged: &[(VersionId, Oid)]) -> HashSet<Oid> {
    let wanted: HashSet<Oid> = tagged.iter().map(|(_, t)| *t).collect();
    let mut found = HashSet::new();
    if wanted.is_empty() {
        return found;
    }
    let Ok(mut walk) = repo.revwalk() else {
        return found;
    };
    if walk.push(commit).is_err() {
        return found;
    }
    for id in walk.flatten() {
        if wanted.contains(&id) {
            found.insert(id);
            if found.len() == wanted.len() {
                break;
            }
        }
    }
    found
}

impl Reader<'_> {
    /// The commit `commit_id` read as a version: its proto roots, its file set, its buffrs
    /// manifest and buf dependency pins.
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
        let time = commit.time();
        let version = |read: &Version| Version {
            name: name.to_string(),
            semver: semver.clone(),
            kind,
            commit: commit_id.to_string(),
            time: time.seconds(),
            offset_minutes: time.offset_minutes(),
            message: None,
            ancestors: None,
            ..read.clone()
        };
        // What a version holds depends on its tree alone (the options are the run's).
        if let Some(read) = self.read.get(&tree.id()) {
            return Ok(version(read));
        }
        let mut set = FileSet::default();
        let (roots, roots_from) = match self.roots_in_tree(&tree, opts) {
            Ok(found) => found,
            Err(problem) => {
                set.problem(problem);
                (Roots::default(), "buf files".to_string())
            }
        };
        let paths = scope::normalize(&opts.paths);
        for root in &roots.roots {
            if paths.is_empty() {
                self.collect_root(&tree, root, &roots.excludes, &mut set);
            } else {
                for sub in scope::subs_in_root(&paths, root) {
                    self.collect_root_below(&tree, root, &sub, &roots.excludes, &mut set);
                }
            }
        }
        let mut whole = CommitTree::new(self, &tree);
        if !paths.is_empty() {
            whole = whole.with_roots(&roots);
        }
        let (files, mut resolution, mut problems) = set.finish(&mut whole);
        if !paths.is_empty() {
            // Only the folders of `paths` were listed, and the rest was reached from their
            // imports: every file is in the closure already (the working tree, listed whole,
            // keeps it with `scope::retain_closure`).
            let imported = files
                .iter()
                .filter(|f| !scope::covers(&paths, &f.path, &f.repo_path))
                .count();
            resolution.push(scope::note(&paths, files.len() - imported, imported));
        }
        let manifest = self.config_text(&tree, super::BUFFRS_MANIFEST);
        let (dependencies, lock_problems) =
            super::buf::dependency_pins(|path| self.config_text(&tree, path));
        problems.extend(lock_problems);
        let read = Version {
            name: String::new(),
            semver: None,
            kind,
            commit: String::new(),
            time: 0,
            offset_minutes: 0,
            message: None,
            proto_roots: roots.roots,
            roots_from,
            files: files.into(),
            resolution,
            problems,
            manifest,
            dependencies,
            ancestors: None,
        };
        let out = version(&read);
        self.read.insert(tree.id(), read);
        Ok(out)
    }

    /// Proto roots for a committed tree: the options', else its buf files', else the root.
    fn roots_in_tree(
        &mut self,
        tree: &Tree<'_>,
        opts: &HistoryOptions,
    ) -> Result<(Roots, String), ReadProblem> {
        match given_roots(opts) {
            Some(given) => Ok(given),
            None => roots_from_buf_files(|path| self.config_text(tree, path)),
        }
    }
}
