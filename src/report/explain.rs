//! `protolapse explain`: a rule's page, then what the engine computes on the rule's own
//! fixture pair (declarations, the wire/JSON x backward/forward grid, source, bump, message),
//! then a round trip on that pair (the observed cells and a sample per level, `prove`), then
//! the rule's line in the table; a code `check` prints that is no rule
//! (`policy::codes`): its page. `explain --list`: every rule and code with its summary, as
//! text or JSON.

use crate::policy::codes::{self, CODES};
use crate::prove::{self, Proof};
use crate::rules::examples::{self, Example};
use crate::rules::{self, Change, Directions, RULES, RuleId, Source};
use crate::sanitize;

fn source(s: Source) -> &'static str {
    match s {
        Source::Safe => "safe",
        Source::Breaking => "breaking",
    }
}

fn row(out: &mut String, level: &str, d: Directions) {
    out.push_str(&format!(
        "  {level:<8}{:<10}{}\n",
        d.backward.as_str(),
        d.forward.as_str()
    ));
}

/// One change of the example: where, old -> new, the grid, the message.
fn change(out: &mut String, c: &Change) {
    let number = c
        .number
        .map(|n| format!(" (number {n})"))
        .unwrap_or_default();
    out.push_str(&format!("{}{number}\n", sanitize::line(&c.element)));
    let decl = |d: &Option<String>| d.as_deref().map_or("(none)".to_string(), sanitize::line);
    let (old, new) = (decl(&c.old), decl(&c.new));
    let w = old.chars().count().max(new.chars().count());
    for (label, text, loc) in [("old", old, &c.old_location), ("new", new, &c.new_location)] {
        let loc = loc.as_deref().map(sanitize::line).unwrap_or_default();
        let line = format!("  {label}  {text:<w$}  {loc}");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("\n          backward  forward\n");
    row(out, "wire", c.verdict.wire);
    row(out, "json", c.verdict.json);
    out.push_str(&format!(
        "  source  {}\n  bump    {}\n  {}\n  fix: {}\n",
        source(c.verdict.source),
        c.bump.as_str(),
        sanitize::line(&c.message),
        sanitize::line(&crate::policy::gate::how_to_fix_change(c))
    ));
}

/// The computed section for a rule's example.
pub fn example_text(e: &Example) -> String {
    let files = |f: &examples::Files| {
        f.iter()
            .map(|(p, _)| sanitize::line(p))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = format!(
        "## What protolapse computes for this example\n\n\
         Checked now, on the fixture pair tests/fixtures/rules/{id}/\n\
         (old: {}; new: {}). backward: the new schema reads data\n\
         written with the old one; forward: the old schema reads data written with the new.\n",
        files(&e.old_files),
        files(&e.new_files),
        id = e.rule.id,
    );
    for c in &e.changes {
        out.push('\n');
        change(&mut out, c);
    }
    if !e.also.is_empty() {
        out.push_str(&format!(
            "\nThe pair also reports: {}.\n",
            e.also
                .iter()
                .map(|r| r.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}

/// The proof shown on a rule's page: the example's first change of the rule that samples
/// can show, else its first (proved beside the pair's other changes, as `diff --prove` does).
pub fn example_proof(e: &Example) -> Option<Proof> {
    let proofs: Vec<Proof> = prove::prove(&e.old, &e.new, &e.all)
        .into_iter()
        .filter(|p| p.rule == e.rule.id)
        .collect();
    let sampled = proofs.iter().position(|p| {
        p.wire
            .iter()
            .chain(&p.json)
            .any(|c| !c.backward.samples.is_empty() || !c.forward.samples.is_empty())
    });
    proofs.into_iter().nth(sampled.unwrap_or(0))
}

/// The sample a page shows of a level: the one that shows best the cell of the worse
/// observation (backward on a tie).
fn shown_sample(cells: &prove::Cells) -> Option<(&'static str, &prove::Shown)> {
    let (b, f) = (&cells.backward, &cells.forward);
    let (dir, c) = if f.observed > b.observed && !f.samples.is_empty() || b.samples.is_empty() {
        ("forward", f)
    } else {
        ("backward", b)
    };
    Some((dir, c.telling()?))
}

/// The "Round trip" section of a rule's page: the observed cells beside the rule's, and a
/// sample per level; for a change no sample can show, one line saying why (the page's own
/// `## Round trips` tells more).
pub fn proof_text(p: &Proof, page: &str) -> String {
    let mut out = String::from("## Round trip\n\n");
    if let Some(why) = &p.unproven {
        let more = if page.contains("## Round trips") {
            " (see Round trips above)"
        } else {
            ""
        };
        out.push_str(&format!("Not proven: {}{more}.\n", sanitize::line(why)));
        return out;
    }
    out.push_str(&format!(
        "Samples written with one side's schema and read with the other's by protolapse's\n\
         readers (backward: the old schema writes, the new one reads; forward: the\n\
         reverse); what they show beside the rule's cells:\n\n  {} (samples of {})\n",
        sanitize::line(&p.element),
        sanitize::line(p.message.as_deref().unwrap_or("-"))
    ));
    let mut readers: Vec<&str> = Vec::new();
    for (level, cells) in [("wire", &p.wire), ("json", &p.json)] {
        let Some(cells) = cells else { continue };
        for (dir, c) in [("backward", &cells.backward), ("forward", &cells.forward)] {
            out.push_str(&super::prove::cell_line(level, dir, c));
            if !readers.contains(&c.runtime) {
                readers.push(c.runtime);
            }
        }
    }
    for (level, cells) in [("wire", &p.wire), ("json", &p.json)] {
        let Some((dir, s)) = cells.as_ref().and_then(shown_sample) else {
            continue;
        };
        out.push_str(&format!(
            "\n  {level} {dir} sample: {}\n    wrote {}\n    read  {} ({})\n",
            sanitize::line(&s.label),
            sanitize::line(s.written_text()),
            sanitize::line(&s.read),
            s.outcome.as_str()
        ));
    }
    out.push_str(&format!(
        "\nReaders: {}.\nEvery sample of a pair: `protolapse diff OLD NEW --prove=samples`.\n",
        readers.join("; ")
    ));
    out
}

/// The whole `explain RULE` text: the page, the computed example, its round trip, the table
/// line; and the proof shown. `None` for a rule without a page (which the meta-tests
/// forbid). A fixture that fails to compute is reported in place of the example.
pub fn explain(id: RuleId) -> Option<(String, Option<Proof>)> {
    let (rule, page) = (rules::rule(id), rules::page(id)?);
    let (example, proof) = match examples::example(rule.id) {
        Ok(e) => {
            let proof = example_proof(&e);
            let mut text = example_text(&e);
            if let Some(p) = &proof {
                text.push('\n');
                text.push_str(&proof_text(p, page));
            }
            (text, proof)
        }
        Err(err) => (
            format!(
                "## What protolapse computes for this example\n\n(not available: {})\n",
                sanitize::line(&err.to_string())
            ),
            None,
        ),
    };
    let buf = if rule.buf.is_empty() {
        "none"
    } else {
        rule.buf
    };
    Some((
        format!(
            "{page}\n{example}\n(rule {}: {}; nearest buf rule: {buf})\n",
            rule.id, rule.summary
        ),
        proof,
    ))
}

/// The page of a code `check` prints that is no rule (`SEMVER_TOO_SMALL`), if `id` is one.
pub fn explain_code(id: &str) -> Option<String> {
    let c = codes::code(id)?;
    Some(format!(
        "{}\n(check code {}: {})\n",
        c.page.trim_end(),
        c.id,
        c.summary
    ))
}

/// One entry of `explain --list`: a rule (with the worst verdict its example gets, and the
/// nearest buf rule) or a code `check` prints.
#[derive(serde::Serialize)]
pub struct Entry {
    pub id: &'static str,
    /// `rule` or `check`.
    pub kind: &'static str,
    pub summary: &'static str,
    /// The worst verdict of the rule's example (`?` when it did not compute); none for a
    /// code.
    pub worst: Option<&'static str>,
    /// The nearest buf rule; none for a code or a rule buf has no equivalent for.
    pub buf: Option<&'static str>,
}

/// Every rule, then every code `check` prints.
pub fn entries() -> Vec<Entry> {
    let rules = RULES
        .iter()
        .zip(examples::all())
        .map(|(r, e)| rule_entry(r, &e));
    rules.chain(CODES.iter().map(code_entry)).collect()
}

/// The entry of one rule or code (`explain ID --format json`): its example compiled alone,
/// not every rule's.
pub fn entry(id: &str) -> Option<Entry> {
    if let Some(r) = RULES.iter().find(|r| r.id.as_str() == id) {
        return Some(rule_entry(r, &examples::example(r.id)));
    }
    CODES.iter().find(|c| c.id == id).map(code_entry)
}

/// A rule's entry: the worst verdict its example gets ("?" when it does not compile).
fn rule_entry(
    r: &'static crate::rules::Rule,
    e: &Result<Example, examples::ExampleError>,
) -> Entry {
    let worst = match e {
        Ok(e) => e
            .changes
            .iter()
            .map(|c| c.verdict.worst())
            .max()
            .map_or("?", |s| s.as_str()),
        Err(_) => "?",
    };
    Entry {
        id: r.id.as_str(),
        kind: "rule",
        summary: r.summary,
        worst: Some(worst),
        buf: Some(r.buf).filter(|b| !b.is_empty()),
    }
}

fn code_entry(c: &'static crate::policy::codes::Code) -> Entry {
    Entry {
        id: c.id,
        kind: "check",
        summary: c.summary,
        worst: None,
        buf: None,
    }
}

/// `explain --list`: each rule, the worst verdict its example gets, and its summary; then
/// each code `check` prints, marked `check`.
pub fn list() -> String {
    let all = entries();
    let w = all.iter().map(|e| e.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for e in &all {
        let worst = e.worst.unwrap_or(e.kind);
        out.push_str(&format!("{:<w$}  {worst:<8}  {}\n", e.id, e.summary));
    }
    out
}
