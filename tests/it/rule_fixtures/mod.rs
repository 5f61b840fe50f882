//! Every rule has a fixture pair under `tests/fixtures/rules/<ID>/{old,new}/`; every rule runs
//! on every pair (`pairs`), and every pair runs reversed too (`symmetry`). Pairs written
//! inline check verdicts a fixture folder shows less plainly (`inline`; ProtoJSON's names of
//! enum values and fields: `json_names`), and editions features
//! and syntax migrations get the verdicts their rule pages state (`editions`). Compiling a
//! fixture folder or one file in memory lives here.

mod editions;
mod inline;
mod json_names;
mod pairing;
mod pairs;
mod symmetry;

use std::path::{Path, PathBuf};

use protolapse::schema::{Cache, Schema, SourceRef, Status};

pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules")
}

pub(crate) fn compile(dir: &Path) -> Schema {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    let blobs: Vec<String> = files
        .iter()
        .map(|(_, t)| {
            format!(
                "{:x}",
                t.len() * 31 + t.bytes().map(usize::from).sum::<usize>()
            )
        })
        .collect();
    let refs: Vec<SourceRef<'_>> = files
        .iter()
        .zip(&blobs)
        .map(|((p, t), b)| SourceRef {
            origin: protolapse::schema::Origin::Root,
            path: p,
            blob: b,
            text: Ok(t),
        })
        .collect();
    let out = Cache::new().compile(&refs);
    assert_eq!(
        out.status,
        Status::Complete,
        "{}: {:?}",
        dir.display(),
        out.diagnostics
    );
    (*out.schema).clone()
}

/// One file, compiled in memory.
fn compile_one(text: &str) -> Schema {
    compile_text(text)
}

/// One file, compiled in memory (for the other test modules).
pub(crate) fn compile_text(text: &str) -> Schema {
    let out = Cache::new().compile(&[SourceRef {
        origin: protolapse::schema::Origin::Root,
        path: "m.proto",
        blob: text,
        text: Ok(text),
    }]);
    assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
    (*out.schema).clone()
}
