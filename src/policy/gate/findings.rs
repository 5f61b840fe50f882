//! What the gate reports — findings, the report — and how each finding is made: from a
//! change (with where it is in the repository and how to fix it), or from a file that did
//! not compile.

use serde::Serialize;

use crate::judge::Counts;
use crate::load::{Loaded, VersionId};
use crate::rules::{Bump, Change, RuleId};

use super::super::registry::{Direction, Level, Policy, Violation};
use super::super::semver::SemverCheck;

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
    /// `COMPILE_ERROR`, `BUFFRS_LIB_HAS_SERVICE`, ...
    pub rule: String,
    pub element: String,
    /// The field or enum-value number, when there is one.
    pub number: Option<i64>,
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
    /// The base already had this violation against the same version: not this change's
    /// doing (a warning, summarized rather than listed in text).
    pub preexisting: bool,
}

impl Finding {
    pub(super) fn plain(severity: Outcome, rule: &str, message: String, fix: String) -> Finding {
        Finding {
            severity,
            rule: rule.to_string(),
            element: String::new(),
            number: None,
            location: None,
            repo_location: None,
            message,
            why: None,
            fix,
            change: None,
            preexisting: false,
        }
    }
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
    /// Where the level and ignores were read from (`policy::Settings::origin`).
    pub config: String,
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
    /// Why the policy had nothing to check, or other notes.
    pub notes: Vec<String>,
    /// Why the subject is not judged against the base (`judge::Scope::not_judged`): then
    /// it does not pass, and it fails only if a change that was read fails it.
    pub not_judged: Option<String>,
    /// The changes from the base, proved by round trips (`check --prove`), in the order of
    /// `changes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proofs: Option<Vec<crate::prove::Proof>>,
}

impl GateReport {
    /// The verdict in one word: `PASS`, `FAIL`, or `NOT JUDGED` (nothing that was read
    /// fails, but what decides it was not read).
    pub fn verdict(&self) -> &'static str {
        if self.pass {
            "PASS"
        } else if self.not_judged.is_some()
            && !self.findings.iter().any(|f| f.severity == Outcome::Error)
        {
            "NOT JUDGED"
        } else {
            "FAIL"
        }
    }
}

/// Maps an import-path location to the repository path, through the version's files.
pub(super) fn repo_location(v: &Loaded, loc: &str) -> Option<(String, u32)> {
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

/// A change as a finding; its old location is resolved through the version it was
/// compared against (`against`), its new one through the subject.
pub(super) fn change_finding(
    versions: &[Loaded],
    subject: VersionId,
    against: VersionId,
    severity: Outcome,
    why: String,
    c: Change,
) -> Finding {
    let (loc, on) = match (&c.new_location, &c.old_location) {
        (Some(l), _) => (Some(l.clone()), subject),
        (None, Some(l)) => (Some(l.clone()), against),
        _ => (None, subject),
    };
    Finding {
        severity,
        rule: c.rule.to_string(),
        element: c.element.clone(),
        number: c.number,
        repo_location: loc
            .as_deref()
            .and_then(|l| repo_location(&versions[on.index()], l)),
        location: loc,
        message: c.message.clone(),
        why: Some(why),
        fix: super::fix::how_to_fix_change(&c),
        change: Some(c),
        preexisting: false,
    }
}

pub(super) fn why(policy: &Policy, level: Level, v: &Violation) -> String {
    match v.direction {
        Direction::Any => format!("{policy} allows no change (against {})", v.against),
        d => format!(
            "{} {} {} against {}",
            level.as_str(),
            d.as_str(),
            v.severity.as_str(),
            v.against
        ),
    }
}

pub(super) type Key = (RuleId, String, Option<i64>);

pub(super) fn key(c: &Change) -> Key {
    (c.rule, c.element.clone(), c.number)
}

/// A file of the subject that does not compile cannot be checked, nor released: an error
/// when it compiled in the base (or is new), a warning when it did not compile there
/// either (an editions file protox cannot read, say).
pub(super) fn compile_findings(subject: &Loaded, base: &Loaded) -> Vec<Finding> {
    let base_failed = &base.failed_files;
    subject
        .compiled
        .diagnostics
        .iter()
        .map(|d| {
            let old_failure = base_failed.contains(d.file.as_str());
            let mut f = Finding::plain(
                if old_failure {
                    Outcome::Warning
                } else {
                    Outcome::Error
                },
                crate::policy::codes::COMPILE_ERROR,
                d.message.clone(),
                if old_failure {
                    format!(
                        "it did not compile in {} either; its changes are not checked",
                        base.version.name
                    )
                } else {
                    "fix the file: its changes cannot be checked, and generated code cannot be built"
                        .into()
                },
            );
            f.element = d.file.clone();
            if d.line > 0 {
                f.location = Some(format!("{}:{}", d.file, d.line));
                f.repo_location = f
                    .location
                    .as_deref()
                    .and_then(|l| repo_location(subject, l));
            }
            f
        })
        .collect()
}
