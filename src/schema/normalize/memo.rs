//! Each file's declarations normalized once per distinct closure, for a whole history.
//!
//! A file's messages, enums and services follow from its descriptor and those of the files
//! it imports (transitively): the types its fields name, their features. So a file whose
//! closure is the same as in a set normalized before — each file of it the same path, blob
//! and compiler — gives the same declarations, and they are taken from that set's. Most of
//! a history's files are the same from one tag to the next: protobuf's 70 file sets hold
//! 4,774 files.
//!
//! Two things a file's declarations read are the set's, not its closure's:
//! - its options, read through the set's options messages and, for a custom option, every
//!   extension of the pool: a file is taken from the memo, or put there, only where its set
//!   reads its options as prost-reflect's own messages do (`canon`), which a custom option
//!   never is;
//! - edition 2024's visibility (`local`) is the set's list, but it holds the names of the
//!   files in the pool only (`units::join`), and a pool declares a name once: what it says
//!   of a file's names comes from that file's own descriptor.
//!
//! An entry is a function of its key alone, so which set puts it there first changes
//! nothing, whatever the number of threads.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

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
pub(in crate::schema) struct FileDecls {
    pub file: File,
    pub messages: Vec<Arc<Message>>,
    pub enums: Vec<Arc<Enum>>,
    pub services: Vec<Arc<Service>>,
}

impl Memo {
    /// The declarations held under `key`.
    pub(super) fn get(&self, key: &[u8; 32]) -> Option<Arc<FileDecls>> {
        let held = self.files.read().unwrap_or_else(PoisonError::into_inner);
        let found = held.get(key).cloned();
        if found.is_some() {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Holds `decls` under `key` (when there is one), unless an entry is held there already
    /// (another set put it there meanwhile); returns them, shared.
    pub(super) fn put(&self, key: Option<&[u8; 32]>, decls: FileDecls) -> Arc<FileDecls> {
        self.misses.fetch_add(1, Ordering::Relaxed);
        let decls = Arc::new(decls);
        if let Some(key) = key {
            let mut held = self.files.write().unwrap_or_else(PoisonError::into_inner);
            if let Entry::Vacant(v) = held.entry(*key) {
                v.insert(decls.clone());
                lock(&self.fresh).push(*key);
            }
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

/// A file's key: SHA-256 over its closure key (`fingerprint::closure_keys`), its origin
/// and its edition.
pub(super) fn key(closure: &[u8; 32], origin: Origin, edition: Option<i32>) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(closure);
    h.update([origin as u8]);
    h.update(edition.unwrap_or(-1).to_le_bytes());
    h.finalize().into()
}
