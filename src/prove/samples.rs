//! Samples: messages a writer builds to show how a change reads on the other side, with
//! representative values for the changed field — zero, negative, extreme, non-ASCII,
//! invalid UTF-8 where the writer's type lets it write that, every enum value the writer
//! declares (those the reader lacks first), nested and repeated values, map entries with a
//! duplicate key — and one message with every field of the writer's message set.

use super::types::Types;
use crate::schema::model::{Cardinality, Field, FieldType, Message, Scalar};

use super::value::{Msg, Val};

/// Enum values tried per sample set, at most.
const MAX_ENUM_VALUES: usize = 8;

/// One sample: what it shows, and the message.
pub struct Sample {
    pub label: String,
    pub msg: Msg,
}

fn ints(s: Scalar) -> Vec<i128> {
    match s {
        Scalar::Int32 | Scalar::Sint32 | Scalar::Sfixed32 => {
            vec![0, 1, -1, i128::from(i32::MAX), i128::from(i32::MIN)]
        }
        Scalar::Int64 | Scalar::Sint64 | Scalar::Sfixed64 => {
            vec![0, -1, 1 << 40, i128::from(i64::MAX), i128::from(i64::MIN)]
        }
        Scalar::Uint32 | Scalar::Fixed32 => vec![0, 1, i128::from(u32::MAX)],
        Scalar::Uint64 | Scalar::Fixed64 => vec![0, 1 << 40, i128::from(u64::MAX)],
        Scalar::Bool => vec![0, 1],
        _ => Vec::new(),
    }
}

/// Representative values of one (non-repeated) value of `ty`, as the writer may write them.
fn values(
    f: &Field,
    ty: &FieldType,
    writer: &Types<'_>,
    reader: &Types<'_>,
    depth: usize,
) -> Vec<(String, Val)> {
    match ty {
        FieldType::Scalar(Scalar::Float) => [0f32, -1.5, f32::MAX]
            .iter()
            .map(|x| (x.to_string(), Val::F32(x.to_bits())))
            .collect(),
        FieldType::Scalar(Scalar::Double) => [0f64, -1.5, 1e300]
            .iter()
            .map(|x| (x.to_string(), Val::F64(x.to_bits())))
            .collect(),
        FieldType::Scalar(s @ (Scalar::String | Scalar::Bytes)) => {
            let mut v: Vec<(String, Val)> = vec![
                ("empty".into(), Val::Bytes(Vec::new())),
                ("ASCII".into(), Val::Bytes(b"plain".to_vec())),
            ];
            // Invalid UTF-8 only where the writer's runtime serializes it; not last (the
            // last value is the one a message with every field set holds, in JSON too).
            if *s == Scalar::Bytes || !f.utf8_verified {
                v.push(("invalid UTF-8".into(), Val::Bytes(vec![0xff, 0xfe, b'x'])));
            }
            v.push((
                "non-ASCII".into(),
                Val::Bytes("h\u{e9} \u{2603}".as_bytes().to_vec()),
            ));
            v
        }
        FieldType::Scalar(s) => ints(*s)
            .into_iter()
            .map(|i| (i.to_string(), Val::Int(i)))
            .collect(),
        FieldType::Enum(e) => writer
            .enum_(e)
            .map(|e| {
                e.values
                    .iter()
                    .take(MAX_ENUM_VALUES)
                    .map(|v| {
                        (
                            format!("{} = {}", v.name, v.number),
                            Val::Int(i128::from(v.number)),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
        FieldType::Message(t) | FieldType::Group(t) => {
            let mut v = vec![("empty message".into(), Val::Msg(Msg::default()))];
            if let (true, Some(m)) = (depth < 2, writer.message(t)) {
                // Inside, only the fields both sides declare alike (all of them when the
                // reader lacks the type): a field added to or changed in the nested
                // message is that change's to show, not the field's that holds it.
                v.push((
                    "every field set".into(),
                    Val::Msg(full(m, writer, reader, depth + 1)),
                ));
            }
            v
        }
    }
}

/// The required fields of `m` set (a message without them is not written), each to its
/// most telling value.
fn required(m: &Message, writer: &Types<'_>, reader: &Types<'_>) -> Msg {
    let mut out = Msg::default();
    for f in m.fields.values() {
        let value = (f.cardinality == Cardinality::Required)
            .then(|| field_values(f, writer, reader, 1).pop())
            .flatten();
        if let Some((_, v)) = value {
            out.fields.insert(f.number, v);
        }
    }
    out
}

/// A non-default value of every field of `m` that both sides declare alike (every field
/// when the reader lacks the type: then the type is the change), one level of nesting
/// deeper at most.
fn full(m: &Message, writer: &Types<'_>, reader: &Types<'_>, depth: usize) -> Msg {
    let mut out = Msg::default();
    let mut oneofs_set: Vec<&str> = Vec::new();
    let theirs = reader.message(&m.full_name);
    for f in m.fields.values() {
        // Only fields both sides declare alike: another change to the message is that
        // change's to show, not this one's.
        // (A type the reader lacks is the change itself, a type changed: all of it.)
        if theirs.is_some() && theirs.and_then(|t| t.fields.get(&f.number)) != Some(f) {
            continue;
        }
        // An enum both sides declare alike too (a renamed value is its change's to show).
        let enums = [&f.ty]
            .into_iter()
            .chain(f.map.iter().flat_map(|(k, v)| [k, v]));
        if enums
            .filter_map(|t| match t {
                FieldType::Enum(e) => Some(e),
                _ => None,
            })
            .any(|e| theirs.is_some() && writer.enum_(e) != reader.enum_(e))
        {
            continue;
        }
        if let Some(o) = &f.oneof {
            if oneofs_set.contains(&o.as_str()) {
                continue;
            }
            oneofs_set.push(o);
        }
        let all = field_values(f, writer, reader, depth);
        // The last value of a field's samples is its most telling (extreme, non-ASCII...).
        if let Some((_, v)) = all.into_iter().rev().find(|(_, v)| !v.is_empty()) {
            out.fields.insert(f.number, v);
        }
    }
    out
}

/// The values one field may hold, each as the list a message holds for it.
fn field_values(
    f: &Field,
    writer: &Types<'_>,
    reader: &Types<'_>,
    depth: usize,
) -> Vec<(String, Vec<Val>)> {
    if let (Some((k, v)), FieldType::Message(_)) = (&f.map, &f.ty) {
        let keys = values(f, k, writer, reader, depth);
        let vals = values(f, v, writer, reader, depth);
        let entry = |k: &Val, v: &Val| {
            Val::Msg(
                Msg::default()
                    .with(1, vec![k.clone()])
                    .with(2, vec![v.clone()]),
            )
        };
        let (Some(k1), Some(k2)) = (keys.first(), keys.last()) else {
            return Vec::new();
        };
        let (Some(v1), Some(v2)) = (vals.first(), vals.last()) else {
            return Vec::new();
        };
        return vec![
            ("no entries".into(), Vec::new()),
            (
                "two entries".into(),
                vec![entry(&k1.1, &v1.1), entry(&k2.1, &v2.1)],
            ),
            (
                "an entry, then the same key again".into(),
                vec![entry(&k2.1, &v1.1), entry(&k2.1, &v2.1)],
            ),
        ];
    }
    let one = values(f, &f.ty, writer, reader, depth);
    if f.cardinality == Cardinality::Repeated {
        let all: Vec<Val> = one.iter().map(|(_, v)| v.clone()).collect();
        let mut out = vec![("none".into(), Vec::new())];
        if let Some((l, v)) = one.last() {
            out.push((format!("one: {l}"), vec![v.clone()]));
        }
        out.push((format!("{} values", all.len()), all));
        return out;
    }
    one.into_iter().map(|(l, v)| (l, vec![v])).collect()
}

/// The samples for field `number` of message `m`, as the writer declares it (`None`: the
/// writer does not have it, and only writes the rest of the message).
pub fn for_field(m: &Message, number: u32, writer: &Types<'_>, reader: &Types<'_>) -> Vec<Sample> {
    let base = required(m, writer, reader);
    let mut out = vec![Sample {
        label: if base.fields.is_empty() {
            "empty message".into()
        } else {
            "only the required fields".into()
        },
        msg: base.clone(),
    }];
    // The field's values, computed once: each alone, then the last (its most telling) beside
    // a oneof sibling and in the message with every field set.
    let f = m.fields.get(&number);
    let values = f
        .map(|f| field_values(f, writer, reader, 0))
        .unwrap_or_default();
    let last = values.last().map(|(_, v)| v.clone());
    if let Some(f) = f {
        for (label, vals) in values {
            out.push(Sample {
                label: format!("{}: {label}", f.name),
                msg: base.clone().with(number, vals),
            });
        }
    }
    // With each field the reader puts in one oneof with this one (the writer may set both).
    let rm = reader.message(&m.full_name);
    let rf = rm.and_then(|r| r.fields.get(&number));
    let oneof = rf.and_then(|rf| {
        let o = rf.oneof.as_ref()?;
        rm?.oneofs.iter().find(|x| &x.name == o)
    });
    if let (Some(f), Some(o), Some(a)) = (f, oneof, &last) {
        for sibling in o.fields.iter().filter(|n| **n != number) {
            // A sibling both sides declare alike, that the writer can set beside this field.
            let Some(sf) = m.fields.get(sibling) else {
                continue;
            };
            let alike = rm
                .and_then(|r| r.fields.get(sibling))
                .map(|x| (x.number, &x.name, &x.ty))
                == Some((sf.number, &sf.name, &sf.ty));
            if !alike || (sf.oneof.is_some() && sf.oneof == f.oneof) {
                continue;
            }
            let Some((_, b)) = field_values(sf, writer, reader, 0).pop() else {
                continue;
            };
            out.push(Sample {
                label: format!("{} and {} (one oneof for the reader)", f.name, sf.name),
                msg: base.clone().with(number, a.clone()).with(*sibling, b),
            });
        }
    }
    // The rest of the message (the fields both sides declare alike), and this field.
    let mut rest = base;
    rest.fields.extend(full(m, writer, reader, 0).fields);
    if let Some(v) = last {
        rest.fields.insert(number, v);
    }
    out.push(Sample {
        label: "every field set".into(),
        msg: rest,
    });
    out
}

/// The samples for one enum value written in field `f` of `m` (the value's number, alone
/// and in the message with every field set).
pub fn for_enum_value(
    m: &Message,
    f: &Field,
    value: (&str, i32),
    writer: &Types<'_>,
    reader: &Types<'_>,
) -> Vec<Sample> {
    let v = Val::Int(i128::from(value.1));
    let mut base = required(m, writer, reader);
    base.fields.extend(full(m, writer, reader, 0).fields);
    let vals = |v: Val| {
        if f.cardinality == Cardinality::Repeated {
            vec![Val::Int(0), v]
        } else {
            vec![v]
        }
    };
    vec![
        // Unset: what an omitted field means may be the change (a value moved off zero).
        Sample {
            label: format!("{} unset", f.name),
            msg: required(m, writer, reader),
        },
        Sample {
            label: format!("{} = {}: {} = {}", f.name, value.0, value.0, value.1),
            msg: required(m, writer, reader).with(f.number, vals(v.clone())),
        },
        Sample {
            label: format!("every field set, {} = {}", f.name, value.0),
            msg: base.with(f.number, vals(v)),
        },
    ]
}
