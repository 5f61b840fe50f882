//! Enum rules: ENUM_ADDED, ENUM_REMOVED, ENUM_MOVED, ENUM_CLOSED_CHANGED,
//! ENUM_OPTION_CHANGED, and the value rules (values paired by number; a value that kept its
//! name under a new number is ENUM_VALUE_NUMBER_CHANGED and nothing else; what else its two
//! numbers hold is judged as usual — removed, added, renamed — so no value goes unreported).

use std::collections::HashSet;

use crate::diff::{Pair, members};
use crate::schema::decl;
use crate::schema::model::{Enum, EnumValue};

use super::super::options::{self, Kind};
use super::super::reserved::Reserved;
use super::super::verdict::Severity::*;
use super::super::verdict::{Directions, Source, Verdict};
use super::super::{Finding, RuleId};
use super::{BOTH_BREAK, Ctx, f, option_findings, option_findings_with, source_only};

fn both<'a>(p: Pair<'a, Enum>) -> Option<(&'a Enum, &'a Enum)> {
    Some((p.old?, p.new?))
}

/// The reservations of `e`, indexed once for its values.
fn reserved(e: &Enum) -> Reserved<'_, i32> {
    Reserved::new(&e.reserved_ranges, &e.reserved_names)
}

/// The (number, name) of every value of `e`, aliases included.
fn numbered_names(e: &Enum) -> HashSet<(i32, &str)> {
    e.values
        .iter()
        .map(|v| (v.number, v.name.as_str()))
        .collect()
}

/// Values that kept their name under a new number: (old, new).
fn renumbered<'a>(o: &'a Enum, n: &'a Enum) -> Vec<Move<'a>> {
    members::values(Some(o), Some(n)).renumbered
}

/// What each number holds on either side once renumbered values are taken out (they are
/// ENUM_VALUE_NUMBER_CHANGED's), with the renumbering that left or came to the number.
fn remains<'a>(o: &'a Enum, n: &'a Enum) -> Vec<members::Remains<'a, i32, EnumValue>> {
    members::values(Some(o), Some(n)).remains()
}

/// Aliases (names after the first of their number, with `allow_alias`) whose name is gone
/// from `other` altogether. A name kept under any number is not here (it
/// is kept, renamed to or renumbered); the number's own fate is its first name's change.
fn lost_aliases<'a>(e: &'a Enum, other: &Enum) -> Vec<&'a EnumValue> {
    let mut seen = std::collections::HashSet::new();
    let names: std::collections::HashSet<&str> =
        other.values.iter().map(|v| v.name.as_str()).collect();
    e.values
        .iter()
        .filter(|v| !seen.insert(v.number) && !names.contains(v.name.as_str()))
        .collect()
}

fn closed_text(e: &Enum) -> String {
    format!(
        "enum {} ({})",
        e.name,
        if e.closed { "closed" } else { "open" }
    )
}

pub(super) fn enum_added(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let (None, Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    vec![f(
        RuleId::ENUM_ADDED,
        &n.full_name,
        None,
        None,
        Some(format!("enum {}", n.name)),
        Verdict::SAFE,
        true,
        format!("{} added", n.full_name),
    )]
}

pub(super) fn enum_removed(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let (Some(o), None) = (p.old, p.new) else {
        return vec![];
    };
    vec![f(
        RuleId::ENUM_REMOVED,
        &o.full_name,
        None,
        Some(format!("enum {}", o.name)),
        None,
        source_only(),
        false,
        format!("{} removed", o.full_name),
    )]
}

pub(super) fn enum_moved(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    if o.full_name != n.full_name || o.file == n.file {
        return vec![];
    }
    vec![f(
        RuleId::ENUM_MOVED,
        &n.full_name,
        None,
        Some(o.file.clone()),
        Some(n.file.clone()),
        source_only(),
        false,
        format!("moved from {} to {}", o.file, n.file),
    )]
}

pub(super) fn enum_closed_changed(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    if o.closed == n.closed {
        return vec![];
    }
    let read = |w: &Enum, r: &Enum| if r.closed && !w.closed { Lossy } else { Safe };
    // An open writer prints a value it has no name for as a number (`{"level": 2}`); a
    // closed reader's JSON parser drops it like the binary one (C++) or rejects it (Python).
    let verdict = Verdict {
        wire: Directions::of(o, n, read),
        json: Directions::of(o, n, read),
        source: Source::Breaking,
    };
    vec![f(
        RuleId::ENUM_CLOSED_CHANGED,
        &n.full_name,
        None,
        Some(closed_text(o)),
        Some(closed_text(n)),
        verdict,
        false,
        "a closed enum drops unknown numbers into unknown fields; an open one keeps them".into(),
    )]
}

pub(super) fn enum_value_number_changed(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    renumbered(o, n)
        .into_iter()
        .map(|(ov, nv)| {
            // An open enum's zero value is what an unset implicit-presence field holds, and
            // such a field is omitted on the wire and in JSON when it holds it: moving a value
            // away from or onto 0 changes what every omitted field means, in JSON too.
            fn zero(e: &Enum) -> &str {
                members::value(e, 0).map_or("0", |v| v.name.as_str())
            }
            let default = if n.closed || o.closed {
                None
            } else if ov.number == 0 {
                Some(format!(
                    "; it was the zero value: an unset field, omitted on the wire and in JSON, that meant {} now reads as {}",
                    ov.name,
                    zero(n)
                ))
            } else if nv.number == 0 {
                Some(format!(
                    "; it is now the zero value: an unset field, omitted on the wire and in JSON, that meant {} now reads as {}",
                    zero(o),
                    nv.name
                ))
            } else {
                None
            };
            f(
                RuleId::ENUM_VALUE_NUMBER_CHANGED,
                &format!("{}.{}", n.full_name, nv.name),
                Some(i64::from(nv.number)),
                Some(decl::value_short(ov)),
                Some(decl::value_short(nv)),
                Verdict {
                    wire: BOTH_BREAK,
                    json: if default.is_some() { BOTH_BREAK } else { Directions::SAFE },
                    source: Source::Safe,
                },
                false,
                format!(
                    "{} moved from {} to {}: binary data means another value{}",
                    nv.name,
                    ov.number,
                    nv.number,
                    default.unwrap_or_default()
                ),
            )
        })
        .collect()
}

/// A removed value; `want_reserved` selects ENUM_VALUE_REMOVED_RESERVED or ENUM_VALUE_REMOVED.
fn removed(p: Pair<'_, Enum>, want_reserved: bool) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    let reserved_new = reserved(n);
    remains(o, n)
        .into_iter()
        .filter_map(|r| {
            let (Some(ov), None) = (r.old, r.new) else { return None };
            let num = r.key;
            let res = reserved_new.number(num);
            (res == want_reserved).then(|| {
                // The new reader meets a number and a name it does not know, exactly as an old
                // reader meets an added value (ENUM_VALUE_ADDED, forward): an open enum keeps
                // the number, a closed one drops it; a ProtoJSON parser rejects the name
                // (unless told to ignore unknown values). Reserving the number changes
                // neither. When another value moved onto the number, old data with it is
                // not unknown but misread: it reads as that value.
                let unknown = if n.closed { Lossy } else { Hazard };
                let verdict = Verdict {
                    wire: Directions { backward: if r.moved_in.is_some() { Breaking } else { unknown }, forward: Safe },
                    json: Directions { backward: Breaking, forward: Safe },
                    source: Source::Breaking,
                };
                let rule = if res { RuleId::ENUM_VALUE_REMOVED_RESERVED } else { RuleId::ENUM_VALUE_REMOVED };
                let wire = match r.moved_in {
                    Some((from, to)) => format!(" while {} moved from {} onto {num}: old data with {num} reads as {}", to.name, from.number, to.name),
                    None => format!("{}: old data with it reads as an unknown number", if res { " (number reserved)" } else { " without reserving its number" }),
                };
                f(rule, &format!("{}.{}", o.full_name, ov.name), Some(i64::from(num)), Some(decl::value_short(ov)), None,
                    verdict, false,
                    format!("{} removed{wire}; old JSON with its name is rejected (ProtoJSON parsers reject unknown enum names unless told to ignore them)", ov.name))
            })
        })
        .chain(lost_aliases(o, n).into_iter().filter(|v| reserved_new.number(v.number) == want_reserved).map(|v| {
            // An alias adds a name, not a number: binary data is the first name's business.
            // ProtoJSON writers emit the first name, so only JSON written otherwise (by
            // hand, by another tool) carries the alias, and a new parser rejects it.
            let rule = if want_reserved { RuleId::ENUM_VALUE_REMOVED_RESERVED } else { RuleId::ENUM_VALUE_REMOVED };
            f(rule, &format!("{}.{}", o.full_name, v.name), Some(i64::from(v.number)), Some(decl::value_short(v)), None,
                Verdict { wire: Directions::SAFE, json: Directions { backward: Hazard, forward: Safe }, source: Source::Breaking }, false,
                format!("{} (an alias of {}) removed: binary data is unchanged and JSON writers emit the first name, but JSON that spells the alias is rejected", v.name, v.number))
        }))
        .collect()
}

pub(super) fn enum_value_removed(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    removed(p, false)
}

pub(super) fn enum_value_removed_reserved(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    removed(p, true)
}

/// A renumbering: the value on the old side, the value on the new side.
type Move<'a> = (&'a EnumValue, &'a EnumValue);

/// Values only in the new version: (number, value, the renumbering that left the number).
fn added<'a>(o: &'a Enum, n: &'a Enum) -> Vec<(i32, &'a EnumValue, Option<Move<'a>>)> {
    remains(o, n)
        .into_iter()
        .filter_map(|r| match (r.old, r.new) {
            (None, Some(nv)) => Some((r.key, nv, r.moved_out)),
            _ => None,
        })
        .collect()
}

pub(super) fn enum_value_added(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    let unknown = if o.closed { Lossy } else { Hazard };
    added(o, n)
        .into_iter()
        .map(|(num, nv, moved_out)| {
            // The mirror of a removal: an old reader meets a number it has no name for, or,
            // when the number was another value's that moved away, reads that value.
            let (wire_fwd, what) = match moved_out {
                Some((from, to)) => (
                    Breaking,
                    format!(
                        "{num} was {}'s, which moved to {}: old readers read it as {}",
                        from.name, to.number, from.name
                    ),
                ),
                None => (unknown, "old readers see an unknown value".to_string()),
            };
            f(
                RuleId::ENUM_VALUE_ADDED,
                &format!("{}.{}", n.full_name, nv.name),
                Some(i64::from(num)),
                None,
                Some(decl::value_short(nv)),
                Verdict {
                    wire: Directions {
                        backward: Safe,
                        forward: wire_fwd,
                    },
                    json: Directions {
                        backward: Safe,
                        forward: Breaking,
                    },
                    source: Source::Safe,
                },
                true,
                format!(
                    "{} added: {what}; old JSON parsers reject its name unless told to ignore unknown values",
                    nv.name
                ),
            )
        })
        .chain(lost_aliases(n, o).into_iter().map(|v| {
            // The mirror of an alias removed: a name, not a number.
            f(
                RuleId::ENUM_VALUE_ADDED,
                &format!("{}.{}", n.full_name, v.name),
                Some(i64::from(v.number)),
                None,
                Some(decl::value_short(v)),
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
                    "{} added as an alias of {}: binary data is unchanged and JSON writers emit the first name, but old parsers reject JSON that spells the alias",
                    v.name, v.number
                ),
            )
        }))
        .collect()
}

pub(super) fn enum_reserved_reused(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    let reserved_old = reserved(o);
    added(o, n)
        .into_iter()
        .filter(|(num, nv, _)| reserved_old.number(*num) || reserved_old.name(&nv.name))
        .map(|(num, nv, _)| f(RuleId::ENUM_RESERVED_REUSED, &format!("{}.{}", n.full_name, nv.name), Some(i64::from(num)), None, Some(decl::value_short(nv)),
            Verdict { wire: Directions { backward: Breaking, forward: Hazard }, json: Directions { backward: Breaking, forward: Hazard }, source: Source::Safe }, false,
            format!("{} uses a reserved number or name: data from before the reservation means something else", nv.name)))
        .collect()
}

pub(super) fn enum_value_renamed(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    let (o_names, n_names) = (numbered_names(o), numbered_names(n));
    remains(o, n)
        .into_iter()
        .filter_map(|r| {
            let (num, ov, nv) = (r.key, r.old?, r.new?);
            (ov.name != nv.name).then(|| {
                // With aliases (allow_alias), a reader accepts every name of the number;
                // writers emit the first one.
                let has = |e: &HashSet<(i32, &str)>, name: &str| e.contains(&(num, name));
                let read = |reader: &HashSet<(i32, &str)>, written: &str| {
                    if has(reader, written) { Safe } else { Breaking }
                };
                let json = Directions {
                    backward: read(&n_names, &ov.name),
                    forward: read(&o_names, &nv.name),
                };
                let kept = has(&n_names, &ov.name);
                f(
                    RuleId::ENUM_VALUE_RENAMED,
                    &format!("{}.{}", n.full_name, nv.name),
                    Some(i64::from(num)),
                    Some(decl::value_short(ov)),
                    Some(decl::value_short(nv)),
                    Verdict {
                        wire: Directions::SAFE,
                        json,
                        source: if kept { Source::Safe } else { Source::Breaking },
                    },
                    false,
                    if kept {
                        format!(
                            "{} is now the first name of {num}, before its alias {}: JSON writers emit it",
                            nv.name, ov.name
                        )
                    } else {
                        format!(
                            "{} renamed to {}: binary unchanged; JSON uses the name",
                            ov.name, nv.name
                        )
                    },
                )
            })
        })
        .collect()
}

pub(super) fn enum_option_changed(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    option_findings(
        RuleId::ENUM_OPTION_CHANGED,
        Kind::Enum,
        &n.full_name,
        &o.options,
        &n.options,
    )
}

/// Options of a value present on both sides (by number), `deprecated` included: values have
/// no rule of their own for it.
pub(super) fn enum_value_option_changed(_: &Ctx<'_>, p: Pair<'_, Enum>) -> Vec<Finding> {
    let Some((o, n)) = both(p) else { return vec![] };
    // Most enums have no value options: skip pairing their values.
    let plain = |e: &Enum| {
        e.values
            .iter()
            .all(|v| v.options.is_empty() && !v.deprecated)
    };
    if plain(o) && plain(n) {
        return vec![];
    }
    let mut out = Vec::new();
    for r in remains(o, n) {
        let (num, Some(ov), Some(nv)) = (r.key, r.old, r.new) else {
            continue;
        };
        if ov.options == nv.options && ov.deprecated == nv.deprecated {
            continue;
        }
        let (a, b) = (
            options::with_deprecated(&ov.options, ov.deprecated),
            options::with_deprecated(&nv.options, nv.deprecated),
        );
        let text = |c: &options::OptionChange<'_>, v: Option<&str>| {
            v.map(|v| format!("{} = {num} [{} = {v}]", nv.name, c.name))
        };
        option_findings_with(
            RuleId::ENUM_VALUE_OPTION_CHANGED,
            Kind::EnumValue,
            &format!("{}.{}", n.full_name, nv.name),
            Some(i64::from(num)),
            &a,
            &b,
            text,
            &mut out,
        );
    }
    out
}
