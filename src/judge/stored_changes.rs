//! Change lists kept between runs: a warm `log` over a history spent half its time judging
//! the adjacent pairs again, and a transitive policy its first violations, though nothing
//! in either pair had changed since the last run.
//!
//! One entry of the on-disk store (`schema::store`, kind `Changes`) per pair, scope, set of
//! ignores and detail (with comments, or verdicts only). Its key covers everything a pair's
//! list is a function of: this build of protolapse (its rules and messages), the scope and
//! the ignores, and per side its name (a change not judged names the version), its
//! fingerprint (the content), its failed files, whether its inline directives are read, and
//! its docs, file by file: what each file's docs were read from (build, compiler, path and
//! blob), or where that is not known, a digest of every location and comment. The store checks
//! each entry whole (a corrupt or foreign one is dropped and judged again), writes it
//! atomically and bounds its size.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::rules::{Bump, Change, Directions, RuleId, Source, Verdict};
use crate::schema::model::FileDocs;
use crate::schema::store::{self, Kind, Store};

use super::stored::{entry_key, severity, severity_byte};
use super::{Ignores, Scope, Side};

/// Change lists this process read from the store, and judged and stored (for `bench`).
static READ: AtomicU64 = AtomicU64::new(0);
static STORED: AtomicU64 = AtomicU64::new(0);

/// (read from the store, judged and stored) change lists so far in this process.
pub fn counts() -> (u64, u64) {
    (READ.load(Ordering::Relaxed), STORED.load(Ordering::Relaxed))
}

/// Which list of a pair's changes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum List {
    /// Every change, comments compared (`judge`).
    Full = 0,
    /// Without COMMENT_CHANGED.
    Verdicts = 1,
    /// What a policy's first violation can be (`summary::firsts`).
    Firsts = 2,
}

/// The change lists of one history's comparer: one scope, one set of ignores.
pub(super) struct StoredChanges {
    store: Arc<Store>,
    /// The build, the scope and the ignores.
    base: [u8; 32],
    /// Each version's side key, computed when first needed.
    sides: Vec<OnceLock<[u8; 32]>>,
    /// Digests of the docs of one file, by the address of the shared map.
    docs: Mutex<HashMap<usize, [u8; 32]>>,
}

impl StoredChanges {
    /// The stored lists of this scope and these ignores over `versions` versions; None when
    /// the store is off.
    pub(super) fn open(scope: &Scope, ignores: &Ignores, versions: usize) -> Option<Self> {
        let store = store::global()?;
        Some(StoredChanges {
            store,
            base: entry_key("pair changes", scope, ignores),
            sides: (0..versions).map(|_| OnceLock::new()).collect(),
            docs: Mutex::new(HashMap::new()),
        })
    }

    /// The key of the list of `old` -> `new`.
    /// `placed`: each side's [`placement`](super::stored::placement), which the comparer
    /// keeps per version.
    pub(super) fn key(
        &self,
        list: List,
        old: &Side<'_>,
        new: &Side<'_>,
        placed: [[u8; 32]; 2],
    ) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.base);
        h.update([list as u8]);
        h.update(self.side(old, placed[0]));
        h.update(self.side(new, placed[1]));
        h.finalize().into()
    }

    /// What a side's list depends on (see the module's doc), once per version.
    fn side(&self, s: &Side<'_>, placed: [u8; 32]) -> [u8; 32] {
        let compute = || {
            let mut h = Sha256::new();
            text(&mut h, s.version.name());
            text(&mut h, &s.schema.fingerprint);
            h.update(placed);
            text(&mut h, if s.directives { "directives" } else { "" });
            for f in s.version.failed_files.iter() {
                text(&mut h, f);
            }
            text(&mut h, "\0docs");
            for (file, docs) in &s.schema.docs {
                text(&mut h, file);
                h.update(self.docs_digest(docs));
            }
            h.finalize().into()
        };
        match self.sides.get(s.version.id.index()) {
            Some(cell) => *cell.get_or_init(compute),
            None => compute(),
        }
    }

    /// What one file's docs are: their source when they have one (what they were read
    /// from, see [`FileDocs::source`]); else SHA-256 over every element's file, line and
    /// comments.
    fn docs_digest(&self, docs: &Arc<FileDocs>) -> [u8; 32] {
        if let Some(source) = docs.source() {
            return source;
        }
        let at = Arc::as_ptr(docs) as usize;
        if let Some(d) = lock(&self.docs).get(&at) {
            return *d;
        }
        let mut h = Sha256::new();
        for (element, doc) in docs.iter() {
            text(&mut h, element);
            text(&mut h, &doc.file);
            text(&mut h, &doc.comment);
            text(&mut h, &doc.trailing);
            h.update(doc.line.to_le_bytes());
        }
        let d: [u8; 32] = h.finalize().into();
        // The map lives as long as the versions this comparer borrows: its address is not
        // reused while the memo lives.
        lock(&self.docs).insert(at, d);
        d
    }

    pub(super) fn get(&self, key: &[u8; 32]) -> Option<Vec<Change>> {
        let bytes = self.store.get(Kind::Changes, key)?;
        let changes = decode(&bytes)?;
        READ.fetch_add(1, Ordering::Relaxed);
        Some(changes)
    }

    pub(super) fn put(&self, key: &[u8; 32], changes: &[Change]) {
        if let Some(bytes) = encode(changes) {
            self.store.put(Kind::Changes, key, bytes);
            STORED.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A text into a digest, length first (no two sequences of texts hash alike).
fn text(h: &mut Sha256, t: &str) {
    h.update((t.len() as u64).to_le_bytes());
    h.update(t.as_bytes());
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A change as it is written: borrowed, laid out exactly as [`Row`] is read.
#[derive(Serialize)]
struct RowRef<'a> {
    rule: u16,
    element: &'a str,
    number: Option<i64>,
    old: Option<&'a str>,
    new: Option<&'a str>,
    old_location: Option<&'a str>,
    new_location: Option<&'a str>,
    /// Wire backward and forward, json backward and forward, source, bump.
    verdict: [u8; 6],
    message: &'a str,
    ignored: Option<&'a str>,
    not_judged: bool,
}

/// A change as it is read.
#[derive(Deserialize)]
struct Row {
    rule: u16,
    element: String,
    number: Option<i64>,
    old: Option<String>,
    new: Option<String>,
    old_location: Option<String>,
    new_location: Option<String>,
    verdict: [u8; 6],
    message: String,
    ignored: Option<String>,
    not_judged: bool,
}

fn encode(changes: &[Change]) -> Option<Vec<u8>> {
    let rows: Vec<RowRef<'_>> = changes
        .iter()
        .map(|c| {
            Some(RowRef {
                rule: u16::try_from(RuleId::ALL.iter().position(|r| *r == c.rule)?).ok()?,
                element: &c.element,
                number: c.number,
                old: c.old.as_deref(),
                new: c.new.as_deref(),
                old_location: c.old_location.as_deref(),
                new_location: c.new_location.as_deref(),
                verdict: [
                    severity_byte(c.verdict.wire.backward),
                    severity_byte(c.verdict.wire.forward),
                    severity_byte(c.verdict.json.backward),
                    severity_byte(c.verdict.json.forward),
                    match c.verdict.source {
                        Source::Safe => 0,
                        Source::Breaking => 1,
                    },
                    match c.bump {
                        Bump::None => 0,
                        Bump::Patch => 1,
                        Bump::Minor => 2,
                        Bump::Major => 3,
                    },
                ],
                message: &c.message,
                ignored: c.ignored.as_deref(),
                not_judged: c.not_judged,
            })
        })
        .collect::<Option<_>>()?;
    postcard::to_stdvec(&rows).ok()
}

/// The changes of a payload; None when a row does not decode (another layout: the store
/// checked the payload's digest), so the pair is judged again.
fn decode(bytes: &[u8]) -> Option<Vec<Change>> {
    let rows: Vec<Row> = postcard::from_bytes(bytes).ok()?;
    rows.into_iter()
        .map(|r| {
            let v = r.verdict;
            let directions = |b: u8, f: u8| {
                Some(Directions {
                    backward: severity(b)?,
                    forward: severity(f)?,
                })
            };
            Some(Change {
                rule: *RuleId::ALL.get(usize::from(r.rule))?,
                element: r.element,
                number: r.number,
                old: r.old,
                new: r.new,
                old_location: r.old_location,
                new_location: r.new_location,
                verdict: Verdict {
                    wire: directions(v[0], v[1])?,
                    json: directions(v[2], v[3])?,
                    source: match v[4] {
                        0 => Source::Safe,
                        1 => Source::Breaking,
                        _ => return None,
                    },
                },
                bump: *[Bump::None, Bump::Patch, Bump::Minor, Bump::Major]
                    .get(usize::from(v[5]))?,
                message: r.message,
                ignored: r.ignored,
                not_judged: r.not_judged,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Severity;

    fn change(rule: RuleId) -> Change {
        Change {
            rule,
            element: "pkg.M.f".into(),
            number: Some(3),
            old: Some("int32".into()),
            new: None,
            old_location: Some("a.proto:4".into()),
            new_location: None,
            verdict: Verdict {
                wire: Directions {
                    backward: Severity::Breaking,
                    forward: Severity::Lossy,
                },
                json: Directions {
                    backward: Severity::Hazard,
                    forward: Severity::Safe,
                },
                source: Source::Breaking,
            },
            bump: Bump::Major,
            message: "why".into(),
            ignored: Some("not judged: a.proto did not compile in v2".into()),
            not_judged: true,
        }
    }

    #[test]
    fn changes_read_back_as_written() {
        let all = vec![
            change(RuleId::FIELD_TYPE_CHANGED),
            change(*RuleId::ALL.last().unwrap()),
        ];
        let back = decode(&encode(&all).unwrap()).unwrap();
        assert_eq!(back, all);
        assert_eq!(back[0].not_judged, all[0].not_judged);
        assert_eq!(decode(&encode(&[]).unwrap()), Some(Vec::new()));
    }

    #[test]
    fn a_payload_of_another_layout_gives_nothing() {
        let c = change(RuleId::FIELD_TYPE_CHANGED);
        let row = |verdict: [u8; 6], rule: u16| RowRef {
            rule,
            element: &c.element,
            number: None,
            old: None,
            new: None,
            old_location: None,
            new_location: None,
            verdict,
            message: "",
            ignored: None,
            not_judged: false,
        };
        let sound = postcard::to_stdvec(&vec![row([0, 0, 0, 0, 0, 0], 0)]).unwrap();
        assert!(decode(&sound).is_some());
        for bad in [
            row([0, 0, 0, 0, 0, 9], 0),
            row([4, 0, 0, 0, 0, 0], 0),
            row([0; 6], u16::MAX),
        ] {
            assert_eq!(decode(&postcard::to_stdvec(&vec![bad]).unwrap()), None);
        }
        assert_eq!(decode(&[1, 0xff]), None);
    }
}
