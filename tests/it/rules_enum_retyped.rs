//! A field moved from one enum type to another: on the wire the number travels unchanged,
//! and what the reader does with a number its enum lacks decides the cell — an open enum
//! keeps it (hazard), a closed one (proto2, editions' `enum_type = CLOSED`) reads the field
//! as its default and keeps the number among the unknown fields (lossy). Found by the round
//! trips of `diff --prove` on protobuf's own FeatureSet in 25.0, once called wire-safe.

use crate::common::{Repo, run};
use serde_json::Value;

/// The wire cells (backward, forward) of the FIELD_TYPE_CHANGED on `m.M.f`.
fn wire_cells(syntax: &str, old_enum: &str, new_enum: &str) -> (String, String, String) {
    let label = if syntax == "proto2" { "optional " } else { "" };
    let file = |e: &str, ty: &str| {
        format!("syntax = \"{syntax}\";\npackage m;\n{e}\nmessage M {{ {label}{ty} f = 1; }}\n")
    };
    let mut r = Repo::new();
    r.write("m.proto", &file(old_enum, "A"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("m.proto", &file(new_enum, "B"));
    r.commit("two");
    r.tag("v2.0.0");
    let (code, out, err) = run(&["diff", "v1.0.0", "v2.0.0", "--format", "json"], r.path());
    assert_eq!(code, 0, "{err}");
    let d: Value = serde_json::from_str(&out).unwrap();
    let c = d["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["rule"] == "FIELD_TYPE_CHANGED" && c["element"] == "m.M.f")
        .unwrap_or_else(|| panic!("no FIELD_TYPE_CHANGED on m.M.f: {out}"))
        .clone();
    let cell = |d: &str| c["verdict"]["wire"][d].as_str().unwrap_or("").to_string();
    (
        cell("backward"),
        cell("forward"),
        c["message"].as_str().unwrap_or("").to_string(),
    )
}

const A: &str = "enum A { A0 = 0; A1 = 1; A3 = 3; }";
const B: &str = "enum B { B0 = 0; B1 = 1; }";

#[test]
fn a_number_the_closed_readers_enum_lacks_is_lossy() {
    let (backward, forward, message) = wire_cells("proto2", A, B);
    assert_eq!((&*backward, &*forward), ("lossy", "safe"), "{message}");
    assert!(
        message.contains("the new enum lacks number 3 (closed"),
        "{message}"
    );
}

#[test]
fn a_number_the_open_readers_enum_lacks_is_a_hazard() {
    let (backward, forward, message) = wire_cells("proto3", A, B);
    assert_eq!((&*backward, &*forward), ("hazard", "safe"), "{message}");
    assert!(
        message.contains("open: old data keeps the unknown number"),
        "{message}"
    );
    // The other way round: the old reader lacks 3.
    let (backward, forward, _) = wire_cells(
        "proto3",
        "enum A { A0 = 0; A1 = 1; }",
        "enum B { B0 = 0; B1 = 1; B3 = 3; }",
    );
    assert_eq!((&*backward, &*forward), ("safe", "hazard"));
}

#[test]
fn the_same_numbers_are_safe_on_the_wire() {
    let (backward, forward, message) = wire_cells(
        "proto2",
        "enum A { A0 = 0; A1 = 1; }",
        "enum B { X = 0; Y = 1; }",
    );
    assert_eq!((&*backward, &*forward), ("safe", "safe"), "{message}");
}

/// An unset proto2 enum field reads as its enum's first value: another first number reads
/// unset data differently both ways, as a changed default does (protobuf's
/// `TestConflictingEnumNames.conflicting_enum` in 3.8.0, once called safe backward).
#[test]
fn another_first_value_reads_unset_fields_differently() {
    let (backward, forward, message) = wire_cells(
        "proto2",
        "enum A { A1 = 1; A2 = 2; }",
        "enum B { B2 = 2; B1 = 1; }",
    );
    assert_eq!((&*backward, &*forward), ("lossy", "lossy"), "{message}");
    assert!(
        message.contains("an unset field reads as 1 in the old enum and 2 in the new one"),
        "{message}"
    );
}

/// A name both enums declare under other numbers is a renumbering, as
/// ENUM_VALUE_NUMBER_CHANGED is within one enum: what one side writes as it, the other reads
/// as another value, both ways (protobuf's `FeatureSet.utf8_validation` in 25.0: new
/// `NONE = 1` reads as old `MANDATORY`, old `NONE` was 3; found by `diff --prove`).
#[test]
fn a_name_under_another_number_breaks_both_ways() {
    let (backward, forward, message) = wire_cells(
        "proto3",
        "enum A { A_UNKNOWN = 0; MANDATORY = 1; HINT = 2; NONE = 3; }",
        "enum B { B_UNKNOWN = 0; NONE = 1; VERIFY = 2; }",
    );
    assert_eq!(
        (&*backward, &*forward),
        ("breaking", "breaking"),
        "{message}"
    );
    assert!(
        message.contains("a value under another number (NONE 3 -> 1)"),
        "{message}"
    );
    // The same names under the same numbers, others renamed: the numbers decide.
    let (backward, forward, message) = wire_cells(
        "proto3",
        "enum A { A_UNKNOWN = 0; NONE = 1; }",
        "enum B { B_UNKNOWN = 0; NONE = 1; VERIFY = 2; }",
    );
    assert_eq!((&*backward, &*forward), ("safe", "hazard"), "{message}");
}
