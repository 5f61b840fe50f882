//! The CI gate behind `protolapse check`: one subject (the working tree, or a revision)
//! against a base (the latest release, the previous relevant version of the version about
//! to be published, or one named), judged by a policy, the semver check, history-wide
//! hazards and buffrs package rules. Every finding says what, where, and how to fix it.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::load::Loaded;
use crate::rules::{self, Bump, Change, Severity};

use super::registry::{self, Direction, Level, Policy};
use super::semver::{self as sv, SemverCheck, SemverVerdict};
use super::{Comparer, Counts, Settings, buffrs, hazards};

/// Errors fail the gate; warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Error,
    Warning,
}

/// One thing the gate found.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub severity: Outcome,
    /// A rule id (`FIELD_TYPE_CHANGED`), or `SEMVER_TOO_SMALL`, `HAZARD_NUMBER_REUSED`,
    /// `BUFFRS_LIB_HAS_SERVICE`, ...
    pub rule: String,
    pub element: String,
    /// `file:line` as an import path (relative to its proto root).
    pub location: Option<String>,
    /// The same place relative to the repository root, for annotations.
    pub repo_location: Option<(String, u32)>,
    pub message: String,
    /// The verdict cell that decided it (`wire backward breaking against v1.1.1`).
    pub why: Option<String>,
    /// How to make the change safely.
    pub fix: String,
    /// The change, when the finding is one.
    pub change: Option<Change>,
}

/// The gate's verdict.
#[derive(Debug, Clone, Serialize)]
pub struct GateReport {
    pub subject: String,
    pub base: String,
    /// The version about to be published, when known.
    pub version: Option<String>,
    pub policy: String,
    pub level: Level,
    pub strict: bool,
    pub pass: bool,
    pub required_bump: Bump,
    pub semver: Option<SemverCheck>,
    pub counts: Counts,
    pub findings: Vec<Finding>,
    /// Every change from base to subject (ignored ones marked).
    pub changes: Vec<Change>,
    /// Versions checked against (nearest first).
    pub checked: Vec<String>,
}

/// What to check.
pub struct GateInput<'a> {
    pub subject: usize,
    pub base: usize,
    /// The version about to be published (from `--version` or a buffrs manifest).
    pub version: Option<&'a semver::Version>,
    pub policy: &'a Policy,
    pub settings: &'a Settings,
}

/// The base for a subject: the previous relevant version of `version` among the tags, or
/// the latest release. None when no tag compiled.
pub fn default_base(versions: &[Loaded], version: Option<&semver::Version>) -> Option<usize> {
    let compiled = |v: &Loaded| v.compiled.status != crate::schema::Status::Failed;
    match version {
        Some(x) => versions
            .iter()
            .enumerate()
            .filter(|(_, v)| v.version.kind == crate::history::VersionKind::Tag && compiled(v))
            .filter_map(|(j, v)| v.version.semver.as_ref().map(|s| (j, s)))
            .filter(|(_, s)| s.cmp_precedence(x).is_lt() && (s.pre.is_empty() || !x.pre.is_empty()))
            .max_by(|a, b| a.1.cmp_precedence(b.1))
            .map(|(j, _)| j),
        None => sv::latest_release(versions),
    }
}

/// First paragraph of the rule page's "How to make the change safely".
pub fn how_to_fix(rule: &str) -> String {
    let Some(page) = rules::page(rule) else {
        return String::new();
    };
    let mut lines = page
        .lines()
        .skip_while(|l| !l.starts_with("## How to make the change safely"))
        .skip(1)
        .skip_while(|l| l.trim().is_empty());
    let mut out = String::new();
    for l in lines.by_ref() {
        if l.trim().is_empty() || l.starts_with('#') {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(l.trim());
    }
    out
}

/// Maps an import-path location to the repository path, through the version's files.
fn repo_location(v: &Loaded, loc: &str) -> Option<(String, u32)> {
    let (file, line) = loc.rsplit_once(':')?;
    let line = line.parse().ok()?;
    let repo = v
        .version
        .files
        .iter()
        .find(|f| f.path == file)
        .map(|f| f.repo_path.clone())?;
    Some((repo, line))
}

fn change_finding(
    cmp: &Comparer<'_>,
    input: &GateInput<'_>,
    severity: Outcome,
    why: String,
    c: Change,
) -> Finding {
    let versions = cmp.versions();
    let (loc, on) = match (&c.new_location, &c.old_location) {
        (Some(l), _) => (Some(l.clone()), input.subject),
        (None, Some(l)) => (Some(l.clone()), input.base),
        _ => (None, input.subject),
    };
    Finding {
        severity,
        rule: c.rule.to_string(),
        element: c.element.clone(),
        repo_location: loc.as_deref().and_then(|l| repo_location(&versions[on], l)),
        location: loc,
        message: c.message.clone(),
        why: Some(why),
        fix: how_to_fix(c.rule),
        change: Some(c),
    }
}

/// Runs the gate.
pub fn run(cmp: &Comparer<'_>, input: &GateInput<'_>) -> GateReport {
    let versions = cmp.versions();
    let s = input.settings;
    let changes = cmp.changes(input.base, input.subject).unwrap_or_default();
    let mut findings = Vec::new();
    // The policy, against the base (and, when transitive, every release up to it).
    let earlier: Vec<usize> = registry::earlier_tags(versions, input.base + 1);
    let mut seen = BTreeSet::new();
    let mut checked = Vec::new();
    for (j, backward, forward) in
        registry::requirements(input.policy, versions, Some(input.base), &earlier)
    {
        checked.push(versions[j].version.name.clone());
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
        for (sev, list) in [(Outcome::Error, fails), (Outcome::Warning, warns)] {
            for v in list {
                if !seen.insert((v.change.rule, v.change.element.clone(), v.change.number)) {
                    continue;
                }
                let why = match v.direction {
                    Direction::Any => {
                        format!("{} allows no change (against {})", input.policy, v.against)
                    }
                    d => format!(
                        "{} {} {} against {}",
                        s.level.as_str(),
                        d.as_str(),
                        v.severity.as_str(),
                        v.against
                    ),
                };
                findings.push(change_finding(cmp, input, sev, why, v.change));
            }
        }
    }
    // The semver check of the version about to be published.
    let mut semver = None;
    if let (Some(x), Some(base_v)) = (input.version, versions[input.base].version.semver.as_ref()) {
        let required = rules::required_bump(&changes);
        let (verdict, reason) = sv::judge(base_v, x, required, s.pre1);
        let deciding: Vec<Change> = changes
            .iter()
            .filter(|c| c.ignored.is_none() && c.bump == required && required > Bump::Patch)
            .cloned()
            .collect();
        if verdict == SemverVerdict::TooSmall {
            let first = deciding
                .first()
                .map(|c| format!(": {} {}", c.rule, c.element))
                .unwrap_or_default();
            let more = if deciding.len() > 1 {
                format!(" (+{} more)", deciding.len() - 1)
            } else {
                String::new()
            };
            findings.push(Finding {
                severity: Outcome::Error,
                rule: "SEMVER_TOO_SMALL".into(),
                element: String::new(),
                location: None,
                repo_location: None,
                message: format!(
                    "{x}: {reason} (from {}){first}{more}",
                    versions[input.base].version.name,
                ),
                why: None,
                fix: format!(
                    "publish it as {} instead, or make the changes compatible",
                    next_version(base_v, required, s.pre1)
                ),
                change: None,
            });
        }
        // A version already tagged with other content.
        if let Some(t) = versions.iter().position(|v| {
            v.version.kind == crate::history::VersionKind::Tag
                && v.version.semver.as_ref().is_some_and(|s| s == x)
        }) && !cmp.same_content(t, input.subject)
            && cmp
                .changes(t, input.subject)
                .is_some_and(|c| c.iter().any(|c| c.rule != "COMMENT_CHANGED"))
        {
            findings.push(Finding {
                severity: Outcome::Error,
                rule: "SEMVER_VERSION_TAKEN".into(),
                element: String::new(),
                location: None,
                repo_location: None,
                message: format!(
                    "version {x} is already released as {}, with a different schema",
                    versions[t].version.name
                ),
                why: None,
                fix: format!(
                    "bump the version: these changes need at least {}",
                    next_version(
                        x,
                        rules::required_bump(&cmp.changes(t, input.subject).unwrap_or_default()),
                        s.pre1
                    )
                ),
                change: None,
            });
        }
        semver = Some(SemverCheck {
            bump: Some(sv::actual_bump(base_v, x)),
            required: Some(required),
            verdict,
            reason,
            unchanged: changes.iter().all(|c| c.rule == "COMMENT_CHANGED"),
            deciding,
        });
    }
    // History-wide hazards that show in the subject, placed after the base and the tags
    // before it (where it will be published), not after everything loaded.
    let sequence: Vec<Loaded> = earlier
        .iter()
        .map(|&j| versions[j].clone())
        .chain(std::iter::once(versions[input.subject].clone()))
        .collect();
    let last = sequence.len() - 1;
    for h in hazards::find(&sequence, cmp.root())
        .iter()
        .filter(|h| h.at == last)
    {
        let subject = &versions[input.subject];
        let location = subject
            .compiled
            .schema
            .doc(&h.element)
            .map(|d| format!("{}:{}", d.file, d.line));
        findings.push(Finding {
            severity: if s.strict {
                Outcome::Error
            } else {
                Outcome::Warning
            },
            rule: format!("HAZARD_{}", h.kind.as_str().to_ascii_uppercase()),
            element: h.element.clone(),
            repo_location: location.as_deref().and_then(|l| repo_location(subject, l)),
            location,
            message: h.message.clone(),
            why: Some(format!("history: {}", h.versions.join(" -> "))),
            fix: match h.kind {
                super::HazardKind::NumberReused | super::HazardKind::NameReused => {
                    "give the new declaration a fresh number and name, and reserve the old ones"
                        .into()
                }
                super::HazardKind::ReservationDropped => {
                    "keep the reservation: reserved numbers and names cost nothing".into()
                }
                super::HazardKind::TypeReverted => {
                    "if data was written with the middle type, keep that type or add a new field"
                        .into()
                }
            },
            change: None,
        });
    }
    // buffrs package rules.
    let subject = &versions[input.subject];
    if let Some(text) = &subject.version.manifest {
        for p in buffrs::check_text(text, subject) {
            findings.push(Finding {
                severity: Outcome::Error,
                rule: p.rule.to_string(),
                element: p.element.clone(),
                repo_location: p
                    .location
                    .as_deref()
                    .and_then(|l| repo_location(subject, l)),
                location: p.location.clone(),
                message: p.message,
                why: None,
                fix: String::new(),
                change: None,
            });
        }
    }
    findings.sort_by(|a, b| {
        a.severity
            .cmp(&b.severity)
            .then_with(|| {
                let w = |f: &Finding| {
                    f.change
                        .as_ref()
                        .map(|c| c.verdict.worst())
                        .unwrap_or(Severity::Breaking)
                };
                w(b).cmp(&w(a))
            })
            .then_with(|| a.location.cmp(&b.location))
            .then_with(|| a.rule.cmp(&b.rule))
    });
    GateReport {
        subject: subject.version.name.clone(),
        base: versions[input.base].version.name.clone(),
        version: input.version.map(|v| v.to_string()),
        policy: input.policy.to_string(),
        level: s.level,
        strict: s.strict,
        pass: !findings.iter().any(|f| f.severity == Outcome::Error),
        required_bump: rules::required_bump(&changes),
        semver,
        counts: Counts::of(&changes),
        findings,
        changes,
        checked,
    }
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

    #[test]
    fn fixes_come_from_the_rule_pages() {
        for r in rules::RULES {
            assert!(!how_to_fix(r.id).is_empty(), "{} has no fix text", r.id);
        }
    }
}
