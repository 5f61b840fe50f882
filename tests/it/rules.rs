//! The compatibility engine on the demo history and the opentelemetry fixture: symmetry,
//! silence on identical versions, the changes the demo was written to show, and what the
//! fixture's CHANGELOG documents.

use std::path::PathBuf;
use std::process::Command;

use protolapse::diff::{pair_from_root, pair_whole};
use protolapse::history::{HistoryOptions, demo};
use protolapse::load::{self, Project};
use protolapse::rules::{Bump, Change, RULES, RuleId, Severity, check, required_bump};
use protolapse::schema::Status;

fn demo_project() -> (tempfile::TempDir, Project) {
    let dir = demo::build().unwrap();
    let p = load::load(dir.path(), &HistoryOptions::default(), |_, _| {}).unwrap();
    (dir, p)
}

fn diff(p: &Project, a: &str, b: &str, root: Option<&str>) -> Vec<Change> {
    let (x, y) = (
        &p.find(a).unwrap().compiled.schema,
        &p.find(b).unwrap().compiled.schema,
    );
    let pairing = match root {
        Some(r) => pair_from_root(&x.content, &y.content, r),
        None => pair_whole(&x.content, &y.content),
    };
    check(&pairing, x, y)
}

fn find<'c>(changes: &'c [Change], rule: RuleId, element: &str) -> &'c Change {
    changes
        .iter()
        .find(|c| c.rule == rule && c.element == element)
        .unwrap_or_else(|| {
            panic!(
                "no {rule} on {element} in {:#?}",
                changes
                    .iter()
                    .map(|c| (c.rule, &c.element))
                    .collect::<Vec<_>>()
            )
        })
}

#[test]
fn every_reported_rule_is_in_the_table_and_identical_versions_report_nothing() {
    let (_d, p) = demo_project();
    for v in &p.versions {
        let n = &v.version.name;
        assert!(diff(&p, n, n, None).is_empty(), "{n} vs itself");
        assert!(
            diff(&p, n, n, Some("physics.v1.FlightService")).is_empty()
                || v.compiled.status != Status::Complete
        );
    }
    for a in &p.versions {
        for b in &p.versions {
            for c in diff(&p, &a.version.name, &b.version.name, None) {
                assert!(
                    RULES.iter().any(|r| r.id == c.rule),
                    "{} not in the table",
                    c.rule
                );
            }
        }
    }
}

#[test]
fn backward_of_old_new_is_forward_of_new_old() {
    let (_d, p) = demo_project();
    let names: Vec<&str> = p.versions.iter().map(|v| v.version.name.as_str()).collect();
    let mut compared = 0;
    for a in &names {
        for b in &names {
            let ab = diff(&p, a, b, None);
            let ba = diff(&p, b, a, None);
            for x in &ab {
                // The same rule on the same element, seen the other way round.
                if let Some(y) = ba.iter().find(|y| {
                    y.rule == x.rule && y.element == x.element && y.old == x.new && y.new == x.old
                }) {
                    // Wire and JSON have directions; generated code does not, and may differ
                    // (a type made local breaks code that imports it, made exported does not).
                    let cells = |v: protolapse::rules::Verdict| (v.wire, v.json);
                    assert_eq!(
                        cells(x.verdict.swapped()),
                        cells(y.verdict),
                        "{} on {} ({a} -> {b})",
                        x.rule,
                        x.element
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 100, "only {compared} symmetric pairs compared");
}

#[test]
fn the_demo_shows_what_it_was_written_for() {
    let (_d, p) = demo_project();
    let c = diff(&p, "v0.1.0", "v0.2.0", None);
    assert_eq!(required_bump(&c), Bump::Minor, "additions only");
    // Additions never break a reader of old data; only old servers miss new rpcs.
    assert!(c.iter().all(|c| c.verdict.wire.backward <= Severity::Hazard
        && c.verdict.json.backward <= Severity::Hazard));

    let c = diff(&p, "v0.2.0", "v0.2.1", None);
    assert!(!c.is_empty() && c.iter().all(|c| c.rule == RuleId::COMMENT_CHANGED));
    assert_eq!(required_bump(&c), Bump::Patch);

    let c = diff(&p, "v0.2.1", "v0.3.0", None);
    let t = find(
        &c,
        RuleId::FIELD_TYPE_CHANGED,
        "physics.v1.Temperature.sensor_id",
    );
    assert_eq!(
        t.verdict.wire.backward,
        Severity::Safe,
        "int32 -> int64 reads old data"
    );
    assert_eq!(
        t.verdict.wire.forward,
        Severity::Lossy,
        "int64 -> int32 truncates"
    );
    assert_eq!(t.old.as_deref(), Some("int32 sensor_id = 4"));
    assert_eq!(
        t.new_location.as_deref(),
        Some("physics/v1/temperature.proto:16")
    );
    let r = find(&c, RuleId::FIELD_RENAMED, "physics.v1.FlightPath.captain");
    assert_eq!(r.verdict.wire.backward, Severity::Safe);
    assert_eq!(r.verdict.json.backward, Severity::Breaking);
    find(
        &c,
        RuleId::FIELD_REMOVED_RESERVED,
        "physics.v1.FlightPath.duration_s",
    );

    // v1.1.0 is tagged as a minor release, but its changes need a major one.
    let c = diff(&p, "v1.0.0", "v1.1.0", None);
    assert_eq!(required_bump(&c), Bump::Major);
    let f = find(
        &c,
        RuleId::FIELD_TYPE_CHANGED,
        "physics.v1.Temperature.value",
    );
    assert_eq!(
        f.verdict.wire.backward,
        Severity::Breaking,
        "double -> float"
    );
    find(
        &c,
        RuleId::FIELD_REQUIRED_ADDED,
        "physics.v1.CalibrationRecord.taken_at",
    );

    let c = diff(&p, "v1.1.0", "v1.1.1", None);
    find(
        &c,
        RuleId::FIELD_RESERVED_NUMBER_REUSED,
        "physics.v1.FlightPath.duration_ms",
    );
    find(
        &c,
        RuleId::ENUM_RESERVED_REUSED,
        "physics.v1.FlightStatus.FLIGHT_STATUS_DIVERTED",
    );

    // A renamed type with the same structure is not a break on the wire.
    let c = diff(&p, "v0.4.0", "v1.0.0", None);
    let m = find(
        &c,
        RuleId::MESSAGE_RENAMED,
        "physics.v1.ListFlightPathsRequest",
    );
    assert_eq!(m.verdict.wire.worst(), Severity::Safe);
    let i = find(
        &c,
        RuleId::RPC_INPUT_CHANGED,
        "physics.v1.FlightService.ListFlights",
    );
    assert_eq!(i.verdict.wire.worst(), Severity::Safe);
    find(
        &c,
        RuleId::FIELD_NUMBER_CHANGED,
        "physics.v1.FlightPath.captain",
    );
    find(&c, RuleId::ENUM_CLOSED_CHANGED, "physics.v1.Quality");
    find(&c, RuleId::MESSAGE_MOVED, "physics.v1.Wind");

    // From a root: only what FlightPath reaches, types paired across a type change.
    let c = diff(&p, "v1.1.1", "v2.0.0", Some("physics.v1.FlightPath"));
    assert!(
        c.iter()
            .all(|c| !c.element.contains("Calibration") && !c.element.contains("UnitInfo"))
    );
    let t = find(
        &c,
        RuleId::FIELD_MESSAGE_TYPE_CHANGED,
        "physics.v1.FlightPath.outside",
    );
    assert_eq!(t.verdict.wire.backward, Severity::Breaking);
    find(&c, RuleId::FIELD_RENAMED, "physics.v1.Reading.milli_kelvin");
    find(
        &c,
        RuleId::ONEOF_RENAMED,
        "physics.v1.FlightPath.origin_choice",
    );
    assert!(
        c.iter().all(|c| c.rule != RuleId::FIELD_ONEOF_CHANGED),
        "a renamed oneof does not move its members"
    );
    let z = find(
        &c,
        RuleId::FIELD_TYPE_CHANGED,
        "physics.v1.FlightPath.passengers",
    );
    assert!(z.message.contains("zigzag"), "{}", z.message);

    // A migration to edition 2023 that keeps proto3's behaviour changes the syntax only.
    let c = diff(&p, "v3.0.0", "v3.0.1", None);
    let rules: Vec<RuleId> = c.iter().map(|c| c.rule).collect();
    assert_eq!(rules, [RuleId::SYNTAX_CHANGED]);
    assert_eq!(c[0].verdict.worst(), Severity::Safe);
    assert_eq!(required_bump(&c), Bump::Patch);

    // Then the features change, each judged on the element it touches.
    let c = diff(&p, "v3.0.1", "v4.0.0", None);
    let closed = find(&c, RuleId::ENUM_CLOSED_CHANGED, "physics.v1.Quality");
    assert_eq!(closed.verdict.wire.backward, Severity::Lossy);
    let utf8 = find(
        &c,
        RuleId::FIELD_UTF8_VALIDATION_CHANGED,
        "physics.v1.CalibrationRecord.device",
    );
    assert_eq!(utf8.verdict.wire.forward, Severity::Hazard);
    find(
        &c,
        RuleId::MESSAGE_JSON_FORMAT_CHANGED,
        "physics.v1.CalibrationRecord",
    );
    find(&c, RuleId::SYMBOL_VISIBILITY_CHANGED, "physics.v1.Wind");
    assert_eq!(required_bump(&c), Bump::Major);
}

#[test]
fn opentelemetry_changes_match_its_changelog() {
    let dir = std::env::var_os("PROTOLAPSE_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures"));
    let bundle = dir.join("opentelemetry-proto.bundle");
    if !bundle.exists() {
        assert!(std::env::var_os("CI").is_none(), "fixture missing in CI");
        eprintln!("fixture not found; set PROTOLAPSE_FIXTURES");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let ok = Command::new("git")
        .args(["clone", "-q"])
        .arg(&bundle)
        .arg(&repo)
        .status()
        .unwrap();
    assert!(ok.success());
    let p = load::load(&repo, &HistoryOptions::default(), |_, _| {}).unwrap();
    let started = std::time::Instant::now();
    let mut total = 0;
    for w in p.versions.windows(2) {
        total += diff(&p, &w[0].version.name, &w[1].version.name, None).len();
    }
    eprintln!(
        "31 adjacent diffs: {total} changes in {:?}",
        started.elapsed()
    );

    // 1.5.0: "logs: Add top-level event_name field", "profiles: Remove unused Label",
    // "profiles: drop duplicate attributes field in message Profile".
    let c = diff(&p, "v1.4.0", "v1.5.0", None);
    find(
        &c,
        RuleId::FIELD_ADDED,
        "opentelemetry.proto.logs.v1.LogRecord.event_name",
    );
    find(
        &c,
        RuleId::MESSAGE_REMOVED,
        "opentelemetry.proto.profiles.v1development.Label",
    );
    find(
        &c,
        RuleId::FIELD_REMOVED,
        "opentelemetry.proto.profiles.v1development.Profile.attributes",
    );
    // 1.11.0: "processcontext: add ProcessContext message".
    let c = diff(&p, "v1.10.0", "v1.11.0", None);
    find(
        &c,
        RuleId::MESSAGE_ADDED,
        "opentelemetry.proto.processcontext.v1development.ProcessContext",
    );
    assert_eq!(required_bump(&c), Bump::Minor);
}

#[test]
fn every_rule_has_a_page_and_every_page_a_rule() {
    for r in RULES {
        let page = protolapse::rules::page(r.id)
            .unwrap_or_else(|| panic!("assets/rules/{}.md is missing", r.id));
        assert!(
            page.starts_with(&format!("# {}\n", r.id)),
            "{} page title",
            r.id
        );
        for section in [
            "## Example",
            "## What readers see",
            "## How to make the change safely",
            "## buf breaking",
        ] {
            assert!(page.contains(section), "{} lacks {section}", r.id);
        }
        if !r.buf.is_empty() {
            assert!(
                page.contains(r.buf),
                "{} page does not name {}",
                r.id,
                r.buf
            );
        }
    }
    for (file, _) in protolapse::rules::pages() {
        let id = file.trim_end_matches(".md");
        assert!(RuleId::from_id(id).is_some(), "page {file} names no rule");
    }
}

#[test]
fn every_page_prints_the_verdict_computed_on_its_fixture() {
    for r in RULES {
        let e = protolapse::rules::examples::example(r.id)
            .unwrap_or_else(|err| panic!("{}: {err}", r.id));
        assert!(!e.changes.is_empty() && e.changes.iter().all(|c| c.rule == r.id));
        let text = protolapse::report::explain::explain(r.id).unwrap().0;
        let (page, computed) = text
            .split_once("## What protolapse computes for this example")
            .unwrap_or_else(|| panic!("{}: no computed section", r.id));
        assert!(page.starts_with(&format!("# {}\n", r.id)));
        let c = &e.changes[0];
        let grid = format!(
            "  wire    {:<10}{}\n  json    {:<10}{}\n",
            c.verdict.wire.backward.as_str(),
            c.verdict.wire.forward.as_str(),
            c.verdict.json.backward.as_str(),
            c.verdict.json.forward.as_str()
        );
        assert!(computed.contains(&grid), "{}: no grid in\n{computed}", r.id);
        assert!(
            computed.contains(&format!("  bump    {}\n", c.bump.as_str())),
            "{}",
            r.id
        );
        assert!(computed.contains(&c.message), "{}", r.id);
    }
    assert!("NO_SUCH_RULE".parse::<RuleId>().is_err());
}

/// A page's `## Example values` walks through the rule's fixture with real bytes and JSON,
/// and states the verdict of each cell as `wire backward: breaking`, `json forward: safe`...:
/// all four cells, each equal to what the engine computes on the fixture (for every change
/// of the rule there), so a page cannot drift from the engine unnoticed.
#[test]
fn page_examples_state_the_verdicts_the_engine_computes() {
    use protolapse::rules::Directions;
    let severities = ["safe", "hazard", "lossy", "breaking"];
    let mut failures = Vec::new();
    for r in RULES {
        let page = protolapse::rules::page(r.id).unwrap();
        let Some(section) = page
            .split_once("\n## Example values\n")
            .map(|(_, rest)| rest.split("\n## ").next().unwrap_or(rest))
        else {
            failures.push(format!("{}: no `## Example values` section", r.id));
            continue;
        };
        let e = protolapse::rules::examples::example(r.id).unwrap();
        for (level, pick) in [
            (
                "wire",
                (|c: &Change| c.verdict.wire) as fn(&Change) -> Directions,
            ),
            ("json", |c: &Change| c.verdict.json),
        ] {
            for dir in ["backward", "forward"] {
                let claims: Vec<&str> = severities
                    .iter()
                    .copied()
                    .filter(|s| section.contains(&format!("{level} {dir}: {s}")))
                    .collect();
                if claims.is_empty() {
                    failures.push(format!("{}: no `{level} {dir}: ...` claim", r.id));
                }
                for c in &e.changes {
                    let d = pick(c);
                    let actual = if dir == "backward" {
                        d.backward
                    } else {
                        d.forward
                    };
                    for s in &claims {
                        if *s != actual.as_str() {
                            failures.push(format!(
                                "{}: the page says `{level} {dir}: {s}`, the engine {} ({})",
                                r.id,
                                actual.as_str(),
                                c.element
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Paired rules say, on both pages, that the reversed pair reports the other rule.
#[test]
fn paired_pages_name_each_other_when_reversed() {
    let pairs = [
        (RuleId::FILE_ADDED, RuleId::FILE_REMOVED),
        (RuleId::MESSAGE_ADDED, RuleId::MESSAGE_REMOVED),
        (RuleId::ENUM_ADDED, RuleId::ENUM_REMOVED),
        (RuleId::SERVICE_ADDED, RuleId::SERVICE_REMOVED),
        (RuleId::RPC_ADDED, RuleId::RPC_REMOVED),
        (RuleId::ONEOF_ADDED, RuleId::ONEOF_REMOVED),
        (RuleId::FIELD_ADDED, RuleId::FIELD_REMOVED),
        (RuleId::FIELD_ADDED, RuleId::FIELD_REMOVED_RESERVED),
        (RuleId::FIELD_REQUIRED_ADDED, RuleId::FIELD_REQUIRED_REMOVED),
        (RuleId::ENUM_VALUE_ADDED, RuleId::ENUM_VALUE_REMOVED),
        (
            RuleId::ENUM_VALUE_ADDED,
            RuleId::ENUM_VALUE_REMOVED_RESERVED,
        ),
        (RuleId::EXTENSION_ADDED, RuleId::EXTENSION_REMOVED),
        (
            RuleId::EXTENSION_RANGE_ADDED,
            RuleId::EXTENSION_RANGE_REMOVED,
        ),
    ];
    for (a, b) in pairs {
        for (x, y) in [(a, b), (b, a)] {
            let page = protolapse::rules::page(x).unwrap();
            let reversed = page
                .split_once("\n## Reversed\n")
                .map(|(_, rest)| rest.split("\n## ").next().unwrap_or(rest))
                .unwrap_or_else(|| panic!("{x}: no `## Reversed` section"));
            assert!(
                reversed.contains(y.as_str()),
                "{x}: `## Reversed` does not name {y}"
            );
        }
    }
}

/// SPEC §6: the demo history exercises every rule at least once, each version compared with
/// the version it is judged against.
#[test]
fn the_demo_exercises_every_rule() {
    let (_d, p) = demo_project();
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..p.versions.len() {
        let id = protolapse::load::VersionId::at(i);
        let Some(prev) = protolapse::load::lineage::previous_to_compare(&p.versions, id) else {
            continue;
        };
        let (a, b) = (
            &p.versions[prev.index()].compiled.schema,
            &p.versions[i].compiled.schema,
        );
        for c in check(&pair_whole(&a.content, &b.content), a, b) {
            seen.insert(c.rule);
        }
    }
    let missing: Vec<RuleId> = RULES
        .iter()
        .map(|r| r.id)
        .filter(|id| !seen.contains(id))
        .collect();
    assert!(missing.is_empty(), "the demo never shows {missing:?}");
}
