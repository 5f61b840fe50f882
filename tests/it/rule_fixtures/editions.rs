//! Editions and syntax changes: each editions feature gets the verdict its rule page states, a
//! migration that keeps behaviour reports only the syntax, and a syntax change reports each
//! consequence on the element it touches.

use super::compile_one;
use protolapse::diff::pair_whole;
use protolapse::rules::{Directions, RuleId, check};

/// The verdict a rule page's `## Example values` states (`wire backward: hazard`, ...), as
/// (wire, json).
fn page_claims(rule: RuleId) -> (Directions, Directions) {
    use protolapse::rules::Severity::{self, *};
    let page = protolapse::rules::page(rule).unwrap();
    let section = page
        .split_once("\n## Example values\n")
        .map(|(_, rest)| rest.split("\n## ").next().unwrap_or(rest))
        .unwrap_or_else(|| panic!("{rule}: no `## Example values`"));
    let claim = |level: &str, dir: &str| -> Severity {
        [Safe, Hazard, Lossy, Breaking]
            .into_iter()
            .find(|s| section.contains(&format!("{level} {dir}: {}", s.as_str())))
            .unwrap_or_else(|| panic!("{rule}: no `{level} {dir}` claim"))
    };
    let both = |level| Directions {
        backward: claim(level, "backward"),
        forward: claim(level, "forward"),
    };
    (both("wire"), both("json"))
}

/// Editions features reach the rules that judged the syntax they replace: each feature
/// changed on its own, in edition 2023 text, reports the rule with the verdict its page
/// states (swapped when the change runs the other way from the page's example).
#[test]
fn editions_features_get_the_verdicts_their_rule_pages_state() {
    let file = |body: &str| format!("edition = \"2023\";\npackage fx;\n\n{body}");
    // (rule, old, new, the page's example runs new -> old)
    let cases = [
        (
            RuleId::FIELD_PRESENCE_CHANGED,
            "message M {\n  double reading = 1;\n}\n",
            "message M {\n  double reading = 1 [features.field_presence = IMPLICIT];\n}\n",
            true,
        ),
        (
            RuleId::ENUM_CLOSED_CHANGED,
            "enum Level {\n  LEVEL_UNKNOWN = 0;\n  LEVEL_HIGH = 1;\n}\n",
            "enum Level {\n  option features.enum_type = CLOSED;\n  LEVEL_UNKNOWN = 0;\n  LEVEL_HIGH = 1;\n}\n",
            true,
        ),
        (
            RuleId::FIELD_PACKED_CHANGED,
            "message M {\n  repeated int32 samples = 1;\n}\n",
            "message M {\n  repeated int32 samples = 1 [features.repeated_field_encoding = EXPANDED];\n}\n",
            true,
        ),
        (
            RuleId::FIELD_TYPE_CHANGED,
            "message Inner {\n  int32 x = 1;\n}\nmessage M {\n  Inner inner = 1;\n}\n",
            "message Inner {\n  int32 x = 1;\n}\nmessage M {\n  Inner inner = 1 [features.message_encoding = DELIMITED];\n}\n",
            false,
        ),
        (
            RuleId::FIELD_REQUIRED_ADDED,
            "message M {\n  int32 kept = 1;\n}\n",
            "message M {\n  int32 kept = 1;\n  int64 added = 2 [features.field_presence = LEGACY_REQUIRED];\n}\n",
            false,
        ),
        (
            RuleId::FIELD_REQUIRED_REMOVED,
            "message M {\n  string device = 1 [features.field_presence = LEGACY_REQUIRED];\n}\n",
            "message M {\n  string device = 1;\n}\n",
            false,
        ),
    ];
    let mut failures = Vec::new();
    for (rule, old, new, reversed) in cases {
        let (old, new) = (compile_one(&file(old)), compile_one(&file(new)));
        let changes = check(&pair_whole(&old.content, &new.content), &old, &new);
        let Some(c) = changes.iter().find(|c| c.rule == rule) else {
            failures.push(format!("{rule}: not reported, only {changes:#?}"));
            continue;
        };
        let (wire, json) = page_claims(rule);
        let (wire, json) = if reversed {
            (wire.swapped(), json.swapped())
        } else {
            (wire, json)
        };
        if (c.verdict.wire, c.verdict.json) != (wire, json) {
            failures.push(format!(
                "{rule}: the engine says wire {:?} json {:?}, the page wire {wire:?} json {json:?}",
                c.verdict.wire, c.verdict.json
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// A proto2 file and a proto3 file migrated to edition 2023 with the features that keep their
/// behaviour (protobuf.dev's "Preserving proto2 or proto3 Behavior") report SYNTAX_CHANGED
/// only, both ways, and it changes no data and no generated code: a patch.
#[test]
fn a_migration_that_keeps_behaviour_reports_only_the_syntax() {
    use protolapse::rules::{Bump, Verdict};
    let proto2 = "syntax = \"proto2\";\npackage fx;\n\nmessage M {\n  required int32 id = 1;\n  optional string name = 2;\n  repeated int32 unpacked = 3;\n  repeated int32 packed = 4 [packed = true];\n  optional group Extra = 5 {\n    optional int32 x = 1;\n  }\n  optional Level level = 6;\n  map<string, string> tags = 7;\n}\n\nenum Level {\n  LEVEL_UNKNOWN = 0;\n  LEVEL_HIGH = 1;\n}\n";
    let proto2_as_2023 = "edition = \"2023\";\npackage fx;\n\noption features.enum_type = CLOSED;\noption features.repeated_field_encoding = EXPANDED;\noption features.json_format = LEGACY_BEST_EFFORT;\noption features.utf8_validation = NONE;\n\nmessage M {\n  int32 id = 1 [features.field_presence = LEGACY_REQUIRED];\n  string name = 2;\n  repeated int32 unpacked = 3;\n  repeated int32 packed = 4 [features.repeated_field_encoding = PACKED];\n  message Extra {\n    int32 x = 1;\n  }\n  Extra extra = 5 [features.message_encoding = DELIMITED];\n  Level level = 6;\n  map<string, string> tags = 7;\n}\n\nenum Level {\n  LEVEL_UNKNOWN = 0;\n  LEVEL_HIGH = 1;\n}\n";
    let proto3 = "syntax = \"proto3\";\npackage fx;\n\nmessage M {\n  int32 id = 1;\n  optional string name = 2;\n  repeated int32 packed = 3;\n  repeated int32 unpacked = 4 [packed = false];\n  Level level = 5;\n  map<string, string> tags = 6;\n}\n\nenum Level {\n  LEVEL_UNKNOWN = 0;\n  LEVEL_HIGH = 1;\n}\n";
    let proto3_as_2023 = "edition = \"2023\";\npackage fx;\n\noption features.field_presence = IMPLICIT;\n\nmessage M {\n  int32 id = 1;\n  string name = 2 [features.field_presence = EXPLICIT];\n  repeated int32 packed = 3;\n  repeated int32 unpacked = 4 [features.repeated_field_encoding = EXPANDED];\n  Level level = 5;\n  map<string, string> tags = 6;\n}\n\nenum Level {\n  LEVEL_UNKNOWN = 0;\n  LEVEL_HIGH = 1;\n}\n";
    for (old, new) in [(proto2, proto2_as_2023), (proto3, proto3_as_2023)] {
        let (old, new) = (compile_one(old), compile_one(new));
        for (a, b) in [(&old, &new), (&new, &old)] {
            let changes = check(&pair_whole(&a.content, &b.content), a, b);
            let rules: Vec<RuleId> = changes.iter().map(|c| c.rule).collect();
            assert_eq!(rules, [RuleId::SYNTAX_CHANGED], "{changes:#?}");
            assert_eq!(changes[0].verdict, Verdict::SAFE);
            assert_eq!(changes[0].bump, Bump::Patch);
        }
    }
}

/// A syntax change does not hide what it changes: proto2 to proto3 without features reports
/// each consequence on the element it touches, and SYNTAX_CHANGED itself stays safe.
#[test]
fn a_syntax_change_reports_its_consequences_on_each_element() {
    use protolapse::rules::{Severity, Verdict};
    let old = compile_one(
        "syntax = \"proto2\";\npackage fx;\n\nmessage M {\n  optional string name = 1;\n  repeated int32 samples = 2;\n  optional Level level = 3;\n}\n\nenum Level {\n  LEVEL_UNKNOWN = 0;\n}\n",
    );
    let new = compile_one(
        "syntax = \"proto3\";\npackage fx;\n\nmessage M {\n  string name = 1;\n  repeated int32 samples = 2;\n  Level level = 3;\n}\n\nenum Level {\n  LEVEL_UNKNOWN = 0;\n}\n",
    );
    let changes = check(&pair_whole(&old.content, &new.content), &old, &new);
    let rule = |rule: RuleId, element: &str| {
        changes
            .iter()
            .find(|c| c.rule == rule && c.element == element)
            .unwrap_or_else(|| panic!("no {rule} on {element} in {changes:#?}"))
    };
    assert_eq!(
        rule(RuleId::SYNTAX_CHANGED, "m.proto").verdict,
        Verdict::SAFE
    );
    let utf8 = rule(RuleId::FIELD_UTF8_VALIDATION_CHANGED, "fx.M.name");
    assert_eq!(
        utf8.verdict.wire.backward,
        Severity::Hazard,
        "proto3 verifies"
    );
    rule(RuleId::FIELD_PRESENCE_CHANGED, "fx.M.name");
    rule(RuleId::FIELD_PACKED_CHANGED, "fx.M.samples");
    rule(RuleId::ENUM_CLOSED_CHANGED, "fx.Level");
    rule(RuleId::ENUM_JSON_FORMAT_CHANGED, "fx.Level");
    // proto2 allows JSON name clashes, proto3 does not; M has none, so JSON reads as before.
    let json = rule(RuleId::MESSAGE_JSON_FORMAT_CHANGED, "fx.M");
    assert_eq!(
        json.verdict,
        Verdict::SAFE,
        "no two fields share a JSON key"
    );
}
