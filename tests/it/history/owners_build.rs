//! Compiling as the owners build: an editions migration, a vendored folder reached through a
//! link, an excluded file imported but not judged, and buf dependencies (from the embedded
//! set, and a moved pin as a hazard).

use super::names;
use crate::common::Repo;
use protolapse::history::HistoryOptions;
use protolapse::load;
use protolapse::rules::RuleId;
use protolapse::schema::Status;

fn only(p: &load::Project) -> &load::Loaded {
    assert_eq!(p.versions.len(), 1, "{:?}", names(p));
    &p.versions[0]
}

fn tags_only() -> HistoryOptions {
    HistoryOptions::default()
}

#[test]
fn an_editions_migration_compiles_and_keeps_its_meaning() {
    use protolapse::schema::model::Presence;
    let mut r = Repo::new();
    r.write(
        "a.proto",
        "syntax = \"proto3\";\npackage p;\nmessage A {\n  int32 x = 1;\n  optional int32 y = 2;\n  repeated int32 r = 3;\n  E e = 4;\n}\nenum E { E_UNSPECIFIED = 0; E_ONE = 1; }\n",
    );
    r.commit("proto3");
    r.tag("v1.0.0");
    r.write(
        "a.proto",
        "edition = \"2023\";\npackage p;\noption features.field_presence = IMPLICIT;\nmessage A {\n  int32 x = 1;\n  int32 y = 2 [features.field_presence = EXPLICIT];\n  repeated int32 r = 3;\n  E e = 4;\n}\nenum E { E_UNSPECIFIED = 0; E_ONE = 1; }\n",
    );
    r.commit("edition 2023, same behaviour");
    r.tag("v1.0.1");
    let p = load::load(r.path(), &tags_only(), |_, _| {}).unwrap();
    let (old, new) = (&p.versions[0].compiled, &p.versions[1].compiled);
    assert_eq!(new.status, Status::Complete, "{:?}", new.diagnostics);
    assert_eq!(new.how.protoc, ["a.proto"]);
    let (o, n) = (&old.schema.content, &new.schema.content);
    assert_eq!(n.files["a.proto"].syntax, "edition 2023");
    assert_eq!(n.messages["p.A"].fields[&1].presence, Presence::Implicit);
    assert_eq!(n.messages["p.A"].fields[&2].presence, Presence::Explicit);
    for (num, f) in &o.messages["p.A"].fields {
        let g = &n.messages["p.A"].fields[num];
        assert_eq!(
            (f.presence, f.packed, &f.ty, f.cardinality),
            (g.presence, g.packed, &g.ty, g.cardinality),
            "field {num}"
        );
    }
    assert_eq!(o.enums["p.E"].closed, n.enums["p.E"].closed);
    // Every change of the migration is safe on the wire and in JSON.
    let a = protolapse::policy::analyze(&p, &Default::default()).unwrap();
    let changes = a.versions[1].changes.as_ref().unwrap();
    assert!(
        changes.iter().any(|c| c.rule == RuleId::SYNTAX_CHANGED),
        "{changes:?}"
    );
    for c in changes.iter() {
        assert!(c.verdict.data_safe(), "{c:?}");
    }
}

#[test]
fn a_symlinked_vendor_folder_compiles_complete() {
    let mut r = Repo::new();
    r.write(
        "common-protos/google/api/http.proto",
        "syntax = \"proto3\";\npackage google.api;\nmessage HttpRule { string get = 2; }\n",
    );
    // A second copy elsewhere in the vendor folder would collide if it were judged.
    r.write(
        "common-protos/github.com/x/google/api/http.proto",
        "syntax = \"proto3\";\npackage google.api;\nmessage HttpRule { string get = 2; string put = 3; }\n",
    );
    r.symlink("google", "common-protos/google");
    r.write(
        "api/v1/svc.proto",
        "syntax = \"proto3\";\npackage api.v1;\nimport \"google/api/http.proto\";\nmessage Req { google.api.HttpRule rule = 1; }\n",
    );
    r.commit("vendored");
    r.tag("v1.0.0");
    let p = load::load(r.path(), &tags_only(), |_, _| {}).unwrap();
    let v = only(&p);
    assert_eq!(
        v.compiled.status,
        Status::Complete,
        "{:?}",
        v.compiled.diagnostics
    );
    let c = &v.compiled.schema.content;
    assert!(c.messages.contains_key("api.v1.Req"));
    // The vendored file is compiled for its importer, not judged as the API.
    let http = &c.files["google/api/http.proto"];
    assert!(http.external, "{http:?}");
    assert_eq!(c.messages["google.api.HttpRule"].fields.len(), 1);
    assert!(
        v.version
            .resolution
            .iter()
            .any(|n| n.contains("vendor folder")),
        "{:?}",
        v.version.resolution
    );
}

#[test]
fn an_excluded_file_is_imported_but_not_judged() {
    let mut r = Repo::new();
    r.write(
        "buf.yaml",
        "version: v2\nmodules:\n  - path: proto\n    excludes: [proto/internal]\n",
    );
    r.write(
        "proto/internal/shared.proto",
        "syntax = \"proto3\";\npackage internal;\nmessage Shared { int32 id = 1; }\n",
    );
    r.write(
        "proto/api/v1/a.proto",
        "syntax = \"proto3\";\npackage api.v1;\nimport \"internal/shared.proto\";\nmessage A { internal.Shared s = 1; }\n",
    );
    r.commit("one");
    r.tag("v1.0.0");
    let p = load::load(r.path(), &tags_only(), |_, _| {}).unwrap();
    let v = only(&p);
    assert_eq!(
        v.compiled.status,
        Status::Complete,
        "{:?}",
        v.compiled.diagnostics
    );
    assert_eq!((v.compiled.files_ok, v.compiled.files_total), (1, 1));
    let schema = &v.compiled.schema;
    let own: Vec<&str> = schema.own_files().map(|f| f.name.as_str()).collect();
    assert_eq!(own, ["api/v1/a.proto"]);
    assert_eq!(
        schema.content.files["internal/shared.proto"].origin,
        protolapse::schema::Origin::Excluded
    );
}

#[test]
fn a_buf_dependency_missing_from_the_tree_comes_from_the_embedded_set() {
    let mut r = Repo::new();
    r.write(
        "buf.yaml",
        "version: v2\ndeps:\n  - buf.build/googleapis/googleapis\n",
    );
    r.write(
        "svc/v1/svc.proto",
        "syntax = \"proto3\";\npackage svc.v1;\nimport \"google/api/annotations.proto\";\nimport \"google/api/field_behavior.proto\";\nmessage GetReq { string name = 1 [(google.api.field_behavior) = REQUIRED]; }\nmessage GetResp { string name = 1; }\nservice Svc {\n  rpc Get(GetReq) returns (GetResp) { option (google.api.http) = { get: \"/v1/{name}\" }; }\n}\n",
    );
    r.commit("one");
    r.tag("v1.0.0");
    let p = load::load(r.path(), &tags_only(), |_, _| {}).unwrap();
    let v = only(&p);
    assert_eq!(
        v.compiled.status,
        Status::Complete,
        "{:?}",
        v.compiled.diagnostics
    );
    let how = &v.compiled.how;
    assert_eq!(
        how.resolved.get("google/api/annotations.proto"),
        Some(&protolapse::schema::Origin::Embedded)
    );
    assert!(how.resolved.contains_key("google/api/http.proto"));
    let m = &v.compiled.schema.content.services["svc.v1.Svc"].methods["Get"];
    assert!(
        m.options.contains_key("(google.api.http)"),
        "{:?}",
        m.options
    );
}

#[test]
fn a_moved_buf_dependency_pin_is_a_hazard_not_green() {
    let lock = |commit: &str| {
        format!(
            "version: v2\ndeps:\n  - name: buf.build/googleapis/googleapis\n    commit: {commit}\n    digest: b5:0\n"
        )
    };
    let mut r = Repo::new();
    r.write(
        "buf.yaml",
        "version: v2\ndeps:\n  - buf.build/googleapis/googleapis\n",
    );
    r.write("buf.lock", &lock("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    r.write(
        "svc.proto",
        "syntax = \"proto3\";\npackage svc;\nimport \"google/api/field_behavior.proto\";\nmessage Req { string name = 1 [(google.api.field_behavior) = REQUIRED]; }\n",
    );
    r.commit("one");
    r.tag("v1.0.0");
    r.write("buf.lock", &lock("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"));
    r.commit("bump googleapis");
    r.tag("v1.0.1");
    let p = load::load(r.path(), &tags_only(), |_, _| {}).unwrap();
    assert_eq!(
        p.versions[1].version.dependencies[0].commit,
        "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    );
    // The schema text is the same: without the pin, this would pass as unchanged.
    assert!(p.versions[1].unchanged_since.is_some());
    let a = protolapse::policy::analyze(&p, &Default::default()).unwrap();
    let h: Vec<_> = a
        .hazards
        .iter()
        .filter(|h| h.kind == protolapse::policy::HazardKind::DependencyChanged)
        .collect();
    assert_eq!(h.len(), 1, "{:?}", a.hazards);
    assert_eq!(h[0].element, "buf.build/googleapis/googleapis");
    assert_eq!(h[0].versions, ["v1.0.0", "v1.0.1"]);
    assert!(h[0].message.contains("not judged"), "{}", h[0].message);
}
