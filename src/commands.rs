//! The headless commands that judge a history — `log`, `check`, `blame` — from loaded data
//! to printed text. Parsing lives in `cli`; judging in the library's `policy`.

use anyhow::{Result, anyhow, bail};

use protolapse::history::VersionKind;
use protolapse::load::{Loaded, Project};
use protolapse::policy::{self, Comparer, Policy, Settings, gate, lifecycle};
use protolapse::report;
use protolapse::sanitize;
use protolapse::schema::Status;

/// `protolapse log`: every version, judged.
pub fn log(
    project: &Project,
    root: Option<&str>,
    settings: &Settings,
    json: bool,
) -> Result<String> {
    let settings = Settings {
        root: root.map(str::to_string),
        ..settings.clone()
    };
    let analysis = policy::analyze(project, &settings)?;
    let policy_name = settings.policy.as_ref().map(|p| p.to_string());
    let policy_json = policy_name.as_deref().map(|name| report::log::PolicyJson {
        name,
        level: settings.level.as_str(),
        strict: settings.strict,
    });
    Ok(if json {
        let mut s = serde_json::to_string_pretty(&report::log::to_json(
            project,
            root,
            &analysis,
            policy_json,
        ))?;
        s.push('\n');
        s
    } else {
        report::log::to_text(project, root, &analysis, policy_json)
    })
}

/// `protolapse diff`: every change from `a` to `b` (ignores applied; changes in files that
/// did not compile on one side listed but not judged).
pub fn diff(
    project: &Project,
    a: &Loaded,
    b: &Loaded,
    root: Option<String>,
    ignores: policy::Ignores,
    json: bool,
) -> Result<String> {
    for v in [a, b] {
        if v.compiled.status == Status::Partial {
            eprintln!(
                "note: {} compiled {} of {} files; changes in the others are listed but not judged",
                sanitize::line(&v.version.name),
                v.compiled.files_ok,
                v.compiled.files_total
            );
        }
    }
    let index = |v: &Loaded| {
        project
            .versions
            .iter()
            .position(|x| std::ptr::eq(x, v))
            .ok_or_else(|| anyhow!("version {} is not in the history", v.version.name))
    };
    let (ia, ib) = (index(a)?, index(b)?);
    let cmp = Comparer::new(project, root.clone(), ignores);
    let changes = cmp.changes(ia, ib).unwrap_or_default();
    let (on, nn) = (a.version.name.as_str(), b.version.name.as_str());
    Ok(if json {
        pretty(&serde_json::to_value(report::diff::to_json(
            on,
            nn,
            root.as_deref(),
            &changes,
        ))?)?
    } else {
        report::diff::to_text(on, nn, root.as_deref(), &changes, |file| {
            [b, a]
                .iter()
                .find_map(|v| v.compiled.schema.content.files.get(file).map(|f| f.origin))
        })
    })
}

/// Output formats of `check`.
pub enum CheckOut {
    Text,
    Json,
    Github,
    Sarif,
}

/// `protolapse check`: (the report, whether it passed).
#[allow(clippy::too_many_arguments)]
pub fn check(
    project: &Project,
    revs: &[String],
    against: Option<&str>,
    publish: Option<&str>,
    root: Option<&str>,
    mut settings: Settings,
    out: CheckOut,
) -> Result<(String, bool)> {
    let versions = &project.versions;
    let subject = match revs.last() {
        Some(rev) => versions
            .iter()
            .position(|v| v.version.kind == VersionKind::Rev && &v.version.name == rev)
            .ok_or_else(|| anyhow!("revision `{}` was not loaded", sanitize::line(rev)))?,
        None => versions
            .iter()
            .position(|v| v.version.kind == VersionKind::Worktree)
            .ok_or_else(|| {
                anyhow!(
                    "no working tree to check (a bare repository?)\n  help: name what to check with --rev REV"
                )
            })?,
    };
    let sv = &versions[subject];
    if sv.compiled.status == Status::Failed {
        let first = sv
            .compiled
            .diagnostics
            .first()
            .map(|d| sanitize::line(&d.to_string()))
            .unwrap_or_default();
        bail!(
            "{} does not compile, so it cannot be checked: {first}",
            sanitize::line(&sv.version.name)
        );
    }
    // The version about to be published: --version, else the buffrs manifest's.
    let version = match publish {
        Some(x) => Some(
            semver::Version::parse(x.trim_start_matches('v'))
                .map_err(|e| anyhow!("--version `{}` is not semver: {e}", sanitize::line(x)))?,
        ),
        None => match sv.version.manifest.as_deref().map(policy::buffrs::parse) {
            Some(Ok(Some(m))) => Some(m.version),
            // A revision on a tagged commit is that release.
            _ => policy::semver::implied_version(versions, subject).cloned(),
        },
    };
    let base = match against {
        Some("latest") => policy::semver::latest_release(versions),
        Some(name) => Some(
            project
                .find(name)
                .and_then(|v| versions.iter().position(|x| std::ptr::eq(x, v)))
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
        None => policy::semver::base_for(versions, subject, version.as_ref()),
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
    if base == subject {
        bail!("--against names the version being checked; pick an earlier one");
    }
    if versions[base].compiled.status == Status::Failed {
        bail!(
            "{} did not compile, so it cannot be the base\n  help: pick another with --against VERSION",
            sanitize::line(&versions[base].version.name)
        );
    }
    settings.root = root.map(str::to_string);
    let root = match &settings.root {
        Some(r) => Some(policy::resolve_root_in(project, r)?),
        None => None,
    };
    let policy = settings.policy.clone().unwrap_or(Policy::Backward);
    if let Some(p) = &settings.policy {
        p.check_versions(versions)?;
    }
    let cmp = Comparer::new(project, root.clone(), settings.ignores.clone());
    let report = gate::run(
        &cmp,
        &gate::GateInput {
            subject,
            base,
            version: version.as_ref(),
            policy: &policy,
            settings: &settings,
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

fn pretty(v: &serde_json::Value) -> Result<String> {
    let mut s = serde_json::to_string_pretty(v)?;
    s.push('\n');
    Ok(s)
}

/// `protolapse blame`: the lifecycle of one message's fields or one enum's values.
pub fn blame(project: &Project, name: &str, json: bool) -> Result<String> {
    let full = lifecycle::resolve(&project.versions, name).map_err(|close| {
        anyhow!(
            "no message or enum `{}` in any version{}\n  help: give a full name (pkg.Msg) or a unique short one",
            sanitize::line(name),
            if close.is_empty() {
                String::new()
            } else {
                format!("; closest: {}", close.join(", "))
            }
        )
    })?;
    let l = lifecycle(&project.versions, &full);
    Ok(if json {
        pretty(&serde_json::to_value(&l)?)?
    } else {
        report::blame::to_text(&l)
    })
}
