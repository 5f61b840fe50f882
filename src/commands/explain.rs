//! `explain`: a rule's page (or the page of a code `check` prints), or the list of them.

use anyhow::{Result, bail};

use protolapse::policy::codes::CODES;
use protolapse::report;
use protolapse::rules::{RULES, RuleId};
use protolapse::sanitize;
use protolapse::schema::graph::closest;

use super::pretty;

/// `protolapse explain RULE` (case and `-`/`_` do not matter; a rule id or a code `check`
/// prints), or `--list`; as JSON with `json`.
pub fn explain(rule: Option<&str>, list: bool, json: bool) -> Result<String> {
    if list {
        return match json {
            true => pretty(&serde_json::json!({ "codes": report::explain::entries() })),
            false => Ok(report::explain::list()),
        };
    }
    let given = rule.unwrap_or_default();
    let id = given.to_uppercase().replace('-', "_");
    let text = match id.parse::<RuleId>() {
        Ok(rule) => report::explain::explain(rule),
        Err(_) => report::explain::explain_code(&id).map(|t| (t, None)),
    };
    match text {
        Some((text, proof)) if json => {
            let entry = report::explain::entry(&id);
            let mut v = serde_json::json!({ "code": entry, "page": text });
            // A rule's proof on its example, as `diff --prove` writes a proof.
            if let (Some(p), Some(obj)) = (proof, v.as_object_mut()) {
                obj.insert("proof".into(), serde_json::to_value(p)?);
            }
            pretty(&v)
        }
        Some((text, _)) => Ok(text),
        None => {
            let ids: Vec<&str> = RULES
                .iter()
                .map(|r| r.id.as_str())
                .chain(CODES.iter().map(|c| c.id))
                .collect();
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
