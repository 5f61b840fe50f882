//! Rules on the editions features of a message or an enum as a whole:
//! MESSAGE_JSON_FORMAT_CHANGED, ENUM_JSON_FORMAT_CHANGED (`json_format`) and
//! SYMBOL_VISIBILITY_CHANGED (edition 2024's `export` / `local`). The features of fields
//! (presence, packing, UTF-8, delimited encoding) are judged by the field rules, an enum's
//! closedness by ENUM_CLOSED_CHANGED.

use crate::diff::Pair;
use crate::schema::model::{Enum, Message};

use super::super::verdict::Severity::{self, *};
use super::super::verdict::{Directions, Verdict};
use super::super::{Finding, RuleId};
use super::{Ctx, f, source_only};

fn json_format(legacy: bool) -> &'static str {
    if legacy {
        "LEGACY_BEST_EFFORT"
    } else {
        "ALLOW"
    }
}

/// `json_format` of a message or an enum went from `old` to `new` (true: LEGACY_BEST_EFFORT),
/// judged `json`. The change itself alters no byte and no JSON text.
fn json_format_finding(
    rule: RuleId,
    kind: &str,
    (full_name, name): (&str, &str),
    (old, new): (bool, bool),
    json: Directions,
    message: &str,
) -> Vec<Finding> {
    if old == new {
        return vec![];
    }
    let text = |legacy| format!("{kind} {name} (json_format = {})", json_format(legacy));
    vec![f(
        rule,
        full_name,
        None,
        Some(text(old)),
        Some(text(new)),
        Verdict {
            json,
            ..Verdict::SAFE
        },
        false,
        message.into(),
    )]
}

/// Two fields of `m` that a ProtoJSON parser cannot tell apart: one's JSON name or proto
/// name (parsers accept both) is the other's.
fn json_clash(m: &Message) -> Option<(&str, &str)> {
    let mut seen: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for f in m.fields.values() {
        let mut keys = vec![f.json_name.as_str(), f.name.as_str()];
        keys.dedup();
        for key in keys {
            if let Some(other) = seen.insert(key, &f.name)
                && other != f.name
            {
                return Some((other, &f.name));
            }
        }
    }
    None
}

/// protoc accepts ALLOW only for a message whose JSON names map one to one; under
/// LEGACY_BEST_EFFORT a clash (`display_name` and `displayName`) is only a warning, and
/// runtimes map the shared key to either field. A reader whose message allows clashes and
/// has one may read a key into another field than the writer meant: a hazard. Without a
/// clash on its side, the reader maps every key as the writer did: the setting changed,
/// the JSON did not (protobuf's own proto2 -> edition 2023 migrations).
fn json_legacy_read(w: &Message, r: &Message) -> Severity {
    if r.json_legacy && !w.json_legacy && json_clash(r).is_some() {
        Hazard
    } else {
        Safe
    }
}

pub(super) fn message_json_format_changed(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let (Some(o), Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    if o.map_entry || n.map_entry || o.json_legacy == n.json_legacy {
        return vec![];
    }
    let legacy = if n.json_legacy { n } else { o };
    let message = match (json_clash(legacy), n.json_legacy) {
        (Some((a, b)), true) => format!(
            "LEGACY_BEST_EFFORT: `{a}` and `{b}` share a JSON key, and the new JSON reader maps it to either field"
        ),
        (Some((a, b)), false) => format!(
            "ALLOW: the old message's `{a}` and `{b}` share a JSON key, which an old JSON reader maps to either field"
        ),
        (None, true) => "LEGACY_BEST_EFFORT: JSON name clashes are now allowed (a warning); no two fields share a JSON key, so JSON reads as before".to_string(),
        (None, false) => "ALLOW: protoc now checks that each JSON key maps to one field; none was shared, so JSON reads as before".to_string(),
    };
    json_format_finding(
        RuleId::MESSAGE_JSON_FORMAT_CHANGED,
        "message",
        (&n.full_name, &n.name),
        (o.json_legacy, n.json_legacy),
        Directions::of(o, n, json_legacy_read),
        &message,
    )
}

/// An enum's ProtoJSON names are its value names, unique in the enum under either setting,
/// so its JSON mapping is one to one whatever `json_format` says: safe.
pub(super) fn enum_json_format_changed(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let (Some(o), Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    json_format_finding(
        RuleId::ENUM_JSON_FORMAT_CHANGED,
        "enum",
        (&n.full_name, &n.name),
        (o.json_legacy, n.json_legacy),
        Directions::SAFE,
        "enum values are written by their names, unique in the enum either way: JSON unchanged",
    )
}

/// A message or enum became local (other files can no longer import it: their code and
/// their generated code stop building) or exported (an addition to what others may use).
/// The bytes and the JSON know nothing of visibility.
fn visibility_finding(
    kind: &str,
    full_name: &str,
    name: &str,
    old: bool,
    new: bool,
) -> Vec<Finding> {
    if old == new {
        return vec![];
    }
    let text = |exported| {
        let word = if exported { "export" } else { "local" };
        format!("{word} {kind} {name}")
    };
    let (verdict, message) = if new {
        (
            Verdict::SAFE,
            format!("{full_name} is exported: other files may now import it"),
        )
    } else {
        (
            source_only(),
            format!(
                "{full_name} is local to its file: files that import it no longer compile; binary and JSON unchanged"
            ),
        )
    };
    vec![f(
        RuleId::SYMBOL_VISIBILITY_CHANGED,
        full_name,
        None,
        Some(text(old)),
        Some(text(new)),
        verdict,
        new,
        message,
    )]
}

pub(super) fn message_visibility_changed(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let (Some(o), Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    if o.map_entry || n.map_entry {
        return vec![];
    }
    visibility_finding("message", &n.full_name, &n.name, o.exported, n.exported)
}

pub(super) fn enum_visibility_changed(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let (Some(o), Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    visibility_finding("enum", &n.full_name, &n.name, o.exported, n.exported)
}
