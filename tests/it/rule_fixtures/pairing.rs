//! Pairs written inline around a renumbering, as real histories make them (opentelemetry's
//! v0.4.0 and v0.6.0): the values beside a moved value are judged too.

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
