//! The working tree as a version: its `.proto` files as they are on disk (those git would
//! commit: tracked, or untracked and not ignored; not inside `.git`), following symbolic
//! links that stay inside the work tree.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use git2::{ObjectType, Oid, Repository};

use super::buf::{Roots, given_roots, roots_from_buf_files};
use super::links::{
    End, MAX_FOLDER_LINKS, contains, origin, root_refused, submodule_note, too_deep,
};
use super::path_walk::{Step, walk};
use super::resolve::{FileSet, TreeFiles, join, shown_path};
use super::tree::{Budget, Reader, decode_text, over_cap};
use super::{HistoryOptions, SourceFile, Version, VersionKind};

impl Reader<'_> {
    /// The working tree as a version, when its `.proto` files differ from HEAD's.
    pub(super) fn worktree_version(&mut self, opts: &HistoryOptions) -> Option<Version> {
        let workdir = super::git::workdir(self.repo)?.to_path_buf();
        let walker = Walker::new(self.repo, &workdir);
        let mut set = FileSet::default();
        let (roots, roots_from) = match given_roots(opts)
            .map(Ok)
            .unwrap_or_else(|| roots_from_buf_files(|p| walker.config_text(p)))
        {
            Ok(found) => found,
            Err(problem) => {
                set.problem(problem);
                (Roots::default(), "buf files".to_string())
            }
        };
        for root in &roots.roots {
            walker.collect_root(root, &roots.excludes, &mut set);
        }
        let (mut files, mut resolution, mut problems) = set.finish(&mut WorkTree {
            walker: &walker,
            index: None,
        });
        let paths = super::scope::normalize(&opts.paths);
        if !paths.is_empty() {
            let imported = super::scope::retain_closure(&mut files, &paths);
            resolution.push(super::scope::note(&paths, files.len() - imported, imported));
        }
        let (dependencies, lock_problems) = super::buf::dependency_pins(|p| walker.config_text(p));
        problems.extend(lock_problems);

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
            name: super::WORKTREE.into(),
            semver: None,
            kind: VersionKind::Worktree,
            commit: head.map(|h| h.id().to_string()).unwrap_or_default(),
            time: now,
            offset_minutes: 0,
            message: None,
            proto_roots: roots.roots,
            roots_from,
            files: files.into(),
            resolution,
            problems,
            manifest: walker.config_text(super::BUFFRS_MANIFEST),
            dependencies,
            ancestors: None,
        })
    }
}

/// Reads the work tree of `repo` with the rules of a commit: paths resolved by
/// [`walk`] (links followed by their text, never out of the work tree), the same path
/// limits ([`Budget`]), submodules not entered.
struct Walker<'r> {
    repo: &'r Repository,
    workdir: PathBuf,
    /// Submodules registered in the index (checked out or not), by path.
    gitlinks: HashSet<String>,
    /// Every path in the index: a tracked file is part of the tree even where `.gitignore`
    /// matches it (`git add -f`), as it is in every commit.
    tracked: BTreeSet<String>,
}

/// A link as seen: its import path, where it is, and its path through the root.
struct Seen {
    import: String,
    real: String,
    side: String,
}

/// A folder still to read: its files appear under `prefix` (an import path).
struct Dir {
    prefix: String,
    /// Where it really is, relative to the work tree (`.` for the top).
    real: String,
    budget: Budget,
    /// Real folders reached through links on the way here.
    chain: Vec<String>,
}

impl<'r> Walker<'r> {
    fn new(repo: &'r Repository, workdir: &Path) -> Walker<'r> {
        let mut gitlinks = HashSet::new();
        let mut tracked = BTreeSet::new();
        if let Ok(index) = repo.index() {
            for e in index.iter() {
                if let Ok(path) = String::from_utf8(e.path) {
                    if e.mode == 0o160000 {
                        gitlinks.insert(path.clone());
                    }
                    tracked.insert(path);
                }
            }
        }
        Walker {
            repo,
            workdir: workdir.to_path_buf(),
            gitlinks,
            tracked,
        }
    }

    /// The folder at `real` (relative to the work tree) on disk.
    fn fs(&self, real: &str) -> PathBuf {
        if real == "." || real.is_empty() {
            self.workdir.clone()
        } else {
            self.workdir.join(real)
        }
    }

    /// Whether the folder `real` is a submodule (registered, or a repository of its own).
    fn submodule(&self, real: &str) -> bool {
        self.gitlinks.contains(real)
            || std::fs::symlink_metadata(self.fs(real).join(".git")).is_ok()
    }

    /// Where `path`, relative to the folder `base`, leads in the work tree: [`walk`] over
    /// what is on disk (never following anything but links inside it).
    fn resolve(&self, base: &str, path: &str) -> End {
        walk(Oid::ZERO_SHA1, base, path, |_, names, name| {
            let real = join(&names.join("/"), name);
            let fs = self.fs(&real);
            match std::fs::symlink_metadata(&fs) {
                Ok(m) if m.file_type().is_symlink() => Step::Link(
                    std::fs::read_link(&fs)
                        .ok()
                        .and_then(|t| t.to_str().map(str::to_string)),
                ),
                Ok(m) if m.is_dir() && !self.submodule(&real) => Step::Dir(Oid::ZERO_SHA1),
                Ok(m) if m.is_file() => Step::File(Oid::ZERO_SHA1),
                _ => Step::Missing,
            }
        })
    }

    /// The text of a small config file of the work tree (`buf.yaml`, ...): reached by the
    /// rule of a commit ([`walk`]), then read as `small_file` reads (a regular file, capped).
    fn config_text(&self, path: &str) -> Option<String> {
        let End::File { real, .. } = self.resolve("", path) else {
            return None;
        };
        crate::small_file::read(&self.workdir, real).ok()
    }

    /// Whether `real` is left out as git leaves it out: ignored, and neither tracked itself
    /// nor a folder holding a tracked file.
    fn ignored(&self, real: &str) -> bool {
        let ignored = self
            .repo
            .status_should_ignore(Path::new(real))
            .unwrap_or(false);
        ignored && !self.tracked.contains(real) && !self.holds_tracked(real)
    }

    /// Whether some tracked path lies under the folder `real`.
    fn holds_tracked(&self, real: &str) -> bool {
        let prefix = format!("{real}/");
        self.tracked
            .range(prefix.clone()..)
            .next()
            .is_some_and(|p| p.starts_with(&prefix))
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
    /// commit: links inside the work tree followed, others not; a root that leads out of it
    /// is a problem.
    fn collect_root(&self, root: &str, excludes: &[String], set: &mut FileSet) {
        let real = match self.resolve("", root) {
            End::Dir { real, .. } => real,
            end => {
                if let Some(problem) = root_refused(root, &end) {
                    set.problem(problem);
                }
                return;
            }
        };
        let mut stack = vec![Dir {
            prefix: String::new(),
            chain: vec![real.clone()],
            real,
            budget: Budget::TOP,
        }];
        while let Some(dir) = stack.pop() {
            for (name, fs, kind) in Self::entries(&self.fs(&dir.real)) {
                let import = join(&dir.prefix, &name);
                let real = join(&dir.real, &name);
                let side = join(root, &import);
                if self.ignored(&real) {
                    continue;
                }
                if kind.is_dir() {
                    if self.submodule(&real) {
                        if dir.budget.fits(&name) {
                            set.note(&submodule_note(&real));
                        } else {
                            set.problem(too_deep(&real));
                        }
                    } else if let Some(budget) = dir.budget.enter(&name) {
                        stack.push(Dir {
                            prefix: import,
                            real,
                            budget,
                            chain: dir.chain.clone(),
                        });
                    } else {
                        set.problem(too_deep(&real));
                    }
                } else if kind.is_file() {
                    if !name.ends_with(".proto") || !set.wants(&import) {
                        continue;
                    }
                    if !dir.budget.fits(&name) {
                        set.problem(too_deep(&real));
                    } else if let Some(f) =
                        file(import, real.clone(), &fs, origin(&side, &real, excludes))
                    {
                        set.push(f);
                    }
                } else if kind.is_symlink() {
                    if !dir.budget.fits(&name) {
                        set.problem(too_deep(&real));
                        continue;
                    }
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
        let end = match raw.to_str() {
            Some(t) => self.resolve(folder, t),
            None => End::Missing,
        };
        match end {
            End::File { real: to, .. } => {
                let origin = origin(&side, &to, excludes);
                let fs = self.fs(&to);
                if named_proto
                    && set.wants(&import)
                    && let Some(f) = file(import, to, &fs, origin)
                {
                    set.note(&format!(
                        "link `{shown}` -> `{}` followed",
                        shown_path(&target)
                    ));
                    set.push(f);
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
                } else {
                    set.folder_links += 1;
                    set.note(&format!("link `{shown}` -> `{target}` followed"));
                    let mut chain = dir.chain.clone();
                    chain.push(to.clone());
                    stack.push(Dir {
                        prefix: import,
                        real: to,
                        budget: Budget::TOP,
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

/// The regular file at `fs` in the work tree, its blob id computed the way git does; `None`
/// when it cannot be read. Its size is looked at first: a file over the per-file cap is
/// hashed as a stream and reported, never held in memory whole, and a file that grows while
/// it is read is read no further than the cap.
fn file(path: String, repo_path: String, fs: &Path, origin: super::Origin) -> Option<SourceFile> {
    use std::io::Read;
    let meta = std::fs::metadata(fs).ok()?;
    if !meta.is_file() {
        return None;
    }
    let (blob, text) = match over_cap(meta.len()) {
        Some(why) => (Oid::hash_file(ObjectType::Blob, fs).ok()?, Err(why)),
        None => {
            let cap = crate::limits::get().file_bytes as u64;
            let mut bytes = Vec::new();
            std::fs::File::open(fs)
                .ok()?
                .take(cap.saturating_add(1))
                .read_to_end(&mut bytes)
                .ok()?;
            let blob = Oid::hash_object(ObjectType::Blob, &bytes).ok()?;
            (blob, decode_text(&bytes))
        }
    };
    Some(SourceFile {
        path,
        repo_path,
        blob: blob.to_string(),
        text,
        origin,
    })
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
            let mut stack = vec![(String::new(), Budget::TOP)];
            while let Some((rel, budget)) = stack.pop() {
                for (name, _, kind) in Walker::entries(&self.walker.fs(&rel)) {
                    let path = join(&rel, &name);
                    if self.walker.ignored(&path) {
                        continue;
                    }
                    if kind.is_dir() && !self.walker.submodule(&path) {
                        if let Some(budget) = budget.enter(&name) {
                            stack.push((path, budget));
                        }
                    } else if kind.is_file() && name.ends_with(".proto") && budget.fits(&name) {
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
        let fs = self.walker.workdir.join(repo_path);
        let f = file(String::new(), String::new(), &fs, super::Origin::Tree)?;
        Some((f.blob, f.text))
    }
}
