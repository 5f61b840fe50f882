//! Each rule's example, computed: the rule's fixture pair (`tests/fixtures/rules/<ID>/{old,new}`,
//! embedded in the binary by build.rs), compiled in memory and checked with the engine at
//! run time. `explain` prints what this returns beside the rule's page, so the verdict shown
//! for a page's example is the one the engine gives today, never one written by hand.

use crate::diff::pair_whole;
use crate::schema::{Cache, Schema, SourceRef, Status};

use super::{Change, RULES, Rule, RuleId, check, rule};

mod fixtures {
    include!(concat!(env!("OUT_DIR"), "/rule_fixtures.rs"));
}

/// One side of a fixture pair: its `.proto` files as (path, text), sorted by path.
pub type Files = Vec<(&'static str, &'static str)>;

/// A rule's fixture pair and what the engine reports on it.
#[derive(Debug, Clone)]
pub struct Example {
    pub rule: &'static Rule,
    pub old_files: Files,
    pub new_files: Files,
    /// The changes reported with this rule's id (one or more), in report order.
    pub changes: Vec<Change>,
    /// The ids of the other rules the pair reports as well, in report order.
    pub also: Vec<RuleId>,
    /// The pair's schemas and every change it reports (what a proof of the example needs:
    /// a round trip shows every change to a field at once).
    pub old: std::sync::Arc<Schema>,
    pub new: std::sync::Arc<Schema>,
    pub all: Vec<Change>,
}

#[derive(Debug, thiserror::Error)]
pub enum ExampleError {
    #[error("rule {0} has no embedded fixture pair (tests/fixtures/rules/{0}/old and new)")]
    NoFixture(RuleId),
    #[error("the {side} side of {rule}'s fixture does not compile: {message}")]
    DoesNotCompile {
        rule: RuleId,
        side: &'static str,
        message: String,
    },
    #[error("{0}'s fixture pair does not report {0}")]
    NotReported(RuleId),
}

/// The fixture files of one side (`old` or `new`) of a rule.
fn side(id: RuleId, which: &str) -> Files {
    let prefix = format!("{id}/{which}/");
    fixtures::RULE_FIXTURES
        .iter()
        .filter_map(|(path, text)| path.strip_prefix(prefix.as_str()).map(|p| (p, *text)))
        .collect()
}

fn compile(
    cache: &mut Cache,
    rule: RuleId,
    which: &'static str,
    files: &Files,
) -> Result<std::sync::Arc<Schema>, ExampleError> {
    // The text is its own blob id: equal ids must mean equal text, and these files are small.
    let refs: Vec<SourceRef<'_>> = files
        .iter()
        .map(|(path, text)| SourceRef {
            origin: crate::schema::Origin::Root,
            path,
            blob: text,
            text: Ok(text),
        })
        .collect();
    let out = cache.compile(&refs);
    if out.status != Status::Complete {
        return Err(ExampleError::DoesNotCompile {
            rule,
            side: which,
            message: out
                .diagnostics
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        });
    }
    Ok(out.schema.clone())
}

/// Compiles the fixture pair of rule `id` and checks it, whole schema.
pub fn example(id: RuleId) -> Result<Example, ExampleError> {
    let rule = rule(id);
    let (old_files, new_files) = (side(rule.id, "old"), side(rule.id, "new"));
    if old_files.is_empty() && new_files.is_empty() {
        return Err(ExampleError::NoFixture(rule.id));
    }
    let mut cache = Cache::new();
    let old = compile(&mut cache, rule.id, "old", &old_files)?;
    let new = compile(&mut cache, rule.id, "new", &new_files)?;
    let all = check(&pair_whole(&old.content, &new.content), &old, &new);
    let mut also: Vec<RuleId> = Vec::new();
    for c in all.iter().filter(|c| c.rule != rule.id) {
        if !also.contains(&c.rule) {
            also.push(c.rule);
        }
    }
    let changes: Vec<Change> = all.iter().filter(|c| c.rule == rule.id).cloned().collect();
    if changes.is_empty() {
        return Err(ExampleError::NotReported(rule.id));
    }
    Ok(Example {
        rule,
        old_files,
        new_files,
        changes,
        also,
        old,
        new,
        all,
    })
}

/// Every rule's example, in catalog order.
pub fn all() -> Vec<Result<Example, ExampleError>> {
    RULES.iter().map(|r| example(r.id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixture_side_lists_its_files_only() {
        let old = side(RuleId::MESSAGE_MOVED, "old");
        let names: Vec<&str> = old.iter().map(|(p, _)| *p).collect();
        assert_eq!(names, ["a.proto", "b.proto"]);
        assert!(old[0].1.contains("message WillMove"));
    }

    #[test]
    fn an_example_reports_its_rule_and_names_the_others() {
        let e = example(RuleId::ENUM_RESERVED_REUSED).unwrap();
        assert!(
            e.changes
                .iter()
                .all(|c| c.rule == RuleId::ENUM_RESERVED_REUSED)
        );
        assert_eq!(e.also, [RuleId::ENUM_VALUE_ADDED]);
    }
}
