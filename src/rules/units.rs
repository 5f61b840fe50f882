//! The rules unit by unit: a unit is one pair of declarations that `diff` paired (two files,
//! two messages with their fields, two enums, two services, two extensions), judged by all
//! the rules of its kind. Every finding belongs to exactly one unit, so that a pair of
//! schemas is the sum of its units. A unit's rules read the two schemas beyond its own
//! declarations only by full name, through [`Types`](crate::schema::model::reads::Types),
//! which records each look-up ([`Unit::findings_read`]): wherever the same two declarations
//! meet and those names find the same declarations, the unit finds the same. A caller judging
//! many pairs of schemas keeps units on that ground (`judge::units`).

use crate::diff::{Pair, Pairing};
use crate::schema::model::{Enum, Extension, File, Message, Service};

use super::decl::{self, Ctx};
use super::{Finding, extension, field};
use crate::schema::model::reads::{Read, recording};

/// One pair of declarations, at least one present, not one declaration shared by both.
#[derive(Clone, Copy)]
pub enum Unit<'a> {
    File(Pair<'a, File>),
    Message(Pair<'a, Message>),
    Enum(Pair<'a, Enum>),
    Service(Pair<'a, Service>),
    Extension(Pair<'a, Extension>),
}

/// Names a unit by the addresses of its two declarations, for the kinds that versions share
/// (messages, enums, services and extensions are shared when equal: see
/// `schema::compile::shared`), and for an extension on both sides, of the messages it
/// extends (which its rules read); files are each schema's own and have no key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UnitKey {
    kind: u8,
    old: usize,
    new: usize,
    extended: [usize; 2],
}

fn address<T>(x: Option<&T>) -> usize {
    x.map_or(0, |x| std::ptr::from_ref(x) as usize)
}

/// The pairs of `pairs` that are not one declaration shared by both sides, as units.
fn differing<'a, T>(
    pairs: &[Pair<'a, T>],
    unit: fn(Pair<'a, T>) -> Unit<'a>,
) -> impl Iterator<Item = Unit<'a>> {
    pairs
        .iter()
        .filter(|x| !matches!((x.old, x.new), (Some(a), Some(b)) if std::ptr::eq(a, b)))
        .map(move |x| unit(*x))
}

/// The units of a pairing in which something may differ (a declaration both sides share
/// has no finding: its comments live in the files' docs, compared apart).
pub fn units<'a>(p: &Pairing<'a>) -> impl Iterator<Item = Unit<'a>> {
    // Files are each schema's own: equal ones have nothing to find either.
    let files = p
        .files
        .iter()
        .filter(|x| !matches!((x.old, x.new), (Some(a), Some(b)) if a == b))
        .map(|x| Unit::File(*x));
    files
        .chain(differing(&p.messages, Unit::Message))
        .chain(differing(&p.enums, Unit::Enum))
        .chain(differing(&p.services, Unit::Service))
        .chain(differing(&p.extensions, Unit::Extension))
}

impl<'a> Unit<'a> {
    /// On each side, the declaration's full name and the file that declares it, where the
    /// docs of what it finds are (the declaration's own and its members'); None for a file.
    pub fn home(&self) -> [Option<(&'a str, &'a str)>; 2] {
        fn of<'a, T>(
            x: Pair<'a, T>,
            home: fn(&'a T) -> (&'a str, &'a str),
        ) -> [Option<(&'a str, &'a str)>; 2] {
            [x.old.map(home), x.new.map(home)]
        }
        match *self {
            Unit::File(_) => [None, None],
            Unit::Message(x) => of(x, |m| (&m.full_name, &m.file)),
            Unit::Enum(x) => of(x, |e| (&e.full_name, &e.file)),
            Unit::Service(x) => of(x, |s| (&s.full_name, &s.file)),
            Unit::Extension(x) => of(x, |e| (&e.full_name, &e.file)),
        }
    }
}

impl Unit<'_> {
    /// The unit's key in `p`, for the kinds versions share.
    pub fn key(&self, p: &Pairing<'_>) -> Option<UnitKey> {
        let mut extended = [0; 2];
        let (kind, old, new) = match self {
            Unit::Message(x) => (1, address(x.old), address(x.new)),
            Unit::Enum(x) => (2, address(x.old), address(x.new)),
            Unit::Service(x) => (3, address(x.old), address(x.new)),
            Unit::Extension(x) => {
                if let (Some(o), Some(n)) = (x.old, x.new) {
                    extended = [
                        address(p.old.message(&o.extendee)),
                        address(p.new.message(&n.extendee)),
                    ];
                }
                (4, address(x.old), address(x.new))
            }
            Unit::File(_) => return None,
        };
        Some(UnitKey {
            kind,
            old,
            new,
            extended,
        })
    }

    /// What the rules find in this unit of `p`, added to `out`.
    pub(crate) fn findings(&self, p: &Pairing<'_>, out: &mut Vec<Finding>) {
        let ctx = Ctx::of(p);
        match *self {
            Unit::File(pair) => decl::file(&ctx, pair, out),
            Unit::Message(pair) => {
                decl::message(&ctx, pair, out);
                if let (Some(om), Some(nm)) = (pair.old, pair.new) {
                    field::message_pair(p, om, nm, out);
                }
            }
            Unit::Enum(pair) => decl::enumeration(&ctx, pair, out),
            Unit::Service(pair) => decl::service(&ctx, pair, out),
            Unit::Extension(pair) => extension::check(p, pair, out),
        }
    }

    /// [`Unit::findings`], and the look-ups by name its rules made beyond its two
    /// declarations: every pair of schemas in which these two declarations meet as a unit,
    /// and in which those names find the same declarations, finds the same.
    pub(crate) fn findings_read(&self, p: &Pairing<'_>) -> (Vec<Finding>, Vec<Read>) {
        recording(|| {
            let mut out = Vec::new();
            self.findings(p, &mut out);
            out
        })
    }
}
