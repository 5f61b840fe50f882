//! The `.proto` files under a proto root of a commit, following the symbolic links committed
//! in git (a blob with mode `120000` whose content is the target) the way a checkout and
//! `protoc -I` would, but never out of the repository and never around a cycle.

use std::collections::VecDeque;

use super::path_walk::{Step, walk};

use git2::{Oid, Tree};

use super::ReadProblem;
use super::buf::excluded;
use super::resolve::vendor_dir;
use super::resolve::{FileSet, join, shown_path};
use super::tree::{Entry, Kind, MAX_PATH_BYTES, MAX_PATH_DEPTH, Reader, is_link};
use super::{Origin, SourceFile};

/// Links followed in one resolution (a link to a link to ...), like the kernel's limit.
pub(super) const MAX_HOPS: usize = 16;
/// Folder links followed per version.
pub(super) const MAX_FOLDER_LINKS: usize = 256;
/// Longest link target read.
const MAX_TARGET_BYTES: usize = 4096;

/// Where a path leads in a commit's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum End {
    File { real: String, id: Oid },
    Dir { real: String, id: Oid },
    Leaves,
    Missing,
    TooManyHops,
}

impl End {
    /// Why a link to `target` was not followed (`None`: it was).
    pub(super) fn refusal(&self, target: &str) -> Option<String> {
        let target = shown_path(target);
        match self {
            End::File { .. } | End::Dir { .. } => None,
            End::Leaves => Some(format!(
                "symbolic link to `{target}` leaves the repository; not followed"
            )),
            End::Missing => Some(format!(
                "symbolic link to `{target}` points to nothing in this version"
            )),
            End::TooManyHops => Some(format!(
                "symbolic link to `{target}` goes through more than {MAX_HOPS} links; not followed"
            )),
        }
    }
}

/// Why the proto root `root`, leading to `end`, is not read, when that is a problem: it
/// leaves the repository, or goes around a cycle of links (a root missing from an older
/// version is no problem). Fatal: what the owners build from is unknown.
pub(super) fn root_refused(root: &str, end: &End) -> Option<ReadProblem> {
    let why = match end {
        End::Leaves => {
            "leads out of the repository (an absolute path, a `..` above its top, or a symbolic link to such a place)"
        }
        End::TooManyHops => "goes through more than 16 symbolic links (a cycle?)",
        _ => return None,
    };
    Some(ReadProblem {
        path: shown_path(root),
        message: format!(
            "proto root {why}; nothing is read outside the repository, so this version is not compiled (point -I or proto_paths at a folder inside it)"
        ),
        fatal: true,
    })
}

/// The note on a submodule met under a proto root, in a commit or in the working tree alike:
/// its files are another repository's, which protolapse does not read.
pub(super) fn submodule_note(real: &str) -> String {
    format!(
        "submodule `{}` not read: its files belong to another repository",
        shown_path(real)
    )
}

/// The problem of a folder under a proto root deeper than the path limits (in a commit or
/// in the working tree alike): not read, and said.
pub(super) fn too_deep(real: &str) -> ReadProblem {
    ReadProblem {
        path: shown_path(real),
        message: format!(
            "deeper than {MAX_PATH_DEPTH} folders or {MAX_PATH_BYTES} bytes below its proto root; not read"
        ),
        fatal: false,
    }
}

/// The origin of a file seen at `side` (root + import path) whose content is at `real`: a
/// file reached through a link is excluded when either is (istio's `google` ->
/// `common-protos/google`, with `common-protos` excluded, stays excluded), and vendored (not
/// judged) when the link leads into a vendor folder (`google` -> `common-protos/google`).
pub(super) fn origin(side: &str, real: &str, excludes: &[String]) -> Origin {
    if excluded(side, excludes) || excluded(real, excludes) {
        Origin::Excluded
    } else if side != real && vendor_dir(real).is_some() && vendor_dir(side).is_none() {
        Origin::Tree
    } else {
        Origin::Root
    }
}

/// Whether following a folder link at `link` (a real path) to the folder `target` would list
/// a folder that contains the link (a cycle: `loop -> ..`).
pub(super) fn contains(target: &str, link: &str) -> bool {
    target == "." || target.is_empty() || link.starts_with(&format!("{target}/"))
}

/// A folder still to list: its files appear under `prefix` (an import path).
struct Pending {
    prefix: String,
    real: String,
    id: Oid,
    /// Tree ids reached through links on the way here.
    chain: Vec<Oid>,
}

impl Reader<'_> {
    /// Adds the `.proto` files under `root` (a folder of the repository) to `set`, following
    /// links; their origin comes from `excludes`.
    pub(super) fn collect_root(
        &mut self,
        top: &Tree<'_>,
        root: &str,
        excludes: &[String],
        set: &mut FileSet,
    ) {
        self.collect_root_below(top, root, "", excludes, set);
    }

    /// As [`Reader::collect_root`], only the files below the folder `sub` of the root (an
    /// import path; `` for the whole root; `--path`). A `sub` missing in this version adds
    /// nothing; a `sub` that is one `.proto` file adds it.
    pub(super) fn collect_root_below(
        &mut self,
        top: &Tree<'_>,
        root: &str,
        sub: &str,
        excludes: &[String],
        set: &mut FileSet,
    ) {
        let (real, id) = if root == "." {
            (".".to_string(), top.id())
        } else {
            match self.resolve(top, "", root) {
                End::Dir { real, id } => (real, id),
                end => {
                    if let Some(problem) = root_refused(root, &end) {
                        set.problem(problem);
                    }
                    return;
                }
            }
        };
        let (real, id) = if sub.is_empty() {
            (real, id)
        } else {
            match self.resolve(top, &real, sub) {
                End::Dir { real, id } => (real, id),
                End::File { real: to, id: blob } if sub.ends_with(".proto") => {
                    if set.wants(sub) {
                        set.push(SourceFile {
                            text: self.read_blob(blob),
                            blob: blob.to_string(),
                            origin: origin(&join(root, sub), &to, excludes),
                            path: sub.to_string(),
                            repo_path: to,
                        });
                    }
                    return;
                }
                _ => return,
            }
        };
        let mut queue = VecDeque::from([Pending {
            prefix: sub.to_string(),
            real,
            id,
            chain: vec![id],
        }]);
        while let Some(dir) = queue.pop_front() {
            let Ok(tree) = self.repo.find_tree(dir.id) else {
                continue;
            };
            let list = self.list_tree(&tree);
            for entry in list.iter() {
                let Entry { path, id, kind } = entry;
                let import = join(&dir.prefix, path);
                let real = join(&dir.real, path);
                let side = join(root, &import);
                match kind {
                    Kind::Submodule => {
                        set.note(&submodule_note(&real));
                        continue;
                    }
                    Kind::TooDeep => {
                        set.problem(too_deep(&real));
                        continue;
                    }
                    Kind::Proto | Kind::Link => {}
                }
                if *kind == Kind::Proto {
                    if set.wants(&import) {
                        set.push(SourceFile {
                            text: self.read_blob(*id),
                            blob: id.to_string(),
                            origin: origin(&side, &real, excludes),
                            path: import,
                            repo_path: real,
                        });
                    }
                    continue;
                }
                let target = self.link_target(*id);
                let folder = real.rsplit_once('/').map_or("", |(d, _)| d);
                let end = match &target {
                    Some(t) => self.resolve(top, folder, t),
                    None => End::Missing,
                };
                let target = target.unwrap_or_else(|| "?".into());
                let named_proto = import.ends_with(".proto");
                let shown = shown_path(&real);
                match end {
                    End::File { real: to, id: blob } => {
                        if named_proto && set.wants(&import) {
                            set.note(&format!(
                                "link `{shown}` -> `{}` followed",
                                shown_path(&target)
                            ));
                            set.push(SourceFile {
                                text: self.read_blob(blob),
                                blob: blob.to_string(),
                                origin: origin(&side, &to, excludes),
                                path: import,
                                repo_path: to,
                            });
                        }
                    }
                    End::Dir {
                        real: to,
                        id: tree_id,
                    } => {
                        let Ok(sub) = self.repo.find_tree(tree_id) else {
                            continue;
                        };
                        if self.list_tree(&sub).is_empty() {
                            continue;
                        }
                        let why = if contains(&to, &real) || dir.chain.contains(&tree_id) {
                            Some("leads to a folder that contains it (a cycle)".to_string())
                        } else if set.folder_links >= MAX_FOLDER_LINKS {
                            Some(format!(
                                "not followed: more than {MAX_FOLDER_LINKS} folder links in this version"
                            ))
                        } else {
                            None
                        };
                        let target = shown_path(&target);
                        if let Some(why) = why {
                            set.note(&format!("link `{shown}` -> `{target}` {why}"));
                            continue;
                        }
                        set.folder_links += 1;
                        set.note(&format!("link `{shown}` -> `{target}` followed"));
                        let mut chain = dir.chain.clone();
                        chain.push(tree_id);
                        queue.push_back(Pending {
                            prefix: import,
                            real: to,
                            id: tree_id,
                            chain,
                        });
                    }
                    refused => {
                        let Some(why) = refused.refusal(&target) else {
                            continue;
                        };
                        if !named_proto {
                            // A folder link, perhaps: nothing is read.
                            if refused == End::Leaves {
                                set.note(&format!("link `{shown}`: {why}"));
                            }
                            continue;
                        }
                        if set.wants(&import) {
                            set.note(&format!("link `{shown}`: {why}"));
                            set.push(SourceFile {
                                text: Err(why),
                                blob: id.to_string(),
                                origin: origin(&side, &real, excludes),
                                path: import,
                                repo_path: real,
                            });
                        }
                    }
                }
            }
        }
    }

    /// Where `path`, relative to the folder `base` (a real path of `top`, `` for the top),
    /// leads in `top`, following links on the way; never above `top` (see [`walk`]).
    pub(super) fn resolve(&mut self, top: &Tree<'_>, base: &str, path: &str) -> End {
        walk(top.id(), base, path, |here, _, name| {
            let Some(tree) = self.tree(here) else {
                return Step::Missing;
            };
            let Some(entry) = tree.get_name(name) else {
                return Step::Missing;
            };
            let id = entry.id();
            match entry.kind() {
                Some(git2::ObjectType::Tree) => Step::Dir(id),
                Some(git2::ObjectType::Blob) if is_link(entry.filemode()) => {
                    Step::Link(self.link_target(id))
                }
                Some(git2::ObjectType::Blob) => Step::File(id),
                _ => Step::Missing,
            }
        })
    }

    /// The target of the link blob `id` (cached), if it is a short UTF-8 path.
    fn link_target(&mut self, id: Oid) -> Option<String> {
        if let Some(t) = self.link_targets.get(&id) {
            return t.clone();
        }
        // The size from the object's header first: a huge "link" is not inflated.
        let small = self
            .repo
            .odb()
            .and_then(|odb| odb.read_header(id))
            .is_ok_and(|(size, _)| size <= MAX_TARGET_BYTES);
        let target = small
            .then(|| self.repo.find_blob(id).ok())
            .flatten()
            .and_then(|b| std::str::from_utf8(b.content()).ok().map(str::to_string));
        self.link_targets.insert(id, target.clone());
        target
    }
}
