//! The lifecycle of a message's fields (or an enum's values) across every version: when each
//! number was added, how it changed (with the rule ids), when it was deprecated, removed,
//! reserved. Rows are numbers; a row keeps every name the number had.

use serde::Serialize;

use crate::diff::pair_one;
use crate::load::Loaded;
use crate::rules;
use crate::schema::Status;
use crate::schema::graph::{RootMatch, closest, type_text};
use crate::schema::model::{Content, Enum, Message};

/// A number's state in one version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// The version did not compile, or has no such message or enum.
    Unknown,
    /// Not declared, not reserved.
    Absent,
    Added,
    /// Declared as in the version before.
    Kept,
    Changed,
    Deprecated,
    /// Removed in this version (see `reserved`).
    Removed,
    /// Not declared and reserved (after its removal, or from the start).
    Reserved,
}

impl State {
    /// One character for compact timelines.
    pub fn glyph(self) -> char {
        match self {
            State::Unknown => '?',
            State::Absent => '.',
            State::Added => '+',
            State::Kept => '=',
            State::Changed => '~',
            State::Deprecated => 'd',
            State::Removed => '-',
            State::Reserved => 'r',
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            State::Unknown => "unknown",
            State::Absent => "absent",
            State::Added => "added",
            State::Kept => "kept",
            State::Changed => "changed",
            State::Deprecated => "deprecated",
            State::Removed => "removed",
            State::Reserved => "reserved",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub version: String,
    pub state: State,
    /// The declaration in this version (`int64 sensor_id = 4`), when declared.
    pub decl: Option<String>,
    /// The number is reserved in this version.
    pub reserved: bool,
    pub deprecated: bool,
    /// The rules of the changes from the version before (for `changed`, `deprecated`,
    /// `removed`, `added`).
    pub rules: Vec<rules::RuleId>,
}

impl Cell {
    /// [`Cell::rules`] as text: `FIELD_TYPE_CHANGED, FIELD_RENAMED`.
    pub fn rule_list(&self) -> String {
        let ids: Vec<&str> = self.rules.iter().map(|r| r.as_str()).collect();
        ids.join(", ")
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub number: i64,
    /// Every name the number had, first to last.
    pub names: Vec<String>,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Message,
    Enum,
}

#[derive(Debug, Clone, Serialize)]
pub struct Lifecycle {
    /// The message's or enum's full name.
    pub element: String,
    pub kind: Kind,
    pub versions: Vec<String>,
    /// Whether each version has the message or enum.
    pub present: Vec<bool>,
    pub rows: Vec<Row>,
}

/// One version's view of a number.
struct Seen {
    name: String,
    decl: String,
    deprecated: bool,
}

/// Resolves a message or enum name (full, or a unique suffix) over every version: found,
/// ambiguous (the full names it ends), or unknown (the closest names). Over the whole
/// history, not the newest version that has it (as a root is): a lifecycle follows one
/// name through every version, so a short name two types ever had is ambiguous.
pub fn resolve(versions: &[Loaded], given: &str) -> RootMatch {
    let given = given.trim_start_matches('.');
    let mut all: Vec<&str> = Vec::new();
    let mut own: Vec<&str> = Vec::new();
    for v in versions
        .iter()
        .filter(|v| v.compiled.status != Status::Failed)
    {
        let c = &v.compiled.schema.content;
        let is_own = |file: &str| c.files.get(file).is_some_and(|f| !f.external);
        for (name, file) in c
            .messages
            .values()
            .filter(|m| !m.map_entry)
            .map(|m| (m.full_name.as_str(), m.file.as_str()))
            .chain(
                c.enums
                    .values()
                    .map(|e| (e.full_name.as_str(), e.file.as_str())),
            )
        {
            all.push(name);
            if is_own(file) {
                own.push(name);
            }
        }
    }
    for list in [&mut all, &mut own] {
        list.sort_unstable();
        list.dedup();
    }
    if all.contains(&given) {
        return RootMatch::Found(given.to_string());
    }
    // A short name means the repository's own type before a well-known one.
    let suffix = format!(".{given}");
    let hits = |list: &[&str]| -> Vec<String> {
        list.iter()
            .filter(|n| n.ends_with(&suffix))
            .map(|n| n.to_string())
            .collect()
    };
    let mine = hits(&own);
    let hits = if mine.is_empty() { hits(&all) } else { mine };
    match hits.as_slice() {
        [one] => RootMatch::Found(one.clone()),
        [] => RootMatch::Unknown(closest(&all, given, 3)),
        many => RootMatch::Ambiguous(many.to_vec()),
    }
}

/// A message's fields, and its extensions (named `[pkg.name]`; their numbers lie in
/// extension ranges, apart from the fields').
fn numbers_of_message(c: &Content, m: &Message) -> Vec<(i64, Seen)> {
    let fields = m.fields.values().map(|f| {
        (
            i64::from(f.number),
            Seen {
                name: f.name.clone(),
                decl: format!("{} {} = {}", type_text(f), f.name, f.number),
                deprecated: f.deprecated,
            },
        )
    });
    let extensions = c
        .extensions
        .get(&m.full_name)
        .into_iter()
        .flat_map(|x| x.values())
        .map(|x| {
            let f = &x.field;
            (
                i64::from(f.number),
                Seen {
                    name: format!("[{}]", x.full_name),
                    decl: format!(
                        "extend {} {{ {} {} = {} }}",
                        m.name,
                        type_text(f),
                        f.name,
                        f.number
                    ),
                    deprecated: f.deprecated,
                },
            )
        });
    let mut all: Vec<(i64, Seen)> = fields.chain(extensions).collect();
    all.sort_by_key(|(n, _)| *n);
    all
}

fn numbers_of_enum(e: &Enum) -> Vec<(i64, Seen)> {
    let mut out: Vec<(i64, Seen)> = Vec::new();
    for v in &e.values {
        if out.iter().any(|(n, _)| *n == i64::from(v.number)) {
            continue;
        }
        out.push((
            i64::from(v.number),
            Seen {
                name: v.name.clone(),
                decl: format!("{} = {}", v.name, v.number),
                deprecated: v.deprecated,
            },
        ));
    }
    out
}

fn reserved(c: &Content, name: &str, n: i64) -> bool {
    if let Some(m) = c.messages.get(name) {
        m.reserved_ranges
            .iter()
            .any(|&(a, b)| i64::from(a) <= n && n <= i64::from(b))
    } else if let Some(e) = c.enums.get(name) {
        e.reserved_ranges
            .iter()
            .any(|&(a, b)| i64::from(a) <= n && n <= i64::from(b))
    } else {
        false
    }
}

/// The lifecycle of `name` (a resolved full name) over `versions`.
pub fn lifecycle(versions: &[Loaded], name: &str) -> Lifecycle {
    let kind = if versions.iter().any(|v| {
        v.compiled.status != Status::Failed && v.compiled.schema.content.enums.contains_key(name)
    }) {
        Kind::Enum
    } else {
        Kind::Message
    };
    let mut out = Lifecycle {
        element: name.to_string(),
        kind,
        versions: versions.iter().map(|v| v.version.name.clone()).collect(),
        present: Vec::new(),
        rows: Vec::new(),
    };
    // Per version: the numbers declared, or None when the version tells nothing.
    let seen: Vec<Option<Vec<(i64, Seen)>>> = versions
        .iter()
        .map(|v| {
            if v.compiled.status == Status::Failed {
                return None;
            }
            let c = &v.compiled.schema.content;
            match kind {
                Kind::Message => c.messages.get(name).map(|m| numbers_of_message(c, m)),
                Kind::Enum => c.enum_(name).map(numbers_of_enum),
            }
        })
        .collect();
    out.present = seen.iter().map(Option::is_some).collect();
    let mut numbers: Vec<i64> = seen.iter().flatten().flatten().map(|(n, _)| *n).collect();
    numbers.sort_unstable();
    numbers.dedup();
    // The rules of each change from the previous version that had the declaration.
    let mut prev: Option<usize> = None;
    let mut rules_at: Vec<Vec<(Option<i64>, rules::RuleId)>> = vec![Vec::new(); versions.len()];
    for (i, s) in seen.iter().enumerate() {
        if s.is_none() {
            continue;
        }
        if let Some(p) = prev {
            let (a, b) = (&versions[p].compiled.schema, &versions[i].compiled.schema);
            let differs = match kind {
                Kind::Message => {
                    a.content.messages.get(name) != b.content.messages.get(name)
                        || a.content.extensions.get(name) != b.content.extensions.get(name)
                }
                Kind::Enum => a.content.enums.get(name) != b.content.enums.get(name),
            };
            if differs {
                rules_at[i] = rules::check(&pair_one(&a.content, &b.content, name), a, b)
                    .into_iter()
                    .filter(|c| c.rule != rules::RuleId::COMMENT_CHANGED)
                    .map(|c| (c.number, c.rule))
                    .collect();
            }
        }
        prev = Some(i);
    }
    for n in numbers {
        let mut row = Row {
            number: n,
            names: Vec::new(),
            cells: Vec::new(),
        };
        let mut before: Option<(String, bool)> = None; // decl and deprecated, when declared
        for (i, s) in seen.iter().enumerate() {
            let version = versions[i].version.name.clone();
            let Some(list) = s else {
                row.cells.push(Cell {
                    version,
                    state: State::Unknown,
                    decl: None,
                    reserved: false,
                    deprecated: false,
                    rules: Vec::new(),
                });
                continue;
            };
            let content = &versions[i].compiled.schema.content;
            let is_reserved = reserved(content, name, n);
            let here = list.iter().find(|(k, _)| *k == n).map(|(_, s)| s);
            let rules: Vec<rules::RuleId> = rules_at[i]
                .iter()
                .filter(|(k, _)| *k == Some(n))
                .map(|(_, r)| *r)
                .collect();
            let state = match (&before, here) {
                (None, Some(_)) => State::Added,
                (Some((d, dep)), Some(h)) if *d == h.decl && *dep == h.deprecated => State::Kept,
                (Some((d, dep)), Some(h)) if *d == h.decl && !dep && h.deprecated => {
                    State::Deprecated
                }
                (Some(_), Some(_)) => State::Changed,
                (Some(_), None) => State::Removed,
                (None, None) if is_reserved => State::Reserved,
                (None, None) => State::Absent,
            };
            if let Some(h) = here
                && row.names.last() != Some(&h.name)
            {
                row.names.push(h.name.clone());
            }
            before = here.map(|h| (h.decl.clone(), h.deprecated));
            row.cells.push(Cell {
                version,
                state,
                decl: here.map(|h| h.decl.clone()),
                reserved: is_reserved,
                deprecated: here.is_some_and(|h| h.deprecated),
                rules,
            });
        }
        out.rows.push(row);
    }
    out
}
