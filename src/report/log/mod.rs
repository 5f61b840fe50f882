//! `protolapse log`: every version with its compile status, size, fingerprint, whether its
//! content changed, its bump against the previous relevant version, the bump its changes
//! require, the semver verdict, the policy result and the history-wide hazards that show in
//! it. The JSON shape is a documented contract (docs/json.md).
//!
//! `json` builds the JSON (the contract); the text table here is drawn from it.

mod json;

pub use json::{
    HazardJson, LogJson, PolicyJson, VersionJson, VersionPolicyJson, root_fingerprint, to_json,
};

use crate::history::VersionKind;
use crate::judge::NOT_JUDGED;
use crate::load::Project;
use crate::policy::{Analysis, SemverVerdict};
use crate::rules::{Bump, Change};
use crate::sanitize;
use crate::schema::Status;

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
        if let (VersionKind::Commit, Some(subject)) = (v.kind, v.message) {
            notes.push(format!("\"{}\"", sanitize::line(subject)));
        }
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
    let commits = json.versions.iter().any(|v| v.kind == VersionKind::Commit);
    if commits {
        out.push_str(&commit_lines(&json.versions));
    } else {
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
    }
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

/// The summary of a history of commits (`--commits`): the semver check is not run (commits
/// carry no version numbers: each is compared with the commit before it), and the commit
/// that first broke what is in scope.
fn commit_lines(versions: &[VersionJson<'_>]) -> String {
    let mut out = "semver: not checked: the versions are commits (--commits), each compared with the one before it\n".to_string();
    let first = versions
        .iter()
        .find(|v| v.previous.is_some() && v.changes.breaking > 0);
    match first {
        Some(v) => out.push_str(&format!(
            "first breaking change: {} ({}, {} breaking){}; `protolapse diff {} {}` lists them\n",
            sanitize::line(v.name),
            v.date,
            v.changes.breaking,
            v.message
                .map(|m| format!(" \"{}\"", sanitize::line(m)))
                .unwrap_or_default(),
            sanitize::line(v.previous.unwrap_or("")),
            sanitize::line(v.name),
        )),
        None => out.push_str("no breaking change\n"),
    }
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
