//! Windows of sets compiled side by side: each set gives what it gives alone, whatever
//! compiles beside it or before it, on any number of threads; a window takes what fits; a
//! panic fails its set only.

use super::*;

/// Runs `f` in a pool of `threads` threads.
pub(super) fn on<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// Every version's result through windows, in order.
pub(super) fn in_windows(cache: &mut Cache, versions: &[Vec<SourceRef<'_>>]) -> Vec<Arc<Compiled>> {
    let all: Vec<&[SourceRef<'_>]> = versions.iter().map(Vec::as_slice).collect();
    cache.plan(all.iter().copied());
    let mut out = Vec::new();
    while out.len() < all.len() {
        let window = cache.compile_window(&all[out.len()..]);
        assert!(!window.is_empty());
        out.extend(window);
    }
    out
}

/// What a version shows of its compile.
pub(super) fn shown(c: &Compiled) -> String {
    format!("{c:?}")
}

const BASE1: &str = "syntax = \"proto3\";\npackage base;\nmessage B { int32 x = 1; }\n";
const BASE2: &str = "syntax = \"proto3\";\npackage base;\nmessage B { int64 x = 1; }\n";

fn edition(field: &str) -> String {
    format!(
        "edition = \"2023\";\npackage e;\nimport \"base.proto\";\nmessage E {{\n  base.B b = 1;\n  {field}\n}}\n"
    )
}

/// Seven versions: an editions file in three versions (two in one window, one path two
/// texts), its import changed, a file that does not link, one that does not parse, and a
/// version equal to the first.
fn versions(texts: &[String; 3]) -> Vec<Vec<SourceRef<'_>>> {
    let [e1, e2, e3] = texts;
    let bad = "syntax = \"proto3\";\npackage c;\nmessage Bad { Missing m = 1; }\n";
    let unparsable = "syntax = \"proto3\";\nmessage {\n";
    vec![
        vec![src("e.proto", "e1", e1), src("base.proto", "b1", BASE1)],
        vec![src("e.proto", "e2", e2), src("base.proto", "b1", BASE1)],
        vec![
            src("e.proto", "e2", e2),
            src("base.proto", "b1", BASE1),
            src("c.proto", "c1", bad),
        ],
        vec![src("e.proto", "e2", e2), src("base.proto", "b2", BASE2)],
        vec![
            src("e.proto", "e3", e3),
            src("base.proto", "b2", BASE2),
            src("u.proto", "u1", unparsable),
        ],
        vec![src("e.proto", "e1", e1), src("base.proto", "b1", BASE1)],
        vec![src("base.proto", "b2", BASE2)],
    ]
}

#[test]
fn each_set_of_a_window_is_what_it_is_alone() {
    let texts = [
        edition("int32 n = 2;"),
        edition("int64 n = 2;"),
        edition("string n = 2;"),
    ];
    let versions = versions(&texts);
    let alone: Vec<String> = versions
        .iter()
        .map(|v| shown(&Cache::with_store(None).compile(v)))
        .collect();
    for threads in [1, 2, 4] {
        let mut cache = Cache::with_store(None);
        let together = on(threads, || in_windows(&mut cache, &versions));
        assert_eq!(together.len(), alone.len());
        for (i, (t, a)) in together.iter().zip(&alone).enumerate() {
            // Not printed: a version's model is long.
            assert!(shown(t) == *a, "{threads} threads: version {i} differs");
        }
        assert_eq!(cache.stats.sets_compiled, 6, "{threads} threads");
        assert_eq!(cache.stats.sets_reused, 1, "{threads} threads");
    }
    // The editions file's texts were compiled each as its own.
    assert_ne!(alone[0], alone[1]);
    assert_ne!(alone[1], alone[4]);
}

#[test]
fn a_window_takes_more_sets_as_the_history_goes() {
    let texts: Vec<String> = (0..20)
        .map(|i| format!("syntax = \"proto3\";\nmessage M{i} {{}}\n"))
        .collect();
    let blobs: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    let versions: Vec<Vec<SourceRef<'_>>> = (0..20)
        .map(|i| vec![src("m.proto", &blobs[i], &texts[i])])
        .collect();
    // Each set twice in a row: the second costs nothing and rides with the first.
    let doubled: Vec<&[SourceRef<'_>]> = versions
        .iter()
        .flat_map(|v| [v.as_slice(), v.as_slice()])
        .collect();
    let mut cache = Cache::with_store(None);
    let sizes = on(2, || {
        let mut sizes = Vec::new();
        let mut done = 0;
        while done < doubled.len() {
            let n = cache.compile_window(&doubled[done..]).len();
            sizes.push(n);
            done += n;
        }
        sizes
    });
    // 2 sets, then 4, then 8 (4 per thread), then the 6 left; each with its twin.
    assert_eq!(sizes, [4, 8, 16, 12]);
}

#[test]
fn a_panic_fails_its_set_only() {
    let ok = "syntax = \"proto3\";\nmessage A {}\n";
    let versions = [
        vec![src("a.proto", "1", ok)],
        vec![src("a.proto", "1", ok), src(PANICS, "2", ok)],
        vec![src("b.proto", "3", ok)],
    ];
    let mut cache = Cache::with_store(None);
    let out = on(4, || in_windows(&mut cache, &versions));
    let status: Vec<Status> = out.iter().map(|c| c.status).collect();
    assert_eq!(status, [Status::Complete, Status::Failed, Status::Complete]);
    assert!(
        out[1].diagnostics[0]
            .message
            .starts_with("internal error while compiling this version (a test asked for a panic)"),
        "{:?}",
        out[1].diagnostics
    );
    assert_eq!(out[1].files_total, 2);
    assert_eq!(cache.stats.sets_compiled, 2);
    // A set that panicked is not kept: asked again, it is compiled again.
    let again = on(4, || cache.compile(&versions[1]));
    assert_eq!(again.status, Status::Failed);
    assert_eq!(cache.stats.sets_compiled, 2);
}
