//! Message rules: MESSAGE_ADDED, MESSAGE_REMOVED, MESSAGE_RENAMED, MESSAGE_MOVED,
//! MESSAGE_OPTION_CHANGED, the ONEOF_* rules, the RESERVED_* removals and the
//! EXTENSION_RANGE_* changes.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::diff::{Pair, same_shape};
use crate::schema::model::{Message, Oneof};

use super::super::reserved::Reserved;
use super::super::verdict::Severity::*;
use super::super::verdict::{Directions, Source, Verdict};
use super::super::{Finding, RuleId};
use super::{BOTH_BREAK, Ctx, f, source_only};

fn both<'a>(p: Pair<'a, Message>) -> Option<(&'a Message, &'a Message)> {
    Some((p.old?, p.new?))
}

pub(super) fn message_added(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let (None, Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    vec![f(
        RuleId::MESSAGE_ADDED,
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
        RuleId::MESSAGE_REMOVED,
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
        RuleId::MESSAGE_RENAMED,
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
        RuleId::MESSAGE_MOVED,
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
        RuleId::MESSAGE_OPTION_CHANGED,
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
    // Names and member sets looked up in maps: a message with 100,000 oneofs renamed was
    // quadratic. New oneofs by member set, in declaration order, each taken at most once.
    let a_names: HashSet<&str> = a.iter().map(|x| x.name.as_str()).collect();
    let b_names: HashSet<&str> = b.iter().map(|y| y.name.as_str()).collect();
    let mut by_members: HashMap<Vec<u32>, VecDeque<&Oneof>> = HashMap::new();
    for y in b.iter().filter(|y| !a_names.contains(y.name.as_str())) {
        by_members.entry(sorted(y)).or_default().push_back(y);
    }
    let mut out: Vec<(&Oneof, &Oneof)> = Vec::new();
    for x in a.iter().filter(|x| !b_names.contains(x.name.as_str())) {
        if let Some(y) = by_members.get_mut(&sorted(x)).and_then(VecDeque::pop_front) {
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
                RuleId::ONEOF_RENAMED,
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
    let renamed: HashSet<&str> = oneof_renames(o, n)
        .into_iter()
        .map(|(r, _)| r.name.as_str())
        .collect();
    let kept: HashSet<&str> = real(n).into_iter().map(|y| y.name.as_str()).collect();
    real(o)
        .into_iter()
        .filter(|x| !kept.contains(x.name.as_str()) && !renamed.contains(x.name.as_str()))
        .map(|x| {
            f(
                RuleId::ONEOF_REMOVED,
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
    let renamed: HashSet<&str> = oneof_renames(o, n)
        .into_iter()
        .map(|(_, r)| r.name.as_str())
        .collect();
    let kept: HashSet<&str> = real(o).into_iter().map(|x| x.name.as_str()).collect();
    real(n)
        .into_iter()
        .filter(|y| !kept.contains(y.name.as_str()) && !renamed.contains(y.name.as_str()))
        .map(|y| {
            f(
                RuleId::ONEOF_ADDED,
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
fn covered(m: &Message, reserved: &Reserved<'_, u32>, a: u32, b: u32) -> bool {
    let one = |x: u32| reserved.number(x) || m.fields.contains_key(&x);
    if b - a > 4096 {
        one(a) && one(b)
    } else {
        (a..=b).all(one)
    }
}

pub(super) fn reserved_range_removed(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    let reserved = Reserved::new(&n.reserved_ranges, &n.reserved_names);
    o.reserved_ranges
        .iter()
        .filter(|(a, b)| !covered(n, &reserved, *a, *b))
        .map(|(a, b)| {
            let text = if a == b {
                format!("reserved {a}")
            } else {
                format!("reserved {a} to {b}")
            };
            f(
                RuleId::RESERVED_RANGE_REMOVED,
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
    let reserved = Reserved::new(&n.reserved_ranges, &n.reserved_names);
    let used: HashSet<&str> = n.fields.values().map(|f| f.name.as_str()).collect();
    o.reserved_names
        .iter()
        .filter(|name| !reserved.name(name) && !used.contains(name.as_str()))
        .map(|name| {
            f(
                RuleId::RESERVED_NAME_REMOVED,
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

/// The numbers of `a` (inclusive ranges) that no range of `b` holds, as inclusive ranges.
fn minus(a: &[(u32, u32)], b: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut b = b.to_vec();
    b.sort_unstable();
    let mut out = Vec::new();
    for &(start, end) in a {
        let mut next = start;
        for &(s, e) in &b {
            if e < next || s > end {
                continue;
            }
            if s > next {
                out.push((next, s - 1));
            }
            if e >= end {
                next = end.saturating_add(1);
                break;
            }
            next = e.saturating_add(1);
        }
        if next <= end {
            out.push((next, end));
        }
    }
    out
}

/// The largest field number.
const MAX_NUMBER: u32 = 536_870_911;

fn extensions_text((a, b): (u32, u32)) -> String {
    match (a == b, b == MAX_NUMBER) {
        (true, _) => format!("extensions {a}"),
        (false, true) => format!("extensions {a} to max"),
        (false, false) => format!("extensions {a} to {b}"),
    }
}

/// Extension numbers of the old message that the new one no longer accepts. Extensions
/// declared there, by anyone, no longer compile; data written with them reads as unknown
/// fields, and the numbers are free for fields that would misread it — unless reserved.
pub(super) fn extension_range_removed(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    minus(&o.extension_ranges, &n.extension_ranges)
        .into_iter()
        .map(|range| {
            let reserved = minus(&[range], &n.reserved_ranges).is_empty();
            f(
                RuleId::EXTENSION_RANGE_REMOVED,
                &o.full_name,
                Some(i64::from(range.0)),
                Some(extensions_text(range)),
                None,
                Verdict {
                    wire: Directions {
                        backward: if reserved { Safe } else { Hazard },
                        forward: Safe,
                    },
                    json: Directions {
                        backward: Hazard,
                        forward: Safe,
                    },
                    source: Source::Breaking,
                },
                false,
                format!(
                    "{} no longer accepts extensions {}: extensions declared there stop compiling; old data with them reads as unknown fields{}",
                    o.full_name,
                    extensions_text(range).trim_start_matches("extensions "),
                    if reserved {
                        " (the numbers are reserved)"
                    } else {
                        ", and the numbers may be reused by fields that misread it"
                    }
                ),
            )
        })
        .collect()
}

/// Extension numbers the new message accepts and the old one did not: new writers may send
/// extensions there (declared by anyone) that old readers keep as unknown fields, and whose
/// JSON keys old readers reject.
pub(super) fn extension_range_added(_: &Ctx<'_>, p: Pair<'_, Message>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    minus(&n.extension_ranges, &o.extension_ranges)
        .into_iter()
        .map(|range| {
            f(
                RuleId::EXTENSION_RANGE_ADDED,
                &n.full_name,
                Some(i64::from(range.0)),
                None,
                Some(extensions_text(range)),
                Verdict {
                    wire: Directions::SAFE,
                    json: Directions {
                        backward: Safe,
                        forward: Hazard,
                    },
                    source: Source::Safe,
                },
                true,
                format!(
                    "{} accepts extensions {}: old readers keep them as unknown fields, and reject their JSON keys unless they ignore unknown fields",
                    n.full_name,
                    extensions_text(range).trim_start_matches("extensions ")
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minus_leaves_what_no_other_range_holds() {
        assert_eq!(minus(&[(100, 199)], &[(100, 199)]), []);
        assert_eq!(minus(&[(100, 199)], &[]), [(100, 199)]);
        assert_eq!(minus(&[(100, 199)], &[(100, 149)]), [(150, 199)]);
        assert_eq!(
            minus(&[(100, 199)], &[(120, 129), (110, 114)]),
            [(100, 109), (115, 119), (130, 199)]
        );
        assert_eq!(
            minus(&[(1000, MAX_NUMBER)], &[(1000, 1999)]),
            [(2000, MAX_NUMBER)]
        );
        assert_eq!(minus(&[(5, 5), (7, 9)], &[(0, MAX_NUMBER)]), []);
        assert_eq!(
            minus(&[(0, MAX_NUMBER)], &[(0, 0), (MAX_NUMBER, MAX_NUMBER)]),
            [(1, MAX_NUMBER - 1)]
        );
    }
}
