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
#[cfg(test)]
mod tests;
mod types;
pub mod value;
pub mod wire;

use serde::Serialize;

use crate::rules::{Change, RuleId, Severity};
use crate::schema::Schema;
use crate::schema::model::{Cardinality, Field, FieldType, Message, Presence};

use compare::Field2;
pub use compare::Outcome;
use samples::Sample;
use types::Types;
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

/// What a change's samples are about.
enum Target {
    /// A field of message `msg`, by number.
    Field { msg: String, number: u32 },
    /// A field of message `msg` that kept its name and changed its number: the writer's
    /// number against the reader's.
    Renumbered { msg: String, name: String },
    /// An enum value, written in field `field` of message `msg` (`msg` empty: in the field
    /// of a wrapper of ours, the enum having no message of both versions that uses it).
    EnumValue {
        msg: String,
        field: u32,
        enum_name: String,
        name: String,
        number: i32,
    },
    /// An rpc's request or response: the old type read as the new one, in a wrapper.
    Rpc { old: String, new: String },
}

/// The wrapper's full name: in no package a `.proto` file can declare.
pub const WRAPPER: &str = "protolapse.prove.Wrapper";

/// A message of ours with one field, number 1, of type `ty`.
fn wrapper(ty: FieldType, closed_enum: bool) -> Message {
    let field = Field {
        number: 1,
        name: "value".into(),
        json_name: "value".into(),
        ty,
        cardinality: Cardinality::Optional,
        map: None,
        presence: if closed_enum {
            Presence::Explicit
        } else {
            Presence::Implicit
        },
        oneof: None,
        proto3_optional: false,
        default: None,
        packed: false,
        utf8_verified: true,
        deprecated: false,
        options: Default::default(),
    };
    Message {
        full_name: WRAPPER.into(),
        name: "Wrapper".into(),
        file: String::new(),
        parent: None,
        fields: [(1, field)].into_iter().collect(),
        oneofs: Vec::new(),
        reserved_ranges: Vec::new(),
        reserved_names: Vec::new(),
        extension_ranges: Vec::new(),
        map_entry: false,
        json_legacy: false,
        exported: true,
        options: Default::default(),
    }
}

fn parent(element: &str) -> Option<&str> {
    element.rsplit_once('.').map(|(p, _)| p)
}

fn target(c: &Change, old: &Schema, new: &Schema) -> Result<Target, String> {
    let number = c.number.and_then(|n| u32::try_from(n).ok());
    let p = parent(&c.element).unwrap_or_default();
    let is_msg = |s: &Schema| s.content.messages.contains_key(p);
    if let (Some(n), true) = (number, is_msg(old) || is_msg(new)) {
        if c.rule == RuleId::FIELD_NUMBER_CHANGED {
            return Ok(Target::Renumbered {
                msg: p.to_string(),
                name: c.element.rsplit('.').next().unwrap_or_default().to_string(),
            });
        }
        return Ok(Target::Field {
            msg: p.to_string(),
            number: n,
        });
    }
    let in_enum = |s: &Schema| s.content.enums.contains_key(p);
    if let (Some(n), true) = (c.number, in_enum(old) || in_enum(new)) {
        let number = i32::try_from(n).map_err(|_| "an enum number out of range".to_string())?;
        // A message of both versions with a field of this enum type, the first by name.
        let user = old.content.messages.values().find_map(|m| {
            let f = m
                .fields
                .values()
                .find(|f| matches!(&f.ty, FieldType::Enum(e) if e == p) && f.map.is_none())?;
            let other = new
                .content
                .messages
                .get(&m.full_name)?
                .fields
                .get(&f.number)?;
            (other.ty == f.ty).then(|| (m.full_name.clone(), f.number))
        });
        let (msg, field) = user.unwrap_or_default();
        let name = c.element.rsplit('.').next().unwrap_or_default().to_string();
        return Ok(Target::EnumValue {
            msg,
            field,
            enum_name: p.to_string(),
            name,
            number,
        });
    }
    if matches!(
        c.rule,
        RuleId::RPC_INPUT_CHANGED | RuleId::RPC_OUTPUT_CHANGED
    ) {
        let side = |s: &Schema| {
            let (svc, m) = c.element.rsplit_once('.')?;
            let m = s.content.services.get(svc)?.methods.get(m)?;
            Some(if c.rule == RuleId::RPC_INPUT_CHANGED {
                m.input.clone()
            } else {
                m.output.clone()
            })
        };
        if let (Some(o), Some(n)) = (side(old), side(new)) {
            return Ok(Target::Rpc { old: o, new: n });
        }
    }
    Err(match c.rule {
        RuleId::EXTENSION_ADDED | RuleId::EXTENSION_REMOVED => {
            "extensions are not sampled yet".into()
        }
        _ => "no field or enum value of its own: nothing a round trip can show".into(),
    })
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
    // The worst verdict per cell of the changes on each field (message, number).
    let key = |c: &Change| (parent(&c.element).unwrap_or_default().to_string(), c.number);
    let mut together: std::collections::HashMap<(String, Option<i64>), [Severity; 4]> =
        std::collections::HashMap::new();
    for c in changes.iter().filter(|c| c.number.is_some()) {
        let slot = together.entry(key(c)).or_default();
        for (s, v) in slot.iter_mut().zip(cells(&c.verdict)) {
            *s = (*s).max(v);
        }
    }
    changes
        .iter()
        .map(|c| {
            let all = together
                .get(&key(c))
                .copied()
                .unwrap_or_else(|| cells(&c.verdict));
            prove_one(old, new, c, all)
        })
        .collect()
}

fn prove_one(old: &Schema, new: &Schema, c: &Change, all: [Severity; 4]) -> Proof {
    let mut proof = Proof {
        rule: c.rule,
        element: c.element.clone(),
        number: c.number,
        verdict: c.verdict,
        message: None,
        wire: None,
        json: None,
        unproven: None,
    };
    let t = match target(c, old, new) {
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
    let run =
        |writer: &Schema, reader: &Schema, json: bool, rule: Severity, all: Severity| -> Cell {
            let backward = std::ptr::eq(writer, old);
            let shown = direction(&t, &msg, writer, reader, backward, json);
            let observed = shown
                .iter()
                .map(|s| match s.outcome {
                    Outcome::Preserved | Outcome::KeptUnknown => Severity::Safe,
                    Outcome::Changed | Outcome::Dropped => Severity::Lossy,
                    Outcome::Rejected => Severity::Breaking,
                })
                .max();
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
            }
        };
    let v = c.verdict;
    proof.wire = Some(Cells {
        backward: run(old, new, false, v.wire.backward, all[0]),
        forward: run(new, old, false, v.wire.forward, all[1]),
    });
    proof.json = Some(Cells {
        backward: run(old, new, true, v.json.backward, all[2]),
        forward: run(new, old, true, v.json.forward, all[3]),
    });
    proof.message = Some(msg);
    proof
}

/// The types of one side: its schema, with the wrapper a target needs.
fn types<'a>(t: &Target, schema: &'a Schema, old_side: bool) -> Types<'a> {
    let mut ty = Types::of(schema);
    match t {
        Target::EnumValue { msg, enum_name, .. } if msg.is_empty() => {
            let closed = schema
                .content
                .enums
                .get(enum_name)
                .is_some_and(|e| e.closed);
            ty.wrapper = Some(wrapper(FieldType::Enum(enum_name.clone()), closed));
        }
        Target::Rpc { old, new } => {
            let name = if old_side { old } else { new };
            ty.wrapper = Some(wrapper(FieldType::Message(name.clone()), false));
        }
        _ => {}
    }
    ty
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
) -> Vec<Shown> {
    let (writer, reader) = (types(t, writer, backward), types(t, reader, !backward));
    let (Some(wm), Some(rm)) = (writer.message(msg), reader.message(msg)) else {
        return Vec::new();
    };
    let by_name = |m: &Message, n: &str| m.fields.values().find(|f| f.name == n).map(|f| f.number);
    let mut rn = None;
    let (number, all) = match t {
        Target::Field { number, .. } => (*number, samples::for_field(wm, *number, &writer)),
        Target::Renumbered { name, .. } => {
            let (Some(w), Some(r)) = (by_name(wm, name), by_name(rm, name)) else {
                return Vec::new();
            };
            rn = Some(r);
            (w, samples::for_field(wm, w, &writer))
        }
        Target::Rpc { .. } => (1, samples::for_field(wm, 1, &writer)),
        Target::EnumValue {
            field,
            enum_name,
            name,
            number,
            msg: user,
        } => {
            let field = if user.is_empty() { 1 } else { *field };
            let Some(f) = wm.fields.get(&field) else {
                return Vec::new();
            };
            // Only a side that declares the number writes it, under its own name for it
            // (a renamed value's old name on the old side).
            let Some(declared) = writer.enum_(enum_name).and_then(|e| {
                e.values
                    .iter()
                    .find(|v| v.number == *number && v.name == *name)
                    .or_else(|| e.values.iter().find(|v| v.number == *number))
            }) else {
                return Vec::new();
            };
            let value = (declared.name.as_str(), *number);
            (field, samples::for_enum_value(wm, f, value, &writer))
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
    all.into_iter()
        .filter_map(|s| one_sample(&f2, s, json))
        .collect()
}

fn one_sample(f2: &Field2<'_>, s: Sample, json: bool) -> Option<Shown> {
    // The sample as the writer's runtime holds it (its own reading: a map keeps one entry
    // per key), then as it serializes that; a message it would not write (a required field
    // unset) is no sample.
    let built = wire::encode(&s.msg, f2.msg, f2.writer);
    let held = wire::decode(&built, f2.msg, f2.writer).ok()?;
    let bytes = wire::encode(&held, f2.msg, f2.writer);
    let w = wire::decode(&bytes, f2.msg, f2.writer).ok()?;
    if json {
        let text = json::write(&w, f2.msg, f2.writer).ok()?;
        // A writer's JSON its own parser refuses is no sample either.
        json::read(&text, f2.msg, f2.writer).ok()?;
        let (outcome, read) = match json::read(&text, f2.msg, f2.reader) {
            Ok(r) => f2.judge(&w, &r, false),
            Err(why) => (Outcome::Rejected, why),
        };
        return Some(Shown {
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
    Some(Shown {
        label: s.label,
        written: hex(&bytes),
        read,
        outcome,
    })
}
