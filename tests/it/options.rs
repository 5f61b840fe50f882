//! Option changes on fields, extensions, enums, enum values, services and rpcs: one change
//! per option, judged by what the option does, and never a second report of what a
//! dedicated rule covers (a field's `deprecated` and `packed`).

use protolapse::diff::pair_whole;
use protolapse::rules::{Change, RuleId, Severity, Source, check};
use protolapse::schema::{Cache, Schema, SourceRef, Status};

fn compile(files: &[(&str, &str)]) -> Schema {
    let refs: Vec<SourceRef<'_>> = files
        .iter()
        .map(|(path, text)| SourceRef {
            origin: protolapse::schema::Origin::Root,
            path,
            blob: text,
            text: Ok(text),
        })
        .collect();
    let out = Cache::new().compile(&refs);
    assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
    (*out.schema).clone()
}

fn diff(old: &[(&str, &str)], new: &[(&str, &str)]) -> Vec<Change> {
    let (a, b) = (compile(old), compile(new));
    let mut changes = check(&pair_whole(&a.content, &b.content), &a, &b);
    changes.retain(|c| c.rule != RuleId::COMMENT_CHANGED);
    changes.sort_by(|x, y| (x.rule, &x.message).cmp(&(y.rule, &y.message)));
    changes
}

fn ids(changes: &[Change]) -> Vec<(RuleId, &str)> {
    changes
        .iter()
        .map(|c| (c.rule, c.element.as_str()))
        .collect()
}

const OPT: &str = "syntax = \"proto2\";\npackage acme;\nimport \"google/protobuf/descriptor.proto\";\nextend google.protobuf.FieldOptions { optional string column = 50001; }\n";

#[test]
fn each_field_option_is_one_change_and_dedicated_rules_are_not_repeated() {
    let old = "syntax = \"proto2\";\npackage fx;\nimport \"opt.proto\";\n\
        message M {\n  optional string note = 1;\n  optional M child = 2;\n  repeated int32 xs = 3;\n  optional int64 id = 4;\n}\n";
    let new = "syntax = \"proto2\";\npackage fx;\nimport \"opt.proto\";\n\
        message M {\n  optional string note = 1 [ctype = CORD, (acme.column) = \"note_text\"];\n  optional M child = 2 [lazy = true];\n  repeated int32 xs = 3 [packed = true, deprecated = true];\n  optional int64 id = 4 [jstype = JS_STRING];\n}\n";
    let changes = diff(
        &[("opt.proto", OPT), ("m.proto", old)],
        &[("opt.proto", OPT), ("m.proto", new)],
    );
    assert_eq!(
        ids(&changes),
        [
            (RuleId::FIELD_DEPRECATED, "fx.M.xs"),
            (RuleId::FIELD_OPTION_CHANGED, "fx.M.note"),
            (RuleId::FIELD_OPTION_CHANGED, "fx.M.note"),
            (RuleId::FIELD_OPTION_CHANGED, "fx.M.id"),
            (RuleId::FIELD_OPTION_CHANGED, "fx.M.child"),
            (RuleId::FIELD_PACKED_CHANGED, "fx.M.xs"),
        ]
    );
    let by = |start: &str| {
        changes
            .iter()
            .find(|c| c.message.starts_with(start))
            .unwrap_or_else(|| panic!("no change saying {start}"))
    };
    assert_eq!(
        by("(acme.column) (unset) -> \"note_text\"").verdict.source,
        Source::Safe
    );
    assert_eq!(by("ctype (unset) -> CORD").verdict.source, Source::Breaking);
    assert_eq!(
        by("jstype (unset) -> JS_STRING").verdict.source,
        Source::Breaking
    );
    assert_eq!(by("lazy (unset) -> true").verdict.source, Source::Safe);
    for c in &changes {
        assert_eq!(c.verdict.wire.worst(), Severity::Safe, "{}", c.message);
        assert_eq!(c.verdict.json.worst(), Severity::Safe, "{}", c.message);
    }
}

#[test]
fn an_extension_s_options_are_field_options() {
    let head = "syntax = \"proto2\";\npackage fx;\nmessage E { extensions 100 to 199; }\n";
    let old = format!("{head}extend E {{ optional string tag = 100; }}\n");
    let new = format!("{head}extend E {{ optional string tag = 100 [ctype = CORD]; }}\n");
    let changes = diff(&[("e.proto", &old)], &[("e.proto", &new)]);
    assert_eq!(ids(&changes), [(RuleId::FIELD_OPTION_CHANGED, "fx.tag")]);
    assert_eq!(changes[0].verdict.source, Source::Breaking);
}

#[test]
fn enum_value_and_rpc_deprecation_are_option_changes() {
    let old = "syntax = \"proto3\";\npackage fx;\n\
        enum Level { LEVEL_UNSPECIFIED = 0; LEVEL_HIGH = 1; }\n\
        message Req {}\nservice Svc { rpc Get(Req) returns (Req); }\n";
    let new = "syntax = \"proto3\";\npackage fx;\n\
        enum Level { option deprecated = true; LEVEL_UNSPECIFIED = 0; LEVEL_HIGH = 1 [deprecated = true]; }\n\
        message Req {}\nservice Svc { option deprecated = true; rpc Get(Req) returns (Req) { option deprecated = true; option idempotency_level = IDEMPOTENT; } }\n";
    let changes = diff(&[("x.proto", old)], &[("x.proto", new)]);
    assert_eq!(
        ids(&changes),
        [
            (RuleId::ENUM_OPTION_CHANGED, "fx.Level"),
            (RuleId::ENUM_VALUE_OPTION_CHANGED, "fx.Level.LEVEL_HIGH"),
            (RuleId::RPC_OPTION_CHANGED, "fx.Svc.Get"),
            (RuleId::RPC_OPTION_CHANGED, "fx.Svc.Get"),
            (RuleId::SERVICE_OPTION_CHANGED, "fx.Svc"),
        ]
    );
    let value = &changes[1];
    assert_eq!(value.number, Some(1));
    assert_eq!(value.old, None);
    assert_eq!(
        value.new.as_deref(),
        Some("LEVEL_HIGH = 1 [deprecated = true]")
    );
    assert!(changes.iter().all(|c| c.verdict.worst() == Severity::Safe));
    assert_eq!(changes[4].new.as_deref(), Some("option deprecated = true"));
}

const HTTP: &str = "syntax = \"proto3\";\npackage google.api;\nimport \"google/protobuf/descriptor.proto\";\n\
    message HttpRule { string get = 2; string post = 4; string body = 7; }\n\
    extend google.protobuf.MethodOptions { HttpRule http = 72295728; }\n";

fn api(route: &str, level: &str) -> String {
    format!(
        "syntax = \"proto3\";\npackage fx;\nimport \"google/api/annotations.proto\";\n\
         message Req {{ string id = 1; }}\n\
         service Svc {{ rpc Get(Req) returns (Req) {{ {route} {level} }} }}\n"
    )
}

#[test]
fn a_rest_route_and_get_support_are_judged_per_calling_side() {
    let old = api("option (google.api.http) = { get: \"/v1/{id}\" };", "");
    let new = api(
        "option (google.api.http) = { get: \"/v2/{id}\" };",
        "option idempotency_level = NO_SIDE_EFFECTS;",
    );
    let changes = diff(
        &[("google/api/annotations.proto", HTTP), ("x.proto", &old)],
        &[("google/api/annotations.proto", HTTP), ("x.proto", &new)],
    );
    assert_eq!(ids(&changes)[0], (RuleId::RPC_OPTION_CHANGED, "fx.Svc.Get"));
    let http = changes
        .iter()
        .find(|c| c.message.starts_with("(google.api.http)"))
        .unwrap();
    assert_eq!(http.verdict.json.backward, Severity::Breaking);
    assert_eq!(http.verdict.json.forward, Severity::Breaking);
    assert_eq!(
        http.verdict.wire.worst(),
        Severity::Safe,
        "gRPC is unchanged"
    );
    let get = changes
        .iter()
        .find(|c| c.message.starts_with("idempotency_level"))
        .unwrap();
    assert_eq!(
        (get.verdict.wire.backward, get.verdict.wire.forward),
        (Severity::Safe, Severity::Hazard),
        "new GET clients of old servers"
    );
    assert_eq!(changes.len(), 2);
}

/// A map-valued custom option: the compiler re-encodes it in hash-map order, a different
/// order on each compile. The fingerprint does not depend on that order (it changed from one
/// run to the next on protobuf's v36.0), and still tells different entries apart.
#[test]
fn a_map_valued_option_fingerprints_the_same_on_every_compile() {
    let text = |extra: &str| {
        let entries: String = (0..24)
            .map(|i| format!("entries {{ key: \"k{i}\" value: {i} }} "))
            .collect();
        format!(
            "syntax = \"proto3\";\npackage p;\nimport \"google/protobuf/descriptor.proto\";\n\
             message Labels {{ map<string, int32> entries = 1; }}\n\
             extend google.protobuf.MessageOptions {{ Labels labels = 50001; }}\n\
             message A {{ option (labels) = {{ {entries}{extra} }}; int32 x = 1; }}\n"
        )
    };
    let same = text("");
    let prints: std::collections::BTreeSet<String> = (0..6)
        .map(|_| compile(&[("a.proto", &same)]).fingerprint)
        .collect();
    assert_eq!(prints.len(), 1, "{prints:?}");
    let other = text("entries { key: \"k99\" value: 1 }");
    assert_ne!(
        compile(&[("a.proto", &other)]).fingerprint,
        *prints.first().unwrap()
    );
}
