//! `check --prove`: the changes the check judges proved by round trips ([`crate::prove`]),
//! and an error for each change whose safe claim a sample contradicts — even one the policy
//! allowed, since the verdict it was allowed on is not what its data does. The base's pair
//! is proved and reported; the other releases a transitive or `TILL` policy checks against
//! are proved too, and raise their contradictions (once per field; a warning when the base
//! already made the change against that release). Ignored changes are
//! proved (a round trip shows every change to a field at once) but raise nothing.

use crate::judge::Comparer;
use crate::load::{Loaded, VersionId};
use crate::prove::{Cell, Proof};
use crate::rules::{Change, RuleId, Severity};

use super::super::codes::PROVE_CONTRADICTED;
use super::GateInput;
use super::findings::{Finding, Key, Outcome, change_finding, key};

/// The proofs of `changes` (base -> subject) and the findings of the contradicted safe
/// claims of every pair checked: the base's, then each of `checked` (the policy's releases).
pub(super) fn prove(
    cmp: &Comparer<'_>,
    input: &GateInput<'_>,
    changes: &[Change],
    checked: &[VersionId],
) -> (Vec<Proof>, Vec<Finding>) {
    let versions = cmp.versions();
    let mut seen = Vec::new();
    let mut findings = Vec::new();
    let proofs = pair(
        versions,
        input,
        input.base,
        changes,
        &mut seen,
        &mut findings,
    );
    let base_name = &versions[input.base.index()].version.name;
    for &j in checked.iter().filter(|j| **j != input.base) {
        let Some(more) = cmp.changes(j, input.subject) else {
            continue;
        };
        let from = findings.len();
        pair(versions, input, j, &more, &mut seen, &mut findings);
        // A change the base already made against j is not this change's doing: a warning,
        // as the policy's findings say it.
        let before: Vec<Key> = cmp
            .changes(j, input.base)
            .unwrap_or_default()
            .iter()
            .map(key)
            .collect();
        for f in &mut findings[from..] {
            if f.change.as_ref().is_some_and(|c| before.contains(&key(c))) {
                f.severity = Outcome::Warning;
                f.preexisting = true;
                if let Some(w) = &mut f.why {
                    w.push_str(&format!("; already so in {base_name}"));
                }
            }
        }
    }
    (proofs, findings)
}

/// One pair (`against` -> subject) proved; its contradictions not yet `seen` added to
/// `findings`. Nothing when either side has no schema.
fn pair(
    versions: &[Loaded],
    input: &GateInput<'_>,
    against: VersionId,
    changes: &[Change],
    seen: &mut Vec<(String, Option<i64>)>,
    findings: &mut Vec<Finding>,
) -> Vec<Proof> {
    let (old, new) = (
        versions[against.index()].schema(),
        versions[input.subject.index()].schema(),
    );
    let (Some(old), Some(new)) = (old, new) else {
        return Vec::new();
    };
    let proofs = crate::prove::prove(old, new, changes);
    let bad: Vec<(&Proof, &Change)> = proofs
        .iter()
        .zip(changes)
        .filter(|(p, c)| c.ignored.is_none() && p.safe_contradicted())
        .collect();
    // One finding per field (or enum value): its samples show every change to it at once,
    // so the changes on it that call a cell safe are contradicted together.
    for (i, (p, c)) in bad.iter().enumerate() {
        let field = (c.element.clone(), c.number);
        if seen.contains(&field) {
            continue;
        }
        let rules: Vec<RuleId> = bad[i..]
            .iter()
            .filter(|(_, d)| d.element == c.element && d.number == c.number)
            .map(|(q, _)| q.rule)
            .collect();
        seen.push(field);
        findings.push(contradicted(versions, input, against, p, c, &rules));
    }
    proofs
}

/// The sample that shows a contradicted cell (one not read back), as
/// `label: wrote X -> read Y`.
fn first_bad(c: &Cell) -> Option<String> {
    let s = c.telling().filter(|s| s.not_read_back())?;
    Some(format!(
        "{}: wrote {} -> read {}",
        s.label,
        s.written_text(),
        s.read
    ))
}

fn contradicted(
    versions: &[Loaded],
    input: &GateInput<'_>,
    against: VersionId,
    p: &Proof,
    c: &Change,
    rules: &[RuleId],
) -> Finding {
    let safe: Vec<_> = p
        .contradictions()
        .into_iter()
        .filter(|(_, _, cell)| cell.rule == Severity::Safe)
        .collect();
    let cells: Vec<String> = safe
        .iter()
        .map(|(level, dir, cell)| {
            let bad = cell.not_read_back().count();
            format!(
                "{level} {dir}: rule safe, observed {} ({bad} of {} samples not read back; reader: {})",
                cell.observed.map_or("?", Severity::as_str),
                cell.samples.len(),
                cell.runtime
            )
        })
        .collect();
    let (level, dir, observed, first) = safe
        .first()
        .map(|(l, d, cell)| (*l, *d, cell.observed, first_bad(cell)))
        .unwrap_or(("wire", "backward", None, None));
    let mut f = change_finding(
        versions,
        input.subject,
        against,
        Outcome::Error,
        format!(
            "round trips against {}: {}",
            versions[against.index()].version.name,
            cells.join("; ")
        ),
        c.clone(),
    );
    f.rule = PROVE_CONTRADICTED.to_string();
    f.message = format!(
        "{} the {level} {dir} cell of {} safe, but a round trip shows it {}{}",
        match rules {
            [] | [_] => format!("{} calls", p.rule),
            [most @ .., last] => format!(
                "{} and {last} call",
                most.iter()
                    .map(|r| r.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
        p.element,
        observed.map_or("otherwise", Severity::as_str),
        first.map(|s| format!(": sample {s}")).unwrap_or_default()
    );
    f.fix = "the data does not round-trip as the rule says, whatever the policy allowed: treat the cell as observed (see the samples with --prove=samples or --format json), or report the rule with them".to_string();
    f
}
