//! `explain`: a rule's page, or the list of rules.

use anyhow::{Result, bail};

use protolapse::report;
use protolapse::rules::RULES;
use protolapse::sanitize;
use protolapse::schema::graph::closest;

/// `protolapse explain RULE` (case and `-`/`_` do not matter), or `--list`.
pub fn explain(rule: Option<&str>, list: bool) -> Result<String> {
    if list {
        return Ok(report::explain::list());
    }
    let given = rule.unwrap_or_default();
    let id = given.to_uppercase().replace('-', "_");
    match given.parse().ok().and_then(report::explain::explain) {
        Some(text) => Ok(text),
        None => {
            let ids: Vec<&str> = RULES.iter().map(|r| r.id.as_str()).collect();
            let close = closest(&ids, &id, 3);
            bail!(
                "unknown rule `{}`{}\n  help: `protolapse explain --list` lists them all",
                sanitize::line(given),
                if close.is_empty() {
                    String::new()
                } else {
                    format!("; did you mean {}?", close.join(", "))
                }
            )
        }
    }
}
