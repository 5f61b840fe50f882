//! The semver check (seed 002): every version against its previous relevant version — the
//! actual bump of the version number beside the bump its changes require.
//!
//! The previous relevant version of a release is the greatest *release* below it: drop every
//! version greater than it, take the greatest remaining (so `v2.0.6` tagged after `v3.0.0`
//! compares with `v2.0.5`). A pre-release compares with its predecessor, release or not
//! (`v2.0.0-rc.2` with `v2.0.0-rc.1`); `v2.0.0` itself compares with the last release before
//! it, since that is what its users upgrade from. Below 1.0.0, Cargo's convention applies by
//! default: in `0.x` a minor bump may break and a patch bump may add; in `0.0.x` any bump may
//! break. [`Pre1::Strict`] reads `0.x` like any other major version.

use serde::Serialize;

use crate::history::VersionKind;
use crate::judge::{NOT_JUDGED, Scope};
use crate::load::lineage::previous_relevant;
use crate::load::{Loaded, VersionId};
use crate::rules::{Bump, Change, RuleId, required_bump};

/// How versions below 1.0.0 are read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pre1 {
    /// Cargo's: `0.x.y` -> `0.(x+1).0` may break, `0.x.y` -> `0.x.(y+1)` may add; in
    /// `0.0.z` every bump may break.
    #[default]
    Cargo,
    /// Plain semver: below 1.0.0 as above it (a break needs a major bump, to 1.0.0).
    Strict,
}

impl std::str::FromStr for Pre1 {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "cargo" => Ok(Pre1::Cargo),
            "strict" => Ok(Pre1::Strict),
            _ => Err(format!(
                "`{s}` is not a pre-1.0 convention: use `cargo` or `strict`"
            )),
        }
    }
}

/// Whether a version's bump matches what its changes require.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SemverVerdict {
    Ok,
    TooSmall,
    LargerThanNeeded,
    /// No verdict: what decides it was not read — the version, its root's file or a file
    /// some of its changes are in did not compile (see `judge::Scope::not_judged`). Never
    /// shown as passing.
    NotJudged,
    /// No verdict: no version number, nothing to compare with, or it did not compile.
    None,
}

impl SemverVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            SemverVerdict::Ok => "ok",
            SemverVerdict::TooSmall => "too_small",
            SemverVerdict::LargerThanNeeded => "larger_than_needed",
            SemverVerdict::NotJudged => "not_judged",
            SemverVerdict::None => "none",
        }
    }
}

/// The semver check of one version.
#[derive(Debug, Clone, Serialize)]
pub struct SemverCheck {
    /// The bump of the version number from the compared version (None: no numbers).
    pub bump: Option<Bump>,
    /// The bump its changes require (None: not compared).
    pub required: Option<Bump>,
    /// The bump of the version number that `required` asks for: the same from 1.0 on; below
    /// 1.0 under Cargo's reading, one place lower (what the verdict's reason names). Not in
    /// the JSON, which keeps the schema's `required_bump`.
    #[serde(skip)]
    pub needed: Option<Bump>,
    pub verdict: SemverVerdict,
    /// One line: why.
    pub reason: String,
    /// Only comments or layout changed (or nothing at all).
    pub unchanged: bool,
    /// The changes that decide the verdict: those that require the largest bump.
    pub deciding: Vec<Change>,
}

impl SemverCheck {
    fn none(reason: impl Into<String>) -> SemverCheck {
        SemverCheck {
            bump: None,
            required: None,
            needed: None,
            verdict: SemverVerdict::None,
            reason: reason.into(),
            unchanged: false,
            deciding: Vec::new(),
        }
    }
}

impl SemverCheck {
    /// When the version is not judged (`why`, from `judge::Scope::not_judged`), a verdict
    /// that would pass becomes [`SemverVerdict::NotJudged`], and the bump its changes
    /// require is unknown (what was not read may require more); too small stays too small
    /// (the changes that were read already require more).
    pub fn unless_unjudged(&mut self, why: Option<&str>) {
        if let Some(why) = why
            && self.verdict != SemverVerdict::TooSmall
        {
            self.verdict = SemverVerdict::NotJudged;
            self.required = None;
            self.needed = None;
            self.reason = format!("{NOT_JUDGED}: {why}");
        }
    }
}

/// The bump from one version number to the next, by the first component that grew.
pub fn actual_bump(prev: &semver::Version, cur: &semver::Version) -> Bump {
    if cur.major != prev.major {
        Bump::Major
    } else if cur.minor != prev.minor {
        Bump::Minor
    } else if cur.patch != prev.patch {
        Bump::Patch
    } else {
        Bump::None
    }
}

/// Version component a bump changes: 0 major, 1 minor, 2 patch, 3 none.
fn component(b: Bump) -> u8 {
    match b {
        Bump::Major => 0,
        Bump::Minor => 1,
        Bump::Patch => 2,
        Bump::None => 3,
    }
}

/// Which part of the version number changes that require `required` ask to bump after
/// `prev` (0 major, 1 minor, 2 patch), and the pre-1.0 convention that decided it, if any.
fn needed_component(
    prev: &semver::Version,
    required: Bump,
    pre1: Pre1,
) -> (u8, Option<&'static str>) {
    let req = required.max(Bump::Patch);
    match (pre1, prev.major) {
        (Pre1::Cargo, 0) if prev.minor == 0 => (2, Some("0.0.x: every bump may break")),
        (Pre1::Cargo, 0) => (
            (component(req) + 1).min(2),
            Some("0.x: a minor bump may break, a patch bump may add"),
        ),
        _ => (component(req), None),
    }
}

/// The bump of the version number after `prev` that changes requiring `required` need:
/// `required` itself from 1.0 on; below 1.0 under Cargo's reading one place lower (a break
/// needs a minor bump, an addition a patch). No change needs no bump.
pub fn needed_bump(prev: &semver::Version, required: Bump, pre1: Pre1) -> Bump {
    if required == Bump::None {
        return Bump::None;
    }
    match needed_component(prev, required, pre1).0 {
        0 => Bump::Major,
        1 => Bump::Minor,
        _ => Bump::Patch,
    }
}

/// The verdict for a bump from `prev` to `cur` whose changes require `required`.
pub fn judge(
    prev: &semver::Version,
    cur: &semver::Version,
    required: Bump,
    pre1: Pre1,
) -> (SemverVerdict, String) {
    if cur.cmp_precedence(prev).is_le() {
        return (
            SemverVerdict::TooSmall,
            format!("{cur} is not above {prev}"),
        );
    }
    let actual = actual_bump(prev, cur);
    if actual == Bump::None && !cur.pre.is_empty() {
        return (
            SemverVerdict::Ok,
            "pre-releases of one version may change freely".into(),
        );
    }
    let (needed, convention) = needed_component(prev, required, pre1);
    let have = component(actual);
    let why = |s: String| match convention {
        Some(c) if cur.major == 0 => format!("{s} ({c})"),
        _ => s,
    };
    let a = actual.as_str();
    // Named as the version number needs it, as the NEED column shows it.
    let r = match needed_bump(prev, required, pre1) {
        Bump::None => "no",
        b => b.as_str(),
    };
    if have > needed {
        (
            SemverVerdict::TooSmall,
            why(format!("a {a} bump, but its changes require {r} bump")),
        )
    } else if have < needed {
        if prev.major == 0 && cur.major >= 1 {
            (
                SemverVerdict::Ok,
                format!("the first stable release; its changes require {r} bump"),
            )
        } else if pre1 == Pre1::Cargo && prev.major == 0 && prev.minor == 0 && cur.minor > 0 {
            (
                SemverVerdict::Ok,
                format!("leaving 0.0.x; its changes require {r} bump"),
            )
        } else {
            (
                SemverVerdict::LargerThanNeeded,
                why(format!("a {a} bump where its changes require {r} bump")),
            )
        }
    } else {
        (
            SemverVerdict::Ok,
            why(format!("a {a} bump, as its changes require")),
        )
    }
}

/// The semver check of version `id` against `prev` in `scope`, given the changes between
/// them. A verdict that would pass on a version not judged in the scope (a file that did not
/// compile hides what decides it) is [`SemverVerdict::NotJudged`]; too small stays too small.
pub fn check(
    versions: &[Loaded],
    scope: &Scope,
    id: VersionId,
    prev: Option<VersionId>,
    changes: Option<&[Change]>,
    pre1: Pre1,
) -> SemverCheck {
    let Some(v) = versions.get(id.index()) else {
        return SemverCheck::none("no such version");
    };
    if v.schema().is_none() {
        let mut out = SemverCheck::none(format!(
            "{NOT_JUDGED}: {}",
            scope.not_judged(v, &[]).unwrap_or_default()
        ));
        out.verdict = SemverVerdict::NotJudged;
        return out;
    }
    let Some(p) = prev.and_then(|p| versions.get(p.index())) else {
        return SemverCheck::none(if previous_relevant(versions, id).is_some() {
            "no earlier version compiled"
        } else {
            "first version"
        });
    };
    let Some(changes) = changes else {
        return SemverCheck::none(format!("not compared with {}", p.version.name));
    };
    let skipped = match (previous_relevant(versions, id), prev) {
        (Some(r), Some(q)) if r != q => format!(
            "; {} {}, so compared with {}",
            versions[r.index()].version.name,
            if versions[r.index()].schema().is_some() {
                "left out files that did not compile"
            } else {
                "did not compile"
            },
            p.version.name
        ),
        _ => String::new(),
    };
    let numbers = match (&p.version.semver, &v.version.semver) {
        (Some(a), Some(b)) if v.version.kind == VersionKind::Tag => Some((a, b)),
        _ => None,
    };
    let mut out = assess(&p.version.name, numbers, changes, pre1);
    // From a root, no change says nothing of the rest of the schema.
    if let (Some(root), true) = (scope.root(), changes.is_empty()) {
        out.reason = out.reason.replace(
            "schema unchanged",
            &format!("nothing reached from {root} changed"),
        );
    }
    out.reason.push_str(&skipped);
    out.unless_unjudged(scope.not_judged(v, changes).as_deref());
    out
}

/// The semver check of a bump between two version numbers (None: no numbers to check),
/// given the changes from the version named `base`.
pub fn assess(
    base: &str,
    numbers: Option<(&semver::Version, &semver::Version)>,
    changes: &[Change],
    pre1: Pre1,
) -> SemverCheck {
    let required = required_bump(changes);
    let unchanged = changes.iter().all(|c| c.rule == RuleId::COMMENT_CHANGED);
    let deciding: Vec<Change> = changes
        .iter()
        .filter(|c| c.ignored.is_none() && c.bump == required && required > Bump::Patch)
        .cloned()
        .collect();
    let mut out = SemverCheck {
        bump: None,
        required: Some(required),
        needed: Some(required),
        verdict: SemverVerdict::None,
        reason: String::new(),
        unchanged,
        deciding,
    };
    match numbers {
        Some((a, b)) => {
            let (verdict, reason) = judge(a, b, required, pre1);
            out.bump = Some(actual_bump(a, b));
            out.needed = Some(needed_bump(a, required, pre1));
            if unchanged {
                // Any bump will do for a schema that did not change.
                out.verdict = if verdict == SemverVerdict::TooSmall {
                    verdict
                } else {
                    SemverVerdict::Ok
                };
                // "Unchanged" only where nothing changed: comments did.
                out.reason = if changes.is_empty() {
                    format!("schema unchanged since {base}")
                } else {
                    format!("only comments changed since {base}")
                };
            } else {
                out.verdict = verdict;
                out.reason = reason;
            }
        }
        None => {
            out.reason = format!(
                "no version number to check; its changes since {base} require {}",
                match required {
                    Bump::None => "no bump".to_string(),
                    b => format!("a {} bump", b.as_str()),
                }
            );
        }
    }
    let ignored = changes.iter().filter(|c| c.ignored.is_some()).count();
    if ignored > 0 {
        out.reason.push_str(&format!(
            "; {ignored} change{} ignored or not judged",
            if ignored == 1 { "" } else { "s" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> semver::Version {
        semver::Version::parse(s).unwrap()
    }

    fn j(a: &str, b: &str, r: Bump, p: Pre1) -> SemverVerdict {
        judge(&v(a), &v(b), r, p).0
    }

    #[test]
    fn bumps_follow_the_first_component_that_grew() {
        assert_eq!(actual_bump(&v("3.5.12"), &v("3.5.13")), Bump::Patch);
        assert_eq!(actual_bump(&v("3.5.12"), &v("3.6.0")), Bump::Minor);
        assert_eq!(actual_bump(&v("3.5.12"), &v("4.0.0")), Bump::Major);
        assert_eq!(actual_bump(&v("1.0.0-rc.1"), &v("1.0.0-rc.2")), Bump::None);
    }

    #[test]
    fn verdicts_above_one() {
        use SemverVerdict::*;
        assert_eq!(j("1.0.0", "1.1.0", Bump::Major, Pre1::Cargo), TooSmall);
        assert_eq!(j("1.0.0", "2.0.0", Bump::Major, Pre1::Cargo), Ok);
        assert_eq!(j("1.0.0", "1.0.1", Bump::Minor, Pre1::Cargo), TooSmall);
        assert_eq!(j("1.0.0", "1.1.0", Bump::Minor, Pre1::Cargo), Ok);
        assert_eq!(
            j("1.0.0", "2.0.0", Bump::Minor, Pre1::Cargo),
            LargerThanNeeded
        );
        // Nothing or only comments changed: any bump will do, a patch is not too large.
        assert_eq!(j("1.0.0", "1.0.1", Bump::None, Pre1::Cargo), Ok);
        assert_eq!(j("1.0.0", "1.0.1", Bump::Patch, Pre1::Cargo), Ok);
        assert_eq!(
            j("1.0.0", "1.1.0", Bump::Patch, Pre1::Cargo),
            LargerThanNeeded
        );
    }

    #[test]
    fn below_one_cargo_and_strict() {
        use SemverVerdict::*;
        // 0.x: a minor bump may break, a patch bump may add.
        assert_eq!(j("0.2.0", "0.3.0", Bump::Major, Pre1::Cargo), Ok);
        assert_eq!(j("0.2.0", "0.2.1", Bump::Major, Pre1::Cargo), TooSmall);
        assert_eq!(j("0.2.0", "0.2.1", Bump::Minor, Pre1::Cargo), Ok);
        assert_eq!(j("0.2.0", "0.2.1", Bump::Patch, Pre1::Cargo), Ok);
        assert_eq!(
            j("0.2.0", "0.3.0", Bump::Minor, Pre1::Cargo),
            LargerThanNeeded
        );
        // 0.0.x: any bump may break.
        assert_eq!(j("0.0.1", "0.0.2", Bump::Major, Pre1::Cargo), Ok);
        // Strict: 0.x is a major version like any other.
        assert_eq!(j("0.2.0", "0.3.0", Bump::Major, Pre1::Strict), TooSmall);
        assert_eq!(j("0.2.0", "0.3.0", Bump::Minor, Pre1::Strict), Ok);
        assert_eq!(j("0.0.1", "0.0.2", Bump::Major, Pre1::Strict), TooSmall);
        // The first stable release is never "larger than needed".
        assert_eq!(j("0.9.0", "1.0.0", Bump::Patch, Pre1::Cargo), Ok);
        assert_eq!(j("0.9.0", "1.0.0", Bump::Patch, Pre1::Strict), Ok);
    }

    /// Below 1.0 the bump needed and the reason name the same bump (a break needs a minor
    /// bump in 0.x), and from 1.0 on both are the bump the changes require.
    #[test]
    fn the_needed_bump_and_the_reason_agree() {
        assert_eq!(
            needed_bump(&v("0.2.0"), Bump::Major, Pre1::Cargo),
            Bump::Minor
        );
        assert_eq!(
            needed_bump(&v("0.2.0"), Bump::Minor, Pre1::Cargo),
            Bump::Patch
        );
        assert_eq!(
            needed_bump(&v("0.0.1"), Bump::Major, Pre1::Cargo),
            Bump::Patch
        );
        assert_eq!(
            needed_bump(&v("0.2.0"), Bump::Major, Pre1::Strict),
            Bump::Major
        );
        assert_eq!(
            needed_bump(&v("1.2.0"), Bump::Major, Pre1::Cargo),
            Bump::Major
        );
        assert_eq!(
            needed_bump(&v("0.2.0"), Bump::None, Pre1::Cargo),
            Bump::None
        );
        let (_, why) = judge(&v("0.1.0"), &v("0.2.0"), Bump::Minor, Pre1::Cargo);
        assert!(why.contains("require patch bump"), "{why}");
        let (_, why) = judge(&v("0.2.1"), &v("0.3.0"), Bump::Major, Pre1::Cargo);
        assert!(
            why.contains("a minor bump, as its changes require"),
            "{why}"
        );
    }

    #[test]
    fn unchanged_only_where_nothing_changed() {
        let (a, b) = (v("1.0.0"), v("1.0.1"));
        assert_eq!(
            assess("v1.0.0", Some((&a, &b)), &[], Pre1::Cargo).reason,
            "schema unchanged since v1.0.0"
        );
    }

    #[test]
    fn prereleases_iterate_freely_but_not_across_versions() {
        use SemverVerdict::*;
        assert_eq!(j("2.0.0-rc.1", "2.0.0-rc.2", Bump::Major, Pre1::Cargo), Ok);
        assert_eq!(j("1.4.0", "1.5.0-rc.1", Bump::Major, Pre1::Cargo), TooSmall);
        assert_eq!(j("1.4.0", "2.0.0-rc.1", Bump::Major, Pre1::Cargo), Ok);
    }
}
