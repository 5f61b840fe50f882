//! The values a round trip writes and reads: one plain tree for both sides, whatever the
//! schema, so that what a writer wrote and what a reader read compare field by field.

use std::collections::BTreeMap;

use crate::schema::model::{FieldType, Scalar};

/// One value of a field.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// Every integer type, enums (their number) and bools (0 or 1).
    Int(i128),
    /// A float, by its bits.
    F32(u32),
    /// A double, by its bits.
    F64(u64),
    /// A string (its bytes, valid UTF-8 or not) or bytes.
    Bytes(Vec<u8>),
    /// A message (or group), with the bytes it was read from when it was read.
    Msg(Msg),
}

/// A message: the values of its known fields by number (a singular field holds one value),
/// and the records a reader kept as unknown fields, as they came (tag included).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Msg {
    pub fields: BTreeMap<u32, Vec<Val>>,
    pub unknown: Vec<(u32, Vec<u8>)>,
    /// The bytes this message was read from (empty when it was built, not read).
    pub raw: Vec<u8>,
}

impl Msg {
    pub fn with(mut self, number: u32, values: Vec<Val>) -> Msg {
        self.fields.insert(number, values);
        self
    }
}

/// The zero value of a scalar or enum type (an enum's is its first value, by number: see
/// `default_of`).
pub fn zero(scalar: Scalar) -> Val {
    match scalar {
        Scalar::Float => Val::F32(0f32.to_bits()),
        Scalar::Double => Val::F64(0f64.to_bits()),
        Scalar::String | Scalar::Bytes => Val::Bytes(Vec::new()),
        _ => Val::Int(0),
    }
}

/// Whether a type is one of the numeric scalars that a repeated field may pack.
pub fn packable(ty: &FieldType) -> bool {
    match ty {
        FieldType::Scalar(s) => !matches!(s, Scalar::String | Scalar::Bytes),
        FieldType::Enum(_) => true,
        FieldType::Message(_) | FieldType::Group(_) => false,
    }
}

/// A short text of a value, for a sample's "what was read".
pub fn show(v: &Val) -> String {
    match v {
        Val::Int(i) => i.to_string(),
        Val::F32(b) => format!("{}", f32::from_bits(*b)),
        Val::F64(b) => format!("{}", f64::from_bits(*b)),
        Val::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => format!("{s:?}"),
            Err(_) => format!("0x{}", hex(b)),
        },
        Val::Msg(m) => show_msg(m),
    }
}

/// `{1: 7, 2: ["a", "b"], unknown: [3]}`.
pub fn show_msg(m: &Msg) -> String {
    let mut parts: Vec<String> = m
        .fields
        .iter()
        .map(|(n, vs)| match vs.as_slice() {
            [one] => format!("{n}: {}", show(one)),
            many => format!(
                "{n}: [{}]",
                many.iter().map(show).collect::<Vec<_>>().join(", ")
            ),
        })
        .collect();
    if !m.unknown.is_empty() {
        let numbers: Vec<String> = m.unknown.iter().map(|(n, _)| n.to_string()).collect();
        parts.push(format!("unknown: [{}]", numbers.join(", ")));
    }
    format!("{{{}}}", parts.join(", "))
}

/// Lowercase hex, no separators.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The zero of its type: what a field with implicit presence does not write.
pub fn is_zero(v: &Val) -> bool {
    match v {
        Val::Int(i) => *i == 0,
        Val::F32(b) => *b == 0,
        Val::F64(b) => *b == 0,
        Val::Bytes(b) => b.is_empty(),
        Val::Msg(_) => false,
    }
}
