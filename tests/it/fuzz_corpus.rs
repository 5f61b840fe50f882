//! The fuzz corpus on every `cargo test`: each file of `fuzz/corpus/engine/` (the seeds, the
//! hostile repositories of issue 13, and every input the fuzzer ever found failing) goes
//! through the same harness as the fuzz target — compile, diff, every report format — and
//! must finish without a panic, within seconds, with no raw control character in any output.

#[path = "../../fuzz/engine.rs"]
mod engine;

use std::time::{Duration, Instant};

#[test]
fn every_corpus_input_runs_clean() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/engine");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz/corpus/engine exists")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the corpus is there: {files:?}");
    for f in files {
        let data = std::fs::read(&f).expect("a corpus file");
        let started = Instant::now();
        let done = std::panic::catch_unwind(|| engine::exercise(&data));
        assert!(done.is_ok(), "{} fails the harness", f.display());
        let took = started.elapsed();
        assert!(took < Duration::from_secs(30), "{}: {took:?}", f.display());
    }
}

#[test]
fn the_harness_splits_an_input_into_two_versions_and_a_shared_file() {
    let (old, new) = engine::versions(b"message A {}\n=====\nmessage B {}\n=====\nmessage C {}\n");
    assert_eq!(old.len(), 2);
    assert_eq!(old[0].1, "message A {}");
    assert_eq!(new[0].1, "message B {}");
    assert_eq!(old[1], new[1]);
}
