//! ProtoJSON, written and read as the spec (protobuf.dev, "ProtoJSON Format") and Google's
//! JSON parser with its default options say: keys are JSON names (a parser also accepts the
//! field's proto name); an unknown key, an unknown enum name, a number out of the field's
//! range or of the wrong kind, and a missing required field are errors; 64-bit integers
//! are strings; bytes are base64; enums are their value's name (an open enum's undeclared
//! value, its number); unset fields with implicit presence are not written. Well-known
//! types have JSON forms of their own: a sample that holds one is not written to JSON.

use serde_json::{Map, Number, Value as J};

use super::types::Types;
use crate::schema::model::{Cardinality, Field, FieldType, Presence, Scalar};

use super::value::{Msg, Val, is_zero};

/// The runtime whose behaviour this module follows, as cells name it.
pub const RUNTIME: &str = "ProtoJSON (spec, Google's default parser options)";

/// Why a sample has no JSON (the writer cannot write it) or the reader rejects it.
pub type Why = String;

/// The writer's message as ProtoJSON text.
pub fn write(m: &Msg, name: &str, schema: &Types<'_>) -> Result<String, Why> {
    Ok(J::Object(object(m, name, schema, 0)?).to_string())
}

fn object(m: &Msg, name: &str, schema: &Types<'_>, depth: usize) -> Result<Map<String, J>, Why> {
    if name.starts_with("google.protobuf.") {
        return Err(format!("{name} has a JSON form of its own: not sampled"));
    }
    if depth > 32 {
        return Err("nested too deep".into());
    }
    let d = schema
        .message(name)
        .ok_or_else(|| format!("no message {name}"))?;
    let mut out = Map::new();
    for (n, vals) in &m.fields {
        let Some(f) = d.fields.get(n) else { continue };
        let v = if f.cardinality == Cardinality::Repeated {
            if vals.is_empty() {
                continue;
            }
            if let Some((k, v)) = &f.map {
                let mut obj = Map::new();
                for e in vals {
                    let Val::Msg(e) = e else { continue };
                    let key = e.fields.get(&1).and_then(|x| x.last());
                    let val = e.fields.get(&2).and_then(|x| x.last());
                    let (Some(key), Some(val)) = (key, val) else {
                        continue;
                    };
                    let key = match one(key, k, schema, depth)? {
                        J::String(s) => s,
                        other => other.to_string(),
                    };
                    obj.insert(key, one(val, v, schema, depth)?);
                }
                J::Object(obj)
            } else {
                J::Array(
                    vals.iter()
                        .map(|v| one(v, &f.ty, schema, depth))
                        .collect::<Result<_, _>>()?,
                )
            }
        } else {
            let Some(v) = vals.last() else { continue };
            if f.presence == Presence::Implicit && is_zero(v) {
                continue;
            }
            one(v, &f.ty, schema, depth)?
        };
        out.insert(f.json_name.clone(), v);
    }
    Ok(out)
}

fn float(x: f64) -> J {
    if x.is_nan() {
        J::String("NaN".into())
    } else if x.is_infinite() {
        J::String(if x > 0.0 { "Infinity" } else { "-Infinity" }.into())
    } else {
        Number::from_f64(x).map_or(J::Null, J::Number)
    }
}

fn one(v: &Val, ty: &FieldType, schema: &Types<'_>, depth: usize) -> Result<J, Why> {
    Ok(match (ty, v) {
        (FieldType::Message(t) | FieldType::Group(t), Val::Msg(m)) => {
            J::Object(object(m, t, schema, depth + 1)?)
        }
        (FieldType::Enum(e), Val::Int(i)) => {
            let name = schema
                .enum_(e)
                .and_then(|e| e.values.iter().find(|x| i128::from(x.number) == *i));
            match name {
                Some(x) => J::String(x.name.clone()),
                None => J::Number(Number::from(*i as i64)),
            }
        }
        (FieldType::Scalar(s), v) => match (s, v) {
            // A float as its own shortest digits (as Google's printer writes float fields).
            (Scalar::Float, Val::F32(b)) => {
                let x = f32::from_bits(*b);
                float(format!("{x}").parse().unwrap_or(f64::from(x)))
            }
            (Scalar::Double, Val::F64(b)) => float(f64::from_bits(*b)),
            (Scalar::Bool, Val::Int(i)) => J::Bool(*i != 0),
            (Scalar::String, Val::Bytes(b)) => J::String(
                String::from_utf8(b.clone())
                    .map_err(|_| "invalid UTF-8 cannot be written as JSON".to_string())?,
            ),
            (Scalar::Bytes, Val::Bytes(b)) => J::String(base64(b)),
            (
                Scalar::Int64
                | Scalar::Sint64
                | Scalar::Sfixed64
                | Scalar::Uint64
                | Scalar::Fixed64,
                Val::Int(i),
            ) => J::String(i.to_string()),
            (_, Val::Int(i)) => J::Number(Number::from(*i as i64)),
            _ => return Err("a value of another type".into()),
        },
        _ => return Err("a value of another type".into()),
    })
}

// ---- reading ----

/// The reader's message from ProtoJSON text, or why its parser rejects it.
pub fn read(text: &str, name: &str, schema: &Types<'_>) -> Result<Msg, Why> {
    let v: J = serde_json::from_str(text).map_err(|e| e.to_string())?;
    parse_object(&v, name, schema, 0)
}

fn parse_object(v: &J, name: &str, schema: &Types<'_>, depth: usize) -> Result<Msg, Why> {
    if depth > 32 {
        return Err("nested too deep".into());
    }
    let d = schema
        .message(name)
        .ok_or_else(|| format!("no message {name}"))?;
    let J::Object(obj) = v else {
        return Err(format!("expected an object for {name}"));
    };
    let mut out = Msg::default();
    for (key, value) in obj {
        let f = d
            .fields
            .values()
            .find(|f| f.json_name == *key || f.name == *key)
            .ok_or_else(|| format!("{name}: cannot find field `{key}`"))?;
        if value.is_null() {
            continue;
        }
        let vals = if let Some((k, vt)) = &f.map {
            let J::Object(entries) = value else {
                return Err(format!("{}: expected an object for a map", f.name));
            };
            let mut out = Vec::new();
            for (ks, ev) in entries {
                let key = parse_one(&J::String(ks.clone()), k, f, schema, depth, true)?;
                let val = parse_one(ev, vt, f, schema, depth, false)?;
                out.push(Val::Msg(
                    Msg::default().with(1, vec![key]).with(2, vec![val]),
                ));
            }
            out
        } else if f.cardinality == Cardinality::Repeated {
            let J::Array(items) = value else {
                return Err(format!("{}: expected an array", f.name));
            };
            items
                .iter()
                .map(|x| parse_one(x, &f.ty, f, schema, depth, false))
                .collect::<Result<_, _>>()?
        } else {
            vec![parse_one(value, &f.ty, f, schema, depth, false)?]
        };
        if let Some(o) = &f.oneof {
            let set = d.oneofs.iter().find(|x| &x.name == o).map(|x| &x.fields);
            if set.is_some_and(|s| {
                s.iter()
                    .any(|n| *n != f.number && out.fields.contains_key(n))
            }) {
                return Err(format!("oneof {o} set twice"));
            }
        }
        out.fields.insert(f.number, vals);
    }
    for f in d.fields.values() {
        if f.cardinality == Cardinality::Required && !out.fields.contains_key(&f.number) {
            return Err(format!("missing required field {}", f.name));
        }
    }
    // Implicit-presence zeros are not kept: as if unset.
    out.fields.retain(|n, vals| {
        d.fields.get(n).is_none_or(|f| {
            f.presence != Presence::Implicit
                || f.cardinality == Cardinality::Repeated
                || !vals.iter().all(is_zero)
        })
    });
    Ok(out)
}

fn parse_one(
    v: &J,
    ty: &FieldType,
    f: &Field,
    schema: &Types<'_>,
    depth: usize,
    key: bool,
) -> Result<Val, Why> {
    let bad = || format!("{}: invalid value {v}", f.name);
    Ok(match ty {
        FieldType::Message(t) | FieldType::Group(t) => {
            Val::Msg(parse_object(v, t, schema, depth + 1)?)
        }
        FieldType::Enum(e) => {
            let en = schema.enum_(e);
            match v {
                J::String(s) => Val::Int(i128::from(
                    en.and_then(|en| en.values.iter().find(|x| x.name == *s))
                        .ok_or_else(|| format!("{}: unknown enum value {s}", f.name))?
                        .number,
                )),
                J::Number(n) => {
                    let i = n
                        .as_i64()
                        .and_then(|i| i32::try_from(i).ok())
                        .ok_or_else(bad)?;
                    if en.is_some_and(|en| en.closed && !en.values.iter().any(|x| x.number == i)) {
                        return Err(format!("{}: unknown enum value {i}", f.name));
                    }
                    Val::Int(i128::from(i))
                }
                _ => return Err(bad()),
            }
        }
        FieldType::Scalar(s) => match s {
            Scalar::String => match v {
                J::String(x) => Val::Bytes(x.as_bytes().to_vec()),
                _ => return Err(bad()),
            },
            Scalar::Bytes => match v {
                J::String(x) => Val::Bytes(unbase64(x).ok_or_else(bad)?),
                _ => return Err(bad()),
            },
            Scalar::Bool => match (v, key) {
                (J::Bool(b), _) => Val::Int(i128::from(*b)),
                (J::String(x), true) if x == "true" || x == "false" => {
                    Val::Int(i128::from(x == "true"))
                }
                _ => return Err(bad()),
            },
            Scalar::Float | Scalar::Double => {
                let x = match v {
                    J::Number(n) => n.as_f64().ok_or_else(bad)?,
                    J::String(x) => match x.as_str() {
                        "NaN" => f64::NAN,
                        "Infinity" => f64::INFINITY,
                        "-Infinity" => f64::NEG_INFINITY,
                        t => t.parse().map_err(|_| bad())?,
                    },
                    _ => return Err(bad()),
                };
                if *s == Scalar::Float {
                    // Out of range: what no float holds (rounds to an infinity).
                    if x.is_finite() && !(x as f32).is_finite() {
                        return Err(format!("{}: float out of range", f.name));
                    }
                    Val::F32((x as f32).to_bits())
                } else {
                    Val::F64(x.to_bits())
                }
            }
            int => {
                let i: i128 = match v {
                    J::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                        (Some(i), _, _) => i128::from(i),
                        (_, Some(u), _) => i128::from(u),
                        (_, _, Some(x)) if x.fract() == 0.0 && x.abs() < 1e19 => x as i128,
                        _ => return Err(bad()),
                    },
                    J::String(x) => x.parse().map_err(|_| bad())?,
                    _ => return Err(bad()),
                };
                let (lo, hi): (i128, i128) = match int {
                    Scalar::Int32 | Scalar::Sint32 | Scalar::Sfixed32 => {
                        (i32::MIN.into(), i32::MAX.into())
                    }
                    Scalar::Uint32 | Scalar::Fixed32 => (0, u32::MAX.into()),
                    Scalar::Uint64 | Scalar::Fixed64 => (0, u64::MAX.into()),
                    _ => (i64::MIN.into(), i64::MAX.into()),
                };
                if i < lo || i > hi {
                    return Err(format!("{}: {i} is out of range", f.name));
                }
                Val::Int(i)
            }
        },
    })
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(b: &[u8]) -> String {
    let mut out = String::new();
    for c in b.chunks(3) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |a, (i, x)| a | (u32::from(*x) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= c.len() {
                out.push(char::from(B64[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard or URL-safe base64, padded or not.
fn unbase64(s: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in s.bytes().filter(|c| *c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    Some(out)
}
