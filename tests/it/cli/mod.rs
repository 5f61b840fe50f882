//! The binary as a user runs it: the demo, the JSON contract, the graph formats, errors.

use crate::common::{Repo, proto, run};
use serde_json::Value;

mod blame;
mod conventions;

fn demo_log() -> Value {
    let (code, out, err) = run(
        &["log", "--demo", "--format", "json"],
        std::env::temp_dir().as_path(),
    );
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("log --format json is JSON")
}

#[test]
fn demo_log_json_keeps_its_contract() {
    let log = demo_log();
    let versions = log["versions"].as_array().unwrap();
    assert!(versions.len() >= 8);
    for v in versions {
        for key in [
            "name",
            "version",
            "semver",
            "commit",
            "date",
            "status",
            "files",
            "messages",
            "fingerprint",
            "unchanged_since",
            "diagnostics",
        ] {
            assert!(v.get(key).is_some(), "{key} missing in {v}");
        }
        assert!(["complete", "partial", "failed"].contains(&v["status"].as_str().unwrap()));
        assert_eq!(v["commit"].as_str().unwrap().len(), 40);
        assert_eq!(v["date"].as_str().unwrap().len(), 10);
        assert!(
            v["message"].as_str().is_some_and(|m| !m.is_empty()),
            "annotated tags"
        );
    }
    let by = |name: &str| versions.iter().find(|v| v["name"] == name).unwrap();
    // The comment-only release.
    assert_eq!(by("v0.2.1")["unchanged_since"], "v0.2.0");
    assert_eq!(by("v0.2.1")["fingerprint"], by("v0.2.0")["fingerprint"]);
    // The release that does not compile keeps its diagnostics and the rest loads.
    let broken = by("v1.2.0");
    assert_ne!(broken["status"], "complete");
    let d = &broken["diagnostics"].as_array().unwrap();
    assert!(
        d.iter()
            .any(|d| d["file"] == "physics/v1/wind.proto" && d["line"] == 9)
    );
    assert!(
        d.iter()
            .any(|d| d["message"].as_str().unwrap().contains("airport.proto"))
    );
    assert_eq!(by("v2.0.0")["status"], "complete");
    let distinct: std::collections::HashSet<&str> = versions
        .iter()
        .filter_map(|v| v["fingerprint"].as_str())
        .collect();
    assert_eq!(distinct.len(), versions.len() - 1, "only v0.2.1 repeats");
}

#[test]
fn demo_log_text_and_root_fingerprints() {
    let (code, out, err) = run(&["log", "--demo"], std::env::temp_dir().as_path());
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().next().unwrap().starts_with("VERSION"));
    assert!(out.contains("unchanged since v0.2.0"));
    assert!(out.contains("partial 5/7"));

    let (code, out, err) = run(
        &["log", "--demo", "--root", "Coordinates", "--format", "json"],
        std::env::temp_dir().as_path(),
    );
    assert_eq!(code, 0, "{err}");
    let log: Value = serde_json::from_str(&out).unwrap();
    let fp: Vec<&str> = log["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["root_fingerprint"].as_str().unwrap_or("-"))
        .collect();
    // Coordinates changes in v1.0.0 (datum removed) and v1.1.1 (geohash), not in between.
    assert_eq!(fp[0], fp[4], "v0.1.0 .. v0.4.0");
    assert_ne!(fp[4], fp[5]);
    assert_eq!(fp[5], fp[6]);
    assert_ne!(fp[6], fp[7]);
}

#[test]
fn graph_in_every_format() {
    let tmp = std::env::temp_dir();
    let (code, out, err) = run(
        &["graph", "--demo", "--at", "v0.4.0", "--root", "FlightPath"],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("message physics.v1.FlightPath\n"), "{out}");
    assert!(out.contains("  2 waypoints: repeated physics.v1.Coordinates\n"));
    assert!(out.contains("[oneof endpoint]"));
    assert!(out.contains("12 tags: map<string, string>"));
    assert!(out.contains("(see above)"));

    let (code, out, _) = run(
        &[
            "graph",
            "--demo",
            "--at",
            "v0.4.0",
            "--root",
            "physics.v1.FlightService",
            "--format",
            "dot",
        ],
        &tmp,
    );
    assert_eq!(code, 0);
    assert!(out.starts_with("digraph types {"));
    assert!(out.contains("\"physics.v1.FlightService\" -> \"physics.v1.ListFlightsRequest\" [label=\"ListFlights (in)\"]"), "{out}");

    let (code, out, _) = run(
        &[
            "graph",
            "--demo",
            "--at",
            "v0.4.0",
            "--root",
            "FlightPath",
            "--format",
            "mermaid",
        ],
        &tmp,
    );
    assert_eq!(code, 0);
    assert!(out.starts_with("flowchart LR\n"));
    assert!(out.contains("-->|\"waypoints = 2\"|"), "{out}");
}

#[test]
fn cycles_print_once() {
    let mut r = Repo::new();
    r.write(
        "t.proto",
        &proto("t", "message Node { repeated Node children = 1; Edge e = 2; }\nmessage Edge { Node to = 1; }"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    let (code, out, err) = run(&["graph", "--at", "v1.0.0", "--root", "Node"], r.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "message t.Node\n  1 children: repeated t.Node  (cycle)\n  2 e: t.Edge\n    1 to: t.Node  (cycle)\n(cycles are marked; a type is expanded once)\n"
    );
}

#[test]
fn errors_say_what_where_and_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&["log"], tmp.path());
    assert_eq!(code, 2);
    assert!(
        err.contains("is not a git repository") && err.contains("--demo"),
        "{err}"
    );

    let (code, _, err) = run(
        &["graph", "--demo", "--at", "v1.0.0", "--root", "Temprature"],
        tmp.path(),
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown root `Temprature`") && err.contains("physics.v1.Temperature"),
        "{err}"
    );

    let (code, _, err) = run(
        &["graph", "--demo", "--at", "v1.0.1", "--root", "FlightPath"],
        tmp.path(),
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown version `v1.0.1`") && err.contains("v1.0.0"),
        "{err}"
    );

    let mut r = Repo::new();
    r.write("README.md", "no protos here");
    r.commit("one");
    r.tag("v1.0.0");
    let (code, _, err) = run(&["log"], r.path());
    assert_eq!(code, 2);
    assert!(
        err.contains("no .proto files") && err.contains("-I"),
        "{err}"
    );

    r.write("protolapse.toml", "proto_path = [\"x\"]\n");
    let (code, _, err) = run(&["log"], r.path());
    assert_eq!(code, 2);
    assert!(
        err.contains("protolapse.toml") && err.contains("proto_path"),
        "{err}"
    );
}

#[test]
fn repository_text_is_sanitized() {
    let mut r = Repo::new();
    r.write(
        "a.proto",
        "syntax = \"proto3\";\nmessage A { int32 \u{1b}[2Jx = 1; }\n",
    );
    r.commit("one");
    r.annotated("v1.0.0", "evil \u{1b}]0;title\u{7} message");
    let (code, out, err) = run(&["log"], r.path());
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(out.contains("failed"), "{out}");
}

#[test]
fn config_file_sets_proto_paths_and_root() {
    let mut r = Repo::new();
    r.write(
        "api/p.proto",
        &proto("p", "message Root { Leaf l = 1; }\nmessage Leaf {}"),
    );
    r.write(
        "protolapse.toml",
        "proto_paths = [\"api\"]\nroot = \"Root\"\n",
    );
    r.commit("one");
    r.tag("v1.0.0");
    let (code, out, err) = run(&["graph", "--at", "v1.0.0"], r.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "message p.Root\n  1 l: p.Leaf\n");
}

#[test]
fn diff_json_keeps_its_contract() {
    let tmp = std::env::temp_dir();
    let (code, out, err) = run(
        &["diff", "--demo", "v1.0.0", "v1.1.0", "--format", "json"],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");
    let d: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(d["old"], "v1.0.0");
    assert_eq!(d["new"], "v1.1.0");
    assert_eq!(d["root"], Value::Null);
    assert_eq!(d["required_bump"], "major");
    let value = d["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["element"] == "physics.v1.Temperature.value")
        .unwrap();
    assert_eq!(value["rule"], "FIELD_TYPE_CHANGED");
    assert_eq!(value["number"], 1);
    assert_eq!(value["old"], "double value = 1");
    assert_eq!(value["new"], "float value = 1");
    assert_eq!(value["old_location"], "physics/v1/temperature.proto:11");
    assert_eq!(value["verdict"]["wire"]["backward"], "breaking");
    assert_eq!(value["verdict"]["json"]["backward"], "lossy");
    assert_eq!(value["verdict"]["source"], "breaking");
    assert_eq!(value["bump"], "major");
    assert!(value["message"].as_str().is_some_and(|m| !m.is_empty()));

    // The text form, with a root, and `[REPO] OLD NEW` with the repository given.
    let (code, out, err) = run(
        &["diff", "--demo", "v1.1.1", "v2.0.0", "--root", "FlightPath"],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("v1.1.1 -> v2.0.0 (reached from physics.v1.FlightPath)\n"),
        "{out}"
    );
    assert!(out.contains("required bump: major"));
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", "message A { int32 x = 1; }"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "a.proto",
        &proto("p", "message A { int32 x = 1; string y = 2; }"),
    );
    r.commit("two");
    r.tag("v1.1.0");
    let repo = r.path().to_str().unwrap().to_string();
    let (code, out, err) = run(&["diff", &repo, "v1.0.0", "v1.1.0"], &tmp);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("FIELD_ADDED") && out.contains("required bump: minor"),
        "{out}"
    );
}

#[test]
fn explain_prints_pages_and_lists_rules() {
    let tmp = std::env::temp_dir();
    let (code, out, err) = run(&["explain", "field_type_changed"], &tmp);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("# FIELD_TYPE_CHANGED\n") && out.contains("zigzag"),
        "{out}"
    );
    // The verdict the engine computes on the rule's fixture (int32 -> sint32), after the page.
    let computed = out
        .split_once("## What protolapse computes for this example")
        .map(|(_, c)| c)
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        computed.contains("  old  int32 count = 1 ")
            && computed.contains("  new  sint32 count = 1 ")
            && computed.contains("  wire    breaking  breaking\n  json    safe      safe\n")
            && computed.contains("  bump    major\n"),
        "{computed}"
    );
    let (code, out, _) = run(&["explain", "--list"], &tmp);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().count(),
        protolapse::rules::RULES.len() + protolapse::policy::codes::CODES.len()
    );
    assert!(out.lines().any(|l| l.starts_with("FIELD_RENAMED ")));
    // The worst verdict of each rule's example, beside its summary.
    let added = out.lines().find(|l| l.starts_with("FIELD_ADDED ")).unwrap();
    assert!(added.contains(" hazard "), "{added}");
    let (code, _, err) = run(&["explain", "FIELD_RENAMD"], &tmp);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean FIELD_RENAMED"), "{err}");
}

#[test]
fn diff_takes_flags_between_its_arguments() {
    let tmp = std::env::temp_dir();
    let (code, out, err) = run(
        &["diff", "--demo", "v1.0.0", "--root", "FlightPath", "v1.1.0"],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("v1.0.0 -> v1.1.0 (reached from physics.v1.FlightPath)"),
        "{out}"
    );
    let (code, _, err) = run(&["diff", "--demo", "v1.0.0"], &tmp);
    assert_eq!(code, 2);
    assert!(err.contains("[REPO] OLD NEW"), "{err}");
}

/// A short root name means the repository's own type: `Annotation` is physics.v1.Annotation
/// even though descriptor.proto (imported for a custom option) has
/// google.protobuf.GeneratedCodeInfo.Annotation.
#[test]
fn a_short_root_prefers_the_repositorys_own_type() {
    let (code, out, err) = run(
        &["graph", "--demo", "--at", "v2.2.0", "--root", "Annotation"],
        std::env::temp_dir().as_path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("message physics.v1.Annotation\n"), "{out}");
    assert!(
        out.contains("100 [physics.v1.source]: string  (extension)"),
        "{out}"
    );
}

/// A type reached from the root but declared in a file that is not judged on its own (here
/// excluded by buf.yaml) is still compared, and the change says where the file came from.
#[test]
fn a_reached_type_from_an_excluded_file_is_compared_and_says_so() {
    let mut r = Repo::new();
    r.write(
        "buf.yaml",
        "version: v2\nmodules:\n  - path: proto\n    excludes: [proto/internal]\n",
    );
    r.write(
        "proto/api/v1/a.proto",
        "syntax = \"proto3\";\npackage api.v1;\nimport \"internal/shared.proto\";\nmessage A { internal.Shared s = 1; }\n",
    );
    r.write(
        "proto/internal/shared.proto",
        &proto("internal", "message Shared { int32 id = 1; }"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "proto/internal/shared.proto",
        &proto("internal", "message Shared { string id = 1; }"),
    );
    r.commit("two");
    r.tag("v1.1.0");
    let (code, out, err) = run(
        &["diff", "v1.0.0", "v1.1.0", "--root", "api.v1.A"],
        r.path(),
    );
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.contains("internal.Shared.id"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("(excluded by buf.yaml, imported)"), "{line}");
    // In whole-schema scope the excluded file is not judged.
    let (_, whole, _) = run(&["diff", "v1.0.0", "v1.1.0"], r.path());
    assert!(!whole.contains("internal.Shared.id"), "{whole}");
}
