//! Policy: judgements over a whole history, not one pair — the semver check of every version
//! against its previous relevant version, registry compatibility policies (BACKWARD,
//! FULL_TRANSITIVE, ...), history-wide hazards (a number reused long after its removal), the
//! lifecycle of each field across versions, ignores, and buffrs package rules.
//!
//! Pairs are compared with `diff` + `rules`; a [`Comparer`] computes each pair of distinct
//! contents once and shares it. May import: `load` (the loaded versions, plain data), `rules`,
//! `diff`, `schema`. Knows no terminal and no git.

pub mod buffrs;
pub mod gate;
pub mod hazards;
pub mod ignore;
pub mod lifecycle;
pub mod registry;
pub mod semver;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::diff::{pair_from_root, pair_whole};
use crate::load::{Loaded, Project};
use crate::rules::{self, Change, RuleId, Severity};
use crate::schema::graph::{RootMatch, resolve_root};
use crate::schema::{Schema, Status};

pub use hazards::{Hazard, HazardKind};
pub use ignore::{IgnoreRule, Ignores};
pub use lifecycle::{Lifecycle, lifecycle};
pub use registry::{Level, Policy, PolicyResult};
pub use semver::{Pre1, SemverCheck, SemverVerdict};

/// How a history is judged: scope, policy, strictness, conventions and ignores.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Compare only what this message or service reaches (full or unique short name).
    pub root: Option<String>,
    pub policy: Option<Policy>,
    pub level: Level,
    /// `hazard` and `lossy` fail a policy instead of warning.
    pub strict: bool,
    pub pre1: Pre1,
    pub ignores: Ignores,
}

/// Why a history cannot be judged with these settings.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error(
        "unknown root `{root}`: no version has a message or service of that name{hint}\n  help: a root is a message or service name, full (pkg.Msg) or short (Msg)"
    )]
    UnknownRoot { root: String, hint: String },
    #[error("root `{root}` is ambiguous: {names}\n  help: pass the full name")]
    AmbiguousRoot { root: String, names: String },
    #[error(
        "{policy}: no version is named `{version}`\n  help: name one of the history's versions, e.g. {names}"
    )]
    UnknownTill {
        policy: String,
        version: String,
        names: String,
    },
}

/// The root's full name, looked up in the newest version that has it.
pub fn resolve_root_in(project: &Project, root: &str) -> Result<String, PolicyError> {
    let mut ambiguous = None;
    let mut close = Vec::new();
    for v in project.versions.iter().rev() {
        if v.compiled.status == Status::Failed {
            continue;
        }
        match resolve_root(&v.compiled.schema.content, root) {
            RootMatch::Found(n) => return Ok(n),
            RootMatch::Ambiguous(names) => ambiguous = ambiguous.or(Some(names)),
            RootMatch::Unknown(c) => {
                if close.is_empty() {
                    close = c;
                }
            }
        }
    }
    match ambiguous {
        Some(names) => Err(PolicyError::AmbiguousRoot {
            root: root.to_string(),
            names: names.join(", "),
        }),
        None => Err(PolicyError::UnknownRoot {
            root: root.to_string(),
            hint: if close.is_empty() {
                String::new()
            } else {
                format!("; closest: {}", close.join(", "))
            },
        }),
    }
}

/// What a policy needs to know of one pair: per level and direction, the worst verdict
/// and how many changes warn (hazard or lossy), over the changes that count (not ignored,
/// not in a file that failed to compile); and whether anything but comments changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairSummary {
    /// `[level][direction]`: level 0 wire, 1 json; direction 0 backward, 1 forward.
    pub worst: [[Severity; 2]; 2],
    pub warnings: [[u32; 2]; 2],
    /// Some change other than a comment counts.
    pub changed: bool,
}

impl PairSummary {
    fn of(changes: &[Change]) -> PairSummary {
        let mut s = PairSummary::default();
        for c in changes.iter().filter(|c| c.ignored.is_none()) {
            s.changed |= c.rule != RuleId::COMMENT_CHANGED;
            for (l, d) in [(0, c.verdict.wire), (1, c.verdict.json)] {
                for (k, sev) in [(0, d.backward), (1, d.forward)] {
                    s.worst[l][k] = s.worst[l][k].max(sev);
                    if matches!(sev, Severity::Hazard | Severity::Lossy) {
                        s.warnings[l][k] += 1;
                    }
                }
            }
        }
        s
    }
}

/// Summaries per (old, new) pair of representative version indices.
type PairCache = HashMap<(usize, usize), PairSummary>;

/// Compares versions of one project in one scope.
///
/// `changes(a, b)` is the full list for a pair (locations, ignores and inline directives of
/// those two versions). `summary(a, b)` is what a policy needs, computed once per pair of
/// distinct contents and kept small, so that transitive policies over hundreds of versions
/// stay affordable in time and memory.
pub struct Comparer<'p> {
    versions: &'p [Loaded],
    root: Option<String>,
    ignores: Ignores,
    /// Index of the earliest version with the same content (itself when none).
    canon: Vec<usize>,
    /// The version whose summaries stand for this one's: its canonical version when both
    /// judge the same way (no inline directives, the same files failed), else itself.
    representative: Vec<usize>,
    /// Whether a version's comments hold any `protolapse:ignore` directive.
    directives: Vec<bool>,
    /// Per version, the files found but not compiled (a partial version): their changes
    /// are listed but not judged.
    failed_files: Vec<BTreeSet<String>>,
    cache: Mutex<PairCache>,
}

impl<'p> Comparer<'p> {
    /// `root` must be a resolved full name (see [`resolve_root_in`]).
    pub fn new(project: &'p Project, root: Option<String>, ignores: Ignores) -> Comparer<'p> {
        let versions = &project.versions[..];
        let canon: Vec<usize> = versions
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.same_as
                    .as_deref()
                    .and_then(|n| versions.iter().position(|x| x.version.name == n))
                    .unwrap_or(i)
            })
            .collect();
        let mut seen: HashMap<*const crate::schema::model::FileDocs, bool> = HashMap::new();
        let directives: Vec<bool> = versions
            .iter()
            .map(|v| {
                v.compiled.schema.docs.values().any(|d| {
                    *seen
                        .entry(Arc::as_ptr(d))
                        .or_insert_with(|| d.values().any(ignore::has_directive))
                })
            })
            .collect();
        let failed_files: Vec<BTreeSet<String>> = versions
            .iter()
            .map(|v| failed_files(v).into_iter().map(str::to_string).collect())
            .collect();
        let representative = (0..versions.len())
            .map(|i| {
                let c = canon[i];
                if !directives[i] && !directives[c] && failed_files[i] == failed_files[c] {
                    c
                } else {
                    i
                }
            })
            .collect();
        Comparer {
            versions,
            root,
            ignores,
            canon,
            representative,
            directives,
            failed_files,
            cache: Mutex::new(HashMap::new()),
        }
    }

    pub fn root(&self) -> Option<&str> {
        self.root.as_deref()
    }

    pub fn versions(&self) -> &'p [Loaded] {
        self.versions
    }

    /// The schema of a version that compiled (fully or in part).
    pub fn schema(&self, i: usize) -> Option<&'p Schema> {
        let v = self.versions.get(i)?;
        (v.compiled.status != Status::Failed).then_some(&*v.compiled.schema)
    }

    /// True when both versions have the same content (only comments or layout differ).
    pub fn same_content(&self, a: usize, b: usize) -> bool {
        self.canon
            .get(a)
            .is_some_and(|x| Some(x) == self.canon.get(b))
    }

    /// Every change from `old` to `new`, with ignores applied; None when either did not
    /// compile.
    pub fn changes(&self, old: usize, new: usize) -> Option<Vec<Change>> {
        Some(judged_changes(
            &self.side(old)?,
            &self.side(new)?,
            self.root.as_deref(),
            &self.ignores,
        ))
    }

    /// Version `i` as one side of a comparison; None when it did not compile.
    fn side(&self, i: usize) -> Option<Side<'_>> {
        Some(Side {
            name: &self.versions.get(i)?.version.name,
            schema: self.schema(i)?,
            failed: &self.failed_files[i],
            directives: self.directives[i],
        })
    }

    /// What a policy needs of the pair `old` -> `new`; None when either did not compile.
    pub fn summary(&self, old: usize, new: usize) -> Option<PairSummary> {
        let key = (
            *self.representative.get(old)?,
            *self.representative.get(new)?,
        );
        self.schema(old)?;
        self.schema(new)?;
        if self.canon[key.0] == self.canon[key.1] && key.0 == key.1 {
            return Some(PairSummary::default());
        }
        if let Some(s) = self.lock().get(&key) {
            return Some(*s);
        }
        let (a, b) = (self.side(key.0)?, self.side(key.1)?);
        // Comments never change a verdict: skip comparing them.
        let root = self.root.as_deref();
        let mut changes = raw_changes(a.schema, b.schema, root, false);
        mark(&mut changes, &a, &b, root, &self.ignores);
        let s = PairSummary::of(&changes);
        self.lock().insert(key, s);
        Some(s)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PairCache> {
        // A panic in another thread cannot leave the map half-written: inserts are whole.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every change of each pair (as [`Comparer::changes`]), computed on every core; their
    /// summaries are kept for the policies.
    pub fn changes_many(&self, pairs: &[(usize, usize)]) -> Vec<Option<Vec<Change>>> {
        let results: Vec<Mutex<Option<Vec<Change>>>> =
            pairs.iter().map(|_| Mutex::new(None)).collect();
        let work = |k: usize| {
            let (a, b) = pairs[k];
            let changes = self.changes(a, b);
            if let (Some(c), Some(&ra), Some(&rb)) = (
                &changes,
                self.representative.get(a),
                self.representative.get(b),
            ) {
                self.lock()
                    .entry((ra, rb))
                    .or_insert_with(|| PairSummary::of(c));
            }
            *results[k].lock().unwrap_or_else(|e| e.into_inner()) = changes;
        };
        parallel(pairs.len(), work);
        results
            .into_iter()
            .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect()
    }

    /// Computes the summaries of the given pairs on every core, so that later lookups hit.
    pub fn prefetch(&self, pairs: &[(usize, usize)]) {
        let mut todo: Vec<(usize, usize)> = pairs
            .iter()
            .filter_map(|&(a, b)| {
                Some((*self.representative.get(a)?, *self.representative.get(b)?))
            })
            .filter(|&(a, b)| a != b && self.schema(a).is_some() && self.schema(b).is_some())
            .collect();
        todo.sort_unstable();
        todo.dedup();
        {
            let cache = self.lock();
            todo.retain(|p| !cache.contains_key(p));
        }
        parallel(todo.len(), |k| {
            let (a, b) = todo[k];
            self.summary(a, b);
        });
    }
}

/// Runs `work(0..n)` on every core (inline when there is one core or one item).
fn parallel(n: usize, work: impl Fn(usize) + Sync) {
    let threads = std::thread::available_parallelism()
        .map(|t| t.get())
        .unwrap_or(1)
        .min(n);
    if threads <= 1 {
        (0..n).for_each(work);
        return;
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if k >= n {
                        break;
                    }
                    work(k);
                }
            });
        }
    });
}

/// The files of a version that were found but did not compile (import paths).
pub fn failed_files(v: &Loaded) -> BTreeSet<&str> {
    if v.compiled.status != Status::Partial {
        return BTreeSet::new();
    }
    v.version
        .files
        .iter()
        .filter(|f| !v.compiled.schema.content.files.contains_key(&f.path))
        .map(|f| f.path.as_str())
        .collect()
}

/// One side of a comparison.
pub struct Side<'a> {
    /// The version's name, for "not judged" reasons.
    pub name: &'a str,
    pub schema: &'a Schema,
    /// The files found but not compiled (a partial version).
    pub failed: &'a BTreeSet<String>,
    /// Its comments may hold `protolapse:ignore` directives (false skips the look-ups).
    pub directives: bool,
}

/// Every change from `old` to `new` — the whole schema, or what `root` reaches — with the
/// ignores applied and the changes that cannot be judged marked: what `diff`, `log`,
/// `check` and the terminal UI all show.
pub fn judged_changes(
    old: &Side<'_>,
    new: &Side<'_>,
    root: Option<&str>,
    ignores: &Ignores,
) -> Vec<Change> {
    let mut changes = raw_changes(old.schema, new.schema, root, true);
    mark(&mut changes, old, new, root, ignores);
    changes
}

/// Applies the ignores, then marks the changes that cannot be judged because a file did not
/// compile on one side: those located in such a file, and — when the root's own file did
/// not compile on one side, so that nothing it reaches is known there — every change.
fn mark(
    changes: &mut [Change],
    old: &Side<'_>,
    new: &Side<'_>,
    root: Option<&str>,
    ignores: &Ignores,
) {
    ignores.apply(changes, old.schema, new.schema, new.directives);
    for (side, other) in [(new, old), (old, new)] {
        if side.failed.is_empty() {
            continue;
        }
        let root_file = root.and_then(|r| {
            let has = |c: &crate::schema::Content| {
                c.messages.contains_key(r) || c.services.contains_key(r)
            };
            if has(&side.schema.content) {
                return None;
            }
            let c = &other.schema.content;
            c.messages
                .get(r)
                .map(|m| &m.file)
                .or_else(|| c.services.get(r).map(|s| &s.file))
                .filter(|f| side.failed.contains(*f))
        });
        let name = side.name;
        for c in changes.iter_mut().filter(|c| c.ignored.is_none()) {
            if let Some(f) = root_file {
                c.ignored = Some(format!(
                    "not judged: {f}, the root's file, did not compile in {name}"
                ));
            } else if let Some(f) = change_files(c)
                .into_iter()
                .find(|f| side.failed.contains(*f))
            {
                c.ignored = Some(format!("not judged: {f} did not compile in {name}"));
            }
        }
    }
}

/// The files a change is located in (its locations, and the element of a file rule).
pub fn change_files(c: &Change) -> Vec<&str> {
    [&c.new_location, &c.old_location]
        .into_iter()
        .flatten()
        .filter_map(|l| l.rsplit_once(':').map(|(f, _)| f))
        .chain(
            matches!(
                c.rule,
                RuleId::FILE_ADDED | RuleId::FILE_REMOVED | RuleId::FILE_OPTION_CHANGED
            )
            .then_some(c.element.as_str()),
        )
        .collect()
}

/// `rules::check` in the given scope (comments compared or not); a root that neither
/// version has yields nothing.
fn raw_changes(old: &Schema, new: &Schema, root: Option<&str>, comments: bool) -> Vec<Change> {
    let check = |p: &crate::diff::Pairing<'_>| {
        if comments {
            rules::check(p, old, new)
        } else {
            rules::check_verdicts(p, old, new)
        }
    };
    match root {
        None => check(&pair_whole(&old.content, &new.content)),
        Some(r) => {
            let has = |s: &Schema| {
                s.content.messages.contains_key(r) || s.content.services.contains_key(r)
            };
            if !has(old) && !has(new) {
                return Vec::new();
            }
            check(&pair_from_root(&old.content, &new.content, r))
        }
    }
}

/// Changes counted by their worst cell (ignored changes apart).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Counts {
    pub breaking: usize,
    pub lossy: usize,
    pub hazard: usize,
    pub safe: usize,
    pub ignored: usize,
}

impl Counts {
    pub fn of(changes: &[Change]) -> Counts {
        let mut c = Counts::default();
        for ch in changes {
            if ch.ignored.is_some() {
                c.ignored += 1;
                continue;
            }
            match ch.verdict.worst() {
                Severity::Breaking => c.breaking += 1,
                Severity::Lossy => c.lossy += 1,
                Severity::Hazard => c.hazard += 1,
                Severity::Safe => c.safe += 1,
            }
        }
        c
    }

    pub fn total(&self) -> usize {
        self.breaking + self.lossy + self.hazard + self.safe
    }
}

/// Everything known about one version, judged against its previous relevant version.
#[derive(Debug, Clone)]
pub struct VersionReport {
    /// Index of the version it is compared with.
    pub previous: Option<usize>,
    /// The changes from `previous` to this version (None: not compared).
    pub changes: Option<Arc<Vec<Change>>>,
    pub counts: Counts,
    pub semver: SemverCheck,
    pub policy: Option<PolicyResult>,
    /// Indices into [`Analysis::hazards`] of the hazards that show in this version.
    pub hazards: Vec<usize>,
    /// buffrs package rules broken by this version (when it has a `Proto.toml`).
    pub package: Vec<buffrs::PackageViolation>,
}

/// A whole history, judged.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The root's full name, when the scope is "reached from a root".
    pub root: Option<String>,
    pub versions: Vec<VersionReport>,
    pub hazards: Vec<Hazard>,
}

/// Judges every version of `project` with `settings`.
pub fn analyze(project: &Project, settings: &Settings) -> Result<Analysis, PolicyError> {
    let root = match &settings.root {
        Some(r) => Some(resolve_root_in(project, r)?),
        None => None,
    };
    let cmp = Comparer::new(project, root.clone(), settings.ignores.clone());
    analyze_with(&cmp, settings)
}

/// [`analyze`] with a comparer made before (the UI keeps it for pairs the user picks).
pub fn analyze_with(cmp: &Comparer<'_>, settings: &Settings) -> Result<Analysis, PolicyError> {
    let versions = cmp.versions();
    if let Some(p) = &settings.policy {
        p.check_versions(versions)?;
    }
    let previous: Vec<Option<usize>> = (0..versions.len())
        .map(|i| semver::previous_to_compare(versions, i))
        .collect();
    let adjacent: Vec<(usize, usize)> = previous
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (p, i)))
        .collect();
    let mut adjacent_changes = cmp.changes_many(&adjacent).into_iter();
    let mut changes_of: Vec<Option<Arc<Vec<Change>>>> = vec![None; versions.len()];
    for &(_, i) in &adjacent {
        changes_of[i] = adjacent_changes.next().flatten().map(Arc::new);
    }
    let mut hazards = hazards::find(versions, cmp.root());
    for h in &mut hazards {
        h.ignored =
            settings
                .ignores
                .hazard(h.kind.id(), &h.element, &versions[h.at].compiled.schema);
    }
    let mut reports: Vec<VersionReport> = (0..versions.len())
        .map(|i| {
            let prev = previous[i];
            let changes = changes_of[i].take();
            let semver = semver::check(
                versions,
                i,
                prev,
                changes.as_deref().map(Vec::as_slice),
                settings.pre1,
            );
            VersionReport {
                previous: prev,
                counts: changes
                    .as_deref()
                    .map(|c| Counts::of(c))
                    .unwrap_or_default(),
                changes,
                semver,
                policy: None,
                hazards: hazards
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| h.at == i)
                    .map(|(k, _)| k)
                    .collect(),
                package: versions[i]
                    .version
                    .manifest
                    .as_deref()
                    .map(|m| buffrs::check_text(m, &versions[i]))
                    .unwrap_or_default(),
            }
        })
        .collect();
    if let Some(policy) = &settings.policy {
        let results =
            registry::evaluate_all(cmp, policy, settings.level, settings.strict, &previous);
        for (r, res) in reports.iter_mut().zip(results) {
            r.policy = Some(res);
        }
    }
    Ok(Analysis {
        root: cmp.root().map(str::to_string),
        versions: reports,
        hazards,
    })
}
