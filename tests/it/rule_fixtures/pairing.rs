//! Pairs written inline around a renumbering, as real histories make them (opentelemetry's
//! v0.4.0, v0.6.0, v0.15.0; `pairing_real` runs the real ones when the bundle is there): the
//! values beside a moved value are judged too, a name moved onto another number is an
//! addition, and a clean move with its old number reserved says so.

use super::compile_one;
use protolapse::diff::pair_whole;
use protolapse::rules::{Change, RuleId, Severity, check};

fn changes(old: &str, new: &str) -> (Vec<Change>, Vec<Change>) {
    let (o, n) = (
        compile_one(&format!("syntax = \"proto3\";\npackage fx;\n{old}\n")),
        compile_one(&format!("syntax = \"proto3\";\npackage fx;\n{new}\n")),
    );
    (
        check(&pair_whole(&o.content, &n.content), &o, &n),
        check(&pair_whole(&n.content, &o.content), &n, &o),
    )
}

fn find<'c>(c: &'c [Change], rule: RuleId, element: &str) -> &'c Change {
    c.iter()
        .find(|c| c.rule == rule && c.element == element)
        .unwrap_or_else(|| panic!("no {rule} on {element} in {c:#?}"))
}

/// v0.4.0's shape: SUMMARY moves 7 -> 6, where HIST was; HIST is removed, and old data with
/// 6 now reads as SUMMARY. Reversed, HIST is added at 6, which old readers read as SUMMARY.
#[test]
fn a_value_removed_where_another_moved_in_is_misread() {
    let (c, r) = changes(
        "enum T { T_ZERO = 0; HIST = 6; SUMMARY = 7; }",
        "enum T { T_ZERO = 0; SUMMARY = 6; }",
    );
    find(&c, RuleId::ENUM_VALUE_NUMBER_CHANGED, "fx.T.SUMMARY");
    let gone = find(&c, RuleId::ENUM_VALUE_REMOVED, "fx.T.HIST");
    assert_eq!(gone.verdict.wire.backward, Severity::Breaking);
    assert_eq!(gone.verdict.json.backward, Severity::Breaking);
    assert!(
        gone.message.contains("reads as SUMMARY"),
        "{}",
        gone.message
    );
    let back = find(&r, RuleId::ENUM_VALUE_ADDED, "fx.T.HIST");
    assert_eq!(back.verdict.wire, gone.verdict.wire.swapped());
    assert_eq!(back.verdict.json, gone.verdict.json.swapped());
    assert!(
        back.message.contains("read it as SUMMARY"),
        "{}",
        back.message
    );
    // Without the move, the removal is an unknown number (hazard) and a rejected name.
    let (c, _) = changes("enum T { T_ZERO = 0; HIST = 6; }", "enum T { T_ZERO = 0; }");
    let gone = find(&c, RuleId::ENUM_VALUE_REMOVED, "fx.T.HIST");
    assert_eq!(gone.verdict.wire.backward, Severity::Hazard);
    assert_eq!(gone.verdict.json.backward, Severity::Breaking);
}

/// v0.6.0's shape: OK moves 0 -> 1 (the zero value moves), CANCELLED (1) goes, UNSET = 0
/// comes. Every value of both versions is reported, the zero move breaking JSON too.
#[test]
fn the_zero_value_moving_breaks_json_and_every_value_is_reported() {
    let (c, r) = changes(
        "enum S { OK = 0; CANCELLED = 1; UNKNOWN = 2; }",
        "enum S { UNSET = 0; OK = 1; ERROR = 2; }",
    );
    let ok = find(&c, RuleId::ENUM_VALUE_NUMBER_CHANGED, "fx.S.OK");
    assert_eq!(ok.verdict.wire.worst(), Severity::Breaking);
    assert_eq!(ok.verdict.json.backward, Severity::Breaking);
    assert_eq!(ok.verdict.json.forward, Severity::Breaking);
    assert!(
        ok.message.contains("that meant OK now reads as UNSET"),
        "{}",
        ok.message
    );
    let cancelled = find(&c, RuleId::ENUM_VALUE_REMOVED, "fx.S.CANCELLED");
    assert_eq!(cancelled.verdict.wire.backward, Severity::Breaking);
    let unset = find(&c, RuleId::ENUM_VALUE_ADDED, "fx.S.UNSET");
    assert_eq!(unset.verdict.wire.forward, Severity::Breaking);
    assert_eq!(unset.verdict.json.forward, Severity::Breaking);
    find(&c, RuleId::ENUM_VALUE_RENAMED, "fx.S.ERROR");
    assert_eq!(c.len(), 4, "{c:#?}");
    // Reversed: OK moves onto 0 and becomes the zero value.
    let ok = find(&r, RuleId::ENUM_VALUE_NUMBER_CHANGED, "fx.S.OK");
    assert_eq!(ok.verdict.json.backward, Severity::Breaking);
    assert!(ok.message.contains("now the zero value"), "{}", ok.message);
    // A move between non-zero numbers leaves JSON alone.
    let (c, _) = changes("enum E { Z = 0; A = 1; }", "enum E { Z = 0; A = 2; }");
    let a = find(&c, RuleId::ENUM_VALUE_NUMBER_CHANGED, "fx.E.A");
    assert!(a.verdict.json.worst() == Severity::Safe, "{a:?}");
}

/// Aliases (allow_alias) are values too: one removed or added is reported, as a name only
/// (the number's fate is its first name's change; JSON writers emit the first name).
#[test]
fn an_alias_removed_or_added_is_reported_as_a_name() {
    let (c, r) = changes(
        "enum E { option allow_alias = true; Z = 0; A = 1; B = 1; C = 2; }",
        "enum E { option allow_alias = true; Z = 0; A = 1; C = 2; D = 2; }",
    );
    let b = find(&c, RuleId::ENUM_VALUE_REMOVED, "fx.E.B");
    assert_eq!(b.verdict.wire.worst(), Severity::Safe);
    assert_eq!(b.verdict.json.backward, Severity::Hazard);
    let d = find(&c, RuleId::ENUM_VALUE_ADDED, "fx.E.D");
    assert_eq!(d.verdict.wire.worst(), Severity::Safe);
    assert_eq!(d.verdict.json.forward, Severity::Hazard);
    assert_eq!(c.len(), 2, "{c:#?}");
    let back = find(&r, RuleId::ENUM_VALUE_ADDED, "fx.E.B");
    assert_eq!(back.verdict.json, b.verdict.json.swapped());
    // A number removed with its aliases: each name is reported.
    let (c, _) = changes(
        "enum E { option allow_alias = true; Z = 0; A = 1; B = 1; }",
        "enum E { Z = 0; }",
    );
    find(&c, RuleId::ENUM_VALUE_REMOVED, "fx.E.A");
    find(&c, RuleId::ENUM_VALUE_REMOVED, "fx.E.B");
}

/// v0.15.0's shape: `scope = 2` takes the number of `lib = 2`, which returns as 1000. The
/// field at 2 is `lib`'s partner (a rename); 1000 is an addition whose message says the JSON
/// key moved; nothing is renumbered. The reverse is a removal that says where the name went.
#[test]
fn a_name_moved_to_a_new_number_while_its_number_is_taken_is_an_addition() {
    let (c, r) = changes(
        "message R { string res = 1; repeated string lib = 2; }",
        "message R { string res = 1; repeated string scope = 2; repeated string lib = 1000 [deprecated = true]; }",
    );
    assert!(
        !c.iter().any(|c| c.rule == RuleId::FIELD_NUMBER_CHANGED),
        "{c:#?}"
    );
    let renamed = find(&c, RuleId::FIELD_RENAMED, "fx.R.scope");
    assert_eq!(renamed.verdict.wire.worst(), Severity::Safe);
    let added = find(&c, RuleId::FIELD_ADDED, "fx.R.lib");
    assert_eq!(added.number, Some(1000));
    assert_eq!(added.verdict.wire.worst(), Severity::Safe);
    assert!(
        added
            .message
            .contains("its name was number 2's (now `scope`)"),
        "{}",
        added.message
    );
    assert!(
        !r.iter().any(|c| c.rule == RuleId::FIELD_NUMBER_CHANGED),
        "{r:#?}"
    );
    let removed = find(&r, RuleId::FIELD_REMOVED, "fx.R.lib");
    assert!(
        removed.message.contains("its name now belongs to number 2"),
        "{}",
        removed.message
    );
}

/// A clean move with its old number reserved is still FIELD_NUMBER_CHANGED (the field loses
/// its old data), and says the number is reserved; a move onto a number the old version
/// reserved also reports the reuse, as an addition there would.
#[test]
fn a_clean_move_names_the_reservations_on_either_side() {
    let (c, _) = changes(
        "message M { int32 kept = 1; string moves = 2; }",
        "message M { int32 kept = 1; string moves = 3; reserved 2; }",
    );
    let moved = find(&c, RuleId::FIELD_NUMBER_CHANGED, "fx.M.moves");
    assert_eq!(moved.verdict.wire.worst(), Severity::Breaking);
    assert!(
        moved.message.contains("the old number is reserved"),
        "{}",
        moved.message
    );
    let (c, _) = changes(
        "message M { int32 kept = 1; string moves = 2; reserved 3; }",
        "message M { int32 kept = 1; string moves = 3; }",
    );
    find(&c, RuleId::FIELD_NUMBER_CHANGED, "fx.M.moves");
    find(&c, RuleId::FIELD_RESERVED_NUMBER_REUSED, "fx.M.moves");
}
