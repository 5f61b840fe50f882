//! How a reader of one field type fares with a value written with another: protobuf's
//! "Updating a message type" rules on the wire, ProtoJSON's on JSON. Each function takes
//! (writer, reader); the verdict of a change in both directions is two calls.

use crate::schema::model::reads::Types;
use crate::schema::model::{Enum, FieldType, Scalar};

use super::verdict::Severity::{self, *};

/// Integer value range as (signed, bits) for range checks.
fn range(s: Scalar) -> Option<(bool, u32)> {
    use Scalar::*;
    Some(match s {
        Int32 | Sint32 | Sfixed32 => (true, 32),
        Int64 | Sint64 | Sfixed64 => (true, 64),
        Uint32 | Fixed32 => (false, 32),
        Uint64 | Fixed64 => (false, 64),
        Bool => (false, 1),
        _ => return None,
    })
}

/// Every value of `w`'s range fits in `r`'s.
fn fits(w: (bool, u32), r: (bool, u32)) -> bool {
    match (w.0, r.0) {
        (false, false) | (true, true) => w.1 <= r.1,
        (false, true) => w.1 < r.1,
        (true, false) => false,
    }
}

/// Wire encoding families: values in one family share an encoding of the number.
#[derive(PartialEq, Eq, Clone, Copy)]
enum Family {
    Varint,
    Zigzag,
    Fixed32,
    Fixed64,
    Float,
    Double,
    Len,
}

fn family(s: Scalar) -> Family {
    use Scalar::*;
    match s {
        Int32 | Int64 | Uint32 | Uint64 | Bool => Family::Varint,
        Sint32 | Sint64 => Family::Zigzag,
        Fixed32 | Sfixed32 => Family::Fixed32,
        Fixed64 | Sfixed64 => Family::Fixed64,
        Float => Family::Float,
        Double => Family::Double,
        String | Bytes => Family::Len,
    }
}

/// Wire: a value written as `w` read as `r` (both singular; message names already known to
/// differ or not).
/// `reader_verifies_utf8`: the reader's field rejects text that is not UTF-8 (proto3's and
/// editions' default `utf8_validation = VERIFY`; proto2 and `NONE` keep the bytes).
pub fn wire(
    w: &FieldType,
    r: &FieldType,
    reader: Types<'_>,
    reader_verifies_utf8: bool,
) -> Severity {
    use FieldType as T;
    match (w, r) {
        (T::Scalar(a), T::Scalar(b)) if a == b => Safe,
        (T::Scalar(Scalar::String), T::Scalar(Scalar::Bytes)) => Safe,
        // A verifying reader rejects a message whose string is not UTF-8; others keep the bytes.
        (T::Scalar(Scalar::Bytes), T::Scalar(Scalar::String)) => {
            if reader_verifies_utf8 {
                Breaking
            } else {
                Lossy
            }
        }
        (T::Scalar(a), T::Scalar(b)) => {
            let (fa, fb) = (family(*a), family(*b));
            if fa != fb {
                return Breaking;
            }
            match (range(*a), range(*b)) {
                (Some(ra), Some(rb)) if fits(ra, rb) => Safe,
                (Some(_), Some(_)) => Lossy,
                _ => Breaking,
            }
        }
        // Enums are int32 varints.
        (T::Enum(_), T::Scalar(b)) => match range(*b) {
            Some(rb) if family(*b) == Family::Varint && fits((true, 32), rb) => Safe,
            Some(_) if family(*b) == Family::Varint => Lossy,
            _ => Breaking,
        },
        (T::Scalar(a), T::Enum(e)) => {
            let closed = reader.enumeration(e).is_some_and(|e| e.closed);
            match range(*a) {
                Some(ra) if family(*a) == Family::Varint => {
                    // Unknown numbers: an open enum keeps them, a closed one drops them.
                    if closed || !fits(ra, (true, 32)) {
                        Lossy
                    } else {
                        Hazard
                    }
                }
                _ => Breaking,
            }
        }
        (T::Enum(_), T::Enum(_)) => Safe,
        // A message is its encoding in a length-delimited field.
        (T::Message(_), T::Scalar(Scalar::Bytes)) => Safe,
        (T::Scalar(Scalar::Bytes), T::Message(_)) => Breaking,
        (T::Message(_), T::Message(_)) | (T::Group(_), T::Group(_)) => Safe,
        _ => Breaking,
    }
}

/// ProtoJSON: a value written as `w` read as `r`. 64-bit integers are strings, 32-bit ones
/// numbers, and parsers accept both; enums are names (numbers accepted); bytes are base64.
pub fn json(w: &FieldType, r: &FieldType) -> Severity {
    use FieldType as T;
    match (w, r) {
        (T::Scalar(a), T::Scalar(b)) if a == b => Safe,
        (T::Scalar(Scalar::Bool), _) | (_, T::Scalar(Scalar::Bool)) => Breaking,
        (T::Scalar(Scalar::Float), T::Scalar(Scalar::Double)) => Safe,
        (T::Scalar(Scalar::Double), T::Scalar(Scalar::Float)) => Lossy,
        (T::Scalar(a), T::Scalar(b)) => match (range(*a), range(*b)) {
            (Some(ra), Some(rb)) if fits(ra, rb) => Safe,
            // An out-of-range number is a parse error.
            (Some(_), Some(_)) => Breaking,
            _ => Breaking,
        },
        (T::Scalar(a), T::Enum(_)) if range(*a).is_some() => Hazard,
        (T::Enum(_), T::Enum(_)) => Safe,
        (T::Message(_), T::Message(_)) | (T::Group(_), T::Group(_)) => Safe,
        // A group (editions' `message_encoding = DELIMITED`) is the same JSON object as a
        // length-prefixed field of its message type: only the binary encoding differs.
        (T::Message(a), T::Group(b)) | (T::Group(a), T::Message(b)) if a == b => Safe,
        _ => Breaking,
    }
}

/// ProtoJSON between two enum types: values are written by name, and a reader rejects a
/// name its enum does not have (or, told to ignore unknown values, drops the field). The
/// writer's value names the reader's enum lacks, in declaration order: JSON is safe only when
/// there are none — whatever the numbers, which JSON does not carry.
pub fn json_enum_names_missing<'a>(w: &'a Enum, r: &Enum) -> Vec<&'a str> {
    let known: std::collections::HashSet<&str> = r.values.iter().map(|x| x.name.as_str()).collect();
    let mut seen = std::collections::HashSet::new();
    let mut missing: Vec<&str> = Vec::new();
    for v in &w.values {
        if !known.contains(v.name.as_str()) && seen.insert(v.name.as_str()) {
            missing.push(&v.name);
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Content;
    use FieldType::Scalar as S;
    use Scalar::*;

    fn w(a: Scalar, b: Scalar) -> Severity {
        wire(&S(a), &S(b), Types::of(&Content::default()), true)
    }

    #[test]
    fn wire_groups_follow_protobufs_rules() {
        assert_eq!(w(Int32, Int64), Safe);
        assert_eq!(w(Int64, Int32), Lossy);
        assert_eq!(w(Uint32, Int64), Safe);
        assert_eq!(
            w(Int32, Uint64),
            Lossy,
            "negative int32 reads as a huge uint64"
        );
        assert_eq!(w(Int32, Sint32), Breaking, "zigzag is another encoding");
        assert_eq!(w(Sint32, Sint64), Safe);
        assert_eq!(w(Fixed32, Sfixed32), Lossy);
        assert_eq!(w(Double, Float), Breaking);
        assert_eq!(w(Float, Fixed32), Breaking);
        assert_eq!(w(String, Bytes), Safe);
        assert_eq!(w(Bytes, String), Breaking);
        assert_eq!(w(Bool, Int32), Safe);
        assert_eq!(w(Int32, Bool), Lossy);
    }

    #[test]
    fn json_follows_protojson() {
        assert_eq!(json(&S(Int32), &S(Int64)), Safe);
        assert_eq!(json(&S(Int64), &S(Int32)), Breaking);
        assert_eq!(json(&S(Int32), &S(Sint32)), Safe, "JSON has no zigzag");
        assert_eq!(json(&S(String), &S(Bytes)), Breaking, "bytes are base64");
        assert_eq!(json(&S(Double), &S(Float)), Lossy);
    }

    #[test]
    fn a_delimited_message_is_another_encoding_of_the_same_json() {
        let (m, g) = (
            FieldType::Message("fx.M".into()),
            FieldType::Group("fx.M".into()),
        );
        assert_eq!(wire(&m, &g, Types::of(&Content::default()), true), Breaking);
        assert_eq!(json(&m, &g), Safe);
        assert_eq!(json(&g, &m), Safe);
        assert_eq!(json(&m, &FieldType::Group("fx.Other".into())), Breaking);
    }

    #[test]
    fn enum_json_needs_every_written_name_in_the_readers_enum() {
        let e = |names: &[&str]| Enum {
            values: names
                .iter()
                .enumerate()
                .map(|(i, n)| crate::schema::model::EnumValue {
                    name: (*n).into(),
                    number: i32::try_from(i).unwrap_or(0),
                    deprecated: false,
                    options: Default::default(),
                })
                .collect(),
            ..enum_template()
        };
        let (old, new) = (e(&["A", "B", "C"]), e(&["C", "B", "A", "D"]));
        assert!(json_enum_names_missing(&old, &new).is_empty(), "renumbered");
        assert_eq!(json_enum_names_missing(&new, &old), ["D"]);
        let renamed = e(&["X_A", "X_B", "X_C"]);
        assert_eq!(json_enum_names_missing(&old, &renamed), ["A", "B", "C"]);
    }

    fn enum_template() -> Enum {
        Enum {
            full_name: "fx.E".into(),
            name: "E".into(),
            file: "m.proto".into(),
            parent: None,
            values: vec![],
            closed: false,
            json_legacy: false,
            exported: true,
            reserved_ranges: vec![],
            reserved_names: vec![],
            options: Default::default(),
        }
    }

    #[test]
    fn bytes_read_as_string_depend_on_the_readers_utf8_check() {
        let c = Content::default();
        let c = Types::of(&c);
        assert_eq!(wire(&S(Bytes), &S(String), c, true), Breaking);
        assert_eq!(wire(&S(Bytes), &S(String), c, false), Lossy);
    }
}
