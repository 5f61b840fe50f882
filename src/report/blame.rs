//! `protolapse blame`: the lifecycle of each field (or enum value) of one message (or enum)
//! across every version — a one-character timeline per number, then its events.

use crate::policy::lifecycle::{Lifecycle, State};
use crate::sanitize;

/// The legend of the timeline characters.
pub const LEGEND: &str = "+ added  = kept  ~ changed  d deprecated  - removed  r reserved  . absent  ? unknown (no such type, or did not compile)";

pub fn to_text(l: &Lifecycle) -> String {
    let mut out = String::new();
    let kind = match l.kind {
        crate::policy::lifecycle::Kind::Message => "message",
        crate::policy::lifecycle::Kind::Enum => "enum",
    };
    let first = l.present.iter().position(|p| *p);
    let last = l.present.iter().rposition(|p| *p);
    out.push_str(&format!(
        "{kind} {} — in {} of {} versions{}\n",
        sanitize::line(&l.element),
        l.present.iter().filter(|p| **p).count(),
        l.versions.len(),
        match (first, last) {
            (Some(a), Some(b)) => format!(
                " ({} .. {})",
                sanitize::line(&l.versions[a]),
                sanitize::line(&l.versions[b])
            ),
            _ => String::new(),
        }
    ));
    if l.rows.is_empty() {
        out.push_str("no fields\n");
        return out;
    }
    let num_w = l
        .rows
        .iter()
        .map(|r| r.number.to_string().len())
        .max()
        .unwrap_or(1);
    let name_w = l
        .rows
        .iter()
        .map(|r| sanitize::line(&r.names.join("/")).chars().count())
        .max()
        .unwrap_or(4)
        .min(32);
    out.push_str(&format!(
        "{:>num_w$}  {:<name_w$}  {}  {}\n",
        "#", "NAME", "TIMELINE", "EVENTS"
    ));
    for row in &l.rows {
        let timeline: String = row.cells.iter().map(|c| c.state.glyph()).collect();
        let mut events = Vec::new();
        for c in &row.cells {
            let v = sanitize::line(&c.version);
            let rules = if c.rules.is_empty() {
                String::new()
            } else {
                format!(" ({})", c.rule_list())
            };
            let decl = c.decl.as_deref().map(sanitize::line).unwrap_or_default();
            match c.state {
                State::Added => events.push(format!("+{v} {decl}")),
                State::Changed => events.push(format!("~{v} {decl}{rules}")),
                State::Deprecated => events.push(format!("{v} deprecated")),
                State::Removed if c.reserved => events.push(format!("-{v} reserved")),
                State::Removed => events.push(format!("-{v} not reserved")),
                _ => {}
            }
        }
        let names = sanitize::line(&row.names.join("/"));
        out.push_str(&format!(
            "{:>num_w$}  {:<name_w$}  {timeline}  {}\n",
            row.number,
            names,
            events.join("; ")
        ));
    }
    out.push_str(&format!(
        "\nTIMELINE: one character per version, {} .. {}: {LEGEND}\n",
        l.versions
            .first()
            .map(|v| sanitize::line(v))
            .unwrap_or_default(),
        l.versions
            .last()
            .map(|v| sanitize::line(v))
            .unwrap_or_default(),
    ));
    out
}
