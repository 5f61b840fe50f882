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
