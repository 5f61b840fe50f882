//! The wire reader against Google's: each case is decoded by `protoc --decode` and by
//! `wire::decode`, and both readings printed as protoc prints text format must agree
//! (or both parsers must reject the bytes).

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::Arc;

use crate::schema::model::{Cardinality, FieldType};
use crate::schema::{Cache, Origin, Schema, SourceRef, Status};

use super::value::{Msg, Val};
use super::wire;

fn schema(text: &str) -> Arc<Schema> {
    let out = Cache::new().compile(&[SourceRef {
        path: "t.proto",
        blob: "b",
        text: Ok(text),
        origin: Origin::Root,
    }]);
    assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
    out.schema.clone()
}

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// protoc's reading, as its text format, or None when it fails to parse.
fn protoc(text: &str, msg: &str, bytes: &[u8]) -> Option<String> {
    run_protoc(text, msg, bytes).0
}

/// What protoc says on stderr while decoding.
fn protoc_warning(text: &str, msg: &str, bytes: &[u8]) -> String {
    run_protoc(text, msg, bytes).1
}

fn run_protoc(text: &str, msg: &str, bytes: &[u8]) -> (Option<String>, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.proto"), text).unwrap();
    let mut child = Command::new(env!("PROTOLAPSE_VENDORED_PROTOC"))
        .arg(format!("-I{}", dir.path().display()))
        .arg(format!("--decode={msg}"))
        .arg("t.proto")
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned()),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn escape(b: &[u8]) -> String {
    let mut s = String::new();
    for &c in b {
        match c {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\'' => s.push_str("\\'"),
            b'\n' => s.push_str("\\n"),
            0x20..=0x7e => s.push(char::from(c)),
            _ => s.push_str(&format!("\\{c:03o}")),
        }
    }
    s
}

/// Our reading, printed as protoc prints text format (the cases use integers, enums,
/// strings, nested messages and varint or fixed unknown fields).
fn text(m: &Msg, name: &str, schema: &Schema, indent: usize, out: &mut String) {
    let d = &schema.content.messages[name];
    let pad = " ".repeat(indent);
    for (n, vals) in &m.fields {
        let f = &d.fields[n];
        for v in vals {
            match (v, &f.ty) {
                (Val::Msg(inner), FieldType::Message(t) | FieldType::Group(t)) => {
                    out.push_str(&format!("{pad}{} {{\n", f.name));
                    text(inner, t, schema, indent + 2, out);
                    out.push_str(&format!("{pad}}}\n"));
                }
                (Val::Int(i), FieldType::Enum(e)) => {
                    let name = schema.content.enums[e]
                        .values
                        .iter()
                        .find(|x| i128::from(x.number) == *i)
                        .map_or(i.to_string(), |x| x.name.clone());
                    out.push_str(&format!("{pad}{}: {name}\n", f.name));
                }
                (Val::Int(i), FieldType::Scalar(crate::schema::model::Scalar::Bool)) => {
                    out.push_str(&format!("{pad}{}: {}\n", f.name, *i != 0));
                }
                (Val::Int(i), _) => out.push_str(&format!("{pad}{}: {i}\n", f.name)),
                (Val::Bytes(b), _) => {
                    out.push_str(&format!("{pad}{}: \"{}\"\n", f.name, escape(b)))
                }
                (other, _) => out.push_str(&format!("{pad}{}: {other:?}\n", f.name)),
            }
        }
    }
    for (n, raw) in &m.unknown {
        // The record's payload after its tag.
        let tag_len = raw.iter().position(|b| *b < 0x80).unwrap() + 1;
        let p = &raw[tag_len..];
        let wire = raw[0] & 7;
        let v = match wire {
            0 => {
                let mut v = 0u64;
                for (i, b) in p.iter().enumerate() {
                    v |= u64::from(b & 0x7f) << (7 * i);
                }
                v.to_string()
            }
            5 => format!("0x{:08x}", u32::from_le_bytes(p[..4].try_into().unwrap())),
            1 => format!("0x{:016x}", u64::from_le_bytes(p[..8].try_into().unwrap())),
            _ => format!("{p:?}"),
        };
        out.push_str(&format!("{pad}{n}: {v}\n"));
    }
}

fn ours(proto: &str, msg: &str, bytes: &[u8]) -> Option<String> {
    let s = schema(proto);
    let m = wire::decode(bytes, msg, &super::types::Types::of(&s)).ok()?;
    let mut out = String::new();
    text(&m, msg, &s, 0, &mut out);
    Some(out)
}

/// Both readers on one case; returns the reading (None: rejected).
fn agree(proto: &str, msg: &str, bytes: &str) -> Option<String> {
    let bytes = unhex(bytes);
    let google = protoc(proto, msg, &bytes);
    let mine = ours(proto, msg, &bytes);
    assert_eq!(mine, google, "{proto}\nbytes {bytes:02x?}");
    mine
}

const P3: &str = "syntax = \"proto3\";\npackage t;\n";
const P2: &str = "syntax = \"proto2\";\npackage t;\n";

#[test]
fn unknown_numbers_and_wrong_wire_types_are_kept_as_unknown_fields() {
    let p = format!("{P3}message M {{ int32 a = 1; }}");
    assert_eq!(
        agree(&p, "t.M", "08 07 10 05").as_deref(),
        Some("a: 7\n2: 5\n")
    );
    // Field 1 as fixed32: an unknown field, not an error.
    assert_eq!(
        agree(&p, "t.M", "0d 01 00 00 00").as_deref(),
        Some("1: 0x00000001\n")
    );
    assert_eq!(
        agree(&p, "t.M", "09 01 00 00 00 00 00 00 00").as_deref(),
        Some("1: 0x0000000000000001\n")
    );
}

#[test]
fn closed_enums_keep_undeclared_values_as_unknown_fields_open_ones_keep_them() {
    let closed = format!(
        "{P2}enum E {{ A = 0; B = 1; }}\nmessage M {{ optional E e = 1; repeated E r = 2 [packed = true]; }}"
    );
    assert_eq!(agree(&closed, "t.M", "08 05").as_deref(), Some("1: 5\n"));
    // Packed: the declared value is read, the other becomes an unknown varint record.
    assert_eq!(
        agree(&closed, "t.M", "12 02 01 05").as_deref(),
        Some("r: B\n2: 5\n")
    );
    let open = format!("{P3}enum E {{ A = 0; B = 1; }}\nmessage M {{ E e = 1; }}");
    assert_eq!(agree(&open, "t.M", "08 05").as_deref(), Some("e: 5\n"));
    let editions = "edition = \"2023\";\npackage t;\nenum E { option features.enum_type = CLOSED; A = 0; B = 1; }\nmessage M { E e = 1; }";
    assert_eq!(agree(editions, "t.M", "08 05").as_deref(), Some("1: 5\n"));
    assert_eq!(agree(editions, "t.M", "08 01").as_deref(), Some("e: B\n"));
}

#[test]
fn invalid_utf8_fails_a_verifying_string_field_only() {
    let p3 = format!("{P3}message M {{ string s = 1; bytes b = 2; }}");
    assert_eq!(agree(&p3, "t.M", "0a 02 ff fe"), None);
    assert_eq!(
        agree(&p3, "t.M", "12 02 ff fe").as_deref(),
        Some("b: \"\\377\\376\"\n")
    );
    let p2 = format!("{P2}message M {{ optional string s = 1; }}");
    assert_eq!(
        agree(&p2, "t.M", "0a 02 ff fe").as_deref(),
        Some("s: \"\\377\\376\"\n")
    );
}

#[test]
fn scalars_read_as_google_casts_them() {
    let p = format!(
        "{P3}message M {{ int32 a = 1; sint32 z = 2; bool b = 3; uint32 u = 4; int64 l = 5; }}"
    );
    // Last one wins.
    assert_eq!(agree(&p, "t.M", "08 01 08 02").as_deref(), Some("a: 2\n"));
    // 2^32 + 5 as an int32: truncated; -1 written as int64 read as uint32.
    assert_eq!(
        agree(&p, "t.M", "08 85 80 80 80 10").as_deref(),
        Some("a: 5\n")
    );
    assert_eq!(
        agree(&p, "t.M", "20 ff ff ff ff ff ff ff ff ff 01").as_deref(),
        Some("u: 4294967295\n")
    );
    // Zigzag, bool from any varint.
    assert_eq!(agree(&p, "t.M", "10 03").as_deref(), Some("z: -2\n"));
    assert_eq!(agree(&p, "t.M", "18 02").as_deref(), Some("b: true\n"));
    assert_eq!(
        agree(&p, "t.M", "28 ff ff ff ff ff ff ff ff ff 01").as_deref(),
        Some("l: -1\n")
    );
}

#[test]
fn repeated_fields_read_packed_and_unpacked() {
    let p = format!("{P3}message M {{ repeated int32 r = 1; }}");
    assert_eq!(
        agree(&p, "t.M", "08 01 0a 02 02 03").as_deref(),
        Some("r: 1\nr: 2\nr: 3\n")
    );
    let unpacked = format!("{P2}message M {{ repeated int32 r = 1; }}");
    assert_eq!(
        agree(&unpacked, "t.M", "0a 02 02 03 08 04").as_deref(),
        Some("r: 2\nr: 3\nr: 4\n")
    );
}

#[test]
fn messages_merge_oneofs_clear_and_maps_keep_the_last_entry() {
    let p = format!(
        "{P3}message N {{ int32 a = 1; int32 b = 2; }}\nmessage M {{ N n = 1; oneof o {{ int32 x = 2; int32 y = 3; }} map<string, int32> m = 4; }}"
    );
    assert_eq!(
        agree(&p, "t.M", "0a 02 08 01 0a 02 10 02").as_deref(),
        Some("n {\n  a: 1\n  b: 2\n}\n")
    );
    assert_eq!(agree(&p, "t.M", "10 01 18 02").as_deref(), Some("y: 2\n"));
    // A key twice: protoc's text format prints the entries as they came, the last one
    // last; the map holds the last (protobuf.dev, "Maps": "the last key seen is used").
    let twice = unhex("22 05 0a 01 6b 10 01 22 05 0a 01 6b 10 02");
    let google = protoc(&p, "t.M", &twice).unwrap();
    assert!(
        google.ends_with("m {\n  key: \"k\"\n  value: 2\n}\n"),
        "{google}"
    );
    assert_eq!(
        ours(&p, "t.M", &twice).as_deref(),
        Some("m {\n  key: \"k\"\n  value: 2\n}\n")
    );
}

#[test]
fn a_missing_required_field_fails_the_parse() {
    // protoc --decode parses partially and warns; the runtimes' parse (C++ ParseFromString,
    // Java parseFrom) fails on what protoc warns about.
    let p = format!("{P2}message M {{ required int32 a = 1; optional int32 b = 2; }}");
    let bytes = unhex("10 01");
    assert_eq!(protoc(&p, "t.M", &bytes).as_deref(), Some("b: 1\n"));
    assert!(protoc_warning(&p, "t.M", &bytes).contains("missing required fields"));
    assert_eq!(ours(&p, "t.M", &bytes), None);
    assert_eq!(agree(&p, "t.M", "08 01").as_deref(), Some("a: 1\n"));
}

#[test]
fn malformed_bytes_fail_both() {
    let p = format!("{P3}message M {{ int32 a = 1; }}");
    for bad in ["08", "0a 05 01", "00 01", "0f 01"] {
        assert_eq!(agree(&p, "t.M", bad), None, "{bad}");
    }
}

#[test]
fn map_field_is_repeated() {
    // Keeps the model assumption the encoder relies on: a map is a repeated entry message.
    let s = schema(&format!("{P3}message M {{ map<string, int32> m = 1; }}"));
    let f = &s.content.messages["t.M"].fields[&1];
    assert_eq!(f.cardinality, Cardinality::Repeated);
    assert!(f.map.is_some());
}
