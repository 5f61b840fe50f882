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
            origin: protolapse::schema::Origin::Root,
            path: "old.proto",
            blob: "1",
            text: Ok(LEGACY),
        },
        SourceRef {
            origin: protolapse::schema::Origin::Root,
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
    assert_eq!(&*doc("old.Rec").comment, "A record.");
    assert_eq!(&*doc("new.v1.Svc.Watch").comment, "Streams.");
    assert_eq!(doc("new.v1.Msg.plain").line, 8);
    assert_eq!(doc("new.v1.Msg.choice").line, 9);
    assert_eq!(&*doc("new.v1.Msg.Color.RED").file, "new.proto");
    assert_eq!(doc("old.Level.HIGH").line, 17);
    assert_eq!(doc("old.proto").line, 1);
    assert!(s.root_names().contains(&"new.v1.Svc"));
}

const EXTENDS: &str = r#"syntax = "proto2";
package ext;
import "google/protobuf/descriptor.proto";

message Extendable {
  optional int32 plain = 1;
  extensions 100 to 199;
}

extend Extendable {
  // A file-level extension.
  optional string note = 100 [default = "none", deprecated = true];
  repeated int32 samples = 101 [packed = true];
}

message Scope {
  extend Extendable {
    // Declared inside a message.
    optional Scope scoped = 150;
  }
}

extend google.protobuf.FieldOptions {
  optional bool sensitive = 50001;
}

message UsesOption {
  optional string secret = 1 [(sensitive) = true, ctype = CORD];
}
"#;

const PROTO3_OPTION: &str = r#"syntax = "proto3";
package ext3;
import "google/protobuf/descriptor.proto";

extend google.protobuf.MessageOptions {
  string owner = 50002;
}
"#;

fn compile_extends(text: &str) -> protolapse::schema::Compiled {
    let out = Cache::new().compile(&[
        SourceRef {
            origin: protolapse::schema::Origin::Root,
            path: "ext.proto",
            blob: text,
            text: Ok(text),
        },
        SourceRef {
            origin: protolapse::schema::Origin::Root,
            path: "ext3.proto",
            blob: "3",
            text: Ok(PROTO3_OPTION),
        },
    ]);
    (*out).clone()
}

#[test]
fn extensions_are_modelled_by_extendee_and_number() {
    let out = compile_extends(EXTENDS);
    assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
    let s = &out.schema;
    let c = &s.content;
    let numbers: Vec<u32> = c
        .extensions_of("ext.Extendable")
        .map(|e| e.field.number)
        .collect();
    assert_eq!(numbers, [100, 101, 150]);
    let note = &c.extensions["ext.Extendable"][&100];
    assert_eq!(note.full_name, "ext.note");
    assert_eq!(note.scope, None);
    assert_eq!(note.file, "ext.proto");
    assert_eq!(note.field.name, "note");
    assert_eq!(note.field.json_name, "[ext.note]", "the ProtoJSON key");
    assert_eq!(note.field.default.as_deref(), Some("none"));
    assert!(note.field.deprecated);
    assert_eq!(note.field.presence, Presence::Explicit);
    assert!(
        note.field.options.is_empty(),
        "deprecated is modelled, not an option"
    );
    let samples = &c.extensions["ext.Extendable"][&101];
    assert!(samples.field.packed, "explicit [packed = true] in proto2");
    assert_eq!(samples.field.cardinality, Cardinality::Repeated);
    let scoped = c.extension("ext.Scope.scoped").unwrap();
    assert_eq!(scoped.scope.as_deref(), Some("ext.Scope"));
    assert_eq!(scoped.field.ty, FieldType::Message("ext.Scope".into()));
    let owner = &c.extensions["google.protobuf.MessageOptions"][&50002];
    assert_eq!(owner.file, "ext3.proto");
    assert_eq!(
        owner.field.presence,
        Presence::Explicit,
        "a proto3 extension has presence"
    );
    // A custom option on a field is an option of that field; ctype too.
    let secret = &c.messages["ext.UsesOption"].fields[&1];
    assert_eq!(secret.options["(ext.sensitive)"], "true");
    assert_eq!(secret.options["ctype"], "CORD");
    // Extensions have their location and comment.
    let doc = |e: &str| s.doc(e).unwrap_or_else(|| panic!("no doc for {e}"));
    assert_eq!(&*doc("ext.note").comment, "A file-level extension.");
    assert_eq!(doc("ext.note").line, 12);
    assert_eq!(
        &*doc("ext.Scope.scoped").comment,
        "Declared inside a message."
    );
    assert_eq!(&*doc("ext3.owner").file, "ext3.proto");
}

#[test]
fn an_extension_change_is_a_content_change_and_changes_the_closure_fingerprint() {
    use protolapse::schema::fingerprint::of_types;
    let a = compile_extends(EXTENDS);
    let b = compile_extends(&EXTENDS.replace(
        "repeated int32 samples = 101",
        "repeated int64 samples = 101",
    ));
    assert_eq!(b.status, Status::Complete, "{:?}", b.diagnostics);
    assert_ne!(a.schema.content, b.schema.content);
    let (ca, cb) = (&a.schema.content, &b.schema.content);
    assert_eq!(ca.messages, cb.messages, "no message changed");
    assert_ne!(
        of_types(ca, ["ext.Extendable"]),
        of_types(cb, ["ext.Extendable"]),
        "the extendee's closure holds its extensions"
    );
    assert_eq!(
        of_types(ca, ["ext.UsesOption"]),
        of_types(cb, ["ext.UsesOption"])
    );
    // Compiled twice, the same content and fingerprints.
    let again = compile_extends(EXTENDS);
    assert_eq!(again.schema.content, a.schema.content);
    assert_eq!(again.schema.fingerprint, a.schema.fingerprint);
}

/// protoc rejects two extensions of one message with one number; protox links them. The
/// model keeps the first by full name, whatever the declaration order, and says so.
#[test]
fn two_extensions_with_one_number_keep_the_first_and_say_so() {
    let text = EXTENDS.replace("optional Scope scoped = 150", "optional Scope scoped = 100");
    let out = compile_extends(&text);
    let kept = &out.schema.content.extensions["ext.Extendable"][&100];
    assert_eq!(kept.full_name, "ext.Scope.scoped", "the first by full name");
    assert!(
        out.diagnostics.iter().any(|d| d
            .message
            .starts_with("extension `ext.note` uses number 100")),
        "{:?}",
        out.diagnostics
    );
}
