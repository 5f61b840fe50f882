//! ProtoJSON is judged by names: enum values are written by name and a reader rejects a name
//! its enum lacks; field keys are the JSON name or, with `preserving_proto_field_name`, the
//! proto name, and readers accept both. Pairs written inline, one file compiled in memory.

use super::compile_one;
use protolapse::diff::pair_whole;
use protolapse::rules::{Change, RuleId, Severity};

fn changes(old: &str, new: &str) -> Vec<Change> {
    let (old, new) = (compile_one(old), compile_one(new));
    check_pair(&old, &new)
}

fn check_pair(old: &protolapse::schema::Schema, new: &protolapse::schema::Schema) -> Vec<Change> {
    protolapse::rules::check(&pair_whole(&old.content, &new.content), old, new)
}

fn find<'a>(changes: &'a [Change], rule: RuleId, element: &str) -> &'a Change {
    changes
        .iter()
        .find(|c| c.rule == rule && c.element == element)
        .unwrap_or_else(|| panic!("no {rule} on {element}: {changes:#?}"))
}

fn file(body: &str) -> String {
    format!("syntax = \"proto3\";\npackage fx;\n{body}\n")
}

/// A field moved to an enum whose values all have other names (as temporal's renames of
/// every value with a new prefix): the numbers read the same on the wire, but every JSON
/// value is a name the other side does not know.
#[test]
fn an_enum_type_whose_names_all_changed_breaks_json_both_ways() {
    let c = changes(
        &file("enum Old { OLD_UNSPECIFIED = 0; OLD_READY = 1; }\nmessage M { Old state = 1; }"),
        &file("enum New { NEW_UNSPECIFIED = 0; NEW_READY = 1; }\nmessage M { New state = 1; }"),
    );
    let c = find(&c, RuleId::FIELD_TYPE_CHANGED, "fx.M.state");
    assert_eq!(c.verdict.wire.backward, Severity::Safe);
    assert_eq!(c.verdict.wire.forward, Severity::Safe);
    assert_eq!(c.verdict.json.backward, Severity::Breaking);
    assert_eq!(c.verdict.json.forward, Severity::Breaking);
    assert!(
        c.message
            .contains("the new enum lacks `OLD_UNSPECIFIED`, `OLD_READY`")
            && c.message
                .contains("the old enum lacks `NEW_UNSPECIFIED`, `NEW_READY`"),
        "{}",
        c.message
    );
}

/// Each direction needs the writer's names in the reader's enum: a new enum with every old
/// name plus one reads old JSON, and the old reader rejects the added name.
#[test]
fn an_enum_type_with_more_names_breaks_json_forward_only() {
    let c = changes(
        &file("enum Old { A = 0; B = 1; }\nmessage M { Old e = 1; map<string, Old> m = 2; }"),
        &file(
            "enum New { A = 0; B = 1; C = 2; }\nmessage M { New e = 1; map<string, New> m = 2; }",
        ),
    );
    for element in ["fx.M.e", "fx.M.m"] {
        let c = find(&c, RuleId::FIELD_TYPE_CHANGED, element);
        assert_eq!(c.verdict.json.backward, Severity::Safe, "{element}");
        assert_eq!(c.verdict.json.forward, Severity::Breaking, "{element}");
        assert!(
            c.message.contains("the old enum lacks `C`") && !c.message.contains("new enum lacks"),
            "{}",
            c.message
        );
    }
}

/// The same names under other numbers: JSON carries names only.
#[test]
fn an_enum_type_with_the_same_names_is_json_safe() {
    let c = changes(
        &file("enum Old { A = 0; B = 1; }\nmessage M { Old e = 1; }"),
        &file("enum New { A = 0; B = 2; }\nmessage M { New e = 1; }"),
    );
    let c = find(&c, RuleId::FIELD_TYPE_CHANGED, "fx.M.e");
    assert_eq!(c.verdict.json.backward, Severity::Safe);
    assert_eq!(c.verdict.json.forward, Severity::Safe);
    assert!(c.message.contains("the same names"), "{}", c.message);
}

/// A renamed message type compared field by field judges its enum fields by name too.
#[test]
fn a_renamed_message_types_enum_field_is_judged_by_names() {
    let c = changes(
        &file(
            "enum Kind { KIND_UNSPECIFIED = 0; KIND_A = 1; }\nmessage Lib { Kind kind = 1; }\nmessage Root { Lib lib = 1; }",
        ),
        &file(
            "enum ScopeKind { SCOPE_KIND_UNSPECIFIED = 0; SCOPE_KIND_A = 1; }\nmessage Scope { ScopeKind kind = 1; }\nmessage Root { Scope lib = 1; }",
        ),
    );
    let c = find(&c, RuleId::FIELD_MESSAGE_TYPE_CHANGED, "fx.Root.lib");
    assert_eq!(c.verdict.wire.backward, Severity::Safe);
    assert_eq!(c.verdict.json.backward, Severity::Breaking);
    assert_eq!(c.verdict.json.forward, Severity::Breaking);
    assert!(c.message.contains("FIELD_TYPE_CHANGED"), "{}", c.message);
}

/// An explicit `json_name` kept across a rename keeps the default JSON key, but readers
/// accept the proto name too, and JSON written with proto names carries the old one.
#[test]
fn a_rename_that_keeps_the_json_name_still_breaks_proto_name_json() {
    let c = changes(
        &file("message M { string old_name = 1 [json_name = \"label\"]; }"),
        &file("message M { string new_name = 1 [json_name = \"label\"]; }"),
    );
    let c = find(&c, RuleId::FIELD_RENAMED, "fx.M.new_name");
    assert_eq!(c.verdict.wire.backward, Severity::Safe);
    assert_eq!(c.verdict.json.backward, Severity::Breaking);
    assert_eq!(c.verdict.json.forward, Severity::Breaking);
    assert!(
        c.message.contains("preserving_proto_field_name")
            && c.message
                .contains("`old_name`, which the new reader rejects")
            && c.message
                .contains("`new_name`, which the old reader rejects"),
        "{}",
        c.message
    );
}

/// `foo_bar` -> `fooBar` keeps the JSON name `fooBar`: new JSON reads everywhere, but old
/// JSON written with proto names carries `foo_bar`, which the new reader does not know.
#[test]
fn a_rename_to_the_json_name_breaks_proto_name_json_backward_only() {
    let c = changes(
        &file("message M { string foo_bar = 1; }"),
        &file("message M { string fooBar = 1; }"),
    );
    let c = find(&c, RuleId::FIELD_RENAMED, "fx.M.fooBar");
    assert_eq!(c.verdict.json.backward, Severity::Breaking);
    assert_eq!(c.verdict.json.forward, Severity::Safe);
    assert!(
        c.message
            .contains("`foo_bar`, which the new reader rejects")
            && !c.message.contains("old reader rejects"),
        "{}",
        c.message
    );
    // A json_name change alone keeps the proto name, which every reader accepts: the
    // verdict of FIELD_JSON_NAME_CHANGED does not move.
    let c = changes(
        &file("message M { string label = 1; }"),
        &file("message M { string label = 1 [json_name = \"displayLabel\"]; }"),
    );
    let c = find(&c, RuleId::FIELD_JSON_NAME_CHANGED, "fx.M.label");
    assert_eq!(c.verdict.json.backward, Severity::Safe);
    assert_eq!(c.verdict.json.forward, Severity::Breaking);
}
