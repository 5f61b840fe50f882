//! What the reader saw against what the writer wrote, for one field: preserved, kept as an
//! unknown field (and then re-emitted, or not), changed, or dropped.

use crate::rules::Severity;
use serde::Serialize;

use super::types::Types;
use crate::schema::model::{Cardinality, Field, FieldType};

use super::value::{Msg, Val, is_zero, show};
use super::wire;

/// How one sample read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The reader has the value the writer wrote.
    Preserved,
    /// The reader kept it as an unknown field, and writing the message back gives the
    /// writer its value again.
    KeptUnknown,
    /// The reader has another value.
    Changed,
    /// The reader has nothing of it.
    Dropped,
    /// The reader's parser refused the bytes or the text.
    Rejected,
}

impl Outcome {
    /// The outcome in words, as the reports and the terminal UI write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Preserved => "preserved",
            Outcome::KeptUnknown => "kept as unknown",
            Outcome::Changed => "changed",
            Outcome::Dropped => "dropped",
            Outcome::Rejected => "rejected",
        }
    }

    /// The cell a sample with this outcome observes: preserved or kept as unknown is safe,
    /// changed or dropped lossy, rejected breaking.
    pub fn severity(self) -> Severity {
        match self {
            Outcome::Preserved | Outcome::KeptUnknown => Severity::Safe,
            Outcome::Changed | Outcome::Dropped => Severity::Lossy,
            Outcome::Rejected => Severity::Breaking,
        }
    }
}

/// Values equal as data: numbers by value, strings and bytes by their bytes, messages field
/// by field (the bytes a message was read from do not count); a message read as bytes is
/// equal to its own bytes.
pub fn same(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Msg(x), Val::Msg(y)) => same_msg(x, y),
        (Val::Msg(x), Val::Bytes(y)) | (Val::Bytes(y), Val::Msg(x)) => {
            !x.raw.is_empty() && x.raw == *y
                || x.raw.is_empty() && x.fields.is_empty() && y.is_empty()
        }
        // A float and a double (they meet in ProtoJSON only, which writes a float as its
        // shortest digits) are equal when the double rounds to the float.
        (Val::F32(x), Val::F64(y)) | (Val::F64(y), Val::F32(x)) => {
            f64::from_bits(*y) as f32 == f32::from_bits(*x)
        }
        _ => a == b,
    }
}

/// Field by field; a field one side lacks equals a single zero on the other (an unset
/// field without presence, or a map entry's missing key or value, reads as its zero).
fn same_msg(x: &Msg, y: &Msg) -> bool {
    let zero = |v: &[Val]| matches!(v, [one] if is_zero(one));
    x.unknown
        .iter()
        .map(|(_, r)| r)
        .eq(y.unknown.iter().map(|(_, r)| r))
        && x.fields.iter().all(|(n, a)| match y.fields.get(n) {
            Some(b) => same_list(a, b),
            None => zero(a),
        })
        && y.fields
            .iter()
            .all(|(n, b)| x.fields.contains_key(n) || zero(b))
}

fn same_list(a: &[Val], b: &[Val]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

/// What a side sees of one field: its values, or the default of an unset singular field.
pub fn seen(m: &Msg, number: u32, f: Option<&Field>, schema: &Types<'_>) -> Vec<Val> {
    if let Some(v) = m.fields.get(&number) {
        return v.clone();
    }
    match f {
        Some(f) if f.cardinality != Cardinality::Repeated => {
            match super::defaults::declared(f, schema) {
                Some(d) => vec![d],
                None => match &f.ty {
                    FieldType::Message(_) | FieldType::Group(_) => Vec::new(),
                    ty => vec![wire::default_of(ty, schema)],
                },
            }
        }
        _ => Vec::new(),
    }
}

/// One field's fate, the writer's field `wn` (`wf`) against the reader's `rn` (`rf`).
pub struct Field2<'a> {
    pub msg: &'a str,
    pub wn: u32,
    pub rn: u32,
    pub wf: Option<&'a Field>,
    pub rf: Option<&'a Field>,
    pub writer: &'a Types<'a>,
    pub reader: &'a Types<'a>,
}

impl Field2<'_> {
    /// `w`: the writer's reading of its own bytes; `r`: the reader's. `reemit`: whether to
    /// write the reader's message back for the writer (wire only: JSON keeps no unknowns).
    pub fn judge(&self, w: &Msg, r: &Msg, reemit: bool) -> (Outcome, String) {
        // A side that does not declare the field sees nothing of it.
        let mut wv = self
            .wf
            .map_or_else(Vec::new, |f| seen(w, self.wn, Some(f), self.writer));
        let mut rv = self
            .rf
            .map_or_else(Vec::new, |f| seen(r, self.rn, Some(f), self.reader));
        let kept = r.unknown.iter().any(|(n, _)| *n == self.wn);
        if kept && self.rf.is_some() {
            // The reader knows the number but could not take the value (another wire type,
            // a closed enum's undeclared value): its field reads unset.
            return (
                Outcome::Dropped,
                format!(
                    "{}: the value went to the unknown fields (written back unchanged)",
                    list(&rv)
                ),
            );
        }
        if self
            .rf
            .is_some_and(|rf| rv.iter().any(|v| unknown_known(v, &rf.ty, self.reader)))
        {
            return (
                Outcome::Dropped,
                format!(
                    "{}: part of it went to the unknown fields of a field the reader knows",
                    list(&rv)
                ),
            );
        }
        let nested_unknown = rv.iter().any(has_unknown);
        if let (Some(wf), Some(rf)) = (self.wf, self.rf) {
            if !reemit {
                // ProtoJSON carries an enum value by its name.
                wv = named(wv, &wf.ty, self.writer);
                rv = named(rv, &rf.ty, self.reader);
            } else if moved(&wv, &wf.ty, &rf.ty, self.writer, self.reader) {
                // The wire carries the number; a value whose name the reader declares
                // under another number reads as another value.
                return (
                    Outcome::Changed,
                    format!(
                        "{} (the reader's name for this number is not the writer's)",
                        list(&named(rv, &rf.ty, self.reader))
                    ),
                );
            }
        }
        if self.wf.and_then(|f| f.map.as_ref()).is_some()
            || self.rf.and_then(|f| f.map.as_ref()).is_some()
        {
            // A map has no order: entries by key (a repeated entry keeps its duplicates).
            wv.sort_by_key(entry_key);
            rv.sort_by_key(entry_key);
        }
        if !w.fields.contains_key(&self.wn) {
            // Nothing written: each side sees its own unset value (a proto2 default may
            // differ); a side without the field sees nothing, and loses nothing.
            let singular = |f: &Field| f.cardinality != Cardinality::Repeated;
            let differ = !wv.is_empty() && !rv.is_empty() && !same_list(&wv, &rv);
            return match (self.wf, self.rf) {
                (Some(a), Some(b)) if singular(a) && singular(b) && differ && !zeros(&wv, &rv) => (
                    Outcome::Changed,
                    format!(
                        "{} where the writer's unset value is {}",
                        list(&rv),
                        list(&wv)
                    ),
                ),
                _ => (Outcome::Preserved, list(&rv)),
            };
        }
        let as_string = matches!(
            (self.wf.map(|f| &f.ty), self.rf.map(|f| &f.ty)),
            (
                Some(FieldType::Message(_) | FieldType::Group(_)),
                Some(FieldType::Scalar(crate::schema::model::Scalar::String))
            )
        );
        if as_string
            && wv
                .iter()
                .any(|v| !matches!(v, Val::Msg(m) if m.raw.is_empty()))
        {
            // A message's bytes read as text: the same bytes, not the same value (protobuf
            // makes messages compatible with bytes, not with strings).
            return (
                Outcome::Changed,
                format!("{} (the message's bytes as a string)", list(&rv)),
            );
        }
        if same_list(&wv, &rv) && !kept {
            return (Outcome::Preserved, list(&rv));
        }
        if !wv.is_empty() && (kept || nested_unknown) && reemit {
            // Written back by the reader, read by the writer.
            let back = wire::encode(r, self.msg, self.reader);
            return match wire::decode(&back, self.msg, self.writer) {
                Ok(w2) if same_list(&seen(&w2, self.wn, self.wf, self.writer), &wv) => {
                    let what = if kept {
                        "kept as an unknown field, written back unchanged".to_string()
                    } else {
                        format!(
                            "{} (part kept as unknown fields, written back unchanged)",
                            list(&rv)
                        )
                    };
                    (Outcome::KeptUnknown, what)
                }
                _ => (
                    Outcome::Changed,
                    format!("{}; written back differently", list(&rv)),
                ),
            };
        }
        if rv.is_empty() || (self.rf.is_none() && !kept) {
            (Outcome::Dropped, "nothing".into())
        } else {
            (Outcome::Changed, list(&rv))
        }
    }
}

/// Enum values as their names (a number the enum does not declare stays a number).
fn named(vals: Vec<Val>, ty: &FieldType, types: &Types<'_>) -> Vec<Val> {
    let FieldType::Enum(e) = ty else {
        return vals;
    };
    let Some(e) = types.enum_(e) else {
        return vals;
    };
    vals.into_iter()
        .map(|v| match v {
            Val::Int(n) => e
                .values
                .iter()
                .find(|x| i128::from(x.number) == n)
                .map_or(Val::Int(n), |x| Val::Bytes(x.name.as_bytes().to_vec())),
            other => other,
        })
        .collect()
}

/// Whether an enum value the writer wrote is one whose name the reader declares under
/// another number (a value renumbered, not renamed).
fn moved(vals: &[Val], wt: &FieldType, rt: &FieldType, w: &Types<'_>, r: &Types<'_>) -> bool {
    let (FieldType::Enum(we), FieldType::Enum(re)) = (wt, rt) else {
        return false;
    };
    let (Some(we), Some(re)) = (w.enum_(we), r.enum_(re)) else {
        return false;
    };
    let at = |e: &crate::schema::model::Enum, name: &str, n: i128| {
        let numbers: Vec<i128> = e
            .values
            .iter()
            .filter(|x| x.name == name)
            .map(|x| i128::from(x.number))
            .collect();
        (!numbers.is_empty()).then_some(numbers.contains(&n))
    };
    vals.iter().any(|v| {
        let Val::Int(n) = v else { return false };
        let Some(mine) = we.values.iter().find(|x| i128::from(x.number) == *n) else {
            return false;
        };
        // The writer's value sits at another number for the reader; or the reader's name
        // for this number is another of the writer's values.
        let theirs = re.values.iter().find(|x| i128::from(x.number) == *n);
        at(re, &mine.name, *n) == Some(false)
            || theirs.is_some_and(|t| t.name != mine.name && at(we, &t.name, *n) == Some(false))
    })
}

fn entry_key(v: &Val) -> String {
    match v {
        Val::Msg(m) => m
            .fields
            .get(&1)
            .and_then(|k| k.last())
            .map(show)
            .unwrap_or_default(),
        other => show(other),
    }
}

/// Whether a read value holds, at some depth, an unknown field whose number its message
/// declares (the value came in a form the reader could not take).
fn unknown_known(v: &Val, ty: &FieldType, schema: &Types<'_>) -> bool {
    let (Val::Msg(m), FieldType::Message(t) | FieldType::Group(t)) = (v, ty) else {
        return false;
    };
    let Some(d) = schema.message(t) else {
        return false;
    };
    m.unknown.iter().any(|(n, _)| d.fields.contains_key(n))
        || m.fields.iter().any(|(n, vs)| {
            d.fields
                .get(n)
                .is_some_and(|f| vs.iter().any(|x| unknown_known(x, &f.ty, schema)))
        })
}

/// Both sides unset at their type's zero (a type change: 0 and 0.0).
fn zeros(a: &[Val], b: &[Val]) -> bool {
    matches!((a, b), ([x], [y]) if is_zero(x) && is_zero(y))
}

fn has_unknown(v: &Val) -> bool {
    match v {
        Val::Msg(m) => !m.unknown.is_empty() || m.fields.values().flatten().any(has_unknown),
        _ => false,
    }
}

fn list(v: &[Val]) -> String {
    match v {
        [] => "nothing".into(),
        [one] => show(one),
        many => format!("[{}]", many.iter().map(show).collect::<Vec<_>>().join(", ")),
    }
}
