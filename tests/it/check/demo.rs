//! The demo history's deliberate mistakes, found by `check`, shown by `log` (with and without
//! a policy) and `blame`, in text and in their JSON contracts.

use crate::common::run;
use serde_json::Value;

#[test]
fn the_demo_mistakes_are_found() {
    let tmp = std::env::temp_dir();
    // v1.1.0 was tagged as a minor but breaks.
    let (code, out, _) = run(
        &["check", "--demo", "--rev", "v1.1.0", "--version", "1.1.0"],
        &tmp,
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[SEMVER_TOO_SMALL]"), "{out}");
    assert!(out.contains("publish it as 2.0.0"), "{out}");
    // v1.1.1 reuses removed and reserved numbers.
    let (code, out, _) = run(
        &["check", "--demo", "--rev", "v1.1.1", "--version", "1.1.1"],
        &tmp,
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[FIELD_RESERVED_NUMBER_REUSED]"), "{out}");
    assert!(out.contains("HAZARD_NUMBER_REUSED"), "{out}");
    // log shows both, and the default check of the demo's tree passes.
    let (code, out, _) = run(&["log", "--demo", "--format", "json"], &tmp);
    assert_eq!(code, 0);
    let log: Value = serde_json::from_str(&out).unwrap();
    let v = |name: &str| {
        log["versions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(v("v1.1.0")["semver"], "too_small");
    assert_eq!(v("v1.1.0")["bump"], "minor");
    assert_eq!(v("v1.1.0")["required_bump"], "major");
    assert_eq!(v("v1.1.0")["previous"], "v1.0.0");
    assert_eq!(v("v1.1.1")["semver"], "too_small");
    let hazards = v("v1.1.1")["hazards"].as_array().unwrap().clone();
    assert!(
        hazards.iter().any(|h| h["kind"] == "number_reused"
            && h["element"] == "physics.v1.FlightPath.duration_ms"
            && h["versions"].as_array().unwrap().len() == 3),
        "{hazards:?}"
    );
    // After the broken v1.2.0, v2.0.0 is compared with the last version that compiled the
    // files v1.2.0 left out.
    assert_eq!(v("v2.0.0")["previous"], "v1.1.1");
    assert!(
        v("v2.0.0")["semver_reason"]
            .as_str()
            .unwrap()
            .contains("v1.2.0 left out files that did not compile"),
        "{}",
        v("v2.0.0")["semver_reason"]
    );
    assert_eq!(v("v0.1.0")["semver"], "none");
    assert_eq!(v("v0.1.0")["previous"], Value::Null);
    assert_eq!(v("v0.2.1")["semver"], "ok");
    let (code, _, _) = run(&["check", "--demo"], &tmp);
    assert_eq!(code, 0);
}

#[test]
fn log_with_a_policy() {
    let tmp = std::env::temp_dir();
    let (code, out, err) = run(
        &["log", "--demo", "--policy", "BACKWARD", "--format", "json"],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");
    let log: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(log["policy"]["name"], "BACKWARD");
    assert_eq!(log["policy"]["level"], "wire");
    let v110 = log["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "v1.1.0")
        .unwrap();
    assert_eq!(v110["policy"]["name"], "BACKWARD");
    assert_eq!(v110["policy"]["pass"], false);
    assert_eq!(v110["policy"]["against"], "v1.0.0");
    assert_eq!(
        v110["policy"]["first_violation"]["rule"],
        "FIELD_REQUIRED_ADDED"
    );
    assert!(v110["changes"]["breaking"].as_u64().unwrap() >= 1);
    let (code, out, _) = run(&["log", "--demo", "--policy", "BACKWARD"], &tmp);
    assert_eq!(code, 0);
    assert!(
        out.contains("BACKWARD fails against v1.0.0: FIELD_REQUIRED_ADDED"),
        "{out}"
    );
    assert!(
        out.contains("semver: a minor bump, but its changes require major"),
        "{out}"
    );
    assert!(out.contains("policy BACKWARD at wire level: "), "{out}");
}

#[test]
fn blame_prints_each_fields_lifecycle() {
    let tmp = std::env::temp_dir();
    let (code, out, err) = run(&["blame", "--demo", "FlightPath"], &tmp);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("message physics.v1.FlightPath"), "{out}");
    // Field 4: duration_s, removed and reserved in v0.3.0, reused as duration_ms in v1.1.1.
    // The row and its events wrapped under it (the lines that start blank).
    let at = out
        .lines()
        .position(|l| l.trim_start().starts_with("4  "))
        .unwrap_or_else(|| panic!("{out}"));
    let row: String = out
        .lines()
        .skip(at)
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.starts_with("   "))
        .map(|(_, l)| l.trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(row.contains("duration_s/duration_ms"), "{row}");
    assert!(row.contains("-v0.3.0 reserved"), "{row}");
    assert!(row.contains("+v1.1.1 int64 duration_ms = 4"), "{row}");
    let (code, out, _) = run(
        &[
            "blame",
            "--demo",
            "physics.v1.FlightStatus",
            "--format",
            "json",
        ],
        &tmp,
    );
    assert_eq!(code, 0);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["kind"], "enum");
    assert_eq!(j["versions"].as_array().unwrap().len(), 15);
    let (code, _, err) = run(&["blame", "--demo", "FlightPth"], &tmp);
    assert_eq!(code, 2);
    assert!(
        err.contains("closest") && err.contains("FlightPath"),
        "{err}"
    );
}
