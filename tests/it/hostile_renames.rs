//! Many members renamed, renumbered, removed and reserved in one version (issue 13): pairing
//! and every rule look members and reservations up in maps, so a large declaration costs its
//! size, not its square — and the verdicts are the ones a small declaration gets, one change
//! per member.

use std::collections::BTreeMap;

use crate::common::{Repo, run};

/// Members per shape: large enough that a scan per member (25,000 × 5,000 steps each)
/// would show, small enough for a debug build.
const N: usize = 5_000;

/// Field numbers skip 19000–19999, which protobuf keeps for itself.
fn num(k: usize) -> usize {
    if k < 19_000 { k } else { k + 1_000 }
}

fn schema(new: bool) -> String {
    let mut s = String::from("syntax = \"proto3\";\npackage p;\n");
    let mut block = |head: &str, line: &dyn Fn(usize) -> String| {
        s.push_str(head);
        s.push_str(" {\n");
        for i in 0..N {
            s.push_str(&line(i));
        }
        s.push_str("}\n");
    };
    // Renamed at the same numbers.
    block("message Renamed", &|i| {
        let name = if new { "g" } else { "f" };
        format!("  int32 {name}{i} = {};\n", num(i + 1))
    });
    // The same names under new numbers (clean moves).
    block("message Renumbered", &|i| {
        let n = if new { num(i + 1 + N) } else { num(i + 1) };
        format!("  int32 f{i} = {n};\n")
    });
    // Removed, numbers and names reserved.
    block("message Reserved", &|i| {
        if new {
            format!("  reserved {};\n  reserved \"f{i}\";\n", num(i + 1))
        } else {
            format!("  int32 f{i} = {};\n", num(i + 1))
        }
    });
    // Oneofs renamed, members kept.
    block("message Oneofs", &|i| {
        let name = if new { "q" } else { "o" };
        format!("  oneof {name}{i} {{ int32 f{i} = {}; }}\n", num(i + 1))
    });
    // Enum values renamed at the same numbers.
    block("enum Values", &|i| {
        let name = if new { "W" } else { "V" };
        format!("  {name}{i} = {i};\n")
    });
    s
}

#[test]
fn thousands_of_renamed_renumbered_and_reserved_members_get_one_verdict_each() {
    let mut r = Repo::new();
    r.write("a.proto", &schema(false));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("a.proto", &schema(true));
    r.commit("two");
    r.tag("v2.0.0");
    let (code, out, err) = run(&["diff", "v1.0.0", "v2.0.0", "--format", "json"], r.path());
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("json");
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for c in json["changes"].as_array().expect("changes") {
        *counts
            .entry(c["rule"].as_str().unwrap_or_default().to_string())
            .or_default() += 1;
    }
    for (rule, want) in [
        ("FIELD_RENAMED", N),
        ("FIELD_NUMBER_CHANGED", N),
        ("FIELD_REMOVED_RESERVED", N),
        ("ONEOF_RENAMED", N),
        ("ENUM_VALUE_RENAMED", N),
    ] {
        assert_eq!(counts.get(rule).copied(), Some(want), "{rule}: {counts:?}");
    }
    // Nothing else is judged of them: no removal-and-addition for a rename or a move.
    for rule in [
        "FIELD_REMOVED",
        "FIELD_ADDED",
        "ONEOF_REMOVED",
        "ONEOF_ADDED",
    ] {
        assert_eq!(counts.get(rule), None, "{rule}: {counts:?}");
    }
}
