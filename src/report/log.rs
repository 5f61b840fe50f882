//! `protolapse log`: every version with its compile status, size, fingerprint, whether its
//! content changed, its bump against the previous relevant version, the bump its changes
//! require, the semver verdict, the policy result and the history-wide hazards that show in
//! it. The JSON shape is a documented contract (docs/json.md).

use serde::Serialize;

use crate::history::{SkippedTag, VersionKind, format_date};
use crate::judge::Scope;
use crate::judge::{Counts, NOT_JUDGED};
use crate::load::VersionId;
use crate::load::{Loaded, Project};
use crate::policy::buffrs::PackageViolation;
use crate::policy::{Analysis, Hazard, PolicyResult, SemverVerdict};
use crate::rules::{Bump, Change};
use crate::sanitize;
use crate::schema::graph::build;
use crate::schema::{Diagnostic, HowCompiled, Status, fingerprint};

#[derive(Serialize)]
pub struct LogJson<'a> {
    pub versions: Vec<VersionJson<'a>>,
    pub root: Option<&'a str>,
    pub skipped: &'a [SkippedTag],
    /// The policy evaluated (`--policy`), its level and strictness.
    pub policy: Option<PolicyJson<'a>>,
    /// Every history-wide hazard, in the order they show.
    pub hazards: Vec<HazardJson<'a>>,
}

#[derive(Serialize)]
pub struct PolicyJson<'a> {
    pub name: &'a str,
    pub level: &'a str,
    pub strict: bool,
}

#[derive(Serialize)]
pub struct HazardJson<'a> {
    pub kind: &'a str,
    pub element: &'a str,
    pub number: Option<i64>,
    pub versions: &'a [String],
    pub message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<&'a str>,
}

impl<'a> HazardJson<'a> {
    fn of(h: &'a Hazard) -> HazardJson<'a> {
        HazardJson {
            kind: h.kind.as_str(),
            element: &h.element,
            number: h.number,
            versions: &h.versions,
            message: &h.message,
            ignored: h.ignored.as_deref(),
        }
    }
}

/// A policy result as the contract shows it.
#[derive(Serialize)]
pub struct VersionPolicyJson<'a> {
    pub name: &'a str,
    pub pass: bool,
    /// False when what decides the result was not read (a file did not compile) and no
    /// change that was read fails it: then `pass` is false too, and it is no failure.
    pub judged: bool,
    /// Why it is not judged (or not fully: a failure found stands).
    pub not_judged: Option<&'a str>,
    pub against: Option<&'a str>,
    pub first_violation: Option<&'a Change>,
    pub direction: Option<&'a str>,
    pub failed_against: &'a [String],
    pub warnings: usize,
    pub note: Option<&'a str>,
}

impl<'a> VersionPolicyJson<'a> {
    fn of(p: &'a PolicyResult) -> VersionPolicyJson<'a> {
        VersionPolicyJson {
            name: &p.name,
            pass: p.pass,
            judged: !p.unjudged(),
            not_judged: p.not_judged.as_deref(),
            against: p.against.as_deref(),
            first_violation: p.first_violation.as_ref().map(|v| &v.change),
            direction: p.first_violation.as_ref().map(|v| v.direction.as_str()),
            failed_against: &p.failed_against,
            warnings: p.warnings,
            note: p.note.as_deref(),
        }
    }
}

#[derive(Serialize)]
pub struct VersionJson<'a> {
    pub name: &'a str,
    /// The version number parsed from the name (`semver` before issue 4; see docs/json.md).
    pub version: Option<String>,
    pub commit: &'a str,
    pub date: String,
    pub status: Status,
    /// Files of the repository that compiled.
    pub files: usize,
    pub files_total: usize,
    pub messages: usize,
    pub enums: usize,
    pub services: usize,
    pub fingerprint: Option<&'a str>,
    /// Fingerprint of the closure of `--root` (None without a root, or when the root is
    /// not in this version).
    pub root_fingerprint: Option<String>,
    pub unchanged_since: Option<&'a str>,
    pub same_as: Option<&'a str>,
    pub kind: VersionKind,
    pub message: Option<&'a str>,
    pub proto_roots: &'a [String],
    pub diagnostics: &'a [Diagnostic],
    /// How the version was compiled: files compiled by protox and by protoc, and the files
    /// that came from elsewhere than the proto roots (by origin).
    pub compiled_by: &'a HowCompiled,
    /// How imports were resolved in the tree (links followed, vendored copies, lookups).
    pub resolution: &'a [String],
    /// buf dependency modules and the commits `buf.lock` pins them at.
    pub dependencies: &'a [crate::history::DepPin],
    /// The version it is compared with (its previous relevant version that compiled).
    pub previous: Option<&'a str>,
    /// The bump of the version number from `previous`.
    pub bump: Option<Bump>,
    /// The bump the changes since `previous` require.
    pub required_bump: Option<Bump>,
    pub semver: SemverVerdict,
    pub semver_reason: &'a str,
    /// Why the version is not judged in the scope (it did not compile, its root is not in
    /// the files that compiled, or some of its changes are in a file that did not compile);
    /// None when it is judged.
    pub not_judged: Option<&'a str>,
    /// The changes since `previous`, by their worst verdict.
    pub changes: Counts,
    pub policy: Option<VersionPolicyJson<'a>>,
    pub hazards: Vec<HazardJson<'a>>,
    /// buffrs package rules this version breaks (with a `Proto.toml`).
    pub package: &'a [PackageViolation],
}

/// The closure fingerprint of the scope's root in one version, if the root exists there.
pub fn root_fingerprint(v: &Loaded, scope: &Scope) -> Option<String> {
    let content = &v.schema()?.content;
    let root = scope.root().filter(|_| scope.present_in(content))?;
    let g = build(content, root);
    Some(fingerprint::of_types(content, g.names()))
}

fn name_of(project: &Project, id: Option<VersionId>) -> Option<&str> {
    project.get(id?).map(Loaded::name)
}

pub fn to_json<'a>(
    project: &'a Project,
    analysis: &'a Analysis,
    policy: Option<PolicyJson<'a>>,
) -> LogJson<'a> {
    let root = analysis.scope.root();
    let versions = project
        .versions
        .iter()
        .zip(&analysis.versions)
        .map(|(v, r)| {
            let schema = &v.compiled.schema;
            VersionJson {
                name: &v.version.name,
                version: v.version.semver.as_ref().map(|s| s.to_string()),
                commit: &v.version.commit,
                date: format_date(v.version.time, v.version.offset_minutes),
                status: v.compiled.status,
                files: v.compiled.files_ok,
                files_total: v.compiled.files_total,
                messages: schema.own_messages().count(),
                enums: schema
                    .content
                    .enums
                    .values()
                    .filter(|e| {
                        schema
                            .content
                            .files
                            .get(&e.file)
                            .is_some_and(|f| !f.external)
                    })
                    .count(),
                services: schema.content.services.len(),
                fingerprint: v.fingerprint(),
                root_fingerprint: root_fingerprint(v, &analysis.scope),
                unchanged_since: name_of(project, v.unchanged_since),
                same_as: name_of(project, v.same_as),
                kind: v.version.kind,
                message: v.version.message.as_deref(),
                proto_roots: &v.version.proto_roots,
                diagnostics: &v.compiled.diagnostics,
                compiled_by: &v.compiled.how,
                resolution: &v.version.resolution,
                dependencies: &v.version.dependencies,
                previous: r
                    .previous
                    .and_then(|p| project.get(p))
                    .map(|p| p.version.name.as_str()),
                bump: r.semver.bump,
                required_bump: r.semver.required,
                semver: r.semver.verdict,
                semver_reason: &r.semver.reason,
                not_judged: r.not_judged.as_deref(),
                changes: r.counts,
                policy: r.policy.as_ref().map(VersionPolicyJson::of),
                hazards: r
                    .hazards
                    .iter()
                    .filter_map(|&k| analysis.hazards.get(k))
                    .map(HazardJson::of)
                    .collect(),
                package: &r.package,
            }
        })
        .collect();
    LogJson {
        versions,
        root,
        skipped: &project.skipped,
        policy,
        hazards: analysis.hazards.iter().map(HazardJson::of).collect(),
    }
}

/// The text table: one row per version, and under a row the reasons that need reading (a
/// bump too small, a policy failure, a hazard, a package rule).
pub fn to_text(project: &Project, analysis: &Analysis, policy: Option<PolicyJson<'_>>) -> String {
    let has_policy = policy.is_some();
    let root = analysis.scope.root();
    let json = to_json(project, analysis, policy);
    let ch_w = json
        .versions
        .iter()
        .map(|v| changes_cell(v).len())
        .max()
        .unwrap_or(0)
        .max(7);
    let name_w = json
        .versions
        .iter()
        .map(|v| sanitize::line(v.name).chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    let fp_head = if root.is_some() {
        "ROOT FP"
    } else {
        "FINGERPR"
    };
    let mut out = String::new();
    let policy_head = if has_policy { "POLICY      " } else { "" };
    out.push_str(&format!(
        "{:<name_w$}  {:<10}  {:<7}  {:<13}  {:>5}  {:>4}  {:<8}  {:<5}  {:<8}  {:<10}  {:<ch_w$}  {policy_head}{}\n",
        "VERSION",
        "DATE",
        "COMMIT",
        "STATUS",
        "FILES",
        "MSGS",
        fp_head,
        "BUMP",
        "REQUIRES",
        "SEMVER",
        "CHANGES",
        "NOTES"
    ));
    let pad = " ".repeat(name_w + 2);
    for (v, r) in json.versions.iter().zip(&analysis.versions) {
        let status = match v.status {
            Status::Complete => "complete".to_string(),
            Status::Partial => format!("partial {}/{}", v.files, v.files_total),
            Status::Failed => "failed".to_string(),
            Status::Pending => "pending".to_string(),
        };
        let fp = if root.is_some() {
            v.root_fingerprint.as_deref().unwrap_or("-")
        } else {
            v.fingerprint.unwrap_or("-")
        };
        let mut notes = Vec::new();
        if let Some(since) = v.unchanged_since {
            notes.push(format!("unchanged since {}", sanitize::line(since)));
        } else if let Some(same) = v.same_as {
            notes.push(format!("same content as {}", sanitize::line(same)));
        }
        match v.not_judged {
            // A version that did not compile says why in its diagnostic.
            Some(why) if v.status != Status::Failed => {
                notes.push(format!("{NOT_JUDGED}: {}", sanitize::line(why)));
            }
            None if root.is_some() && v.root_fingerprint.is_none() => {
                notes.push("root not in this version".into());
            }
            _ => {}
        }
        if let Some(d) = v.diagnostics.first() {
            let more = v.diagnostics.len() - 1;
            let more = if more > 0 {
                format!(" (+{more} more)")
            } else {
                String::new()
            };
            notes.push(format!("{}{more}", sanitize::line(&d.to_string())));
        }
        if let Some(how) = v.compiled_by.summary() {
            notes.push(how);
        }
        if v.previous.is_none() && v.status != Status::Failed && v.not_judged.is_none() {
            notes.push(sanitize::line(v.semver_reason));
        }
        let semver = match v.semver {
            SemverVerdict::Ok => "ok",
            SemverVerdict::TooSmall => "TOO SMALL",
            SemverVerdict::LargerThanNeeded => "larger",
            SemverVerdict::NotJudged => NOT_JUDGED,
            SemverVerdict::None => "-",
        };
        let changes = changes_cell(v);
        let policy_cell = match &v.policy {
            Some(p) if !p.judged => format!("{NOT_JUDGED:<12}"),
            Some(p) if p.pass && p.warnings > 0 => {
                format!("{:<12}", format!("pass({})", p.warnings))
            }
            Some(p) if p.pass => format!("{:<12}", "pass"),
            Some(_) => format!("{:<12}", "FAIL"),
            None if has_policy => format!("{:<12}", ""),
            None => String::new(),
        };
        let bump = |b: Option<Bump>| b.map_or("-", Bump::as_str);
        out.push_str(&format!(
            "{:<name_w$}  {:<10}  {:<7}  {:<13}  {:>5}  {:>4}  {:<8}  {:<5}  {:<8}  {:<10}  {:<ch_w$}  {policy_cell}{}\n",
            sanitize::line(v.name),
            v.date,
            v.commit.get(..7).unwrap_or(v.commit),
            status,
            v.files,
            v.messages,
            fp.get(..8).unwrap_or(fp),
            bump(v.bump),
            bump(v.required_bump),
            semver,
            changes,
            notes.join("; ")
        ));
        // Reasons worth reading, one per line under the row.
        if matches!(v.semver, SemverVerdict::TooSmall) {
            // The deciding change right after the verdict, before any note on ignored ones.
            let reason = sanitize::line(v.semver_reason);
            let (head, tail) = reason.split_once("; ").unwrap_or((&reason, ""));
            out.push_str(&format!(
                "{pad}semver: {head}{}{}{tail}\n",
                first_change(&r.semver.deciding),
                if tail.is_empty() { "" } else { "; " },
            ));
        }
        if let Some(p) = &v.policy
            && !p.pass
            && p.judged
        {
            let what = match (p.first_violation, p.note) {
                (Some(c), _) => format!(
                    ": {} {} ({}): {}",
                    c.rule,
                    sanitize::line(&c.element),
                    p.direction.unwrap_or(""),
                    sanitize::line(&c.message)
                ),
                (None, Some(n)) => format!(": {}", sanitize::line(n)),
                _ => String::new(),
            };
            let against = p
                .against
                .map(|a| {
                    let more = p.failed_against.len().saturating_sub(1);
                    let more = if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    };
                    format!(" against {}{more}", sanitize::line(a))
                })
                .unwrap_or_default();
            out.push_str(&format!("{pad}{} fails{against}{what}\n", p.name));
        }
        for h in &v.hazards {
            let ignored = h
                .ignored
                .map(|i| format!(" (ignored: {})", sanitize::line(i)))
                .unwrap_or_default();
            out.push_str(&format!(
                "{pad}hazard: {}{ignored}\n",
                sanitize::line(h.message)
            ));
        }
        for p in v.package {
            out.push_str(&format!(
                "{pad}{}: {}\n",
                p.rule,
                sanitize::line(&p.message)
            ));
        }
    }
    for s in json.skipped {
        out.push_str(&format!(
            "skipped tag {}: {}\n",
            sanitize::line(&s.name),
            sanitize::line(&s.reason)
        ));
    }
    let total = json.versions.len();
    let count = |s: Status| json.versions.iter().filter(|v| v.status == s).count();
    out.push_str(&format!(
        "{total} versions: {} complete, {} partial, {} failed; {} distinct schemas\n",
        count(Status::Complete),
        count(Status::Partial),
        count(Status::Failed),
        json.versions
            .iter()
            .filter(|v| v.status != Status::Failed && v.same_as.is_none())
            .count()
    ));
    let verdicts = |s: SemverVerdict| -> Vec<String> {
        json.versions
            .iter()
            .filter(|v| v.semver == s)
            .map(|v| sanitize::line(v.name))
            .collect()
    };
    let too_small = verdicts(SemverVerdict::TooSmall);
    let larger = verdicts(SemverVerdict::LargerThanNeeded);
    let unjudged = verdicts(SemverVerdict::NotJudged);
    out.push_str(&format!(
        "semver: {} ok, {} too small{}, {} larger than needed{}, {} {NOT_JUDGED}{}\n",
        verdicts(SemverVerdict::Ok).len(),
        too_small.len(),
        list(&too_small),
        larger.len(),
        list(&larger),
        unjudged.len(),
        list(&unjudged)
    ));
    if let Some(p) = &json.policy {
        let names = |keep: fn(&VersionPolicyJson<'_>) -> bool| -> Vec<String> {
            json.versions
                .iter()
                .filter(|v| v.policy.as_ref().is_some_and(keep))
                .map(|v| sanitize::line(v.name))
                .collect()
        };
        let failed = names(|p| !p.pass && p.judged);
        let unjudged = names(|p| !p.judged);
        out.push_str(&format!(
            "policy {} at {} level{}: {} pass, {} fail{}, {} {NOT_JUDGED}{}\n",
            p.name,
            p.level,
            if p.strict { ", strict" } else { "" },
            json.versions.len() - failed.len() - unjudged.len(),
            failed.len(),
            list(&failed),
            unjudged.len(),
            list(&unjudged)
        ));
    }
    if !json.hazards.is_empty() {
        out.push_str(&format!(
            "{} history-wide hazards (listed under the versions where they show)\n",
            json.hazards.len()
        ));
    }
    out.push_str("CHANGES: breaking/lossy/hazard/safe since the previous relevant version (+Ni: ignored or not judged)\n");
    out
}

/// The CHANGES cell: breaking/lossy/hazard/safe, and how many are ignored.
fn changes_cell(v: &VersionJson<'_>) -> String {
    let ignored = if v.changes.ignored > 0 {
        format!(" +{}i", v.changes.ignored)
    } else {
        String::new()
    };
    if v.previous.is_none() || v.status == Status::Failed {
        // Nothing compared: no count, not "none".
        "-".to_string()
    } else if v.changes.total() == 0 {
        format!("none{ignored}")
    } else {
        format!(
            "{}/{}/{}/{}{ignored}",
            v.changes.breaking, v.changes.lossy, v.changes.hazard, v.changes.safe
        )
    }
}

/// ` (a, b, c)`, or the first ten and how many more.
fn list(names: &[String]) -> String {
    const SHOWN: usize = 10;
    match names.len() {
        0 => String::new(),
        n if n <= SHOWN => format!(" ({})", names.join(", ")),
        n => format!(" ({}, and {} more)", names[..SHOWN].join(", "), n - SHOWN),
    }
}

fn first_change(changes: &[Change]) -> String {
    match changes {
        [] => String::new(),
        [c, rest @ ..] => format!(
            ": {} {}{}",
            c.rule,
            sanitize::line(&c.element),
            if rest.is_empty() {
                String::new()
            } else {
                format!(" (+{} more)", rest.len())
            }
        ),
    }
}
