//! The CI gate behind `protolapse check`: one subject (the working tree, or a revision)
//! against a base (the previous relevant version of the version about to be published, the
//! release it builds on, or one named), judged by a policy, the semver check, history-wide
//! hazards, compile errors and buffrs package rules. Every finding says what, where, and how
//! to fix it (`findings`).

mod findings;
mod fix;
mod proofs;

use std::collections::BTreeMap;

use crate::judge::{Comparer, Counts};
use crate::load::VersionId;
use crate::rules::{self, Bump, RuleId};

use super::registry::{self, Policy};
use super::semver::{self as sv, SemverVerdict};
use super::{Settings, buffrs, hazards};

pub use findings::{Finding, GateReport, Outcome};
use findings::{Key, change_finding, compile_findings, key, repo_location, why};
pub use fix::how_to_fix_change;

/// What to check.
pub struct GateInput<'a> {
    pub subject: VersionId,
    pub base: VersionId,
    /// The version about to be published (from `--version`, a buffrs manifest, or the tag
    /// on a revision's commit).
    pub version: Option<&'a semver::Version>,
    pub policy: &'a Policy,
    pub settings: &'a Settings,
    /// Prove the changes from the base by round trips (`check --prove`): a contradicted
    /// safe claim is an error.
    pub prove: bool,
}

/// The policy's findings: every change it rejects against each version it requires,
/// errors before warnings (a change that only warns against the base may break against an
/// older version), each change once. A violation the base already had against the same
/// version is not this change's doing: it is reported as a warning.
fn policy_findings(
    cmp: &Comparer<'_>,
    input: &GateInput<'_>,
    earlier: &[VersionId],
    checked: &mut Vec<VersionId>,
) -> Vec<Finding> {
    let versions = cmp.versions();
    let s = input.settings;
    let mut errors: BTreeMap<Key, Finding> = BTreeMap::new();
    let mut warnings: BTreeMap<Key, Finding> = BTreeMap::new();
    for (j, backward, forward) in
        registry::requirements(input.policy, versions, Some(input.base), earlier)
    {
        checked.push(j);
        let (fails, warns) = registry::violations_against(
            cmp,
            input.policy,
            s.level,
            s.strict,
            j,
            input.subject,
            backward,
            forward,
        );
        // What the base already did against j (failures and warnings alike).
        let before: Vec<Key> = if j != input.base && !(fails.is_empty() && warns.is_empty()) {
            let (a, b) = registry::violations_against(
                cmp,
                input.policy,
                s.level,
                s.strict,
                j,
                input.base,
                backward,
                forward,
            );
            a.iter().chain(&b).map(|v| key(&v.change)).collect()
        } else {
            Vec::new()
        };
        let base_name = &versions[input.base.index()].version.name;
        for v in fails {
            let k = key(&v.change);
            if errors.contains_key(&k) {
                continue;
            }
            let mut why = why(input.policy, s.level, &v);
            let preexisting = before.contains(&k);
            if preexisting {
                why.push_str(&format!("; already so in {base_name}"));
            }
            let severity = if preexisting {
                Outcome::Warning
            } else {
                Outcome::Error
            };
            let mut f = change_finding(versions, input.subject, j, severity, why, v.change);
            f.preexisting = preexisting;
            match severity {
                Outcome::Error => {
                    warnings.remove(&k);
                    errors.insert(k, f);
                }
                Outcome::Warning => {
                    warnings.entry(k).or_insert(f);
                }
            }
        }
        for v in warns {
            let k = key(&v.change);
            if errors.contains_key(&k) || warnings.contains_key(&k) {
                continue;
            }
            let mut why = why(input.policy, s.level, &v);
            let preexisting = before.contains(&k);
            if preexisting {
                why.push_str(&format!("; already so in {base_name}"));
            }
            let mut f = change_finding(versions, input.subject, j, Outcome::Warning, why, v.change);
            f.preexisting = preexisting;
            warnings.insert(k, f);
        }
    }
    errors.into_values().chain(warnings.into_values()).collect()
}

/// Runs the gate.
pub fn run(cmp: &Comparer<'_>, input: &GateInput<'_>) -> GateReport {
    let versions = cmp.versions();
    let s = input.settings;
    let subject = &versions[input.subject.index()];
    let base = &versions[input.base.index()];
    let changes = cmp.changes(input.base, input.subject).unwrap_or_default();
    let not_judged = cmp.scope().not_judged(subject, &changes);
    let mut findings = Vec::new();
    let mut notes = Vec::new();

    // The policy, against the base (and, when transitive, every release up to it).
    let prerelease = input.version.is_some_and(|v| !v.pre.is_empty());
    let earlier = registry::earlier_tags(versions, VersionId(input.base.0 + 1), !prerelease);
    let mut checked = Vec::new();
    findings.extend(policy_findings(cmp, input, &earlier, &mut checked));
    if checked.is_empty() && !matches!(input.policy, Policy::AllowAny) {
        notes.push(format!(
            "{} had no release to check against (none in its window up to {})",
            input.policy, base.version.name
        ));
    }

    // The semver check of the version about to be published.
    let mut semver = None;
    if let (Some(x), Some(base_v)) = (input.version, base.version.semver.as_ref()) {
        let mut check = sv::assess(&base.version.name, Some((base_v, x)), &changes, s.pre1);
        check.unless_unjudged(not_judged.as_deref());
        if check.verdict == SemverVerdict::TooSmall {
            let first = check.deciding.first();
            let more = match check.deciding.len() {
                0 | 1 => String::new(),
                n => format!(" (+{} more)", n - 1),
            };
            let mut f = Finding::plain(
                Outcome::Error,
                super::codes::SEMVER_TOO_SMALL,
                format!(
                    "{x}: {} (from {}){}{more}",
                    check.reason,
                    base.version.name,
                    first
                        .map(|c| format!(": {} {}", c.rule, c.element))
                        .unwrap_or_default()
                ),
                format!(
                    "publish it as {} instead, or make the changes compatible",
                    next_version(base_v, check.required.unwrap_or(Bump::None), s.pre1)
                ),
            );
            // Where the deciding change is, for annotations.
            if let Some(c) = first {
                let g = change_finding(
                    versions,
                    input.subject,
                    input.base,
                    Outcome::Error,
                    String::new(),
                    c.clone(),
                );
                f.location = g.location;
                f.repo_location = g.repo_location;
            }
            findings.push(f);
        }
        semver = Some(check);
        // A version already tagged with another schema.
        if let Some(t) = versions
            .iter()
            .find(|v| {
                v.version.kind == crate::history::VersionKind::Tag
                    && v.version.semver.as_ref() == Some(x)
            })
            .map(|v| v.id)
            && t != input.subject
            && let Some(since) = cmp.changes(t, input.subject)
            && since.iter().any(|c| c.rule != RuleId::COMMENT_CHANGED)
        {
            findings.push(Finding::plain(
                Outcome::Error,
                super::codes::SEMVER_VERSION_TAKEN,
                format!(
                    "version {x} is already released as {}, with a different schema",
                    versions[t.index()].version.name
                ),
                format!(
                    "bump the version: these changes need at least {}",
                    next_version(x, rules::required_bump(&since), s.pre1)
                ),
            ));
        }
    }

    findings.extend(hazard_findings(cmp, input, &earlier));
    findings.extend(compile_findings(subject, base));
    let proofs = input.prove.then(|| {
        let (proofs, contradicted) = proofs::prove(cmp, input, &changes, &checked);
        findings.extend(contradicted);
        proofs
    });

    // buffrs package rules.
    if let Some(text) = &subject.version.manifest {
        for p in buffrs::check_text(text, subject) {
            let mut f = Finding::plain(Outcome::Error, p.rule, p.message, String::new());
            f.element = p.element;
            f.repo_location = p
                .location
                .as_deref()
                .and_then(|l| repo_location(subject, l));
            f.location = p.location;
            findings.push(f);
        }
    }

    findings.sort_by(|a, b| {
        let worst = |f: &Finding| f.change.as_ref().map(|c| c.verdict.worst());
        a.severity
            .cmp(&b.severity)
            .then_with(|| worst(b).cmp(&worst(a)))
            .then_with(|| a.location.cmp(&b.location))
            .then_with(|| a.rule.cmp(&b.rule))
            .then_with(|| a.element.cmp(&b.element))
    });
    GateReport {
        subject: subject.version.name.clone(),
        base: base.version.name.clone(),
        version: input.version.map(|v| v.to_string()),
        policy: input.policy.to_string(),
        level: s.level,
        config: s.origin.clone(),
        strict: s.strict,
        pass: not_judged.is_none() && !findings.iter().any(|f| f.severity == Outcome::Error),
        required_bump: rules::required_bump(&changes),
        semver,
        counts: Counts::of(&changes),
        findings,
        changes,
        checked: checked
            .iter()
            .map(|j| versions[j.index()].version.name.clone())
            .collect(),
        notes,
        not_judged,
        proofs,
    }
}

/// History-wide hazards that the subject introduces, with the subject placed after the base
/// and the releases before it (where it will be published), not after everything loaded.
fn hazard_findings(
    cmp: &Comparer<'_>,
    input: &GateInput<'_>,
    earlier: &[VersionId],
) -> Vec<Finding> {
    let versions = cmp.versions();
    let s = input.settings;
    let subject = &versions[input.subject.index()];
    let ids: Vec<VersionId> = earlier
        .iter()
        .copied()
        .chain(std::iter::once(input.subject))
        .collect();
    let sequence = crate::load::subsequence(versions, &ids);
    let last = VersionId::at(sequence.len().saturating_sub(1));
    let schema = &subject.compiled.schema;
    hazards::find(&sequence, cmp.scope())
        .into_iter()
        .filter(|h| h.at == last)
        .filter(|h| s.ignores.hazard(h.kind.id(), &h.element, schema).is_none())
        .map(|h| {
            // The element, or the message or enum holding it (a dropped reservation).
            let location = schema
                .doc(&h.element)
                .or_else(|| h.element.rsplit_once('.').and_then(|(p, _)| schema.doc(p)))
                .map(|d| format!("{}:{}", d.file, d.line));
            Finding {
                severity: if s.strict {
                    Outcome::Error
                } else {
                    Outcome::Warning
                },
                rule: h.kind.id().to_string(),
                element: h.element.clone(),
                number: h.number,
                repo_location: location.as_deref().and_then(|l| repo_location(subject, l)),
                location,
                why: Some(format!("history: {}", h.versions.join(" -> "))),
                fix: h.kind.fix().to_string(),
                message: h.message,
                change: None,
                preexisting: false,
            }
        })
        .collect()
}

/// The smallest version after `base` that allows changes requiring `required`.
pub fn next_version(base: &semver::Version, required: Bump, pre1: sv::Pre1) -> semver::Version {
    let (major, minor, patch) = (base.major, base.minor, base.patch);
    let cargo0 = pre1 == sv::Pre1::Cargo && major == 0;
    let bump = match (cargo0, minor, required) {
        (true, 0, _) => Bump::Patch,
        (true, _, Bump::Major) => Bump::Minor,
        (true, _, _) => Bump::Patch,
        (false, _, b) => b.max(Bump::Patch),
    };
    match bump {
        Bump::Major => semver::Version::new(major + 1, 0, 0),
        Bump::Minor => semver::Version::new(major, minor + 1, 0),
        _ => semver::Version::new(major, minor, patch + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_versions() {
        let v = |s: &str| semver::Version::parse(s).unwrap();
        assert_eq!(
            next_version(&v("1.2.3"), Bump::Major, sv::Pre1::Cargo),
            v("2.0.0")
        );
        assert_eq!(
            next_version(&v("1.2.3"), Bump::Minor, sv::Pre1::Cargo),
            v("1.3.0")
        );
        assert_eq!(
            next_version(&v("1.2.3"), Bump::None, sv::Pre1::Cargo),
            v("1.2.4")
        );
        assert_eq!(
            next_version(&v("0.2.3"), Bump::Major, sv::Pre1::Cargo),
            v("0.3.0")
        );
        assert_eq!(
            next_version(&v("0.2.3"), Bump::Minor, sv::Pre1::Cargo),
            v("0.2.4")
        );
        assert_eq!(
            next_version(&v("0.0.3"), Bump::Major, sv::Pre1::Cargo),
            v("0.0.4")
        );
        assert_eq!(
            next_version(&v("0.2.3"), Bump::Major, sv::Pre1::Strict),
            v("1.0.0")
        );
    }
}
