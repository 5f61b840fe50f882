//! History-wide hazards, which no diff of one pair can see:
//! - a field or enum-value number removed (reserved or not) and used again later with
//!   another declaration, even when the versions in between never meet as a pair;
//! - a field or enum-value name removed and used again later for another number;
//! - a reservation that was dropped;
//! - a field whose type changed and later changed back (data written in between is misread);
//! - a buf dependency whose `buf.lock` pin moved (`dependencies`).
//!
//! The story of each number and name is told in `numbers`.
//!
//! Versions are walked in history order; a version that did not compile, or that lacks the
//! message or enum (a partial compile, or before it existed), tells nothing about it.

mod dependencies;
mod numbers;
mod sorted;

use numbers::{step, type_key};
use sorted::Sorted;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use serde::Serialize;

use crate::judge::Scope;
use crate::load::{Loaded, VersionId, lineage};
use crate::schema::graph::{build, type_text};
use crate::schema::model::{Cardinality, Content, Enum, Extension, Field, Message};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HazardKind {
    NumberReused,
    NameReused,
    ReservationDropped,
    TypeReverted,
    /// A buf dependency's pin moved (`buf.lock`): its files are not in the repository, so
    /// what changed in it is not judged.
    DependencyChanged,
}

impl HazardKind {
    /// The hazards an ignore (a `rule` key or a directive) may name besides the rule ids.
    pub const IGNORABLE: [HazardKind; 4] = [
        HazardKind::NumberReused,
        HazardKind::NameReused,
        HazardKind::ReservationDropped,
        HazardKind::TypeReverted,
    ];

    /// The id a `protolapse.toml` ignore or an inline directive names it by.
    pub const fn id(self) -> &'static str {
        match self {
            HazardKind::NumberReused => "HAZARD_NUMBER_REUSED",
            HazardKind::NameReused => "HAZARD_NAME_REUSED",
            HazardKind::ReservationDropped => "HAZARD_RESERVATION_DROPPED",
            HazardKind::TypeReverted => "HAZARD_TYPE_REVERTED",
            HazardKind::DependencyChanged => "DEPENDENCY_CHANGED",
        }
    }

    /// How to avoid it.
    pub fn fix(self) -> &'static str {
        match self {
            HazardKind::NumberReused | HazardKind::NameReused => {
                "give the new declaration a fresh number and name, and reserve the old ones"
            }
            HazardKind::ReservationDropped => {
                "keep the reservation: reserved numbers and names cost nothing"
            }
            HazardKind::TypeReverted => {
                "if data was written with the middle type, keep that type or add a new field"
            }
            HazardKind::DependencyChanged => {
                "review the dependency's changes between the two pins (`buf breaking` on the \
                 module), or vendor its files so that protolapse judges them"
            }
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            HazardKind::NumberReused => "number_reused",
            HazardKind::NameReused => "name_reused",
            HazardKind::ReservationDropped => "reservation_dropped",
            HazardKind::TypeReverted => "type_reverted",
            HazardKind::DependencyChanged => "dependency_changed",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Hazard {
    pub kind: HazardKind,
    /// The field or enum value (`pkg.Msg.field`, `pkg.Enum.VALUE`), or the message or enum
    /// for a dropped reservation.
    pub element: String,
    pub number: Option<i64>,
    /// The versions involved, in history order (e.g. last declared, removed, reused).
    pub versions: Vec<String>,
    /// The version where the hazard shows (the reuse, the drop, the revert).
    #[serde(skip)]
    pub at: VersionId,
    /// One line: what happened.
    pub message: String,
    /// Why it is ignored (protolapse.toml or an inline directive), if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<String>,
}

/// What a field or value number held in one version. The name is borrowed from the version's
/// model and the types are shared between a number's story and its last declaration: the walk
/// keeps no copy of the history's declarations (a 10 MB .proto held them twice over).
#[derive(Clone)]
struct Decl<'a> {
    name: &'a str,
    /// Type and cardinality as compared (`repeated int32`; `string` reads as `bytes`, which
    /// shares its encoding); for enum values, empty.
    ty: Rc<str>,
    /// The type as declared, for messages (`string`, `optional int32`); for enum values,
    /// empty.
    shown: Rc<str>,
}

/// Two declarations are the same when name and compared type are: `string` back as `bytes`
/// is no reuse.
impl PartialEq for Decl<'_> {
    fn eq(&self, other: &Decl<'_>) -> bool {
        self.name == other.name && self.ty == other.ty
    }
}

/// The types of declarations, each text held once: most fields of a history share a few
/// dozen types, and a copy per field and version added up on large schemas.
#[derive(Default)]
struct Types(HashMap<String, Rc<str>>);

impl Types {
    fn get(&mut self, text: String) -> Rc<str> {
        self.0
            .entry(text)
            .or_insert_with_key(|t| Rc::from(t.as_str()))
            .clone()
    }
}

/// One number's story so far.
#[derive(Default)]
struct Track<'a> {
    /// The declaration last seen, and in which version.
    last: Option<(Decl<'a>, usize)>,
    /// Present in the last version that had the container.
    present: bool,
    /// Where it went missing, if it is missing now.
    removed_at: Option<usize>,
    /// Types in order of appearance while present without removal: (compared type, since
    /// version, declared type).
    types: Vec<(Rc<str>, usize, Rc<str>)>,
}

/// One name's story so far (the number it had).
#[derive(Default)]
struct NameTrack {
    last: Option<(i64, usize)>,
    present: bool,
    removed_at: Option<usize>,
}

/// Reserved number ranges and names, and the version they were seen in.
struct Reserved<'a> {
    ranges: Vec<(i64, i64)>,
    names: &'a [String],
    at: usize,
}

/// A message's or enum's numbers and names across versions, borrowing from the versions'
/// models.
#[derive(Default)]
struct Container<'a> {
    numbers: Sorted<i64, Track<'a>>,
    names: Sorted<&'a str, NameTrack>,
    /// Reservations in the last version that had the container.
    reserved: Option<Reserved<'a>>,
    /// The declaration last walked: an equal one changes nothing but the reservations' date.
    last_message: Option<&'a Message>,
    last_enum: Option<&'a Enum>,
    last_extensions: Option<&'a BTreeMap<u32, Extension>>,
}

/// The extensions of a message that has none left.
static NO_EXTENSIONS: BTreeMap<u32, Extension> = BTreeMap::new();

impl Container<'_> {
    /// The container is as it was: note that its numbers, names and reservations still
    /// stand in `i` (so that a later removal names the last version that really held them).
    fn seen_again(&mut self, i: usize) {
        if let Some(r) = &mut self.reserved {
            r.at = i;
        }
        for t in self.numbers.values_mut().filter(|t| t.present) {
            if let Some((_, at)) = &mut t.last {
                *at = i;
            }
        }
        for t in self.names.values_mut().filter(|t| t.present) {
            if let Some((_, at)) = &mut t.last {
                *at = i;
            }
        }
    }
}

/// Every hazard of the history, in the order they show. With a root, only the messages and
/// enums it reaches in some version are followed.
pub fn find(versions: &[Loaded], scope: &Scope) -> Vec<Hazard> {
    let mut containers: BTreeMap<String, Container<'_>> = BTreeMap::new();
    let mut types = Types::default();
    let mut out = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        if let Some(prev) =
            lineage::previous_to_compare(versions, v.id).and_then(|p| versions.get(p.index()))
        {
            dependencies::moved(prev, v, i, &mut out);
        }
        if v.schema().is_none() {
            continue;
        }
        let content = &v.compiled.schema.content;
        if v.unchanged_since.is_some() {
            // The same content as the version before: nothing can show here, but what is
            // still there was held here too.
            for (key, c) in containers.iter_mut() {
                let here = match key.strip_suffix(" (extensions)") {
                    Some(extendee) => content.extensions.contains_key(extendee),
                    None => content.messages.contains_key(key) || content.enums.contains_key(key),
                };
                if here {
                    c.seen_again(i);
                }
            }
            continue;
        }
        // A set: the lookup runs once per message and enum (a 50,000-type root was quadratic).
        let reached: Option<HashSet<String>> = scope.root().map(|r| {
            if scope.present_in(content) {
                build(content, r).names().map(str::to_string).collect()
            } else {
                HashSet::new()
            }
        });
        let in_scope = |n: &str| reached.as_ref().is_none_or(|s| s.contains(n));
        for m in own_messages(content) {
            if in_scope(&m.full_name) {
                let c = containers.entry(m.full_name.clone()).or_default();
                if c.last_message == Some(m) {
                    c.seen_again(i);
                } else {
                    c.last_message = Some(m);
                    message(c, m, i, versions, &mut types, &mut out);
                }
            }
        }
        // The extensions of each message, own or not (custom options extend descriptor.proto's
        // messages): their numbers can be reused too.
        for (extendee, exts) in &content.extensions {
            if in_scope(extendee)
                && exts
                    .values()
                    .any(|x| content.files.get(&x.file).is_some_and(|f| !f.external))
            {
                let c = containers
                    .entry(format!("{extendee} (extensions)"))
                    .or_default();
                if c.last_extensions == Some(exts) {
                    c.seen_again(i);
                } else {
                    c.last_extensions = Some(exts);
                    extensions(c, extendee, exts, i, versions, &mut types, &mut out);
                }
            }
        }
        // A message still there whose extensions are all gone.
        for (key, c) in containers.iter_mut() {
            let Some(extendee) = key.strip_suffix(" (extensions)") else {
                continue;
            };
            if content.messages.contains_key(extendee)
                && !content.extensions.contains_key(extendee)
                && c.last_extensions.as_ref().is_some_and(|x| !x.is_empty())
            {
                c.last_extensions = Some(&NO_EXTENSIONS);
                extensions(
                    c,
                    extendee,
                    &NO_EXTENSIONS,
                    i,
                    versions,
                    &mut types,
                    &mut out,
                );
            }
        }
        for e in own_enums(content) {
            if in_scope(&e.full_name) {
                let c = containers.entry(e.full_name.clone()).or_default();
                if c.last_enum == Some(e) {
                    c.seen_again(i);
                } else {
                    c.last_enum = Some(e);
                    enumeration(c, e, i, versions, &mut out);
                }
            }
        }
    }
    out
}

fn own_messages(c: &Content) -> impl Iterator<Item = &Message> {
    c.messages
        .values()
        .filter(|m| !m.map_entry && c.files.get(&m.file).is_some_and(|f| !f.external))
}

fn own_enums(c: &Content) -> impl Iterator<Item = &Enum> {
    c.enums
        .values()
        .filter(|e| c.files.get(&e.file).is_some_and(|f| !f.external))
}

fn name(versions: &[Loaded], i: usize) -> String {
    versions[i].version.name.clone()
}

fn message<'a>(
    c: &mut Container<'a>,
    m: &'a Message,
    i: usize,
    versions: &[Loaded],
    types: &mut Types,
    out: &mut Vec<Hazard>,
) {
    let present: BTreeMap<i64, Decl<'a>> = m
        .fields
        .values()
        .map(|f| {
            (
                i64::from(f.number),
                Decl {
                    name: &f.name,
                    ty: types.get(type_key(f)),
                    shown: types.get(type_text(f)),
                },
            )
        })
        .collect();
    let ranges = m
        .reserved_ranges
        .iter()
        .map(|&(a, b)| (i64::from(a), i64::from(b)))
        .collect();
    step(
        c,
        &m.full_name,
        present,
        ranges,
        &m.reserved_names,
        i,
        versions,
        out,
    );
}

/// The extensions of one message, as numbers holding declarations named by full name.
fn extensions<'a>(
    c: &mut Container<'a>,
    extendee: &str,
    exts: &'a BTreeMap<u32, Extension>,
    i: usize,
    versions: &[Loaded],
    types: &mut Types,
    out: &mut Vec<Hazard>,
) {
    let present: BTreeMap<i64, Decl<'a>> = exts
        .values()
        .map(|x| {
            (
                i64::from(x.field.number),
                Decl {
                    name: &x.full_name,
                    ty: types.get(type_key(&x.field)),
                    shown: types.get(type_text(&x.field)),
                },
            )
        })
        .collect();
    let label = format!("{extendee} (extensions)");
    step(c, &label, present, Vec::new(), &[], i, versions, out);
}

fn enumeration<'a>(
    c: &mut Container<'a>,
    e: &'a Enum,
    i: usize,
    versions: &[Loaded],
    out: &mut Vec<Hazard>,
) {
    let mut present = BTreeMap::new();
    let no_type: Rc<str> = Rc::from("");
    for v in &e.values {
        // Aliases share a number: the first name stands for it.
        present.entry(i64::from(v.number)).or_insert(Decl {
            name: &v.name,
            ty: no_type.clone(),
            shown: no_type.clone(),
        });
    }
    let ranges = e
        .reserved_ranges
        .iter()
        .map(|&(a, b)| (i64::from(a), i64::from(b)))
        .collect();
    step(
        c,
        &e.full_name,
        present,
        ranges,
        &e.reserved_names,
        i,
        versions,
        out,
    );
}
