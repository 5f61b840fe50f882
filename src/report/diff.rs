//! `protolapse diff`: every change between two versions, worst first, then a summary with
//! the required bump. The JSON shape is a documented contract (docs/json.md).

use serde::Serialize;

use crate::rules::{Bump, Change, Severity, required_bump};
use crate::sanitize;

#[derive(Serialize)]
pub struct DiffJson<'a> {
    pub old: &'a str,
    pub new: &'a str,
    pub root: Option<&'a str>,
    pub required_bump: Bump,
    pub changes: &'a [Change],
}

pub fn to_json<'a>(
    old: &'a str,
    new: &'a str,
    root: Option<&'a str>,
    changes: &'a [Change],
) -> DiffJson<'a> {
    DiffJson {
        old,
        new,
        root,
        required_bump: required_bump(changes),
        changes,
    }
}

fn cell(d: crate::rules::Directions) -> String {
    if d.backward == d.forward {
        d.backward.as_str().to_string()
    } else {
        format!("{}/{}", d.backward.as_str(), d.forward.as_str())
    }
}

/// The text report. `origin` tells where a file came from: a change located in a file that
/// is not under a proto root (embedded, vendored, excluded) says so.
pub fn to_text(
    old: &str,
    new: &str,
    root: Option<&str>,
    changes: &[Change],
    origin: impl Fn(&str) -> Option<crate::schema::Origin>,
) -> String {
    let mut out = String::new();
    let scope = root
        .map(|r| format!(" (reached from {})", sanitize::line(r)))
        .unwrap_or_default();
    out.push_str(&format!(
        "{} -> {}{scope}\n",
        sanitize::line(old),
        sanitize::line(new)
    ));
    if changes.is_empty() {
        out.push_str("no changes\n");
        return out;
    }
    for c in changes {
        let loc = c
            .new_location
            .as_deref()
            .or(c.old_location.as_deref())
            .unwrap_or("-");
        let from = match origin(loc.rsplit_once(':').map_or(loc, |(f, _)| f)) {
            Some(o) if o != crate::schema::Origin::Root => format!(" ({})", o.as_str()),
            _ => String::new(),
        };
        out.push_str(&format!(
            "\n{:<8} {}  {}{from}  {}\n",
            c.verdict.worst().as_str(),
            c.rule,
            sanitize::line(loc),
            sanitize::line(&c.element)
        ));
        match (&c.old, &c.new) {
            (Some(o), Some(n)) => out.push_str(&format!(
                "         {}  ->  {}\n",
                sanitize::line(o),
                sanitize::line(n)
            )),
            (Some(o), None) => out.push_str(&format!("         - {}\n", sanitize::line(o))),
            (None, Some(n)) => out.push_str(&format!("         + {}\n", sanitize::line(n))),
            (None, None) => {}
        }
        if let Some(why) = &c.ignored {
            out.push_str(&format!("         ignored: {}\n", sanitize::line(why)));
        }
        out.push_str(&format!(
            "         wire {}  json {}  source {}  bump {}\n         {}\n",
            cell(c.verdict.wire),
            cell(c.verdict.json),
            if c.verdict.source == crate::rules::Source::Breaking {
                "breaking"
            } else {
                "safe"
            },
            c.bump.as_str(),
            sanitize::line(&c.message)
        ));
    }
    let counted = || changes.iter().filter(|c| c.ignored.is_none());
    let count = |s: Severity| counted().filter(|c| c.verdict.worst() == s).count();
    let ignored = changes.len() - counted().count();
    out.push_str(&format!(
        "\n{} changes: {} breaking, {} lossy, {} hazard, {} safe{}; required bump: {}\n(backward/forward where they differ; `protolapse explain RULE` tells more)\n",
        changes.len(),
        count(Severity::Breaking),
        count(Severity::Lossy),
        count(Severity::Hazard),
        count(Severity::Safe),
        if ignored > 0 {
            format!(", {ignored} ignored")
        } else {
            String::new()
        },
        required_bump(changes).as_str()
    ));
    out
}
