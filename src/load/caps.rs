//! The per-version and per-history caps of [`crate::limits`], decided before anything is
//! compiled. A version whose `.proto` files total more than the per-version cap is not
//! compiled. The distinct file sets of the history are then counted newest first for what
//! they add to what a history holds, and a version whose set would take that past the
//! per-history cap is not compiled: the newest versions, which `check`, the policies and a
//! reader care for most, are the ones kept. Either way the version is shown as not
//! compiled, with the reason in one line, and the rest of the history goes on.
//!
//! What a set adds ([`set_cost`]): the statements of its blobs that no set counted before
//! (equal declarations are one shared value, see `schema::compile`), and for what each
//! version holds of its own (the maps that index those declarations, its files' headers
//! and docs) an eighth of all its statements and two per file. An equal set costs nothing
//! more: it is compiled once. So a commit history that changes one file per commit costs
//! about its distinct blobs, not commits × files (googleapis' aiplatform: 278 commit
//! versions of about 9,600 statements each count about 480,000, where counting every set
//! whole gave 2.7 million), and a history of sets that share nothing costs every statement,
//! and a little more.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::history::{Origin, Version};
use crate::limits::{self, Limits};
use crate::schema::Compiled;

/// A set costs this share of its statements beyond those of its new blobs (1/8)...
const OWN_SHARE: usize = 8;
/// ... and this many per file.
const PER_FILE: usize = 2;

/// What a distinct set adds to the history's count, and its statements in all, given each
/// file's (blob, count) and the blobs counted before: its new statements, an eighth of all
/// of them and two per file (a file's header and docs are the version's own: 2,000 tags
/// that each add a one-message file hold about 1.1 KB per file per version, where a
/// statement held costs about 1 KB at most).
fn set_cost(files: &[(&str, usize)], known: &HashSet<&str>) -> (usize, usize) {
    let (mut new, mut all) = (0usize, 0usize);
    // A blob at two paths of the set is new once: the history's count is then each
    // distinct blob once and each set's own share, whatever order the sets come in (so
    // `history_within`, which goes oldest first, bounds what `over_caps` counts).
    let mut here: HashSet<&str> = HashSet::new();
    for (blob, n) in files {
        all = all.saturating_add(*n);
        if !known.contains(blob) && here.insert(blob) {
            new = new.saturating_add(*n);
        }
    }
    let own = all
        .div_ceil(OWN_SHARE)
        .saturating_add(files.len().saturating_mul(PER_FILE));
    (new.saturating_add(own), all)
}

/// The history's count so far, set by distinct set: what each blob counts (`of` its text,
/// once per blob), the sets and blobs counted, and the total.
struct Tally<'v, F> {
    of: F,
    by_blob: HashMap<&'v str, usize>,
    sets: HashSet<Vec<(&'v str, &'v str)>>,
    blobs: HashSet<&'v str>,
    total: usize,
}

/// What a version's set would add: its key, its cost and its statements in all.
struct Price<'v> {
    set: Vec<(&'v str, &'v str)>,
    cost: usize,
    all: usize,
}

impl<'v, F: Fn(&str) -> usize> Tally<'v, F> {
    fn new(of: F) -> Self {
        Tally {
            of,
            by_blob: HashMap::new(),
            sets: HashSet::new(),
            blobs: HashSet::new(),
            total: 0,
        }
    }

    /// What `v`'s set would add; None when it is counted already (it costs nothing more).
    fn price(&mut self, v: &'v Version) -> Option<Price<'v>> {
        let mut set: Vec<(&str, &str)> = v
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.blob.as_str()))
            .collect();
        set.sort_unstable();
        if self.sets.contains(&set) {
            return None;
        }
        let counts: Vec<(&str, usize)> = v
            .files
            .iter()
            .map(|f| {
                let n = *self
                    .by_blob
                    .entry(f.blob.as_str())
                    .or_insert_with(|| f.text.as_deref().map_or(0, |t| (self.of)(t)));
                (f.blob.as_str(), n)
            })
            .collect();
        let (cost, all) = set_cost(&counts, &self.blobs);
        Some(Price { set, cost, all })
    }

    /// Counts a set priced before.
    fn take(&mut self, p: Price<'v>) {
        self.total = self.total.saturating_add(p.cost);
        self.blobs.extend(p.set.iter().map(|(_, b)| *b));
        self.sets.insert(p.set);
    }
}

/// Per version, in history order: why it is not compiled (one line), or None.
pub(super) fn over_caps(versions: &[Version], limits: &Limits) -> Vec<Option<String>> {
    // Every statement ends in a `;` or opens with a `{`: when the bytes that could be one
    // do not reach the history cap, no version passes it, and no statement needs counting
    // (protobuf's 384 tags: no tokenizing at all).
    let within = history_within(versions, limits.history_statements);
    let mut tally = Tally::new(crate::proto_text::statements);
    let mut out: Vec<Option<String>> = versions
        .iter()
        .rev()
        .map(|v| {
            let bytes: usize = v
                .files
                .iter()
                .map(|f| f.text.as_ref().map_or(0, |t| t.len()))
                .sum();
            if bytes > limits.version_bytes {
                return Some(format!(
                    "not compiled: its .proto files total {bytes} bytes, over the per-version \
                     cap of {} bytes (set {} to raise it)",
                    limits.version_bytes,
                    limits::VERSION_VAR
                ));
            }
            if within {
                return None;
            }
            let p = tally.price(v)?;
            if tally.total.saturating_add(p.cost) > limits.history_statements {
                return Some(format!(
                    "not compiled: its {} statements (counted as {}: those not in a \
                     newer version, an eighth of all, two per file) would take the history \
                     past its cap of {} statements, newest versions first (set {} to raise it)",
                    p.all,
                    p.cost,
                    limits.history_statements,
                    limits::HISTORY_VAR
                ));
            }
            tally.take(p);
            None
        })
        .collect();
    out.reverse();
    out
}

/// Whether the history's distinct file sets, counted as [`over_caps`] counts them, hold at
/// most `cap` bytes that can end or open a statement (`;`, `{`): an upper bound of their
/// count.
fn history_within(versions: &[Version], cap: usize) -> bool {
    let mut tally = Tally::new(|t: &str| t.bytes().filter(|b| matches!(b, b';' | b'{')).count());
    for v in versions {
        if let Some(p) = tally.price(v) {
            tally.take(p);
            if tally.total > cap {
                return false;
            }
        }
    }
    true
}

/// The compile state of a version over a cap: failed, with the reason as its diagnostic.
pub(super) fn not_compiled(version: &Version, reason: String) -> Arc<Compiled> {
    let roots = version.files.iter().filter(|f| f.origin == Origin::Root);
    Arc::new(Compiled::failed(reason, roots.count()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the sets add up to, counted in the order given.
    fn total(sets: &[&[(&str, usize)]]) -> usize {
        let mut known = HashSet::new();
        let mut sum = 0;
        for s in sets {
            sum += set_cost(s, &known).0;
            known.extend(s.iter().map(|(b, _)| *b));
        }
        sum
    }

    /// The count is each distinct blob once and each set's own share, in any order: a blob
    /// at two paths of the set that brings it is new once (else `history_within`, oldest
    /// first, would not bound `over_caps`, newest first).
    #[test]
    fn a_history_counts_the_same_in_either_order() {
        let one: &[(&str, usize)] = &[("x", 100)];
        let twice: &[(&str, usize)] = &[("x", 100), ("x", 100)];
        let more: &[(&str, usize)] = &[("y", 7), ("x", 100)];
        let oldest_first = total(&[one, twice, more]);
        assert_eq!(oldest_first, total(&[more, twice, one]));
        assert_eq!(oldest_first, total(&[twice, one, more]));
        // x and y once (107), then each set's eighth and two per file: 15 + 29 + 18.
        assert_eq!(oldest_first, 107 + 15 + 29 + 18);
    }
}
