//! Reading versions out of a git repository with `git2`, read-only.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use git2::{ObjectType, Oid, Repository, Tree};

use super::buf::{self, Roots};
use super::order::{compare, parse_tag_version, tag_prefix};
use super::{
    History, HistoryError, HistoryOptions, ReadStats, SkippedTag, SourceFile, Version, VersionKind,
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
    let tagged: Vec<(String, Oid)> = versions
        .iter()
        .filter(|v| v.kind == VersionKind::Tag)
        .filter_map(|v| Some((v.name.clone(), Oid::from_str(&v.commit).ok()?)))
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
                .map(|(n, _)| n.clone())
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

struct Reader<'r> {
    repo: &'r Repository,
    /// Tree id -> every `.proto` file below it (path relative to the tree, blob id).
    trees: HashMap<Oid, Arc<Vec<(String, Oid)>>>,
    /// Blob id -> text, read once for the whole history.
    blobs: HashMap<Oid, Result<Arc<str>, String>>,
    stats: ReadStats,
}

impl Reader<'_> {
    fn commit_version(
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
        let mut files = Vec::new();
        let mut taken = std::collections::HashSet::new();
        for root in &roots.roots {
            let subtree = if root == "." {
                Some(tree.clone())
            } else {
                tree.get_path(Path::new(root))
                    .ok()
                    .and_then(|e| e.to_object(self.repo).ok())
                    .and_then(|o| o.into_tree().ok())
            };
            let Some(subtree) = subtree else { continue };
            let list = self.list_tree(&subtree);
            for (path, blob) in list.iter() {
                let repo_path = join(root, path);
                if excluded(&repo_path, &roots.excludes) || !taken.insert(path.clone()) {
                    continue;
                }
                let text = self.read_blob(*blob);
                files.push(SourceFile {
                    path: path.clone(),
                    repo_path,
                    blob: blob.to_string(),
                    text,
                });
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let manifest = read_tree_text(self.repo, &tree, super::BUFFRS_MANIFEST);
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
            manifest,
            ancestors: None,
        })
    }

    /// Proto roots for a committed tree: the options', else its buf files', else the root.
    fn roots_in_tree(&mut self, tree: &Tree<'_>, opts: &HistoryOptions) -> (Roots, String) {
        if !opts.proto_paths.is_empty() {
            let roots = opts.proto_paths.iter().map(|p| buf::clean(p)).collect();
            return (
                Roots {
                    roots,
                    excludes: Vec::new(),
                },
                "--proto-path".into(),
            );
        }
        roots_from_buf_files(|path| read_tree_text(self.repo, tree, path))
    }

    /// Every `.proto` file below `tree`, cached by tree id so that a subtree shared by many
    /// versions is walked once.
    fn list_tree(&mut self, tree: &Tree<'_>) -> Arc<Vec<(String, Oid)>> {
        if let Some(list) = self.trees.get(&tree.id()) {
            return list.clone();
        }
        self.stats.trees_walked += 1;
        let mut out = Vec::new();
        for entry in tree.iter() {
            let Ok(name) = entry.name() else { continue };
            match entry.kind() {
                Some(ObjectType::Blob) if name.ends_with(".proto") => {
                    out.push((name.to_string(), entry.id()));
                }
                Some(ObjectType::Tree) => {
                    let Ok(sub) = self.repo.find_tree(entry.id()) else {
                        continue;
                    };
                    let list = self.list_tree(&sub);
                    out.extend(list.iter().map(|(p, id)| (format!("{name}/{p}"), *id)));
                }
                _ => {}
            }
        }
        let list = Arc::new(out);
        self.trees.insert(tree.id(), list.clone());
        list
    }

    fn read_blob(&mut self, id: Oid) -> Result<Arc<str>, String> {
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

    /// The working tree as a version, when its `.proto` files differ from HEAD's.
    fn worktree_version(&mut self, opts: &HistoryOptions) -> Option<Version> {
        let workdir = self.repo.workdir()?.to_path_buf();
        let (roots, roots_from) = if opts.proto_paths.is_empty() {
            roots_from_buf_files(|p| std::fs::read_to_string(workdir.join(p)).ok())
        } else {
            (
                Roots {
                    roots: opts.proto_paths.iter().map(|p| buf::clean(p)).collect(),
                    excludes: Vec::new(),
                },
                "--proto-path".into(),
            )
        };
        let mut files = Vec::new();
        let mut taken = std::collections::HashSet::new();
        for root in &roots.roots {
            let dir = if root == "." {
                workdir.clone()
            } else {
                workdir.join(root)
            };
            let mut found = Vec::new();
            walk_dir(self.repo, &workdir, &dir, "", 0, &mut found);
            found.sort();
            for (path, bytes) in found {
                let repo_path = join(root, &path);
                if excluded(&repo_path, &roots.excludes) || !taken.insert(path.clone()) {
                    continue;
                }
                let blob = Oid::hash_object(ObjectType::Blob, &bytes)
                    .map(|o| o.to_string())
                    .unwrap_or_default();
                files.push(SourceFile {
                    path,
                    repo_path,
                    blob,
                    text: decode_text(&bytes),
                });
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));

        let head = self.repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        if let Some(head) = &head {
            let head_version = self
                .commit_version(head.id(), "HEAD", None, VersionKind::Rev, opts)
                .ok()?;
            let same = head_version.files.len() == files.len()
                && head_version
                    .files
                    .iter()
                    .zip(&files)
                    .all(|(a, b)| a.path == b.path && a.blob == b.blob);
            if same && !opts.worktree_always {
                return None;
            }
        } else if files.is_empty() {
            return None;
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        Some(Version {
            name: "WORKTREE".into(),
            semver: None,
            kind: VersionKind::Worktree,
            commit: head.map(|h| h.id().to_string()).unwrap_or_default(),
            time: now,
            offset_minutes: 0,
            message: None,
            proto_roots: roots.roots,
            roots_from,
            files,
            manifest: std::fs::read_to_string(workdir.join(super::BUFFRS_MANIFEST)).ok(),
            ancestors: None,
        })
    }
}

/// The text of a file of `tree` (a path relative to its top), if it exists and is UTF-8.
fn read_tree_text(repo: &Repository, tree: &Tree<'_>, path: &str) -> Option<String> {
    let entry = tree.get_path(Path::new(path)).ok()?;
    let blob = repo.find_blob(entry.id()).ok()?;
    std::str::from_utf8(blob.content()).ok().map(str::to_string)
}

/// Roots from `buf.work.yaml` or `buf.yaml`, read with `read` (a path relative to the
/// repository root -> its text), else the repository root.
fn roots_from_buf_files(read: impl Fn(&str) -> Option<String>) -> (Roots, String) {
    if let Some(text) = read("buf.work.yaml")
        && let Ok(dirs) = buf::parse_buf_work(&text)
    {
        let mut all = Roots::default();
        for dir in dirs {
            match read(&format!("{dir}/buf.yaml")).map(|t| buf::parse_buf_yaml(&dir, &t)) {
                Some(Ok(r)) => {
                    all.roots.extend(r.roots);
                    all.excludes.extend(r.excludes);
                }
                _ => all.roots.push(dir),
            }
        }
        if !all.roots.is_empty() {
            return (all, "buf.work.yaml".into());
        }
    }
    if let Some(text) = read("buf.yaml")
        && let Ok(r) = buf::parse_buf_yaml(".", &text)
    {
        return (r, "buf.yaml".into());
    }
    // A buffrs package keeps its protos under `proto/`.
    if read(super::BUFFRS_MANIFEST).is_some() {
        return (
            Roots {
                roots: vec!["proto".into()],
                excludes: Vec::new(),
            },
            super::BUFFRS_MANIFEST.into(),
        );
    }
    (
        Roots {
            roots: vec![".".into()],
            excludes: Vec::new(),
        },
        "repository root".into(),
    )
}

fn decode_text(bytes: &[u8]) -> Result<Arc<str>, String> {
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

fn join(root: &str, path: &str) -> String {
    if root == "." {
        path.to_string()
    } else {
        format!("{root}/{path}")
    }
}

fn excluded(repo_path: &str, excludes: &[String]) -> bool {
    excludes.iter().any(|e| {
        repo_path
            .strip_prefix(e.as_str())
            .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// Collects `.proto` files below `dir` (not ignored by git, not inside `.git`).
fn walk_dir(
    repo: &Repository,
    workdir: &Path,
    dir: &Path,
    rel: &str,
    depth: usize,
    out: &mut Vec<(String, Vec<u8>)>,
) {
    if depth > 64 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name == ".git" {
            continue;
        }
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let rel_path = if rel.is_empty() {
            name.to_string()
        } else {
            format!("{rel}/{name}")
        };
        let ignored = path
            .strip_prefix(workdir)
            .ok()
            .and_then(|p| repo.status_should_ignore(p).ok())
            .unwrap_or(false);
        if ignored {
            continue;
        }
        if kind.is_dir() {
            walk_dir(repo, workdir, &path, &rel_path, depth + 1, out);
        } else if kind.is_file()
            && name.ends_with(".proto")
            && let Ok(bytes) = std::fs::read(&path)
        {
            out.push((rel_path, bytes));
        }
    }
}
