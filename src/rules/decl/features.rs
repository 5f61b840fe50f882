//! Rules on the editions features of a message or an enum as a whole:
//! MESSAGE_JSON_FORMAT_CHANGED, ENUM_JSON_FORMAT_CHANGED (`json_format`) and
//! SYMBOL_VISIBILITY_CHANGED (edition 2024's `export` / `local`). The features of fields
//! (presence, packing, UTF-8, delimited encoding) are judged by the field rules, an enum's
//! closedness by ENUM_CLOSED_CHANGED.

use crate::diff::Pair;
use crate::schema::model::{Enum, Message};

use super::super::Finding;
use super::super::verdict::Severity::{self, *};
use super::super::verdict::{Directions, Verdict};
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
    rule: &'static str,
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

/// protoc accepts ALLOW only for a message whose JSON names map one to one; under
/// LEGACY_BEST_EFFORT a clash (`display_name` and `displayName`) is only a warning, and
/// runtimes map the shared key to either field. A reader whose message allows clashes may so
/// read a key into another field than the writer meant, once its version uses the
/// permission: safe today, a hazard. A reader held to ALLOW has one field per key.
fn json_legacy_read(w: &Message, r: &Message) -> Severity {
    if r.json_legacy && !w.json_legacy {
        Hazard
    } else {
        Safe
    }
}

pub(super) fn message_json_format_changed(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let (Some(o), Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    if o.map_entry || n.map_entry {
        return vec![];
    }
    let message = if n.json_legacy {
        "LEGACY_BEST_EFFORT: a field may now take a JSON name already in use, and a new JSON reader then maps that key to either field"
    } else {
        "ALLOW: protoc now checks that each JSON name maps to one field; an old JSON reader may still map a key it shares between two fields to either"
    };
    json_format_finding(
        "MESSAGE_JSON_FORMAT_CHANGED",
        "message",
        (&n.full_name, &n.name),
        (o.json_legacy, n.json_legacy),
        Directions::of(o, n, json_legacy_read),
        message,
    )
}

/// An enum's ProtoJSON names are its value names, unique in the enum under either setting,
/// so its JSON mapping is one to one whatever `json_format` says: safe.
pub(super) fn enum_json_format_changed(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let (Some(o), Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    json_format_finding(
        "ENUM_JSON_FORMAT_CHANGED",
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
        "SYMBOL_VISIBILITY_CHANGED",
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
