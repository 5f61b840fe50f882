//! The rules on a field present in both versions, one function each, in the order of the
//! `CHANGED` table.

use crate::schema::model::reads::Types;
use std::collections::BTreeSet;

use crate::diff::same_shape;
use crate::schema::graph::is_message;
use crate::schema::model::{Cardinality, Field, FieldType, Presence, Scalar};

use super::super::options::{self, Kind};
use super::super::verdict::Severity::{self, *};
use super::super::verdict::{Directions, Source, Verdict};
use super::{BOTH_BREAK, F, is_repeated, v};

/// The JSON keys a writer may emit for a field: its JSON name (the default) and its proto
/// name (with `preserving_proto_field_name`); an extension's key is its full name.
fn json_keys<'s>(x: &'s F<'_>) -> [&'s str; 2] {
    match x.ext {
        Some(_) => [x.name(), x.name()],
        None => [&x.f.json_name, &x.f.name],
    }
}

/// ProtoJSON readers accept a field's JSON name and its proto name; writers emit either. A
/// key the reader does not accept is rejected (or, ignoring unknown fields, dropped).
fn json_name_read(w: &F<'_>, r: &F<'_>) -> Severity {
    let accepted = json_keys(r);
    if json_keys(w).iter().all(|k| accepted.contains(k)) {
        Safe
    } else {
        Breaking
    }
}

pub(super) fn field_renamed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    if o.name() == n.name() {
        return vec![];
    }
    let json = Directions::of(o, n, json_name_read);
    let message = if o.ext.is_none() && o.f.json_name == n.f.json_name {
        let mut rejected = Vec::new();
        if json.backward != Safe {
            rejected.push(format!("`{}`, which the new reader rejects", o.name()));
        }
        if json.forward != Safe {
            rejected.push(format!("`{}`, which the old reader rejects", n.name()));
        }
        format!(
            "`{}` renamed to `{}`: binary is unaffected and the JSON name `{}` is kept, but ProtoJSON parsers accept the proto name too: JSON written with proto names (`preserving_proto_field_name`) carries {}; generated code changes",
            o.name(),
            n.name(),
            n.f.json_name,
            rejected.join(" or ")
        )
    } else {
        format!(
            "`{}` renamed to `{}`: binary is unaffected; JSON keys and generated code change",
            o.name(),
            n.name()
        )
    };
    vec![(v(Directions::SAFE, json, Source::Breaking), message)]
}

pub(super) fn field_json_name_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    if o.name() != n.name() || o.f.json_name == n.f.json_name {
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

pub(super) fn field_map_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
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

pub(super) fn field_cardinality_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
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

pub(super) fn field_required_added(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
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

pub(super) fn field_required_removed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
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

pub(super) fn field_presence_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
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

pub(super) fn field_oneof_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
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

pub(super) fn field_default_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
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

pub(super) fn field_packed_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    if o.f.packed == n.f.packed || !is_repeated(o.f) || !is_repeated(n.f) {
        return vec![];
    }
    vec![(
        Verdict::SAFE,
        "parsers accept packed and unpacked repeated scalars alike".into(),
    )]
}

/// The field carries text: a string, or a map with a string key or value.
fn has_string(f: &Field) -> bool {
    let string = |t: &FieldType| *t == FieldType::Scalar(Scalar::String);
    match &f.map {
        Some((k, v)) => string(k) || string(v),
        None => string(&f.ty),
    }
}

/// A reader that checks UTF-8 rejects a message whose text is not UTF-8, which a writer
/// that does not check may send: safe while writers send valid text, a hazard otherwise.
fn utf8_read(w: &F<'_>, r: &F<'_>) -> Severity {
    if r.f.utf8_verified && !w.f.utf8_verified {
        Hazard
    } else {
        Safe
    }
}

pub(super) fn field_utf8_validation_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    // A change of type to or from bytes is FIELD_TYPE_CHANGED's, which judges the check.
    if o.f.utf8_verified == n.f.utf8_verified || !has_string(o.f) || !has_string(n.f) {
        return vec![];
    }
    let check = |f: &Field| if f.utf8_verified { "VERIFY" } else { "NONE" };
    vec![(
        // ProtoJSON is Unicode text: a JSON string is valid UTF-8 either way.
        v(
            Directions::of(o, n, utf8_read),
            Directions::SAFE,
            Source::Safe,
        ),
        format!(
            "utf8_validation {} -> {}: a reader that verifies rejects a message whose text is not UTF-8, which a writer that does not verify may send",
            check(o.f),
            check(n.f)
        ),
    )]
}

pub(super) fn field_deprecated(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
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

/// Options other than those judged above (deprecated, packed), one change per option.
pub(super) fn field_option_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    options::differing(&o.f.options, &n.f.options)
        .iter()
        .map(|c| options::judge(Kind::Field, c))
        .collect()
}

/// The entry message `a` (key = 1, value = 2) and the message `b` have the same shape, in
/// either order of map and message.
fn same_entry(oc: Types<'_>, a: &str, nc: Types<'_>, b: &str) -> bool {
    let fields = |c: Types<'_>, n: &str| -> Option<Vec<(u32, FieldType, Cardinality)>> {
        let m = c.message(n)?;
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
        x.oneof.map(|g| g.fields.iter().copied().collect())
    };
    match (&o.f.oneof, &n.f.oneof) {
        (None, None) => true,
        (Some(a), Some(b)) => a == b || members(o) == members(n),
        _ => false,
    }
}

fn oneof_read(w: &F<'_>, r: &F<'_>) -> Severity {
    let Some(oneof) = r.oneof else { return Safe };
    // Members that the writer may set together with this field.
    let mates_apart = oneof.fields.iter().filter(|&&n| n != r.f.number).any(|n| {
        w.m.fields
            .get(n)
            .is_some_and(|mate| mate.oneof.is_none() || mate.oneof != w.f.oneof)
    });
    if mates_apart { Lossy } else { Safe }
}
