//! Extensions through the engine: paired by extended message and number, judged by the field
//! rules where the change is a field's (reported on the extension's full name, with the
//! verdict the same change of a field gets), added and removed with their own rules, and
//! reached from a root through the messages they extend.

use protolapse::diff::{pair_from_root, pair_whole};
use protolapse::rules::{Change, RuleId, Severity, check};
use protolapse::schema::{Cache, Schema, SourceRef, Status};

fn compile(text: &str) -> Schema {
    let out = Cache::new().compile(&[SourceRef {
        origin: protolapse::schema::Origin::Root,
        path: "x.proto",
        blob: text,
        text: Ok(text),
    }]);
    assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
    (*out.schema).clone()
}

fn whole(old: &str, new: &str) -> Vec<Change> {
    let (a, b) = (compile(old), compile(new));
    check(&pair_whole(&a.content, &b.content), &a, &b)
}

fn rules(changes: &[Change]) -> Vec<(RuleId, &str)> {
    changes
        .iter()
        .map(|c| (c.rule, c.element.as_str()))
        .collect()
}

const HEAD: &str = "syntax = \"proto2\";\npackage fx;\nmessage E {\n  optional int32 plain = 1;\n  extensions 100 to 199;\n}\n";

fn with(decls: &str) -> String {
    format!("{HEAD}{decls}")
}

/// Each change, and the same change seen the other way round, swapped.
fn both_ways(old: &str, new: &str) -> Vec<Change> {
    let ab = whole(old, new);
    let ba = whole(new, old);
    for x in &ab {
        let y = ba
            .iter()
            .find(|y| y.rule == x.rule && y.old == x.new && y.new == x.old)
            .unwrap_or_else(|| panic!("no reverse of {x:#?} in {ba:#?}"));
        assert_eq!(
            x.verdict.swapped(),
            y.verdict,
            "{} on {}",
            x.rule,
            x.element
        );
    }
    ab
}

#[test]
fn a_type_change_is_judged_as_the_same_change_of_a_field() {
    let ext = both_ways(
        &with("extend E { optional int32 count = 100; }\n"),
        &with("extend E { optional sint32 count = 100; }\n"),
    );
    assert_eq!(rules(&ext), [(RuleId::FIELD_TYPE_CHANGED, "fx.count")]);
    let c = &ext[0];
    assert_eq!(c.number, Some(100));
    assert_eq!(
        c.old.as_deref(),
        Some("extend fx.E { int32 fx.count = 100 }")
    );
    assert_eq!(c.new_location.as_deref(), Some("x.proto:7"));
    let field = whole(
        "syntax = \"proto2\";\npackage fx;\nmessage E { optional int32 count = 100; }\n",
        "syntax = \"proto2\";\npackage fx;\nmessage E { optional sint32 count = 100; }\n",
    );
    assert_eq!(rules(&field), [(RuleId::FIELD_TYPE_CHANGED, "fx.E.count")]);
    assert_eq!(c.verdict, field[0].verdict);
    assert_eq!(c.verdict.wire.backward, Severity::Breaking);
    assert_eq!(c.message, field[0].message);
}

#[test]
fn cardinality_default_and_options_use_the_field_rules() {
    let changes = both_ways(
        &with(
            "extend E {\n  optional int32 many = 100;\n  optional int32 fallback = 101 [default = 1];\n}\n",
        ),
        &with(
            "extend E {\n  repeated int32 many = 100;\n  optional int32 fallback = 101 [default = 2, deprecated = true];\n}\n",
        ),
    );
    let mut got = rules(&changes);
    got.sort();
    assert_eq!(
        got,
        [
            (RuleId::FIELD_CARDINALITY_CHANGED, "fx.many"),
            (RuleId::FIELD_DEFAULT_CHANGED, "fx.fallback"),
            (RuleId::FIELD_DEPRECATED, "fx.fallback"),
        ]
    );
}

/// The ProtoJSON key of an extension is its full name: a new scope is a rename, for JSON and
/// for generated code, though the short name is the same.
#[test]
fn a_new_scope_renames_the_extension() {
    let changes = both_ways(
        &with("extend E { optional int32 tag = 100; }\nmessage Scope {}\n"),
        &with("message Scope {\n  extend E { optional int32 tag = 100; }\n}\n"),
    );
    assert_eq!(rules(&changes), [(RuleId::FIELD_RENAMED, "fx.Scope.tag")]);
    let c = &changes[0];
    assert_eq!(c.verdict.wire.worst(), Severity::Safe);
    assert_eq!(c.verdict.json.backward, Severity::Breaking);
    assert_eq!(c.verdict.json.forward, Severity::Breaking);
    assert!(
        c.message.contains("`fx.tag` renamed to `fx.Scope.tag`"),
        "{}",
        c.message
    );
}

#[test]
fn a_kept_name_under_a_new_number_is_a_renumbering() {
    let changes = both_ways(
        &with("extend E { optional string label = 100; }\n"),
        &with("extend E { optional string label = 101; }\n"),
    );
    assert_eq!(
        rules(&changes),
        [(RuleId::FIELD_NUMBER_CHANGED, "fx.label")]
    );
    assert_eq!(changes[0].verdict.wire.backward, Severity::Breaking);
    assert_eq!(changes[0].verdict.json.worst(), Severity::Safe);
}

#[test]
fn a_comment_on_an_extension_is_compared() {
    let changes = whole(
        &with("extend E {\n  // Before.\n  optional int32 n = 100;\n}\n"),
        &with("extend E {\n  // After.\n  optional int32 n = 100;\n}\n"),
    );
    assert_eq!(rules(&changes), [(RuleId::COMMENT_CHANGED, "fx.n")]);
    assert_eq!(changes[0].new.as_deref(), Some("After."));
}

#[test]
fn another_extension_under_a_number_is_a_rename_and_an_unchanged_one_is_silent() {
    let old = with("extend E { optional string a = 100; optional int32 b = 101; }\n");
    let new = with("extend E { optional string c = 100; optional int32 b = 101; }\n");
    assert_eq!(
        rules(&both_ways(&old, &new)),
        [(RuleId::FIELD_RENAMED, "fx.c")]
    );
    assert!(whole(&old, &old).is_empty());
}

#[test]
fn a_removed_range_and_its_extension_are_both_reported() {
    let changes = whole(
        &with("extend E { optional string gone = 150; }\n"),
        &HEAD.replace(
            "extensions 100 to 199;",
            "extensions 100 to 149;\n  reserved 150 to 199;",
        ),
    );
    let mut got = rules(&changes);
    got.sort();
    assert_eq!(
        got,
        [
            (RuleId::EXTENSION_RANGE_REMOVED, "fx.E"),
            (RuleId::EXTENSION_REMOVED, "fx.gone"),
        ]
    );
    let range = changes
        .iter()
        .find(|c| c.rule == RuleId::EXTENSION_RANGE_REMOVED)
        .unwrap();
    assert_eq!(range.old.as_deref(), Some("extensions 150 to 199"));
    assert_eq!(
        range.verdict.wire.backward,
        Severity::Safe,
        "the numbers are reserved: no field can reuse them"
    );
}

/// From a root, the extensions of every reached message are reached fields: their types are
/// compared, and what is not reached stays out.
#[test]
fn from_a_root_extensions_of_reached_messages_are_followed() {
    let old = "syntax = \"proto2\";\npackage fx;\n\
        message Root { optional Box box = 1; }\n\
        message Box { extensions 100 to 199; }\n\
        message Payload { optional int32 x = 1; }\n\
        extend Box { optional Payload payload = 100; }\n\
        message Other { extensions 1 to 9; }\n\
        extend Other { optional int32 o = 1; }\n";
    let new = old
        .replace("optional int32 x = 1;", "optional sint32 x = 1;")
        .replace("optional int32 o = 1;", "optional sint64 o = 1;")
        + "extend Box { optional string note = 101; }\n";
    let (a, b) = (compile(old), compile(&new));
    let from_root = check(&pair_from_root(&a.content, &b.content, "fx.Root"), &a, &b);
    let mut got = rules(&from_root);
    got.sort();
    assert_eq!(
        got,
        [
            (RuleId::EXTENSION_ADDED, "fx.note"),
            (RuleId::FIELD_TYPE_CHANGED, "fx.Payload.x"),
        ]
    );
    let whole = check(&pair_whole(&a.content, &b.content), &a, &b);
    let all = rules(&whole);
    assert!(
        all.contains(&(RuleId::FIELD_TYPE_CHANGED, "fx.o")),
        "{all:?}"
    );
}

/// A renamed type keeps its extensions, paired by number: from a root (the type found along
/// a reached field) and over the whole schema (the type paired by structure).
#[test]
fn a_renamed_extendee_keeps_its_extensions() {
    let old = "syntax = \"proto2\";\npackage fx;\n\
        message Root { optional Box box = 1; }\n\
        message Box { extensions 100 to 199; }\n\
        extend Box { optional int32 size = 100; }\n";
    let new = "syntax = \"proto2\";\npackage fx;\n\
        message Root { optional Crate box = 1; }\n\
        message Crate { extensions 100 to 199; }\n\
        extend Crate { optional int64 size = 100; }\n";
    let (a, b) = (compile(old), compile(new));
    let changes = check(&pair_from_root(&a.content, &b.content, "fx.Root"), &a, &b);
    let c = changes
        .iter()
        .find(|c| c.rule == RuleId::FIELD_TYPE_CHANGED)
        .unwrap_or_else(|| panic!("{:?}", rules(&changes)));
    assert_eq!(c.element, "fx.size");
    assert_eq!(c.verdict.wire.backward, Severity::Safe, "int32 -> int64");
    assert!(changes.iter().all(|c| !matches!(
        c.rule,
        RuleId::EXTENSION_ADDED
            | RuleId::EXTENSION_REMOVED
            | RuleId::EXTENSION_RANGE_ADDED
            | RuleId::EXTENSION_RANGE_REMOVED
    )));
    let changes = check(&pair_whole(&a.content, &b.content), &a, &b);
    let mut got = rules(&changes);
    got.sort();
    assert_eq!(
        got,
        [
            (RuleId::FIELD_MESSAGE_TYPE_CHANGED, "fx.Root.box"),
            (RuleId::FIELD_TYPE_CHANGED, "fx.size"),
            (RuleId::MESSAGE_RENAMED, "fx.Crate"),
        ]
    );
}

/// `graph` lists a reached message's extensions under it, and follows their types.
#[test]
fn the_text_graph_lists_extensions() {
    let s = compile(
        "syntax = \"proto2\";\npackage fx;\n\
        message Root { optional Box box = 1; }\n\
        message Box { extensions 100 to 199; }\n\
        message Payload { optional int32 x = 1; }\n\
        extend Box { optional Payload payload = 100; }\n",
    );
    let g = protolapse::schema::graph::build(&s.content, "fx.Root");
    let text = protolapse::report::graph::to_text(&s.content, &g);
    assert!(
        text.contains("    100 [fx.payload]: fx.Payload  (extension)\n"),
        "{text}"
    );
    assert!(text.contains("      1 x: int32\n"), "{text}");
}
