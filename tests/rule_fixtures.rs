//! Every rule has a fixture pair under `tests/fixtures/rules/<ID>/{old,new}/`; every rule runs
//! on every pair. Each pair must report its own rule, and exactly the rules its `expected`
//! file lists (so a false positive of another rule shows); old-vs-old and new-vs-new report
//! nothing; every fixture names a known rule.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use protolapse::diff::pair_whole;
use protolapse::rules::{RULES, check};
use protolapse::schema::{Cache, Schema, SourceRef, Status};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules")
}

fn compile(dir: &Path) -> Schema {
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

fn rules_between(a: &Schema, b: &Schema) -> BTreeSet<&'static str> {
    check(&pair_whole(&a.content, &b.content), a, b)
        .iter()
        .map(|c| c.rule)
        .collect()
}

#[test]
fn every_rule_has_a_fixture_and_every_fixture_a_rule() {
    let dirs: BTreeSet<String> = std::fs::read_dir(root())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for r in RULES {
        assert!(dirs.contains(r.id), "no fixture for {}", r.id);
    }
    for d in &dirs {
        assert!(RULES.iter().any(|r| r.id == d), "fixture {d} names no rule");
    }
}

#[test]
fn each_fixture_reports_exactly_what_it_expects() {
    let mut failures = Vec::new();
    for r in RULES {
        let dir = root().join(r.id);
        let old = compile(&dir.join("old"));
        let new = compile(&dir.join("new"));
        assert!(rules_between(&old, &old).is_empty(), "{}: old vs old", r.id);
        assert!(rules_between(&new, &new).is_empty(), "{}: new vs new", r.id);
        let got = rules_between(&old, &new);
        let expected: BTreeSet<String> = std::fs::read_to_string(dir.join("expected"))
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        let got_s: BTreeSet<String> = got.iter().map(|s| s.to_string()).collect();
        if !got.contains(r.id) || got_s != expected {
            failures.push(format!(
                "{}: reported {:?}, expected {:?}",
                r.id, got, expected
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn fixture_verdicts_are_symmetric() {
    for r in RULES {
        let dir = root().join(r.id);
        let (old, new) = (compile(&dir.join("old")), compile(&dir.join("new")));
        let ab = check(&pair_whole(&old.content, &new.content), &old, &new);
        let ba = check(&pair_whole(&new.content, &old.content), &new, &old);
        for x in &ab {
            if let Some(y) = ba.iter().find(|y| {
                y.rule == x.rule && y.element == x.element && y.old == x.new && y.new == x.old
            }) {
                assert_eq!(x.verdict.swapped(), y.verdict, "{} in {}", x.rule, r.id);
            }
        }
    }
}

#[test]
fn a_map_whose_value_changes_reports_the_value_only() {
    let compile_one = |text: &str| {
        let out = Cache::new().compile(&[SourceRef {
            path: "m.proto",
            blob: text,
            text: Ok(text),
        }]);
        assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
        (*out.schema).clone()
    };
    let old = compile_one(
        "syntax = \"proto3\";\npackage fx;\nmessage M {\n  map<string, int32> m = 1;\n}\n",
    );
    let new = compile_one(
        "syntax = \"proto3\";\npackage fx;\nmessage M {\n  map<string, int64> m = 1;\n}\n",
    );
    let changes = check(&pair_whole(&old.content, &new.content), &old, &new);
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert!(
        changes[0].message.starts_with("map value int32 -> int64"),
        "{}",
        changes[0].message
    );
}

/// A field whose message type was renamed to a type that differs only in a field name (as
/// opentelemetry's InstrumentationLibraryLogs became ScopeLogs): compared field by field, the
/// binary encoding is the same and only JSON (and generated code) break.
#[test]
fn a_renamed_message_type_is_judged_field_by_field() {
    let compile_one = |text: &str| {
        let out = Cache::new().compile(&[SourceRef {
            path: "m.proto",
            blob: text,
            text: Ok(text),
        }]);
        assert_eq!(out.status, Status::Complete, "{:?}", out.diagnostics);
        (*out.schema).clone()
    };
    let old = compile_one(
        "syntax = \"proto3\";\npackage fx;\nmessage Lib { string name = 1; }\nmessage LibLogs { Lib library = 1; repeated string lines = 2; LibLogs next = 3; }\nmessage Root { repeated LibLogs logs = 2; }\n",
    );
    let new = compile_one(
        "syntax = \"proto3\";\npackage fx;\nmessage Scope { string name = 1; }\nmessage ScopeLogs { Scope scope = 1; repeated string lines = 2; ScopeLogs next = 3; }\nmessage Root { repeated ScopeLogs logs = 2; }\n",
    );
    let changes = check(&pair_whole(&old.content, &new.content), &old, &new);
    let c = changes
        .iter()
        .find(|c| c.rule == "FIELD_MESSAGE_TYPE_CHANGED" && c.element == "fx.Root.logs")
        .unwrap_or_else(|| panic!("{changes:#?}"));
    assert_eq!(c.verdict.wire.backward, protolapse::rules::Severity::Safe);
    assert_eq!(c.verdict.wire.forward, protolapse::rules::Severity::Safe);
    assert_eq!(
        c.verdict.json.backward,
        protolapse::rules::Severity::Breaking
    );
    assert!(c.message.contains("FIELD_RENAMED"), "{}", c.message);
    // A real difference inside the renamed type still breaks the wire.
    let worse = compile_one(
        "syntax = \"proto3\";\npackage fx;\nmessage Scope { int64 name = 1; }\nmessage ScopeLogs { Scope scope = 1; repeated string lines = 2; ScopeLogs next = 3; }\nmessage Root { repeated ScopeLogs logs = 2; }\n",
    );
    let changes = check(&pair_whole(&old.content, &worse.content), &old, &worse);
    let c = changes
        .iter()
        .find(|c| c.rule == "FIELD_MESSAGE_TYPE_CHANGED" && c.element == "fx.Root.logs")
        .unwrap_or_else(|| panic!("{changes:#?}"));
    assert_eq!(
        c.verdict.wire.backward,
        protolapse::rules::Severity::Breaking
    );
}
