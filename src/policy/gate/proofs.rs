//! `check --prove`: the changes from the base to the subject proved by round trips
//! ([`crate::prove`]), and an error for each change whose safe claim a sample contradicts —
//! even one the policy allowed, since the verdict it was allowed on is not what its data
//! does. Ignored changes are proved (a round trip shows every change to a field at once) but
//! raise nothing.

use crate::load::Loaded;
use crate::prove::{Cell, Proof};
use crate::rules::{Change, Severity};

use super::super::codes::PROVE_CONTRADICTED;
use super::GateInput;
use super::findings::{Finding, Outcome, change_finding};

/// The proofs of `changes` (base -> subject) and the findings of their contradicted safe
/// claims. Nothing when either side has no schema.
pub(super) fn prove(
    versions: &[Loaded],
    input: &GateInput<'_>,
    changes: &[Change],
) -> (Vec<Proof>, Vec<Finding>) {
    let (base, subject) = (
        &versions[input.base.index()],
        &versions[input.subject.index()],
    );
    let (Some(old), Some(new)) = (base.schema(), subject.schema()) else {
        return (Vec::new(), Vec::new());
    };
    let proofs = crate::prove::prove(old, new, changes);
    let findings = proofs
        .iter()
        .zip(changes)
        .filter(|(p, c)| c.ignored.is_none() && p.safe_contradicted())
        .map(|(p, c)| contradicted(versions, input, p, c))
        .collect();
    (proofs, findings)
}

/// The first sample of a cell the rule calls safe that was not read back, as
/// `label: wrote X -> read Y`.
fn first_bad(c: &Cell) -> Option<String> {
    let s = c
        .samples
        .iter()
        .find(|s| s.outcome.severity() > Severity::Safe)?;
    let written = if s.written.is_empty() {
        "(no bytes)"
    } else {
        &s.written
    };
    Some(format!("{}: wrote {written} -> read {}", s.label, s.read))
}

fn contradicted(versions: &[Loaded], input: &GateInput<'_>, p: &Proof, c: &Change) -> Finding {
    let safe: Vec<_> = p
        .contradictions()
        .into_iter()
        .filter(|(_, _, cell)| cell.rule == Severity::Safe)
        .collect();
    let cells: Vec<String> = safe
        .iter()
        .map(|(level, dir, cell)| {
            let bad = cell
                .samples
                .iter()
                .filter(|s| s.outcome.severity() > Severity::Safe)
                .count();
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
        input.base,
        Outcome::Error,
        format!("round trips: {}", cells.join("; ")),
        c.clone(),
    );
    f.rule = PROVE_CONTRADICTED.to_string();
    f.message = format!(
        "{} calls the {level} {dir} cell of {} safe, but a round trip shows it {}{}",
        p.rule,
        p.element,
        observed.map_or("otherwise", Severity::as_str),
        first.map(|s| format!(": sample {s}")).unwrap_or_default()
    );
    f.fix = "the data does not round-trip as the rule says, whatever the policy allowed: treat the cell as observed (see the samples with --prove=samples or --format json), or report the rule with them".to_string();
    f
}
