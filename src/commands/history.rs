//! `log` (every version, judged), `diff` (one pair) and `blame` (one declaration across the
//! history).

use anyhow::{Result, bail};

use protolapse::judge::{Ignores, Scope, Side, judge};
use protolapse::policy::{self, Settings, lifecycle};
use protolapse::report;
use protolapse::sanitize;
use protolapse::schema::Status;
use protolapse::schema::graph::RootMatch;

use super::{Opened, compiled, find_version, pretty};

/// `protolapse log`: every version, judged in `settings.scope`.
pub fn log(opened: &Opened, settings: &Settings, json: bool) -> Result<String> {
    let project = &opened.project;
    let analysis = policy::analyze(project, settings)?;
    let policy_name = settings.policy.as_ref().map(|p| p.to_string());
    let policy_json = policy_name.as_deref().map(|name| report::log::PolicyJson {
        name,
        level: settings.level.as_str(),
        strict: settings.strict,
    });
    if json {
        pretty(&report::log::to_json(project, &analysis, policy_json))
    } else {
        Ok(report::log::to_text(project, &analysis, policy_json))
    }
}

/// `protolapse diff`: every change from `old` to `new` (ignores applied; changes in files
/// that did not compile on one side listed but not judged). `root`: the root asked for
/// (flag, else config), resolved in the new version, else the old one. `prove`: prove the
/// changes by round trips (`Some(true)`: print the samples too); the text, and false when a
/// round trip contradicts a safe verdict.
pub fn diff(
    opened: &Opened,
    old: &str,
    new: &str,
    root: Option<&str>,
    ignores: &Ignores,
    json: bool,
    prove: Option<bool>,
) -> Result<(String, bool)> {
    let project = &opened.project;
    let a = compiled(find_version(project, old)?, ", so it cannot be compared")?;
    let b = compiled(find_version(project, new)?, ", so it cannot be compared")?;
    let scope = Scope::resolve(root, [b, a], || format!("{} or {}", b.name(), a.name()))?;
    for v in [a, b] {
        if v.status() == Status::Partial {
            eprintln!(
                "note: {} compiled {} of {} files; changes in the others are listed but not judged",
                sanitize::line(v.name()),
                v.compiled.files_ok,
                v.compiled.files_total
            );
        }
    }
    let (Some(sa), Some(sb)) = (Side::of(a), Side::of(b)) else {
        bail!("a version without a schema cannot be compared");
    };
    let changes = judge(&sa, &sb, &scope, ignores);
    let (on, nn, root) = (a.name(), b.name(), scope.root());
    let proofs = prove.map(|_| protolapse::prove::prove(sa.schema, sb.schema, &changes));
    let passed = proofs
        .as_deref()
        .is_none_or(|p| report::prove::safe_contradictions(p) == 0);
    let text = if json {
        let mut v = serde_json::to_value(report::diff::to_json(on, nn, root, &changes))?;
        if let (Some(p), Some(obj)) = (&proofs, v.as_object_mut()) {
            obj.insert("proofs".into(), serde_json::to_value(p)?);
        }
        pretty(&v)?
    } else {
        let mut t = report::diff::to_text(on, nn, root, &changes, |file| {
            [b, a]
                .iter()
                .find_map(|v| v.compiled.schema.content.files.get(file).map(|f| f.origin))
        });
        if let Some(p) = &proofs {
            t.push_str(&report::prove::to_text(p, prove == Some(true)));
        }
        t
    };
    Ok((text, passed))
}

/// `protolapse blame`: the lifecycle of one message's fields or one enum's values.
pub fn blame(opened: &Opened, name: &str, json: bool) -> Result<String> {
    let versions = &opened.project.versions;
    let full = match lifecycle::resolve(versions, name) {
        RootMatch::Found(full) => full,
        RootMatch::Ambiguous(names) => bail!(
            "`{}` is ambiguous: {}\n  help: pass the full name",
            sanitize::line(name),
            names.join(", ")
        ),
        RootMatch::Unknown(close) => bail!(
            "no message or enum `{}` in any version{}\n  help: give a full name (pkg.Msg) or a unique short one",
            sanitize::line(name),
            if close.is_empty() {
                String::new()
            } else {
                format!("; closest: {}", close.join(", "))
            }
        ),
    };
    let l = lifecycle(versions, &full);
    if json {
        pretty(&serde_json::to_value(&l)?)
    } else {
        Ok(report::blame::to_text(&l, output_width()))
    }
}

/// The width text output fits: the terminal's, else `COLUMNS`, else
/// [`report::blame::DEFAULT_WIDTH`].
fn output_width() -> usize {
    protolapse::ui::runtime::terminal_width()
        .or_else(|| {
            std::env::var("COLUMNS")
                .ok()
                .and_then(|c| c.trim().parse::<usize>().ok())
                .filter(|w| *w >= 20)
        })
        .unwrap_or(report::blame::DEFAULT_WIDTH)
}
