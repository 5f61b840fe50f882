//! Proofs: verdicts backed by round trips. For a change between two versions, the writer's
//! side builds samples of the affected message (see [`samples`]), writes them to the wire
//! and to ProtoJSON, and the reader's side reads them back; what the reader saw against
//! what was written gives an observed cell per level (wire, json) and direction (backward:
//! old writes, new reads; forward: new writes, old reads), set beside the rule's verdict.
//!
//! | observed on every sample | cell |
//! |---|---|
//! | preserved, or kept as an unknown field and written back unchanged | safe |
//! | changed, or dropped | lossy |
//! | rejected by the parser | breaking |
//!
//! A contradiction is a rule cell of `safe` with a lossy or breaking sample, or a rule cell
//! of `breaking` where every sample is preserved; `hazard` (safe now, a later change breaks)
//! is never contradicted by a round trip.
//!
//! The readers ([`wire`], [`json`]) run in process and follow Google's runtimes from our
//! schema model; `wire`'s tests check it against `protoc --decode`. May import: `rules`,
//! `schema`. Knows no terminal and no git.

mod compare;
mod defaults;
pub mod json;
mod samples;
mod target;
#[cfg(test)]
mod tests;
mod types;
pub mod value;
pub mod wire;

use serde::Serialize;

use crate::rules::{Change, RuleId, Severity};
use crate::schema::Schema;
use crate::schema::model::{Cardinality, FieldType, Message};

use compare::Field2;
pub use compare::Outcome;
use samples::Sample;
use target::{Target, WRAPPER, parent, target, types};
use value::hex;

/// One sample of a cell: what was written and what the reader saw.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    pub label: String,
    /// Hex bytes (wire) or JSON text.
    pub written: String,
    pub read: String,
    pub outcome: Outcome,
}

/// One level and direction of a change, observed.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The rule's verdict for this cell.
    pub rule: Severity,
    /// The worst verdict of every change on the same field (a round trip shows them all at
    /// once: a reused number is also an added field), when it is worse than `rule`; a safe
    /// claim is contradicted only when this is safe too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub together: Option<Severity>,
    /// Worst over the samples; `None` when no sample could be written.
    pub observed: Option<Severity>,
    pub runtime: &'static str,
    pub contradiction: bool,
    pub samples: Vec<Shown>,
    /// Samples the writer could not write, as `label: why` (a required field unset,
    /// invalid UTF-8 in JSON, a well-known type's JSON form).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

impl Shown {
    /// The reader did not get back what was written (changed, dropped or rejected).
    pub fn not_read_back(&self) -> bool {
        self.outcome.severity() > Severity::Safe
    }

    /// What was written, as shown: the hex bytes or the JSON text, `(no bytes)` for none.
    pub fn written_text(&self) -> &str {
        if self.written.is_empty() {
            "(no bytes)"
        } else {
            &self.written
        }
    }

    /// Whether it writes a value (not an empty message, on the wire or in JSON).
    fn writes_something(&self) -> bool {
        !matches!(self.written.as_str(), "" | "{}")
    }
}

impl Cell {
    /// Its samples the reader did not get back.
    pub fn not_read_back(&self) -> impl Iterator<Item = &Shown> {
        self.samples.iter().filter(|s| s.not_read_back())
    }

    /// The sample that shows the cell best: one with the observed outcome (so one not read
    /// back when some is not), that writes something, the shortest.
    pub fn telling(&self) -> Option<&Shown> {
        self.samples.iter().min_by_key(|s| {
            (
                Some(s.outcome.severity()) != self.observed,
                !s.writes_something(),
                s.written.len(),
                s.read.len(),
            )
        })
    }
}

/// The cells of a level.
#[derive(Debug, Clone, Serialize)]
pub struct Cells {
    pub backward: Cell,
    pub forward: Cell,
}

/// A change, proved (or why it cannot be).
#[derive(Debug, Clone, Serialize)]
pub struct Proof {
    pub rule: RuleId,
    pub element: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<i64>,
    /// The rule's verdict.
    pub verdict: crate::rules::Verdict,
    /// The message the samples are of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wire: Option<Cells>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<Cells>,
    /// Why no round trip shows this change (source only, no data of its own...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unproven: Option<String>,
}

impl Proof {
    /// The contradicted cells, as `wire backward` ...
    pub fn contradictions(&self) -> Vec<(&'static str, &'static str, &Cell)> {
        let mut out = Vec::new();
        for (level, cells) in [("wire", &self.wire), ("json", &self.json)] {
            if let Some(c) = cells {
                for (dir, cell) in [("backward", &c.backward), ("forward", &c.forward)] {
                    if cell.contradiction {
                        out.push((level, dir, cell));
                    }
                }
            }
        }
        out
    }

    /// A cell the rule calls safe that a sample shows lossy or breaking.
    pub fn safe_contradicted(&self) -> bool {
        self.contradictions()
            .iter()
            .any(|(_, _, c)| c.rule == Severity::Safe)
    }
}

/// The cells of a verdict, in the order wire backward, wire forward, json backward, json
/// forward.
fn cells(v: &crate::rules::Verdict) -> [Severity; 4] {
    [
        v.wire.backward,
        v.wire.forward,
        v.json.backward,
        v.json.forward,
    ]
}

/// Every change proved, in the order given.
pub fn prove(old: &Schema, new: &Schema, changes: &[Change]) -> Vec<Proof> {
    let together = Together::of(old, new, changes);
    let users = target::users(old, new);
    changes
        .iter()
        .map(|c| prove_one(old, new, c, together.cells(c, old, new), &users))
        .collect()
}

impl Proof {
    /// The proof of `c` with no round trip (yet), and why (if known).
    pub fn unproven(c: &Change, why: Option<String>) -> Proof {
        Proof {
            rule: c.rule,
            element: c.element.clone(),
            number: c.number,
            verdict: c.verdict,
            message: None,
            wire: None,
            json: None,
            unproven: why,
        }
    }
}

/// Change `i` of a pair's `changes` proved, as [`prove`] proves it among them (the others
/// on its field show in its samples too), without proving the others: what a screen
/// showing one change asks for. `None` when there is no change `i`.
pub fn prove_change(old: &Schema, new: &Schema, changes: &[Change], i: usize) -> Option<Proof> {
    let c = changes.get(i)?;
    let together = Together::of(old, new, changes);
    let users = target::users(old, new);
    Some(prove_one(old, new, c, together.cells(c, old, new), &users))
}

/// The worst verdict per cell of the changes on each field (message, number), and on each
/// enum's values (they share one number space: a value renumbered is read as another that
/// was added).
struct Together(std::collections::HashMap<(String, Option<i64>), [Severity; 4]>);

impl Together {
    fn key(c: &Change, old: &Schema, new: &Schema) -> (String, Option<i64>) {
        let p = parent(&c.element).unwrap_or_default();
        let an_enum = old.content.enums.contains_key(p) || new.content.enums.contains_key(p);
        (p.to_string(), c.number.filter(|_| !an_enum))
    }

    fn of(old: &Schema, new: &Schema, changes: &[Change]) -> Together {
        let mut together = std::collections::HashMap::new();
        for c in changes.iter().filter(|c| c.number.is_some()) {
            let slot: &mut [Severity; 4] = together.entry(Self::key(c, old, new)).or_default();
            for (s, v) in slot.iter_mut().zip(cells(&c.verdict)) {
                *s = (*s).max(v);
            }
        }
        Together(together)
    }

    /// The cells a round trip of `c` is judged against.
    fn cells(&self, c: &Change, old: &Schema, new: &Schema) -> [Severity; 4] {
        let mut all = self
            .0
            .get(&Self::key(c, old, new))
            .copied()
            .unwrap_or_else(|| cells(&c.verdict));
        // A field of an enum type writes the enum's values: the enum's own changes show in
        // its samples too.
        for e in field_enums(c, old, new) {
            if let Some(more) = self.0.get(&(e, None)) {
                for (s, v) in all.iter_mut().zip(more) {
                    *s = (*s).max(*v);
                }
            }
        }
        all
    }
}

/// The enums a changed field is of, on either side.
fn field_enums(c: &Change, old: &Schema, new: &Schema) -> Vec<String> {
    let (Some(p), Some(n)) = (parent(&c.element), c.number) else {
        return Vec::new();
    };
    let Ok(n) = u32::try_from(n) else {
        return Vec::new();
    };
    let mut out: Vec<String> = [old, new]
        .iter()
        .filter_map(|s| s.content.messages.get(p)?.fields.get(&n))
        .filter_map(|f| match &f.ty {
            FieldType::Enum(e) => Some(e.clone()),
            _ => None,
        })
        .collect();
    out.dedup();
    out
}

fn prove_one(
    old: &Schema,
    new: &Schema,
    c: &Change,
    all: [Severity; 4],
    users: &target::Users,
) -> Proof {
    let mut proof = Proof::unproven(c, None);
    let t = match target(c, old, new, users) {
        Ok(t) => t,
        Err(why) => {
            proof.unproven = Some(why);
            return proof;
        }
    };
    let msg = match &t {
        Target::Field { msg, .. } | Target::Renumbered { msg, .. } => msg.clone(),
        Target::EnumValue { msg, .. } if !msg.is_empty() => msg.clone(),
        Target::EnumValue { .. } | Target::Rpc { .. } => WRAPPER.to_string(),
    };
    // `backward`: the old version writes, the new one reads.
    let run = |backward: bool, json: bool, rule: Severity, all: Severity| -> Cell {
        let (writer, reader) = if backward { (old, new) } else { (new, old) };
        let (shown, skipped) = direction(&t, &msg, writer, reader, backward, json);
        let observed = shown.iter().map(|s| s.outcome.severity()).max();
        let contradiction = match (rule, observed) {
            (Severity::Safe, Some(o)) => all == Severity::Safe && o >= Severity::Lossy,
            (Severity::Breaking, Some(o)) => o == Severity::Safe,
            _ => false,
        };
        Cell {
            rule,
            together: (all > rule).then_some(all),
            observed,
            runtime: if json { json::RUNTIME } else { wire::RUNTIME },
            contradiction,
            samples: shown,
            skipped,
        }
    };
    let v = c.verdict;
    proof.wire = Some(Cells {
        backward: run(true, false, v.wire.backward, all[0]),
        forward: run(false, false, v.wire.forward, all[1]),
    });
    proof.json = Some(Cells {
        backward: run(true, true, v.json.backward, all[2]),
        forward: run(false, true, v.json.forward, all[3]),
    });
    proof.message = Some(msg);
    proof
}

/// The samples of one direction, each written by `writer` and read by `reader`
/// (`backward`: the writer is the old version).
fn direction(
    t: &Target,
    msg: &str,
    writer: &Schema,
    reader: &Schema,
    backward: bool,
    json: bool,
) -> (Vec<Shown>, Vec<String>) {
    let (writer, reader) = (types(t, writer, backward), types(t, reader, !backward));
    let (Some(wm), Some(rm)) = (writer.message(msg), reader.message(msg)) else {
        return (Vec::new(), Vec::new());
    };
    let by_name = |m: &Message, n: &str| m.fields.values().find(|f| f.name == n).map(|f| f.number);
    let mut rn = None;
    let (number, all) = match t {
        Target::Field { number, .. } => {
            (*number, samples::for_field(wm, *number, &writer, &reader))
        }
        Target::Renumbered { name, .. } => {
            let (Some(w), Some(r)) = (by_name(wm, name), by_name(rm, name)) else {
                return (Vec::new(), Vec::new());
            };
            rn = Some(r);
            (w, samples::for_field(wm, w, &writer, &reader))
        }
        Target::Rpc { .. } => (1, samples::for_field(wm, 1, &writer, &reader)),
        Target::EnumValue {
            field,
            enum_name,
            name,
            number,
            msg: user,
        } => {
            // Both sides must have the enum (its addition or removal is another change's).
            if writer.enum_(enum_name).is_none() || reader.enum_(enum_name).is_none() {
                return (Vec::new(), Vec::new());
            }
            let field = if user.is_empty() { 1 } else { *field };
            let Some(f) = wm.fields.get(&field) else {
                return (Vec::new(), Vec::new());
            };
            // Only a side that declares the number writes it, under its own name for it
            // (a renamed value's old name on the old side).
            let Some(declared) = writer.enum_(enum_name).and_then(|e| {
                e.values
                    .iter()
                    .find(|v| v.number == *number && v.name == *name)
                    .or_else(|| e.values.iter().find(|v| v.name == *name))
                    .or_else(|| e.values.iter().find(|v| v.number == *number))
            }) else {
                return (Vec::new(), Vec::new());
            };
            let value = (declared.name.as_str(), declared.number);
            (
                field,
                samples::for_enum_value(wm, f, value, &writer, &reader),
            )
        }
    };
    let f2 = Field2 {
        msg,
        wn: number,
        rn: rn.unwrap_or(number),
        wf: wm.fields.get(&number),
        rf: rm.fields.get(&rn.unwrap_or(number)),
        writer: &writer,
        reader: &reader,
    };
    let mut shown = Vec::new();
    let mut skipped = Vec::new();
    for s in all {
        match one_sample(&f2, s, json) {
            Ok(x) => shown.push(x),
            Err(why) => skipped.push(why),
        }
    }
    (shown, skipped)
}

/// One sample written and read, or `label: why` the writer cannot write it.
fn one_sample(f2: &Field2<'_>, s: Sample, json: bool) -> Result<Shown, String> {
    let label = s.label.clone();
    let skip = |why: String| format!("{label}: {why}");
    // The sample as the writer's runtime holds it (its own reading: a map keeps one entry
    // per key), then as it serializes that; a message it would not write (a required field
    // unset) is no sample.
    let built = wire::encode(&s.msg, f2.msg, f2.writer);
    let held = wire::decode(&built, f2.msg, f2.writer).map_err(|e| skip(e.0))?;
    let bytes = wire::encode(&held, f2.msg, f2.writer);
    let w = wire::decode(&bytes, f2.msg, f2.writer).map_err(|e| skip(e.0))?;
    // A field the reader requires and the writer does not write fails every message: that
    // is that field's own change (its addition, or its label), not this one's.
    let rm = f2.reader.message(f2.msg);
    if let Some(r) = rm.into_iter().flat_map(|m| m.fields.values()).find(|r| {
        r.cardinality == Cardinality::Required
            && r.number != f2.rn
            && !w.fields.contains_key(&r.number)
    }) {
        return Err(skip(format!(
            "the reader requires `{}`, which the writer does not write: every message fails \
             on that field's own change",
            r.name
        )));
    }
    if json {
        let text = json::write(&w, f2.msg, f2.writer).map_err(skip)?;
        // A writer's JSON its own parser refuses is no sample either.
        json::read(&text, f2.msg, f2.writer)
            .map_err(|e| skip(format!("the writer's own parser: {e}")))?;
        let (outcome, read) = match json::read(&text, f2.msg, f2.reader) {
            Ok(r) => f2.judge(&w, &r, false),
            Err(why) => (Outcome::Rejected, why),
        };
        return Ok(Shown {
            label: s.label,
            written: text,
            read,
            outcome,
        });
    }
    let (outcome, read) = match wire::decode(&bytes, f2.msg, f2.reader) {
        Ok(r) => f2.judge(&w, &r, true),
        Err(why) => (Outcome::Rejected, why.0),
    };
    Ok(Shown {
        label: s.label,
        written: hex(&bytes),
        read,
        outcome,
    })
}
