//! The binary wire format, written and read as Google's runtimes (C++, Java) do, from our
//! schema model: the model carries what those runtimes decide by (field types, packed,
//! closed enums, UTF-8 validation, presence), editions files included.
//!
//! Reading, as Google's parsers do: a field number the reader does not know is kept as an
//! unknown field; so is a known field arriving with another wire type, and a closed enum's
//! value the enum does not declare (packed ones too, one record each); a string field
//! that validates UTF-8 fails the parse on invalid UTF-8; a singular field keeps the last
//! value, a singular message merges every occurrence; a repeated numeric field reads both
//! packed and unpacked records; integers are truncated as a C++ cast truncates; a map keeps
//! the last entry of a key; a member of a oneof clears the others; a missing required field
//! fails the parse. `tests` checks each of these against `protoc --decode`.

use super::types::Types;
use crate::schema::model::{Cardinality, Field, FieldType, Message, Presence, Scalar};

use super::value::{Msg, Val, is_zero, packable, show, zero};

/// Google's default recursion limit.
const MAX_DEPTH: usize = 100;

/// The runtime whose reading this module follows, as cells name it.
pub const RUNTIME: &str = "protobuf (Google's wire semantics)";

// ---- writing ----

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn tag(out: &mut Vec<u8>, number: u32, wire: u8) {
    varint(out, (u64::from(number) << 3) | u64::from(wire));
}

fn natural_wire(ty: &FieldType) -> u8 {
    match ty {
        FieldType::Scalar(s) => match s {
            Scalar::Double | Scalar::Fixed64 | Scalar::Sfixed64 => 1,
            Scalar::Float | Scalar::Fixed32 | Scalar::Sfixed32 => 5,
            Scalar::String | Scalar::Bytes => 2,
            _ => 0,
        },
        FieldType::Enum(_) => 0,
        FieldType::Message(_) => 2,
        FieldType::Group(_) => 3,
    }
}

fn int_of(v: &Val) -> i128 {
    match v {
        Val::Int(i) => *i,
        Val::F32(b) => i128::from(*b),
        Val::F64(b) => i128::from(*b),
        Val::Bytes(b) => b.len() as i128,
        Val::Msg(_) => 0,
    }
}

/// The payload of one non-length-delimited value (varint, fixed32 or fixed64), or the
/// content of a length-delimited one.
fn payload(out: &mut Vec<u8>, ty: &FieldType, v: &Val, schema: &Types<'_>) {
    match ty {
        FieldType::Scalar(s) => {
            let i = int_of(v);
            match s {
                Scalar::Sint32 => {
                    let n = i as i32;
                    varint(out, u64::from(((n << 1) ^ (n >> 31)) as u32));
                }
                Scalar::Sint64 => {
                    let n = i as i64;
                    varint(out, ((n << 1) ^ (n >> 63)) as u64);
                }
                Scalar::Uint32 => varint(out, u64::from(i as u32)),
                Scalar::Int32 | Scalar::Int64 | Scalar::Uint64 | Scalar::Bool => {
                    varint(out, i as u64)
                }
                Scalar::Fixed32 | Scalar::Sfixed32 => {
                    out.extend_from_slice(&(i as u32).to_le_bytes())
                }
                Scalar::Fixed64 | Scalar::Sfixed64 => {
                    out.extend_from_slice(&(i as u64).to_le_bytes())
                }
                Scalar::Float => {
                    let bits = match v {
                        Val::F32(b) => *b,
                        other => (int_of(other) as f32).to_bits(),
                    };
                    out.extend_from_slice(&bits.to_le_bytes());
                }
                Scalar::Double => {
                    let bits = match v {
                        Val::F64(b) => *b,
                        other => (int_of(other) as f64).to_bits(),
                    };
                    out.extend_from_slice(&bits.to_le_bytes());
                }
                Scalar::String | Scalar::Bytes => {
                    if let Val::Bytes(b) = v {
                        out.extend_from_slice(b);
                    }
                }
            }
        }
        FieldType::Enum(_) => varint(out, int_of(v) as i32 as i64 as u64),
        FieldType::Message(name) | FieldType::Group(name) => {
            if let Val::Msg(m) = v {
                out.extend_from_slice(&encode(m, name, schema));
            }
        }
    }
}

fn record(out: &mut Vec<u8>, number: u32, ty: &FieldType, v: &Val, schema: &Types<'_>) {
    let wire = natural_wire(ty);
    tag(out, number, wire);
    match wire {
        2 => {
            let mut body = Vec::new();
            payload(&mut body, ty, v, schema);
            varint(out, body.len() as u64);
            out.extend_from_slice(&body);
        }
        3 => {
            payload(out, ty, v, schema);
            tag(out, number, 4);
        }
        _ => payload(out, ty, v, schema),
    }
}

/// `msg` on the wire, as message `name` of `schema` writes it: known fields in number
/// order (a packed repeated field as one record), then the unknown fields as they came.
pub fn encode(msg: &Msg, name: &str, schema: &Types<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    let Some(m) = schema.message(name) else {
        return out;
    };
    for (n, values) in &msg.fields {
        let Some(f) = m.fields.get(n) else { continue };
        // A runtime does not write a singular field without presence that holds its zero.
        let implicit = f.presence == Presence::Implicit
            && f.cardinality != Cardinality::Repeated
            && f.oneof.is_none();
        if implicit && values.iter().all(is_zero) {
            continue;
        }
        if f.cardinality == Cardinality::Repeated && f.packed && packable(&f.ty) {
            if values.is_empty() {
                continue;
            }
            let mut body = Vec::new();
            for v in values {
                payload(&mut body, &f.ty, v, schema);
            }
            tag(&mut out, *n, 2);
            varint(&mut out, body.len() as u64);
            out.extend_from_slice(&body);
        } else {
            for v in values {
                record(&mut out, *n, &f.ty, v, schema);
            }
        }
    }
    for (_, raw) in &msg.unknown {
        out.extend_from_slice(raw);
    }
    out
}

// ---- reading ----

/// Why a parser rejects the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected(pub String);

struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn varint(&mut self) -> Result<u64, Rejected> {
        let mut v: u64 = 0;
        for i in 0..10 {
            let b = *self
                .bytes
                .get(self.at)
                .ok_or_else(|| Rejected("truncated varint".into()))?;
            self.at += 1;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(Rejected("varint longer than 10 bytes".into()))
    }

    fn take(&mut self, n: usize) -> Result<&'b [u8], Rejected> {
        let end = self
            .at
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or_else(|| Rejected("truncated field".into()))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    /// Skips a group's content up to its end tag; returns the content.
    fn group(&mut self, number: u32, depth: usize) -> Result<&'b [u8], Rejected> {
        if depth > MAX_DEPTH {
            return Err(Rejected("nested too deep".into()));
        }
        let start = self.at;
        loop {
            let before = self.at;
            let t = self.varint()?;
            let (n, w) = split_tag(t)?;
            if w == 4 {
                if n == number {
                    return Ok(&self.bytes[start..before]);
                }
                return Err(Rejected("mismatched end-group".into()));
            }
            self.value(n, w, depth + 1)?;
        }
    }

    /// Reads one value of wire type `w`; returns its payload (a varint as its bytes).
    fn value(&mut self, n: u32, w: u8, depth: usize) -> Result<&'b [u8], Rejected> {
        let start = self.at;
        match w {
            0 => {
                self.varint()?;
                Ok(&self.bytes[start..self.at])
            }
            1 => self.take(8),
            5 => self.take(4),
            2 => {
                let len = usize::try_from(self.varint()?)
                    .map_err(|_| Rejected("length too large".into()))?;
                self.take(len)
            }
            3 => self.group(n, depth),
            _ => Err(Rejected(format!("invalid wire type {w}"))),
        }
    }
}

fn split_tag(t: u64) -> Result<(u32, u8), Rejected> {
    let n = u32::try_from(t >> 3).map_err(|_| Rejected("field number too large".into()))?;
    if n == 0 || n > 536_870_911 {
        return Err(Rejected("invalid field number 0".into()));
    }
    Ok((n, (t & 7) as u8))
}

fn le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |acc, b| (acc << 8) | u64::from(*b))
}

fn read_varint(bytes: &[u8]) -> u64 {
    let mut r = Reader { bytes, at: 0 };
    r.varint().unwrap_or(0)
}

/// One scalar or enum value from its payload, truncated to the type as C++ casts.
fn scalar(s: Scalar, p: &[u8]) -> Val {
    let v = if matches!(natural_wire(&FieldType::Scalar(s)), 0) {
        read_varint(p)
    } else {
        le(p)
    };
    match s {
        Scalar::Int32 => Val::Int(i128::from(v as i32)),
        Scalar::Int64 => Val::Int(i128::from(v as i64)),
        Scalar::Uint32 => Val::Int(i128::from(v as u32)),
        Scalar::Uint64 => Val::Int(i128::from(v)),
        Scalar::Sint32 => {
            let u = v as u32;
            Val::Int(i128::from(((u >> 1) as i32) ^ -((u & 1) as i32)))
        }
        Scalar::Sint64 => Val::Int(i128::from(((v >> 1) as i64) ^ -((v & 1) as i64))),
        Scalar::Bool => Val::Int(i128::from(v != 0)),
        Scalar::Fixed32 => Val::Int(i128::from(v as u32)),
        Scalar::Sfixed32 => Val::Int(i128::from(v as u32 as i32)),
        Scalar::Fixed64 => Val::Int(i128::from(v)),
        Scalar::Sfixed64 => Val::Int(i128::from(v as i64)),
        Scalar::Float => Val::F32(v as u32),
        Scalar::Double => Val::F64(v),
        Scalar::String | Scalar::Bytes => Val::Bytes(p.to_vec()),
    }
}

/// Whether a closed enum of `schema` declares `number` (an open or unknown enum: always).
fn enum_knows(schema: &Types<'_>, name: &str, number: i32) -> bool {
    match schema.enum_(name) {
        Some(e) if e.closed => e.values.iter().any(|v| v.number == number),
        _ => true,
    }
}

/// Reads `bytes` as message `name` of `schema`, as Google's runtimes do.
pub fn decode(bytes: &[u8], name: &str, schema: &Types<'_>) -> Result<Msg, Rejected> {
    decode_at(bytes, name, schema, 0)
}

fn decode_at(bytes: &[u8], name: &str, schema: &Types<'_>, depth: usize) -> Result<Msg, Rejected> {
    if depth > MAX_DEPTH {
        return Err(Rejected("nested too deep".into()));
    }
    let Some(m) = schema.message(name) else {
        return Err(Rejected(format!(
            "no message {name} in the reader's schema"
        )));
    };
    let mut out = Msg {
        raw: bytes.to_vec(),
        ..Msg::default()
    };
    let mut r = Reader { bytes, at: 0 };
    while r.at < bytes.len() {
        let start = r.at;
        let (n, w) = split_tag(r.varint()?)?;
        if w == 4 {
            return Err(Rejected("unexpected end-group".into()));
        }
        let p = r.value(n, w, depth)?;
        let rec = &bytes[start..r.at];
        match m.fields.get(&n) {
            Some(f) => read_known(&mut out, m, f, w, p, rec, schema, depth)?,
            None => out.unknown.push((n, rec.to_vec())),
        }
    }
    finish(&mut out, m, schema)?;
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn read_known(
    out: &mut Msg,
    m: &Message,
    f: &Field,
    w: u8,
    p: &[u8],
    rec: &[u8],
    schema: &Types<'_>,
    depth: usize,
) -> Result<(), Rejected> {
    let natural = natural_wire(&f.ty);
    let repeated = f.cardinality == Cardinality::Repeated;
    if w == 2 && natural != 2 && repeated && packable(&f.ty) {
        // Packed: every value, or the closed enum's unknown ones as records of their own.
        let mut r = Reader { bytes: p, at: 0 };
        while r.at < p.len() {
            let one = r.value(f.number, natural, depth)?;
            match one_value(f, one, schema)? {
                Some(v) => out.fields.entry(f.number).or_default().push(v),
                None => {
                    let mut raw = Vec::new();
                    tag(&mut raw, f.number, 0);
                    raw.extend_from_slice(one);
                    out.unknown.push((f.number, raw));
                }
            }
        }
        return Ok(());
    }
    if w != natural {
        out.unknown.push((f.number, rec.to_vec()));
        return Ok(());
    }
    let v = match &f.ty {
        FieldType::Message(t) | FieldType::Group(t) => {
            Val::Msg(decode_at(p, t, schema, depth + 1)?)
        }
        _ => match one_value(f, p, schema)? {
            Some(v) => v,
            None => {
                out.unknown.push((f.number, rec.to_vec()));
                return Ok(());
            }
        },
    };
    let oneof = f
        .oneof
        .as_ref()
        .and_then(|o| m.oneofs.iter().find(|x| &x.name == o));
    for other in oneof.iter().flat_map(|o| &o.fields) {
        if *other != f.number {
            out.fields.remove(other);
        }
    }
    let slot = out.fields.entry(f.number).or_default();
    if repeated {
        slot.push(v);
    } else if let (Some(Val::Msg(old)), Val::Msg(new)) = (slot.last_mut(), &v) {
        merge(old, new);
    } else {
        *slot = vec![v];
    }
    Ok(())
}

/// A scalar or enum value; `None` for a closed enum's undeclared value (an unknown field).
fn one_value(f: &Field, p: &[u8], schema: &Types<'_>) -> Result<Option<Val>, Rejected> {
    Ok(match &f.ty {
        FieldType::Scalar(Scalar::String) => {
            if f.utf8_verified && std::str::from_utf8(p).is_err() {
                return Err(Rejected(format!(
                    "string field {} contains invalid UTF-8",
                    f.name
                )));
            }
            Some(Val::Bytes(p.to_vec()))
        }
        FieldType::Scalar(s) => Some(scalar(*s, p)),
        FieldType::Enum(e) => {
            let n = read_varint(p) as i32;
            enum_knows(schema, e, n).then_some(Val::Int(i128::from(n)))
        }
        FieldType::Message(_) | FieldType::Group(_) => None,
    })
}

/// Merges a later occurrence of a singular message into the earlier one, as parsers do.
fn merge(old: &mut Msg, new: &Msg) {
    for (n, vs) in &new.fields {
        let slot = old.fields.entry(*n).or_default();
        let single = slot.len() <= 1 && vs.len() == 1;
        match (slot.last_mut(), vs.as_slice()) {
            (Some(Val::Msg(a)), [Val::Msg(b)]) if single => merge(a, b),
            _ if single => *slot = vs.clone(),
            _ => slot.extend(vs.iter().cloned()),
        }
    }
    old.unknown.extend(new.unknown.iter().cloned());
    old.raw.extend_from_slice(&new.raw);
}

/// After a message is read: maps keep the last entry of each key (entries sorted by key,
/// missing keys and values filled with defaults); a missing required field fails the parse.
fn finish(out: &mut Msg, m: &Message, schema: &Types<'_>) -> Result<(), Rejected> {
    for f in m.fields.values() {
        if f.cardinality == Cardinality::Required && !out.fields.contains_key(&f.number) {
            return Err(Rejected(format!("missing required field {}", f.name)));
        }
        let (Some((k, v)), Some(entries)) = (&f.map, out.fields.get_mut(&f.number)) else {
            continue;
        };
        let mut by_key: std::collections::BTreeMap<String, Val> = Default::default();
        for e in entries.drain(..) {
            let Val::Msg(mut e) = e else { continue };
            let key = e
                .fields
                .get(&1)
                .and_then(|x| x.last().cloned())
                .unwrap_or_else(|| default_of(k, schema));
            let value = e
                .fields
                .get(&2)
                .and_then(|x| x.last().cloned())
                .unwrap_or_else(|| default_of(v, schema));
            e.fields.insert(1, vec![key.clone()]);
            e.fields.insert(2, vec![value]);
            e.raw.clear();
            by_key.insert(show(&key), Val::Msg(e));
        }
        entries.extend(by_key.into_values());
    }
    Ok(())
}

/// What a reader sees for an unset singular field of this type (messages: an empty one).
pub fn default_of(ty: &FieldType, schema: &Types<'_>) -> Val {
    match ty {
        FieldType::Scalar(s) => zero(*s),
        FieldType::Enum(e) => Val::Int(
            schema
                .enum_(e)
                .and_then(|e| e.values.first())
                .map_or(0, |v| i128::from(v.number)),
        ),
        FieldType::Message(_) | FieldType::Group(_) => Val::Msg(Msg::default()),
    }
}
