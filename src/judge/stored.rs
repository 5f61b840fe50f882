//! Pair summaries kept between runs: a transitive policy over a history compares every pair
//! of distinct schemas (about 1,500 for protobuf's 384 tags, most of ten seconds), and the
//! next run over the same history — or over the history with one more tag — asks for the
//! same pairs again.
//!
//! One entry of the on-disk store (`schema::store`, kind `Summaries`) per scope and set of
//! ignores holds the summaries by pair. A pair's key covers what its summary is a function
//! of: each side's compiled contents (its fingerprint, SHA-256 over the normalized
//! descriptors of every file of its pool) and the files that failed to compile on that
//! side; the entry's key covers this build of protolapse (its rules), the scope and the
//! ignores. A side whose comments hold inline directives is never stored (its summary
//! depends on the comments, which the fingerprint leaves out). The store checks each entry
//! whole (a corrupt or foreign one is dropped and recomputed), and writes it atomically.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};

use crate::rules::Severity;
use crate::schema::store::{self, Kind, Store};

use super::{Ignores, PairSummary, Scope};

/// A pair's key: SHA-256 over both sides' identities.
pub(super) type PairKey = [u8; 32];

/// At most this many summaries per entry (67 bytes each: 13 MiB); past it, a run keeps the
/// ones it used.
const MAX_SUMMARIES: usize = 200_000;
const RECORD: usize = 32 + 6 + 6 * 4 + 1 + 4;

/// Pair summaries this process read from the store, and computed and kept (for `bench`).
static READ: AtomicU64 = AtomicU64::new(0);
static COMPUTED: AtomicU64 = AtomicU64::new(0);

/// (read from the store, computed and kept) pair summaries so far in this process.
pub fn counts() -> (u64, u64) {
    (
        READ.load(Ordering::Relaxed),
        COMPUTED.load(Ordering::Relaxed),
    )
}

/// The summaries of one scope and set of ignores, read once when first asked.
pub(super) struct Stored {
    store: Arc<Store>,
    key: [u8; 32],
    read: OnceLock<HashMap<PairKey, PairSummary>>,
    /// Summaries found or computed in this run (the entry to write, when some are new).
    used: Mutex<HashMap<PairKey, PairSummary>>,
    /// Some summary was computed in this run, not read.
    added: AtomicBool,
}

impl Stored {
    /// The stored summaries of this scope and these ignores; None when the store is off.
    pub(super) fn open(scope: &Scope, ignores: &Ignores) -> Option<Stored> {
        let store = store::global()?;
        Some(Stored {
            store,
            key: entry_key("pair summaries", scope, ignores),
            read: OnceLock::new(),
            used: Mutex::new(HashMap::new()),
            added: AtomicBool::new(false),
        })
    }

    /// The key of a pair: each side by its fingerprint, its failed files and where its
    /// files came from ([`placement`]: the fingerprint covers descriptors only).
    pub(super) fn pair_key(sides: [(&str, &BTreeSet<String>, [u8; 32]); 2]) -> PairKey {
        let mut h = Sha256::new();
        for (fingerprint, failed, placed) in sides {
            h.update((fingerprint.len() as u64).to_le_bytes());
            h.update(fingerprint.as_bytes());
            h.update((failed.len() as u64).to_le_bytes());
            for f in failed {
                h.update((f.len() as u64).to_le_bytes());
                h.update(f.as_bytes());
            }
            h.update(placed);
        }
        h.finalize().into()
    }

    pub(super) fn get(&self, key: &PairKey) -> Option<PairSummary> {
        let read = self.read.get_or_init(|| {
            self.store
                .get(Kind::Summaries, &self.key)
                .map(|bytes| decode(&bytes))
                .unwrap_or_default()
        });
        let s = *read.get(key)?;
        READ.fetch_add(1, Ordering::Relaxed);
        lock(&self.used).insert(*key, s);
        Some(s)
    }

    pub(super) fn put(&self, key: PairKey, s: PairSummary) {
        lock(&self.used).insert(key, s);
        self.added.store(true, Ordering::Relaxed);
        COMPUTED.fetch_add(1, Ordering::Relaxed);
    }

    /// Writes the entry when this run computed summaries it did not hold: what it read and
    /// what it added (only what it used, past [`MAX_SUMMARIES`]).
    pub(super) fn save(&self) {
        if !self.added.load(Ordering::Relaxed) {
            return;
        }
        let used = std::mem::take(&mut *lock(&self.used));
        let mut all: Vec<(PairKey, PairSummary)> = match self.read.get() {
            Some(read) if read.len() + used.len() <= MAX_SUMMARIES => read
                .iter()
                .filter(|(k, _)| !used.contains_key(*k))
                .map(|(k, s)| (*k, *s))
                .collect(),
            _ => Vec::new(),
        };
        all.extend(used);
        all.truncate(MAX_SUMMARIES);
        // In key order: the same summaries always make the same bytes.
        all.sort_unstable_by_key(|(k, _)| *k);
        self.store.put(Kind::Summaries, &self.key, encode(&all));
    }
}

/// Where each file of a content came from (its origin, and whether it is judged): what
/// decides which declarations a pair judges, and which the fingerprint leaves out (a file
/// found under a proto root in one run and in the tree outside the roots in another).
pub(super) fn placement(content: &crate::schema::model::Content) -> [u8; 32] {
    let mut h = Sha256::new();
    for (name, f) in &content.files {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update(format!("{:?}\0{}", f.origin, f.external).as_bytes());
    }
    h.finalize().into()
}

/// The key of what the judge keeps of one scope and set of ignores (`what`: which list),
/// under this build's identity.
pub(super) fn entry_key(what: &str, scope: &Scope, ignores: &Ignores) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(what.as_bytes());
    h.update([0]);
    h.update(store::build_id());
    h.update(format!("{scope:?}\0{:?}", ignores.rules).as_bytes());
    h.finalize().into()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn severity(b: u8) -> Option<Severity> {
    [
        Severity::Safe,
        Severity::Hazard,
        Severity::Lossy,
        Severity::Breaking,
    ]
    .get(usize::from(b))
    .copied()
}

pub(super) fn severity_byte(s: Severity) -> u8 {
    match s {
        Severity::Safe => 0,
        Severity::Hazard => 1,
        Severity::Lossy => 2,
        Severity::Breaking => 3,
    }
}

fn encode(all: &[(PairKey, PairSummary)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(all.len() * RECORD);
    for (k, s) in all {
        out.extend_from_slice(k);
        for level in &s.worst {
            out.extend(level.iter().map(|&x| severity_byte(x)));
        }
        for level in &s.warnings {
            for w in level {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        out.push(u8::from(s.changed));
        out.extend_from_slice(&s.not_judged.to_le_bytes());
    }
    out
}

/// The summaries of an entry's payload; a record that does not decode ends the reading (the
/// store checked the payload's digest, so that is another layout, never trusted).
fn decode(bytes: &[u8]) -> HashMap<PairKey, PairSummary> {
    let mut out = HashMap::with_capacity(bytes.len() / RECORD);
    if !bytes.len().is_multiple_of(RECORD) {
        return out;
    }
    for r in bytes.chunks_exact(RECORD) {
        let Some(pair) = record(r) else {
            return HashMap::new();
        };
        out.insert(pair.0, pair.1);
    }
    out
}

fn record(r: &[u8]) -> Option<(PairKey, PairSummary)> {
    let (key, rest) = r.split_first_chunk::<32>()?;
    let (worst, rest) = rest.split_first_chunk::<6>()?;
    let mut s = PairSummary::default();
    for (i, b) in worst.iter().enumerate() {
        s.worst[i / 2][i % 2] = severity(*b)?;
    }
    let mut rest = rest;
    for i in 0..6 {
        let (w, r) = rest.split_first_chunk::<4>()?;
        s.warnings[i / 2][i % 2] = u32::from_le_bytes(*w);
        rest = r;
    }
    let (changed, rest) = rest.split_first()?;
    s.changed = match changed {
        0 => false,
        1 => true,
        _ => return None,
    };
    let (n, _) = rest.split_first_chunk::<4>()?;
    s.not_judged = u32::from_le_bytes(*n);
    Some((*key, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_read_back_as_written() {
        let mut s = PairSummary::default();
        s.worst[1][0] = Severity::Breaking;
        s.worst[2][1] = Severity::Lossy;
        s.warnings[0][1] = 7;
        s.warnings[2][0] = 70_000;
        s.changed = true;
        s.not_judged = 3;
        let all = vec![([1; 32], s), ([2; 32], PairSummary::default())];
        let back = decode(&encode(&all));
        assert_eq!(back.len(), 2);
        assert_eq!(back[&[1; 32]], s);
        assert_eq!(back[&[2; 32]], PairSummary::default());
    }

    #[test]
    fn a_payload_of_another_layout_gives_nothing() {
        let all = vec![([1; 32], PairSummary::default())];
        let mut bytes = encode(&all);
        bytes.push(0);
        assert!(decode(&bytes).is_empty());
        let mut bytes = encode(&all);
        bytes[32] = 9; // no such severity
        assert!(decode(&bytes).is_empty());
    }

    #[test]
    fn failed_files_are_part_of_a_side() {
        let none = BTreeSet::new();
        let one = BTreeSet::from(["a.proto".to_string()]);
        assert_ne!(
            Stored::pair_key([("f1", &none, [0; 32]), ("f2", &none, [0; 32])]),
            Stored::pair_key([("f1", &one, [0; 32]), ("f2", &none, [0; 32])])
        );
        assert_ne!(
            Stored::pair_key([("f1", &none, [0; 32]), ("f2", &none, [0; 32])]),
            Stored::pair_key([("f2", &none, [0; 32]), ("f1", &none, [0; 32])])
        );
    }
}
