//! Facts per version, for the versions pane and the policy view: the previous relevant
//! version, the actual and required semver bumps, the semver verdict and policy results.
//!
//! This is the seam between the UI and the whole-history analysis: the UI only reads
//! [`Facts`]; [`analyze`] fills them.

use crate::load::Project;
use crate::rules::{self, Bump, Severity};
use crate::schema::{Compiled, Status};

/// The semver verdict of one version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SemverMark {
    /// The bump is at least what the changes require.
    Ok,
    /// The bump is smaller than the changes require.
    TooSmall,
}

/// What is known of one version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VersionFacts {
    /// The version it is compared with by default.
    pub previous: Option<usize>,
    /// The bump from `previous` to this version, from their version numbers.
    pub bump: Option<Bump>,
    /// The bump its changes require.
    pub required: Option<Bump>,
    pub semver: Option<SemverMark>,
    /// Why the semver verdict is what it is (one line).
    pub reason: Option<String>,
    /// Number of changes against `previous`, and the worst.
    pub changes: usize,
    pub worst: Option<Severity>,
    /// The configured policy's result, when one is configured.
    pub policy: Option<bool>,
}

/// One policy evaluated over the history: pass/fail per version (`None`: not evaluated).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyColumn {
    pub name: String,
    pub results: Vec<Option<bool>>,
    /// The first violating change per failing version (one line).
    pub reasons: Vec<Option<String>>,
}

/// Everything known per version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// The root the analysis was scoped to (`None`: the whole schema).
    pub root: Option<String>,
    pub versions: Vec<VersionFacts>,
    /// The policy matrix (versions × policies); empty when the analysis provides none.
    pub policies: Vec<PolicyColumn>,
    /// The configured policy, if any.
    pub policy: Option<String>,
}

/// The version a version is compared with by default: the nearest earlier one that compiled
/// completely, else the nearest that compiled at all. (Versions are ordered by semver, so
/// this is the greatest lower release; pre-releases compare with their predecessor.)
pub fn previous_relevant(compiled: &[Option<&Compiled>], index: usize) -> Option<usize> {
    let status = |i: usize| compiled.get(i).copied().flatten().map(|c| c.status);
    (0..index)
        .rev()
        .find(|&i| status(i) == Some(Status::Complete))
        .or_else(|| {
            (0..index)
                .rev()
                .find(|&i| status(i) == Some(Status::Partial))
        })
}

/// The bump between two version numbers; below 1.0.0 a minor step counts as major and a patch
/// step as minor (Cargo's convention).
pub fn actual_bump(old: &semver::Version, new: &semver::Version) -> Bump {
    let below_one = new.major == 0;
    if new.major != old.major || below_one && new.minor != old.minor {
        Bump::Major
    } else if new.minor != old.minor || below_one && new.patch != old.patch {
        Bump::Minor
    } else if new.patch != old.patch || new.pre != old.pre {
        Bump::Patch
    } else {
        Bump::None
    }
}

/// Computes the facts of every version, scoped to `root` when given.
pub fn analyze(project: &Project, root: Option<&str>) -> Facts {
    let compiled: Vec<Option<&Compiled>> = project
        .versions
        .iter()
        .map(|v| Some(v.compiled.as_ref()))
        .collect();
    let mut out = Facts {
        root: root.map(str::to_string),
        ..Facts::default()
    };
    for (i, v) in project.versions.iter().enumerate() {
        let mut f = VersionFacts {
            previous: previous_relevant(&compiled, i),
            ..VersionFacts::default()
        };
        if let Some(p) = f.previous
            && let Some(prev) = project.versions.get(p)
            && v.compiled.status != Status::Failed
        {
            let (a, b) = (&prev.compiled.schema, &v.compiled.schema);
            let pairing = match root {
                Some(r) => crate::diff::pair_from_root(&a.content, &b.content, r),
                None => crate::diff::pair_whole(&a.content, &b.content),
            };
            let changes = rules::check(&pairing, a, b);
            let required = rules::required_bump(&changes);
            f.changes = changes.len();
            f.worst = changes.iter().map(|c| c.verdict.worst()).max();
            f.required = Some(required);
            if let (Some(o), Some(n)) = (&prev.version.semver, &v.version.semver) {
                let bump = actual_bump(o, n);
                f.bump = Some(bump);
                let ok = bump >= required;
                f.semver = Some(if ok {
                    SemverMark::Ok
                } else {
                    SemverMark::TooSmall
                });
                if !ok {
                    let first = changes.iter().find(|c| c.bump > bump);
                    f.reason = Some(match first {
                        Some(c) => format!(
                            "{} bump, but {} {} requires {}",
                            bump.as_str(),
                            c.rule,
                            c.element,
                            c.bump.as_str()
                        ),
                        None => format!("{} bump, {} required", bump.as_str(), required.as_str()),
                    });
                }
            }
        }
        out.versions.push(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> semver::Version {
        semver::Version::parse(s).unwrap()
    }

    #[test]
    fn bumps_follow_cargo_below_one() {
        assert_eq!(actual_bump(&v("1.0.0"), &v("2.0.0")), Bump::Major);
        assert_eq!(actual_bump(&v("1.0.0"), &v("1.1.0")), Bump::Minor);
        assert_eq!(actual_bump(&v("1.1.0"), &v("1.1.1")), Bump::Patch);
        assert_eq!(actual_bump(&v("0.2.0"), &v("0.3.0")), Bump::Major);
        assert_eq!(actual_bump(&v("0.2.0"), &v("0.2.1")), Bump::Minor);
        assert_eq!(actual_bump(&v("1.0.0-rc.1"), &v("1.0.0")), Bump::Patch);
    }
}
