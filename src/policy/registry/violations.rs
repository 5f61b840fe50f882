//! A policy's violations in a pair's changes: every one (`check`'s gate), or the first (a
//! history's results), found among the few changes that can be one.

use super::{Direction, Evaluation, Level, Policy, Violation};
use crate::judge::Comparer;
use crate::load::VersionId;
use crate::rules::{Change, RuleId, Severity};

/// Every change of the actual pair `old` -> `new` that the policy objects to: (failures,
/// warnings). Warnings are hazard and lossy cells when not `strict`.
#[allow(clippy::too_many_arguments)]
pub fn violations_against(
    cmp: &Comparer<'_>,
    policy: &Policy,
    level: Level,
    strict: bool,
    old: VersionId,
    new: VersionId,
    backward: bool,
    forward: bool,
) -> (Vec<Violation>, Vec<Violation>) {
    let changes = cmp.verdict_changes(old, new);
    violations_of(cmp, changes, policy, level, strict, old, backward, forward)
}

impl Evaluation<'_, '_> {
    /// The first failure of [`violations_against`] `old` -> `new`, found among the few
    /// changes that can be one (`Comparer::first_changes`).
    pub(super) fn first_of(
        &self,
        policy: &Policy,
        (old, new): (VersionId, VersionId),
        backward: bool,
        forward: bool,
    ) -> Option<Violation> {
        let Evaluation {
            cmp, level, strict, ..
        } = *self;
        let changes = cmp.first_changes(old, new);
        let (fails, _) = violations_of(cmp, changes, policy, level, strict, old, backward, forward);
        fails.into_iter().next()
    }
}

/// [`violations_in`] a list of the comparer's, against version `old`.
#[allow(clippy::too_many_arguments)]
fn violations_of(
    cmp: &Comparer<'_>,
    changes: Option<std::sync::Arc<Vec<Change>>>,
    policy: &Policy,
    level: Level,
    strict: bool,
    old: VersionId,
    backward: bool,
    forward: bool,
) -> (Vec<Violation>, Vec<Violation>) {
    let against = cmp
        .versions()
        .get(old.index())
        .map(|v| v.version.name.clone())
        .unwrap_or_default();
    let changes = changes.as_deref().map_or(&[][..], Vec::as_slice);
    violations_in(changes, policy, level, strict, &against, backward, forward)
}

/// The changes of `changes` (a pair's, against version `against`) the policy objects to.
fn violations_in(
    changes: &[Change],
    policy: &Policy,
    level: Level,
    strict: bool,
    against: &str,
    backward: bool,
    forward: bool,
) -> (Vec<Violation>, Vec<Violation>) {
    let (mut fails, mut warns) = (Vec::new(), Vec::new());
    for c in changes {
        if c.ignored.is_some() {
            continue;
        }
        let judged = if matches!(policy, Policy::DenyAll) {
            (c.rule != RuleId::COMMENT_CHANGED).then_some((Direction::Any, Severity::Breaking))
        } else {
            [
                (backward, Direction::Backward),
                (forward, Direction::Forward),
            ]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, d)| (d, c.verdict.at(level, d == Direction::Backward)))
            .max_by_key(|(_, s)| *s)
            .filter(|(_, s)| *s > Severity::Safe)
        };
        let Some((direction, severity)) = judged else {
            continue;
        };
        let v = Violation {
            against: against.to_string(),
            direction,
            severity,
            change: c.clone(),
        };
        if severity == Severity::Breaking || strict {
            fails.push(v);
        } else {
            warns.push(v);
        }
    }
    // Worst first by the policy's own cell (the changes come sorted by their worst cell of
    // any level and direction).
    fails.sort_by_key(|v| std::cmp::Reverse(v.severity));
    warns.sort_by_key(|v| std::cmp::Reverse(v.severity));
    (fails, warns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Bump, Directions, Source, Verdict};

    /// A list of changes with cells drawn from a small generator (xorshift), some ignored,
    /// some comments.
    fn changes(seed: u64, n: usize) -> Vec<Change> {
        let mut x = seed | 1;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let severities = [
            Severity::Safe,
            Severity::Hazard,
            Severity::Lossy,
            Severity::Breaking,
        ];
        (0..n)
            .map(|i| {
                let mut sev = || severities[next(8).saturating_sub(4) as usize];
                let verdict = Verdict {
                    wire: Directions {
                        backward: sev(),
                        forward: sev(),
                    },
                    json: Directions {
                        backward: sev(),
                        forward: sev(),
                    },
                    source: if next(3) == 0 {
                        Source::Breaking
                    } else {
                        Source::Safe
                    },
                };
                let comment = next(4) == 0;
                Change {
                    rule: if comment {
                        RuleId::COMMENT_CHANGED
                    } else {
                        RuleId::FIELD_TYPE_CHANGED
                    },
                    element: format!("p.M.f{i}"),
                    number: None,
                    old: None,
                    new: None,
                    old_location: None,
                    new_location: None,
                    verdict: if comment { Verdict::SAFE } else { verdict },
                    bump: Bump::None,
                    message: String::new(),
                    ignored: (next(5) == 0).then(|| "ignored".to_string()),
                    not_judged: false,
                }
            })
            .collect()
    }

    /// Whatever the policy, level, directions and strictness, the first violation found among
    /// `judge::firsts` of a list is the one found in the whole list.
    #[test]
    fn the_first_violation_is_always_among_the_firsts() {
        let mut compared = 0;
        for seed in 1..300u64 {
            let all = changes(seed * 0x9e37_79b9, (seed % 40) as usize);
            let few = crate::judge::firsts(&all);
            assert!(few.len() <= 19, "{}", few.len());
            for policy in [Policy::Backward, Policy::DenyAll] {
                for level in Level::ALL {
                    for strict in [false, true] {
                        for (b, f) in [(true, false), (false, true), (true, true)] {
                            let first = |list: &[Change]| {
                                violations_in(list, &policy, level, strict, "v1", b, f)
                                    .0
                                    .into_iter()
                                    .next()
                                    .map(|v| (v.change.element, v.severity, v.direction))
                            };
                            let expected = first(&all);
                            compared += usize::from(expected.is_some());
                            assert_eq!(first(&few), expected, "seed {seed}");
                        }
                    }
                }
            }
        }
        assert!(compared > 1000, "violations found: {compared}");
    }
}
