//! Policy: judgements over a whole history, not one pair — the semver check of every version
//! against its previous relevant version, registry compatibility policies (BACKWARD,
//! FULL_TRANSITIVE, ...), history-wide hazards (a number reused long after its removal), the
//! lifecycle of each field across versions, and buffrs package rules.
//!
//! Pairs are judged by `judge` (its [`Comparer`] computes each pair of distinct contents
//! once); which version a version is compared with is `load::lineage`'s to say. May import:
//! `judge`, `load` (the loaded versions, plain data), `rules`, `diff`, `schema`. Knows no
//! terminal and no git.

pub mod buffrs;
pub mod codes;
pub mod gate;
pub mod hazards;
pub mod lifecycle;
pub mod registry;
pub mod semver;

use std::sync::Arc;

use rayon::prelude::*;

use crate::judge::{Comparer, Counts, Ignores, Scope};
use crate::load::lineage;
use crate::load::{Project, VersionId};
use crate::rules::Change;

pub use hazards::{Hazard, HazardKind};
pub use lifecycle::{Lifecycle, lifecycle};
pub use registry::{Level, Policy, PolicyResult};
pub use semver::{Pre1, SemverCheck, SemverVerdict};

/// How a history is judged: scope, policy, strictness, conventions and ignores.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The whole schema, or what one root reaches (resolved: see `judge::Scope`).
    pub scope: Scope,
    pub policy: Option<Policy>,
    pub level: Level,
    /// `hazard` and `lossy` fail a policy instead of warning.
    pub strict: bool,
    pub pre1: Pre1,
    pub ignores: Ignores,
    /// Where these settings were read from, one line for the reports
    /// (`config::Config::origin`, and the flags given over it).
    pub origin: String,
}

/// Why a history cannot be judged with these settings.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error(
        "{policy}: no version is named `{version}`\n  help: name one of the history's versions, e.g. {names}"
    )]
    UnknownTill {
        policy: String,
        version: String,
        names: String,
    },
}

/// Everything known about one version, judged against its previous relevant version.
#[derive(Debug, Clone)]
pub struct VersionReport {
    /// The version it is compared with.
    pub previous: Option<VersionId>,
    /// The changes from `previous` to this version (None: not compared).
    pub changes: Option<Arc<Vec<Change>>>,
    pub counts: Counts,
    /// Why the version is not judged in the scope (`judge::Scope::not_judged`), if not.
    pub not_judged: Option<String>,
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
    pub scope: Scope,
    pub versions: Vec<VersionReport>,
    pub hazards: Vec<Hazard>,
}

/// Judges every version of `project` with `settings`.
pub fn analyze(project: &Project, settings: &Settings) -> Result<Analysis, PolicyError> {
    analyze_with(&comparer(project, settings), settings)
}

/// The comparer of `project` in the settings' scope, with their ignores.
pub fn comparer<'p>(project: &'p Project, settings: &Settings) -> Comparer<'p> {
    Comparer::new(project, settings.scope.clone(), settings.ignores.clone())
}

/// [`analyze`] with a comparer made before (the UI keeps it for pairs the user picks).
pub fn analyze_with(cmp: &Comparer<'_>, settings: &Settings) -> Result<Analysis, PolicyError> {
    let versions = cmp.versions();
    if let Some(p) = &settings.policy {
        p.check_versions(versions)?;
    }
    let previous = lineage::previous_of_each(versions);
    let adjacent: Vec<(VersionId, VersionId)> = versions
        .iter()
        .filter_map(|v| previous[v.id.index()].map(|p| (p, v.id)))
        .collect();
    // The hazards (a walk of the history on one thread) beside the adjacent pairs.
    let (adjacent_changes, hazards) = rayon::join(
        || cmp.changes_many(&adjacent),
        || {
            let mut hazards = hazards::find(versions, cmp.scope());
            hazards.par_iter_mut().for_each(|h| {
                h.ignored = settings.ignores.hazard(
                    h.kind.id(),
                    &h.element,
                    &versions[h.at.index()].compiled.schema,
                );
            });
            hazards
        },
    );
    let mut adjacent_changes = adjacent_changes.into_iter();
    let mut changes_of: Vec<Option<Arc<Vec<Change>>>> = vec![None; versions.len()];
    for &(_, id) in &adjacent {
        changes_of[id.index()] = adjacent_changes.next().flatten();
    }
    // Each version's report on its own thread; `collect` keeps history order.
    let mut reports: Vec<VersionReport> = versions
        .par_iter()
        .zip(changes_of)
        .map(|(v, changes)| {
            let i = v.id.index();
            let prev = previous[i];
            let semver = semver::check(
                versions,
                cmp.scope(),
                v.id,
                prev,
                changes.as_deref().map(Vec::as_slice),
                settings.pre1,
            );
            VersionReport {
                previous: prev,
                not_judged: cmp
                    .scope()
                    .not_judged(v, changes.as_deref().map_or(&[], Vec::as_slice)),
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
                    .filter(|(_, h)| h.at == v.id)
                    .map(|(k, _)| k)
                    .collect(),
                package: v
                    .version
                    .manifest
                    .as_deref()
                    .map(|m| buffrs::check_text(m, v))
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
        scope: cmp.scope().clone(),
        versions: reports,
        hazards,
    })
}
