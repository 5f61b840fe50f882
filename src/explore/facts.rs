//! Facts per version for the versions pane and the policy view, from the whole-history
//! analysis (`policy`): the previous relevant version, the actual and required bumps, the
//! semver verdict, the configured policy's result, history-wide hazards; and the policy
//! matrix (every version × every policy).
//!
//! The UI reads only [`Facts`] and [`PolicyMatrix`]; [`analyze`] and [`policy_matrix`] fill
//! them (in a worker).

use rayon::prelude::*;

use crate::judge::{Comparer, Scope};
use crate::load::{Project, VersionId, lineage};
use crate::policy::registry::Evaluation;
use crate::policy::{self, Policy, PolicyResult, SemverVerdict, Settings};
use crate::rules::{Bump, Severity};

/// What is known of one version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VersionFacts {
    /// The version it is compared with by default.
    pub previous: Option<VersionId>,
    /// The bump from `previous` to this version, from their version numbers.
    pub bump: Option<Bump>,
    /// The bump its changes require.
    pub required: Option<Bump>,
    /// The bump of the version number they need (below 1.0, Cargo's reading: one place
    /// lower than `required`), as the semver reason names it.
    pub need: Option<Bump>,
    pub semver: Option<SemverVerdict>,
    /// Why the semver verdict is what it is (one line).
    pub reason: Option<String>,
    /// Changes against `previous` (ignored ones apart), and the worst.
    pub changes: usize,
    pub worst: Option<Severity>,
    /// The configured policy's result, when one is configured, and why it fails (or is not
    /// judged).
    pub policy: Option<Mark>,
    pub policy_reason: Option<String>,
    /// History-wide hazards that show in this version (one line each).
    pub hazards: Vec<String>,
}

/// A check's result on one version, as the UI marks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Pass,
    Fail,
    /// What decides it was not read (a file did not compile): never a pass.
    NotJudged,
}

impl Mark {
    /// A policy's result.
    pub fn of_policy(p: &policy::PolicyResult) -> Mark {
        if p.unjudged() {
            Mark::NotJudged
        } else if p.pass {
            Mark::Pass
        } else {
            Mark::Fail
        }
    }

    /// A semver verdict (None: no verdict).
    pub fn of_semver(v: SemverVerdict) -> Option<Mark> {
        match v {
            SemverVerdict::Ok | SemverVerdict::LargerThanNeeded => Some(Mark::Pass),
            SemverVerdict::TooSmall => Some(Mark::Fail),
            SemverVerdict::NotJudged => Some(Mark::NotJudged),
            SemverVerdict::None => None,
        }
    }
}

/// Everything known per version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// The scope the analysis judged.
    pub scope: Scope,
    pub versions: Vec<VersionFacts>,
    /// The configured policy, if any.
    pub policy: Option<String>,
    /// Why the analysis could not run, if it could not.
    pub error: Option<String>,
}

/// One policy over the history: pass, fail or not judged per version (`None`: nothing to
/// check).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyColumn {
    pub name: String,
    pub results: Vec<Option<Mark>>,
    /// Why each failing version fails (its first violation), or a note (why it is not
    /// judged).
    pub reasons: Vec<Option<String>>,
}

/// Every version × every policy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PolicyMatrix {
    pub scope: Scope,
    pub level: String,
    pub columns: Vec<PolicyColumn>,
    /// Whether each failing cell's reason names its first violation; false while those
    /// are worked out (the marks come first).
    pub complete: bool,
}

/// Judges every version with `settings`.
pub fn analyze(project: &Project, settings: &Settings) -> Facts {
    analyze_on(&policy::comparer(project, settings), settings)
}

/// [`analyze`] with a comparer of the settings' scope.
pub fn analyze_on(cmp: &Comparer<'_>, settings: &Settings) -> Facts {
    let mut out = Facts {
        scope: settings.scope.clone(),
        policy: settings.policy.as_ref().map(|p| p.to_string()),
        ..Facts::default()
    };
    let analysis = match policy::analyze_with(cmp, settings) {
        Ok(a) => a,
        Err(e) => {
            out.error = Some(e.to_string());
            return out;
        }
    };
    for r in &analysis.versions {
        let c = &r.counts;
        let worst = c.worst();
        let semver = (r.semver.verdict != SemverVerdict::None).then_some(r.semver.verdict);
        out.versions.push(VersionFacts {
            previous: r.previous,
            bump: r.semver.bump,
            required: r.semver.required,
            need: r.semver.needed,
            semver,
            reason: (!r.semver.reason.is_empty()).then(|| r.semver.reason.clone()),
            changes: c.total(),
            worst,
            policy: r.policy.as_ref().map(Mark::of_policy),
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

fn policy_reason(p: &PolicyResult) -> Option<String> {
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
    let matrix = policy_matrix_with(project, settings, &|_, _| true);
    matrix.unwrap_or_else(|| PolicyMatrix {
        scope: settings.scope.clone(),
        level: settings.level.as_str().to_string(),
        columns: Vec::new(),
        complete: true,
    })
}

/// [`policy_matrix`], computing first every distinct pair that any policy checks, on every
/// core, with `progress(done, total)` after each; None when `progress` returns false (the
/// matrix is no longer wanted: the root changed).
pub fn policy_matrix_with(
    project: &Project,
    settings: &Settings,
    progress: &(dyn Fn(usize, usize) -> bool + Sync),
) -> Option<PolicyMatrix> {
    let cmp = policy::comparer(project, settings);
    Some(policy_marks(&cmp, settings, progress)?.complete(&cmp))
}

/// A policy matrix with every cell marked, the first violations of its failing cells not
/// worked out yet (they read each failing pair's changes: a third of the matrix's cost on a
/// long history, once its pairs are summarized).
pub struct Marked {
    scope: Scope,
    level: crate::rules::Level,
    strict: bool,
    policies: Vec<Policy>,
    previous: Vec<Option<VersionId>>,
    earlier: Vec<Vec<VersionId>>,
    /// Per policy, per version.
    results: Vec<Vec<PolicyResult>>,
}

impl Marked {
    /// The matrix so far (not [`PolicyMatrix::complete`]).
    pub fn matrix(&self) -> PolicyMatrix {
        self.build(false)
    }

    /// The matrix, each failing cell with its first violation, found on every core. The
    /// marks are kept: freeing them takes milliseconds the matrix need not wait for.
    pub fn complete(&mut self, cmp: &Comparer<'_>) -> PolicyMatrix {
        let evaluation = Evaluation {
            cmp,
            level: self.level,
            strict: self.strict,
            previous: &self.previous,
            earlier: &self.earlier,
        };
        self.policies
            .par_iter()
            .zip(&mut self.results)
            .for_each(|(p, r)| evaluation.first_violations(p, r));
        self.build(true)
    }

    fn build(&self, complete: bool) -> PolicyMatrix {
        PolicyMatrix {
            scope: self.scope.clone(),
            level: self.level.as_str().to_string(),
            columns: self
                .policies
                .iter()
                .zip(&self.results)
                .map(|(p, r)| column(p, r))
                .collect(),
            complete,
        }
    }
}

/// The first step of [`policy_matrix_with`], on a comparer of the settings' scope: every
/// cell marked.
pub fn policy_marks(
    cmp: &Comparer<'_>,
    settings: &Settings,
    progress: &(dyn Fn(usize, usize) -> bool + Sync),
) -> Option<Marked> {
    let versions = cmp.versions();
    let mut policies: Vec<Policy> = Policy::PLAIN.to_vec();
    if let Some(p) = &settings.policy
        && !policies.contains(p)
    {
        policies.push(p.clone());
    }
    policies.retain(|p| p.check_versions(versions).is_ok());
    let previous = lineage::previous_of_each(versions);
    let earlier = policy::registry::earlier_of_each(versions);
    let pairs = policy::registry::pairs_of_all(versions, &policies, &previous, &earlier);
    if !cmp.prefetch_with(pairs, progress) {
        return None;
    }
    let evaluation = Evaluation {
        cmp,
        level: settings.level,
        strict: settings.strict,
        previous: &previous,
        earlier: &earlier,
    };
    // Each policy on its own, side by side: the pairs are compared.
    let results = policies
        .par_iter()
        .map(|p| evaluation.each(p, false))
        .collect();
    Some(Marked {
        scope: settings.scope.clone(),
        level: settings.level,
        strict: settings.strict,
        policies,
        previous,
        earlier,
        results,
    })
}

/// One policy's column of the matrix.
fn column(p: &Policy, results: &[PolicyResult]) -> PolicyColumn {
    // Something was checked (or, for ALLOW_ANY, there was something to allow).
    let checked = |i: usize, r: &PolicyResult| {
        r.unjudged() || !r.checked.is_empty() || !r.pass || *p == Policy::AllowAny && i > 0
    };
    PolicyColumn {
        name: p.to_string(),
        reasons: results.iter().map(policy_reason).collect(),
        results: results
            .iter()
            .enumerate()
            .map(|(i, r)| checked(i, r).then(|| Mark::of_policy(r)))
            .collect(),
    }
}
