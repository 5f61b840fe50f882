//! Option fields, and whether a set reads them as prost-reflect's own `descriptor.proto` does.
//!
//! A file's options are interpreted when it is linked, and read again when it is
//! normalized, through the `google.protobuf.*Options` messages its pool holds at that
//! moment: a repository's own `descriptor.proto` when the pool has it (whether the file
//! imports it or not, and whether it was linked before the file or after), else
//! prost-reflect's. So what a file's options say is a function of the file and its imports
//! only where, for each option field its options hold, the set's message and prost-reflect's
//! say the same of it: name, cardinality, presence, oneof, type (an enum's values, a
//! message's descriptor). Such a file is *canonical*, and only such a file is taken from the
//! memos keyed on a file's closure (its fingerprint digest, its declarations). A custom
//! option (an extension) is never canonical: prost-reflect's messages do not define it, and
//! it is read through every extension of the pool.

use std::cell::RefCell;
use std::collections::HashMap;

use prost::Message as _;
use prost_reflect::{DescriptorPool, FieldDescriptor, Kind, MessageDescriptor};
use sha2::{Digest, Sha256};

use super::wire;

/// The options messages, in the order of [`Part`]: a part's options are recorded with its
/// index here.
const OPTIONS: [&str; 9] = [
    "google.protobuf.FileOptions",
    "google.protobuf.MessageOptions",
    "google.protobuf.FieldOptions",
    "google.protobuf.OneofOptions",
    "google.protobuf.EnumOptions",
    "google.protobuf.EnumValueOptions",
    "google.protobuf.ServiceOptions",
    "google.protobuf.MethodOptions",
    "google.protobuf.ExtensionRangeOptions",
];

/// A part of an encoded `FileDescriptorProto` that holds options, or parts that do; its
/// options message is `OPTIONS[part as usize]`.
#[derive(Clone, Copy)]
enum Part {
    File,
    Message,
    Field,
    Oneof,
    Enum,
    EnumValue,
    Service,
    Method,
    ExtensionRange,
}

impl Part {
    /// The number of this part's options field, and the parts inside it by number.
    fn layout(self) -> (u64, &'static [(u64, Part)]) {
        match self {
            Part::File => (
                8,
                &[
                    (4, Part::Message),
                    (5, Part::Enum),
                    (6, Part::Service),
                    (7, Part::Field),
                ],
            ),
            Part::Message => (
                7,
                &[
                    (2, Part::Field),
                    (3, Part::Message),
                    (4, Part::Enum),
                    (5, Part::ExtensionRange),
                    (6, Part::Field),
                    (8, Part::Oneof),
                ],
            ),
            Part::Field => (8, &[]),
            Part::Oneof => (2, &[]),
            Part::Enum => (3, &[(2, Part::EnumValue)]),
            Part::EnumValue => (3, &[]),
            Part::Service => (3, &[(2, Part::Method)]),
            Part::Method => (4, &[]),
            Part::ExtensionRange => (3, &[]),
        }
    }
}

/// The option fields an encoded `FileDescriptorProto` holds, anywhere in it: (which options
/// message, field number), sorted, each once. Read from the bytes the compiler wrote, not
/// from options decoded through some message (which hides a field at its default value
/// where presence is implicit, and all but one field of a oneof).
pub fn option_fields(file: &[u8]) -> Vec<(u8, u32)> {
    let mut out = Vec::new();
    // Nesting is bounded by what compiled (`compile::bounds`); a stack, not recursion.
    let mut todo: Vec<(&[u8], Part)> = vec![(file, Part::File)];
    while let Some((bytes, part)) = todo.pop() {
        let (options, inside) = part.layout();
        let which = part as u8;
        for (number, _, payload) in wire::fields(bytes) {
            let Some(payload) = payload else {
                continue;
            };
            if number == options {
                out.extend(
                    wire::fields(payload)
                        .filter_map(|(n, _, _)| u32::try_from(n).ok())
                        .map(|n| (which, n)),
                );
            } else if let Some((_, p)) = inside.iter().find(|(n, _)| *n == number) {
                todo.push((payload, *p));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether a set reads option fields as prost-reflect's own messages do, each field asked
/// once per set.
pub struct Canon<'p> {
    pool: &'p DescriptorPool,
    known: RefCell<HashMap<(u8, u32), bool>>,
}

impl<'p> Canon<'p> {
    pub fn new(pool: &'p DescriptorPool) -> Self {
        Canon {
            pool,
            known: RefCell::default(),
        }
    }

    /// Whether the set reads each of `fields` as prost-reflect's own messages do.
    pub fn holds(&self, fields: &[(u8, u32)]) -> bool {
        let mut known = self.known.borrow_mut();
        fields.iter().all(|&(which, number)| {
            *known
                .entry((which, number))
                .or_insert_with(|| self.same(which, number))
        })
    }

    fn same(&self, which: u8, number: u32) -> bool {
        let Some(name) = OPTIONS.get(usize::from(which)) else {
            return false;
        };
        let global = DescriptorPool::global().get_message_by_name(name);
        let theirs = global.as_ref().and_then(|m| m.get_field(number));
        let ours = match self.pool.get_message_by_name(name) {
            Some(m) => m.get_field(number),
            None => theirs.clone(),
        };
        match (ours, theirs) {
            (Some(a), Some(b)) => same_field(&a, &b),
            _ => false,
        }
    }
}

fn same_field(a: &FieldDescriptor, b: &FieldDescriptor) -> bool {
    let oneof = |f: &FieldDescriptor| {
        f.containing_oneof()
            .map(|o| o.fields().map(|f| f.number()).collect::<Vec<_>>())
    };
    a.name() == b.name()
        && a.cardinality() == b.cardinality()
        && a.is_group() == b.is_group()
        && a.supports_presence() == b.supports_presence()
        && oneof(a) == oneof(b)
        && match (a.kind(), b.kind()) {
            (Kind::Message(x), Kind::Message(y)) => type_digest(&x) == type_digest(&y),
            (Kind::Enum(x), Kind::Enum(y)) => {
                let values = |e: &prost_reflect::EnumDescriptor| {
                    e.values()
                        .map(|v| (v.name().to_string(), v.number()))
                        .collect::<Vec<_>>()
                };
                x.full_name() == y.full_name() && values(&x) == values(&y)
            }
            (x, y) => x == y,
        }
}

/// A message type's descriptor and those of the types its fields name, transitively.
fn type_digest(message: &MessageDescriptor) -> [u8; 32] {
    let mut h = Sha256::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut stack = vec![message.clone()];
    while let Some(m) = stack.pop() {
        if !seen.insert(m.full_name().to_string()) {
            continue;
        }
        h.update(m.full_name().as_bytes());
        h.update([0]);
        h.update(m.descriptor_proto().encode_to_vec());
        for f in m.fields() {
            match f.kind() {
                Kind::Message(t) => stack.push(t),
                Kind::Enum(e) if seen.insert(e.full_name().to_string()) => {
                    h.update(e.full_name().as_bytes());
                    h.update([0]);
                    h.update(e.enum_descriptor_proto().encode_to_vec());
                }
                _ => {}
            }
        }
    }
    h.finalize().into()
}
