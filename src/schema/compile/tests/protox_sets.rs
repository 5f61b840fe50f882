//! protox's side: sets and blobs compiled once, parses kept while planned, errors located.

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
