//! [`Units`]: the summaries of many pairs of schemas, added up unit by unit (see
//! `rules::units`), each unit's findings kept by the addresses of its two declarations.
//!
//! Versions share every declaration that did not change, so the hundreds of pairs a
//! transitive policy judges are made of far fewer pairs of declarations: a declaration with
//! four variants over a history meets its other variants in at most sixteen units, whichever
//! two versions hold them. A unit finds the same wherever its two declarations meet and the
//! names its rules looked up (a retyped field's types, a renamed message's shape) find the
//! same declarations: it is judged once per such context, at most [`VARIANTS`] of them.
//!
//! This is the summary [`super::judge`] would give, without locating, sorting or writing
//! the changes out, for a comparer with no ignores and sides without inline directives (the
//! caller keeps the full path for those): a change counts unless it is located in a file that
//! failed to compile on either side, or the root's own file did not compile on one side.
//! Tests compare the two over real histories (`tests/it/summaries.rs`).

use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt};
use std::sync::{Arc, Mutex, OnceLock};

use crate::diff::{Index, Pairing, Reach, pair_from_root, pair_indexed, pair_reached};
use crate::load::Loaded;
use crate::rules::units::{Unit, UnitKey, units};
use crate::rules::{self, Change, Finding, Verdict};
use crate::schema::Schema;
use crate::schema::model::reads::{Read, Types};

use super::summary::PairSummary;
use super::{Scope, Side, names_its_file, root_failed};

/// Locks over the kept units, apart so that the threads judging pairs seldom wait.
const SHARDS: usize = 16;

/// The findings of one unit: whole (for a pair's list of changes), and as a summary counts
/// them.
struct Kept {
    findings: Vec<Finding>,
    /// Per finding, in the same order: its verdict, where it is (on which sides) and, when
    /// some file failed to compile somewhere in the history, the element it is on.
    items: Vec<Item>,
    /// All of them counted (no file failed on either side).
    sum: PairSummary,
}

struct Item {
    verdict: Verdict,
    /// The element's number among the names of [`Units`], and its parent's (0 and None
    /// when no file failed anywhere: nothing is then located).
    name: u32,
    parent: Option<u32>,
    old: bool,
    new: bool,
    /// A rule on a file, whose element is the file itself.
    file_rule: bool,
}

/// One unit's findings, with the look-ups by name they depend on beyond its declarations
/// (none for most: see `rules::units`).
struct Variant {
    /// Each look-up, in the old schema (true) or the new one.
    reads: Vec<(bool, Read)>,
    kept: Arc<Kept>,
}

/// The variants kept of one unit, at most: a unit read in many contexts (a message whose
/// fields' types are redefined in every version) costs a bounded memory.
const VARIANTS: usize = 8;

impl Variant {
    /// Whether the look-ups find the same declarations in `p`.
    fn holds(&self, p: &Pairing<'_>) -> bool {
        self.reads
            .iter()
            .all(|(old, r)| Types::of(if *old { p.old } else { p.new }).finds_again(r))
    }

    /// The look-ups made judging a unit of `p`, by side; None if one was made elsewhere.
    fn reads(reads: Vec<Read>, p: &Pairing<'_>) -> Option<Vec<(bool, Read)>> {
        let (old, new) = (address(p.old), address(p.new));
        reads
            .into_iter()
            .map(|r| match r.content {
                c if c == old => Some((true, r)),
                c if c == new => Some((false, r)),
                _ => None,
            })
            .collect()
    }
}

fn address<T>(x: &T) -> usize {
    std::ptr::from_ref(x) as usize
}

/// Where an element is located in one version, when that can be a file failing somewhere.
#[derive(Clone, Copy)]
enum Place {
    /// In failing file number `i`.
    Failing(u32),
    /// Documented in a failing file, but its doc is found in another.
    Elsewhere,
    /// Documented in a failing file, but its doc is not found by name: its parent's counts.
    Unfound,
}

/// Per version, where the elements documented in a file that failed in some version are
/// located (the file of [`crate::rules::located`]'s doc): a change is not judged only when
/// located in such a file.
type Located = HashMap<u32, Place>;

/// A set of failing files, by number.
type Files = Vec<u64>;

pub(super) struct Units<'p> {
    kept: [Mutex<HashMap<UnitKey, Vec<Variant>>>; SHARDS],
    /// Files that failed to compile in some version of the history, in order: numbered by
    /// their place.
    failing: Vec<&'p str>,
    /// Per version, the failing files that failed in it.
    failed_in: Vec<Files>,
    located: Vec<OnceLock<Located>>,
    /// The elements located, numbered (a number hashes and compares at once, where a name
    /// is read whole).
    names: Mutex<HashMap<Box<str>, u32>>,
    /// Per version, its declarations listed for pairing.
    index: Vec<OnceLock<Index<'p>>>,
    /// Per version, the first version with the same compiled schema: what is worked out per
    /// schema (its listing, what it reaches, where its elements are) is kept in its slot.
    slot: Vec<usize>,
    /// The root of the comparer's scope, if it has one.
    root: Option<String>,
    /// Per version, what it reaches from the root.
    reach: Vec<OnceLock<Reach<'p>>>,
    /// The structural comparisons of retyped fields, kept for the units judged later.
    comparisons: Arc<rules::Comparisons>,
}

impl<'p> Units<'p> {
    pub fn new(versions: &'p [Loaded], scope: &Scope) -> Units<'p> {
        let failing: Vec<&str> = versions
            .iter()
            .flat_map(|v| v.failed_files.iter().map(String::as_str))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let failed_in = versions
            .iter()
            .map(|v| {
                let mut set = vec![0; failing.len().div_ceil(64)];
                for f in v.failed_files.iter() {
                    if let Ok(i) = failing.binary_search(&f.as_str()) {
                        set[i / 64] |= 1 << (i % 64);
                    }
                }
                set
            })
            .collect();
        Units {
            kept: std::array::from_fn(|_| Mutex::new(HashMap::new())),
            failing,
            failed_in,
            located: versions.iter().map(|_| OnceLock::new()).collect(),
            names: Mutex::new(HashMap::new()),
            index: versions.iter().map(|_| OnceLock::new()).collect(),
            slot: {
                let mut first = HashMap::new();
                versions
                    .iter()
                    .map(|v| {
                        *first
                            .entry(Arc::as_ptr(&v.compiled) as usize)
                            .or_insert(v.id.index())
                    })
                    .collect()
            },
            root: scope.root().map(str::to_string),
            reach: versions.iter().map(|_| OnceLock::new()).collect(),
            comparisons: Arc::default(),
        }
    }

    /// The summary of `old` -> `new` in `scope`.
    pub fn summary(&self, old: &Side<'p>, new: &Side<'p>, scope: &Scope) -> PairSummary {
        let (a, b) = (old.schema, new.schema);
        let mut s = PairSummary::default();
        if std::ptr::eq(a, b) {
            return s;
        }
        let Some(pairing) = self.pairing(old, new, scope) else {
            return s;
        };
        let everything =
            root_failed(new, old, scope).is_some() || root_failed(old, new, scope).is_some();
        // The files failed on either side.
        let failed: Files = match (self.failed_in.get(old.id()), self.failed_in.get(new.id())) {
            (Some(a), Some(b)) => a.iter().zip(b).map(|(x, y)| x | y).collect(),
            _ => Vec::new(),
        };
        let any_failed = failed.iter().any(|w| *w != 0);
        for unit in units(&pairing) {
            let kept = self.kept(unit, &pairing);
            if everything {
                s.not_judged += kept.items.len() as u32;
            } else if !any_failed {
                s.merge(&kept.sum);
            } else {
                for (item, f) in kept.items.iter().zip(&kept.findings) {
                    if self.not_judged(item, &f.element, old, new, &failed) {
                        s.not_judged += 1;
                    } else {
                        s.add(&item.verdict, true);
                    }
                }
            }
        }
        s
    }

    /// Every change of `old` -> `new` in `scope` (as `rules::check`, comments compared or
    /// not), each unit's findings kept or judged now and kept.
    pub fn check(
        &self,
        old: &Side<'p>,
        new: &Side<'p>,
        scope: &Scope,
        comments: bool,
    ) -> Vec<Change> {
        let (a, b) = (old.schema, new.schema);
        if std::ptr::eq(a, b) {
            return Vec::new();
        }
        let Some(pairing) = self.pairing(old, new, scope) else {
            return Vec::new();
        };
        rules::check_by(&pairing, a, b, comments, &|unit, out| {
            out.extend(self.kept(unit, &pairing).findings.iter().cloned());
        })
    }

    /// The pairing of two sides in `scope`; None when the root is in neither.
    fn pairing(&self, old: &Side<'p>, new: &Side<'p>, scope: &Scope) -> Option<Pairing<'p>> {
        let (a, b) = (old.schema, new.schema);
        Some(match scope {
            Scope::Whole => match (self.index(old), self.index(new)) {
                (Some(x), Some(y)) => pair_indexed(x, y),
                _ => crate::diff::pair_whole(&a.content, &b.content),
            },
            Scope::Root(r) => {
                if !scope.present_in(&a.content) && !scope.present_in(&b.content) {
                    return None;
                }
                match (self.reach(old), self.reach(new)) {
                    (Some(x), Some(y)) => pair_reached(&a.content, &b.content, r, x, y),
                    _ => pair_from_root(&a.content, &b.content, r),
                }
            }
        })
    }

    /// Where what is worked out once for `side`'s schema is kept.
    fn slot(&self, side: &Side<'p>) -> usize {
        self.slot.get(side.id()).copied().unwrap_or(side.id())
    }

    /// What version `v` reaches from the root, worked out once; None without a root or when
    /// it did not compile.
    pub fn reach_of(&self, v: &'p Loaded) -> Option<&Reach<'p>> {
        self.reach(&Side::of(v)?)
    }

    /// What `side`'s version reaches from the root, worked out once; None without a root.
    fn reach(&self, side: &Side<'p>) -> Option<&Reach<'p>> {
        let schema: &'p Schema = side.schema;
        let root = self.root.as_deref()?;
        Some(
            self.reach
                .get(self.slot(side))?
                .get_or_init(|| Reach::of(&schema.content, root)),
        )
    }

    /// The declarations of `side`'s version, listed once.
    fn index(&self, side: &Side<'p>) -> Option<&Index<'p>> {
        let schema: &'p Schema = side.schema;
        Some(
            self.index
                .get(self.slot(side))?
                .get_or_init(|| Index::of(&schema.content)),
        )
    }

    /// The unit's findings: kept ones, or judged now (and kept, with what they read beyond
    /// the unit's declarations).
    fn kept(&self, unit: Unit<'_>, pairing: &Pairing<'_>) -> Arc<Kept> {
        let key = unit.key(pairing);
        let shard = key.map(|k| (k, &self.kept[shard_of(&k)]));
        if let Some((k, m)) = shard
            && let Some(variants) = lock(m).get(&k)
            && let Some(v) = variants.iter().find(|v| v.holds(pairing))
        {
            return v.kept.clone();
        }
        let (found, reads) = rules::keeping(&self.comparisons, || unit.findings_read(pairing));
        let kept = Arc::new(self.keep(found));
        if let Some((k, m)) = shard
            && let Some(reads) = Variant::reads(reads, pairing)
        {
            let mut m = lock(m);
            let variants = m.entry(k).or_default();
            if variants.len() < VARIANTS {
                variants.push(Variant {
                    reads,
                    kept: kept.clone(),
                });
            }
        }
        kept
    }

    /// Whether a finding is located in a file of `failed`, the files that failed to compile
    /// on either side (as `judge::mark` decides for a change).
    fn not_judged(
        &self,
        item: &Item,
        element: &str,
        old: &Side<'p>,
        new: &Side<'p>,
        failed: &Files,
    ) -> bool {
        let holds = |i: usize| failed.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0);
        let file = || self.failing.binary_search(&element).ok();
        (item.file_rule && file().is_some_and(holds))
            || (item.old && self.located(old, item, element).is_some_and(holds))
            || (item.new && self.located(new, item, element).is_some_and(holds))
    }

    /// The number of the failing file `item` is located in on `side`; None for any other
    /// file, or none. As `rules::located`: the element's doc, else its parent's.
    fn located(&self, side: &Side<'p>, item: &Item, element: &str) -> Option<usize> {
        let schema: &'p Schema = side.schema;
        let at = self
            .located
            .get(self.slot(side))?
            .get_or_init(|| self.table(side));
        let parent = || match at.get(&item.parent?)? {
            Place::Failing(i) => Some(*i as usize),
            Place::Elsewhere | Place::Unfound => None,
        };
        match at.get(&item.name) {
            Some(Place::Failing(i)) => Some(*i as usize),
            Some(Place::Elsewhere) => None,
            Some(Place::Unfound) => parent(),
            // Its doc, if any, is in a file that never failed: its parent's counts only when
            // it has none.
            None => parent().filter(|_| schema.doc(element).is_none()),
        }
    }

    /// [`Located`] for one side. In a root's scope, over the files that declare what it
    /// reaches only: a change there is on what the root reaches, whose docs are found in
    /// the files that declare it (its extensions' included).
    fn table(&self, side: &Side<'p>) -> Located {
        let schema: &'p Schema = side.schema;
        let reached: Option<BTreeSet<&str>> = self.reach(side).map(|r| r.files().collect());
        let mut places = Vec::new();
        let failing = self.failing.iter();
        for f in failing.filter(|f| reached.as_ref().is_none_or(|r| r.contains(**f))) {
            for e in schema.docs.get(*f).into_iter().flat_map(|d| d.keys()) {
                let place = match schema.doc(e) {
                    None => Place::Unfound,
                    Some(d) => match self.failing.binary_search(&&*d.file) {
                        Ok(i) => Place::Failing(i as u32),
                        Err(_) => Place::Elsewhere,
                    },
                };
                places.push((e.as_str(), place));
            }
        }
        let mut names = lock(&self.names);
        places
            .into_iter()
            .map(|(e, place)| (number(&mut names, e), place))
            .collect()
    }

    /// A unit's findings, as a summary counts them.
    fn keep(&self, found: Vec<Finding>) -> Kept {
        let located = !self.failing.is_empty();
        let mut names = located.then(|| lock(&self.names));
        let mut sum = PairSummary::default();
        let items = found
            .iter()
            .map(|f| {
                sum.add(&f.verdict, true);
                let (name, parent) = match &mut names {
                    Some(names) => (
                        number(names, &f.element),
                        f.element.rsplit_once('.').map(|(p, _)| number(names, p)),
                    ),
                    None => (0, None),
                };
                Item {
                    verdict: f.verdict,
                    name,
                    parent,
                    old: f.old.is_some(),
                    new: f.new.is_some(),
                    file_rule: names_its_file(f.rule),
                }
            })
            .collect();
        Kept {
            findings: found,
            items,
            sum,
        }
    }
}

/// The number of `name` in `names`, given it the first time.
fn number(names: &mut HashMap<Box<str>, u32>, name: &str) -> u32 {
    if let Some(n) = names.get(name) {
        return *n;
    }
    let n = names.len() as u32;
    names.insert(name.into(), n);
    n
}

fn shard_of(k: &UnitKey) -> usize {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().hash_one(k) as usize % SHARDS
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic in another thread cannot leave the map half-written: inserts are whole.
    m.lock().unwrap_or_else(|e| e.into_inner())
}
