//! The on-disk cache and sets it cannot put together from parts alone: a set is compiled
//! in part (the files whose parts miss) only when that part can give what the set needs, so
//! that no set is compiled in part first, then whole.

use protolapse::schema::Cache;

use crate::cache::{compile_all, open, shown};
use crate::common::Repo;

/// The text of a file declaring one message in package `p`.
fn file(name: &str) -> String {
    format!("syntax = \"proto3\";\npackage p;\nmessage {name} {{ int32 a = 1; }}\n")
}

/// A new version whose files' parts are all there but one, and two of them declare the
/// same message: its compile fails whatever the missing file holds, so the set is compiled
/// whole at once, not in part first and then whole.
#[test]
fn a_set_whose_parts_clash_is_compiled_whole_at_once() {
    let mut r = Repo::new();
    for f in ["F1", "F2", "F3", "F4"] {
        r.write(&format!("{}.proto", f.to_lowercase()), &file(f));
    }
    r.write("a.proto", &file("M"));
    r.commit("v1");
    r.tag("v1.0.0");
    r.remove("a.proto");
    r.write("b.proto", &file("M"));
    r.commit("v2");
    r.tag("v2.0.0");
    let dir = tempfile::tempdir().unwrap();
    compile_all(&r, &mut Cache::with_store(open(dir.path(), u64::MAX)));
    // a.proto back beside b.proto, and one new file: only its part is missing.
    r.write("a.proto", &file("M")).write("n.proto", &file("N"));
    r.commit("v3");
    r.tag("v3.0.0");
    let reference = shown(&compile_all(&r, &mut Cache::with_store(None)));
    assert!(reference[2].contains("already defined"), "{}", reference[2]);
    let mut next = Cache::with_store(open(dir.path(), u64::MAX));
    assert_eq!(shown(&compile_all(&r, &mut next)), reference);
    let d = &next.stats.disk;
    assert_eq!(
        (d.sets_hit, d.sets_missed, d.sets_in_vain, d.sets_partial),
        (2, 1, 0, 0),
        "{d:?}"
    );
}

/// A file that does not compile, in version after version beside a new file each time: a
/// set missing its part is compiled whole at once (its part would fail again), not in part
/// first and then whole.
#[test]
fn a_file_that_failed_is_not_compiled_in_part_again() {
    let mut r = Repo::new();
    for f in ["F1", "F2", "F3", "F4", "F5"] {
        r.write(&format!("{}.proto", f.to_lowercase()), &file(f));
    }
    r.write(
        "bad.proto",
        "syntax = \"proto3\";\npackage p;\nmessage Bad { Missing m = 1; }\n",
    );
    r.commit("v1");
    r.tag("v1.0.0");
    for n in ["N1", "N2"] {
        r.write(&format!("{}.proto", n.to_lowercase()), &file(n));
        r.commit(n);
        r.tag(&format!("v1.0.{}", &n[1..]));
    }
    let reference = shown(&compile_all(&r, &mut Cache::with_store(None)));
    assert!(
        reference.iter().all(|c| c.contains("Missing")),
        "{reference:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let mut cache = Cache::with_store(open(dir.path(), u64::MAX));
    assert_eq!(shown(&compile_all(&r, &mut cache)), reference);
    let d = &cache.stats.disk;
    assert_eq!((d.sets_missed, d.sets_in_vain), (3, 0), "{d:?}");
}
