//! Registry compatibility policies (seed 003), evaluated over the ordered history at the wire
//! or JSON level: for each version, pass or fail, the version it fails against and the first
//! violating change. See docs/policies.md for the semantics and a worked example.
//!
//! *Backward*: the new schema reads data written with an older one (the verdict's `backward`
//! cell of the pair older -> newer). *Forward*: an older schema reads data written with the
//! new one (the `forward` cell). A `breaking` cell fails; `hazard` and `lossy` cells warn, and
//! fail under `strict`. Ignored changes count for nothing.

mod policy;
mod violations;

use std::collections::BTreeSet;

use rayon::prelude::*;
use serde::Serialize;

use crate::history::VersionKind;
use crate::judge::{Comparer, NOT_JUDGED};
use crate::load::{Loaded, VersionId};
use crate::rules::{Change, Severity};

pub use policy::{Level, Policy};
pub use violations::violations_against;

/// Which way data flows in a violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The new schema reads data written with the older one.
    Backward,
    /// The older schema reads data written with the new one.
    Forward,
    /// DENY_ALL: any change at all.
    Any,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Backward => "backward",
            Direction::Forward => "forward",
            Direction::Any => "any",
        }
    }
}

/// One change that a policy objects to, and against which version.
#[derive(Debug, Clone, Serialize)]
pub struct Violation {
    pub against: String,
    pub direction: Direction,
    pub severity: Severity,
    pub change: Change,
}

/// A policy's verdict on one version.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyResult {
    pub name: String,
    pub level: Level,
    pub pass: bool,
    /// The nearest version it fails against.
    pub against: Option<String>,
    /// The worst change that fails it against `against`.
    pub first_violation: Option<Violation>,
    /// Every version it fails against, nearest first.
    pub failed_against: Vec<String>,
    /// Versions it was checked against, nearest first.
    pub checked: Vec<String>,
    /// Hazard or lossy changes that warn (and would fail under strict), against the
    /// nearest version it passes with warnings.
    pub warnings: usize,
    /// Why there was nothing (or not everything) to check.
    pub note: Option<String>,
    /// Why the version is not judged (`judge::Scope::not_judged`, or changes against a
    /// version it is checked against that could not be judged); then `pass` is false, and
    /// it fails only if a change that was read fails it (see [`PolicyResult::unjudged`]).
    pub not_judged: Option<String>,
}

impl PolicyResult {
    fn new(policy: &Policy, level: Level) -> PolicyResult {
        PolicyResult {
            name: policy.to_string(),
            level,
            pass: true,
            against: None,
            first_violation: None,
            failed_against: Vec::new(),
            checked: Vec::new(),
            warnings: 0,
            note: None,
            not_judged: None,
        }
    }

    /// Not judged, and no change that was read fails it: neither pass nor fail.
    pub fn unjudged(&self) -> bool {
        self.not_judged.is_some() && self.failed_against.is_empty()
    }
}

/// What a version is checked against: (version, backward?, forward?), nearest first.
pub fn requirements(
    policy: &Policy,
    versions: &[Loaded],
    prev: Option<VersionId>,
    earlier: &[VersionId],
) -> Vec<(VersionId, bool, bool)> {
    let all = |b: bool, f: bool| -> Vec<(VersionId, bool, bool)> {
        earlier.iter().rev().map(|&j| (j, b, f)).collect()
    };
    let one = |b: bool, f: bool| -> Vec<(VersionId, bool, bool)> {
        prev.map(|j| vec![(j, b, f)]).unwrap_or_default()
    };
    let window = |x: &str| -> Vec<VersionId> {
        let start = crate::load::find(versions, x).map_or(VersionId(u32::MAX), |v| v.id);
        earlier
            .iter()
            .rev()
            .copied()
            .filter(|&j| j >= start)
            .collect()
    };
    match policy {
        Policy::AllowAny => Vec::new(),
        Policy::DenyAll => one(true, true),
        Policy::Backward => one(true, false),
        Policy::Forward => one(false, true),
        Policy::Full => one(true, true),
        Policy::BackwardTransitive => all(true, false),
        Policy::ForwardTransitive => all(false, true),
        Policy::FullTransitive => all(true, true),
        Policy::BackwardTill(x) => window(x).into_iter().map(|j| (j, true, false)).collect(),
        Policy::ForwardTill(x) => window(x).into_iter().map(|j| (j, false, true)).collect(),
        Policy::BackwardTillAndForwardTill(x, y) => {
            let b: BTreeSet<VersionId> = window(x).into_iter().collect();
            let f: BTreeSet<VersionId> = window(y).into_iter().collect();
            let all: BTreeSet<VersionId> = b.union(&f).copied().collect();
            all.into_iter()
                .rev()
                .map(|j| (j, b.contains(&j), f.contains(&j)))
                .collect()
        }
    }
}

/// The tagged versions before `id` in history order that compiled: what a transitive policy
/// checks `id` against. For a release (`releases_only`), pre-releases do not count: they
/// may change freely among themselves, and a release answers to releases.
pub fn earlier_tags(versions: &[Loaded], id: VersionId, releases_only: bool) -> Vec<VersionId> {
    versions[..id.index().min(versions.len())]
        .iter()
        .filter(|v| {
            v.version.kind == VersionKind::Tag
                && v.schema().is_some()
                && !(releases_only && v.version.semver.as_ref().is_some_and(|s| !s.pre.is_empty()))
        })
        .map(|v| v.id)
        .collect()
}

/// A policy's evaluation over one history, all but the policy: the comparer, the level and
/// strictness, each version's previous relevant version and the tags before it
/// ([`earlier_of_each`]).
#[derive(Clone, Copy)]
pub struct Evaluation<'a, 'p> {
    pub cmp: &'a Comparer<'p>,
    pub level: Level,
    pub strict: bool,
    pub previous: &'a [Option<VersionId>],
    pub earlier: &'a [Vec<VersionId>],
}

impl Evaluation<'_, '_> {
    /// Evaluates `policy` for version `subject`. Without `first_violation`, a failing result
    /// names the versions it fails against but not its first violation (which reads the
    /// pair's changes: most of the cost of a history's results once the pairs are
    /// summarized).
    pub fn version(
        &self,
        policy: &Policy,
        subject: VersionId,
        first_violation: bool,
    ) -> PolicyResult {
        let Evaluation {
            cmp, level, strict, ..
        } = *self;
        let versions = cmp.versions();
        let mut out = PolicyResult::new(policy, level);
        if let Some(why) = versions
            .get(subject.index())
            .and_then(|v| cmp.scope().not_judged(v, &[]))
        {
            out.pass = false;
            out.note = Some(format!("{NOT_JUDGED}: {why}"));
            out.not_judged = Some(why);
            return out;
        }
        let reqs = self.requirements(policy, subject);
        if reqs.is_empty() {
            out.note = Some(match policy {
                Policy::AllowAny => "any change is allowed".into(),
                Policy::BackwardTill(_)
                | Policy::ForwardTill(_)
                | Policy::BackwardTillAndForwardTill(..) => {
                    "no earlier version in the policy's window".into()
                }
                _ => "no earlier version to check against".into(),
            });
            return out;
        }
        let l = level.index();
        let pairs: Vec<(VersionId, VersionId)> = reqs.iter().map(|&(j, ..)| (j, subject)).collect();
        for ((j, backward, forward), s) in reqs.into_iter().zip(cmp.summaries(&pairs)) {
            let name = &versions[j.index()].version.name;
            let Some(s) = s else {
                continue;
            };
            out.checked.push(name.clone());
            if s.not_judged > 0 && out.not_judged.is_none() {
                let n = s.not_judged;
                out.not_judged = Some(format!(
                    "{n} change{} against {name} could not be judged (a file did not compile)",
                    if n == 1 { "" } else { "s" }
                ));
            }
            let dirs = [(backward, 0), (forward, 1)];
            let fails = if matches!(policy, Policy::DenyAll) {
                s.changed
            } else {
                dirs.iter().any(|&(on, d)| {
                    on && (s.worst[l][d] == Severity::Breaking
                        || (strict && s.worst[l][d] > Severity::Safe))
                })
            };
            if fails {
                if out.pass {
                    out.pass = false;
                    out.against = Some(name.clone());
                    if first_violation {
                        out.first_violation =
                            self.first_of(policy, (j, subject), backward, forward);
                    }
                }
                out.failed_against.push(name.clone());
            } else if out.warnings == 0 && !strict && !matches!(policy, Policy::DenyAll) {
                out.warnings = dirs
                    .iter()
                    .filter(|(on, _)| *on)
                    .map(|&(_, d)| s.warnings[l][d] as usize)
                    .sum();
            }
        }
        if let Some(why) = &out.not_judged
            && out.pass
        {
            out.pass = false;
            out.note = Some(format!("{NOT_JUDGED}: {why}"));
        }
        out
    }

    /// [`Evaluation::version`] of every version of the history, on every core, in history
    /// order, once the pairs are compared (see [`pairs_of_all`]).
    pub fn each(&self, policy: &Policy, first_violations: bool) -> Vec<PolicyResult> {
        self.cmp
            .versions()
            .par_iter()
            .map(|v| self.version(policy, v.id, first_violations))
            .collect()
    }

    /// What `subject` is checked against by `policy` ([`requirements`]), nearest first.
    fn requirements(&self, policy: &Policy, subject: VersionId) -> Vec<(VersionId, bool, bool)> {
        let prev = self.previous.get(subject.index()).copied().flatten();
        let earlier = self
            .earlier
            .get(subject.index())
            .map_or(&[][..], Vec::as_slice);
        requirements(policy, self.cmp.versions(), prev, earlier)
    }

    /// The first violation of each failing result of [`Evaluation::each`] (made without
    /// them), in place, on every core: found in the pair with the version it fails against
    /// (the others are not read again).
    pub fn first_violations(&self, policy: &Policy, results: &mut [PolicyResult]) {
        let versions = self.cmp.versions();
        results
            .par_iter_mut()
            .zip(versions)
            .filter(|(r, _)| r.first_violation.is_none())
            .for_each(|(r, v)| {
                let Some(against) = r.against.as_deref() else {
                    return;
                };
                let req = self
                    .requirements(policy, v.id)
                    .into_iter()
                    .find(|(j, ..)| versions[j.index()].version.name == against);
                if let Some((j, backward, forward)) = req {
                    r.first_violation = self.first_of(policy, (j, v.id), backward, forward);
                }
            });
    }
}

/// Evaluates `policy` for every version of the history; `previous[i]` is the version `i`
/// is compared with.
pub fn evaluate_all(
    cmp: &Comparer<'_>,
    policy: &Policy,
    level: Level,
    strict: bool,
    previous: &[Option<VersionId>],
) -> Vec<PolicyResult> {
    let versions = cmp.versions();
    let earlier = earlier_of_each(versions);
    cmp.prefetch(pairs(versions, policy, previous, &earlier));
    let evaluation = Evaluation {
        cmp,
        level,
        strict,
        previous,
        earlier: &earlier,
    };
    evaluation.each(policy, true)
}

/// For each version, the tags it is checked against by a transitive policy (see
/// [`earlier_tags`]: a pre-release answers to every earlier tag, a release to releases).
pub fn earlier_of_each(versions: &[Loaded]) -> Vec<Vec<VersionId>> {
    versions
        .iter()
        .map(|v| {
            let pre = v.version.semver.as_ref().is_some_and(|s| !s.pre.is_empty());
            earlier_tags(versions, v.id, !pre)
        })
        .collect()
}

/// Every (older, version) pair that `policy` checks, in history order.
fn pairs<'a>(
    versions: &'a [Loaded],
    policy: &'a Policy,
    previous: &'a [Option<VersionId>],
    earlier: &'a [Vec<VersionId>],
) -> impl Iterator<Item = (VersionId, VersionId)> + 'a {
    versions.iter().flat_map(move |v| {
        let prev = previous.get(v.id.index()).copied().flatten();
        let earlier = earlier.get(v.id.index()).map_or(&[][..], Vec::as_slice);
        requirements(policy, versions, prev, earlier)
            .into_iter()
            .map(move |(j, _, _)| (j, v.id))
    })
}

/// Every pair that any of `policies` checks (each policy's pairs in history order, then the
/// next policy's; `earlier` is [`earlier_of_each`]): what [`Comparer::prefetch_with`]
/// computes before the policies are evaluated.
pub fn pairs_of_all<'a>(
    versions: &'a [Loaded],
    policies: &'a [Policy],
    previous: &'a [Option<VersionId>],
    earlier: &'a [Vec<VersionId>],
) -> impl Iterator<Item = (VersionId, VersionId)> + 'a {
    policies
        .iter()
        .flat_map(move |p| pairs(versions, p, previous, earlier))
}
