//! A field's type changed: scalars by their wire and JSON encodings, enums by their value
//! numbers on the wire and their value names in JSON, messages by structure.

use crate::schema::model::reads::Types;
use crate::schema::model::{Field, FieldType};

use super::super::types;
use super::super::verdict::Severity::{self, *};
use super::super::verdict::{Directions, Source, Verdict};
use super::structural::structural;
use super::{F, v};

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

pub(super) fn field_type_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
    type_pairs(o.f, n.f)
        .into_iter()
        .filter(|(_, a, b)| !both_messages(a, b))
        .map(|(what, a, b)| {
            // A reader that checks UTF-8 (proto3, editions' VERIFY) rejects bytes that are not.
            let wire = Directions {
                backward: types::wire(a, b, n.c, n.f.utf8_verified),
                forward: types::wire(b, a, o.c, o.f.utf8_verified),
            };
            let mut json = Directions {
                backward: types::json(a, b),
                forward: types::json(b, a),
            };
            let mut wire = wire;
            let numbers = EnumNumbers::of(o.c, a, n.c, b);
            if let Some(numbers) = &numbers {
                wire = numbers.wire();
            }
            let mut message = format!("{what} {a} -> {b}: {}", reason(a, b, wire.worst()));
            if let Some(numbers) = &numbers {
                message.push_str(&numbers.text());
            }
            if let Some(names) = EnumNames::of(o.c, a, n.c, b) {
                json = names.json();
                message.push_str(&names.text());
            }
            // Without a `[default = ...]` on either side, an unset enum field reads as its
            // enum's first value: another first number reads unset data differently, as a
            // changed default does (FIELD_DEFAULT_CHANGED).
            if let (None, None, Some((x, y))) = (
                &o.f.default,
                &n.f.default,
                numbers.as_ref().and_then(|e| e.defaults),
            ) {
                let lossy = |d: Directions| Directions {
                    backward: d.backward.max(Lossy),
                    forward: d.forward.max(Lossy),
                };
                wire = lossy(wire);
                json = lossy(json);
                message.push_str(&format!(
                    "; an unset field reads as {x} in the old enum and {y} in the new one"
                ));
            }
            (v(wire, json, Source::Breaking), message)
        })
        .collect()
}

/// A field whose enum type changed, on the wire: the number travels unchanged, and a number
/// the reader's enum lacks is kept as an unknown number by an open enum (hazard: readable,
/// but a switch over the values misses it) and moved to the unknown fields by a closed one
/// (lossy: the field reads as its default), as for an integer read into an enum.
struct EnumNumbers {
    /// Old numbers the new enum lacks, and whether the new enum is closed.
    not_in_new: (Vec<i32>, bool),
    /// New numbers the old enum lacks, and whether the old enum is closed.
    not_in_old: (Vec<i32>, bool),
    /// The first numbers (an unset field's value), old and new, when they differ.
    defaults: Option<(i32, i32)>,
    /// Names both enums declare under other numbers (name, old, new): binary data means
    /// another value, as ENUM_VALUE_NUMBER_CHANGED says of one enum.
    moved: Vec<(String, i32, i32)>,
}

impl EnumNumbers {
    fn of(oc: Types<'_>, a: &FieldType, nc: Types<'_>, b: &FieldType) -> Option<Self> {
        let (FieldType::Enum(x), FieldType::Enum(y)) = (a, b) else {
            return None;
        };
        let (old, new) = (oc.enumeration(x)?, nc.enumeration(y)?);
        let missing = |w: &crate::schema::model::Enum, r: &crate::schema::model::Enum| {
            let mut m: Vec<i32> = w
                .values
                .iter()
                .map(|v| v.number)
                .filter(|n| !r.values.iter().any(|v| v.number == *n))
                .collect();
            m.sort_unstable();
            m.dedup();
            (m, r.closed)
        };
        let first = |e: &crate::schema::model::Enum| e.values.first().map(|v| v.number);
        let numbers_of_new: std::collections::HashMap<&str, i32> = new
            .values
            .iter()
            .map(|v| (v.name.as_str(), v.number))
            .collect();
        let mut moved: Vec<(String, i32, i32)> = old
            .values
            .iter()
            .filter_map(|v| {
                let n = *numbers_of_new.get(v.name.as_str())?;
                (n != v.number).then(|| (v.name.clone(), v.number, n))
            })
            .collect();
        moved.sort();
        moved.dedup_by(|a, b| a.0 == b.0);
        Some(EnumNumbers {
            moved,
            not_in_new: missing(old, new),
            not_in_old: missing(new, old),
            defaults: match (first(old), first(new)) {
                (Some(x), Some(y)) if x != y => Some((x, y)),
                _ => None,
            },
        })
    }

    fn wire(&self) -> Directions {
        let read = |(missing, closed): &(Vec<i32>, bool)| match (missing.is_empty(), closed) {
            (true, _) => Safe,
            (false, true) => Lossy,
            (false, false) => Hazard,
        };
        // A name under another number: what one side writes as it, the other reads as
        // another value (or as none), both ways.
        let moved = if self.moved.is_empty() {
            Safe
        } else {
            Breaking
        };
        Directions {
            backward: read(&self.not_in_new).max(moved),
            forward: read(&self.not_in_old).max(moved),
        }
    }

    fn text(&self) -> String {
        let part = |(missing, closed): &(Vec<i32>, bool), side: &str, reader: &str| {
            if missing.is_empty() {
                return None;
            }
            let shown: Vec<String> = missing.iter().take(4).map(|n| n.to_string()).collect();
            let more = match missing.len() {
                0..=4 => String::new(),
                k => format!(" and {} more", k - 4),
            };
            Some(format!(
                "the {side} enum lacks number{} {}{more} ({})",
                if missing.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if *closed {
                    format!(
                        "closed: {reader} data reads as the default, the value kept as an unknown field"
                    )
                } else {
                    format!("open: {reader} data keeps the unknown number")
                }
            ))
        };
        let moved = (!self.moved.is_empty()).then(|| {
            let shown: Vec<String> = self
                .moved
                .iter()
                .take(4)
                .map(|(name, o, n)| format!("{name} {o} -> {n}"))
                .collect();
            let more = match self.moved.len() {
                0..=4 => String::new(),
                k => format!(" and {} more", k - 4),
            };
            format!(
                "{} under another number ({}{more}): what one side writes as it the other reads as another value",
                if self.moved.len() == 1 { "a value" } else { "values" },
                shown.join(", ")
            )
        });
        let parts: Vec<String> = [
            moved,
            part(&self.not_in_new, "new", "old"),
            part(&self.not_in_old, "old", "new"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if parts.is_empty() {
            String::new()
        } else {
            format!("; on the wire {}", parts.join("; "))
        }
    }
}

/// A field whose enum type changed (another enum, or the same one renamed or moved):
/// ProtoJSON writes values by name, so each side's names must exist in the reader's enum.
struct EnumNames<'a> {
    /// Old names the new enum lacks: old JSON the new reader rejects.
    not_in_new: Vec<&'a str>,
    /// New names the old enum lacks: new JSON the old reader rejects.
    not_in_old: Vec<&'a str>,
}

impl<'a> EnumNames<'a> {
    fn of(oc: Types<'a>, a: &FieldType, nc: Types<'a>, b: &FieldType) -> Option<Self> {
        let (FieldType::Enum(x), FieldType::Enum(y)) = (a, b) else {
            return None;
        };
        let (old, new) = (oc.enumeration(x)?, nc.enumeration(y)?);
        Some(EnumNames {
            not_in_new: types::json_enum_names_missing(old, new),
            not_in_old: types::json_enum_names_missing(new, old),
        })
    }

    /// A reader meeting a name it does not know rejects the message (or, ignoring unknown
    /// values, drops the field).
    fn json(&self) -> Directions {
        let read = |missing: &[&str]| if missing.is_empty() { Safe } else { Breaking };
        Directions {
            backward: read(&self.not_in_new),
            forward: read(&self.not_in_old),
        }
    }

    fn text(&self) -> String {
        fn list(names: &[&str]) -> String {
            const SHOWN: usize = 4;
            let mut s = names
                .iter()
                .take(SHOWN)
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ");
            if names.len() > SHOWN {
                s.push_str(&format!(" and {} more", names.len() - SHOWN));
            }
            s
        }
        let mut parts = Vec::new();
        if !self.not_in_new.is_empty() {
            parts.push(format!(
                "the new enum lacks {} (old JSON is rejected)",
                list(&self.not_in_new)
            ));
        }
        if !self.not_in_old.is_empty() {
            parts.push(format!(
                "the old enum lacks {} (new JSON is rejected)",
                list(&self.not_in_old)
            ));
        }
        if parts.is_empty() {
            "; JSON writes enum values by name, and both enums have the same names".into()
        } else {
            format!("; JSON writes enum values by name: {}", parts.join("; "))
        }
    }
}

pub(super) fn field_message_type_changed(o: &F<'_>, n: &F<'_>) -> Vec<(Verdict, String)> {
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
        (FieldType::Enum(_), FieldType::Enum(_), Lossy) => {
            "the same numbers, but a closed reader drops those its enum lacks"
        }
        (FieldType::Enum(_), FieldType::Enum(_), Breaking) => {
            "the same encoding, but a number means another value to the other side"
        }
        (_, _, Lossy) => "the same encoding, but some values do not fit or change sign",
        (_, _, Hazard) => "readable, but values outside the enum are kept as unknown numbers",
        _ => "different encodings on the wire",
    }
}
