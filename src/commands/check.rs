//! `check`: the CI gate — a subject (the working tree, or the last `--rev`) against a base.

use anyhow::{Result, anyhow, bail};

use protolapse::config::Config;
use protolapse::history::VersionKind;
use protolapse::judge::Scope;
use protolapse::load::{Loaded, Project, VersionId, lineage, needs};
use protolapse::policy::{self, Policy, Settings, gate};
use protolapse::report;
use protolapse::sanitize;
use protolapse::schema::Status;

use super::{Opened, Source, pretty};

/// Output formats of `check`.
pub enum CheckOut {
    Text,
    Json,
    Github,
    Sarif,
    Junit,
}

/// `protolapse check`: (the report, whether it passed). `settings.scope` is resolved.
/// `prove`: prove the changes from the base by round trips (`Some(true)`: the text prints
/// the samples too); a contradicted safe claim is an error finding.
pub fn check(
    opened: &Opened,
    revs: &[String],
    against: Option<&str>,
    publish: Option<&str>,
    settings: &Settings,
    out: CheckOut,
    prove: Option<bool>,
) -> Result<(String, bool)> {
    let project = &opened.project;
    let versions = &project.versions;
    let subject = subject_of(versions, revs)?;
    if subject.schema().is_none() {
        bail!(
            "{} does not compile, so it cannot be checked: {}",
            sanitize::line(subject.name()),
            subject.first_diagnostic()
        );
    }
    let version = publishing(versions, subject, publish)?;
    let base: VersionId = match against {
        Some("latest") => lineage::latest_release(versions),
        Some(name) => Some(
            project
                .find(name)
                .map(|v| v.id)
                .ok_or_else(|| {
                    anyhow!(
                        "--against: no version or git revision is named `{}`\n  help: versions are {}; or name any revision (a branch, HEAD~1, a commit id)",
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
            prove: prove.is_some(),
        },
    );
    let text = match out {
        CheckOut::Text => {
            let mut t = report::check::to_text(&report);
            if let Some(p) = &report.proofs {
                t.push_str(&report::prove::to_text(p, prove == Some(true)));
            }
            t
        }
        CheckOut::Json => pretty(&report::check::to_json(&report))?,
        CheckOut::Github => report::check::to_github(&report),
        CheckOut::Sarif => pretty(&report::check::to_sarif(&report))?,
        CheckOut::Junit => report::junit::to_junit(&report),
    };
    Ok((text, report.pass))
}

/// The version checked: the last `--rev`, else the working tree.
fn subject_of<'v>(versions: &'v [Loaded], revs: &[String]) -> Result<&'v Loaded> {
    match revs.last() {
        Some(rev) => versions
            .iter()
            .find(|v| v.version.kind == VersionKind::Rev && &v.version.name == rev)
            .ok_or_else(|| anyhow!("revision `{}` was not loaded", sanitize::line(rev))),
        None => versions
            .iter()
            .find(|v| v.version.kind == VersionKind::Worktree)
            .ok_or_else(|| {
                anyhow!(
                    "no working tree to check (a bare repository?)\n  help: name what to check with --rev REV"
                )
            }),
    }
}

/// The version about to be published: --version, else the buffrs manifest's, else (a
/// revision on a tagged commit) that release.
fn publishing(
    versions: &[Loaded],
    subject: &Loaded,
    publish: Option<&str>,
) -> Result<Option<semver::Version>> {
    Ok(match publish {
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
            _ => lineage::implied_version(versions, subject.id).cloned(),
        },
    })
}

/// Loads the history for `check` and compiles what the gate reads: the subject, every tag up
/// to its base (the policy's window, the hazards and the base's choice read them), the tag
/// already carrying the version to publish, and the versions the root is looked up in
/// (newest first, until one has it). When the base cannot be known without them (`latest`,
/// or no release the subject builds on compiled), every version.
pub fn open_check(
    source: &Source<'_>,
    revs: &[String],
    against: Option<&str>,
    publish: Option<&str>,
    root: Option<&str>,
) -> Result<Opened> {
    let wanted: Vec<&str> = against.into_iter().filter(|a| *a != "latest").collect();
    super::open_with(
        source,
        true,
        &wanted,
        Some(&|unread: Project, config: &Config| {
            let every = needs::every(unread.versions.len());
            let mut project = match first_needs(&unread, revs, against, publish) {
                Some(ids) => needs::compile_more(unread, &ids),
                None => needs::compile_more(unread, &every),
            };
            // The base, when it was looked for among the releases the subject builds on,
            // must be one of them: else it is looked for among every tag.
            if against.is_none()
                && let Ok(subject) = subject_of(&project.versions, revs)
                && let Ok(None) = publishing(&project.versions, subject, publish)
            {
                let base = lineage::base_for(&project.versions, subject.id, None);
                let built_on = subject.version.ancestors.as_ref();
                if !base.is_some_and(|b| built_on.is_some_and(|a| a.contains(&b))) {
                    project = needs::compile_more(project, &every);
                }
            }
            // The root, looked up newest first: every version up to the one that has it.
            let root = root.or(config.root.as_deref());
            for _ in 0..2 {
                let Some(want) = root else { break };
                let read = read_for_root(&project.versions, want);
                if read.is_empty() {
                    break;
                }
                project = needs::compile_more(project, &read);
            }
            Ok(project)
        }),
    )
}

/// The pending versions a root's lookup (newest first, until a version has it) would read.
fn read_for_root(versions: &[Loaded], root: &str) -> Vec<VersionId> {
    let mut pending = Vec::new();
    for v in versions.iter().rev() {
        if v.status() == Status::Pending {
            pending.push(v.id);
        } else if Scope::resolve(Some(root), [v], String::new).is_ok() {
            break;
        }
    }
    pending
}

/// What `check` compiles first (None: every version), from the versions' headers alone.
fn first_needs(
    unread: &Project,
    revs: &[String],
    against: Option<&str>,
    publish: Option<&str>,
) -> Option<Vec<VersionId>> {
    let versions = &unread.versions;
    let subject = subject_of(versions, revs).ok()?;
    let x = publishing(versions, subject, publish).ok()?;
    // The greatest tag the base can be.
    let top = match (against, &x) {
        (Some("latest"), _) => return None,
        (Some(name), _) => unread.find(name)?.id,
        (None, Some(x)) => lineage::below(versions, x, |t| t.id != subject.id)
            .into_iter()
            .max()?,
        (None, None) => subject.version.ancestors.as_ref()?.iter().copied().max()?,
    };
    let tag = |v: &&Loaded| v.version.kind == VersionKind::Tag;
    let mut ids: Vec<VersionId> = versions
        .iter()
        .filter(tag)
        .filter(|v| v.id <= top)
        .map(|v| v.id)
        .chain([subject.id, top])
        .collect();
    // The tag already released as the version to publish.
    ids.extend(
        versions
            .iter()
            .filter(tag)
            .filter(|v| x.is_some() && v.version.semver == x)
            .map(|v| v.id),
    );
    Some(ids)
}
