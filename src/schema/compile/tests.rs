//! Compiling file sets: sharing, errors, editions through protoc.

use super::*;

fn src<'a>(path: &'a str, blob: &'a str, text: &'a str) -> SourceRef<'a> {
    SourceRef {
        path,
        blob,
        text: Ok(text),
        origin: Origin::Root,
    }
}

mod protox_sets {
    use super::*;

    /// The parses a cache still holds, by (path, blob).
    fn held(cache: &Cache) -> Vec<(&str, &str)> {
        let mut out: Vec<_> = cache
            .parsed
            .keys()
            .map(|(p, b)| (p.as_str(), b.as_str()))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_parse_is_kept_while_a_planned_version_reads_it() {
        let a = "syntax = \"proto3\";\nmessage A { int32 x = 1; }\n";
        let b1 = "syntax = \"proto3\";\nmessage B { int32 y = 1; }\n";
        let b2 = "syntax = \"proto3\";\nmessage B { int64 y = 1; }\n";
        let v1 = [src("a.proto", "a1", a), src("b.proto", "b1", b1)];
        let v2 = [src("a.proto", "a1", a), src("b.proto", "b2", b2)];
        // v1 again, after v2: its set is reused, and the parses it read are spent then.
        let planned = [&v1[..], &v2[..], &v1[..]];

        let mut cache = Cache::new();
        cache.plan(planned);
        cache.compile(&v1);
        assert_eq!(held(&cache), [("a.proto", "a1"), ("b.proto", "b1")]);
        cache.compile(&v2);
        assert_eq!(held(&cache), [("a.proto", "a1"), ("b.proto", "b1")]);
        let again = cache.compile(&v1);
        assert!(held(&cache).is_empty(), "{:?}", held(&cache));
        assert_eq!(again.status, Status::Complete);

        // Without a plan, every parse stays for the sets to come.
        let mut unplanned = Cache::new();
        unplanned.compile(&v1);
        unplanned.compile(&v2);
        assert_eq!(held(&unplanned).len(), 3);
    }

    #[test]
    fn a_parse_given_away_is_read_again_when_an_importer_retries_it() {
        // a.proto fails to link; protox retries it for each importer after the cache gave
        // its only parse away.
        let a = "syntax = \"proto3\";\npackage a;\nmessage A { Missing m = 1; }\n";
        let b = "syntax = \"proto3\";\npackage b;\nimport \"a.proto\";\nmessage B { a.A x = 1; }\n";
        let c = "syntax = \"proto3\";\npackage c;\nimport \"b.proto\";\nmessage C { b.B x = 1; }\n";
        let ok = "syntax = \"proto3\";\npackage d;\nmessage D { int32 x = 1; }\n";
        let v = [
            src("a.proto", "a", a),
            src("b.proto", "b", b),
            src("c.proto", "c", c),
            src("d.proto", "d", ok),
        ];
        let mut planned = Cache::new();
        planned.plan([&v[..]]);
        let given_away = planned.compile(&v);
        assert!(held(&planned).is_empty());
        let kept = Cache::new().compile(&v);
        assert_eq!(given_away.diagnostics, kept.diagnostics);
        assert_eq!(given_away.status, Status::Partial);
        assert_eq!((given_away.files_ok, given_away.files_total), (1, 4));
        let first = &given_away.diagnostics[0];
        assert_eq!((first.file.as_str(), first.line), ("a.proto", 3));
        assert!(
            given_away
                .diagnostics
                .iter()
                .any(|d| d.file == "c.proto" && d.message.contains("a.proto")),
            "{:?}",
            given_away.diagnostics
        );
    }

    #[test]
    fn a_broken_file_leaves_the_rest() {
        let mut cache = Cache::new();
        let out = cache.compile(&[
            src(
                "a.proto",
                "1",
                "syntax = \"proto3\";\nmessage A { int32 x = 1; }\n",
            ),
            src(
                "b.proto",
                "2",
                "syntax = \"proto3\";\nmessage B {\n  int32 y = ;\n}\n",
            ),
        ]);
        assert_eq!(out.status, Status::Partial);
        assert_eq!((out.files_ok, out.files_total), (1, 2));
        assert!(out.schema.content.messages.contains_key("A"));
        let d = &out.diagnostics[0];
        assert_eq!((d.file.as_str(), d.line), ("b.proto", 3));
        assert!(d.column > 1, "{d:?}");
    }

    #[test]
    fn sets_and_blobs_are_compiled_once() {
        let mut cache = Cache::new();
        let a = src("a.proto", "1", "syntax = \"proto3\";\nmessage A {}\n");
        let b = src("b.proto", "2", "syntax = \"proto3\";\nmessage B {}\n");
        cache.compile(&[a, b]);
        cache.compile(&[b, a]);
        cache.compile(&[a]);
        assert_eq!(cache.stats.sets_compiled, 2);
        assert_eq!(cache.stats.sets_reused, 1);
        assert_eq!(cache.stats.blobs_parsed, 2);
    }

    #[test]
    fn link_errors_are_located() {
        let mut cache = Cache::new();
        let out = cache.compile(&[
            src(
                "a.proto",
                "1",
                "syntax = \"proto3\";\npackage p;\nmessage A {}\n",
            ),
            src(
                "b.proto",
                "2",
                "syntax = \"proto3\";\npackage p;\n\nmessage A {}\n",
            ),
            src(
                "c.proto",
                "3",
                "syntax = \"proto3\";\npackage q;\nmessage C {\n  Missing m = 1;\n}\n",
            ),
            src(
                "d.proto",
                "4",
                "syntax = \"proto3\";\n\nimport \"nope.proto\";\n",
            ),
        ]);
        let at = |f: &str| {
            let d = out.diagnostics.iter().find(|d| d.file == f).unwrap();
            (d.line, d.column)
        };
        assert_eq!(at("b.proto"), (4, 1), "{:?}", out.diagnostics);
        assert_eq!(at("c.proto"), (4, 3), "{:?}", out.diagnostics);
        assert_eq!(at("d.proto"), (3, 8), "{:?}", out.diagnostics);
        let hint = super::locate::root_hint(
            "import 'g/x.proto' not found",
            ["src/g/x.proto", "a.proto"].into_iter(),
        );
        assert_eq!(
            hint.as_deref(),
            Some(
                " (help: `src/g/x.proto` exists; if `src` is a proto root, pass -I src or set proto_paths)"
            )
        );
    }

    #[test]
    fn duplicate_symbols_keep_the_first_file() {
        let mut cache = Cache::new();
        let out = cache.compile(&[
            src("a.proto", "1", "syntax = \"proto3\";\nmessage Dup {}\n"),
            src(
                "b_test.proto",
                "2",
                "syntax = \"proto3\";\nmessage Dup {}\n",
            ),
        ]);
        assert_eq!(out.status, Status::Partial);
        assert_eq!(out.diagnostics[0].file, "b_test.proto");
        assert!(
            out.diagnostics[0].message.contains("Dup"),
            "{:?}",
            out.diagnostics
        );
    }
}

mod editions {
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
