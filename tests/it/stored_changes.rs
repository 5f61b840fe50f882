//! Change lists kept between runs (`judge::stored_changes`): a warm `log` prints what its
//! cold and uncached runs print; the lists it reads are the ones it shows (a forged entry
//! shows up in the output, so the test would fail if they were judged again); a corrupt
//! entry is dropped and judged again; a pair that differs only in its comments is never
//! served another pair's list.

use std::path::Path;

use serde::Serialize;

use crate::cache::history;
use crate::common::{KIND_CHANGES, PackEntry, Repo, cache_entries, rewrite_packs, run_cached};

const LOG: &[&str] = &["log", "--format", "json"];

fn log(repo: &Path, dir: Option<&Path>) -> (i32, String, String) {
    run_cached(LOG, repo, dir)
}

/// The store's change-list entries.
fn lists(dir: &Path) -> Vec<PackEntry> {
    cache_entries(dir, KIND_CHANGES)
}

/// A change as the store lays it out (postcard): `judge::stored_changes::RowRef`, which the
/// test must know to forge an entry.
#[derive(Serialize)]
struct Row<'a> {
    rule: u16,
    element: &'a str,
    number: Option<i64>,
    old: Option<&'a str>,
    new: Option<&'a str>,
    old_location: Option<&'a str>,
    new_location: Option<&'a str>,
    verdict: [u8; 6],
    message: &'a str,
    ignored: Option<&'a str>,
    not_judged: bool,
}

#[test]
fn warm_logs_read_the_lists_cold_runs_kept() {
    let r = history();
    let dir = tempfile::tempdir().unwrap();
    let uncached = log(r.path(), None);
    let cold = log(r.path(), Some(dir.path()));
    let kept = lists(dir.path());
    assert!(
        kept.len() >= 4,
        "one list per adjacent pair: {}",
        kept.len()
    );
    let warm = log(r.path(), Some(dir.path()));
    assert_eq!(cold, uncached);
    assert_eq!(warm, uncached);

    // Forge every list: one change no rule would find, sealed as the store seals it. The
    // next run shows it: it read the lists.
    let forged = postcard::to_stdvec(&vec![Row {
        rule: 0,
        element: "forged.Element",
        number: Some(7),
        old: None,
        new: None,
        old_location: None,
        new_location: None,
        verdict: [3, 3, 0, 0, 1, 3],
        message: "forged by the test",
        ignored: None,
        not_judged: false,
    }])
    .unwrap();
    rewrite_packs(dir.path(), |e| {
        if e.kind == KIND_CHANGES {
            e.reseal(&forged);
        }
    });
    let read = log(r.path(), Some(dir.path()));
    let counts = |json: &str| -> Vec<(u64, u64)> {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        v["versions"].as_array().unwrap()[1..]
            .iter()
            .map(|v| {
                let c = &v["changes"];
                (c["breaking"].as_u64().unwrap(), c["safe"].as_u64().unwrap())
            })
            .collect()
    };
    assert_ne!(counts(&uncached.1), counts(&read.1));
    assert!(
        counts(&read.1).iter().all(|c| *c == (1, 0)),
        "each pair shows the one forged breaking change: {:?}",
        counts(&read.1)
    );

    // A corrupt entry is not trusted: dropped, judged again, written again.
    rewrite_packs(dir.path(), |e| {
        if e.kind == KIND_CHANGES
            && let Some(last) = e.bytes.last_mut()
        {
            *last ^= 1;
        }
    });
    assert_eq!(log(r.path(), Some(dir.path())), uncached);
    assert_eq!(log(r.path(), Some(dir.path())), uncached);
}

/// Two repositories whose versions have the same names and the same compiled contents, and
/// differ only in one comment: an inline ignore of another rule in the first, of the change
/// in the second. The second, run on the first's cache, prints what it prints uncached (a
/// list is keyed by the docs, not just the fingerprint and whether directives are read).
/// Both with a file protox reads and with an editions file, whose docs protoc reads.
#[test]
fn a_pair_differing_only_in_comments_is_judged_for_itself() {
    for head in ["syntax = \"proto3\";", "edition = \"2023\";"] {
        let repo = |comment: &str| {
            let mut r = Repo::new();
            let text = |body: &str| format!("{head}\npackage p;\n\n{body}\n");
            r.write("a.proto", &text("message M { int32 a = 1; }"));
            r.commit("one");
            r.tag("v1.0.0");
            r.write(
                "a.proto",
                &text(&format!("message M {{\n  int64 a = 1; // {comment}\n}}")),
            );
            r.commit("two");
            r.tag("v2.0.0");
            r
        };
        let first = repo("protolapse:ignore FIELD_RENAMED nothing was renamed");
        let second = repo("protolapse:ignore FIELD_TYPE_CHANGED all readers are 64-bit");
        let dir = tempfile::tempdir().unwrap();
        let one = log(first.path(), Some(dir.path()));
        let two = log(second.path(), Some(dir.path()));
        assert_eq!(two, log(second.path(), None), "{head}");
        assert_eq!(one, log(first.path(), None), "{head}");
        assert_ne!(one.1, two.1, "{head}: the directive changes the counts");
    }
}

/// One history read with other proto roots: a file that was outside the roots (found in the
/// tree, not judged) is judged now. Its fingerprint is the same, its origin is not: the run
/// on the first run's cache prints what it prints uncached (the keys cover where each file
/// came from).
#[test]
fn other_roots_are_never_served_the_first_roots_verdicts() {
    let mut r = Repo::new();
    let dep = |t: &str| format!("syntax = \"proto3\";\npackage dep;\nmessage D {{ {t} x = 1; }}\n");
    let a =
        "syntax = \"proto3\";\npackage p;\nimport \"dep/d.proto\";\nmessage A { dep.D d = 1; }\n";
    r.write("third_party/dep/d.proto", &dep("int32"))
        .write("proto/a.proto", a);
    r.commit("one");
    r.tag("v1.0.0");
    r.write("third_party/dep/d.proto", &dep("string"));
    r.commit("two");
    r.tag("v2.0.0");
    let dir = tempfile::tempdir().unwrap();
    let narrow: &[&str] = &[
        "-I", "proto", "log", "--policy", "BACKWARD", "--format", "json",
    ];
    let wide: &[&str] = &[
        "-I",
        "proto",
        "-I",
        "third_party",
        "log",
        "--policy",
        "BACKWARD",
        "--format",
        "json",
    ];
    let first = run_cached(narrow, r.path(), Some(dir.path()));
    let cached = run_cached(wide, r.path(), Some(dir.path()));
    let uncached = run_cached(wide, r.path(), None);
    assert_eq!(cached, uncached);
    assert_ne!(first.1, cached.1, "the wider roots judge dep.D.x");
}
