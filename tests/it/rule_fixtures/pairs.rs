//! Each rule's fixture pair: every rule has one and every fixture names a rule; each pair
//! reports its own rule and exactly the rules its `expected` file lists (so a false positive
//! of another rule shows); old-vs-old and new-vs-new report nothing.

use std::collections::BTreeSet;

use super::{compile, root};
use protolapse::diff::pair_whole;
use protolapse::rules::{RULES, RuleId, check};
use protolapse::schema::Schema;

fn rules_between(a: &Schema, b: &Schema) -> BTreeSet<RuleId> {
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
        assert!(dirs.contains(r.id.as_str()), "no fixture for {}", r.id);
    }
    for d in &dirs {
        assert!(RuleId::from_id(d).is_some(), "fixture {d} names no rule");
    }
}

#[test]
fn each_fixture_reports_exactly_what_it_expects() {
    let mut failures = Vec::new();
    for r in RULES {
        let dir = root().join(r.id.as_str());
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
        if !got.contains(&r.id) || got_s != expected {
            failures.push(format!(
                "{}: reported {:?}, expected {:?}",
                r.id, got, expected
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
