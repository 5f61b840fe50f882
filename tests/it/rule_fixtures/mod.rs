//! Every rule has a fixture pair under `tests/fixtures/rules/<ID>/{old,new}/`; every rule runs
//! on every pair. Each pair must report its own rule, and exactly the rules its `expected`
//! file lists (so a false positive of another rule shows); old-vs-old and new-vs-new report
//! nothing; every fixture names a known rule.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use protolapse::diff::pair_whole;
use protolapse::rules::{Change, Directions, RULES, RuleId, check};
use protolapse::schema::{Cache, Schema, SourceRef, Status};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules")
}

fn compile(dir: &Path) -> Schema {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    let blobs: Vec<String> = files
        .iter()
        .map(|(_, t)| {
            format!(
                "{:x}",
                t.len() * 31 + t.bytes().map(usize::from).sum::<usize>()
            )
        })
        .collect();
    let refs: Vec<SourceRef<'_>> = files
        .iter()
        .zip(&blobs)
        .map(|((p, t), b)| SourceRef {
            origin: protolapse::schema::Origin::Root,
            path: p,
            blob: b,
            text: Ok(t),
        })
        .collect();
    let out = Cache::new().compile(&refs);
    assert_eq!(
        out.status,
        Status::Complete,
        "{}: {:?}",
        dir.display(),
        out.diagnostics
    );
    (*out.schema).clone()
}

fn rules_between(a: &Schema, b: &Schema) -> BTreeSet<RuleId> {
    check(&pair_whole(&a.content, &b.content), a, b)
        .iter()
        .map(|c| c.rule)
        .collect()
}

#[test]
fn every_rule_has_a_fixture_and_every_fixture_a_rule() {
    let dirs: BTreeSet<String> = std::fs::read_dir(root())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for r in RULES {
        assert!(dirs.contains(r.id.as_str()), "no fixture for {}", r.id);
    }
    for d in &dirs {
        assert!(RuleId::from_id(d).is_some(), "fixture {d} names no rule");
    }
}

#[test]
fn each_fixture_reports_exactly_what_it_expects() {
    let mut failures = Vec::new();
    for r in RULES {
        let dir = root().join(r.id.as_str());
        let old = compile(&dir.join("old"));
        let new = compile(&dir.join("new"));
        assert!(rules_between(&old, &old).is_empty(), "{}: old vs old", r.id);
        assert!(rules_between(&new, &new).is_empty(), "{}: new vs new", r.id);
        let got = rules_between(&old, &new);
        let expected: BTreeSet<String> = std::fs::read_to_string(dir.join("expected"))
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        let got_s: BTreeSet<String> = got.iter().map(|s| s.to_string()).collect();
        if !got.contains(&r.id) || got_s != expected {
            failures.push(format!(
                "{}: reported {:?}, expected {:?}",
                r.id, got, expected
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The rule that reports a change seen the other way round (new -> old): an addition is a
/// removal and vice versa; every other rule is its own counterpart.
fn counterparts(rule: RuleId) -> &'static [RuleId] {
    match rule {
        RuleId::FILE_ADDED => &[RuleId::FILE_REMOVED],
        RuleId::FILE_REMOVED => &[RuleId::FILE_ADDED],
        RuleId::MESSAGE_ADDED => &[RuleId::MESSAGE_REMOVED],
        RuleId::MESSAGE_REMOVED => &[RuleId::MESSAGE_ADDED],
        RuleId::ENUM_ADDED => &[RuleId::ENUM_REMOVED],
        RuleId::ENUM_REMOVED => &[RuleId::ENUM_ADDED],
        RuleId::SERVICE_ADDED => &[RuleId::SERVICE_REMOVED],
        RuleId::SERVICE_REMOVED => &[RuleId::SERVICE_ADDED],
        RuleId::RPC_ADDED => &[RuleId::RPC_REMOVED],
        RuleId::RPC_REMOVED => &[RuleId::RPC_ADDED],
        RuleId::ONEOF_ADDED => &[RuleId::ONEOF_REMOVED],
        RuleId::ONEOF_REMOVED => &[RuleId::ONEOF_ADDED],
        RuleId::EXTENSION_ADDED => &[RuleId::EXTENSION_REMOVED],
        RuleId::EXTENSION_REMOVED => &[RuleId::EXTENSION_ADDED],
        RuleId::EXTENSION_RANGE_ADDED => &[RuleId::EXTENSION_RANGE_REMOVED],
        RuleId::EXTENSION_RANGE_REMOVED => &[RuleId::EXTENSION_RANGE_ADDED],
        RuleId::FIELD_ADDED => &[RuleId::FIELD_REMOVED, RuleId::FIELD_REMOVED_RESERVED],
        RuleId::FIELD_REMOVED | RuleId::FIELD_REMOVED_RESERVED => {
            &[RuleId::FIELD_ADDED, RuleId::FIELD_REQUIRED_ADDED]
        }
        // A field that became required, or a required field added (whose reverse is the
        // removal of a required field).
        RuleId::FIELD_REQUIRED_ADDED => &[
            RuleId::FIELD_REQUIRED_REMOVED,
            RuleId::FIELD_REMOVED,
            RuleId::FIELD_REMOVED_RESERVED,
        ],
        RuleId::FIELD_REQUIRED_REMOVED => &[RuleId::FIELD_REQUIRED_ADDED],
        RuleId::ENUM_VALUE_ADDED => &[
            RuleId::ENUM_VALUE_REMOVED,
            RuleId::ENUM_VALUE_REMOVED_RESERVED,
        ],
        RuleId::ENUM_VALUE_REMOVED | RuleId::ENUM_VALUE_REMOVED_RESERVED => {
            &[RuleId::ENUM_VALUE_ADDED]
        }
        _ => &[],
    }
}

/// Rules whose change has no counterpart in the reversed pair, and why.
const NO_COUNTERPART: &[(RuleId, &str)] = &[
    (
        RuleId::FIELD_RESERVED_NUMBER_REUSED,
        "judges data from before the reservation (a third, earlier version); the reverse \
         (number reserved again) is FIELD_REMOVED_RESERVED, matched to FIELD_ADDED",
    ),
    (
        RuleId::FIELD_RESERVED_NAME_REUSED,
        "judges JSON from before the reservation; the reverse is FIELD_REMOVED_RESERVED",
    ),
    (
        RuleId::ENUM_RESERVED_REUSED,
        "judges data from before the reservation; the reverse is ENUM_VALUE_REMOVED_RESERVED",
    ),
    (
        RuleId::RESERVED_RANGE_REMOVED,
        "the reverse adds a reservation, which no reader notices and no rule reports",
    ),
    (
        RuleId::RESERVED_NAME_REMOVED,
        "the reverse adds a reservation, which no reader notices and no rule reports",
    ),
];

/// Cells where a change and its reverse legitimately differ: (rule, level, direction of that
/// rule's own verdict, why). Each must be needed by some fixture.
const ASYMMETRIC: &[(RuleId, &str, &str, &str)] = &[
    (
        RuleId::FIELD_REMOVED,
        "wire",
        "backward",
        "a removal frees the number for reuse by a later version, which would misread old data; \
         the reverse addition reads the same bytes, but frees nothing",
    ),
    (
        RuleId::EXTENSION_REMOVED,
        "wire",
        "backward",
        "as FIELD_REMOVED: the extension's number is free for a later extension (which cannot \
         be prevented: extension numbers cannot be reserved); adding one frees nothing",
    ),
    (
        RuleId::EXTENSION_RANGE_REMOVED,
        "wire",
        "backward",
        "numbers leaving an extension range are free for fields that would misread old \
         extension data; numbers joining a range free nothing",
    ),
];

fn cells(c: &Change) -> [(&'static str, Directions); 2] {
    [("wire", c.verdict.wire), ("json", c.verdict.json)]
}

fn parent(element: &str) -> &str {
    element.rsplit_once('.').map_or("", |(p, _)| p)
}

/// For every fixture pair (A, B), runs (B, A) too: each change of (A, B) has its counterpart
/// in (B, A) (same or paired rule, the two declarations swapped, same enclosing scope), and
/// the counterpart's backward verdict is the original's forward verdict and the other way
/// round, at the wire and JSON levels. (Source is not directional: removing breaks code,
/// adding does not.)
#[test]
fn fixture_verdicts_are_symmetric() {
    let mut failures = Vec::new();
    let mut used_no_counterpart = BTreeSet::new();
    let mut used_asymmetric = BTreeSet::new();
    let mut compared = 0;
    for r in RULES {
        let dir = root().join(r.id.as_str());
        let (a, b) = (compile(&dir.join("old")), compile(&dir.join("new")));
        let ab = check(&pair_whole(&a.content, &b.content), &a, &b);
        let ba = check(&pair_whole(&b.content, &a.content), &b, &a);
        for x in &ab {
            if let Some((rule, _)) = NO_COUNTERPART.iter().find(|(id, _)| *id == x.rule) {
                used_no_counterpart.insert(*rule);
                continue;
            }
            let want = counterparts(x.rule);
            let y = ba.iter().find(|y| {
                (y.rule == x.rule || want.contains(&y.rule))
                    && y.old == x.new
                    && y.new == x.old
                    && parent(&y.element) == parent(&x.element)
            });
            let Some(y) = y else {
                failures.push(format!(
                    "{}: {} on {} has no counterpart in the reverse: {:?}",
                    r.id,
                    x.rule,
                    x.element,
                    ba.iter().map(|c| (c.rule, &c.element)).collect::<Vec<_>>()
                ));
                continue;
            };
            compared += 1;
            for ((level, dx), (_, dy)) in cells(x).into_iter().zip(cells(y)) {
                for (dir_x, sx, dir_y, sy) in [
                    ("forward", dx.forward, "backward", dy.backward),
                    ("backward", dx.backward, "forward", dy.forward),
                ] {
                    if sx == sy {
                        continue;
                    }
                    let known = ASYMMETRIC.iter().find(|(id, l, d, _)| {
                        *l == level
                            && ((*id == x.rule && *d == dir_x) || (*id == y.rule && *d == dir_y))
                    });
                    match known {
                        Some((id, l, d, _)) => {
                            used_asymmetric.insert((*id, *l, *d));
                        }
                        None => failures.push(format!(
                            "{}: {} {level} {dir_x} is {} but the reverse {} {level} {dir_y} is {} ({})",
                            r.id,
                            x.rule,
                            sx.as_str(),
                            y.rule,
                            sy.as_str(),
                            x.element
                        )),
                    }
                }
            }
        }
    }
    for (id, why) in NO_COUNTERPART {
        assert!(
            used_no_counterpart.contains(id),
            "{id} is listed as having no counterpart ({why}) but no fixture shows it"
        );
    }
    for (id, l, d, _) in ASYMMETRIC {
        assert!(
            used_asymmetric.contains(&(*id, *l, *d)),
            "the asymmetry {id} {l} {d} is listed but no fixture shows it"
        );
    }
    assert!(compared >= 50, "only {compared} changes compared");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// One file, compiled in memory.
fn compile_one(text: &str) -> Schema {
    let out = Cache::new().compile(&[SourceRef {
        origin: protolapse::schema::Origin::Root,
        path: "m.proto",
        blob: text,
        text: Ok(text),
    }]);
    assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
    (*out.schema).clone()
}

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
