//! History: git tags (and extra revisions, and the working tree) -> ordered versions, each
//! with the source text of its `.proto` files. Or, with `--commits`, the commits of a range
//! that changed the schema in scope (`commits`); `--path` limits every version to some
//! folders and what their files import (`scope`).
//!
//! This is the only module that uses `git2`. The repository is opened read-only: nothing is
//! checked out, no hook runs, nothing is written. No git type leaves this module: a
//! [`Version`] carries plain strings (commit id, blob ids, source text).
//!
//! Each version's file set is resolved on its own, the way the owners' build (buf,
//! `protoc -I`) would: the files under its proto roots (`git`, `worktree`), committed
//! symbolic links followed inside the repository and never out of it (`links`, by the one
//! path rule of `path_walk`, for commits and the working tree alike; submodules never
//! entered; listings stop at the path limits of `tree`), files
//! excluded by `buf.yaml` kept for their importers, imports found in no root looked up in
//! the whole tree, and a file reachable at two import paths kept once (`resolve`).
//!
//! May import: nothing of ours but the leaves `proto_text` (import statements), `origin`,
//! `limits` (the per-file cap) and `small_file` (the working tree's config files, bounded).
//! Must not import `schema`, `diff`, `rules`, `ui`.

mod buf;
mod commits;
pub mod demo;
mod duplicates;
mod git;
mod links;
mod order;
mod path_walk;
mod resolve;
mod scope;
mod tags;
mod tree;
mod worktree;

use std::path::PathBuf;
use std::sync::Arc;

pub use crate::origin::Origin;
pub use buf::DepPin;
pub use buf::{clean as clean_path, parse_buf_work};
pub use git::{load, repo_root};
pub use order::{parse_tag_version, tag_prefix};

/// What to load from a repository.
#[derive(Debug, Clone, Default)]
pub struct HistoryOptions {
    /// A glob over tag names (`physics/v*`); its literal prefix is stripped before the rest is
    /// parsed as semver. `None`: every tag that is semver after an optional `v`.
    pub tags: Option<String>,
    /// Extra revisions to load as versions (`main`, a commit id, ...), after the tags.
    pub revs: Vec<String>,
    /// Proto paths given on the command line or in `protolapse.toml`; empty means "from each
    /// version's `buf.yaml`/`buf.work.yaml`, else the repository root".
    pub proto_paths: Vec<String>,
    /// Names a command refers to (`diff OLD NEW`, `check --against`, `graph --at`): each
    /// that no selected tag answers to ([`Version::answers_to`]), that is not `WORKTREE` nor
    /// one of `revs`, and that git resolves (a branch, `HEAD~5`, a commit id, a tag not
    /// selected) is loaded as one more revision, after the tags and before `revs`. A name git
    /// does not know is left out: the command reports it as an unknown version.
    pub wanted: Vec<String>,
    /// Add the working tree as a version `WORKTREE` when its protos differ from HEAD.
    pub worktree: bool,
    /// Add `WORKTREE` even when it equals HEAD (the subject of `check`).
    pub worktree_always: bool,
    /// Versions from commits instead of tags: the commits of this range (`HEAD`, `main`,
    /// `A..B`; first parents only) that changed a `.proto` file in scope, oldest first.
    pub commits: Option<String>,
    /// Limit every version to the files under these folders (repository paths, or import
    /// paths below a proto root) and the files they import, transitively. Empty: every file.
    pub paths: Vec<String>,
}

/// The buffrs manifest, read at the repository root of each version.
pub const BUFFRS_MANIFEST: &str = "Proto.toml";

/// How a version was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VersionKind {
    Tag,
    Rev,
    Worktree,
    /// A commit that changed the schema in scope (`--commits`); named by its short hash, or
    /// by the tag on it.
    Commit,
}

/// A version's identity: its place in the history's order (tags by version number, then the
/// extra revisions, then the working tree). Cheap to copy; every layer above refers to a
/// version by it, never by name or by pointer. Valid for the history it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
#[serde(transparent)]
pub struct VersionId(pub u32);

impl VersionId {
    /// The id of the version at `index` in the history's order.
    pub fn at(index: usize) -> VersionId {
        VersionId(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// Its position in the history's order.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One version of the schema: a tag, a revision or the working tree.
#[derive(Debug, Clone)]
pub struct Version {
    pub name: String,
    pub semver: Option<semver::Version>,
    pub kind: VersionKind,
    /// Full hex commit id (for `WORKTREE`: the HEAD it is based on, or empty).
    pub commit: String,
    /// Commit time, seconds since the epoch, and the committer's UTC offset in minutes.
    pub time: i64,
    pub offset_minutes: i32,
    /// The annotated tag's message, if any; a commit version's: the commit's subject.
    pub message: Option<String>,
    /// The proto roots used for this version, relative to the repository root ("." = root).
    pub proto_roots: Vec<String>,
    /// Where the proto roots came from (`-I`, `protolapse.toml`, `buf.yaml`, `repository root`).
    pub roots_from: String,
    /// The `.proto` files, by import path (relative to their proto root), sorted by path:
    /// those under the proto roots (committed links followed inside the repository), those
    /// excluded by `buf.yaml`, and imports found in no root but elsewhere in the tree. A file
    /// reachable at two import paths (`X/P` and `P`) is in once; see [`Origin`]. Shared by
    /// the versions read from one tree (tags on one commit, or on commits that left it).
    pub files: Arc<[SourceFile]>,
    /// What was resolved how, one plain line each (links followed or not, files found in the
    /// tree, duplicates kept once, ambiguous imports), sorted, at most about 50. Text from the
    /// repository: control characters are replaced, but a report still sanitizes.
    pub resolution: Vec<String>,
    /// The text of the buffrs manifest (`Proto.toml`) at the repository root, if any.
    pub manifest: Option<String>,
    /// The buf dependency modules and the commits `buf.lock` pins them at.
    pub dependencies: Vec<DepPin>,
    /// What a user must see about how this version was read, one line each: a malformed
    /// `buf.yaml`, a proto root that leads out of the repository, a folder too deep to list.
    /// Shown with the version's compile diagnostics; a fatal one makes the version failed
    /// (its file set is unknown, so nothing is compiled with guessed roots).
    pub problems: Vec<ReadProblem>,
    /// For a revision or the working tree: the tagged versions whose commit is its commit or
    /// one of its ancestors (the releases it builds on). None for tags, or when unknown.
    pub ancestors: Option<Vec<VersionId>>,
}

/// The name of the working tree's version.
pub const WORKTREE: &str = "WORKTREE";

#[cfg(test)]
impl Version {
    /// A version read from nothing (no files, no roots, time 0), for tests of what is
    /// decided from names, kinds and commits.
    pub(crate) fn bare(name: &str, kind: VersionKind, commit: String) -> Version {
        Version {
            name: name.into(),
            semver: None,
            kind,
            commit,
            time: 0,
            offset_minutes: 0,
            message: None,
            proto_roots: Vec::new(),
            roots_from: String::new(),
            files: Default::default(),
            resolution: Vec::new(),
            manifest: None,
            dependencies: Vec::new(),
            problems: Vec::new(),
            ancestors: None,
        }
    }
}

impl Version {
    /// Whether `name` names this version: its name (`v1.2.0`, `main`, `WORKTREE`), its name
    /// without the leading `v` (`1.2.0`), or its version number as semver writes it; a
    /// commit version also to a prefix of its commit id (at least 4 hex digits).
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name
            || self.name.strip_prefix('v') == Some(name)
            || self.semver.as_ref().is_some_and(|s| s.to_string() == name)
            || (self.kind == VersionKind::Commit && is_commit_prefix(&self.commit, name))
    }
}

/// The fewest hex digits that name a commit by a prefix of its id.
pub const MIN_COMMIT_PREFIX: usize = 4;

/// Whether `prefix` (any case) is a prefix of the (lowercase hex) commit id `commit`, at
/// least [`MIN_COMMIT_PREFIX`] hex digits long.
pub fn is_commit_prefix(commit: &str, prefix: &str) -> bool {
    prefix.len() >= MIN_COMMIT_PREFIX
        && prefix.bytes().all(|b| b.is_ascii_hexdigit())
        && commit.starts_with(&prefix.to_ascii_lowercase())
}

/// A problem met while reading a version (see [`Version::problems`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadProblem {
    /// The file or folder it is about, relative to the repository root (may be empty).
    pub path: String,
    /// One line: what, and what to do.
    pub message: String,
    /// The version's file set could not be determined: it is failed, not compiled.
    pub fatal: bool,
}

/// One `.proto` file of a version.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Import path, relative to its proto root (`physics/v1/temperature.proto`).
    pub path: String,
    /// Path relative to the repository root, for messages: where the content really is (for
    /// a file reached through a link, the link's target).
    pub repo_path: String,
    /// Git blob id (hex). Equal ids mean equal content, across versions.
    pub blob: String,
    /// The text, or why it could not be read (not UTF-8, too large, a link leaving the
    /// repository).
    pub text: Result<Arc<str>, String>,
    /// Why the file is in the version's file set.
    pub origin: Origin,
}

/// A tag that was seen but not loaded, and why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SkippedTag {
    pub name: String,
    pub reason: String,
}

/// Everything read from git.
#[derive(Debug, Clone)]
pub struct History {
    pub repo_root: PathBuf,
    pub versions: Vec<Version>,
    pub skipped: Vec<SkippedTag>,
    pub stats: ReadStats,
}

/// Counters for the benchmark.
#[derive(Debug, Clone, Default)]
pub struct ReadStats {
    pub elapsed: std::time::Duration,
    /// Commits compared with their parent (`--commits`).
    pub commits_walked: usize,
    pub trees_walked: usize,
    pub blobs_read: usize,
    pub bytes_read: usize,
}

/// Errors that stop the history from loading at all.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(
        "{path} is not a git repository (or any of its parents)\n  help: run protolapse inside a git repository, pass its path, or try `--demo`"
    )]
    NotARepository { path: PathBuf },
    #[error(
        "{path} does not exist\n  help: pass the path of a git repository (default: the current directory), or try `--demo`"
    )]
    NoSuchPath { path: PathBuf },
    #[error("cannot read the git repository at {path}: {message}")]
    Git { path: PathBuf, message: String },
    #[error("{0}")]
    NoVersions(String),
    #[error(
        "unknown revision `{rev}`: {message}\n  help: use a tag, branch or commit id that exists in the repository"
    )]
    UnknownRevision { rev: String, message: String },
    #[error("invalid tag glob `{glob}`: {message}")]
    BadGlob { glob: String, message: String },
    #[error("cannot build the demo repository: {0}")]
    Demo(String),
}

/// Formats seconds since the epoch (plus an offset) as `YYYY-MM-DD`.
pub fn format_date(time: i64, offset_minutes: i32) -> String {
    let local = time + i64::from(offset_minutes) * 60;
    let (y, m, d) = civil_from_days(local.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_format_in_the_committer_zone() {
        assert_eq!(format_date(0, 0), "1970-01-01");
        assert_eq!(format_date(1_700_000_000, 0), "2023-11-14");
        // 23:00 UTC on 2024-02-28 is already the 29th two hours east.
        assert_eq!(format_date(1_709_161_200, 120), "2024-02-29");
        assert_eq!(format_date(-86_400, 0), "1969-12-31");
    }
}
