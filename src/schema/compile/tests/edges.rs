//! Fingerprints, hostile names, origins and option text.

use super::*;

mod fingerprints {
    use super::*;

    /// A file only protoc brings in (an excluded editions file an editions file imports) still keys the
    /// fingerprint memo by its blob: a version's fingerprint is the same whatever was
    /// compiled before it.
    #[test]
    fn a_fingerprint_does_not_depend_on_what_came_before() {
        let e =
            "edition = \"2023\";\npackage e;\nimport \"dep.proto\";\nmessage E { dep.D d = 1; }\n";
        let dep = |body: &'static str, blob: &'static str| SourceRef {
            path: "dep.proto",
            blob,
            text: Ok(body),
            origin: Origin::Excluded,
        };
        let v1 = [
            src("e.proto", "1", e),
            dep(
                "edition = \"2023\";\npackage dep;\nmessage D { int32 a = 1; }\n",
                "d1",
            ),
        ];
        let v2 = [
            src("e.proto", "1", e),
            dep(
                "edition = \"2023\";\npackage dep;\nmessage D { string a = 1; }\n",
                "d2",
            ),
        ];
        let mut history = Cache::new();
        history.compile(&v1);
        let in_history = history.compile(&v2);
        let alone = Cache::new().compile(&v2);
        assert_eq!(
            in_history.status,
            Status::Complete,
            "{:?}",
            in_history.diagnostics
        );
        assert_eq!(in_history.schema.fingerprint, alone.schema.fingerprint);
    }
}

mod hostile_and_edges {
    use super::*;
    use crate::schema::model::{Cardinality, Presence};

    #[test]
    fn a_file_name_protoc_would_read_as_flags_is_not_run() {
        for name in ["@x.proto", "-x.proto"] {
            let out = Cache::new().compile(&[src(name, "1", "edition = \"2023\";\npackage x;\n")]);
            assert_eq!(out.status, Status::Failed);
            assert!(
                out.diagnostics[0]
                    .message
                    .contains("would be read by protoc as flags"),
                "{:?}",
                out.diagnostics
            );
        }
    }

    #[test]
    fn legacy_required_message_fields_are_required_like_proto2() {
        let p2 = "syntax = \"proto2\";\npackage r;\nmessage Sub { optional int32 x = 1; }\nmessage M {\n  required Sub s = 1;\n  required int32 n = 2;\n}\n";
        let e = "edition = \"2023\";\npackage r;\nmessage Sub { int32 x = 1; }\nmessage M {\n  Sub s = 1 [features.field_presence = LEGACY_REQUIRED];\n  int32 n = 2 [features.field_presence = LEGACY_REQUIRED];\n}\n";
        let mut cache = Cache::new();
        let old = cache.compile(&[src("r.proto", "1", p2)]);
        let new = cache.compile(&[src("r.proto", "2", e)]);
        assert_eq!(new.status, Status::Complete, "{:?}", new.diagnostics);
        for n in [1, 2] {
            let (o, f) = (
                &old.schema.content.messages["r.M"].fields[&n],
                &new.schema.content.messages["r.M"].fields[&n],
            );
            assert_eq!(
                (f.presence, f.cardinality),
                (Presence::Required, Cardinality::Required)
            );
            assert_eq!((o.presence, o.cardinality), (f.presence, f.cardinality));
        }
    }

    #[test]
    fn where_a_file_came_from_is_part_of_what_was_compiled() {
        let text = "syntax = \"proto3\";\npackage o;\nmessage O {}\n";
        let mut cache = Cache::new();
        let judged = cache.compile(&[src("o.proto", "1", text)]);
        let excluded = cache.compile(&[SourceRef {
            origin: Origin::Excluded,
            ..src("o.proto", "1", text)
        }]);
        assert_eq!((judged.files_total, excluded.files_total), (1, 0));
        assert!(
            excluded.schema.content.files.is_empty()
                || excluded.schema.own_files().next().is_none()
        );
    }
}

mod option_text {
    use super::*;

    /// prost-reflect writes a map in hash order, which changes from run to run; the model's
    /// option text lists map entries by key, so equal options compare equal.
    #[test]
    fn map_entries_in_an_option_value_are_in_key_order() {
        let keys: Vec<String> = (0..20).map(|i| format!("k{i:02}")).collect();
        let entries: String = keys
            .iter()
            .rev()
            .map(|k| format!(" m {{ key: \"{k}\" value: 1 }}"))
            .collect();
        let text = format!(
            "syntax = \"proto3\";\nimport \"google/protobuf/descriptor.proto\";\n\
             message Opt {{ map<string, int32> m = 1; }}\n\
             extend google.protobuf.MessageOptions {{ Opt opt = 50000; }}\n\
             message Tagged {{ option (opt) = {{{entries} }}; }}\n"
        );
        let out = Cache::new().compile(&[src("o.proto", "1", &text)]);
        assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
        let value = &out.schema.content.messages["Tagged"].options["(opt)"];
        let found: Vec<&str> = value
            .split("key:\"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
            .collect();
        assert_eq!(found, keys, "{value}");
    }
}

mod shared_declarations {
    use super::*;

    /// Sets compiled apart (no on-disk cache; the second with a diagnostic) hold one value
    /// of each declaration that did not change, even when its file's text did (a comment),
    /// and their own value of each one that did.
    #[test]
    fn unchanged_declarations_are_one_value_across_versions() {
        let a1 = "syntax = \"proto3\";\npackage p;\nmessage A { int32 x = 1; }\n";
        let a2 =
            "syntax = \"proto3\";\npackage p;\n// now with a comment\nmessage A { int32 x = 1; }\n";
        let b1 = "syntax = \"proto3\";\npackage p;\nmessage B { int32 y = 1; }\n";
        let b2 = "syntax = \"proto3\";\npackage p;\nmessage B { string y = 1; }\n";
        let broken = "syntax = \"proto3\";\npackage p;\nimport \"missing.proto\";\n";
        let mut cache = Cache::with_store(None);
        let v1 = cache.compile(&[src("a.proto", "a1", a1), src("b.proto", "b1", b1)]);
        let v2 = cache.compile(&[
            src("a.proto", "a2", a2),
            src("b.proto", "b2", b2),
            src("c.proto", "c1", broken),
        ]);
        assert_eq!(v1.status, Status::Complete, "{:?}", v1.diagnostics);
        assert_eq!(v2.status, Status::Partial, "{:?}", v2.diagnostics);
        let (m1, m2) = (&v1.schema.content.messages, &v2.schema.content.messages);
        assert!(Arc::ptr_eq(&m1["p.A"], &m2["p.A"]));
        assert!(!Arc::ptr_eq(&m1["p.B"], &m2["p.B"]));
        assert_ne!(m1["p.B"], m2["p.B"]);
        assert_eq!(cache.stats.decls_shared, 1);
        // What each version says is what it says compiled alone.
        let alone = Cache::with_store(None).compile(&[
            src("a.proto", "a2", a2),
            src("b.proto", "b2", b2),
            src("c.proto", "c1", broken),
        ]);
        assert_eq!(v2.schema.content, alone.schema.content);
        assert_eq!(v2.schema.fingerprint, alone.schema.fingerprint);
    }
}
