//! How data of one message type reads as another, compared field by field.

use std::sync::{Arc, Mutex};

use crate::diff::same_shape;
use crate::schema::model::reads::{Read, Types, recording, replay};

use super::super::Finding;
use super::super::verdict::Directions;
use super::super::verdict::Severity::{self, *};
use super::{BOTH_BREAK, message};

/// How data of one message type reads as another: the worst verdict of comparing the two
/// types field by field (recursively), whatever they are called.
#[derive(Clone)]
pub(in crate::rules) struct Structural {
    pub wire: Directions,
    pub json: Directions,
    /// One line: the same structure, or the worst difference.
    pub why: String,
}

thread_local! {
    /// Type pairs being compared, outermost first: a pair met again is assumed compatible
    /// (a cycle adds nothing new).
    static COMPARING: std::cell::RefCell<Vec<(String, String)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Structural comparisons kept while many pairs of one history's schemas are judged (see
/// `judge::units`): the same two types of the same two schemas meet in every field retyped
/// between them. Keyed by the two schemas' addresses and the types' names, each with the
/// look-ups it made (replayed into the recording of a unit that meets it again). Only the
/// outermost comparisons are kept: one inside another depends on the pairs above it.
#[derive(Default)]
pub struct Comparisons(Mutex<Kept>);

type Kept = foldhash::HashMap<(usize, usize, Box<str>, Box<str>), (Structural, Arc<[Read]>)>;

thread_local! {
    /// The comparisons kept for the judging running on this thread, if any.
    static KEEPING: std::cell::RefCell<Option<Arc<Comparisons>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` keeping its structural comparisons in `kept` (and using those kept before).
/// `kept` is only used while the schemas it has seen are alive: their addresses are its keys.
pub fn keeping<T>(kept: &Arc<Comparisons>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Arc<Comparisons>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            KEEPING.with(|k| *k.borrow_mut() = outer);
        }
    }
    let _restore = Restore(KEEPING.with(|k| k.borrow_mut().replace(kept.clone())));
    f()
}

/// Compares message `x` of `oc` with message `y` of `nc` field by field, or takes the
/// comparison kept (see [`Comparisons`]).
pub(in crate::rules) fn structural(oc: Types<'_>, x: &str, nc: Types<'_>, y: &str) -> Structural {
    let outermost = COMPARING.with(|c| c.borrow().is_empty());
    let Some(kept) = KEEPING.with(|k| k.borrow().clone()).filter(|_| outermost) else {
        return compare(oc, x, nc, y);
    };
    let key = (oc.address(), nc.address(), Box::from(x), Box::from(y));
    if let Some((s, reads)) = kept.lock().get(&key) {
        replay(reads);
        return s.clone();
    }
    let (s, reads) = recording(|| compare(oc, x, nc, y));
    kept.lock().insert(key, (s.clone(), reads.into()));
    s
}

impl Comparisons {
    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        // Inserts are whole: a panic elsewhere leaves no half-written entry.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// [`structural`], worked out.
fn compare(oc: Types<'_>, x: &str, nc: Types<'_>, y: &str) -> Structural {
    if same_shape(oc, x, nc, y) {
        return Structural {
            wire: Directions::SAFE,
            json: Directions::SAFE,
            why: "the same structure under another name".into(),
        };
    }
    let (Some(om), Some(nm)) = (oc.message(x), nc.message(y)) else {
        return Structural {
            wire: BOTH_BREAK,
            json: BOTH_BREAK,
            why: "not both messages".into(),
        };
    };
    if !om.fields.keys().any(|n| nm.fields.contains_key(n)) {
        // Nothing written by one is read by the other: not an evolution, a replacement.
        return Structural {
            wire: BOTH_BREAK,
            json: BOTH_BREAK,
            why: "a different structure: no field number in common".into(),
        };
    }
    let key = (x.to_string(), y.to_string());
    let entered = COMPARING.with(|c| {
        let mut c = c.borrow_mut();
        if c.contains(&key) {
            false
        } else {
            c.push(key.clone());
            true
        }
    });
    if !entered {
        return Structural {
            wire: Directions::SAFE,
            json: Directions::SAFE,
            why: "compared above (a cycle)".into(),
        };
    }
    // Each direction from its own reader's point of view (backward cells of writer ->
    // reader), so that the verdict is symmetric by construction.
    let mut nested = Vec::new();
    message(oc, om, nc, nm, &mut nested);
    let mut reverse = Vec::new();
    message(nc, nm, oc, om, &mut reverse);
    COMPARING.with(|c| {
        c.borrow_mut().pop();
    });
    let back = |list: &[Finding], wire: bool| {
        list.iter()
            .map(|f| {
                if wire {
                    f.verdict.wire.backward
                } else {
                    f.verdict.json.backward
                }
            })
            .max()
            .unwrap_or(Safe)
    };
    let wire = Directions {
        backward: back(&nested, true),
        forward: back(&reverse, true),
    };
    let json = Directions {
        backward: back(&nested, false),
        forward: back(&reverse, false),
    };
    /// The wire first: a difference that misreads bytes outranks one in JSON only.
    fn worst(f: &Finding) -> (Severity, Severity) {
        (f.verdict.wire.backward, f.verdict.json.backward)
    }
    fn first_worst(list: &[Finding]) -> Option<&Finding> {
        list.iter()
            .fold(None::<&Finding>, |best, f| match best {
                Some(b) if worst(b) >= worst(f) => Some(b),
                _ => Some(f),
            })
            .filter(|f| worst(f) > (Safe, Safe))
    }
    let why = match first_worst(&nested).or_else(|| first_worst(&reverse)) {
        Some(f) if worst(f) > (Safe, Safe) => format!(
            "compared field by field, the worst difference is {} {}: {}",
            f.rule, f.element, f.message
        ),
        _ => "compared field by field: readers on both sides agree".into(),
    };
    Structural { wire, json, why }
}
