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
fn values(f: &Field, ty: &FieldType, writer: &Types<'_>, depth: usize) -> Vec<(String, Val)> {
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
                (
                    "non-ASCII".into(),
                    Val::Bytes("h\u{e9} \u{2603}".as_bytes().to_vec()),
                ),
            ];
            // Invalid UTF-8 only where the writer's runtime serializes it.
            if *s == Scalar::Bytes || !f.utf8_verified {
                v.push(("invalid UTF-8".into(), Val::Bytes(vec![0xff, 0xfe, b'x'])));
            }
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
                v.push((
                    "every field set".into(),
                    Val::Msg(full(m, writer, depth + 1)),
                ));
            }
            v
        }
    }
}

/// A non-default value of every field of `m` (one level of nesting deeper at most).
fn full(m: &Message, writer: &Types<'_>, depth: usize) -> Msg {
    let mut out = Msg::default();
    let mut oneofs_set: Vec<&str> = Vec::new();
    for f in m.fields.values() {
        if let Some(o) = &f.oneof {
            if oneofs_set.contains(&o.as_str()) {
                continue;
            }
            oneofs_set.push(o);
        }
        let all = field_values(f, writer, depth);
        // The last value of a field's samples is its most telling (extreme, non-ASCII...).
        if let Some((_, v)) = all.into_iter().rev().find(|(_, v)| !v.is_empty()) {
            out.fields.insert(f.number, v);
        }
    }
    out
}

/// The values one field may hold, each as the list a message holds for it.
fn field_values(f: &Field, writer: &Types<'_>, depth: usize) -> Vec<(String, Vec<Val>)> {
    if let (Some((k, v)), FieldType::Message(_)) = (&f.map, &f.ty) {
        let keys = values(f, k, writer, depth);
        let vals = values(f, v, writer, depth);
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
    let one = values(f, &f.ty, writer, depth);
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
pub fn for_field(m: &Message, number: u32, writer: &Types<'_>) -> Vec<Sample> {
    let mut out = vec![Sample {
        label: "empty message".into(),
        msg: Msg::default(),
    }];
    if let Some(f) = m.fields.get(&number) {
        for (label, vals) in field_values(f, writer, 0) {
            out.push(Sample {
                label: format!("{}: {label}", f.name),
                msg: Msg::default().with(number, vals),
            });
        }
    }
    out.push(Sample {
        label: "every field set".into(),
        msg: full(m, writer, 0),
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
) -> Vec<Sample> {
    let v = Val::Int(i128::from(value.1));
    let base = full(m, writer, 0);
    let vals = |v: Val| {
        if f.cardinality == Cardinality::Repeated {
            vec![Val::Int(0), v]
        } else {
            vec![v]
        }
    };
    vec![
        Sample {
            label: format!("{} = {}: {} = {}", f.name, value.0, value.0, value.1),
            msg: Msg::default().with(f.number, vals(v.clone())),
        },
        Sample {
            label: format!("every field set, {} = {}", f.name, value.0),
            msg: base.with(f.number, vals(v)),
        },
    ]
}
