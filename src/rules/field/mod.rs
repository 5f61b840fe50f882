//! Field rules: fields of each paired message, paired by number (and a field that kept its
//! name under a new number, by name). Additions, removals and renumberings are judged here;
//! the rules on a field present on both sides are in `changed`, one function each; how one
//! message type reads as another is in `structural`. An extension present in both versions
//! is judged by the same rules (see `rules::extension`), through the same `F`.

mod changed;
mod retyped;
mod structural;

use std::collections::HashMap;

use crate::diff::{Pairing, members};
use crate::schema::decl;
use crate::schema::model::{Cardinality, Extension, Field, Message, Oneof, Presence};

use super::reserved::Reserved;
use super::verdict::Severity::*;
use super::verdict::{Directions, Source, Verdict};
use super::{Finding, RuleId};
use crate::schema::model::reads::Types;
use changed::*;
use retyped::*;
pub(super) use structural::structural;
pub(crate) use structural::{Comparisons, keeping};

/// One side of a field: the field, its message and schema; for an extension, the extension
/// (then `m` is the extended message).
pub(super) struct F<'a> {
    pub c: Types<'a>,
    pub m: &'a Message,
    pub f: &'a Field,
    pub ext: Option<&'a Extension>,
    /// The oneof the field is in, looked up once (a scan per field was quadratic).
    pub oneof: Option<&'a Oneof>,
}

/// A message's oneofs by name (the first of a name).
pub(super) type Oneofs<'a> = HashMap<&'a str, &'a Oneof>;

fn oneofs(m: &Message) -> Oneofs<'_> {
    let mut out = HashMap::new();
    for o in &m.oneofs {
        out.entry(o.name.as_str()).or_insert(o);
    }
    out
}

impl<'a> F<'a> {
    /// `oneofs`: the oneofs of `m` by name.
    pub fn field(c: Types<'a>, m: &'a Message, f: &'a Field, oneofs: &Oneofs<'a>) -> Self {
        let oneof = f.oneof.as_deref().and_then(|n| oneofs.get(n).copied());
        F {
            c,
            m,
            f,
            ext: None,
            oneof,
        }
    }

    /// The field of an extension, in its extended message.
    pub fn extension(c: Types<'a>, m: &'a Message, e: &'a Extension) -> Self {
        F {
            c,
            m,
            f: &e.field,
            ext: Some(e),
            oneof: None,
        }
    }

    /// The name that identifies the field in its scope: its name, or an extension's full
    /// name (which its ProtoJSON key `[pkg.name]` and generated code follow).
    fn name(&self) -> &str {
        self.ext.map_or(&self.f.name, |e| &e.full_name)
    }

    /// The element a change is reported on: `pkg.Msg.field`, or the extension's full name.
    fn element(&self) -> String {
        match self.ext {
            Some(e) => e.full_name.clone(),
            None => format!("{}.{}", self.m.full_name, self.f.name),
        }
    }

    fn decl(&self) -> String {
        match self.ext {
            Some(e) => decl::extension_short(e),
            None => decl::field_short(self.f),
        }
    }
}

/// FIELD_NUMBER_CHANGED: a field (or extension) that kept its name under a new number.
/// `old_reserved`: whether the old number is reserved in the new declaration.
pub(super) fn number_changed(o: &F<'_>, n: &F<'_>, old_reserved: bool) -> Finding {
    Finding {
        rule: RuleId::FIELD_NUMBER_CHANGED,
        element: n.element(),
        number: Some(i64::from(n.f.number)),
        old: Some(o.decl()),
        new: Some(n.decl()),
        verdict: v(BOTH_BREAK, Directions::SAFE, Source::Safe),
        additive: false,
        message: format!(
            "`{}` moved from number {} to {}: binary data under the old number is not read as this field{}",
            n.name(),
            o.f.number,
            n.f.number,
            if old_reserved {
                " (the old number is reserved: no later field misreads it, but this one still loses it)"
            } else {
                ""
            }
        ),
    }
}

/// Whether `number` is reserved in `m`, for a single lookup (several: [`Reserved`]).
pub(super) fn reserved(m: &Message, number: u32) -> bool {
    m.reserved_ranges
        .iter()
        .any(|(a, b)| (*a..=*b).contains(&number))
}

fn v(wire: Directions, json: Directions, source: Source) -> Verdict {
    Verdict { wire, json, source }
}

/// The field rules on a pair of messages present on both sides.
pub(super) fn message_pair(p: &Pairing<'_>, om: &Message, nm: &Message, out: &mut Vec<Finding>) {
    // Equal declarations have equal fields, and the same field types by name, so no field
    // rule can fire (structure is compared only where type names differ). One declaration
    // shared by both versions is equal without comparing it.
    if om.map_entry && nm.map_entry || std::ptr::eq(om, nm) || om == nm {
        return;
    }
    message(Types::of(p.old), om, Types::of(p.new), nm, out);
}

/// The reservations and names of both sides, indexed once for the message's members.
struct Lookup<'a> {
    old: Reserved<'a, u32>,
    new: Reserved<'a, u32>,
    /// Per side, the message; its fields by name and by JSON name (for [`namesake`]) are
    /// indexed when first asked (only a removed or added field asks).
    om: &'a Message,
    nm: &'a Message,
    old_names: std::cell::OnceCell<Names<'a>>,
    new_names: std::cell::OnceCell<Names<'a>>,
    old_oneofs: Oneofs<'a>,
    new_oneofs: Oneofs<'a>,
}

type Names<'a> = HashMap<&'a str, Vec<&'a Field>>;

impl<'a> Lookup<'a> {
    fn old_names(&self) -> &Names<'a> {
        self.old_names.get_or_init(|| names(self.om))
    }

    fn new_names(&self) -> &Names<'a> {
        self.new_names.get_or_init(|| names(self.nm))
    }
}

fn names(m: &Message) -> Names<'_> {
    let mut out: Names<'_> = HashMap::new();
    for f in m.fields.values() {
        out.entry(f.name.as_str()).or_default().push(f);
        if f.json_name != f.name {
            out.entry(f.json_name.as_str()).or_default().push(f);
        }
    }
    out
}

fn message(oc: Types<'_>, om: &Message, nc: Types<'_>, nm: &Message, out: &mut Vec<Finding>) {
    let members = members::fields(Some(om), Some(nm));
    let lk = Lookup {
        old: Reserved::new(&om.reserved_ranges, &om.reserved_names),
        new: Reserved::new(&nm.reserved_ranges, &nm.reserved_names),
        om,
        nm,
        old_names: std::cell::OnceCell::new(),
        new_names: std::cell::OnceCell::new(),
        old_oneofs: oneofs(om),
        new_oneofs: oneofs(nm),
    };
    // A name kept under a new number (a clean move: both numbers free on the other side).
    for (of, nf) in &members.renumbered {
        out.push(number_changed(
            &F::field(oc, om, of, &lk.old_oneofs),
            &F::field(nc, nm, nf, &lk.new_oneofs),
            lk.new.number(of.number),
        ));
        // As for an added field: data from before the reservation is read as this field.
        out.extend(reused_number(&lk, nm, nf));
    }
    for r in members.remains() {
        match (r.old, r.new) {
            (Some(of), None) => removed(&lk, om, of, out),
            (None, Some(nf)) => added(&lk, nm, nf, out),
            (Some(of), Some(nf)) => changed(
                &F::field(oc, om, of, &lk.old_oneofs),
                &F::field(nc, nm, nf, &lk.new_oneofs),
                out,
            ),
            (None, None) => {}
        }
    }
}

/// The field of `other` that has `f`'s name or JSON name under another number: where a name
/// went (or came from) when the field at its number is another one. ProtoJSON parsers
/// accept both the field name and its JSON name, so either one moving moves the key.
/// `other` is the other side's fields by name and JSON name ([`names`]); of several, the
/// lowest number.
fn namesake<'a>(other: &Names<'a>, f: &Field) -> Option<&'a Field> {
    [f.name.as_str(), f.json_name.as_str()]
        .into_iter()
        .flat_map(|k| other.get(k).into_iter().flatten())
        .filter(|x| x.number != f.number && (x.name == f.name || x.json_name == f.json_name))
        .min_by_key(|x| x.number)
        .copied()
}

fn removed(lk: &Lookup<'_>, om: &Message, of: &Field, out: &mut Vec<Finding>) {
    let reserved_number = lk.new.number(of.number);
    let required = of.presence == Presence::Required;
    let forward = if required { Breaking } else { Safe };
    let (rule, wire_back, message) = if reserved_number {
        (
            RuleId::FIELD_REMOVED_RESERVED,
            Safe,
            format!("`{}` removed; number {} reserved", of.name, of.number),
        )
    } else {
        (
            RuleId::FIELD_REMOVED,
            Hazard,
            format!(
                "`{}` removed without reserving {}: a later field may reuse the number and misread old data",
                of.name, of.number
            ),
        )
    };
    let message = if required {
        format!("{message}; it was required, so old readers reject new data")
    } else {
        message
    };
    let message = match namesake(lk.new_names(), of) {
        Some(x) => format!(
            "{message}; its name now belongs to number {} (`{}`): old JSON with key `{}` is read as that field",
            x.number, x.name, of.json_name
        ),
        None => message,
    };
    out.push(Finding {
        rule,
        element: format!("{}.{}", om.full_name, of.name),
        number: Some(i64::from(of.number)),
        old: Some(decl::field_short(of)),
        new: None,
        verdict: v(
            Directions {
                backward: wire_back,
                forward,
            },
            // Old JSON carries the key, which the new reader does not know: rejected unless
            // it ignores unknown fields, as for an added field read by an old reader. A
            // reserved name does not help: JSON parsers do not look at reservations.
            Directions {
                backward: Hazard,
                forward,
            },
            Source::Breaking,
        ),
        additive: false,
        message,
    });
}

fn added(lk: &Lookup<'_>, nm: &Message, nf: &Field, out: &mut Vec<Finding>) {
    // Every finding here is about the new field, declared on the new side only.
    let mut push = |rule, verdict, additive, message| {
        out.push(Finding {
            rule,
            element: format!("{}.{}", nm.full_name, nf.name),
            number: Some(i64::from(nf.number)),
            old: None,
            new: Some(decl::field_short(nf)),
            verdict,
            additive,
            message,
        })
    };
    let read_by_old_json = Directions {
        backward: Safe,
        forward: Hazard,
    };
    if nf.presence == Presence::Required {
        push(
            RuleId::FIELD_REQUIRED_ADDED,
            v(
                Directions {
                    backward: Breaking,
                    forward: Safe,
                },
                Directions {
                    backward: Breaking,
                    ..read_by_old_json
                },
                Source::Safe,
            ),
            true,
            format!(
                "required `{}` added: data written without it is rejected",
                nf.name
            ),
        );
    } else {
        // A name that was another number's (whose field is still there, renamed, or was
        // replaced): the field is new on the wire, but its JSON key is an old one.
        let message = match namesake(lk.old_names(), nf) {
            Some(x) => format!(
                "`{}` added at {}: old binary readers skip it; its name was number {}'s (now `{}`), so old JSON with key `{}` is read as this field while old binary data under {} is not",
                nf.name,
                nf.number,
                x.number,
                nm.fields.get(&x.number).map_or("gone", |f| f.name.as_str()),
                x.json_name,
                x.number
            ),
            None => format!(
                "`{}` added: old binary readers skip it; old JSON readers reject the unknown key unless they ignore unknown fields",
                nf.name
            ),
        };
        push(
            RuleId::FIELD_ADDED,
            v(Directions::SAFE, read_by_old_json, Source::Safe),
            true,
            message,
        );
    }
    let reused = Directions {
        backward: Breaking,
        forward: Hazard,
    };
    if let Some(x) = reused_number(lk, nm, nf) {
        push(x.rule, x.verdict, x.additive, x.message);
    }
    if lk.old.name(&nf.name) {
        push(
            RuleId::FIELD_RESERVED_NAME_REUSED,
            v(Directions::SAFE, reused, Source::Safe),
            false,
            format!(
                "the name `{}` was reserved: old JSON with that key means something else",
                nf.name
            ),
        );
    }
}

/// FIELD_RESERVED_NUMBER_REUSED: `nf` (added or moved) takes a number `om` reserved.
fn reused_number(lk: &Lookup<'_>, nm: &Message, nf: &Field) -> Option<Finding> {
    lk.old.number(nf.number).then(|| Finding {
        rule: RuleId::FIELD_RESERVED_NUMBER_REUSED,
        element: format!("{}.{}", nm.full_name, nf.name),
        number: Some(i64::from(nf.number)),
        old: None,
        new: Some(decl::field_short(nf)),
        verdict: v(
            Directions {
                backward: Breaking,
                forward: Hazard,
            },
            Directions::SAFE,
            Source::Safe,
        ),
        additive: false,
        message: format!(
            "number {} was reserved: data from before the reservation is read as `{}`",
            nf.number, nf.name
        ),
    })
}

fn is_repeated(f: &Field) -> bool {
    f.cardinality == Cardinality::Repeated && f.map.is_none()
}

/// A rule over a field present in both versions: the verdicts and reasons it finds (none,
/// one, or one per part for a map's key and value).
type Check = fn(&F<'_>, &F<'_>) -> Vec<(Verdict, String)>;

/// The rules on a field present on both sides, in report order.
const CHANGED: &[(RuleId, Check)] = &[
    (RuleId::FIELD_RENAMED, field_renamed),
    (RuleId::FIELD_JSON_NAME_CHANGED, field_json_name_changed),
    (RuleId::FIELD_MAP_CHANGED, field_map_changed),
    (RuleId::FIELD_TYPE_CHANGED, field_type_changed),
    (
        RuleId::FIELD_MESSAGE_TYPE_CHANGED,
        field_message_type_changed,
    ),
    (RuleId::FIELD_CARDINALITY_CHANGED, field_cardinality_changed),
    (RuleId::FIELD_REQUIRED_ADDED, field_required_added),
    (RuleId::FIELD_REQUIRED_REMOVED, field_required_removed),
    (RuleId::FIELD_PRESENCE_CHANGED, field_presence_changed),
    (RuleId::FIELD_ONEOF_CHANGED, field_oneof_changed),
    (RuleId::FIELD_DEFAULT_CHANGED, field_default_changed),
    (RuleId::FIELD_PACKED_CHANGED, field_packed_changed),
    (
        RuleId::FIELD_UTF8_VALIDATION_CHANGED,
        field_utf8_validation_changed,
    ),
    (RuleId::FIELD_DEPRECATED, field_deprecated),
    (RuleId::FIELD_OPTION_CHANGED, field_option_changed),
];

/// Runs every rule of `CHANGED` on a field (or extension) present on both sides.
pub(super) fn changed(o: &F<'_>, n: &F<'_>, out: &mut Vec<Finding>) {
    // Nothing to find in an unchanged field (every rule compares the two fields; the
    // schemas are looked into only for types that differ). Most fields are unchanged.
    if o.f == n.f && o.name() == n.name() {
        return;
    }
    for &(rule, check) in CHANGED {
        for (verdict, message) in check(o, n) {
            out.push(Finding {
                rule,
                element: n.element(),
                number: Some(i64::from(n.f.number)),
                old: Some(o.decl()),
                new: Some(n.decl()),
                verdict,
                additive: false,
                message,
            });
        }
    }
}

const BOTH_BREAK: Directions = Directions {
    backward: Breaking,
    forward: Breaking,
};
