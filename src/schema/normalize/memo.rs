//! Each file's declarations normalized once per distinct closure, for a whole history.
//!
//! A file's messages, enums and services follow from its descriptor and those of the files
//! it imports (transitively): the types its fields name, their features. So a file whose
//! closure is the same as in a set normalized before — each file of it the same path, blob
//! and compiler — gives the same declarations, and they are taken from that set's. Most of
//! a history's files are the same from one tag to the next: protobuf's 70 file sets hold
//! 4,024 files.
//!
//! Three things a file's declarations read are the set's, not its closure's:
//! - its options are read through the options messages of the set's `descriptor.proto`
//!   (a repository may hold its own, and change it at every tag), whether or not the file
//!   imports it: an entry keeps which option fields its file read and what its set's
//!   messages said of them (name and type), and is taken only by a set whose say the same;
//! - an option given as an extension (a custom option) is read through every extension of
//!   the pool, and protox links two extensions of one number (the first linked reads the
//!   option): a file that sets one, or an option the pool does not know, is never taken
//!   from the memo;
//! - edition 2024's visibility (`local`) is the set's list, but it holds the names of the
//!   files in the pool only (`units::join`), and a pool declares a name once: what it says
//!   of a file's names comes from that file's own descriptor.
//!
//! An entry taken is a function of its key and of the option fields it read, so which
//! set put it there changes nothing, whatever the number of threads.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, Kind, MessageDescriptor};
use sha2::{Digest, Sha256};

use super::super::fingerprint;
use super::super::model::{Enum, File, Message, Origin, Service};

/// What normalizing remembers for a whole history: each file's declarations by its key, and
/// each file's fingerprint digest.
#[derive(Default)]
pub struct Memo {
    pub(super) digests: fingerprint::Memo,
    files: RwLock<HashMap<[u8; 32], Arc<FileDecls>>>,
    /// The keys held since the last [`Memo::settle`].
    fresh: Mutex<Vec<[u8; 32]>>,
    hits: AtomicUsize,
    misses: AtomicUsize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One file's declarations, as normalized.
#[derive(Default)]
pub(in crate::schema) struct FileDecls {
    /// The option fields its normalizing read, and what its set's options messages said
    /// of them.
    pub(super) reads: Reads,
    pub(super) read_through: [u8; 32],
    pub file: Option<File>,
    pub messages: Vec<Arc<Message>>,
    pub enums: Vec<Arc<Enum>>,
    pub services: Vec<Arc<Service>>,
}

impl Memo {
    /// The declarations held under `key`, if the set's options messages say of the option
    /// fields they read what theirs said.
    pub(super) fn get(&self, key: &[u8; 32], types: &OptionFields<'_>) -> Option<Arc<FileDecls>> {
        let held = self.files.read().unwrap_or_else(PoisonError::into_inner);
        let found = held
            .get(key)
            .filter(|d| types.of(&d.reads.fields) == d.read_through)
            .cloned();
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Holds `decls` (which read `reads`, through the set's `types`) under `key`, in place
    /// of an entry whose options messages said otherwise (the newest are the likeliest to
    /// come again); never one that read an extension. Returns them, shared.
    pub(super) fn put(
        &self,
        key: Option<&[u8; 32]>,
        mut decls: FileDecls,
        reads: Reads,
        types: &OptionFields<'_>,
    ) -> Arc<FileDecls> {
        decls.read_through = types.of(&reads.fields);
        let extended = reads.extended;
        decls.reads = reads;
        let decls = Arc::new(decls);
        let Some(key) = key.filter(|_| !extended) else {
            return decls;
        };
        let mut held = self.files.write().unwrap_or_else(PoisonError::into_inner);
        let stale = match held.get(key) {
            Some(d) => d.read_through != decls.read_through,
            None => true,
        };
        if stale {
            held.insert(*key, decls.clone());
            lock(&self.fresh).push(*key);
        }
        decls
    }

    /// Hands each entry held since the last call to `share`, which replaces each of its
    /// declarations by the equal one the history holds: the sets that made the entries
    /// shared theirs (`compile::shared`), and the copies they replaced would otherwise live
    /// on here.
    pub(in crate::schema) fn settle(&self, mut share: impl FnMut(&mut FileDecls)) {
        let fresh = std::mem::take(&mut *lock(&self.fresh));
        let mut held = self.files.write().unwrap_or_else(PoisonError::into_inner);
        for key in fresh {
            if let Some(decls) = held.get_mut(&key).and_then(Arc::get_mut) {
                share(decls);
            }
        }
    }

    /// Files whose declarations were taken from an earlier set, and files normalized.
    pub(in crate::schema) fn counts(&self) -> (usize, usize) {
        let hits = self.hits.load(Ordering::Relaxed);
        (hits, hits + self.misses.load(Ordering::Relaxed))
    }
}

/// The messages options are read through: the pool's own when it has them (a repository's
/// own `descriptor.proto`), else prost-reflect's (fixed for a build). A file that does not
/// import `descriptor.proto` still reads its options through the one its set holds: an
/// option's name, and what its value says (an enum value's name), come from there.
const OPTIONS: [&str; 8] = [
    "google.protobuf.FileOptions",
    "google.protobuf.MessageOptions",
    "google.protobuf.FieldOptions",
    "google.protobuf.OneofOptions",
    "google.protobuf.EnumOptions",
    "google.protobuf.EnumValueOptions",
    "google.protobuf.ServiceOptions",
    "google.protobuf.MethodOptions",
];

/// What a set's options messages say of the option fields files read: for each field, its
/// name, cardinality and type (an enum's values, a message's fields, transitively), by
/// (which of [`OPTIONS`], number); computed once per field a set asks for.
pub(super) struct OptionFields<'p> {
    pool: &'p DescriptorPool,
    digests: RefCell<HashMap<(u8, u32), [u8; 32]>>,
}

impl<'p> OptionFields<'p> {
    pub(super) fn new(pool: &'p DescriptorPool) -> Self {
        OptionFields {
            pool,
            digests: RefCell::default(),
        }
    }

    /// SHA-256 over what the set says of each of `fields`.
    fn of(&self, fields: &[(u8, u32)]) -> [u8; 32] {
        let mut h = Sha256::new();
        let mut digests = self.digests.borrow_mut();
        for &(i, number) in fields {
            let d = digests
                .entry((i, number))
                .or_insert_with(|| self.field(i, number));
            h.update([i]);
            h.update(number.to_le_bytes());
            h.update(*d);
        }
        h.finalize().into()
    }

    fn field(&self, i: u8, number: u32) -> [u8; 32] {
        let name = OPTIONS.get(usize::from(i)).copied().unwrap_or_default();
        let message = self
            .pool
            .get_message_by_name(name)
            .or_else(|| DescriptorPool::global().get_message_by_name(name));
        let Some(field) = message.and_then(|m| m.get_field(number)) else {
            return [0; 32];
        };
        let mut h = Sha256::new();
        h.update(field.name().as_bytes());
        h.update([0, field.cardinality() as u8, u8::from(field.is_group())]);
        match field.kind() {
            Kind::Message(m) => h.update(type_digest(&m)),
            Kind::Enum(e) => {
                h.update(e.full_name().as_bytes());
                h.update([0]);
                h.update(e.enum_descriptor_proto().encode_to_vec());
            }
            scalar => h.update(format!("{scalar:?}").as_bytes()),
        }
        h.finalize().into()
    }
}

/// A message type's descriptor and those of the types its fields name, transitively.
fn type_digest(message: &MessageDescriptor) -> [u8; 32] {
    let mut h = Sha256::new();
    let mut seen: HashSet<String> = HashSet::new();
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

/// Each file's key: SHA-256 over its closure key (`fingerprint::closure_keys`), its origin
/// and its edition.
pub(super) fn keys(
    closure: &HashMap<String, [u8; 32]>,
    origin: impl Fn(&str) -> Origin,
    editions: &HashMap<String, i32>,
) -> HashMap<String, [u8; 32]> {
    closure
        .iter()
        .map(|(name, key)| {
            let mut h = Sha256::new();
            h.update(key);
            h.update([origin(name) as u8]);
            h.update(editions.get(name).copied().unwrap_or(-1).to_le_bytes());
            (name.clone(), h.finalize().into())
        })
        .collect()
}

/// The option fields a file's normalizing read, as (which of [`OPTIONS`], number), sorted;
/// and whether an option it read is an extension or unknown to the pool.
#[derive(Clone, Default, PartialEq, Eq)]
pub(super) struct Reads {
    fields: Vec<(u8, u32)>,
    extended: bool,
}

thread_local! {
    /// What normalizing the current file read so far.
    static READ: RefCell<Reads> = RefCell::default();
}

/// Notes an options message (or a message inside one) read: the fields it sets, if it is one
/// of [`OPTIONS`]; whether it holds an extension or a field the pool does not know (what it
/// says then depends on the pool's extensions).
pub(super) fn note(options: &DynamicMessage) {
    let descriptor = prost_reflect::ReflectMessage::descriptor(options);
    let which = OPTIONS
        .iter()
        .position(|o| *o == descriptor.full_name())
        .and_then(|i| u8::try_from(i).ok());
    let extended =
        options.extensions().next().is_some() || options.unknown_fields().next().is_some();
    READ.with(|r| {
        let mut reads = r.borrow_mut();
        if let Some(i) = which {
            reads
                .fields
                .extend(options.fields().map(|(f, _)| (i, f.number())));
        }
        reads.extended |= extended;
    });
}

/// Runs `f`; also says what it read ([`note`]).
pub(super) fn watching<T>(f: impl FnOnce() -> T) -> (T, Reads) {
    let before = READ.with(|r| r.replace(Reads::default()));
    let out = f();
    let mut reads = READ.with(|r| r.replace(before));
    reads.fields.sort_unstable();
    reads.fields.dedup();
    (out, reads)
}
