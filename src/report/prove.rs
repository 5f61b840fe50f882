//! `diff --prove`: each change's round trips beside its rule's verdict — per level (wire,
//! json) and direction, what the samples showed, the runtime that read them, and any
//! contradiction; with `--prove=samples`, the samples themselves (bytes or JSON written,
//! what the reader saw).

use crate::prove::{Cell, Proof};
use crate::sanitize;

/// How many proofs hold a contradicted safe claim.
pub fn safe_contradictions(proofs: &[Proof]) -> usize {
    proofs.iter().filter(|p| p.safe_contradicted()).count()
}

pub(super) fn cell_line(level: &str, dir: &str, c: &Cell) -> String {
    let observed = match c.observed {
        Some(o) => {
            let bad = c.not_read_back().count();
            format!(
                "observed {:<8} ({} of {} samples not read back)",
                o.as_str(),
                bad,
                c.samples.len()
            )
        }
        None => "not observed (no side writes this)".to_string(),
    };
    let together = c
        .together
        .map(|t| format!(", {} with the other changes to the field", t.as_str()))
        .unwrap_or_default();
    let flag = if c.contradiction {
        "  CONTRADICTION"
    } else {
        ""
    };
    format!(
        "    {level:<4} {dir:<8}  rule {:<8}{together}  {observed}{flag}\n",
        c.rule.as_str()
    )
}

/// The text section printed after `diff`'s report.
pub fn to_text(proofs: &[Proof], samples: bool) -> String {
    let mut out = String::from(
        "\nRound trips (backward: the old version writes, the new one reads; forward: the reverse)\n",
    );
    let mut runtimes: Vec<&str> = Vec::new();
    let mut unproven: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for p in proofs {
        if let Some(why) = &p.unproven {
            unproven.entry(why).or_default().push(p.rule.to_string());
            continue;
        }
        out.push_str(&format!(
            "  {} {}{}\n",
            p.rule,
            sanitize::line(&p.element),
            p.message
                .as_deref()
                .filter(|m| *m != p.element.rsplit_once('.').map_or("", |x| x.0))
                .map(|m| format!(" (samples of {})", sanitize::line(m)))
                .unwrap_or_default()
        ));

        for (level, cells) in [("wire", &p.wire), ("json", &p.json)] {
            let Some(cells) = cells else { continue };
            for (dir, c) in [("backward", &cells.backward), ("forward", &cells.forward)] {
                if !runtimes.contains(&c.runtime) {
                    runtimes.push(c.runtime);
                }
                out.push_str(&cell_line(level, dir, c));
                if samples {
                    for why in &c.skipped {
                        out.push_str(&format!("      not written: {}\n", sanitize::line(why)));
                    }
                    for s in &c.samples {
                        out.push_str(&format!(
                            "      {}: wrote {} -> read {} ({})\n",
                            sanitize::line(&s.label),
                            sanitize::line(s.written_text()),
                            sanitize::line(&s.read),
                            s.outcome.as_str()
                        ));
                    }
                }
            }
        }
    }
    for (why, mut rules) in unproven {
        rules.sort();
        let mut counted: Vec<String> = Vec::new();
        for r in &rules {
            let n = rules.iter().filter(|x| *x == r).count();
            let item = if n > 1 {
                format!("{r} x{n}")
            } else {
                r.clone()
            };
            if !counted.contains(&item) {
                counted.push(item);
            }
        }
        out.push_str(&format!("  not proven ({why}): {}\n", counted.join(", ")));
    }
    let observed = proofs.iter().filter(|p| p.wire.is_some()).count();
    let contradicted: usize = proofs.iter().map(|p| p.contradictions().len()).sum();
    out.push_str(&format!(
        "\n{} of {} changes proved by round trips; {} contradicted cells ({} changes with a safe claim contradicted)\n",
        observed,
        proofs.len(),
        contradicted,
        safe_contradictions(proofs)
    ));
    if !runtimes.is_empty() {
        out.push_str(&format!("Readers: {}\n", runtimes.join("; ")));
    }
    out
}
