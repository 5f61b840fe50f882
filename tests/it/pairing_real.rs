//! Pairing on a real history (opentelemetry-proto, cloned from the shared bundle, skipped
//! like `fixtures_real` when it is absent): no enum value vanishes between two versions
//! without a change naming it, and a field is paired once — by its number, the wire
//! identity — so a name that moves to another number is an addition, not a renumbering.

use std::collections::BTreeSet;

use protolapse::diff::pair_whole;
use protolapse::history::HistoryOptions;
use protolapse::load::{self, Project};
use protolapse::rules::{Change, RuleId, Severity, check};

use super::common::run;
use super::fixtures_real::{clone, fixture};

fn otel() -> Option<(tempfile::TempDir, Project)> {
    let bundle = fixture("opentelemetry-proto.bundle")?;
    let dir = clone(&bundle);
    let p = load::load(
        &dir.path().join("repo"),
        &HistoryOptions::default(),
        |_, _| {},
    )
    .unwrap();
    Some((dir, p))
}

fn changes(p: &Project, old: &str, new: &str) -> Vec<Change> {
    let at = |name: &str| {
        &p.versions
            .iter()
            .find(|v| v.version.name == name)
            .unwrap_or_else(|| panic!("no version {name}"))
            .compiled
            .schema
    };
    let (o, n) = (at(old), at(new));
    check(&pair_whole(&o.content, &n.content), o, n)
}

fn find<'c>(c: &'c [Change], rule: RuleId, element: &str) -> &'c Change {
    c.iter()
        .find(|c| c.rule == rule && c.element == element)
        .unwrap_or_else(|| {
            panic!(
                "no {rule} on {element} in {:#?}",
                c.iter().map(|c| (c.rule, &c.element)).collect::<Vec<_>>()
            )
        })
}

/// Every adjacent pair of versions: each value name that leaves an enum present on both
/// sides is named by some change — as its element (removed, renumbered...), or, for a
/// rename (reported on the new name, like every change to a member present on both sides),
/// as the old declaration of a change to a value of that enum.
#[test]
fn no_enum_value_vanishes_between_two_otel_versions() {
    let Some((_dir, p)) = otel() else { return };
    let mut checked = 0;
    let mut missing = Vec::new();
    for w in p.versions.windows(2) {
        let (o, n) = (&w[0].compiled.schema, &w[1].compiled.schema);
        let c = check(&pair_whole(&o.content, &n.content), o, n);
        let mut named: BTreeSet<String> = c.iter().map(|c| c.element.clone()).collect();
        for c in &c {
            let (Some((scope, _)), Some(old)) = (c.element.rsplit_once('.'), &c.old) else {
                continue;
            };
            if let Some((name, _)) = old.split_once(" = ") {
                named.insert(format!("{scope}.{name}"));
            }
        }
        for (name, oe) in &o.content.enums {
            let Some(ne) = n.content.enums.get(name) else {
                continue;
            };
            for v in &oe.values {
                if ne.values.iter().any(|x| x.name == v.name) {
                    continue;
                }
                checked += 1;
                let element = format!("{name}.{}", v.name);
                if !named.contains(&element) {
                    missing.push(format!(
                        "{} -> {}: {element}",
                        w[0].version.name, w[1].version.name
                    ));
                }
            }
        }
    }
    assert!(checked >= 30, "only {checked} values left an enum");
    assert!(missing.is_empty(), "unreported:\n{}", missing.join("\n"));
}

/// v0.4.0: SUMMARY moved 7 -> 6, where CUMULATIVE_HISTOGRAM was. v0.6.0: STATUS_CODE_OK
/// moved 0 -> 1, STATUS_CODE_CANCELLED (1) went and STATUS_CODE_UNSET = 0 came.
#[test]
fn values_around_a_renumbering_are_judged_with_the_misreading_it_causes() {
    let Some((_dir, p)) = otel() else { return };
    let c = changes(&p, "v0.3.0", "v0.4.0");
    let ty = "opentelemetry.proto.metrics.v1.MetricDescriptor.Type";
    find(
        &c,
        RuleId::ENUM_VALUE_NUMBER_CHANGED,
        &format!("{ty}.SUMMARY"),
    );
    let gone = find(
        &c,
        RuleId::ENUM_VALUE_REMOVED,
        &format!("{ty}.CUMULATIVE_HISTOGRAM"),
    );
    assert_eq!(gone.verdict.wire.backward, Severity::Breaking);
    assert_eq!(gone.verdict.json.backward, Severity::Breaking);
    assert!(
        gone.message.contains("reads as SUMMARY"),
        "{}",
        gone.message
    );

    let c = changes(&p, "v0.5.0", "v0.6.0");
    let sc = "opentelemetry.proto.trace.v1.Status.StatusCode";
    let ok = find(
        &c,
        RuleId::ENUM_VALUE_NUMBER_CHANGED,
        &format!("{sc}.STATUS_CODE_OK"),
    );
    // OK was the zero value: an omitted field meant OK and now means UNSET, in JSON too.
    assert_eq!(ok.verdict.json.backward, Severity::Breaking);
    assert_eq!(ok.verdict.json.forward, Severity::Breaking);
    assert!(ok.message.contains("zero value"), "{}", ok.message);
    let cancelled = find(
        &c,
        RuleId::ENUM_VALUE_REMOVED,
        &format!("{sc}.STATUS_CODE_CANCELLED"),
    );
    assert_eq!(cancelled.verdict.wire.backward, Severity::Breaking);
    assert!(
        cancelled.message.contains("reads as STATUS_CODE_OK"),
        "{}",
        cancelled.message
    );
    let unset = find(
        &c,
        RuleId::ENUM_VALUE_ADDED,
        &format!("{sc}.STATUS_CODE_UNSET"),
    );
    assert_eq!(unset.verdict.wire.forward, Severity::Breaking);
    assert_eq!(unset.verdict.json.forward, Severity::Breaking);
    assert!(
        unset.message.contains("read it as STATUS_CODE_OK"),
        "{}",
        unset.message
    );
}

/// v0.15.0: `ResourceSpans.scope_spans = 2` replaced `instrumentation_library_spans = 2`,
/// which came back as a deprecated field 1000 (logs and metrics alike); v0.6.0:
/// `Status.deprecated_code = 1` replaced `code = 1`, which came back as 3. Paired by
/// number: a rename at the old number and an addition under the name, never a renumbering.
#[test]
fn a_name_moved_to_another_number_is_an_addition_not_a_renumbering() {
    let Some((dir, p)) = otel() else { return };
    let c = changes(&p, "v0.14.0", "v0.15.0");
    assert!(
        !c.iter().any(|c| c.rule == RuleId::FIELD_NUMBER_CHANGED),
        "{:#?}",
        c.iter()
            .filter(|c| c.rule == RuleId::FIELD_NUMBER_CHANGED)
            .collect::<Vec<_>>()
    );
    for (pkg, what) in [("trace", "spans"), ("logs", "logs"), ("metrics", "metrics")] {
        let m = format!("opentelemetry.proto.{pkg}.v1.Resource{}", {
            let mut s = what.to_string();
            s[..1].make_ascii_uppercase();
            s
        });
        let renamed = find(&c, RuleId::FIELD_RENAMED, &format!("{m}.scope_{what}"));
        assert_eq!(renamed.verdict.wire.worst(), Severity::Safe);
        assert_eq!(renamed.verdict.json.backward, Severity::Breaking);
        let added = find(
            &c,
            RuleId::FIELD_ADDED,
            &format!("{m}.instrumentation_library_{what}"),
        );
        assert_eq!(added.number, Some(1000));
        assert!(
            added.message.contains("its name was number 2's"),
            "{}",
            added.message
        );
    }

    let c = changes(&p, "v0.5.0", "v0.6.0");
    let status = "opentelemetry.proto.trace.v1.Status";
    assert!(
        !c.iter()
            .any(|c| c.rule == RuleId::FIELD_NUMBER_CHANGED && c.element.starts_with(status)),
        "{c:#?}"
    );
    let renamed = find(
        &c,
        RuleId::FIELD_RENAMED,
        &format!("{status}.deprecated_code"),
    );
    assert_eq!(renamed.verdict.wire.worst(), Severity::Safe);
    let added = find(&c, RuleId::FIELD_ADDED, &format!("{status}.code"));
    assert_eq!(added.number, Some(3));
    assert!(added.message.contains("number 1's"), "{}", added.message);

    // The gate: wire-compatible, not JSON-compatible, and never for a renumbering.
    let repo = dir.path().join("repo");
    let gate = |level: &str| {
        run(
            &[
                "check",
                "--rev",
                "v0.15.0",
                "--against",
                "v0.14.0",
                "--policy",
                "BACKWARD",
                "--level",
                level,
            ],
            &repo,
        )
    };
    let (code, out, err) = gate("wire");
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!out.contains("FIELD_NUMBER_CHANGED"), "{out}");
    let (code, out, err) = gate("json");
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("error[FIELD_RENAMED]"), "{out}");
    assert!(!out.contains("FIELD_NUMBER_CHANGED"), "{out}");
}
