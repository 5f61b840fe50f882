//! A proto2 field's declared default (`[default = ...]`), as the reader sees an unset field.

use super::types::Types;
use crate::schema::model::{Field, FieldType, Scalar};

use super::value::Val;

/// The declared default of `f`, as a value; `None` when it declares none (or it cannot be
/// read: then the type's zero stands).
pub fn declared(f: &Field, schema: &Types<'_>) -> Option<Val> {
    let text = f.default.as_deref()?;
    Some(match &f.ty {
        FieldType::Scalar(Scalar::Float) => Val::F32((float(text)? as f32).to_bits()),
        FieldType::Scalar(Scalar::Double) => Val::F64(float(text)?.to_bits()),
        FieldType::Scalar(Scalar::Bool) => Val::Int(i128::from(text == "true")),
        FieldType::Scalar(Scalar::String) => Val::Bytes(text.as_bytes().to_vec()),
        FieldType::Scalar(Scalar::Bytes) => Val::Bytes(unescape(text)),
        FieldType::Scalar(_) => Val::Int(text.parse().ok()?),
        FieldType::Enum(e) => Val::Int(i128::from(
            schema
                .enum_(e)?
                .values
                .iter()
                .find(|v| v.name == text)?
                .number,
        )),
        FieldType::Message(_) | FieldType::Group(_) => return None,
    })
}

fn float(text: &str) -> Option<f64> {
    match text {
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        t => t.parse().ok(),
    }
}

/// A bytes default as descriptors write it: C escapes (`\001`, `\n`, `\\`).
fn unescape(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let c = b[i + 1];
            if c.is_ascii_digit() {
                let digits: Vec<u8> = b[i + 1..]
                    .iter()
                    .take(3)
                    .take_while(|d| (b'0'..=b'7').contains(d))
                    .copied()
                    .collect();
                let v = digits.iter().fold(0u32, |a, d| a * 8 + u32::from(d - b'0'));
                out.push(v as u8);
                i += 1 + digits.len().max(1);
                continue;
            }
            out.push(match c {
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                other => other,
            });
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}
