//! Field rules: fields of each paired message, paired by number (and a field that kept its
//! name under a new number, by name). Additions, removals and renumberings are judged here;
//! the rules on a field present on both sides are in `changed`, one function each; how one
//! message type reads as another is in `structural`.

mod changed;
mod structural;

use std::collections::BTreeSet;

use crate::diff::Pairing;
use crate::schema::graph::type_text;
use crate::schema::model::{Cardinality, Content, Field, Message, Presence};

use super::Finding;
use super::verdict::Severity::*;
use super::verdict::{Directions, Source, Verdict};
use changed::*;
pub(super) use structural::structural;

/// Both sides of a field and of its message, with their schemas.
struct F<'a> {
    pub c: &'a Content,
    pub m: &'a Message,
    pub f: &'a Field,
}

impl F<'_> {
    fn proto3(&self) -> bool {
        self.c
            .files
            .get(&self.m.file)
            .is_some_and(|f| f.syntax != "proto2")
    }
}

pub(super) fn decl(f: &Field) -> String {
    format!("{} {} = {}", type_text(f), f.name, f.number)
}

fn reserved(m: &Message, number: u32) -> bool {
    m.reserved_ranges
        .iter()
        .any(|(a, b)| (*a..=*b).contains(&number))
}

fn v(wire: Directions, json: Directions, source: Source) -> Verdict {
    Verdict { wire, json, source }
}

pub(super) fn check(p: &Pairing<'_>, out: &mut Vec<Finding>) {
    for pair in &p.messages {
        let (Some(om), Some(nm)) = (pair.old, pair.new) else {
            continue;
        };
        if om.map_entry && nm.map_entry {
            continue;
        }
        message(p.old, om, p.new, nm, out);
    }
}

fn message(oc: &Content, om: &Message, nc: &Content, nm: &Message, out: &mut Vec<Finding>) {
    let elem = |f: &Field| format!("{}.{}", nm.full_name, f.name);
    // A name kept under a new number.
    let mut moved_old = BTreeSet::new();
    let mut moved_new = BTreeSet::new();
    for of in om.fields.values() {
        if nm
            .fields
            .get(&of.number)
            .is_some_and(|nf| nf.name == of.name)
        {
            continue;
        }
        if let Some(nf) = nm.fields.values().find(|nf| nf.name == of.name) {
            if om.fields.get(&nf.number).is_some_and(|x| x.name == nf.name) {
                continue;
            }
            moved_old.insert(of.number);
            moved_new.insert(nf.number);
            out.push(Finding {
                rule: "FIELD_NUMBER_CHANGED",
                element: elem(nf),
                number: Some(i64::from(nf.number)),
                old: Some(decl(of)),
                new: Some(decl(nf)),
                verdict: v(
                    Directions { backward: Breaking, forward: Breaking },
                    Directions::SAFE,
                    Source::Safe,
                ),
                additive: false,
                message: format!(
                    "`{}` moved from number {} to {}: binary data under the old number is not read as this field",
                    nf.name, of.number, nf.number
                ),
            });
        }
    }
    let numbers: BTreeSet<u32> = om.fields.keys().chain(nm.fields.keys()).copied().collect();
    for n in numbers {
        match (om.fields.get(&n), nm.fields.get(&n)) {
            (Some(of), None) if !moved_old.contains(&n) => removed(om, of, nm, out),
            (None, Some(nf)) if !moved_new.contains(&n) => added(om, nm, nf, out),
            (Some(of), Some(nf)) => {
                let o = F {
                    c: oc,
                    m: om,
                    f: of,
                };
                let nn = F {
                    c: nc,
                    m: nm,
                    f: nf,
                };
                changed(&o, &nn, out);
            }
            _ => {}
        }
    }
}

fn removed(om: &Message, of: &Field, nm: &Message, out: &mut Vec<Finding>) {
    let reserved_number = reserved(nm, of.number);
    let required = of.presence == Presence::Required;
    let forward = if required { Breaking } else { Safe };
    let (rule, wire_back, message) = if reserved_number {
        (
            "FIELD_REMOVED_RESERVED",
            Safe,
            format!("`{}` removed; number {} reserved", of.name, of.number),
        )
    } else {
        (
            "FIELD_REMOVED",
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
    out.push(Finding {
        rule,
        element: format!("{}.{}", om.full_name, of.name),
        number: Some(i64::from(of.number)),
        old: Some(decl(of)),
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

fn added(om: &Message, nm: &Message, nf: &Field, out: &mut Vec<Finding>) {
    let element = format!("{}.{}", nm.full_name, nf.name);
    let number = Some(i64::from(nf.number));
    if nf.presence == Presence::Required {
        out.push(Finding {
            rule: "FIELD_REQUIRED_ADDED",
            element: element.clone(),
            number,
            old: None,
            new: Some(decl(nf)),
            verdict: v(
                Directions {
                    backward: Breaking,
                    forward: Safe,
                },
                Directions {
                    backward: Breaking,
                    forward: Hazard,
                },
                Source::Safe,
            ),
            additive: true,
            message: format!(
                "required `{}` added: data written without it is rejected",
                nf.name
            ),
        });
    } else {
        out.push(Finding {
            rule: "FIELD_ADDED",
            element: element.clone(),
            number,
            old: None,
            new: Some(decl(nf)),
            verdict: v(
                Directions::SAFE,
                Directions { backward: Safe, forward: Hazard },
                Source::Safe,
            ),
            additive: true,
            message: format!(
                "`{}` added: old binary readers skip it; old JSON readers reject the unknown key unless they ignore unknown fields",
                nf.name
            ),
        });
    }
    if reserved(om, nf.number) {
        out.push(Finding {
            rule: "FIELD_RESERVED_NUMBER_REUSED",
            element: element.clone(),
            number,
            old: None,
            new: Some(decl(nf)),
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
        });
    }
    if om.reserved_names.contains(&nf.name) {
        out.push(Finding {
            rule: "FIELD_RESERVED_NAME_REUSED",
            element,
            number,
            old: None,
            new: Some(decl(nf)),
            verdict: v(
                Directions::SAFE,
                Directions {
                    backward: Breaking,
                    forward: Hazard,
                },
                Source::Safe,
            ),
            additive: false,
            message: format!(
                "the name `{}` was reserved: old JSON with that key means something else",
                nf.name
            ),
        });
    }
}

fn is_repeated(f: &Field) -> bool {
    f.cardinality == Cardinality::Repeated && f.map.is_none()
}

/// A rule over a field present in both versions: the verdicts and reasons it finds (none,
/// one, or one per part for a map's key and value).
type Check = fn(&F<'_>, &F<'_>) -> Vec<(Verdict, String)>;

/// The rules on a field present on both sides, in report order.
const CHANGED: &[(&str, Check)] = &[
    ("FIELD_RENAMED", field_renamed),
    ("FIELD_JSON_NAME_CHANGED", field_json_name_changed),
    ("FIELD_MAP_CHANGED", field_map_changed),
    ("FIELD_TYPE_CHANGED", field_type_changed),
    ("FIELD_MESSAGE_TYPE_CHANGED", field_message_type_changed),
    ("FIELD_CARDINALITY_CHANGED", field_cardinality_changed),
    ("FIELD_REQUIRED_ADDED", field_required_added),
    ("FIELD_REQUIRED_REMOVED", field_required_removed),
    ("FIELD_PRESENCE_CHANGED", field_presence_changed),
    ("FIELD_ONEOF_CHANGED", field_oneof_changed),
    ("FIELD_DEFAULT_CHANGED", field_default_changed),
    ("FIELD_PACKED_CHANGED", field_packed_changed),
    ("FIELD_DEPRECATED", field_deprecated),
];

fn changed(o: &F<'_>, n: &F<'_>, out: &mut Vec<Finding>) {
    for (rule, check) in CHANGED {
        for (verdict, message) in check(o, n) {
            out.push(Finding {
                rule,
                element: format!("{}.{}", n.m.full_name, n.f.name),
                number: Some(i64::from(n.f.number)),
                old: Some(decl(o.f)),
                new: Some(decl(n.f)),
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
