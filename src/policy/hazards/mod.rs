//! History-wide hazards, which no diff of one pair can see:
//! - a field or enum-value number removed (reserved or not) and used again later with
//!   another declaration, even when the versions in between never meet as a pair;
//! - a field or enum-value name removed and used again later for another number;
//! - a reservation that was dropped;
//! - a field whose type changed and later changed back (data written in between is misread);
//! - a buf dependency whose `buf.lock` pin moved (`dependencies`).
//!
//! The story of each number and name is told in `numbers`; `walk` follows each message, enum
//! and message's extensions across the history, all of them in parallel.
//!
//! Versions are walked in history order; a version that did not compile, or that lacks the
//! message or enum (a partial compile, or before it existed), tells nothing about it.

mod dependencies;
mod named;
mod numbers;
mod walk;

use std::sync::Arc;
pub use walk::find;

use numbers::{step, type_key};

use std::collections::BTreeMap;
use std::rc::Rc;

use serde::Serialize;

use crate::load::{Loaded, VersionId};
use crate::schema::graph::type_text;
use crate::schema::model::{Cardinality, Content, Enum, Extension, Field, Message};

/// The extensions of one extended message, by number.
type Extensions = BTreeMap<u32, Arc<Extension>>;

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
    numbers: BTreeMap<i64, Track<'a>>,
    names: BTreeMap<&'a str, NameTrack>,
    /// Reservations in the last version that had the container.
    reserved: Option<Reserved<'a>>,
    /// The declaration last walked: an equal one changes nothing but the reservations' date
    /// (the same shared declaration compares by pointer).
    last_message: Option<&'a Arc<Message>>,
    last_enum: Option<&'a Arc<Enum>>,
    last_extensions: Option<&'a Extensions>,
}

/// The extensions of a message that has none left.
static NO_EXTENSIONS: Extensions = BTreeMap::new();

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

fn own_messages(c: &Content) -> impl Iterator<Item = &Message> {
    c.messages
        .values()
        .map(Arc::as_ref)
        .filter(|m| own_message(c, m))
}

/// A message of the repository's own (not a map entry, not from an external file).
fn own_message(c: &Content, m: &Message) -> bool {
    !m.map_entry && c.files.get(&m.file).is_some_and(|f| !f.external)
}

fn own_enums(c: &Content) -> impl Iterator<Item = &Enum> {
    c.enums.values().map(Arc::as_ref).filter(|e| own_enum(c, e))
}

fn own_enum(c: &Content, e: &Enum) -> bool {
    c.files.get(&e.file).is_some_and(|f| !f.external)
}

fn name(versions: &[Loaded], i: usize) -> String {
    versions[i].version.name.clone()
}

fn message<'a>(
    c: &mut Container<'a>,
    m: &'a Message,
    i: usize,
    versions: &[Loaded],
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
                    ty: type_key(f).into(),
                    shown: type_text(f).into(),
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
    exts: &'a Extensions,
    i: usize,
    versions: &[Loaded],
    out: &mut Vec<Hazard>,
) {
    let present: BTreeMap<i64, Decl<'a>> = exts
        .values()
        .map(|x| {
            (
                i64::from(x.field.number),
                Decl {
                    name: &x.full_name,
                    ty: type_key(&x.field).into(),
                    shown: type_text(&x.field).into(),
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
