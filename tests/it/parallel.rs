//! Parallel compile and analysis (issue 14): a history loaded, judged and reported on one
//! thread is byte for byte what it is on several (distinct file sets compile side by side, a
//! window at a time; adjacent pairs are judged side by side), cold, warm and without the
//! on-disk cache; and each version is what its file set gives compiled alone.

use std::path::Path;

use protolapse::history::{self, HistoryOptions};
use protolapse::load;
use protolapse::policy::{self, Settings};
use protolapse::report;
use protolapse::schema::Cache;

use crate::common::{Repo, run_env};
use crate::fixtures_real::{clone, fixture};

/// Runs `f` in a pool of `threads` threads.
fn on<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// What `log` reports (json, text) of the history at `path`, loaded and judged in a pool of
/// `threads` threads, and each version's compile.
fn logged(path: &Path, threads: usize) -> (String, String, Vec<String>) {
    on(threads, || {
        let project = load::load(path, &HistoryOptions::default(), |_, _| {}).unwrap();
        let analysis = policy::analyze(&project, &Settings::default()).unwrap();
        let json = report::log::to_json(&project, &analysis, None);
        let text = report::log::to_text(&project, &analysis, None);
        let compiled = project
            .versions
            .iter()
            .map(|v| format!("{:?}", v.compiled))
            .collect();
        (serde_json::to_string_pretty(&json).unwrap(), text, compiled)
    })
}

/// Each version of the history at `path` compiled alone, by a compiler of its own.
fn alone(path: &Path) -> Vec<String> {
    let h = history::load(path, &HistoryOptions::default()).unwrap();
    h.versions
        .iter()
        .map(|v| format!("{:?}", Cache::with_store(None).compile(&load::inputs(v))))
        .collect()
}

/// The same on one thread and on four, and each version as compiled alone.
fn assert_parallel_is_sequential(path: &Path) {
    let (json, text, compiled) = logged(path, 1);
    let (json4, text4, compiled4) = logged(path, 4);
    assert!(json == json4, "log --format json differs on 4 threads");
    assert!(text == text4, "log differs on 4 threads");
    for (i, ((one, four), alone)) in compiled.iter().zip(&compiled4).zip(alone(path)).enumerate() {
        // Not printed: a version's model is long.
        assert!(
            *one == alone,
            "version {i} on one thread is not what it is alone"
        );
        assert!(
            *four == alone,
            "version {i} on four threads is not what it is alone"
        );
    }
}

const EDITION: &str = "edition = \"2023\";\npackage e;\nimport \"a/common.proto\";\n\n\
    message Ed2 {\n  a.Stamp s = 1;\n}\n";

/// Numbers removed in one version and used again in the next: hazards in a message and in
/// an enum of one version (a version lists its messages' hazards before its enums').
const HAZARDS: [&str; 3] = [
    "syntax = \"proto3\";\npackage h;\nmessage Later { int32 a = 1; int32 b = 2; }\nenum Early { Z = 0; ONE = 1; }\n",
    "syntax = \"proto3\";\npackage h;\nmessage Later { int32 b = 2; }\nenum Early { Z = 0; }\n",
    "syntax = \"proto3\";\npackage h;\nmessage Later { string c = 1; int32 b = 2; }\nenum Early { Z = 0; TWO = 1; }\n",
];

/// The cache tests' history (imports, an embedded and a well-known import, a custom option,
/// an editions file that changes and whose import changes, a file that does not compile),
/// and three versions more: a second editions file, a file that does not parse, a comment,
/// numbers reused in a message and an enum.
fn history() -> Repo {
    let mut r = crate::cache::history();
    r.write("e/ed2.proto", EDITION)
        .write("d/broken.proto", "syntax = \"proto3\";\nmessage {\n")
        .write("h/h.proto", HAZARDS[0]);
    r.commit("v6");
    r.tag("v2.1.0");
    r.remove("d/broken.proto")
        .write(
            "e/ed2.proto",
            &EDITION.replace("s = 1;", "s = 1;\n  int32 n = 2;"),
        )
        .write("h/h.proto", HAZARDS[1]);
    r.commit("v7");
    r.tag("v2.2.0");
    r.write(
        "e/ed2.proto",
        &EDITION.replace("message Ed2", "// Two.\nmessage Ed2"),
    )
    .write("h/h.proto", HAZARDS[2]);
    r.commit("v8");
    r.tag("v2.2.1");
    r
}

#[test]
fn a_history_is_the_same_on_one_thread_and_on_four() {
    let r = history();
    let (json, _, _) = logged(r.path(), 4);
    // What the history holds: a version that compiles in part, protoc at work, hazards.
    assert!(json.contains("\"partial\""), "{json}");
    assert!(json.contains("e/ed2.proto"), "{json}");
    let at = |element: &str| json.find(&format!("\"element\": \"{element}\""));
    let (message, enumeration) = (at("h.Later.c"), at("h.Early.TWO"));
    assert!(
        message.is_some() && enumeration.is_some() && message < enumeration,
        "{json}"
    );
    assert_parallel_is_sequential(r.path());
}

#[test]
fn opentelemetry_is_the_same_on_one_thread_and_on_four() {
    let Some(bundle) = fixture("opentelemetry-proto.bundle") else {
        return;
    };
    let dir = clone(&bundle);
    assert_parallel_is_sequential(&dir.path().join("repo"));
}

/// The binary, cold, warm and without the cache, on one thread and on four: one output.
#[test]
fn the_binary_prints_the_same_on_one_thread_and_on_four() {
    let r = history();
    let run = |threads: &str, cache: Option<&Path>| {
        let mut args = vec!["log", "--format", "json"];
        let threads = ("RAYON_NUM_THREADS", std::ffi::OsStr::new(threads));
        let vars = match cache {
            Some(dir) => vec![threads, ("PROTOLAPSE_CACHE_DIR", dir.as_os_str())],
            None => {
                args.push("--no-cache");
                vec![threads]
            }
        };
        let (code, out, err) = run_env(&args, r.path(), &vars);
        assert_eq!(code, 0, "{err}");
        out
    };
    let reference = run("1", None);
    for threads in ["1", "4"] {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            run(threads, None) == reference,
            "{threads} threads, no cache"
        );
        assert!(
            run(threads, Some(dir.path())) == reference,
            "{threads} threads, cold"
        );
        assert!(
            run(threads, Some(dir.path())) == reference,
            "{threads} threads, warm"
        );
    }
}
