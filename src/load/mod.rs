//! A whole history, loaded: versions read from git and compiled one by one, with work shared
//! across them and progress reported to a callback (for the UI's progress bar).
//!
//! [`Loaded`] is *the* version type above `history`: its identity ([`VersionId`]), its header,
//! its compile state (pending, failed, partial, complete, with the files that did not
//! compile) and its schema. [`lineage`] is the one place that says which version a version
//! is compared with. Uses `history` and `schema`; hands out plain data only.

mod caps;
pub mod lineage;
pub mod needs;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::history::{self, History, HistoryError, HistoryOptions, Origin, SkippedTag, Version};
use crate::schema::{Cache, CompileStats, Compiled, Diagnostic, Schema, SourceRef, Status};

/// Versions offered to the compiler at a time: it compiles as many of them as make a window
/// (versions that share a set compiled before cost nothing, so a window may take many).
const WINDOW_CANDIDATES: usize = 256;

pub use crate::history::VersionId;

/// One version: its header (name, commit, files), its compile state and its schema.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub id: VersionId,
    pub version: Version,
    /// The compiled schema; `Status::Pending` while the terminal UI is still loading it.
    pub compiled: Arc<Compiled>,
    /// The files found but not compiled (a partial version): their changes are listed but
    /// not judged.
    pub failed_files: Arc<BTreeSet<String>>,
    /// The first version of the run of versions with the same content that ends here
    /// (`None` when the content differs from the previous version).
    pub unchanged_since: Option<VersionId>,
    /// The earliest earlier version with the same content, adjacent or not.
    pub same_as: Option<VersionId>,
}

impl Loaded {
    /// A version whose header is known and whose schema is not compiled yet.
    pub fn pending(id: VersionId, version: Version) -> Loaded {
        Loaded {
            id,
            version,
            compiled: Arc::new(Compiled::pending()),
            failed_files: Arc::default(),
            unchanged_since: None,
            same_as: None,
        }
    }

    /// The version's name (`v1.2.0`, `main`, `WORKTREE`).
    pub fn name(&self) -> &str {
        &self.version.name
    }

    pub fn status(&self) -> Status {
        self.compiled.status
    }

    /// The schema of a version that compiled, fully or in part; None when it failed or is
    /// not compiled yet.
    pub fn schema(&self) -> Option<&Schema> {
        self.compiled
            .status
            .has_schema()
            .then_some(&*self.compiled.schema)
    }

    pub fn fingerprint(&self) -> Option<&str> {
        self.schema().map(|s| s.fingerprint.as_str())
    }

    /// The first diagnostic, one line (for "did not compile" messages).
    pub fn first_diagnostic(&self) -> String {
        self.compiled
            .diagnostics
            .first()
            .map(|d| crate::sanitize::line(&d.to_string()))
            .unwrap_or_default()
    }
}

/// The files of a compiled version that were found but did not compile (import paths).
fn failed_files(version: &Version, compiled: &Compiled) -> BTreeSet<String> {
    if compiled.status != Status::Partial {
        return BTreeSet::new();
    }
    version
        .files
        .iter()
        .filter(|f| !compiled.schema.content.files.contains_key(&f.path))
        .map(|f| f.path.clone())
        .collect()
}

/// Time per phase and sharing counters, for the benchmark.
#[derive(Debug, Clone, Default)]
pub struct LoadStats {
    pub git: Duration,
    pub compile: CompileStats,
    pub total: Duration,
    pub trees_walked: usize,
    pub blobs_read: usize,
    pub bytes_read: usize,
    /// Commits compared with their parent (`--commits`).
    pub commits_walked: usize,
}

#[derive(Debug, Clone)]
pub struct Project {
    pub repo_root: std::path::PathBuf,
    pub versions: Vec<Loaded>,
    pub skipped: Vec<SkippedTag>,
    pub stats: LoadStats,
}

impl Project {
    /// The version with this id.
    pub fn get(&self, id: VersionId) -> Option<&Loaded> {
        self.versions.get(id.index())
    }

    /// Finds a version by name: see [`find`].
    pub fn find(&self, name: &str) -> Option<&Loaded> {
        find(&self.versions, name)
    }

    /// The error to report when no version has a `.proto` file under its proto roots.
    pub fn no_protos(&self) -> Option<String> {
        // A version that says why it has no files (a malformed buf.yaml) shows it instead.
        // A version not compiled (yet) counts the files compiling it would judge.
        let judged = |v: &Loaded| match v.status() {
            Status::Pending => v
                .version
                .files
                .iter()
                .filter(|f| f.origin == Origin::Root)
                .count(),
            _ => v.compiled.files_total,
        };
        if !self
            .versions
            .iter()
            .all(|v| judged(v) == 0 && v.version.problems.is_empty())
        {
            return None;
        }
        let roots = self
            .versions
            .last()
            .map(|v| v.version.proto_roots.join(", "))
            .unwrap_or_default();
        Some(format!(
            "no .proto files in any of the {} versions of {} (proto paths: {roots})\n  help: point at the folder that holds them with -I DIR, or set proto_paths in protolapse.toml",
            self.versions.len(),
            crate::sanitize::line(&self.repo_root.display().to_string())
        ))
    }

    pub fn names(&self) -> Vec<&str> {
        self.versions
            .iter()
            .map(|v| v.version.name.as_str())
            .collect()
    }
}

/// Finds a version by name (`v1.2.0`, `1.2.0` for `v1.2.0`, `WORKTREE`): an exact name
/// first, then [`crate::history::Version::answers_to`].
pub fn find<'a>(versions: &'a [Loaded], name: &str) -> Option<&'a Loaded> {
    versions
        .iter()
        .find(|v| v.version.name == name)
        .or_else(|| versions.iter().find(|v| v.version.answers_to(name)))
}

/// The versions `ids` (in that order) as a history of their own: ids renumbered by their
/// place, ancestors mapped, and no earlier-content links (they referred to the whole history).
pub fn subsequence(versions: &[Loaded], ids: &[VersionId]) -> Vec<Loaded> {
    let place = |id: VersionId| ids.iter().position(|&x| x == id).map(VersionId::at);
    ids.iter()
        .filter_map(|&id| versions.get(id.index()))
        .enumerate()
        .map(|(k, v)| {
            let mut w = v.clone();
            w.id = VersionId::at(k);
            w.unchanged_since = None;
            w.same_as = None;
            if let Some(a) = &mut w.version.ancestors {
                *a = a.iter().filter_map(|&x| place(x)).collect();
            }
            w
        })
        .collect()
}

/// Reads the history at `path` and compiles every version; `progress(done, total)` is
/// called after each version.
pub fn load(
    path: &Path,
    opts: &HistoryOptions,
    progress: impl FnMut(usize, usize),
) -> Result<Project, HistoryError> {
    let started = Instant::now();
    let history = history::load(path, opts)?;
    Ok(compile_history(history, started, progress))
}

/// Compiles the versions of a history read before.
pub fn compile_history(
    history: History,
    started: Instant,
    mut progress: impl FnMut(usize, usize),
) -> Project {
    let all = needs::every(history.versions.len());
    compile_each(history, started, &all, |_, done, total| {
        progress(done, total)
    })
}

/// Compiles the versions `order` names, in that order, handing each to
/// `each(version, done, total)` as soon as it is compiled (the terminal UI fills its panes
/// with them while the rest compiles; `total` is `order`'s length). Distinct file sets
/// compile side by side, a window at a time (see `schema::compile`): versions arrive a
/// window at a time, in `order`, and a panic while compiling a set fails its versions
/// only. A version `order` leaves
/// out stays [`Status::Pending`]: nothing about it is known (see [`needs`]). The caps are
/// decided over the whole history either way, so a version is over them or not whatever a
/// command compiles.
pub fn compile_each(
    history: History,
    started: Instant,
    order: &[VersionId],
    mut each: impl FnMut(&Loaded, usize, usize),
) -> Project {
    let mut cache = Cache::new();
    let total = order.len();
    let mut over = caps::over_caps(&history.versions, &crate::limits::get());
    let mut versions: Vec<Loaded> = history
        .versions
        .into_iter()
        .enumerate()
        .map(|(i, v)| Loaded::pending(VersionId::at(i), v))
        .collect();
    // Versions read from one tree share their file list: the first of them is compiled and
    // the others take its result (2,000 tags on one commit of 10,000 files each built its
    // inputs and its set's key: 2 GB).
    let files_of = |l: &Loaded| Arc::as_ptr(&l.version.files).cast::<()>();
    let mut by_files: HashMap<*const (), Arc<Compiled>> = HashMap::new();
    // What this call compiles is planned: a parse is kept while one of those still reads it.
    let mut seen = HashSet::new();
    let planned: Vec<Vec<SourceRef<'_>>> = order
        .iter()
        .filter(|id| over.get(id.index()).is_some_and(Option::is_none))
        .filter_map(|id| versions.get(id.index()))
        .filter(|l| seen.insert(files_of(l)))
        .map(|l| inputs(&l.version))
        .collect();
    drop(seen);
    cache.plan(planned.iter().map(Vec::as_slice));
    drop(planned);
    let order: Vec<usize> = order
        .iter()
        .map(|id| id.index())
        .filter(|&i| i < versions.len() && i < over.len())
        .collect();
    let mut done = 0;
    while done < order.len() {
        // The next window of versions to compile (the cache says how many make one), with
        // the versions over a cap before and between them.
        let compiled: Vec<Arc<Compiled>> = {
            let mut in_window = HashSet::new();
            let next: Vec<Vec<SourceRef<'_>>> = order[done..]
                .iter()
                .filter(|&&i| over[i].is_none())
                .filter(|&&i| {
                    let key = files_of(&versions[i]);
                    !by_files.contains_key(&key) && in_window.insert(key)
                })
                .take(WINDOW_CANDIDATES)
                .map(|&i| inputs(&versions[i].version))
                .collect();
            let next: Vec<&[SourceRef<'_>]> = next.iter().map(Vec::as_slice).collect();
            cache.compile_window(&next)
        };
        let mut compiled = compiled.into_iter();
        while let Some(&i) = order.get(done) {
            let key = files_of(&versions[i]);
            let result = match over[i].take() {
                Some(reason) => caps::not_compiled(&versions[i].version, reason),
                None => match by_files.get(&key) {
                    Some(c) => c.clone(),
                    None => match compiled.next() {
                        Some(c) => {
                            by_files.insert(key, c.clone());
                            c
                        }
                        // The window ends here: the next one starts with this version.
                        None => break,
                    },
                },
            };
            done += 1;
            let version = &versions[i].version;
            let result = with_problems(result, &version.problems);
            let failed = Arc::new(failed_files(version, &result));
            let (unchanged_since, same_as) = compare_with_earlier(&versions[..i], &result);
            let l = &mut versions[i];
            (l.compiled, l.failed_files) = (result, failed);
            (l.unchanged_since, l.same_as) = (unchanged_since, same_as);
            each(l, done, total);
        }
    }
    if !order.is_sorted() {
        relink(&mut versions);
    }
    Project {
        repo_root: history.repo_root,
        versions,
        skipped: history.skipped,
        stats: LoadStats {
            git: history.stats.elapsed,
            compile: cache.stats.clone(),
            total: started.elapsed(),
            trees_walked: history.stats.trees_walked,
            blobs_read: history.stats.blobs_read,
            bytes_read: history.stats.bytes_read,
            commits_walked: history.stats.commits_walked,
        },
    }
}

/// What the compiler reads of a version: its files.
pub fn inputs(version: &Version) -> Vec<SourceRef<'_>> {
    version
        .files
        .iter()
        .map(|f| SourceRef {
            path: &f.path,
            blob: &f.blob,
            text: f.text.as_deref().map_err(String::as_str),
            origin: f.origin,
        })
        .collect()
}

/// A version's compile result with the problems met while reading it (`Version::problems`)
/// among its diagnostics, first: a fatal one makes it failed (its file set is unknown).
fn with_problems(compiled: Arc<Compiled>, problems: &[history::ReadProblem]) -> Arc<Compiled> {
    if problems.is_empty() {
        return compiled;
    }
    let mut c = if problems.iter().any(|p| p.fatal) {
        Compiled {
            status: Status::Failed,
            ..Compiled::pending()
        }
    } else {
        (*compiled).clone()
    };
    let read = problems.iter().map(|p| Diagnostic {
        file: p.path.clone(),
        line: 0,
        column: 0,
        message: p.message.clone(),
    });
    c.diagnostics = read.chain(std::mem::take(&mut c.diagnostics)).collect();
    Arc::new(c)
}

/// Equal content: the fingerprint is only a hint, the models decide.
fn same_content(a: &Compiled, b: &Compiled) -> bool {
    if !a.status.has_schema() || !b.status.has_schema() {
        return false;
    }
    std::ptr::eq(a, b)
        || (a.schema.fingerprint == b.schema.fingerprint && a.schema.content == b.schema.content)
}

/// The earlier-content links of every version again, in history order: a version compiled
/// before those ahead of it (out of order) could not be linked to them then.
pub(crate) fn relink(versions: &mut [Loaded]) {
    for i in 0..versions.len() {
        let (earlier, rest) = versions.split_at_mut(i);
        if let Some(v) = rest.first_mut() {
            (v.unchanged_since, v.same_as) = compare_with_earlier(earlier, &v.compiled);
        }
    }
}

fn compare_with_earlier(
    earlier: &[Loaded],
    compiled: &Compiled,
) -> (Option<VersionId>, Option<VersionId>) {
    let unchanged_since = earlier.last().and_then(|prev| {
        same_content(&prev.compiled, compiled).then(|| prev.unchanged_since.unwrap_or(prev.id))
    });
    let same_as = earlier
        .iter()
        .find(|v| same_content(&v.compiled, compiled))
        .map(|v| v.id);
    (unchanged_since, same_as)
}
