//! The on-disk cache: warm runs print exactly what cold runs and `--no-cache` runs print; a
//! warm history is put together from the cache without compiling; per-file keys survive a
//! change to another file; corrupt, truncated and foreign entries are recompiled; the size
//! stays under its cap; a folder that cannot be used costs one warning, not the command.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::Arc;

use protolapse::history::{self, HistoryOptions};
use protolapse::load;
use protolapse::schema::store::Store;
use protolapse::schema::{Cache, Compiled, SourceRef};

use crate::common::{PackEntry, Repo, cache_packs, run_env, write_pack};

const COMMON: &str = "syntax = \"proto3\";\npackage a;\nimport \"google/protobuf/timestamp.proto\";\n\n\
    // When it happened.\nmessage Stamp {\n  google.protobuf.Timestamp at = 1;\n}\n";
const API: &str = "syntax = \"proto3\";\npackage a;\nimport \"a/common.proto\";\n\
    import \"google/api/annotations.proto\";\n\nmessage Req { string id = 1; }\n\
    service Api {\n  rpc Get(Req) returns (Stamp) { option (google.api.http) = { get: \"/v1/x\" }; }\n}\n";
const OPTS: &str = "syntax = \"proto2\";\npackage b;\nimport \"google/protobuf/descriptor.proto\";\n\
    extend google.protobuf.FieldOptions { optional string tag = 50001; }\n";
const USES: &str = "syntax = \"proto3\";\npackage b;\nimport \"b/opts.proto\";\n\n\
    message Uses {\n  string name = 1 [(b.tag) = \"x\"];\n  map<string, int32> counts = 2;\n}\n";
const EDITION: &str = "edition = \"2023\";\npackage e;\nimport \"a/common.proto\";\n\n\
    message Ed {\n  a.Stamp s = 1;\n  int32 n = 2 [features.field_presence = IMPLICIT];\n}\n";

/// Five versions: imports, a well-known type, an embedded third-party proto, a custom
/// option, an editions file (protoc), a version with a file that does not compile, a
/// comment-only change.
pub(crate) fn history() -> Repo {
    let mut r = Repo::new();
    r.write("a/common.proto", COMMON)
        .write("a/api.proto", API)
        .write("b/opts.proto", OPTS)
        .write("b/uses.proto", USES);
    r.commit("v1");
    r.tag("v1.0.0");
    r.write("e/ed.proto", EDITION);
    r.commit("v2");
    r.tag("v1.1.0");
    r.write(
        "a/common.proto",
        &COMMON.replace("at = 1;", "at = 1;\n  string zone = 2;"),
    )
    .write(
        "c/bad.proto",
        "syntax = \"proto3\";\npackage c;\nmessage Bad { Missing m = 1; }\n",
    );
    r.commit("v3");
    r.tag("v1.2.0");
    r.write(
        "c/bad.proto",
        "syntax = \"proto3\";\npackage c;\nmessage Bad { int64 m = 1; }\n",
    )
    .write("e/ed.proto", &EDITION.replace("int32 n = 2", "int64 n = 2"));
    r.commit("v4");
    r.tag("v2.0.0");
    r.write(
        "a/api.proto",
        &API.replace("message Req", "// The request.\nmessage Req"),
    );
    r.commit("v5");
    r.tag("v2.0.1");
    r
}

const COMMANDS: &[&[&str]] = &[
    &["log", "--format", "json"],
    &["log"],
    &["diff", "v1.0.0", "v2.0.1", "--format", "json"],
    &[
        "graph", "--at", "v2.0.0", "--root", "a.Api", "--format", "json",
    ],
    &["blame", "a.Stamp"],
];

/// Every command's (status, stdout, stderr) with the cache in `dir` (`--no-cache` when None).
fn outputs(r: &Repo, dir: Option<&Path>) -> Vec<(i32, String, String)> {
    COMMANDS
        .iter()
        .map(|args| {
            let mut args = args.to_vec();
            let vars: Vec<(&str, &OsStr)> = match dir {
                Some(d) => vec![("PROTOLAPSE_CACHE_DIR", d.as_os_str())],
                None => {
                    args.push("--no-cache");
                    Vec::new()
                }
            };
            run_env(&args, r.path(), &vars)
        })
        .collect()
}

#[test]
fn warm_runs_print_what_cold_runs_and_uncached_runs_print() {
    let r = history();
    let dir = tempfile::tempdir().unwrap();
    let uncached = outputs(&r, None);
    assert!(
        uncached[0].1.contains("edition 2023") || uncached[0].1.contains("protoc"),
        "the editions file went through protoc: {}",
        uncached[0].1
    );
    let cold = outputs(&r, Some(dir.path()));
    let warm = outputs(&r, Some(dir.path()));
    for ((args, u), (c, w)) in COMMANDS.iter().zip(&uncached).zip(cold.iter().zip(&warm)) {
        assert_eq!(c, u, "cold vs --no-cache: {args:?}");
        assert_eq!(w, u, "warm vs --no-cache: {args:?}");
    }
    let (_, shown, _) = run_env(
        &["cache"],
        r.path(),
        &[("PROTOLAPSE_CACHE_DIR", dir.path().as_os_str())],
    );
    assert!(shown.contains(&dir.path().display().to_string()), "{shown}");
    let entries = |text: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix("entries"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0)
    };
    assert!(entries(&shown) > 5, "{shown}");
    let (code, cleared, _) = run_env(
        &["cache", "clear"],
        r.path(),
        &[("PROTOLAPSE_CACHE_DIR", dir.path().as_os_str())],
    );
    assert_eq!(code, 0);
    assert_eq!(entries(&cleared), 0, "{cleared}");
}

#[test]
fn no_cache_leaves_the_folder_untouched() {
    let r = history();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let (code, _, _) = run_env(
        &["log", "--no-cache"],
        r.path(),
        &[("PROTOLAPSE_CACHE_DIR", store.as_os_str())],
    );
    assert_eq!(code, 0);
    assert!(!store.exists());
}

/// Compiles every version as `load` does: planned first, so a parse no later version reads
/// is let go once its set is linked (and the cache must still keep its record).
pub(crate) fn compile_all(r: &Repo, cache: &mut Cache) -> Vec<Arc<Compiled>> {
    let h = history::load(r.path(), &HistoryOptions::default()).unwrap();
    let inputs: Vec<Vec<SourceRef<'_>>> = h.versions.iter().map(load::inputs).collect();
    cache.plan(inputs.iter().map(Vec::as_slice));
    inputs.iter().map(|i| cache.compile(i)).collect()
}

pub(crate) fn shown(c: &[Arc<Compiled>]) -> Vec<String> {
    c.iter().map(|c| format!("{c:?}")).collect()
}

pub(crate) fn open(dir: &Path, cap: u64) -> Option<Arc<Store>> {
    Some(Arc::new(Store::open(dir, cap).unwrap()))
}

#[test]
fn a_warm_history_is_put_together_without_compiling() {
    let r = history();
    let dir = tempfile::tempdir().unwrap();
    let reference = shown(&compile_all(&r, &mut Cache::with_store(None)));
    let mut cold = Cache::with_store(open(dir.path(), u64::MAX));
    assert_eq!(shown(&compile_all(&r, &mut cold)), reference);
    assert_eq!(cold.stats.disk.sets_hit, 0);
    assert!(cold.stats.disk.parts_stored > 0);
    // What a run put is written when its compiler is done with it.
    drop(cold);
    let mut warm = Cache::with_store(open(dir.path(), u64::MAX));
    assert_eq!(shown(&compile_all(&r, &mut warm)), reference);
    // Every set comes from the cache: the one with an error from its whole-set entry.
    let d = &warm.stats.disk;
    assert_eq!(
        (d.sets_hit, d.sets_whole, d.sets_missed),
        (5, 1, 0),
        "{d:?}"
    );
    assert_eq!(warm.stats.blobs_parsed, 0);
    assert_eq!(d.parts_stored, 0);
}

#[test]
fn a_changed_file_leaves_the_keys_of_the_files_it_does_not_reach() {
    let mut r = history();
    let dir = tempfile::tempdir().unwrap();
    compile_all(&r, &mut Cache::with_store(open(dir.path(), u64::MAX)));
    // One more version: only b/uses.proto changes. Its part is new; a/*, b/opts.proto,
    // e/ed.proto, c/bad.proto and the well-known and embedded files keep theirs.
    r.write(
        "b/uses.proto",
        &USES.replace("counts = 2;", "counts = 2;\n  bool on = 3;"),
    );
    r.commit("v6");
    r.tag("v2.1.0");
    let reference = shown(&compile_all(&r, &mut Cache::with_store(None)));
    let mut next = Cache::with_store(open(dir.path(), u64::MAX));
    assert_eq!(shown(&compile_all(&r, &mut next)), reference);
    let d = &next.stats.disk;
    assert_eq!(d.parts_stored, 1, "{d:?}");
    // The new set: only b/uses.proto and what it imports compiled, the rest from the cache.
    assert_eq!((d.sets_partial, d.files_compiled), (1, 2), "{d:?}");
    let mut warm = Cache::with_store(open(dir.path(), u64::MAX));
    compile_all(&r, &mut warm);
    assert_eq!(warm.stats.disk.sets_missed, 0, "{:?}", warm.stats.disk);
}

/// Every entry file of a store.
fn entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir.join("entries"))
        .unwrap()
        .flatten()
        .map(|f| f.path())
        .collect();
    out.sort();
    out
}

#[test]
fn corrupt_truncated_and_foreign_entries_are_recompiled() {
    let r = history();
    let reference = shown(&compile_all(&r, &mut Cache::with_store(None)));
    // Each spoils every pack: as a file, or entry by entry (its index sealed again).
    type Spoil = fn(&Path, Vec<PackEntry>);
    let spoils: [(&str, Spoil); 4] = [
        ("truncated", |path, _| {
            let bytes = std::fs::read(path).unwrap();
            std::fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
        }),
        ("one bit flipped in each entry", |path, mut entries| {
            for e in &mut entries {
                if let Some(last) = e.bytes.last_mut() {
                    *last ^= 1;
                }
            }
            write_pack(path, &entries);
        }),
        // Sound entries, each under another's key.
        ("foreign", |path, mut entries| {
            let bytes: Vec<Vec<u8>> = entries.iter().map(|e| e.bytes.clone()).collect();
            for (i, e) in entries.iter_mut().enumerate() {
                e.bytes = bytes[(i + 1) % bytes.len()].clone();
            }
            write_pack(path, &entries);
        }),
        ("not ours", |path, _| {
            std::fs::write(path, b"#!/bin/sh\necho hello\n").unwrap()
        }),
    ];
    for (what, spoil) in spoils {
        let dir = tempfile::tempdir().unwrap();
        compile_all(&r, &mut Cache::with_store(open(dir.path(), u64::MAX)));
        let packs = cache_packs(dir.path());
        assert!(packs.iter().all(|(_, e)| e.len() > 1), "{what}");
        for (path, entries) in packs {
            spoil(&path, entries);
        }
        let store = open(dir.path(), u64::MAX);
        let mut warm = Cache::with_store(store.clone());
        assert_eq!(shown(&compile_all(&r, &mut warm)), reference, "{what}");
        let rejected = store.as_ref().map(|s| {
            s.counters
                .rejected
                .load(std::sync::atomic::Ordering::Relaxed)
        });
        assert!(rejected > Some(0), "{what}");
        assert_eq!(warm.stats.disk.sets_hit, 0, "{what}");
        drop(warm);
        // Written again, sound: the next run is warm.
        let mut again = Cache::with_store(open(dir.path(), u64::MAX));
        assert_eq!(shown(&compile_all(&r, &mut again)), reference, "{what}");
        assert!(
            again.stats.disk.sets_hit > 0,
            "{what}: {:?}",
            again.stats.disk
        );
    }
}

#[test]
fn the_store_stays_under_its_cap() {
    let r = history();
    let reference = shown(&compile_all(&r, &mut Cache::with_store(None)));
    // Half of what the history takes uncapped.
    let full = tempfile::tempdir().unwrap();
    let store = open(full.path(), u64::MAX);
    compile_all(&r, &mut Cache::with_store(store.clone()));
    let cap = store.map(|s| s.usage().bytes).unwrap_or_default() / 2;
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        let store = open(dir.path(), cap);
        let mut cache = Cache::with_store(store.clone());
        assert_eq!(shown(&compile_all(&r, &mut cache)), reference);
        drop(cache);
        let usage = store.map(|s| s.usage()).unwrap_or_default();
        assert!(usage.bytes <= cap, "{usage:?}");
        assert!(usage.entries > 0, "the newest entries stay: {usage:?}");
    }
    // And through the command line's variable.
    let (code, out, _) = run_env(
        &["log"],
        r.path(),
        &[
            ("PROTOLAPSE_CACHE_DIR", dir.path().as_os_str()),
            ("PROTOLAPSE_CACHE_MAX_BYTES", OsStr::new(&cap.to_string())),
        ],
    );
    assert_eq!(code, 0, "{out}");
    let total: u64 = entries(dir.path())
        .iter()
        .map(|f| f.metadata().unwrap().len())
        .sum();
    assert!(total <= cap, "{total}");
}

#[test]
fn a_folder_that_cannot_be_used_costs_one_warning() {
    let r = history();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let (_, expected, _) = run_env(&["log", "--no-cache"], r.path(), &[]);
    for place in [file.clone(), file.join("below")] {
        let (code, out, err) = run_env(
            &["log"],
            r.path(),
            &[("PROTOLAPSE_CACHE_DIR", place.as_os_str())],
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, expected);
        let warnings: Vec<&str> = err.lines().filter(|l| l.contains("cache")).collect();
        assert_eq!(warnings.len(), 1, "{err}");
        assert!(
            warnings[0].starts_with("warning: cannot create the cache folder"),
            "{err}"
        );
    }
}

#[test]
fn concurrent_runs_share_one_store() {
    let r = history();
    let dir = tempfile::tempdir().unwrap();
    let (_, expected, _) = run_env(&["log", "--format", "json", "--no-cache"], r.path(), &[]);
    let outs: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    run_env(
                        &["log", "--format", "json"],
                        r.path(),
                        &[("PROTOLAPSE_CACHE_DIR", dir.path().as_os_str())],
                    )
                    .1
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for out in outs {
        assert_eq!(out, expected);
    }
    // Every entry sound: a warm run reads them all and writes nothing.
    let before: Vec<_> = entries(dir.path())
        .into_iter()
        .map(|f| (f.metadata().unwrap().modified().unwrap(), f))
        .collect();
    let (_, warm, _) = run_env(
        &["log", "--format", "json"],
        r.path(),
        &[("PROTOLAPSE_CACHE_DIR", dir.path().as_os_str())],
    );
    assert_eq!(warm, expected);
    let after: Vec<_> = entries(dir.path())
        .into_iter()
        .map(|f| (f.metadata().unwrap().modified().unwrap(), f))
        .collect();
    assert_eq!(before, after);
}

#[test]
fn a_file_over_a_cap_is_not_taken_from_the_cache() {
    let mut r = Repo::new();
    let fields: String = (1..400).map(|i| format!("  int32 f{i} = {i};\n")).collect();
    r.write(
        "small.proto",
        &crate::common::proto("s", "message S { int32 a = 1; }"),
    )
    .write(
        "big.proto",
        &crate::common::proto("b", &format!("message B {{\n{fields}}}")),
    );
    r.commit("v1");
    r.tag("v1.0.0");
    let dir = tempfile::tempdir().unwrap();
    let status = |cap: Option<&str>| {
        let mut vars = vec![("PROTOLAPSE_CACHE_DIR", dir.path().as_os_str())];
        if let Some(c) = cap {
            vars.push(("PROTOLAPSE_MAX_FILE_BYTES", OsStr::new(c)));
        }
        let (_, out, err) = run_env(&["log", "--format", "json"], r.path(), &vars);
        let json: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
        json["versions"][0]["status"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    for (cap, expected) in [
        (Some("4096"), "partial"),
        (None, "complete"),
        (Some("4096"), "partial"),
        (None, "complete"),
    ] {
        assert_eq!(status(cap), expected, "{cap:?}");
    }
}

/// The temporary folders protoc's texts and calls (and the demo) are written to are removed when a run that
/// left them (killed mid-load, or a terminal UI quit while loading) no longer runs: a later
/// run that calls protoc sweeps them once they are ten minutes old, and leaves those of a
/// running process, young ones and anything else alone.
#[test]
fn folders_a_dead_run_left_for_protoc_are_swept() {
    let r = tagged_editions(&[(
        "e.proto",
        "edition = \"2023\";\npackage e;\nmessage E { int32 a = 1; }\n",
    )]);
    let tmp = tempfile::tempdir().expect("temp dir");
    // No process has this id (Linux's pid_max is at most 4,194,304).
    let dead = tmp.path().join("protolapse-texts-4194999-abcdef");
    let dead_demo = tmp.path().join("protolapse-demo-4194999-mnopqr");
    let alive = tmp
        .path()
        .join(format!("protolapse-texts-{}-abcdef", std::process::id()));
    let other = tmp.path().join("protolapse-textsome-4194999");
    let young = tmp.path().join("protolapse-texts-4194998-young");
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for d in [&dead, &dead_demo, &alive, &other, &young] {
        std::fs::create_dir_all(d.join("inner")).expect("make folder");
        if d != &young {
            let f = std::fs::File::open(d).expect("open folder");
            f.set_modified(hour_ago).expect("age the folder");
        }
    }
    logs_complete_with_tmpdir(&r, tmp.path());
    assert!(!dead.exists() && !dead_demo.exists());
    // A young folder may belong to a process this one cannot see.
    assert!(alive.exists() && other.exists() && young.exists());
    // Nothing of the run itself is left either.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("protolapse-") && !n.contains(&std::process::id().to_string()))
        .filter(|n| n != "protolapse-textsome-4194999" && !n.ends_with("-young"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// protoc is handed its texts relative to the folder it runs in: a temporary folder whose
/// path holds a `:` (protoc's separator of import paths) changes nothing.
#[test]
fn a_colon_in_the_temporary_folder_does_not_reach_protoc() {
    let r = tagged_editions(&[
        (
            "b.proto",
            "edition = \"2023\";\npackage b;\nmessage B { int32 a = 1; }\n",
        ),
        (
            "a.proto",
            "edition = \"2023\";\npackage a;\nimport \"b.proto\";\nmessage A { b.B b = 1; }\n",
        ),
    ]);
    let tmp = tempfile::tempdir().expect("temp dir");
    let odd = tmp.path().join("with:colon");
    std::fs::create_dir(&odd).expect("make folder");
    logs_complete_with_tmpdir(&r, &odd);
}

/// A repository whose one tag, v1.0.0, holds `files`.
fn tagged_editions(files: &[(&str, &str)]) -> Repo {
    let mut r = Repo::new();
    for (path, text) in files {
        r.write(path, text);
    }
    r.commit("editions");
    r.tag("v1.0.0");
    r
}

/// `log` with TMPDIR at `tmp` compiles every version whole.
fn logs_complete_with_tmpdir(r: &Repo, tmp: &std::path::Path) {
    let (code, out, err) = run_env(
        &["--no-cache", "log", "--format", "json"],
        r.path(),
        &[("TMPDIR", tmp.as_os_str())],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"status\": \"complete\""), "{out}");
}
