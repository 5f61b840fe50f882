//! The normalized model of one file set: what each declaration carries.

use protolapse::schema::model::{Cardinality, FieldType, Presence, Scalar};
use protolapse::schema::{Cache, SourceRef, Status};

const LEGACY: &str = r#"syntax = "proto2";
package old;
option java_package = "com.example.old";

// A record.
message Rec {
  required string device = 1;
  optional int32 offset = 2 [default = 7];
  repeated int32 samples = 3 [packed = true];
  optional Level level = 4 [deprecated = true];
  reserved 10 to 12, 20;
  reserved "gone";
  extensions 100 to 199;
  optional group Blob = 5 { optional bytes data = 1; }
}

enum Level { LOW = 0; HIGH = 1; }
"#;

const MODERN: &str = r#"syntax = "proto3";
package new.v1;
import "old.proto";
import "google/protobuf/timestamp.proto";

message Msg {
  optional double maybe = 1;
  int32 plain = 2 [json_name = "PLAIN"];
  oneof choice {
    string text = 3;
    old.Rec rec = 4;
  }
  map<string, Nested> items = 5;
  repeated int64 numbers = 6;
  google.protobuf.Timestamp at = 7;
  message Nested { Color color = 1; }
  enum Color { COLOR_UNSPECIFIED = 0; RED = 1; }
}

service Svc {
  // Streams.
  rpc Watch(stream Msg) returns (stream Msg.Nested);
}
"#;

#[test]
fn every_declaration_is_modelled() {
    let mut cache = Cache::new();
    let out = cache.compile(&[
        SourceRef {
            path: "old.proto",
            blob: "1",
            text: Ok(LEGACY),
        },
        SourceRef {
            path: "new.proto",
            blob: "2",
            text: Ok(MODERN),
        },
    ]);
    assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
    let s = &out.schema;
    let c = &s.content;

    let old = &c.files["old.proto"];
    assert_eq!(
        (old.syntax.as_str(), old.package.as_str()),
        ("proto2", "old")
    );
    assert_eq!(old.options["java_package"], "\"com.example.old\"");
    assert!(!old.external);
    assert!(c.files["google/protobuf/timestamp.proto"].external);
    assert_eq!(
        c.files["new.proto"].imports,
        ["old.proto", "google/protobuf/timestamp.proto"]
    );

    let rec = &c.messages["old.Rec"];
    assert_eq!(rec.fields[&1].presence, Presence::Required);
    assert_eq!(rec.fields[&1].cardinality, Cardinality::Required);
    assert_eq!(rec.fields[&2].default.as_deref(), Some("7"));
    assert_eq!(rec.fields[&2].presence, Presence::Explicit);
    assert!(rec.fields[&3].packed);
    assert!(rec.fields[&4].deprecated);
    assert_eq!(rec.fields[&4].ty, FieldType::Enum("old.Level".into()));
    assert_eq!(rec.fields[&5].ty, FieldType::Group("old.Rec.Blob".into()));
    assert_eq!(rec.reserved_ranges, [(10, 12), (20, 20)]);
    assert_eq!(rec.reserved_names, ["gone"]);
    assert_eq!(rec.extension_ranges, [(100, 199)]);
    assert!(c.enums["old.Level"].closed);

    let msg = &c.messages["new.v1.Msg"];
    let maybe = &msg.fields[&1];
    assert!(maybe.proto3_optional && maybe.presence == Presence::Explicit);
    assert_eq!(maybe.oneof, None, "synthetic oneofs are not user oneofs");
    assert_eq!(msg.fields[&2].presence, Presence::Implicit);
    assert_eq!(msg.fields[&2].json_name, "PLAIN");
    assert_eq!(msg.fields[&3].json_name, "text");
    assert_eq!(msg.fields[&4].oneof.as_deref(), Some("choice"));
    assert_eq!(msg.fields[&4].ty, FieldType::Message("old.Rec".into()));
    let items = &msg.fields[&5];
    assert_eq!(
        items.map,
        Some((
            FieldType::Scalar(Scalar::String),
            FieldType::Message("new.v1.Msg.Nested".into())
        ))
    );
    assert!(c.messages["new.v1.Msg.ItemsEntry"].map_entry);
    assert!(msg.fields[&6].packed, "proto3 repeated scalars are packed");
    let user_oneofs: Vec<&str> = msg
        .oneofs
        .iter()
        .filter(|o| !o.synthetic)
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(user_oneofs, ["choice"]);
    assert!(!c.enums["new.v1.Msg.Color"].closed);
    assert_eq!(
        c.messages["new.v1.Msg.Nested"].parent.as_deref(),
        Some("new.v1.Msg")
    );

    let watch = &c.services["new.v1.Svc"].methods["Watch"];
    assert!(watch.client_streaming && watch.server_streaming);
    assert_eq!(watch.output, "new.v1.Msg.Nested");

    let doc = |e: &str| s.doc(e).unwrap_or_else(|| panic!("no doc for {e}"));
    assert_eq!(doc("old.Rec").line, 6);
    assert_eq!(doc("old.Rec").comment, "A record.");
    assert_eq!(doc("new.v1.Svc.Watch").comment, "Streams.");
    assert_eq!(doc("new.v1.Msg.plain").line, 8);
    assert_eq!(doc("new.v1.Msg.choice").line, 9);
    assert_eq!(doc("new.v1.Msg.Color.RED").file, "new.proto");
    assert_eq!(doc("old.Level.HIGH").line, 17);
    assert_eq!(doc("old.proto").line, 1);
    assert!(s.root_names().contains(&"new.v1.Svc"));
}
