//! Each file's declarations taken from an earlier set with the same closure
//! (`normalize::Memo`): every version is what it is compiled alone, and the memo is used.

use super::windows::{in_windows, on, shown};
use super::*;

const T_MESSAGE: &str = "syntax = \"proto3\";\npackage t;\nmessage T { int32 n = 1; }\n";
const T_ENUM: &str = "syntax = \"proto3\";\npackage t;\nenum T { T_ZERO = 0; }\n";
const A: &str = "syntax = \"proto3\";\npackage a;\nimport \"t.proto\";\n\
                 message A { t.T x = 1; }\nmessage Other { string s = 1; }\n";
const U: &str = "syntax = \"proto3\";\npackage u;\nmessage U {}\n";
const OPTS: &str = "syntax = \"proto3\";\npackage o;\nimport \"google/protobuf/descriptor.proto\";\n\
                    extend google.protobuf.MessageOptions { string tag = 50000; }\n";
/// Another extension with the same number, from a file `C` does not import (protox links
/// both, and the one linked first reads `C`'s option).
const CLASH: &str = "syntax = \"proto3\";\npackage q;\nimport \"google/protobuf/descriptor.proto\";\n\
                     extend google.protobuf.MessageOptions { string other = 50000; }\n";
const C: &str = "syntax = \"proto3\";\npackage c;\nimport \"opts.proto\";\n\
                 message C { option (o.tag) = \"x\"; int32 n = 1; }\n";

/// Sets `optimize_for` without importing `descriptor.proto`: it is read through the set's.
const F: &str = "syntax = \"proto3\";\npackage f;\noption optimize_for = SPEED;\nmessage F {}\n";
/// A repository's own `descriptor.proto`, as small as `F` needs, naming value 1 `SPEED`.
const DESCRIPTOR_SPEED: &str = "syntax = \"proto2\";\npackage google.protobuf;\n\
    message FileOptions {\n  enum OptimizeMode { SPEED = 1; }\n  \
    optional OptimizeMode optimize_for = 9;\n  extensions 1000 to max;\n}\n";
/// The same, naming value 1 `FAST`.
const DESCRIPTOR_FAST: &str = "syntax = \"proto2\";\npackage google.protobuf;\n\
    message FileOptions {\n  enum OptimizeMode { FAST = 1; }\n  \
    optional OptimizeMode optimize_for = 9;\n  extensions 1000 to max;\n}\n";
const DESCRIPTOR: &str = "google/protobuf/descriptor.proto";

fn versions() -> Vec<Vec<SourceRef<'static>>> {
    vec![
        vec![src("a.proto", "a1", A), src("t.proto", "t1", T_MESSAGE)],
        // `a.proto` as before: taken from the memo.
        vec![
            src("a.proto", "a1", A),
            src("t.proto", "t1", T_MESSAGE),
            src("u.proto", "u1", U),
        ],
        // Its import changed: `A.x` is an enum now, though `a.proto` is the same blob.
        vec![src("a.proto", "a1", A), src("t.proto", "t2", T_ENUM)],
        vec![src("c.proto", "c1", C), src("opts.proto", "o1", OPTS)],
        // `C`'s closure as before, but its custom option reads as the other extension.
        vec![
            src("c.proto", "c1", C),
            src("opts.proto", "o1", OPTS),
            src("b.proto", "q1", CLASH),
        ],
        vec![
            src("c.proto", "c1", C),
            src("opts.proto", "o1", OPTS),
            src("u.proto", "u1", U),
        ],
        vec![
            src("f.proto", "f1", F),
            src(DESCRIPTOR, "d1", DESCRIPTOR_SPEED),
        ],
        // `f.proto`'s closure as before (itself), but its option's value reads `FAST` now.
        vec![
            src("f.proto", "f1", F),
            src(DESCRIPTOR, "d2", DESCRIPTOR_FAST),
        ],
        vec![
            src("f.proto", "f1", F),
            src(DESCRIPTOR, "d2", DESCRIPTOR_FAST),
            src("u.proto", "u1", U),
        ],
    ]
}

#[test]
fn a_file_taken_from_an_earlier_set_is_what_it_is_alone() {
    let versions = versions();
    let alone: Vec<String> = versions
        .iter()
        .map(|v| shown(&Cache::with_store(None).compile(v)))
        .collect();
    // The import's change shows in the unchanged file's message.
    assert!(alone[0].contains("Message(\"t.T\")"), "{}", alone[0]);
    assert!(alone[2].contains("Enum(\"t.T\")"), "{}", alone[2]);
    assert!(
        alone[3].contains("\"(o.tag)\": \"\\\"x\\\"\""),
        "{}",
        alone[3]
    );
    assert!(
        alone[4].contains("\"(q.other)\": \"\\\"x\\\"\""),
        "{}",
        alone[4]
    );
    for threads in [1, 2] {
        let mut cache = Cache::with_store(None);
        let together = on(threads, || in_windows(&mut cache, &versions));
        for (i, (t, a)) in together.iter().zip(&alone).enumerate() {
            assert!(shown(t) == *a, "{threads} threads: version {i} differs");
        }
        let (taken, all) = cache.stats.files_memo;
        assert!(
            taken > 0 && taken < all,
            "{threads} threads: {taken} of {all}"
        );
    }
}

/// A memo entry holds the declarations its set shared, not the copies sharing replaced: a
/// later set taking them from the memo has nothing left to replace.
#[test]
fn a_memo_entry_holds_the_shared_declarations() {
    const T_MORE: &str = "syntax = \"proto3\";\npackage t;\nmessage T { int32 n = 1; }\n\
                          message More {}\n";
    let versions = [
        vec![src("a.proto", "a1", A), src("t.proto", "t1", T_MESSAGE)],
        // `a.proto`'s closure changed (not what it declares): normalized again, then its
        // declarations replaced by the first version's.
        vec![src("a.proto", "a1", A), src("t.proto", "t3", T_MORE)],
        // Taken from the memo.
        vec![
            src("a.proto", "a1", A),
            src("t.proto", "t3", T_MORE),
            src("u.proto", "u1", U),
        ],
    ];
    let mut cache = Cache::with_store(None);
    let [v0, v1, v2] = versions.each_ref().map(|v| {
        let before = (cache.stats.decls_shared, cache.stats.files_memo.0);
        let c = cache.compile(v);
        let after = (cache.stats.decls_shared, cache.stats.files_memo.0);
        (c, after.0 - before.0, after.1 - before.1)
    });
    assert_eq!((v0.1, v0.2), (0, 0));
    // `A`, `Other` and `T` replaced; nothing from the memo.
    assert_eq!((v1.1, v1.2), (3, 0));
    // `a.proto` and `t.proto` from the memo, already shared.
    assert_eq!((v2.1, v2.2), (0, 2));
    let a = |c: &Compiled| c.schema.content.messages["a.A"].clone();
    assert!(Arc::ptr_eq(&a(&v0.0), &a(&v2.0)));
}

/// The compiler's own `descriptor.proto` (no blob) through protox in one set and through
/// protoc in the next (an editions file imports it): protoc's is another version, so it has
/// a closure key, a digest and declarations of its own.
#[test]
fn a_file_of_each_compiler_is_its_own() {
    const P: &str = "syntax = \"proto3\";\npackage p;\n\
                     import \"google/protobuf/descriptor.proto\";\n\
                     message P { google.protobuf.FileOptions o = 1; }\n";
    const E: &str = "edition = \"2023\";\npackage e;\n\
                     import \"google/protobuf/descriptor.proto\";\n\
                     message E { google.protobuf.FileOptions o = 1; }\n";
    let versions = [vec![src("p.proto", "p1", P)], vec![src("e.proto", "e1", E)]];
    let alone: Vec<String> = versions
        .iter()
        .map(|v| shown(&Cache::with_store(None).compile(v)))
        .collect();
    let mut cache = Cache::with_store(None);
    let together = on(1, || in_windows(&mut cache, &versions));
    for (i, (t, a)) in together.iter().zip(&alone).enumerate() {
        assert!(shown(t) == *a, "version {i} differs");
    }
}

// Found by review: what a file's options say where its set's `descriptor.proto` is not
// prost-reflect's, and a custom option read through another extension.

/// Each version compiled in windows with one cache (1 and 2 threads) is what it is alone;
/// returns the results alone.
fn each_as_alone(versions: &[Vec<SourceRef<'static>>]) -> Vec<String> {
    let alone: Vec<String> = versions
        .iter()
        .map(|v| shown(&Cache::with_store(None).compile(v)))
        .collect();
    for threads in [1, 2] {
        let mut cache = Cache::with_store(None);
        let together = on(threads, || in_windows(&mut cache, versions));

        for (i, (t, a)) in together.iter().zip(&alone).enumerate() {
            let t = shown(t);
            if t != *a {
                let at = t.bytes().zip(a.bytes()).take_while(|(x, y)| x == y).count();
                let lo = at.saturating_sub(200);
                panic!(
                    "{threads} threads: version {i} differs at byte {at}\n--- together: ...{}...\n--- alone:    ...{}...",
                    &t[lo..(at + 200).min(t.len())],
                    &a[lo..(at + 200).min(a.len())]
                );
            }
        }
    }
    alone
}

/// A repository's own descriptor.proto in proto3: an option set to its default value is
/// not "present" when read through it, so the file's entry records no field read, and a
/// set whose (proto2) descriptor.proto shows the option takes the entry anyway.
#[test]
fn an_option_at_its_default_where_presence_is_implicit() {
    const FB: &str =
        "syntax = \"proto3\";\npackage f;\noption java_multiple_files = false;\nmessage F {}\n";
    const D3: &str = "syntax = \"proto3\";\npackage google.protobuf;\n\
        message FileOptions {\n  bool java_multiple_files = 10;\n}\n";
    const D2: &str = "syntax = \"proto2\";\npackage google.protobuf;\n\
        message FileOptions {\n  optional bool java_multiple_files = 10;\n}\n";
    let versions = vec![
        vec![src("f.proto", "f1", FB), src(DESCRIPTOR, "d3", D3)],
        vec![src("f.proto", "f1", FB), src(DESCRIPTOR, "d2", D2)],
    ];
    let alone = each_as_alone(&versions);
    assert!(alone[1].contains("java_multiple_files"), "{}", alone[1]);
}

/// A file's options are interpreted (at link) through the descriptor.proto the pool holds
/// at that moment: the repository's own when a file linked earlier imported it, else
/// prost-reflect's. Its key and the check only see the set's at normalize time.
#[test]
fn options_interpreted_before_the_sets_descriptor_is_linked() {
    const FS: &str =
        "syntax = \"proto3\";\npackage f;\noption optimize_for = SPEED;\nmessage F {}\n";
    // SPEED is 3 here, 1 in prost-reflect's descriptor.proto; 1 is CODE_SIZE here.
    const DR: &str = "syntax = \"proto2\";\npackage google.protobuf;\n\
        message FileOptions {\n  enum OptimizeMode { CODE_SIZE = 1; SPEED = 3; }\n  \
        optional OptimizeMode optimize_for = 9;\n  \
        repeated UninterpretedOption uninterpreted_option = 999;\n}\n\
        message UninterpretedOption {}\n";
    const AI: &str = "syntax = \"proto3\";\npackage a;\nimport \"google/protobuf/descriptor.proto\";\nmessage A {}\n";
    let versions = vec![
        // a.proto links descriptor.proto before f.proto: SPEED read as 3.
        vec![
            src("a.proto", "a1", AI),
            src("f.proto", "f1", FS),
            src(DESCRIPTOR, "dr", DR),
        ],
        // f.proto links first: SPEED through prost-reflect's (1), read back as CODE_SIZE.
        vec![src("f.proto", "f1", FS), src(DESCRIPTOR, "dr", DR)],
    ];
    let alone = each_as_alone(&versions);
    assert!(alone[1].contains("CODE_SIZE"), "{}", alone[1]);
}

/// Two option fields in a oneof of the repository's descriptor.proto: decoding keeps the
/// last, so the entry records one field; a set whose descriptor has them apart shows both.
#[test]
fn options_in_a_oneof_of_the_sets_descriptor() {
    const FO: &str = "syntax = \"proto3\";\npackage f;\noption java_multiple_files = true;\n\
        option java_generate_equals_and_hash = true;\nmessage F {}\n";
    const DO: &str = "syntax = \"proto2\";\npackage google.protobuf;\n\
        message FileOptions {\n  oneof o {\n    bool java_multiple_files = 10;\n    \
        bool java_generate_equals_and_hash = 20;\n  }\n}\n";
    const DP: &str = "syntax = \"proto2\";\npackage google.protobuf;\n\
        message FileOptions {\n  optional bool java_multiple_files = 10;\n  \
        optional bool java_generate_equals_and_hash = 20;\n}\n";
    let versions = vec![
        vec![src("f.proto", "f1", FO), src(DESCRIPTOR, "do", DO)],
        vec![src("f.proto", "f1", FO), src(DESCRIPTOR, "dp", DP)],
    ];
    let alone = each_as_alone(&versions);
    assert!(alone[1].contains("java_multiple_files"), "{}", alone[1]);
}

/// The digest memo (closure key + custom-options flag): `c.proto`'s map-valued custom option
/// is read as another extension of the same number in the first set (its digest is then its
/// bytes), as its own in the second (hashed canonically): the second takes the first's.
#[test]
fn a_map_valued_custom_option_read_as_another_extension() {
    const OPTS_MAP: &str = "syntax = \"proto3\";\npackage o;\nimport \"google/protobuf/descriptor.proto\";\n\
        message Tags { map<string, string> m = 1; }\n\
        extend google.protobuf.MessageOptions { Tags tags = 50000; }\n";
    const CM: &str = "syntax = \"proto3\";\npackage c;\nimport \"opts.proto\";\n\
        message C { option (o.tags) = { m { key: \"a\" value: \"b\" } }; int32 n = 1; }\n";
    const CLASH_BYTES: &str = "syntax = \"proto3\";\npackage q;\nimport \"google/protobuf/descriptor.proto\";\n\
        message Other { repeated bytes m = 1; }\n\
        extend google.protobuf.MessageOptions { Other other = 50000; }\n";
    let versions = vec![
        vec![
            src("c.proto", "c1", CM),
            src("opts.proto", "o1", OPTS_MAP),
            src("b.proto", "q2", CLASH_BYTES),
        ],
        vec![src("c.proto", "c1", CM), src("opts.proto", "o1", OPTS_MAP)],
    ];
    let alone = Cache::with_store(None).compile(&versions[1]);
    let mut cache = Cache::with_store(None);
    let together = on(1, || in_windows(&mut cache, &versions));
    assert_eq!(
        together[1].schema.fingerprint, alone.schema.fingerprint,
        "version 1's fingerprint differs from its own alone"
    );
}
