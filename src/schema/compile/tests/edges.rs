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
