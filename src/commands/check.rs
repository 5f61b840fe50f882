//! `check`: the CI gate — a subject (the working tree, or the last `--rev`) against a base.

use anyhow::{Result, anyhow, bail};

use protolapse::history::VersionKind;
use protolapse::load::{VersionId, lineage};
use protolapse::policy::{self, Policy, Settings, gate};
use protolapse::report;
use protolapse::sanitize;

use super::{Opened, pretty};

/// Output formats of `check`.
pub enum CheckOut {
    Text,
    Json,
    Github,
    Sarif,
}

/// `protolapse check`: (the report, whether it passed). `settings.scope` is resolved.
pub fn check(
    opened: &Opened,
    revs: &[String],
    against: Option<&str>,
    publish: Option<&str>,
    settings: &Settings,
    out: CheckOut,
) -> Result<(String, bool)> {
    let project = &opened.project;
    let versions = &project.versions;
    let subject = match revs.last() {
        Some(rev) => versions
            .iter()
            .find(|v| v.version.kind == VersionKind::Rev && &v.version.name == rev)
            .ok_or_else(|| anyhow!("revision `{}` was not loaded", sanitize::line(rev)))?,
        None => versions
            .iter()
            .find(|v| v.version.kind == VersionKind::Worktree)
            .ok_or_else(|| {
                anyhow!(
                    "no working tree to check (a bare repository?)\n  help: name what to check with --rev REV"
                )
            })?,
    };
    if subject.schema().is_none() {
        bail!(
            "{} does not compile, so it cannot be checked: {}",
            sanitize::line(subject.name()),
            subject.first_diagnostic()
        );
    }
    // The version about to be published: --version, else the buffrs manifest's.
    let version = match publish {
        Some(x) => Some(
            semver::Version::parse(x.trim_start_matches('v'))
                .map_err(|e| anyhow!("--version `{}` is not semver: {e}", sanitize::line(x)))?,
        ),
        None => match subject
            .version
            .manifest
            .as_deref()
            .map(policy::buffrs::parse)
        {
            Some(Ok(Some(m))) => Some(m.version),
            // A revision on a tagged commit is that release.
            _ => lineage::implied_version(versions, subject.id).cloned(),
        },
    };
    let base: VersionId = match against {
        Some("latest") => lineage::latest_release(versions),
        Some(name) => Some(
            project
                .find(name)
                .map(|v| v.id)
                .ok_or_else(|| {
                    anyhow!(
                        "--against: no version is named `{}`\n  help: versions are {}",
                        sanitize::line(name),
                        project
                            .names()
                            .iter()
                            .map(|n| sanitize::line(n))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })?,
        ),
        None => lineage::base_for(versions, subject.id, version.as_ref()),
    }
    .ok_or_else(|| {
        anyhow!(
            "nothing to compare with: no tagged release compiled{}\n  help: name a base with --against VERSION",
            version
                .as_ref()
                .map(|v| format!(" below {v}"))
                .unwrap_or_default()
        )
    })?;
    if base == subject.id {
        bail!("--against names the version being checked; pick an earlier one");
    }
    // `--rev v1.0.0 --against v1.0.0`: the tag and the revision are one commit, so the
    // check would compare a version with itself and pass on nothing. (`latest` on the
    // release commit itself is a legitimate run right after tagging: no change to judge.)
    if let Some(name) = against.filter(|a| *a != "latest")
        && subject.version.kind == VersionKind::Rev
        && project
            .get(base)
            .is_some_and(|b| b.version.commit == subject.version.commit)
    {
        bail!(
            "--against {} is the commit being checked ({} is {}), so there is nothing to compare\n  help: name an earlier version with --against, or leave it out to compare with the previous release",
            sanitize::line(name),
            sanitize::line(subject.name()),
            subject
                .version
                .commit
                .get(..12)
                .unwrap_or(&subject.version.commit)
        );
    }
    if project.get(base).is_none_or(|b| b.schema().is_none()) {
        bail!(
            "{} did not compile, so it cannot be the base\n  help: pick another with --against VERSION",
            sanitize::line(project.get(base).map_or("", |b| b.name()))
        );
    }
    let policy = settings.policy.clone().unwrap_or(Policy::Backward);
    if let Some(p) = &settings.policy {
        p.check_versions(versions)?;
    }
    let cmp = policy::comparer(project, settings);
    let report = gate::run(
        &cmp,
        &gate::GateInput {
            subject: subject.id,
            base,
            version: version.as_ref(),
            policy: &policy,
            settings,
        },
    );
    let text = match out {
        CheckOut::Text => report::check::to_text(&report),
        CheckOut::Json => pretty(&report::check::to_json(&report))?,
        CheckOut::Github => report::check::to_github(&report),
        CheckOut::Sarif => pretty(&report::check::to_sarif(&report))?,
    };
    Ok((text, report.pass))
}
