//! Message rules: MESSAGE_ADDED, MESSAGE_REMOVED, MESSAGE_RENAMED, MESSAGE_MOVED,
//! MESSAGE_OPTION_CHANGED, the ONEOF_* rules and the RESERVED_* removals.

use crate::diff::{Pair, same_shape};
use crate::schema::model::{Message, Oneof};

use super::super::Finding;
use super::super::verdict::Severity::*;
use super::super::verdict::{Directions, Verdict};
use super::{BOTH_BREAK, Ctx, f, source_only};

fn both<'a>(p: Pair<'a, Message>) -> Option<(&'a Message, &'a Message)> {
    Some((p.old?, p.new?))
}

pub(super) fn message_added(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let (None, Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    vec![f(
        "MESSAGE_ADDED",
        &n.full_name,
        None,
        None,
        Some(format!("message {}", n.name)),
        Verdict::SAFE,
        true,
        format!("{} added", n.full_name),
    )]
}

pub(super) fn message_removed(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let (Some(o), None) = (p.old, p.new) else {
        return vec![];
    };
    vec![f(
        "MESSAGE_REMOVED",
        &o.full_name,
        None,
        Some(format!("message {}", o.name)),
        None,
        source_only(),
        false,
        format!("{} removed: code using it no longer builds", o.full_name),
    )]
}

pub(super) fn message_renamed(ctx: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    if o.full_name == n.full_name || !same_shape(ctx.old, &o.full_name, ctx.new, &n.full_name) {
        return vec![];
    }
    vec![f(
        "MESSAGE_RENAMED",
        &n.full_name,
        None,
        Some(o.full_name.clone()),
        Some(n.full_name.clone()),
        source_only(),
        false,
        format!(
            "{} is now {} with the same structure: binary and JSON unchanged (but Any type URLs)",
            o.full_name, n.full_name
        ),
    )]
}

pub(super) fn message_moved(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    if o.full_name != n.full_name || o.file == n.file {
        return vec![];
    }
    vec![f(
        "MESSAGE_MOVED",
        &n.full_name,
        None,
        Some(o.file.clone()),
        Some(n.file.clone()),
        source_only(),
        false,
        format!(
            "moved from {} to {}: imports of generated code change",
            o.file, n.file
        ),
    )]
}

pub(super) fn message_option_changed(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    if o.options == n.options {
        return vec![];
    }
    let msgset =
        o.options.get("message_set_wire_format") != n.options.get("message_set_wire_format");
    let verdict = if msgset {
        Verdict {
            wire: BOTH_BREAK,
            ..Verdict::SAFE
        }
    } else {
        Verdict::SAFE
    };
    vec![f(
        "MESSAGE_OPTION_CHANGED",
        &n.full_name,
        None,
        Some(format!("{:?}", o.options)),
        Some(format!("{:?}", n.options)),
        verdict,
        false,
        if msgset {
            "message_set_wire_format changes the encoding".into()
        } else {
            "options that do not change the encoding".into()
        },
    )]
}

fn real(m: &Message) -> Vec<&Oneof> {
    m.oneofs.iter().filter(|x| !x.synthetic).collect()
}

/// Oneofs gone by name whose members reappear together under a new name: (old, new).
fn oneof_renames<'a>(o: &'a Message, n: &'a Message) -> Vec<(&'a Oneof, &'a Oneof)> {
    let (a, b) = (real(o), real(n));
    let sorted = |x: &Oneof| {
        let mut m = x.fields.clone();
        m.sort();
        m
    };
    let mut out: Vec<(&Oneof, &Oneof)> = Vec::new();
    for x in a.iter().filter(|x| !b.iter().any(|y| y.name == x.name)) {
        if let Some(y) = b.iter().find(|y| {
            sorted(y) == sorted(x)
                && !a.iter().any(|z| z.name == y.name)
                && !out.iter().any(|(_, t)| t.name == y.name)
        }) {
            out.push((x, y));
        }
    }
    out
}

pub(super) fn oneof_renamed(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    oneof_renames(o, n)
        .into_iter()
        .map(|(x, y)| {
            f(
                "ONEOF_RENAMED",
                &format!("{}.{}", n.full_name, y.name),
                None,
                Some(format!("oneof {}", x.name)),
                Some(format!("oneof {}", y.name)),
                source_only(),
                false,
                format!(
                    "oneof {} is now {}: same members, new accessors",
                    x.name, y.name
                ),
            )
        })
        .collect()
}

pub(super) fn oneof_removed(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    let renamed = oneof_renames(o, n);
    real(o)
        .into_iter()
        .filter(|x| {
            !real(n).iter().any(|y| y.name == x.name)
                && !renamed.iter().any(|(r, _)| r.name == x.name)
        })
        .map(|x| {
            f(
                "ONEOF_REMOVED",
                &format!("{}.{}", o.full_name, x.name),
                None,
                Some(format!("oneof {}", x.name)),
                None,
                source_only(),
                false,
                format!("oneof {} removed", x.name),
            )
        })
        .collect()
}

pub(super) fn oneof_added(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    let renamed = oneof_renames(o, n);
    real(n)
        .into_iter()
        .filter(|y| {
            !real(o).iter().any(|x| x.name == y.name)
                && !renamed.iter().any(|(_, r)| r.name == y.name)
        })
        .map(|y| {
            f(
                "ONEOF_ADDED",
                &format!("{}.{}", n.full_name, y.name),
                None,
                None,
                Some(format!("oneof {}", y.name)),
                Verdict::SAFE,
                true,
                format!("oneof {} added", y.name),
            )
        })
        .collect()
}

/// Every number of `a..=b` is reserved or used in `m` (huge ranges: the ends only).
fn covered(m: &Message, a: u32, b: u32) -> bool {
    let one = |x: u32| {
        m.reserved_ranges
            .iter()
            .any(|(s, e)| (*s..=*e).contains(&x))
            || m.fields.contains_key(&x)
    };
    if b - a > 4096 {
        one(a) && one(b)
    } else {
        (a..=b).all(one)
    }
}

pub(super) fn reserved_range_removed(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    o.reserved_ranges
        .iter()
        .filter(|(a, b)| !covered(n, *a, *b))
        .map(|(a, b)| {
            let text = if a == b {
                format!("reserved {a}")
            } else {
                format!("reserved {a} to {b}")
            };
            f(
                "RESERVED_RANGE_REMOVED",
                &o.full_name,
                Some(i64::from(*a)),
                Some(text),
                None,
                Verdict {
                    wire: Directions {
                        backward: Hazard,
                        forward: Hazard,
                    },
                    ..Verdict::SAFE
                },
                false,
                "a reservation was dropped: the numbers may be reused and misread old data".into(),
            )
        })
        .collect()
}

pub(super) fn reserved_name_removed(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    o.reserved_names
        .iter()
        .filter(|name| {
            !n.reserved_names.contains(name) && !n.fields.values().any(|f| &f.name == *name)
        })
        .map(|name| {
            f(
                "RESERVED_NAME_REMOVED",
                &o.full_name,
                None,
                Some(format!("reserved \"{name}\"")),
                None,
                Verdict {
                    json: Directions {
                        backward: Hazard,
                        forward: Hazard,
                    },
                    ..Verdict::SAFE
                },
                false,
                format!("the name {name} may be reused and misread old JSON"),
            )
        })
        .collect()
}
