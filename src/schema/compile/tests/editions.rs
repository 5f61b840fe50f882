//! Editions files through protoc: features resolved, errors placed, units batched.

use super::*;

use crate::schema::model::{Cardinality, FieldType, Presence};

const EDITION: &str = r#"edition = "2023";
package e;
import "p3.proto";
option features.field_presence = IMPLICIT;
// The message.
message M {
  int32 a = 1;
  int32 b = 2 [features.field_presence = EXPLICIT];
  M child = 3 [features.message_encoding = DELIMITED];
  repeated int32 r = 4 [features.repeated_field_encoding = EXPANDED];
  repeated int32 packed = 8;
  E e = 5 [features.field_presence = EXPLICIT];
  string s = 6 [features.utf8_validation = NONE];
  int32 req = 7 [features.field_presence = LEGACY_REQUIRED];
  string t = 9;
  p3.Old old = 10;
}
enum E { option features.enum_type = CLOSED; Z = 0; ONE = 1; }
"#;

#[test]
fn editions_files_compile_with_resolved_features() {
    let mut cache = Cache::new();
    let out = cache.compile(&[
        src("e.proto", "1", EDITION),
        src(
            "p3.proto",
            "2",
            "syntax = \"proto3\";\npackage p3;\nmessage Old { int32 x = 1; }\n",
        ),
        src(
            "user.proto",
            "3",
            "syntax = \"proto3\";\npackage u;\nimport \"e.proto\";\nmessage U { e.M m = 1; }\n",
        ),
    ]);
    assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
    assert_eq!(out.how.protoc, ["e.proto", "user.proto"]);
    let c = &out.schema.content;
    assert_eq!(c.files["e.proto"].syntax, "edition 2023");
    assert!(
        c.files["e.proto"].options.is_empty(),
        "{:?}",
        c.files["e.proto"].options
    );
    let m = &c.messages["e.M"];
    let f = |n: u32| &m.fields[&n];
    assert_eq!(f(1).presence, Presence::Implicit);
    assert_eq!(f(2).presence, Presence::Explicit);
    assert_eq!(f(3).ty, FieldType::Group("e.M".into()));
    assert!(!f(4).packed);
    assert!(f(8).packed);
    assert!(!f(6).utf8_verified);
    assert!(f(9).utf8_verified);
    assert_eq!(f(7).presence, Presence::Required);
    assert_eq!(f(7).cardinality, Cardinality::Required);
    assert!(c.enums["e.E"].closed);
    assert!(c.messages.contains_key("u.U"));
    let doc = out.schema.doc("e.M").unwrap();
    assert_eq!((doc.line, &*doc.comment), (6, "The message."));
}

#[test]
fn an_editions_error_keeps_file_and_line() {
    let mut cache = Cache::new();
    let out = cache.compile(&[src(
        "bad.proto",
        "1",
        "edition = \"2023\";\npackage b;\nmessage B {\n  int32 x = 1 [features.field_presence = WRONG];\n}\n",
    )]);
    assert_eq!(out.status, Status::Failed);
    let d = &out.diagnostics[0];
    assert_eq!((d.file.as_str(), d.line), ("bad.proto", 4), "{d:?}");
}

#[test]
fn unknown_editions_are_not_guessed() {
    let mut cache = Cache::new();
    let out = cache.compile(&[src(
        "n.proto",
        "1",
        "edition = \"UNSTABLE\";\npackage n;\nmessage N { int32 x = 1; }\n",
    )]);
    assert_eq!(out.status, Status::Failed, "{:?}", out.diagnostics);
    assert!(
        out.diagnostics[0].message.contains("UNSTABLE"),
        "{:?}",
        out.diagnostics
    );
}

#[test]
fn a_migration_to_editions_keeps_the_meaning() {
    let p3 = "syntax = \"proto3\";\npackage m;\nmessage A {\n  int32 a = 1;\n  optional int32 b = 2;\n  repeated int32 r = 3;\n  string s = 4;\n}\nenum E { Z = 0; }\n";
    let e23 = "edition = \"2023\";\npackage m;\noption features.field_presence = IMPLICIT;\nmessage A {\n  int32 a = 1;\n  int32 b = 2 [features.field_presence = EXPLICIT];\n  repeated int32 r = 3;\n  string s = 4;\n}\nenum E { Z = 0; }\n";
    let mut cache = Cache::new();
    let old = cache.compile(&[src("m.proto", "1", p3)]);
    let new = cache.compile(&[src("m.proto", "2", e23)]);
    assert_eq!(new.status, Status::Complete, "{:?}", new.diagnostics);
    let (o, n) = (
        &old.schema.content.messages["m.A"],
        &new.schema.content.messages["m.A"],
    );
    for (num, of) in &o.fields {
        let nf = &n.fields[num];
        assert_eq!(
            (
                of.presence,
                of.packed,
                of.utf8_verified,
                &of.ty,
                of.cardinality
            ),
            (
                nf.presence,
                nf.packed,
                nf.utf8_verified,
                &nf.ty,
                nf.cardinality
            ),
            "field {num}"
        );
    }
    assert_eq!(
        old.schema.content.enums["m.E"].closed,
        new.schema.content.enums["m.E"].closed
    );
}

#[test]
fn edition_2024_visibility_is_modelled() {
    let mut cache = Cache::new();
    let out = cache.compile(&[
        src(
            "v.proto",
            "1",
            "edition = \"2024\";\npackage v;\nmessage Top { message Nested {} enum Inner { I = 0; } }\nlocal message Hidden {}\nexport enum E { Z = 0; }\n",
        ),
        src(
            "w.proto",
            "2",
            "edition = \"2024\";\npackage w;\noption features.default_symbol_visibility = LOCAL_ALL;\nmessage Private {}\nexport message Public {}\n",
        ),
    ]);
    assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
    let c = &out.schema.content;
    let exported = |n: &str| {
        c.messages
            .get(n)
            .map(|m| m.exported)
            .or_else(|| c.enums.get(n).map(|e| e.exported))
            .unwrap()
    };
    assert!(exported("v.Top"));
    assert!(
        !exported("v.Top.Nested"),
        "2024 exports top-level types only"
    );
    assert!(!exported("v.Top.Inner"));
    assert!(!exported("v.Hidden"));
    assert!(exported("v.E"));
    assert!(
        !exported("w.Private"),
        "the file's default_symbol_visibility is kept"
    );
    assert!(exported("w.Public"));
}

mod batches {
    use super::*;

    #[test]
    fn several_units_in_one_protoc_call_each_get_their_closure() {
        let e = |n: &str| {
            format!(
                "edition = \"2023\";\npackage {n};\nimport \"base.proto\";\nmessage {n} {{ base.B b = 1; }}\n"
            )
        };
        let (a, b, c) = (e("a"), e("b"), e("c"));
        let files = [
            ("a.proto", "1", a.as_str()),
            ("b.proto", "2", b.as_str()),
            ("c.proto", "3", c.as_str()),
            (
                "base.proto",
                "4",
                "syntax = \"proto3\";\npackage base;\nmessage B {}\n",
            ),
        ];
        let refs: Vec<SourceRef<'_>> = files.iter().map(|(p, b, t)| src(p, b, t)).collect();
        let out = Cache::new().compile(&refs);
        assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
        assert_eq!(out.files_ok, 4);
        for m in ["a.a", "b.b", "c.c", "base.B"] {
            assert!(out.schema.content.messages.contains_key(m), "{m}");
        }
    }
}

mod rejected_imports {
    use super::*;

    const BAD: &str =
        "edition = \"2023\";\npackage p;\nmessage Bad {\n  int32 a = 1;\n  int32 b = 1;\n}\n";
    const MID: &str =
        "edition = \"2023\";\npackage m;\nimport \"bad.proto\";\nmessage Mid { p.Bad bad = 1; }\n";
    const TOP: &str =
        "edition = \"2023\";\npackage t;\nimport \"mid.proto\";\nmessage Top { m.Mid mid = 1; }\n";
    const OK: &str = "edition = \"2023\";\npackage o;\nmessage Ok { int32 a = 1; }\n";

    fn whole() -> Vec<SourceRef<'static>> {
        vec![
            src("bad.proto", "b1", BAD),
            src("mid.proto", "m1", MID),
            src("ok.proto", "o1", OK),
            src("top.proto", "t1", TOP),
        ]
    }

    /// The importers of a file protoc rejects are rejected with its diagnostics (not
    /// protoc's cascade of "not found or had errors" and "is not defined"), and give the
    /// same whether the rejected file's unit was compiled in the same call, or known from
    /// an earlier version (then without a call of their own).
    #[test]
    fn importers_of_a_rejected_file_inherit_its_diagnostics() {
        let cold = Cache::with_store(None).compile(&whole());
        assert_eq!(cold.status, Status::Partial, "{:?}", cold.diagnostics);
        let on = |file: &str| -> Vec<&str> {
            cold.diagnostics
                .iter()
                .filter(|d| d.file == file)
                .map(|d| d.message.as_str())
                .collect()
        };
        let [bad] = &cold
            .diagnostics
            .iter()
            .filter(|d| d.file == "bad.proto")
            .collect::<Vec<_>>()[..]
        else {
            panic!("{:?}", cold.diagnostics)
        };
        assert!(bad.message.contains("already been used"), "{bad:?}");
        assert_eq!(bad.line, 5);
        let inherited = format!(
            "protoc rejects its import bad.proto:5:{}: {}",
            bad.column, bad.message
        );
        for importer in ["mid.proto", "top.proto"] {
            assert_eq!(on(importer), [inherited.as_str()], "{importer}");
        }
        assert!(on("ok.proto").is_empty());
        assert!(cold.schema.content.messages.contains_key("o.Ok"));

        // The rejected file known first: its importers inherit without protoc.
        let mut cache = Cache::with_store(None);
        cache.compile(&[src("bad.proto", "b1", BAD), src("ok.proto", "o1", OK)]);
        let before = cache.stats.clone();
        let known = cache.compile(&whole());
        assert_eq!(known.diagnostics, cold.diagnostics);
        assert_eq!(cache.stats.protoc_inherited - before.protoc_inherited, 2);
        assert_eq!(cache.stats.protoc_units - before.protoc_units, 2);
    }

    /// A rejected import that is not judged (excluded by `buf.yaml`) is compiled for what
    /// its importers inherit, and not reported as a file of its own.
    #[test]
    fn an_unjudged_rejected_import_is_inherited_too() {
        let mut files = whole();
        files[0].origin = Origin::Excluded;
        let mut cache = Cache::with_store(None);
        let out = cache.compile(&files);
        assert!(out.diagnostics.iter().all(|d| d.file != "bad.proto"));
        for importer in ["mid.proto", "top.proto"] {
            let on: Vec<&Diagnostic> = out
                .diagnostics
                .iter()
                .filter(|d| d.file == importer)
                .collect();
            assert_eq!(on.len(), 1, "{importer}: {on:?}");
            assert!(
                on[0]
                    .message
                    .starts_with("protoc rejects its import bad.proto:5:"),
                "{importer}: {on:?}"
            );
        }
        assert_eq!(cache.stats.protoc_inherited, 2);
    }
}
