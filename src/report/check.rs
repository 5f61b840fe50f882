//! `protolapse check`: the gate's findings as text (each with its rule, place, reason and
//! fix, then a summary), JSON (docs/json.md), GitHub workflow annotations, or SARIF 2.1.0.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::judge::NOT_JUDGED;
use crate::policy::gate::{Finding, GateReport, Outcome};
use crate::rules::{self, RuleId};
use crate::sanitize;

fn diff_cell(d: rules::Directions) -> String {
    if d.backward == d.forward {
        d.backward.as_str().to_string()
    } else {
        format!("{}/{}", d.backward.as_str(), d.forward.as_str())
    }
}

pub fn to_text(r: &GateReport) -> String {
    let mut out = String::new();
    let version = r
        .version
        .as_deref()
        .map(|v| format!(" as version {}", sanitize::line(v)))
        .unwrap_or_default();
    out.push_str(&format!(
        "Checking {}{version} against {} (policy {} at {} level{})\n",
        sanitize::line(&r.subject),
        sanitize::line(&r.base),
        sanitize::line(&r.policy),
        r.level.as_str(),
        if r.strict { ", strict" } else { "" }
    ));
    if !r.config.is_empty() {
        out.push_str(&format!("  config: {}\n", sanitize::line(&r.config)));
    }
    for f in r.findings.iter().filter(|f| !f.preexisting) {
        out.push('\n');
        let label = match f.severity {
            Outcome::Error => "error",
            Outcome::Warning => "warning",
        };
        out.push_str(&format!(
            "{label}[{}]: {}\n",
            f.rule,
            sanitize::line(&f.message)
        ));
        if let Some(l) = &f.location {
            out.push_str(&format!("  --> {}\n", sanitize::line(l)));
        }
        if let Some(c) = &f.change {
            let decl = match (&c.old, &c.new) {
                (Some(o), Some(n)) => format!("{}  ->  {}", sanitize::line(o), sanitize::line(n)),
                (Some(o), None) => format!("- {}", sanitize::line(o)),
                (None, Some(n)) => format!("+ {}", sanitize::line(n)),
                (None, None) => String::new(),
            };
            out.push_str(&format!("   | {}: {decl}\n", sanitize::line(&c.element)));
            out.push_str(&format!(
                "   = verdict: wire {}, json {}, source {}; requires a {} bump\n",
                diff_cell(c.verdict.wire),
                diff_cell(c.verdict.json),
                match c.verdict.source {
                    rules::Source::Safe => "safe",
                    rules::Source::Breaking => "breaking",
                },
                c.bump.as_str()
            ));
        } else if !f.element.is_empty() {
            out.push_str(&format!("   | {}\n", sanitize::line(&f.element)));
        }
        if let Some(w) = &f.why {
            out.push_str(&format!("   = why: {}\n", sanitize::line(w)));
        }
        if !f.fix.is_empty() {
            out.push_str(&format!("   = fix: {}\n", sanitize::line(&f.fix)));
        }
        if RuleId::from_id(&f.rule).is_some() || crate::policy::codes::code(&f.rule).is_some() {
            out.push_str(&format!("   = see: protolapse explain {}\n", f.rule));
        }
    }
    let errors = r
        .findings
        .iter()
        .filter(|f| f.severity == Outcome::Error)
        .count();
    let warnings = r.findings.len() - errors;
    let ignored = r.counts.ignored;
    // Violations the base already had: one line, by rule, not a page each.
    let mut old: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for f in r.findings.iter().filter(|f| f.preexisting) {
        *old.entry(f.rule.as_str()).or_default() += 1;
    }
    if !old.is_empty() {
        let total: usize = old.values().sum();
        let mut by_rule: Vec<(&str, usize)> = old.into_iter().collect();
        by_rule.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        out.push_str(&format!(
            "\nwarning: {total} violation{} against older releases that {} already had, not this change's doing: {} (`--format json` lists them)\n",
            plural(total),
            sanitize::line(&r.base),
            by_rule
                .iter()
                .map(|(rule, n)| format!("{n} {rule}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out.push_str(&format!(
        "\n{}: {} error{}, {} warning{}{}; {} change{} since {} (required bump: {})\n",
        r.verdict(),
        errors,
        plural(errors),
        warnings,
        plural(warnings),
        if ignored > 0 {
            format!(", {ignored} ignored")
        } else {
            String::new()
        },
        r.changes.len(),
        plural(r.changes.len()),
        sanitize::line(&r.base),
        r.required_bump.as_str()
    ));
    if let Some(s) = &r.semver {
        out.push_str(&format!(
            "semver: {} ({})\n",
            s.verdict.as_str().replace('_', " "),
            sanitize::line(&s.reason)
        ));
    }
    if let Some(why) = &r.not_judged {
        out.push_str(&format!(
            "{NOT_JUDGED}: {}\n  help: {}\n  = see: protolapse explain {}\n",
            sanitize::line(why),
            crate::policy::codes::NOT_JUDGED_HELP,
            crate::policy::codes::NOT_JUDGED
        ));
    }
    for n in &r.notes {
        out.push_str(&format!("note: {}\n", sanitize::line(n)));
    }
    if r.checked.len() > 1 {
        const SHOWN: usize = 8;
        let names: Vec<String> = r
            .checked
            .iter()
            .take(SHOWN)
            .map(|n| sanitize::line(n))
            .collect();
        let more = r.checked.len().saturating_sub(SHOWN);
        out.push_str(&format!(
            "checked against {} versions: {}{}\n",
            r.checked.len(),
            names.join(", "),
            if more > 0 {
                format!(", and {more} older")
            } else {
                String::new()
            }
        ));
    }
    if warnings > 0 && !r.strict {
        out.push_str(
            "warnings do not fail the check; --strict makes hazard and lossy changes fail\n",
        );
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

pub fn to_json(r: &GateReport) -> Value {
    let mut v = json!({
        "subject": r.subject,
        "base": r.base,
        "version": r.version,
        "policy": r.policy,
        "level": r.level.as_str(),
        "config": r.config,
        "strict": r.strict,
        "pass": r.pass,
        "not_judged": r.not_judged,
        "required_bump": r.required_bump,
        "semver": r.semver.as_ref().map(|s| json!({
            "verdict": s.verdict.as_str(),
            "bump": s.bump,
            "required_bump": s.required,
            "reason": s.reason,
        })),
        "counts": r.counts,
        "checked": r.checked,
        "notes": r.notes,
        "findings": r.findings.iter().map(finding_json).collect::<Vec<_>>(),
        "changes": r.changes,
    });
    // `check --prove`: the proofs, as `diff --prove` writes them.
    if let (Some(p), Some(obj)) = (&r.proofs, v.as_object_mut()) {
        obj.insert("proofs".into(), json!(p));
    }
    v
}

fn finding_json(f: &Finding) -> Value {
    json!({
        "severity": f.severity,
        "rule": f.rule,
        "element": f.element,
        "number": f.number,
        "location": f.location,
        "file": f.repo_location.as_ref().map(|(p, _)| p),
        "line": f.repo_location.as_ref().map(|(_, l)| l),
        "message": f.message,
        "why": f.why,
        "fix": f.fix,
        "preexisting": f.preexisting,
        "change": f.change,
    })
}

/// GitHub's workflow-command escaping of a message.
fn gh_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// ... and of a property value.
fn gh_prop(s: &str) -> String {
    gh_data(&sanitize::line(s))
        .replace(':', "%3A")
        .replace(',', "%2C")
}

/// One `::error` / `::warning` workflow command per finding, then a `::notice` summary.
pub fn to_github(r: &GateReport) -> String {
    let mut out = String::new();
    // Annotations are for what this change does; older violations stay in the summary.
    for f in r.findings.iter().filter(|f| !f.preexisting) {
        let kind = match f.severity {
            Outcome::Error => "error",
            Outcome::Warning => "warning",
        };
        let mut props = vec![format!("title={}", gh_prop(&f.rule))];
        if let Some((file, line)) = &f.repo_location {
            props.insert(0, format!("file={},line={line}", gh_prop(file)));
        }
        let mut msg = sanitize::line(&f.message);
        if let Some(w) = &f.why {
            msg.push_str(&format!(" ({})", sanitize::line(w)));
        }
        if !f.fix.is_empty() {
            msg.push_str(&format!("\nFix: {}", sanitize::line(&f.fix)));
        }
        out.push_str(&format!(
            "::{kind} {}::{}\n",
            props.join(","),
            gh_data(&msg)
        ));
    }
    let errors = r
        .findings
        .iter()
        .filter(|f| f.severity == Outcome::Error)
        .count();
    let old = r.findings.iter().filter(|f| f.preexisting).count();
    if !r.config.is_empty() {
        out.push_str(&format!(
            "::notice title=protolapse config::{}\n",
            gh_data(&sanitize::line(&r.config))
        ));
    }
    out.push_str(&format!(
        "::notice title=protolapse::{}{}\n",
        gh_data(&format!(
            "{} {} against {} ({} at {} level): {} error{}, {} warning{}; required bump {}",
            r.verdict(),
            sanitize::line(&r.subject),
            sanitize::line(&r.base),
            r.policy,
            r.level.as_str(),
            errors,
            plural(errors),
            r.findings.len() - errors,
            plural(r.findings.len() - errors),
            r.required_bump.as_str()
        )),
        if old > 0 {
            gh_data(&format!(
                " ({old} of the warnings were already in {})",
                sanitize::line(&r.base)
            ))
        } else {
            String::new()
        }
    ));
    out
}

/// SARIF 2.1.0: one run, the rules that fired as `tool.driver.rules` (with their summary and
/// fix), one result per finding with its location relative to the repository root.
pub fn to_sarif(r: &GateReport) -> Value {
    let mut rule_index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut rules_json = Vec::new();
    for f in &r.findings {
        if rule_index.contains_key(f.rule.as_str()) {
            continue;
        }
        rule_index.insert(&f.rule, rules_json.len());
        let id = RuleId::from_id(&f.rule);
        let summary = id
            .map(|x| rules::rule(x).summary.to_string())
            .unwrap_or_else(|| f.rule.to_lowercase().replace('_', " "));
        let mut rule = json!({
            "id": f.rule,
            "name": pascal(&f.rule),
            "shortDescription": {"text": summary},
            "help": {"text": if f.fix.is_empty() { summary.clone() } else { f.fix.clone() }},
        });
        if let Some(page) = id.and_then(rules::page) {
            rule["fullDescription"] = json!({"text": first_paragraph(page)});
            rule["help"]["markdown"] = json!(page);
        }
        rules_json.push(rule);
    }
    let results: Vec<Value> = r
        .findings
        .iter()
        .map(|f| {
            let mut res = json!({
                "ruleId": f.rule,
                "ruleIndex": rule_index.get(f.rule.as_str()).copied().unwrap_or(0),
                "level": match (f.severity, f.preexisting) {
                    (Outcome::Error, _) => "error",
                    (Outcome::Warning, false) => "warning",
                    (Outcome::Warning, true) => "note",
                },
                "message": {"text": match &f.why {
                    Some(w) => format!("{} ({w})", f.message),
                    None => f.message.clone(),
                }},
                "properties": {"element": f.element},
                // Stable across runs and line moves, so code scanning tracks one finding.
                "partialFingerprints": {"protolapse/v1": fingerprint(f)},
            });
            if let Some((file, line)) = &f.repo_location {
                res["locations"] = json!([{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri(file)},
                        "region": {"startLine": line},
                    },
                    "logicalLocations": [{"fullyQualifiedName": f.element}],
                }]);
            } else if !f.element.is_empty() {
                res["locations"] =
                    json!([{"logicalLocations": [{"fullyQualifiedName": f.element}]}]);
            }
            res
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "protolapse",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules_json,
            }},
            "results": results,
            "properties": {
                "subject": r.subject,
                "base": r.base,
                "policy": r.policy,
                "level": r.level.as_str(),
                "config": r.config,
                "pass": r.pass,
                "required_bump": r.required_bump,
            },
        }],
    })
}

/// A relative path as a URI reference: every byte outside RFC 3986's unreserved set (and
/// `/`) percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// SHA-256 of the rule, the element and its number: what identifies a finding.
fn fingerprint(f: &Finding) -> String {
    use sha2::{Digest, Sha256};
    let number = f.number.map(|n| n.to_string()).unwrap_or_default();
    let digest = Sha256::digest(format!("{}\0{}\0{number}", f.rule, f.element).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn pascal(id: &str) -> String {
    id.split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + &c.as_str().to_ascii_lowercase(),
                None => String::new(),
            }
        })
        .collect()
}

fn first_paragraph(page: &str) -> String {
    page.lines()
        .skip_while(|l| l.starts_with('#') || l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotation_properties_carry_no_control_characters() {
        let file = "evil\u{1b}]0;title\u{7}.proto,line=1::warning::x\nmore";
        let p = gh_prop(file);
        assert!(!p.chars().any(|c| c.is_control()), "{p:?}");
        assert!(!p.contains("::") && !p.contains(','), "{p}");
    }
}
