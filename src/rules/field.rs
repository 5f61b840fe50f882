//! Field rules: fields of each paired message, paired by number (and a field that kept its
//! name under a new number, by name).

use std::collections::BTreeSet;

use crate::diff::{Pairing, same_shape};
use crate::schema::graph::{is_message, type_text};
use crate::schema::model::{Cardinality, Content, Field, FieldType, Message, Presence};

use super::Finding;
use super::types;
use super::verdict::Severity::{self, *};
use super::verdict::{Directions, Source, Verdict};

/// Both sides of a field and of its message, with their schemas.
struct F<'a> {
    c: &'a Content,
    m: &'a Message,
    f: &'a Field,
}

impl F<'_> {
    fn proto3(&self) -> bool {
        self.c
            .files
            .get(&self.m.file)
            .is_some_and(|f| f.syntax != "proto2")
    }
}

fn decl(f: &Field) -> String {
    format!("{} {} = {}", type_text(f), f.name, f.number)
}

fn reserved(m: &Message, number: u32) -> bool {
    m.reserved_ranges
        .iter()
        .any(|(a, b)| (*a..=*b).contains(&number))
}

/// ProtoJSON readers accept a field's JSON name and its proto name; writers emit the JSON name.
fn json_name_read(w: &F<'_>, r: &F<'_>) -> Severity {
    if w.f.json_name == r.f.json_name || w.f.json_name == r.f.name {
        Safe
    } else {
        Breaking
    }
}

fn v(wire: Directions, json: Directions, source: Source) -> Verdict {
    Verdict { wire, json, source }
}

pub(super) fn check(p: &Pairing<'_>, out: &mut Vec<Finding>) {
    for pair in &p.messages {
        let (Some(om), Some(nm)) = (pair.old, pair.new) else {
            continue;
        };
        // Equal declarations have equal fields, and the same field types by name, so no field
        // rule can fire (structure is compared only where type names differ).
        if om.map_entry && nm.map_entry || om == nm {
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

fn field_renamed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    if o.f.name == n.f.name {
        return vec![];
    }
    vec![(
        v(
            Directions::SAFE,
            Directions::of(o, n, json_name_read),
            Source::Breaking,
        ),
        format!(
            "`{}` renamed to `{}`: binary is unaffected; JSON keys and generated code change",
            o.f.name, n.f.name
        ),
    )]
}

fn field_json_name_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    if o.f.name != n.f.name || o.f.json_name == n.f.json_name {
        return vec![];
    }
    vec![(
        v(
            Directions::SAFE,
            Directions::of(o, n, json_name_read),
            Source::Safe,
        ),
        format!("JSON name `{}` became `{}`", o.f.json_name, n.f.json_name),
    )]
}

fn field_map_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    let (of, nf) = (o.f, n.f);
    if of.map.is_some() == nf.map.is_some() {
        return vec![];
    }
    let same = match (of.ty.type_name(), nf.ty.type_name()) {
        (Some(a), Some(b)) => {
            is_repeated(if of.map.is_some() { nf } else { of }) && same_entry(o.c, a, n.c, b)
        }
        _ => false,
    };
    // A map reader of repeated entries keeps the last entry of each key (and no order).
    let read = |w: &F<'_>, r: &F<'_>| {
        if r.f.map.is_some() && w.f.map.is_none() {
            Lossy
        } else {
            Safe
        }
    };
    let wire = if same {
        Directions::of(o, n, read)
    } else {
        BOTH_BREAK
    };
    vec![(
        v(wire, BOTH_BREAK, Source::Breaking),
        if same {
            "a map is a repeated key/value entry on the wire, but a map reader keeps only the last entry of a repeated key; JSON has an object for one and an array for the other".into()
        } else {
            "map and repeated field of another shape".into()
        },
    )]
}

/// The types that changed: the field's, or a map's key and value (nothing when the field
/// changed between map and not: FIELD_MAP_CHANGED covers it).
fn type_pairs<'a>(
    of: &'a Field,
    nf: &'a Field,
) -> Vec<(&'static str, &'a FieldType, &'a FieldType)> {
    match (&of.map, &nf.map) {
        (Some((ka, va)), Some((kb, vb))) => [("map key", ka, kb), ("map value", va, vb)]
            .into_iter()
            .filter(|(_, a, b)| a != b)
            .collect(),
        (None, None) if of.ty != nf.ty => vec![("type", &of.ty, &nf.ty)],
        _ => vec![],
    }
}

fn both_messages(a: &FieldType, b: &FieldType) -> bool {
    matches!(
        (a, b),
        (FieldType::Message(_), FieldType::Message(_)) | (FieldType::Group(_), FieldType::Group(_))
    )
}

fn field_type_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    type_pairs(o.f, n.f)
        .into_iter()
        .filter(|(_, a, b)| !both_messages(a, b))
        .map(|(what, a, b)| {
            let wire = Directions {
                backward: types::wire(a, b, n.c, n.proto3()),
                forward: types::wire(b, a, o.c, o.proto3()),
            };
            let json = Directions {
                backward: types::json(a, b),
                forward: types::json(b, a),
            };
            (
                v(wire, json, Source::Breaking),
                format!("{what} {a} -> {b}: {}", reason(a, b, wire.worst())),
            )
        })
        .collect()
}

fn field_message_type_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    type_pairs(o.f, n.f)
        .into_iter()
        .filter(|(_, a, b)| both_messages(a, b))
        .map(|(what, a, b)| {
            let (x, y) = (a.type_name().unwrap_or(""), b.type_name().unwrap_or(""));
            let s = structural(o.c, x, n.c, y);
            (
                v(s.wire, s.json, Source::Breaking),
                format!("{what} {x} -> {y}: {}", s.why),
            )
        })
        .collect()
}

/// How data of one message type reads as another: the worst verdict of comparing the two
/// types field by field (recursively), whatever they are called.
pub(super) struct Structural {
    pub wire: Directions,
    pub json: Directions,
    /// One line: the same structure, or the worst difference.
    pub why: String,
}

thread_local! {
    /// Type pairs being compared, outermost first: a pair met again is assumed compatible
    /// (a cycle adds nothing new).
    static COMPARING: std::cell::RefCell<Vec<(String, String)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Compares message `x` of `oc` with message `y` of `nc` field by field.
pub(super) fn structural(oc: &Content, x: &str, nc: &Content, y: &str) -> Structural {
    if same_shape(oc, x, nc, y) {
        return Structural {
            wire: Directions::SAFE,
            json: Directions::SAFE,
            why: "the same structure under another name".into(),
        };
    }
    let (Some(om), Some(nm)) = (oc.messages.get(x), nc.messages.get(y)) else {
        return Structural {
            wire: BOTH_BREAK,
            json: BOTH_BREAK,
            why: "not both messages".into(),
        };
    };
    if !om.fields.keys().any(|n| nm.fields.contains_key(n)) {
        // Nothing written by one is read by the other: not an evolution, a replacement.
        return Structural {
            wire: BOTH_BREAK,
            json: BOTH_BREAK,
            why: "a different structure: no field number in common".into(),
        };
    }
    let key = (x.to_string(), y.to_string());
    let entered = COMPARING.with(|c| {
        let mut c = c.borrow_mut();
        if c.contains(&key) {
            false
        } else {
            c.push(key.clone());
            true
        }
    });
    if !entered {
        return Structural {
            wire: Directions::SAFE,
            json: Directions::SAFE,
            why: "compared above (a cycle)".into(),
        };
    }
    // Each direction from its own reader's point of view (backward cells of writer ->
    // reader), so that the verdict is symmetric by construction.
    let mut nested = Vec::new();
    message(oc, om, nc, nm, &mut nested);
    let mut reverse = Vec::new();
    message(nc, nm, oc, om, &mut reverse);
    COMPARING.with(|c| {
        c.borrow_mut().pop();
    });
    let back = |list: &[Finding], wire: bool| {
        list.iter()
            .map(|f| {
                if wire {
                    f.verdict.wire.backward
                } else {
                    f.verdict.json.backward
                }
            })
            .max()
            .unwrap_or(Safe)
    };
    let wire = Directions {
        backward: back(&nested, true),
        forward: back(&reverse, true),
    };
    let json = Directions {
        backward: back(&nested, false),
        forward: back(&reverse, false),
    };
    /// The wire first: a difference that misreads bytes outranks one in JSON only.
    fn worst(f: &Finding) -> (Severity, Severity) {
        (f.verdict.wire.backward, f.verdict.json.backward)
    }
    fn first_worst(list: &[Finding]) -> Option<&Finding> {
        list.iter()
            .fold(None::<&Finding>, |best, f| match best {
                Some(b) if worst(b) >= worst(f) => Some(b),
                _ => Some(f),
            })
            .filter(|f| worst(f) > (Safe, Safe))
    }
    let why = match first_worst(&nested).or_else(|| first_worst(&reverse)) {
        Some(f) if worst(f) > (Safe, Safe) => format!(
            "compared field by field, the worst difference is {} {}: {}",
            f.rule, f.element, f.message
        ),
        _ => "compared field by field: readers on both sides agree".into(),
    };
    Structural { wire, json, why }
}

fn field_cardinality_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    let (of, nf) = (o.f, n.f);
    if of.map.is_some() || nf.map.is_some() || is_repeated(of) == is_repeated(nf) {
        return vec![];
    }
    let read = |w: &F<'_>, r: &F<'_>| {
        if is_repeated(w.f) && !is_repeated(r.f) {
            Lossy
        } else {
            Safe
        }
    };
    vec![(
        v(Directions::of(o, n, read), BOTH_BREAK, Source::Breaking),
        "singular and repeated: a singular reader keeps only the last element; JSON has a value for one and an array for the other".into(),
    )]
}

fn required(f: &Field) -> bool {
    f.presence == Presence::Required
}

/// A reader that requires the field rejects data from a writer that may omit it.
fn required_read(w: &F<'_>, r: &F<'_>) -> Severity {
    if required(r.f) && !required(w.f) {
        Breaking
    } else {
        Safe
    }
}

fn field_required_added(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    if required(o.f) || !required(n.f) {
        return vec![];
    }
    let d = Directions::of(o, n, required_read);
    vec![(
        v(d, d, Source::Safe),
        format!(
            "`{}` became required: data without it is rejected",
            n.f.name
        ),
    )]
}

fn field_required_removed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    if !required(o.f) || required(n.f) {
        return vec![];
    }
    let d = Directions::of(o, n, required_read);
    vec![(
        v(d, d, Source::Safe),
        format!(
            "`{}` is no longer required: old readers reject data without it",
            n.f.name
        ),
    )]
}

fn field_presence_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    let (of, nf) = (o.f, n.f);
    let applies = of.presence != nf.presence
        && !required(of)
        && !required(nf)
        && !is_repeated(of)
        && !is_repeated(nf)
        && of.ty.type_name().is_none() == nf.ty.type_name().is_none()
        && is_message(&of.ty) == is_message(&nf.ty);
    if !applies {
        return vec![];
    }
    let read = |w: &F<'_>, r: &F<'_>| {
        if w.f.presence == Presence::Implicit && r.f.presence == Presence::Explicit {
            Hazard
        } else {
            Safe
        }
    };
    let d = Directions::of(o, n, read);
    vec![(
        v(d, d, Source::Breaking),
        "explicit presence changed: a writer without presence never sends the default, which a reader with presence sees as unset".into(),
    )]
}

fn field_oneof_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    if same_oneof(o, n) {
        return vec![];
    }
    let d = Directions::of(o, n, oneof_read);
    // In JSON a reader does not keep the last member: it rejects an object that sets two
    // members of one oneof.
    let strict = |s: Severity| if s == Lossy { Breaking } else { s };
    let json = Directions {
        backward: strict(d.backward),
        forward: strict(d.forward),
    };
    vec![(
        v(d, json, Source::Breaking),
        format!(
            "oneof {} -> {}: a reader's oneof keeps only the last member set on the wire, and rejects JSON that sets several",
            o.f.oneof.as_deref().unwrap_or("(none)"),
            n.f.oneof.as_deref().unwrap_or("(none)")
        ),
    )]
}

fn field_default_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    if o.f.default == n.f.default {
        return vec![];
    }
    let lossy = Directions {
        backward: Lossy,
        forward: Lossy,
    };
    vec![(
        v(lossy, lossy, Source::Safe),
        format!(
            "default {} -> {}: an unset field reads differently in each version",
            o.f.default.as_deref().unwrap_or("(none)"),
            n.f.default.as_deref().unwrap_or("(none)")
        ),
    )]
}

fn field_packed_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    if o.f.packed == n.f.packed || !is_repeated(o.f) || !is_repeated(n.f) {
        return vec![];
    }
    vec![(
        Verdict::SAFE,
        "parsers accept packed and unpacked repeated scalars alike".into(),
    )]
}

fn field_deprecated(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    if o.f.deprecated == n.f.deprecated {
        return vec![];
    }
    let what = if n.f.deprecated {
        "deprecated"
    } else {
        "no longer deprecated"
    };
    vec![(Verdict::SAFE, what.into())]
}

/// The entry message `a` (key = 1, value = 2) and the message `b` have the same shape, in
/// either order of map and message.
fn same_entry(oc: &Content, a: &str, nc: &Content, b: &str) -> bool {
    let fields = |c: &Content, n: &str| -> Option<Vec<(u32, FieldType, Cardinality)>> {
        let m = c.messages.get(n)?;
        Some(
            m.fields
                .values()
                .map(|f| (f.number, f.ty.clone(), f.cardinality))
                .collect(),
        )
    };
    match (fields(oc, a), fields(nc, b)) {
        (Some(x), Some(y)) => {
            x.len() == 2
                && y.len() == 2
                && x.iter().zip(&y).all(|(p, q)| {
                    p.0 == q.0
                        && p.2 == q.2
                        && match (&p.1, &q.1) {
                            (FieldType::Message(s), FieldType::Message(t)) => {
                                same_shape(oc, s, nc, t)
                            }
                            (s, t) => s == t,
                        }
                })
        }
        _ => false,
    }
}

/// The same oneof: none on both sides, or oneofs with the same members (a renamed oneof is
/// ONEOF_RENAMED, not a move of each member).
fn same_oneof(o: &F<'_>, n: &F<'_>) -> bool {
    let members = |x: &F<'_>| -> Option<BTreeSet<u32>> {
        let name = x.f.oneof.as_ref()?;
        x.m.oneofs
            .iter()
            .find(|g| &g.name == name)
            .map(|g| g.fields.iter().copied().collect())
    };
    match (&o.f.oneof, &n.f.oneof) {
        (None, None) => true,
        (Some(a), Some(b)) => a == b || members(o) == members(n),
        _ => false,
    }
}

fn oneof_read(w: &F<'_>, r: &F<'_>) -> Severity {
    let Some(group) = &r.f.oneof else { return Safe };
    let Some(oneof) = r.m.oneofs.iter().find(|o| &o.name == group) else {
        return Safe;
    };
    // Members that the writer may set together with this field.
    let mates_apart = oneof.fields.iter().filter(|&&n| n != r.f.number).any(|n| {
        w.m.fields
            .get(n)
            .is_some_and(|mate| mate.oneof.is_none() || mate.oneof != w.f.oneof)
    });
    if mates_apart { Lossy } else { Safe }
}

fn reason(a: &FieldType, b: &FieldType, worst: Severity) -> &'static str {
    use crate::schema::model::Scalar::*;
    match (a, b, worst) {
        (_, _, Safe) => "wire compatible",
        (
            FieldType::Scalar(Int32 | Int64 | Uint32 | Uint64),
            FieldType::Scalar(Sint32 | Sint64),
            _,
        )
        | (
            FieldType::Scalar(Sint32 | Sint64),
            FieldType::Scalar(Int32 | Int64 | Uint32 | Uint64),
            _,
        ) => "zigzag (sint) and plain varints encode negative values differently",
        (_, _, Lossy) => "the same encoding, but some values do not fit or change sign",
        (_, _, Hazard) => "readable, but values outside the enum are kept as unknown numbers",
        _ => "different encodings on the wire",
    }
}
