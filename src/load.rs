//! A whole history, loaded: versions read from git and compiled one by one, with work shared
//! across them and progress reported to a callback (for the UI's progress bar).
//!
//! Uses `history` and `schema`; hands out plain data only.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::history::{self, History, HistoryError, HistoryOptions, SkippedTag, Version};
use crate::schema::{Cache, CompileStats, Compiled, SourceRef, Status};

/// One version with its compiled schema.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub version: Version,
    pub compiled: Arc<Compiled>,
    /// The first version of the run of versions with the same content that ends here
    /// (`None` when the content differs from the previous version).
    pub unchanged_since: Option<String>,
    /// The earliest earlier version with the same content, adjacent or not.
    pub same_as: Option<String>,
}

impl Loaded {
    pub fn fingerprint(&self) -> Option<&str> {
        (self.compiled.status != Status::Failed)
            .then_some(self.compiled.schema.fingerprint.as_str())
    }
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
}

#[derive(Debug, Clone)]
pub struct Project {
    pub repo_root: std::path::PathBuf,
    pub versions: Vec<Loaded>,
    pub skipped: Vec<SkippedTag>,
    pub stats: LoadStats,
}

impl Project {
    /// Finds a version by name (`v1.2.0`, `1.2.0` for `v1.2.0`, `WORKTREE`).
    pub fn find(&self, name: &str) -> Option<&Loaded> {
        self.versions
            .iter()
            .find(|v| v.version.name == name)
            .or_else(|| {
                self.versions.iter().find(|v| {
                    v.version.name.strip_prefix('v') == Some(name)
                        || v.version
                            .semver
                            .as_ref()
                            .is_some_and(|s| s.to_string() == name)
                })
            })
    }

    /// The error to report when no version has a `.proto` file under its proto roots.
    pub fn no_protos(&self) -> Option<String> {
        if !self.versions.iter().all(|v| v.compiled.files_total == 0) {
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
    compile_each(history, started, |_, done, total| progress(done, total))
}

/// As [`compile_history`], handing each version to `each(version, done, total)` as soon as it
/// is compiled (the terminal UI fills its panes with them while the rest compiles).
pub fn compile_each(
    history: History,
    started: Instant,
    mut each: impl FnMut(&Loaded, usize, usize),
) -> Project {
    let mut cache = Cache::new();
    let total = history.versions.len();
    let mut versions: Vec<Loaded> = Vec::with_capacity(total);
    for (i, version) in history.versions.into_iter().enumerate() {
        let inputs: Vec<SourceRef<'_>> = version
            .files
            .iter()
            .map(|f| SourceRef {
                path: &f.path,
                blob: &f.blob,
                text: f.text.as_deref().map_err(String::as_str),
                origin: f.origin,
            })
            .collect();
        let compiled = cache.compile(&inputs);
        drop(inputs);
        let (unchanged_since, same_as) = compare_with_earlier(&versions, &compiled);
        versions.push(Loaded {
            version,
            compiled,
            unchanged_since,
            same_as,
        });
        if let Some(last) = versions.last() {
            each(last, i + 1, total);
        }
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
        },
    }
}

/// Equal content: the fingerprint is only a hint, the models decide.
fn same_content(a: &Compiled, b: &Compiled) -> bool {
    if a.status == Status::Failed || b.status == Status::Failed {
        return false;
    }
    std::ptr::eq(a, b)
        || (a.schema.fingerprint == b.schema.fingerprint && a.schema.content == b.schema.content)
}

fn compare_with_earlier(
    earlier: &[Loaded],
    compiled: &Compiled,
) -> (Option<String>, Option<String>) {
    let unchanged_since = earlier.last().and_then(|prev| {
        same_content(&prev.compiled, compiled).then(|| {
            prev.unchanged_since
                .clone()
                .unwrap_or_else(|| prev.version.name.clone())
        })
    });
    let same_as = earlier
        .iter()
        .find(|v| same_content(&v.compiled, compiled))
        .map(|v| v.version.name.clone());
    (unchanged_since, same_as)
}
