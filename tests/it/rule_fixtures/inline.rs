//! Pairs written inline, one file compiled in memory, for verdicts that depend on more than
//! one declaration: a map whose value changes, a renamed message type judged field by field,
//! an enum alias put first.

use super::compile_one;
use protolapse::diff::pair_whole;
use protolapse::rules::{RuleId, check};

#[test]
fn a_map_whose_value_changes_reports_the_value_only() {
    let old = compile_one(
        "syntax = \"proto3\";\npackage fx;\nmessage M {\n  map<string, int32> m = 1;\n}\n",
    );
    let new = compile_one(
        "syntax = \"proto3\";\npackage fx;\nmessage M {\n  map<string, int64> m = 1;\n}\n",
    );
    let changes = check(&pair_whole(&old.content, &new.content), &old, &new);
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert!(
        changes[0].message.starts_with("map value int32 -> int64"),
        "{}",
        changes[0].message
    );
}

/// A field whose message type was renamed to a type that differs only in a field name (as
/// opentelemetry's InstrumentationLibraryLogs became ScopeLogs): compared field by field, the
/// binary encoding is the same and only JSON (and generated code) break.
#[test]
fn a_renamed_message_type_is_judged_field_by_field() {
    let old = compile_one(
        "syntax = \"proto3\";\npackage fx;\nmessage Lib { string name = 1; }\nmessage LibLogs { Lib library = 1; repeated string lines = 2; LibLogs next = 3; }\nmessage Root { repeated LibLogs logs = 2; }\n",
    );
    let new = compile_one(
        "syntax = \"proto3\";\npackage fx;\nmessage Scope { string name = 1; }\nmessage ScopeLogs { Scope scope = 1; repeated string lines = 2; ScopeLogs next = 3; }\nmessage Root { repeated ScopeLogs logs = 2; }\n",
    );
    let changes = check(&pair_whole(&old.content, &new.content), &old, &new);
    let c = changes
        .iter()
        .find(|c| c.rule == RuleId::FIELD_MESSAGE_TYPE_CHANGED && c.element == "fx.Root.logs")
        .unwrap_or_else(|| panic!("{changes:#?}"));
    assert_eq!(c.verdict.wire.backward, protolapse::rules::Severity::Safe);
    assert_eq!(c.verdict.wire.forward, protolapse::rules::Severity::Safe);
    assert_eq!(
        c.verdict.json.backward,
        protolapse::rules::Severity::Breaking
    );
    assert!(c.message.contains("FIELD_RENAMED"), "{}", c.message);
    // A real difference inside the renamed type still breaks the wire.
    let worse = compile_one(
        "syntax = \"proto3\";\npackage fx;\nmessage Scope { int64 name = 1; }\nmessage ScopeLogs { Scope scope = 1; repeated string lines = 2; ScopeLogs next = 3; }\nmessage Root { repeated ScopeLogs logs = 2; }\n",
    );
    let changes = check(&pair_whole(&old.content, &worse.content), &old, &worse);
    let c = changes
        .iter()
        .find(|c| c.rule == RuleId::FIELD_MESSAGE_TYPE_CHANGED && c.element == "fx.Root.logs")
        .unwrap_or_else(|| panic!("{changes:#?}"));
    assert_eq!(
        c.verdict.wire.backward,
        protolapse::rules::Severity::Breaking
    );
}

/// An alias put first (allow_alias) changes the name JSON writers emit, but readers still
/// accept the old name: not the break a real rename is.
#[test]
fn an_alias_put_first_is_a_softer_rename() {
    let old = compile_one(
        "syntax = \"proto3\";\npackage fx;\nenum E {\n  option allow_alias = true;\n  E_ZERO = 0;\n  E_ONE = 1;\n}\n",
    );
    let new = compile_one(
        "syntax = \"proto3\";\npackage fx;\nenum E {\n  option allow_alias = true;\n  E_ZERO = 0;\n  E_UNO = 1;\n  E_ONE = 1;\n}\n",
    );
    let changes = check(&pair_whole(&old.content, &new.content), &old, &new);
    let c = changes
        .iter()
        .find(|c| c.rule == RuleId::ENUM_VALUE_RENAMED)
        .unwrap_or_else(|| panic!("{changes:#?}"));
    use protolapse::rules::{Severity, Source};
    assert_eq!(
        c.verdict.json.backward,
        Severity::Safe,
        "E_ONE is still read"
    );
    assert_eq!(
        c.verdict.json.forward,
        Severity::Breaking,
        "old readers lack E_UNO"
    );
    assert_eq!(c.verdict.source, Source::Safe, "E_ONE still exists");
    // A plain rename still breaks both ways.
    let renamed = compile_one(
        "syntax = \"proto3\";\npackage fx;\nenum E {\n  option allow_alias = true;\n  E_ZERO = 0;\n  E_UNO = 1;\n}\n",
    );
    let changes = check(&pair_whole(&old.content, &renamed.content), &old, &renamed);
    let c = changes
        .iter()
        .find(|c| c.rule == RuleId::ENUM_VALUE_RENAMED)
        .unwrap();
    assert_eq!(c.verdict.json.backward, Severity::Breaking);
    assert_eq!(c.verdict.source, Source::Breaking);
}
