//! The oracle (issue 17): every change of every rule fixture, proved by round trips. No
//! rule may call a cell safe that a sample shows lossy or breaking; a breaking cell that
//! every sample reads back unharmed is listed with its rule page's reason.

use protolapse::diff::pair_whole;
use protolapse::prove::{Outcome, Proof, prove};
use std::collections::BTreeSet;

use protolapse::rules::{RULES, RuleId, Severity, check, page};
use protolapse::schema::Schema;

use crate::rule_fixtures::{compile, root};

fn proofs(old: &Schema, new: &Schema) -> Vec<Proof> {
    let changes = check(&pair_whole(&old.content, &new.content), old, new);
    prove(old, new, &changes)
}

fn describe(p: &Proof) -> Vec<String> {
    p.contradictions()
        .into_iter()
        .map(|(level, dir, c)| {
            let bad = |o: Outcome| match c.rule {
                Severity::Safe => o.severity() > Severity::Safe,
                _ => true,
            };
            let s = c.samples.iter().find(|s| bad(s.outcome));
            format!(
                "{} {} {level} {dir}: rule {:?}, observed {:?}; {}",
                p.rule,
                p.element,
                c.rule,
                c.observed,
                s.map(|s| format!("{}: wrote {} read {}", s.label, s.written, s.read))
                    .unwrap_or_default()
            )
        })
        .collect()
}

/// The rules with a breaking cell that no sample of its pair shows (observed safe, or not
/// observed), as `RULE level direction`.
fn unshown_breaks(p: &Proof, out: &mut BTreeSet<String>) {
    for (level, cells) in [("wire", &p.wire), ("json", &p.json)] {
        let Some(c) = cells else {
            continue;
        };
        for (dir, cell) in [("backward", &c.backward), ("forward", &c.forward)] {
            if cell.rule == Severity::Breaking && cell.observed.is_none_or(|o| o < Severity::Lossy)
            {
                out.insert(format!("{} {level} {dir}", p.rule));
            }
        }
    }
    if p.wire.is_none() {
        let v = p.verdict;
        if v.wire.worst().max(v.json.worst()) == Severity::Breaking {
            out.insert(format!("{} (no samples)", p.rule));
        }
    }
}

/// A breaking cell no sample shows needs its rule page to say why none can.
fn check_unshown(unshown: &BTreeSet<String>) -> Vec<String> {
    unshown
        .iter()
        .filter(|line| {
            let id = line.split(' ').next().unwrap_or_default();
            let page = RuleId::from_id(id).and_then(page).unwrap_or_default();
            !page.contains("## Round trips")
        })
        .cloned()
        .collect()
}

#[test]
fn rule_fixtures_proved() {
    let mut safe_contradicted = Vec::new();
    let mut unshown = BTreeSet::new();
    for r in RULES {
        let dir = root().join(r.id.as_str());
        let old = compile(&dir.join("old"));
        let new = compile(&dir.join("new"));
        for p in proofs(&old, &new) {
            if p.safe_contradicted() {
                safe_contradicted.extend(describe(&p));
            }
            unshown_breaks(&p, &mut unshown);
        }
    }
    let unexplained = check_unshown(&unshown);
    eprintln!(
        "safe claims contradicted:\n{}\nbreaking claims no sample shows:\n{}\nof which unexplained:\n{}",
        safe_contradicted.join("\n"),
        unshown.iter().cloned().collect::<Vec<_>>().join("\n"),
        unexplained.join("\n")
    );
    assert!(safe_contradicted.is_empty(), "{safe_contradicted:#?}");
    assert!(unexplained.is_empty(), "{unexplained:#?}");
}

/// Every adjacent pair of a loaded history, proved: the safe claims contradicted, the
/// breaking claims no sample shows, and counts (changes, cells observed).
fn history(repo: &std::path::Path) -> (Vec<String>, BTreeSet<String>, usize, usize) {
    let p = protolapse::load::load(repo, &Default::default(), |_, _| {}).unwrap();
    let (mut bad, mut unshown, mut changes, mut observed) = (Vec::new(), BTreeSet::new(), 0, 0);
    for pair in p.versions.windows(2) {
        let (Some(a), Some(b)) = (pair[0].schema(), pair[1].schema()) else {
            continue;
        };
        for proof in proofs(a, b) {
            changes += 1;
            observed += usize::from(proof.wire.is_some());
            if proof.safe_contradicted() {
                bad.extend(
                    describe(&proof)
                        .into_iter()
                        .map(|d| format!("{} -> {}: {d}", pair[0].name(), pair[1].name())),
                );
            }
            unshown_breaks(&proof, &mut unshown);
        }
    }
    (bad, unshown, changes, observed)
}

#[test]
fn opentelemetry_and_demo_histories_proved() {
    let demo = protolapse::history::demo::build().unwrap();
    let mut repos = vec![("demo", demo.path().to_path_buf(), None)];
    if let Some(bundle) = crate::fixtures_real::fixture("opentelemetry-proto.bundle") {
        let dir = crate::fixtures_real::clone(&bundle);
        repos.push(("opentelemetry", dir.path().join("repo"), Some(dir)));
    }
    for (name, repo, _keep) in &repos {
        let (bad, unshown, changes, observed) = history(repo);
        let unexplained = check_unshown(&unshown);
        eprintln!(
            "{name}: {changes} changes, {observed} with samples; safe claims contradicted: {}\n{}\nbreaking claims no sample shows: {unshown:?}",
            bad.len(),
            bad.join("\n")
        );
        assert!(bad.is_empty(), "{name}: {bad:#?}");
        assert!(unexplained.is_empty(), "{name}: {unexplained:#?}");
        assert!(observed > 0, "{name}: nothing sampled");
    }
}

/// A rule that called an int32 -> string change safe would be contradicted: the mechanism
/// that makes `--prove` fail does fail.
#[test]
fn a_wrong_safe_claim_is_contradicted() {
    let old = crate::rule_fixtures::compile_text(
        "syntax = \"proto3\";\npackage t;\nmessage M { int32 a = 1; }",
    );
    let new = crate::rule_fixtures::compile_text(
        "syntax = \"proto3\";\npackage t;\nmessage M { string a = 1; }",
    );
    let mut changes = check(&pair_whole(&old.content, &new.content), &old, &new);
    assert!(
        !prove(&old, &new, &changes)
            .iter()
            .any(Proof::safe_contradicted)
    );
    for c in &mut changes {
        c.verdict = protolapse::rules::Verdict::SAFE;
    }
    let proofs = prove(&old, &new, &changes);
    let p = proofs
        .iter()
        .find(|p| p.safe_contradicted())
        .expect("a contradiction");
    let wire = p.wire.as_ref().unwrap();
    // The old writer's varint arrives where a string is expected: an unknown field, the
    // string unset; the new writer's string is refused by the int32 reader the same way.
    assert!(wire.backward.contradiction && wire.forward.contradiction);
    assert!(
        wire.backward
            .samples
            .iter()
            .any(|s| s.outcome == Outcome::Dropped)
    );
}

#[test]
fn diff_prove_prints_cells_and_samples_and_json() {
    let demo = protolapse::history::demo::build().unwrap();
    let repo = demo.path().to_str().unwrap();
    let (code, out, err) = crate::common::run(
        &["diff", repo, "v0.2.1", "v0.3.0", "--prove=samples"],
        demo.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Round trips"), "{out}");
    assert!(out.contains("wrote ") && out.contains(" -> read "), "{out}");
    let (code, out, err) = crate::common::run(
        &[
            "diff", repo, "v0.2.1", "v0.3.0", "--prove", "--format", "json",
        ],
        demo.path(),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cell = v["proofs"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|p| p.get("wire"))
        .map(|w| &w["backward"])
        .unwrap();
    for key in ["rule", "observed", "runtime", "contradiction", "samples"] {
        assert!(cell.get(key).is_some(), "{key} in {cell}");
    }
}

/// A field added to a nested message is its own change to show: a sample of the field that
/// holds the nested message writes only what both sides declare alike inside it. (On
/// temporalio/api v1.11.0 -> v1.12.0, `ScheduleSpec.exclude_calendar` was deprecated while
/// its `CalendarSpec` gained `comment`; the deprecation's JSON forward cell was called
/// contradicted because its sample set `comment`, which the old reader rejects.)
#[test]
fn a_nested_messages_new_field_is_not_the_holders_to_show() {
    let old = crate::rule_fixtures::compile_text(
        "syntax = \"proto3\";\npackage t;\nmessage C { string year = 1; }\nmessage S { repeated C exclude = 3; }",
    );
    let new = crate::rule_fixtures::compile_text(
        "syntax = \"proto3\";\npackage t;\nmessage C { string year = 1; string comment = 2; }\nmessage S { repeated C exclude = 3 [deprecated = true]; }",
    );
    let all = proofs(&old, &new);
    let deprecated = all
        .iter()
        .find(|p| p.rule == RuleId::FIELD_DEPRECATED)
        .expect("a proof of the deprecation");
    assert!(
        !deprecated.safe_contradicted(),
        "{:?}",
        describe(deprecated)
    );
    // The nested field's own change still shows what an old JSON reader does with it.
    let added = all
        .iter()
        .find(|p| p.rule == RuleId::FIELD_ADDED && p.element == "t.C.comment")
        .expect("a proof of the added field");
    let json = added.json.as_ref().expect("JSON cells");
    assert_eq!(json.forward.observed, Some(Severity::Breaking));
}

/// `explain` proves the rule's own fixture: a "Round trip" section (the observed cells, a
/// sample per level) and, in JSON, a `proof` shaped as `diff --prove`'s; a rule no sample
/// can show says so in one line.
#[test]
fn explain_shows_a_round_trip_on_the_rules_example() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, out, err) = crate::common::run(&["explain", "FIELD_TYPE_CHANGED"], tmp.path());
    assert_eq!(code, 0, "{err}");
    let section = out.split("## Round trip\n").nth(1).expect(&out);
    assert!(
        section.contains("wire backward  rule breaking  observed lossy"),
        "{section}"
    );
    assert!(section.contains("json forward   rule safe"), "{section}");
    assert!(
        section.contains("wrote 08") && section.contains("read "),
        "{section}"
    );
    let (code, out, err) = crate::common::run(
        &["explain", "FIELD_TYPE_CHANGED", "--format", "json"],
        tmp.path(),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cell = &v["proof"]["wire"]["backward"];
    for key in ["rule", "observed", "runtime", "contradiction", "samples"] {
        assert!(cell.get(key).is_some(), "{key} in {cell}");
    }
    assert_eq!(v["proof"]["rule"], "FIELD_TYPE_CHANGED");
    let (code, out, err) = crate::common::run(&["explain", "RPC_REMOVED"], tmp.path());
    assert_eq!(code, 0, "{err}");
    let section = out.split("## Round trip\n").nth(1).expect(&out);
    assert!(
        section.contains("Not proven: ") && section.contains("(see Round trips above)"),
        "{section}"
    );
    // A code has no example, so no proof.
    let (_, out, _) = crate::common::run(
        &["explain", "SEMVER_TOO_SMALL", "--format", "json"],
        tmp.path(),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v.get("proof").is_none(), "{out}");
}
