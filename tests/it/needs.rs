//! A command compiles what it needs (issue 14): `diff A B` compiles A and B, `graph --at V`
//! compiles V, and a version they do not need — broken, or over a cap — is no part of their
//! output. `PROTOLAPSE_DEBUG_LOAD` makes a command say which versions it compiled, on
//! standard error; the tests read it to prove the others were not.

use std::process::Command;
use std::time::Instant;

use protolapse::history::HistoryOptions;
use protolapse::load::{self, needs};

use crate::common::{Repo, bin, proto};

/// Runs the binary with `vars` set; (exit code, stdout, stderr).
fn run_with(args: &[&str], r: &Repo, vars: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(bin())
        .args(args)
        .current_dir(r.path())
        .env(needs::DEBUG_VAR, "1")
        .envs(vars.iter().copied())
        .output()
        .expect("run protolapse");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// v1.0.0 and v2.0.0 (a field added, one removed): the pair the commands ask for.
fn two_versions() -> Repo {
    let mut r = Repo::new();
    r.write(
        "a.proto",
        &proto("p", "message A { int32 x = 1; string gone = 3; }"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "a.proto",
        &proto("p", "message A { int32 x = 1; int64 y = 2; }"),
    );
    r.commit("two");
    r.tag("v2.0.0");
    r
}

/// Adds v3.0.0, whose new file does not compile.
fn add_broken(r: &mut Repo) {
    r.write(
        "broken.proto",
        &proto("p", "message Broken { NoSuchType t = 1; }"),
    );
    r.commit("three");
    r.tag("v3.0.0");
}

#[test]
fn a_diff_compiles_its_two_versions_and_nothing_of_the_others() {
    let mut r = two_versions();
    let (code, alone, _) = run_with(&["diff", "v1.0.0", "v2.0.0"], &r, &[]);
    assert_eq!(code, 0);
    add_broken(&mut r);
    for format in ["text", "json"] {
        let (code, out, err) = run_with(&["diff", "v1.0.0", "v2.0.0", "--format", format], &r, &[]);
        assert_eq!(code, 0, "{err}");
        assert!(!out.contains("v3.0.0") && !out.contains("broken"), "{out}");
        assert!(
            err.contains("compiled 2 of 3 versions: v1.0.0, v2.0.0"),
            "{err}"
        );
        assert!(!err.contains("v3.0.0"), "{err}");
        if format == "text" {
            // The same report as in a history without the broken tag.
            assert_eq!(out, alone);
        }
    }
}

#[test]
fn a_diff_beside_a_version_over_a_cap_does_not_mention_it() {
    let mut r = two_versions();
    let big: String = (0..50)
        .map(|i| format!("message M{i} {{ int32 a = 1; }}\n"))
        .collect();
    r.write("big.proto", &proto("q", &big));
    r.commit("three");
    r.tag("v3.0.0");
    // v3.0.0 is over the per-version cap; v1.0.0 and v2.0.0 are not.
    let cap = [("PROTOLAPSE_MAX_VERSION_BYTES", "1000")];
    let (code, out, err) = run_with(&["diff", "v1.0.0", "v2.0.0"], &r, &cap);
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains("v3.0.0") && !err.contains("v3.0.0"),
        "{out}{err}"
    );
    assert!(err.contains("compiled 2 of 3 versions"), "{err}");
    // Asked for, it is compiled (found over the cap) and said so.
    let (code, _, err) = run_with(&["diff", "v2.0.0", "v3.0.0"], &r, &cap);
    assert_eq!(code, 2);
    assert!(
        err.contains("version v3.0.0 did not compile, so it cannot be compared: not compiled: its .proto files total"),
        "{err}"
    );
}

#[test]
fn a_version_asked_for_that_does_not_compile_is_reported_from_its_own_compile() {
    let mut r = two_versions();
    add_broken(&mut r);
    let (code, out, err) = run_with(&["diff", "v2.0.0", "v3.0.0"], &r, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("compiled 2 of 3 versions: v2.0.0, v3.0.0"),
        "{err}"
    );
    // v3.0.0 compiled in part: said so, from its own compile.
    assert!(
        err.contains(
            "note: v3.0.0 compiled 1 of 2 files; changes in the others are listed but not judged"
        ),
        "{err}"
    );
    assert!(out.starts_with("v2.0.0 -> v3.0.0"), "{out}");
}

#[test]
fn graph_compiles_the_version_it_draws() {
    let mut r = two_versions();
    add_broken(&mut r);
    let (code, out, err) = run_with(&["graph", "--at", "v2.0.0", "--root", "A"], &r, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("p.A"), "{out}");
    assert!(err.contains("compiled 1 of 3 versions: v2.0.0"), "{err}");
    // An unknown version is the same error as before anything is compiled.
    let (code, _, err) = run_with(&["graph", "--at", "v9.0.0", "--root", "A"], &r, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown version `v9.0.0`"), "{err}");
    assert!(!err.contains("compiled"), "{err}");
}

#[test]
fn log_and_blame_compile_every_version() {
    let mut r = two_versions();
    add_broken(&mut r);
    for args in [&["log"][..], &["blame", "A"][..]] {
        let (_, _, err) = run_with(args, &r, &[]);
        assert!(err.contains("compiled 3 of 3 versions"), "{args:?}: {err}");
    }
}

/// The terminal UI's order (the newest and its base first) gives the same project as the
/// history order: statuses, fingerprints and earlier-content links alike.
#[test]
fn compiling_out_of_order_gives_the_same_history() {
    let mut r = two_versions();
    r.tag("v2.0.1"); // same content as v2.0.0
    r.write("c.proto", &proto("p", "message C { int32 z = 1; }"));
    r.commit("three");
    r.tag("v2.1.0");
    r.remove("c.proto");
    r.commit("four");
    r.tag("v2.2.0"); // same content as v2.0.0, not adjacent
    let opts = HistoryOptions::default();
    let in_order = load::load(r.path(), &opts, |_, _| {}).expect("load");
    let history = protolapse::history::load(r.path(), &opts).expect("history");
    let pending = needs::unread(history.clone());
    let last = load::VersionId::at(pending.versions.len() - 1);
    let order = needs::selected_first(&pending.versions, last);
    assert_eq!(order.first(), Some(&load::VersionId::at(3)), "{order:?}");
    assert_eq!(order.get(1), Some(&last));
    let mut seen = Vec::new();
    let shuffled = load::compile_each(history, Instant::now(), &order, |v, done, total| {
        seen.push((v.id, done, total));
    });
    assert_eq!(seen.len(), order.len());
    assert_eq!(seen.first().map(|s| s.0), order.first().copied());
    let key = |p: &load::Project| {
        p.versions
            .iter()
            .map(|v| {
                (
                    v.name().to_string(),
                    v.status(),
                    v.fingerprint().map(str::to_string),
                    v.unchanged_since,
                    v.same_as,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&shuffled), key(&in_order));
    let last = &shuffled.versions[4];
    assert_eq!(
        last.same_as,
        Some(load::VersionId::at(1)),
        "{:?}",
        key(&shuffled)
    );
}

/// The history cap is decided on statements, not on the bytes that could be one: semicolons
/// in a comment do not take a history past it, and statements do.
#[test]
fn the_history_cap_counts_statements_not_semicolons_in_comments() {
    let mut r = Repo::new();
    let noise = format!("// {}\n", ";".repeat(200));
    r.write(
        "a.proto",
        &proto("p", &format!("{noise}message A {{ int32 x = 1; }}")),
    );
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "a.proto",
        &proto(
            "p",
            &format!("{noise}message A {{ int32 x = 1; int32 y = 2; }}"),
        ),
    );
    r.commit("two");
    r.tag("v2.0.0");
    let status = |cap: &str| {
        let (code, out, err) = run_with(
            &["log", "--format", "json"],
            &r,
            &[("PROTOLAPSE_MAX_HISTORY_STATEMENTS", cap)],
        );
        assert_eq!(code, 0, "{err}");
        let json: serde_json::Value = serde_json::from_str(&out).expect("json");
        json["versions"]
            .as_array()
            .expect("versions")
            .iter()
            .map(|v| v["status"].as_str().unwrap_or("").to_string())
            .collect::<Vec<_>>()
    };
    // 4 + 5 statements: within 20, although the comments hold 400 semicolons.
    assert_eq!(status("20"), ["complete", "complete"]);
    // Past 8: the oldest is not compiled.
    assert_eq!(status("8"), ["failed", "complete"]);
}

/// `check --rev` compiles the subject, the tags up to its base and the tag its version is
/// released as: a broken newer tag is not compiled, and the report is the one of a history
/// without it. A root is looked up newest first: the working tree, which has it, is compiled
/// too.
#[test]
fn check_compiles_the_subject_and_the_tags_up_to_its_base() {
    let mut r = two_versions();
    let args = ["check", "--rev", "HEAD", "--format", "json"];
    let (code, alone, err) = run_with(&args, &r, &[]);
    assert!(code == 0 || code == 1, "{err}");
    // v2.0.0's commit is now HEAD~1.
    add_broken(&mut r);
    let args = ["check", "--rev", "HEAD~1", "--format", "json"];
    let (code, out, err) = run_with(&args, &r, &[]);
    assert!(code == 0 || code == 1, "{err}");
    assert_eq!(out.replace("HEAD~1", "HEAD"), alone);
    assert!(
        err.contains("compiled 3 of 5 versions: v1.0.0, v2.0.0, HEAD~1"),
        "{err}"
    );
    let (_, _, err) = run_with(&["check", "--rev", "HEAD~1", "--root", "A"], &r, &[]);
    assert!(
        err.contains("compiled 4 of 5 versions: v1.0.0, v2.0.0, HEAD~1, WORKTREE"),
        "{err}"
    );
    // Without a revision the working tree builds on every tag: all are compiled.
    let (_, _, err) = run_with(&["check"], &r, &[]);
    assert!(err.contains("compiled 4 of 4 versions"), "{err}");
}

/// The terminal UI's loader sends the selected version's base, then the selected version
/// (the newest, or the one the demo opens on), then the rest; the finder's index still takes versions in history order, and the versions
/// compiled ahead are sent again with their final earlier-content links.
#[test]
fn the_loader_sends_the_newest_version_and_its_base_first() {
    use protolapse::explore::names::Index;
    use protolapse::ui::app::Action;
    use protolapse::ui::runtime::loader::{self, LoadOptions, Source};
    use protolapse::ui::runtime::worker::Inbox;
    use std::sync::RwLock;

    let names = RwLock::new(Index::new());
    let inbox = Inbox::default();
    loader::run(
        &Source::Demo,
        &LoadOptions::default(),
        &names,
        &inbox,
        &|| {},
    )
    .expect("demo");
    let actions = inbox.drain();
    let Some(Action::Loaded(project)) = actions.last() else {
        panic!("the load ends with the project");
    };
    let n = project.versions.len();
    let compiled: Vec<usize> = actions
        .iter()
        .filter_map(|a| match a {
            Action::Compiled(i, _) => Some(*i),
            _ => None,
        })
        .collect();
    let selected = actions
        .iter()
        .find_map(|a| match a {
            Action::Opened(o) => Some(o.selected.map_or(n - 1, |s| s.index())),
            _ => None,
        })
        .expect("opened");
    let base = load::lineage::previous_relevant(&project.versions, load::VersionId::at(selected))
        .expect("the selected version has a base")
        .index();
    assert_eq!(compiled[..2], [base, selected], "{compiled:?}");
    // Every version once, then the two sent ahead again with their final links.
    assert_eq!(compiled.len(), n + 2, "{compiled:?}");
    let indexed: Vec<usize> = actions
        .iter()
        .filter_map(|a| match a {
            Action::Indexed(k) => Some(*k),
            _ => None,
        })
        .collect();
    assert_eq!(indexed, (1..=n).collect::<Vec<_>>());
    // The index is the one built in history order (after the versions themselves).
    let mut in_order = Index::new();
    let headers: Vec<_> = project.versions.iter().map(|v| v.version.clone()).collect();
    in_order.add_versions(&headers);
    for (i, v) in project.versions.iter().enumerate() {
        in_order.add(i, &v.compiled.schema.content);
    }
    assert_eq!(names.read().expect("index").entries, in_order.entries);
    // The last copy of each version sent is the project's.
    let mut last = vec![None; n];
    for a in &actions {
        if let Action::Compiled(i, v) = a {
            last[*i] = Some((v.unchanged_since, v.same_as));
        }
    }
    let want: Vec<_> = project
        .versions
        .iter()
        .map(|v| Some((v.unchanged_since, v.same_as)))
        .collect();
    assert_eq!(last, want);
}
