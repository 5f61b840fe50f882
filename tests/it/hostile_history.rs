//! Hostile histories and options (issue 13), the git and config side: many tags, proto paths
//! that leave the repository, invalid tag globs, a version checked against itself, malformed
//! buf files, symbolic links and submodules, trees too deep to list.

use crate::common::{Repo, proto, run};
use protolapse::history::{self, HistoryOptions, VersionKind};

/// `n` commits on `main`, each tagged `v0.<i>.0`, one `a.proto` that never changes, and a tag
/// `side` on a commit that is no ancestor of `main`: built with `git fast-import` in one go.
fn many_tags(n: usize) -> Repo {
    let r = Repo::new();
    let file = "syntax = \"proto3\";\npackage p;\nmessage A { int32 x = 1; }\n";
    let mut s = String::new();
    for i in 0..n {
        let data = format!("{i}\n");
        s.push_str(&format!(
            "commit refs/heads/main\nmark :{}\ncommitter T <t@e> {} +0000\ndata 1\nc\n",
            i + 1,
            1_700_000_000 + i
        ));
        if i > 0 {
            s.push_str(&format!("from :{i}\n"));
        }
        s.push_str(&format!(
            "M 644 inline a.proto\ndata {}\n{file}M 644 inline R\ndata {}\n{data}\n",
            file.len(),
            data.len()
        ));
        s.push_str(&format!("reset refs/tags/v0.{i}.0\nfrom :{}\n\n", i + 1));
    }
    let side = file.replace("A {", "B {");
    s.push_str(&format!(
        "commit refs/heads/side\ncommitter T <t@e> 1800000000 +0000\ndata 1\ns\nfrom :1\nM 644 inline b.proto\ndata {}\n{side}\nreset refs/tags/v9.0.0\nfrom refs/heads/side\n\n",
        side.len(),
    ));
    r.fast_import(&s);
    r.git(&["reset", "-q", "--hard", "main"]);
    r
}

#[test]
fn ancestry_of_a_revision_among_many_tags_is_one_walk_and_exact() {
    let r = many_tags(400);
    let h = history::load(
        r.path(),
        &HistoryOptions {
            revs: vec!["main".into()],
            ..HistoryOptions::default()
        },
    )
    .unwrap();
    let main = h
        .versions
        .iter()
        .find(|v| v.kind == VersionKind::Rev)
        .unwrap();
    let ancestors = main.ancestors.as_ref().unwrap();
    // Every tag of main, and not the tag on the side branch.
    assert_eq!(ancestors.len(), 400);
    let names: Vec<&str> = ancestors
        .iter()
        .map(|a| h.versions[a.index()].name.as_str())
        .collect();
    assert!(names.contains(&"v0.0.0") && names.contains(&"v0.399.0"));
    assert!(!names.contains(&"v9.0.0"), "{names:?}");
    // `check` of the working tree takes the latest release it builds on, not v9.0.0.
    let (code, out, err) = run(&["check"], r.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("against v0.399.0"), "{out}");
}

fn one_tag() -> Repo {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", "message A { int32 x = 1; }"));
    r.commit("one");
    r.tag("v1.0.0");
    r
}

#[test]
fn proto_paths_outside_the_repository_are_errors_that_name_their_source() {
    let mut r = one_tag();
    r.write("sub/b.proto", &proto("q", "message B {}"));
    r.commit("sub");
    r.tag("v1.1.0");
    for (args, what) in [
        (vec!["log", "-I", "/etc"], "absolute"),
        (
            vec!["log", "--proto-path", "a/../../x"],
            "out of the repository",
        ),
        (vec!["check", "-I", "../x"], "out of the repository"),
    ] {
        let (code, _, err) = run(&args, r.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("-I/--proto-path") && err.contains(what) && err.contains("help:"),
            "{args:?}: {err}"
        );
    }
    // Inside the repository, `..` is fine.
    let (code, _, err) = run(&["log", "-I", "sub/.."], r.path());
    assert_eq!(code, 0, "{err}");

    r.write("protolapse.toml", "proto_paths = [\"proto\", \"/etc\"]\n");
    let (code, _, err) = run(&["log"], r.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("protolapse.toml")
            && err.contains("`proto_paths`")
            && err.contains("`/etc` is an absolute path"),
        "{err}"
    );
}

#[test]
fn an_invalid_tag_glob_names_where_it_came_from() {
    let r = one_tag();
    let (code, _, err) = run(&["log", "--tags", "v[*"], r.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--tags") && err.contains("invalid tag glob `v[*`"),
        "{err}"
    );
    r.write("protolapse.toml", "tags = \"v[*\"\n");
    let (code, _, err) = run(&["log"], r.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("protolapse.toml")
            && err.contains("key `tags`")
            && err.contains("invalid tag glob `v[*`"),
        "{err}"
    );
}

#[test]
fn a_revision_checked_against_its_own_tag_is_an_error() {
    let mut r = one_tag();
    let (code, out, err) = run(
        &["check", "--rev", "v1.0.0", "--against", "v1.0.0"],
        r.path(),
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("--against v1.0.0 is the commit being checked") && err.contains("help:"),
        "{err}"
    );
    // Another commit with the same content is a legitimate comparison.
    r.commit("empty");
    let (code, out, err) = run(&["check", "--rev", "main", "--against", "v1.0.0"], r.path());
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_malformed_buf_file_fails_its_version_and_says_why() {
    let mut r = Repo::new();
    r.write("buf.yaml", "version: v1\nbuild: {roots: [unclosed\n");
    r.write("proto/a.proto", &proto("p", "message A { int32 x = 1; }"));
    r.commit("broken");
    r.tag("v1.0.0");
    r.write("buf.yaml", "version: v1beta1\nbuild:\n  roots: [proto]\n");
    r.commit("fixed");
    r.tag("v1.1.0");
    r.write("buf.work.yaml", "directories: {\n");
    r.commit("broken workspace");
    r.tag("v1.2.0");
    r.remove("buf.work.yaml");
    r.commit("fixed again");
    r.tag("v1.3.0");

    let (code, out, err) = run(&["log"], r.path());
    assert_eq!(code, 0, "{err}");
    let row = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_default()
            .to_string()
    };
    // The broken versions are failed, each with one line naming the file; the rest goes on.
    assert!(
        row("v1.0.0").contains("failed") && row("v1.0.0").contains("buf.yaml: cannot be read"),
        "{out}"
    );
    assert!(
        row("v1.2.0").contains("failed") && row("v1.2.0").contains("buf.work.yaml: cannot be read"),
        "{out}"
    );
    for ok in ["v1.1.0", "v1.3.0"] {
        assert!(row(ok).contains("complete"), "{out}");
    }
    // v1.3.0 is compared with v1.1.0, with the same roots: no spurious change.
    assert!(row("v1.3.0").contains("none"), "{out}");

    // The working tree's own buf.yaml broken: check says so instead of guessing roots.
    r.write("buf.yaml", "version: [\n");
    let (code, _, err) = run(&["check"], r.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("WORKTREE") && err.contains("buf.yaml: cannot be read") && !err.contains('\t'),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// A commit whose tree holds `top.proto` and `a.proto` `depth` folders down, built with
/// `git fast-import` (a checkout of it may not even fit the file system's path limit).
fn deep_tree(depth: usize) -> Repo {
    let r = Repo::new();
    let f = "syntax = \"proto3\";\nmessage A { int32 x = 1; }\n";
    let path = format!("{}a.proto", "d/".repeat(depth));
    let stream = format!(
        "commit refs/heads/main\ncommitter T <t@e> 1700000000 +0000\ndata 1\nc\nM 644 inline top.proto\ndata {n}\n{f}M 644 inline {path}\ndata {n}\n{f}\nreset refs/tags/v1.0.0\nfrom refs/heads/main\n\n",
        n = f.len()
    );
    r.fast_import(&stream);
    r
}

#[test]
fn a_tree_thousands_of_folders_deep_is_listed_to_the_limit_and_said() {
    // Deep enough to overflow a recursive listing on a test thread's 2 MiB stack; listed
    // here on that thread.
    let r = deep_tree(12_000);
    let h = history::load(r.path(), &HistoryOptions::default()).unwrap();
    let v = &h.versions[0];
    let paths: Vec<&str> = v.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["top.proto"]);
    assert_eq!(v.problems.len(), 1, "{:?}", v.problems);
    let p = &v.problems[0];
    assert!(!p.fatal, "{p:?}");
    assert!(p.message.contains("deeper than 256 folders"), "{p:?}");
    assert!(p.path.len() < 300 && p.path.starts_with("d/d/"), "{p:?}");
    // The version is still read and compiled; the diagnostic shows on its row.
    let (code, out, err) = run(&["log"], r.path());
    assert_eq!(code, 0, "{err}");
    let row = out.lines().find(|l| l.starts_with("v1.0.0")).unwrap_or("");
    assert!(
        row.contains("complete") && row.contains("deeper than 256"),
        "{out}"
    );
}

#[test]
fn a_folder_past_the_limit_is_skipped_alike_in_the_tag_and_the_worktree() {
    let mut r = Repo::new();
    r.write("top.proto", &proto("t", "message T {}"));
    r.write(
        &format!("{}deep.proto", "d/".repeat(300)),
        &proto("d", "message D {}"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    let h = history::load(
        r.path(),
        &HistoryOptions {
            worktree: true,
            worktree_always: true,
            ..HistoryOptions::default()
        },
    )
    .unwrap();
    let (tag, wt) = (&h.versions[0], &h.versions[1]);
    assert_eq!(wt.kind, VersionKind::Worktree);
    for v in [tag, wt] {
        let paths: Vec<&str> = v.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["top.proto"], "{}", v.name);
        assert_eq!(v.problems.len(), 1, "{}: {:?}", v.name, v.problems);
    }
    assert_eq!(tag.problems, wt.problems);
}
