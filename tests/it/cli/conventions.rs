//! The CLI as buf, cargo and git users expect it (issue 15): shared flags anywhere, typos
//! caught, any revision, completions and a man page, every code explained, JUnit, one
//! spelling per placeholder, colour.

use crate::common::{Repo, m_in_two_packages, proto, run, run_env};
use serde_json::Value;

/// The shared flags (`--demo`, `--tags`, `--rev`, `-I`, `--root`) mean the same before the
/// subcommand as after it: `protolapse -I src log` once ran without `-I`.
#[test]
fn global_flags_work_before_and_after_the_subcommand() {
    let tmp = std::env::temp_dir();
    let (code, before, err) = run(&["--demo", "log", "--format", "json"], &tmp);
    assert_eq!(code, 0, "{err}");
    let (_, after, _) = run(&["log", "--demo", "--format", "json"], &tmp);
    assert_eq!(before, after);

    let (code, out, err) = run(
        &["--root", "FlightPath", "--demo", "diff", "v1.0.0", "v1.1.0"],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("v1.0.0 -> v1.1.0 (reached from physics.v1.FlightPath)"),
        "{out}"
    );

    let mut r = Repo::new();
    r.write("api/a.proto", &proto("p", "message A { int32 x = 1; }"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "api/a.proto",
        &proto("p", "message A { int32 x = 1; int32 y = 2; }"),
    );
    r.commit("two");
    r.tag("x/v2.0.0");
    // -I before the subcommand is honoured: a proto root with nothing in it is an error.
    for args in [&["-I", "missing", "log"][..], &["log", "-I", "missing"][..]] {
        let (code, _, err) = run(args, r.path());
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains("no .proto files"), "{args:?}: {err}");
    }
    // --tags and --rev before the subcommand.
    let (code, out, err) = run(
        &[
            "--tags", "x/v*", "--rev", "HEAD~1", "log", "--format", "json",
        ],
        r.path(),
    );
    assert_eq!(code, 0, "{err}");
    let log: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = log["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["x/v2.0.0", "HEAD~1"]);
    // A repeatable flag on both sides keeps every value (clap alone keeps the later ones).
    let (code, out, err) = run(
        &[
            "--rev", "HEAD~1", "--tags", "x/v*", "log", "--rev", "HEAD", "--format", "json",
        ],
        r.path(),
    );
    assert_eq!(code, 0, "{err}");
    let log: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = log["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["x/v2.0.0", "HEAD~1", "HEAD"]);
}

/// A first word that is no subcommand is the terminal UI's REPO: when it names nothing and
/// is close to a subcommand, it is a typo and clap's "did you mean" says so; a path that does
/// not exist says that; `--demo` with a path is an error.
#[test]
fn typos_and_missing_paths_are_caught() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, meant) in [
        (&["lgo"][..], "'log'"),
        (&["chek", "--demo"][..], "'check'"),
        (&["blam"][..], "'blame'"),
    ] {
        let (code, out, err) = run(args, tmp.path());
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("unrecognized subcommand") && err.contains(meant),
            "{args:?}: {err}"
        );
    }
    for args in [&["no-such-folder"][..], &["log", "no-such-folder"][..]] {
        let (code, _, err) = run(args, tmp.path());
        assert_eq!(code, 2, "{args:?}");
        assert!(
            err.contains("no-such-folder does not exist") && !err.contains("not a git"),
            "{args:?}: {err}"
        );
    }
    // A repository before the subcommand is the terminal UI's: the subcommand would run
    // in the current folder instead, so it is refused and shown where it goes.
    let (code, out, err) = run(&["no-such-folder", "log"], tmp.path());
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("before the subcommand") && err.contains("protolapse log no-such-folder"),
        "{err}"
    );
    let dir = tmp.path().to_str().unwrap();
    for args in [&["--demo", dir][..], &["log", dir, "--demo"][..]] {
        let (code, _, err) = run(args, tmp.path());
        assert_eq!(code, 2, "{args:?}");
        assert!(
            err.contains("--demo") && err.contains("no repository"),
            "{args:?}: {err}"
        );
    }
}

/// `diff`, `check --against` and `graph --at` take any git revision, as `--rev` does: a
/// branch, `HEAD~1`, a commit id; `graph` without `--at` shows the newest version.
#[test]
fn any_revision_names_a_version() {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", "message A { int32 x = 1; }"));
    let first = r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "a.proto",
        &proto("p", "message A { int32 x = 1; int32 y = 2; }"),
    );
    r.commit("two: y added");
    r.git(&["branch", "release"]);
    r.write(
        "a.proto",
        &proto("p", "message A { string x = 1; int32 y = 2; }"),
    );
    r.commit("three: x becomes a string");
    // The working tree drops y.
    r.write("a.proto", &proto("p", "message A { string x = 1; }"));

    let (code, out, err) = run(&["diff", "HEAD~1", "HEAD", "--format", "json"], r.path());
    assert_eq!(code, 0, "{err}");
    let d: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (d["old"].as_str(), d["new"].as_str()),
        (Some("HEAD~1"), Some("HEAD"))
    );
    let rules: Vec<&str> = d["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["FIELD_TYPE_CHANGED"], "{out}");

    let (code, out, err) = run(&["diff", &first, "release"], r.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("FIELD_ADDED") && !out.contains("FIELD_TYPE_CHANGED"),
        "{out}"
    );
    let (code, _, err) = run(&["diff", "v1.0.0", "no-such-branch"], r.path());
    assert_eq!(code, 2);
    assert!(err.contains("unknown version `no-such-branch`"), "{err}");

    // graph: the newest version (the working tree) by default, any revision with --at.
    let (code, out, err) = run(&["graph", "--root", "A"], r.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "message p.A\n  1 x: string\n");
    let (code, out, err) = run(&["graph", "--root", "A", "--at", "release"], r.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "message p.A\n  1 x: int32\n  2 y: int32\n");

    // check: the PR gate in one command, the working tree (or HEAD) against a branch.
    let (code, out, err) = run(&["check", "--against", "release"], r.path());
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("against release") && out.contains("FIELD_REMOVED"),
        "{out}"
    );
    let (code, out, err) = run(&["check", "--rev", "HEAD", "--against", "HEAD~1"], r.path());
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("FIELD_TYPE_CHANGED") && !out.contains("FIELD_REMOVED"),
        "{out}"
    );
    let (code, out, err) = run(
        &["check", "--rev", "release", "--against", "v1.0.0"],
        r.path(),
    );
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = run(&["check", "--against", "nowhere"], r.path());
    assert_eq!(code, 2);
    assert!(
        err.contains("no version or git revision is named `nowhere`"),
        "{err}"
    );
}

/// Shell completions (clap_complete) and a man page (clap_mangen), generated from the one
/// definition of the arguments.
#[test]
fn completions_and_man_page() {
    let tmp = std::env::temp_dir();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) = run(&["completions", shell], &tmp);
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(
            out.contains("against") && out.contains("explain"),
            "{shell}: {out}"
        );
    }
    let (code, out, _) = run(&["completions", "bash"], &tmp);
    assert_eq!(code, 0);
    let checked = std::process::Command::new("bash")
        .args(["-n", "-c", &out])
        .status();
    if let Ok(status) = checked {
        assert!(status.success(), "the bash script parses");
    }
    let (code, _, err) = run(&["completions", "tcsh"], &tmp);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value 'tcsh'"), "{err}");

    let (code, out, err) = run(&["man"], &tmp);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(".ie") || out.starts_with(".TH"), "{out}");
    assert!(out.contains(".TH protolapse 1"), "{out}");
    for section in ["PROTOLAPSE CHECK", "PROTOLAPSE DIFF", "EXIT STATUS"] {
        assert!(out.contains(section), "{section} missing");
    }
    // A subcommand's section lists its own options; the shared ones are on the page once.
    let check = out
        .split(".SH \"PROTOLAPSE CHECK\"")
        .nth(1)
        .unwrap_or_default();
    let check = check
        .split(".SH \"PROTOLAPSE BLAME\"")
        .next()
        .unwrap_or_default();
    assert!(
        check.contains("against") && !check.contains("proto\\-path"),
        "{check}"
    );
}

/// `explain` knows every code `check` prints, not only the rule ids, and lists them all as
/// text or JSON.
#[test]
fn explain_knows_every_code_check_prints() {
    let tmp = std::env::temp_dir();
    for id in [
        "SEMVER_TOO_SMALL",
        "SEMVER_VERSION_TAKEN",
        "COMPILE_ERROR",
        "NOT_JUDGED",
        "HAZARD_NUMBER_REUSED",
        "HAZARD_NAME_REUSED",
        "HAZARD_RESERVATION_DROPPED",
        "HAZARD_TYPE_REVERTED",
        "DEPENDENCY_CHANGED",
        "BUFFRS_LIB_HAS_SERVICE",
        "BUFFRS_PACKAGE_MISMATCH",
        "BUFFRS_MANIFEST_INVALID",
    ] {
        let (code, out, err) = run(&["explain", &id.to_lowercase()], &tmp);
        assert_eq!(code, 0, "{id}: {err}");
        assert!(out.starts_with(&format!("# {id}\n")), "{id}: {out}");
        assert!(out.contains("## What to do"), "{id}: {out}");
    }
    let (code, out, err) = run(&["explain", "--list", "--format", "json"], &tmp);
    assert_eq!(code, 0, "{err}");
    let list: Value = serde_json::from_str(&out).unwrap();
    let codes = list["codes"].as_array().unwrap();
    let by = |id: &str| codes.iter().find(|c| c["id"] == id).unwrap();
    assert_eq!(by("FIELD_TYPE_CHANGED")["kind"], "rule");
    assert_eq!(by("FIELD_TYPE_CHANGED")["worst"], "breaking");
    assert_eq!(
        by("FIELD_TYPE_CHANGED")["buf"],
        "FIELD_WIRE_COMPATIBLE_TYPE"
    );
    assert_eq!(by("SEMVER_TOO_SMALL")["kind"], "check");
    assert!(
        by("SEMVER_TOO_SMALL")["summary"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );
    assert_eq!(
        codes.len(),
        protolapse::rules::RULES.len() + protolapse::policy::codes::CODES.len()
    );
    // The demo's too-small bump points at its page.
    let (code, out, _) = run(
        &["check", "--demo", "--rev", "v1.1.0", "--version", "1.1.0"],
        &tmp,
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("= see: protolapse explain SEMVER_TOO_SMALL"),
        "{out}"
    );
}

/// `check --format junit`: a test case per finding (an error fails it), counted in the
/// suite; a passing check is one passing case.
#[test]
fn check_reports_junit() {
    let tmp = std::env::temp_dir();
    let (code, out, err) = run(
        &[
            "check",
            "--demo",
            "--rev",
            "v1.1.0",
            "--version",
            "1.1.0",
            "--format",
            "junit",
        ],
        &tmp,
    );
    assert_eq!(code, 1, "{err}");
    assert!(out.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
    let failures = out.matches("<failure ").count();
    assert!(failures >= 2, "{out}");
    assert!(
        out.contains(&format!("failures=\"{failures}\"")),
        "the suite counts its failures: {out}"
    );
    assert_eq!(
        out.matches("<testcase ").count(),
        out.matches("</testcase>").count() + out.matches("\"/>").count()
    );
    assert!(out.contains("<failure type=\"SEMVER_TOO_SMALL\""), "{out}");
    assert!(
        out.contains("classname=\"physics/v1/temperature.proto\""),
        "{out}"
    );
    // Markup from messages is escaped.
    assert!(
        out.contains("double -&gt; float") && !out.contains("-> float"),
        "{out}"
    );
    assert!(out.trim_end().ends_with("</testsuites>"));

    let (code, out, err) = run(
        &["check", "--demo", "--rev", "v0.2.0", "--format", "junit"],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("tests=\"1\" failures=\"0\"") && !out.contains("<failure"),
        "{out}"
    );
}

/// One spelling per placeholder: `--root <MSG>` in every command that takes it, every
/// option's placeholder in capitals (`--level <LEVEL>`, never `<wire|json>`), every option
/// described.
#[test]
fn help_spells_placeholders_one_way() {
    let tmp = std::env::temp_dir();
    for sub in ["log", "check", "blame", "graph", "diff", "bench", "explain"] {
        let (code, out, err) = run(&[sub, "--help"], &tmp);
        assert_eq!(code, 0, "{sub}: {err}");
        if sub != "explain" {
            assert!(out.contains("--root <MSG>"), "{sub}: {out}");
        }
        for line in out.lines().filter(|l| l.trim_start().starts_with('-')) {
            if let Some((_, rest)) = line.split_once(" <") {
                let name = rest.split('>').next().unwrap_or_default();
                assert!(
                    name.chars()
                        .all(|c| c.is_ascii_uppercase() || ",._".contains(c)),
                    "{sub}: {line}"
                );
            }
            let described = line
                .split("  ")
                .filter(|p| !p.trim().is_empty())
                .nth(1)
                .is_some_and(|d| !d.trim_start().starts_with('['));
            assert!(described, "{sub}: no description: {line}");
        }
    }
}

/// Colour in `check` and `diff` text: `--color always|never`, else NO_COLOR and
/// CLICOLOR_FORCE, else only on a terminal (never into a pipe, as here); never in JSON.
#[test]
fn colour_follows_the_flag_and_the_environment() {
    let tmp = std::env::temp_dir();
    let diff = ["diff", "--demo", "v1.0.0", "v1.1.0"];
    let with = |extra: &[&str], vars: &[(&str, &str)]| {
        let args: Vec<&str> = diff.iter().chain(extra).copied().collect();
        let vars: Vec<(&str, &std::ffi::OsStr)> = vars
            .iter()
            .map(|(k, v)| (*k, std::ffi::OsStr::new(*v)))
            .collect();
        let (code, out, err) = run_env(&args, &tmp, &vars);
        assert_eq!(code, 0, "{err}");
        out
    };
    let plain = [("NO_COLOR", ""), ("CLICOLOR_FORCE", "")];
    let text = with(&[], &plain);
    assert!(!text.contains('\u{1b}'), "a pipe gets no colour");
    let painted = with(&["--color", "always"], &plain);
    assert!(
        painted.contains("\u{1b}[") && painted.contains("breaking\u{1b}[0m"),
        "{painted}"
    );
    assert_eq!(
        with(&[], &[("NO_COLOR", ""), ("CLICOLOR_FORCE", "1")]),
        painted
    );
    assert_eq!(
        with(&[], &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]),
        text
    );
    assert_eq!(
        with(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]),
        text
    );
    assert!(!with(&["--color", "always", "--format", "json"], &plain).contains('\u{1b}'));

    let (code, out, _) = run(
        &[
            "--color",
            "always",
            "check",
            "--demo",
            "--rev",
            "v1.1.0",
            "--version",
            "1.1.0",
        ],
        &tmp,
    );
    assert_eq!(code, 1);
    assert!(out.contains("\u{1b}[31merror[SEMVER_TOO_SMALL]"), "{out}");
}

/// A short root names one type in the newest version that has it, or it is an error: `log`
/// once resolved a name that had become ambiguous through an older version where it was
/// unique, while `diff` rejected it, and `blame` called an ambiguous name unknown. Every
/// command now says the same, naming the version.
#[test]
fn an_ambiguous_short_root_is_an_error_in_every_command() {
    let r = m_in_two_packages();
    for args in [
        &["log", "--root", "M"][..],
        &["diff", "--root", "M", "v1.0.0", "v2.0.0"],
        &[
            "check",
            "--rev",
            "v2.0.0",
            "--against",
            "v1.0.0",
            "--root",
            "M",
        ],
    ] {
        let (code, out, err) = run(args, r.path());
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        // Named where: the newest version of a history, or the one `check` judges.
        let place = if args[0] == "check" {
            "WORKTREE"
        } else {
            "v2.0.0"
        };
        assert!(
            err.contains(&format!("root `M` is ambiguous in {place}: a.M, b.M")),
            "{args:?}: {err}"
        );
    }
    // blame follows a type over the whole history: ambiguous is said so, not "unknown".
    let (code, out, err) = run(&["blame", "M"], r.path());
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("`M` is ambiguous: a.M, b.M"), "{err}");
    // The full name, or a name unique in the newest version, still resolves.
    let (code, out, err) = run(&["log", "--root", "a.M"], r.path());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("v2.0.0"), "{out}");
}
