//! Judge: one pair of versions, judged — the one module that turns two versions and a scope
//! into the list of changes everyone shows and counts. It pairs the declarations (`diff`),
//! runs the rules (`rules`), applies the configured and inline ignores ([`ignore`]), marks
//! the changes it cannot judge because a file did not compile on one side, and counts them.
//! `diff`, `log`, `check`, the policies and the terminal UI all call it; [`Comparer`] keeps
//! the pairs of one history and computes each pair of distinct contents once.
//!
//! May import: `load` (the versions, plain data), `rules`, `diff`, `schema`. Knows no
//! terminal and no git.

mod closure;
mod comparer;
pub mod ignore;
mod scope;
mod stored;
mod stored_changes;
mod summary;
mod units;

use serde::Serialize;

use crate::diff::{pair_from_root, pair_whole};
use crate::load::Loaded;
use crate::rules::{self, Change, RuleId, Severity};
use crate::schema::Schema;

pub use comparer::Comparer;
pub use ignore::{IgnoreRule, Ignores};
pub use scope::{Scope, ScopeError};
pub use stored::counts as stored_summaries;
pub use stored_changes::counts as stored_changes;
pub use summary::{PairSummary, firsts};

/// One side of a comparison: a version that has a schema (it compiled, fully or in part).
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub version: &'a Loaded,
    pub schema: &'a Schema,
    /// Its comments may hold `protolapse:ignore` directives (false skips the look-ups).
    pub directives: bool,
}

impl<'a> Side<'a> {
    /// Its version's place in the history.
    pub fn id(&self) -> usize {
        self.version.id.index()
    }

    /// Version `v` as a side; None when it has no schema (failed, or not compiled yet).
    pub fn of(v: &'a Loaded) -> Option<Side<'a>> {
        Some(Side {
            version: v,
            schema: v.schema()?,
            directives: true,
        })
    }
}

/// Every change from `old` to `new` in `scope`, with the ignores applied and the changes
/// that cannot be judged marked: what `diff`, `log`, `check` and the terminal UI all show.
pub fn judge(old: &Side<'_>, new: &Side<'_>, scope: &Scope, ignores: &Ignores) -> Vec<Change> {
    judge_with(old, new, scope, ignores, true, None)
}

/// [`judge`], comments compared or not (a comment never changes a verdict: the policies
/// skip them); with `units`, each unit's findings are kept there for the next pair (a
/// comparer's pairs share most).
fn judge_with<'p>(
    old: &Side<'p>,
    new: &Side<'p>,
    scope: &Scope,
    ignores: &Ignores,
    comments: bool,
    units: Option<&units::Units<'p>>,
) -> Vec<Change> {
    let detail = if comments {
        Detail::Full
    } else {
        Detail::Verdicts
    };
    let mut changes = match units {
        Some(u) => u.check(old, new, scope, comments),
        None => raw_changes(old.schema, new.schema, scope, detail),
    };
    mark(&mut changes, old, new, scope, ignores);
    changes
}

/// How much of each change [`raw_changes`] works out.
#[derive(Clone, Copy)]
enum Detail {
    /// Comments compared, changes located and sorted.
    Full,
    /// Without COMMENT_CHANGED (never a verdict), located and sorted.
    Verdicts,
}

/// Applies the ignores, then marks the changes that cannot be judged because a file did not
/// compile on one side: those located in such a file, and — when the root's own file did
/// not compile on one side, so that nothing it reaches is known there — every change.
fn mark(changes: &mut [Change], old: &Side<'_>, new: &Side<'_>, scope: &Scope, ignores: &Ignores) {
    ignores.apply(changes, old.schema, new.schema, new.directives);
    for (side, other) in [(new, old), (old, new)] {
        let failed = &side.version.failed_files;
        if failed.is_empty() {
            continue;
        }
        let root_file = root_failed(side, other, scope);
        let name = side.version.name();
        for c in changes.iter_mut().filter(|c| c.ignored.is_none()) {
            if let Some(f) = root_file {
                c.ignored = Some(format!(
                    "{NOT_JUDGED}: {f}, the root's file, did not compile in {name}"
                ));
                c.not_judged = true;
            } else if let Some(f) = change_files(c).into_iter().find(|f| failed.contains(*f)) {
                c.ignored = Some(format!("{NOT_JUDGED}: {f} did not compile in {name}"));
                c.not_judged = true;
            }
        }
    }
}

/// The root's file, when it did not compile in `side` (and so the root is not there): then
/// nothing the root reaches is known in `side`, and every change is not judged.
fn root_failed<'a>(side: &Side<'_>, other: &Side<'a>, scope: &Scope) -> Option<&'a String> {
    let r = scope.root()?;
    if scope.present_in(&side.schema.content) {
        return None;
    }
    let c = &other.schema.content;
    c.messages
        .get(r)
        .map(|m| &m.file)
        .or_else(|| c.services.get(r).map(|s| &s.file))
        .filter(|f| side.version.failed_files.contains(*f))
}

/// The word for what could not be judged because a file did not compile (a change's
/// `ignored` reason starts with it; the reports and the terminal UI show it).
pub const NOT_JUDGED: &str = "not judged";

/// Whether a change was left unjudged because a file did not compile on one side (rather
/// than ignored by configuration or a directive); see [`mark`].
pub fn is_not_judged(c: &Change) -> bool {
    c.not_judged
}

/// Why a change was not judged (`x.proto did not compile in v1.2.0`), if it was not.
pub fn not_judged_reason(c: &Change) -> Option<&str> {
    let reason = c.ignored.as_deref().filter(|_| c.not_judged)?;
    Some(
        reason
            .strip_prefix(NOT_JUDGED)
            .and_then(|r| r.strip_prefix(':'))
            .map_or(reason, str::trim_start),
    )
}

/// The files a change is located in (its locations, and the element of a file rule).
pub fn change_files(c: &Change) -> Vec<&str> {
    [&c.new_location, &c.old_location]
        .into_iter()
        .flatten()
        .filter_map(|l| l.rsplit_once(':').map(|(f, _)| f))
        .chain(names_its_file(c.rule).then_some(c.element.as_str()))
        .collect()
}

/// Whether a change of `rule` is on a file, its element the file's name (which then counts
/// among the files it is located in).
fn names_its_file(rule: RuleId) -> bool {
    matches!(
        rule,
        RuleId::FILE_ADDED | RuleId::FILE_REMOVED | RuleId::FILE_OPTION_CHANGED
    )
}

/// `rules::check` in the given scope, in the given detail; a root that neither
/// version has yields nothing.
fn raw_changes(old: &Schema, new: &Schema, scope: &Scope, detail: Detail) -> Vec<Change> {
    // Versions with the same file set share one compiled schema: nothing to compare (2,000
    // tags on one commit of 10,000 files were 23 s of comparing a schema with itself).
    if std::ptr::eq(old, new) {
        return Vec::new();
    }
    let check = |p: &crate::diff::Pairing<'_>| match detail {
        Detail::Full => rules::check(p, old, new),
        Detail::Verdicts => rules::check_verdicts(p, old, new),
    };
    match scope {
        Scope::Whole => check(&pair_whole(&old.content, &new.content)),
        Scope::Root(r) => {
            if !scope.present_in(&old.content) && !scope.present_in(&new.content) {
                return Vec::new();
            }
            check(&pair_from_root(&old.content, &new.content, r))
        }
    }
}

/// Changes counted by their worst cell (ignored changes apart).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Counts {
    pub breaking: usize,
    pub lossy: usize,
    pub hazard: usize,
    pub safe: usize,
    /// Changes not counted: ignored, or not judged.
    pub ignored: usize,
    /// Of `ignored`, those not judged because a file did not compile on one side.
    pub not_judged: usize,
}

impl Counts {
    pub fn of(changes: &[Change]) -> Counts {
        let mut c = Counts::default();
        for ch in changes {
            if ch.ignored.is_some() {
                c.ignored += 1;
                c.not_judged += usize::from(is_not_judged(ch));
                continue;
            }
            match ch.verdict.worst() {
                Severity::Breaking => c.breaking += 1,
                Severity::Lossy => c.lossy += 1,
                Severity::Hazard => c.hazard += 1,
                Severity::Safe => c.safe += 1,
            }
        }
        c
    }

    pub fn total(&self) -> usize {
        self.breaking + self.lossy + self.hazard + self.safe
    }

    /// The worst verdict counted, if any change counts.
    pub fn worst(&self) -> Option<Severity> {
        [
            (self.breaking, Severity::Breaking),
            (self.lossy, Severity::Lossy),
            (self.hazard, Severity::Hazard),
            (self.safe, Severity::Safe),
        ]
        .into_iter()
        .find(|(n, _)| *n > 0)
        .map(|(_, s)| s)
    }
}
