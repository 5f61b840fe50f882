//! Facts per version for the versions pane and the policy view, from the whole-history
//! analysis (`policy`): the previous relevant version, the actual and required bumps, the
//! semver verdict, the configured policy's result, history-wide hazards; and the policy
//! matrix (every version × every policy).
//!
//! The UI reads only [`Facts`] and [`PolicyMatrix`]; [`analyze`] and [`policy_matrix`] fill
//! them (in a worker).

use std::collections::BTreeSet;

use crate::history::{Version, VersionKind};
use crate::load::Project;
use crate::policy::{self, Comparer, Policy, SemverVerdict, Settings};
use crate::rules::{Bump, Severity};
use crate::schema::Status;

/// What is known of one version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VersionFacts {
    /// The version it is compared with by default.
    pub previous: Option<usize>,
    /// The bump from `previous` to this version, from their version numbers.
    pub bump: Option<Bump>,
    /// The bump its changes require.
    pub required: Option<Bump>,
    pub semver: Option<SemverVerdict>,
    /// Why the semver verdict is what it is (one line).
    pub reason: Option<String>,
    /// Changes against `previous` (ignored ones apart), and the worst.
    pub changes: usize,
    pub worst: Option<Severity>,
    /// The configured policy's result, when one is configured, and why it fails.
    pub policy: Option<bool>,
    pub policy_reason: Option<String>,
    /// History-wide hazards that show in this version (one line each).
    pub hazards: Vec<String>,
}

/// Everything known per version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// The root the analysis was scoped to (`None`: the whole schema).
    pub root: Option<String>,
    pub versions: Vec<VersionFacts>,
    /// The configured policy, if any.
    pub policy: Option<String>,
    /// Why the analysis could not run, if it could not.
    pub error: Option<String>,
}

/// One policy over the history: pass/fail per version (`None`: nothing to check).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyColumn {
    pub name: String,
    pub results: Vec<Option<bool>>,
    /// Why each failing version fails (its first violation), or a note.
    pub reasons: Vec<Option<String>>,
}

/// Every version × every policy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PolicyMatrix {
    pub root: Option<String>,
    pub level: String,
    pub columns: Vec<PolicyColumn>,
}

/// What the UI knows of a version while the history loads: its header, its compile status
/// once compiled, and the files that did not compile.
pub struct Header<'a> {
    pub version: &'a Version,
    pub status: Option<Status>,
    pub failed_files: &'a BTreeSet<String>,
}

/// The version `i` is compared with while the analysis is not there yet, from the headers
/// alone, by the rule of `policy::semver::previous_to_compare` (which has the last word once
/// the analysis arrives): among the earlier tagged versions that compiled, the greatest below
/// it (releases only, for a release) that compiled every file this one compiled; without a
/// version number, the nearest earlier one; a revision or the working tree: the latest release.
pub fn previous_while_loading(versions: &[Header<'_>], i: usize) -> Option<usize> {
    let compiled = |j: usize| {
        versions
            .get(j)
            .and_then(|v| v.status)
            .is_some_and(|s| s != Status::Failed)
    };
    let v = versions.get(i)?;
    let covers = |j: usize| {
        versions
            .get(j)
            .is_some_and(|w| w.failed_files.is_subset(v.failed_files))
    };
    let pick = |list: Vec<usize>| {
        list.iter()
            .copied()
            .find(|&j| covers(j))
            .or(list.first().copied())
    };
    let before = || pick((0..i).rev().filter(|&j| compiled(j)).collect());
    let tags = |filter: &dyn Fn(&semver::Version) -> bool| -> Vec<(usize, &semver::Version)> {
        versions
            .iter()
            .enumerate()
            .filter(|&(j, w)| j != i && compiled(j) && w.version.kind == VersionKind::Tag)
            .filter_map(|(j, w)| w.version.semver.as_ref().map(|s| (j, s)))
            .filter(|(_, s)| filter(s))
            .collect()
    };
    match (v.version.kind, &v.version.semver) {
        (VersionKind::Tag, Some(cur)) => {
            let mut c = tags(&|s| {
                s.cmp_precedence(cur).is_lt() && (s.pre.is_empty() || !cur.pre.is_empty())
            });
            c.sort_by(|a, b| b.1.cmp_precedence(a.1).then_with(|| a.0.cmp(&b.0)));
            pick(c.into_iter().map(|(j, _)| j).collect())
        }
        (VersionKind::Tag, None) => before(),
        _ => {
            let greatest = |release_only: bool| {
                tags(&|s| !release_only || s.pre.is_empty())
                    .into_iter()
                    .max_by(|a, b| a.1.cmp_precedence(b.1).then_with(|| b.0.cmp(&a.0)))
                    .map(|(j, _)| j)
            };
            greatest(true).or_else(|| greatest(false)).or_else(before)
        }
    }
}

/// Judges every version with `settings` (its root already resolved to a full name).
pub fn analyze(project: &Project, settings: &Settings) -> Facts {
    let mut out = Facts {
        root: settings.root.clone(),
        policy: settings.policy.as_ref().map(|p| p.to_string()),
        ..Facts::default()
    };
    let cmp = Comparer::new(project, settings.root.clone(), settings.ignores.clone());
    let analysis = match policy::analyze_with(&cmp, settings) {
        Ok(a) => a,
        Err(e) => {
            out.error = Some(e.to_string());
            return out;
        }
    };
    for r in &analysis.versions {
        let c = &r.counts;
        let worst = [
            (c.breaking, Severity::Breaking),
            (c.lossy, Severity::Lossy),
            (c.hazard, Severity::Hazard),
            (c.safe, Severity::Safe),
        ]
        .into_iter()
        .find(|(n, _)| *n > 0)
        .map(|(_, s)| s);
        let semver = (r.semver.verdict != SemverVerdict::None).then_some(r.semver.verdict);
        out.versions.push(VersionFacts {
            previous: r.previous,
            bump: r.semver.bump,
            required: r.semver.required,
            semver,
            reason: (!r.semver.reason.is_empty()).then(|| r.semver.reason.clone()),
            changes: c.total(),
            worst,
            policy: r.policy.as_ref().map(|p| p.pass),
            policy_reason: r.policy.as_ref().and_then(policy_reason),
            hazards: r
                .hazards
                .iter()
                .filter_map(|&h| analysis.hazards.get(h))
                .map(|h| h.message.clone())
                .collect(),
        });
    }
    out
}

fn policy_reason(p: &policy::PolicyResult) -> Option<String> {
    match &p.first_violation {
        Some(v) => Some(format!(
            "{}: {} {} against {} ({} {})",
            p.name,
            v.change.rule,
            v.change.element,
            v.against,
            v.direction.as_str(),
            v.severity.as_str()
        )),
        None => p.note.clone(),
    }
}

/// Every plain policy (and the configured one) over every version, at the configured level.
pub fn policy_matrix(project: &Project, settings: &Settings) -> PolicyMatrix {
    let mut policies: Vec<Policy> = Policy::PLAIN.to_vec();
    if let Some(p) = &settings.policy
        && !policies.contains(p)
    {
        policies.push(p.clone());
    }
    let cmp = Comparer::new(project, settings.root.clone(), settings.ignores.clone());
    let previous: Vec<Option<usize>> = (0..project.versions.len())
        .map(|i| policy::semver::previous_to_compare(&project.versions, i))
        .collect();
    let columns = policies
        .iter()
        .filter(|p| p.check_versions(&project.versions).is_ok())
        .map(|p| {
            let results =
                policy::registry::evaluate_all(&cmp, p, settings.level, settings.strict, &previous);
            let judged = |i: usize, r: &policy::PolicyResult| {
                let compiled = project
                    .versions
                    .get(i)
                    .is_some_and(|v| v.compiled.status != Status::Failed);
                compiled && (!r.checked.is_empty() || !r.pass || *p == Policy::AllowAny && i > 0)
            };
            PolicyColumn {
                name: p.to_string(),
                reasons: results.iter().map(policy_reason).collect(),
                results: results
                    .iter()
                    .enumerate()
                    .map(|(i, r)| judged(i, r).then_some(r.pass))
                    .collect(),
            }
        })
        .collect();
    PolicyMatrix {
        root: settings.root.clone(),
        level: settings.level.as_str().to_string(),
        columns,
    }
}
