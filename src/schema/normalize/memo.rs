//! Each file's declarations normalized once per distinct closure, for a whole history.
//!
//! A file's messages, enums and services follow from its descriptor and those of the files
//! it imports (transitively): the types its fields name, their features. So a file whose
//! closure is the same as in a set normalized before — each file of it the same path, blob
//! and compiler — gives the same declarations, and they are taken from that set's. Most of
//! a history's files are the same from one tag to the next: protobuf's 70 file sets hold
//! 4,024 files.
//!
//! Two things a file's declarations read are the set's, not its closure's:
//! - an option given as an extension (a custom option) is read through every extension of
//!   the pool, and protox links two extensions of one number (the first linked reads the
//!   option): a file that sets one, or an option the pool does not know, is never taken
//!   from the memo;
//! - edition 2024's visibility (`local`) is the set's list, but it holds the names of the
//!   files in the pool only (`units::join`), and a pool declares a name once: what it says
//!   of a file's names comes from that file's own descriptor.
//!
//! An entry is a function of its key alone, so which set puts it there first changes
//! nothing, whatever the number of threads.

use std::cell::Cell;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use prost_reflect::{DescriptorPool, DynamicMessage};
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
    pub file: Option<File>,
    pub messages: Vec<Arc<Message>>,
    pub enums: Vec<Arc<Enum>>,
    pub services: Vec<Arc<Service>>,
}

impl Memo {
    /// The declarations held under `key`.
    pub(super) fn get(&self, key: &[u8; 32]) -> Option<Arc<FileDecls>> {
        let held = self.files.read().unwrap_or_else(PoisonError::into_inner);
        let found = held.get(key).cloned();
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Holds `decls` under `key`, unless an equal entry is held already (another set put it
    /// there meanwhile).
    pub(super) fn put(&self, key: [u8; 32], decls: Arc<FileDecls>) {
        let mut held = self.files.write().unwrap_or_else(PoisonError::into_inner);
        if let Entry::Vacant(v) = held.entry(key) {
            v.insert(decls);
            lock(&self.fresh).push(key);
        }
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

/// Each file's key: SHA-256 over its closure key, its origin and its edition. The closure
/// key covers its name, blob (none for the compiler's own files, fixed for a process), the
/// compiler that put it in the pool, and the closure keys of its imports in order. A pool
/// holds a file's imports before it, so one pass in pool order computes them all.
pub(super) fn keys(
    pool: &DescriptorPool,
    blobs: &HashMap<&str, &str>,
    by_protox: &HashSet<String>,
    origin: impl Fn(&str) -> Origin,
    editions: &HashMap<String, i32>,
) -> HashMap<String, [u8; 32]> {
    let mut closure: HashMap<String, [u8; 32]> = HashMap::new();
    let mut out = HashMap::new();
    for file in pool.files() {
        let name = file.name();
        let mut h = Sha256::new();
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        let blob = blobs.get(name).copied().unwrap_or_default();
        h.update((blob.len() as u64).to_le_bytes());
        h.update(blob.as_bytes());
        h.update([u8::from(by_protox.contains(name))]);
        let mut complete = true;
        for dep in file.dependencies() {
            match closure.get(dep.name()) {
                Some(k) => h.update(k),
                None => complete = false,
            }
        }
        if !complete {
            continue;
        }
        let key: [u8; 32] = h.finalize().into();
        closure.insert(name.to_string(), key);
        let mut h = Sha256::new();
        h.update(key);
        h.update([origin(name) as u8]);
        h.update(editions.get(name).copied().unwrap_or(-1).to_le_bytes());
        out.insert(name.to_string(), h.finalize().into());
    }
    out
}

thread_local! {
    /// Set when an option read while normalizing a file is an extension or unknown.
    static EXTENDED: Cell<bool> = const { Cell::new(false) };
}

/// Notes an options message (or a message inside one) that holds an extension or a field
/// the pool does not know: what it says depends on the pool's extensions.
pub(super) fn note(options: &DynamicMessage) {
    if options.extensions().next().is_some() || options.unknown_fields().next().is_some() {
        EXTENDED.with(|e| e.set(true));
    }
}

/// Runs `f`; also says whether it read an option [`note`] noted.
pub(super) fn watching<T>(f: impl FnOnce() -> T) -> (T, bool) {
    let before = EXTENDED.with(|e| e.replace(false));
    let out = f();
    let extended = EXTENDED.with(|e| e.replace(before));
    (out, extended)
}
