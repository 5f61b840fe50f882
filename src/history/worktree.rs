//! The working tree as a version: its `.proto` files as they are on disk (not ignored by
//! git, not inside `.git`), following symbolic links that stay inside the work tree.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use git2::{ObjectType, Oid, Repository};

use super::buf::{Roots, given_roots, roots_from_buf_files};
use super::links::{End, MAX_FOLDER_LINKS, MAX_HOPS, contains, origin};
use super::resolve::{FileSet, TreeFiles, join, shown_path};
use super::tree::{Reader, decode_text};
use super::{HistoryOptions, SourceFile, Version, VersionKind};

/// Folders below a root deeper than this are not read.
const MAX_DEPTH: usize = 64;

impl Reader<'_> {
    /// The working tree as a version, when its `.proto` files differ from HEAD's.
    pub(super) fn worktree_version(&mut self, opts: &HistoryOptions) -> Option<Version> {
        let workdir = self.repo.workdir()?.to_path_buf();
        let mut set = FileSet::default();
        let (roots, roots_from) = match given_roots(opts)
            .map(Ok)
            .unwrap_or_else(|| roots_from_buf_files(|p| crate::small_file::read(&workdir, p).ok()))
        {
            Ok(found) => found,
            Err(problem) => {
                set.problem(problem);
                (Roots::default(), "buf files".to_string())
            }
        };
        let walker = Walker {
            repo: self.repo,
            canon: std::fs::canonicalize(&workdir).ok()?,
            workdir: workdir.clone(),
        };
        for root in &roots.roots {
            walker.collect_root(root, &roots.excludes, &mut set);
        }
        let (files, resolution, problems) = set.finish(&mut WorkTree {
            walker: &walker,
            index: None,
        });

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
                    .all(|(a, b)| a.path == b.path && a.blob == b.blob && a.origin == b.origin);
            let same = same && head_version.problems == problems;
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
            resolution,
            problems,
            manifest: crate::small_file::read(&workdir, super::BUFFRS_MANIFEST).ok(),
            dependencies: super::buf::dependency_pins(|p| {
                crate::small_file::read(&workdir, p).ok()
            }),
            ancestors: None,
        })
    }
}

/// Reads the work tree of `repo`; never outside `canon` (the work tree, links resolved).
struct Walker<'r> {
    repo: &'r Repository,
    workdir: PathBuf,
    canon: PathBuf,
}

/// A link as seen: its import path, where it is, and its path through the root.
struct Seen {
    import: String,
    real: String,
    side: String,
}

/// A folder still to read: its files appear under `prefix` (an import path).
struct Dir {
    fs: PathBuf,
    prefix: String,
    /// Where it really is, relative to the work tree (`.` for the top).
    real: String,
    depth: usize,
    /// Real folders reached through links on the way here.
    chain: Vec<String>,
}

impl Walker<'_> {
    /// `path` (absolute, links resolved) relative to the work tree, if it is inside it and
    /// not in `.git`.
    fn inside(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(&self.canon).ok()?;
        if rel.components().next() == Some(Component::Normal(".git".as_ref())) {
            return None;
        }
        let rel = rel.to_str()?.to_string();
        Some(if rel.is_empty() { ".".into() } else { rel })
    }

    fn ignored(&self, real: &str) -> bool {
        self.repo
            .status_should_ignore(Path::new(real))
            .unwrap_or(false)
    }

    /// The entries of a folder, sorted by name (names that are not UTF-8 and `.git` left out).
    fn entries(dir: &Path) -> Vec<(String, PathBuf, std::fs::FileType)> {
        let Ok(read) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut out: Vec<_> = read
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                let kind = e.file_type().ok()?;
                (name != ".git").then(|| (name, e.path(), kind))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Adds the `.proto` files under `root` to `set`, like [`Reader::collect_root`] does for a
    /// commit: links inside the work tree followed, others not.
    fn collect_root(&self, root: &str, excludes: &[String], set: &mut FileSet) {
        let start = if root == "." {
            self.workdir.clone()
        } else {
            self.workdir.join(root)
        };
        let Some(real) = std::fs::canonicalize(&start)
            .ok()
            .and_then(|c| self.inside(&c))
        else {
            return;
        };
        let mut stack = vec![Dir {
            fs: start,
            prefix: String::new(),
            chain: vec![real.clone()],
            real,
            depth: 0,
        }];
        while let Some(dir) = stack.pop() {
            for (name, fs, kind) in Self::entries(&dir.fs) {
                let import = join(&dir.prefix, &name);
                let real = join(&dir.real, &name);
                let side = join(root, &import);
                if self.ignored(&real) {
                    continue;
                }
                if kind.is_dir() {
                    if dir.depth < MAX_DEPTH {
                        stack.push(Dir {
                            fs,
                            prefix: import,
                            real,
                            depth: dir.depth + 1,
                            chain: dir.chain.clone(),
                        });
                    }
                } else if kind.is_file() {
                    if name.ends_with(".proto")
                        && set.wants(&import)
                        && let Ok(bytes) = std::fs::read(&fs)
                    {
                        set.push(file(
                            import,
                            real.clone(),
                            &bytes,
                            origin(&side, &real, excludes),
                        ));
                    }
                } else if kind.is_symlink() {
                    let seen = Seen { import, real, side };
                    self.link(&dir, &fs, seen, excludes, set, &mut stack);
                }
            }
        }
    }

    /// A link at `real` (seen at the import path `import`): followed when it stays inside
    /// the work tree, like the committed links in [`Reader::collect_root`].
    fn link(
        &self,
        dir: &Dir,
        fs: &Path,
        seen: Seen,
        excludes: &[String],
        set: &mut FileSet,
        stack: &mut Vec<Dir>,
    ) {
        let Seen { import, real, side } = seen;
        let raw = std::fs::read_link(fs).unwrap_or_default();
        let target = raw.to_string_lossy().into_owned();
        let shown = shown_path(&real);
        let named_proto = import.ends_with(".proto");
        let folder = real.rsplit_once('/').map_or("", |(d, _)| d);
        let end = match std::fs::canonicalize(fs) {
            // Decided on the text first, as for a commit: an absolute target, or one that
            // climbs above the top, leaves the repository even where it happens to exist.
            _ if climbs_out(folder, &raw) => End::Leaves,
            Err(_) if too_many_hops(fs) => End::TooManyHops,
            Err(_) => End::Missing,
            Ok(c) => match self.inside(&c) {
                None => End::Leaves,
                Some(to) if c.is_dir() => End::Dir {
                    real: to,
                    id: Oid::ZERO_SHA1,
                },
                Some(to) if c.is_file() => End::File {
                    real: to,
                    id: Oid::ZERO_SHA1,
                },
                Some(_) => End::Missing,
            },
        };
        match end {
            End::File { real: to, .. } => {
                if named_proto
                    && set.wants(&import)
                    && let Ok(bytes) = std::fs::read(self.canon.join(&to))
                {
                    set.note(&format!(
                        "link `{shown}` -> `{}` followed",
                        shown_path(&target)
                    ));
                    let origin = origin(&side, &to, excludes);
                    set.push(file(import, to, &bytes, origin));
                }
            }
            End::Dir { real: to, .. } => {
                let target = shown_path(&target);
                if contains(&to, &real) || dir.chain.contains(&to) {
                    set.note(&format!(
                        "link `{shown}` -> `{target}` leads to a folder that contains it (a cycle)"
                    ));
                } else if set.folder_links >= MAX_FOLDER_LINKS {
                    set.note(&format!(
                        "link `{shown}` -> `{target}` not followed: more than {MAX_FOLDER_LINKS} folder links in this version"
                    ));
                } else if dir.depth < MAX_DEPTH {
                    set.folder_links += 1;
                    set.note(&format!("link `{shown}` -> `{target}` followed"));
                    let mut chain = dir.chain.clone();
                    chain.push(to.clone());
                    stack.push(Dir {
                        fs: self.canon.join(&to),
                        prefix: import,
                        real: to,
                        depth: dir.depth + 1,
                        chain,
                    });
                }
            }
            refused => {
                let Some(why) = refused.refusal(&target) else {
                    return;
                };
                if !named_proto {
                    if refused == End::Leaves {
                        set.note(&format!("link `{shown}`: {why}"));
                    }
                    return;
                }
                if set.wants(&import) {
                    set.note(&format!("link `{shown}`: {why}"));
                    // Git's blob id of a link is the hash of its target.
                    let blob =
                        Oid::hash_object(ObjectType::Blob, raw.as_os_str().as_encoded_bytes())
                            .map(|o| o.to_string())
                            .unwrap_or_default();
                    set.push(SourceFile {
                        path: import,
                        origin: origin(&side, &real, excludes),
                        repo_path: real,
                        blob,
                        text: Err(why),
                    });
                }
            }
        }
    }
}

/// Whether `target`, read from the folder `folder` (relative to the work tree), is absolute
/// or has more `..` than folders above it.
fn climbs_out(folder: &str, target: &Path) -> bool {
    let mut depth = folder
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .count();
    for part in target.components() {
        match part {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return true,
            },
            Component::RootDir | Component::Prefix(_) => return true,
        }
    }
    false
}

/// Whether the link at `fs` is a chain of more than [`MAX_HOPS`] links (a cycle, usually).
fn too_many_hops(fs: &Path) -> bool {
    let mut path = fs.to_path_buf();
    for _ in 0..=MAX_HOPS {
        let Ok(target) = std::fs::read_link(&path) else {
            return false;
        };
        path = path.parent().map_or(target.clone(), |p| p.join(&target));
    }
    true
}

/// A file of the work tree, its blob id computed the way git does.
fn file(path: String, repo_path: String, bytes: &[u8], origin: super::Origin) -> SourceFile {
    SourceFile {
        path,
        repo_path,
        blob: Oid::hash_object(ObjectType::Blob, bytes)
            .map(|o| o.to_string())
            .unwrap_or_default(),
        text: decode_text(bytes),
        origin,
    }
}

/// The whole work tree, for the imports found in no proto root.
struct WorkTree<'a, 'r> {
    walker: &'a Walker<'r>,
    /// File name -> repository paths, built on first use.
    index: Option<HashMap<String, Vec<String>>>,
}

impl WorkTree<'_, '_> {
    /// Every `.proto` file of the work tree, by name (links not followed; iterative).
    fn index(&mut self) -> &HashMap<String, Vec<String>> {
        self.index.get_or_insert_with(|| {
            let mut index: HashMap<String, Vec<String>> = HashMap::new();
            let mut stack = vec![(self.walker.workdir.clone(), String::new(), 0usize)];
            while let Some((dir, rel, depth)) = stack.pop() {
                for (name, fs, kind) in Walker::entries(&dir) {
                    let path = join(&rel, &name);
                    if self.walker.ignored(&path) {
                        continue;
                    }
                    if kind.is_dir() && depth < MAX_DEPTH {
                        stack.push((fs, path, depth + 1));
                    } else if kind.is_file() && name.ends_with(".proto") {
                        index.entry(name).or_default().push(path);
                    }
                }
            }
            index
        })
    }
}

impl TreeFiles for WorkTree<'_, '_> {
    fn named(&mut self, name: &str) -> Vec<String> {
        self.index().get(name).cloned().unwrap_or_default()
    }

    fn read(&mut self, repo_path: &str) -> Option<(String, Result<Arc<str>, String>)> {
        let name = repo_path.rsplit('/').next().unwrap_or(repo_path);
        if !self.index().get(name)?.iter().any(|p| p == repo_path) {
            return None;
        }
        let bytes = std::fs::read(self.walker.workdir.join(repo_path)).ok()?;
        let f = file(String::new(), String::new(), &bytes, super::Origin::Tree);
        Some((f.blob, f.text))
    }
}
