//! Lineage: which version a version is compared with — the one place that decides it, for
//! the semver check, the policies, hazards, `check`'s base and the terminal UI (which asks
//! while the history is still loading: a version not compiled yet is not a candidate).
//!
//! The previous relevant version of a release is the greatest *release* below it: drop every
//! version greater than it, take the greatest remaining (so `v2.0.6` tagged after `v3.0.0`
//! compares with `v2.0.5`). A pre-release compares with its predecessor, release or not
//! (`v2.0.0-rc.2` with `v2.0.0-rc.1`); `v2.0.0` itself compares with the last release before
//! it, since that is what its users upgrade from. A tag without a version number compares
//! with the version before it, and so does a commit of `--commits` (commits are in history
//! order; their numbers, where tagged, are not what orders them); a revision or the working
//! tree with the release it builds on (see [`base_for`]), else, in a history of commits,
//! with the newest commit before it.

use crate::history::VersionKind;

use super::{Loaded, VersionId};

fn compiled(v: &Loaded) -> bool {
    v.status().has_schema()
}

fn get(versions: &[Loaded], id: VersionId) -> Option<&Loaded> {
    versions.get(id.index())
}

/// The previous relevant version of `id` by version numbers alone (compiled or not): see the
/// module docs. None for a version without a number, or the first one.
pub fn previous_relevant(versions: &[Loaded], id: VersionId) -> Option<VersionId> {
    candidates(versions, id, |_| true).into_iter().next()
}

/// Tags below `id` by precedence, greatest first (releases only, for a release).
fn candidates(
    versions: &[Loaded],
    id: VersionId,
    keep: impl Fn(&Loaded) -> bool,
) -> Vec<VersionId> {
    match get(versions, id).and_then(|v| v.version.semver.as_ref()) {
        Some(cur) => below(versions, cur, |v| v.id != id && keep(v)),
        None => Vec::new(),
    }
}

/// Tags whose version is below `cur`, greatest first: releases only for a release, every
/// tag for a pre-release.
pub fn below(
    versions: &[Loaded],
    cur: &semver::Version,
    keep: impl Fn(&Loaded) -> bool,
) -> Vec<VersionId> {
    let mut c: Vec<(VersionId, &semver::Version)> = versions
        .iter()
        .filter(|v| v.version.kind == VersionKind::Tag && keep(v))
        .filter_map(|v| v.version.semver.as_ref().map(|s| (v.id, s)))
        .filter(|(_, s)| s.cmp_precedence(cur).is_lt() && (s.pre.is_empty() || !cur.pre.is_empty()))
        .collect();
    c.sort_by(|a, b| b.1.cmp_precedence(a.1).then_with(|| a.0.cmp(&b.0)));
    c.into_iter().map(|(id, _)| id).collect()
}

/// Tagged versions that compiled, greatest first: releases, then pre-releases.
fn releases_first(versions: &[Loaded], keep: impl Fn(&Loaded) -> bool) -> Vec<VersionId> {
    let mut c: Vec<(VersionId, &semver::Version)> = versions
        .iter()
        .filter(|v| v.version.kind == VersionKind::Tag && compiled(v) && keep(v))
        .filter_map(|v| v.version.semver.as_ref().map(|s| (v.id, s)))
        .collect();
    c.sort_by(|a, b| {
        b.1.pre
            .is_empty()
            .cmp(&a.1.pre.is_empty())
            .then_with(|| b.1.cmp_precedence(a.1))
            .then_with(|| a.0.cmp(&b.0))
    });
    c.into_iter().map(|(id, _)| id).collect()
}

/// The latest release: the greatest tagged version without a pre-release part that compiled,
/// else the greatest tagged version that compiled.
pub fn latest_release(versions: &[Loaded]) -> Option<VersionId> {
    releases_first(versions, |_| true).into_iter().next()
}

/// Of `list` (greatest first), the first version that compiled every file `subject` has, so
/// that a version that left a file out does not hide that file's changes; else the first.
/// Taken lazily: in a long history of commits, the nearest one usually covers, and nothing
/// further is looked at (the terminal UI asks on every key press).
fn covering(
    versions: &[Loaded],
    list: impl IntoIterator<Item = VersionId>,
    subject: &Loaded,
) -> Option<VersionId> {
    let mut first = None;
    for j in list {
        first = first.or(Some(j));
        if get(versions, j).is_some_and(|v| v.failed_files.is_subset(&subject.failed_files)) {
            return Some(j);
        }
    }
    first
}

/// The version a revision stands for: the tag on the same commit (a revision only: a working
/// tree on a tagged commit is work after that release).
pub fn implied_version(versions: &[Loaded], id: VersionId) -> Option<&semver::Version> {
    let v = get(versions, id)?;
    if v.version.kind != VersionKind::Rev {
        return None;
    }
    versions
        .iter()
        .filter(|t| t.version.kind == VersionKind::Tag && t.version.commit == v.version.commit)
        .find_map(|t| t.version.semver.as_ref())
}

/// The base of a revision or the working tree `id`: the previous relevant version of the
/// version it is about to be (`x`, or the tag on its commit); else the latest release it
/// builds on (a tag on its commit or an ancestor); else the latest release. Only versions
/// that compiled, preferring one that compiled every file `id` has.
pub fn base_for(
    versions: &[Loaded],
    id: VersionId,
    x: Option<&semver::Version>,
) -> Option<VersionId> {
    let v = get(versions, id)?;
    let list = match x.or_else(|| implied_version(versions, id)) {
        Some(x) => below(versions, x, |t| t.id != id && compiled(t)),
        None => {
            let reachable = releases_first(versions, |t| {
                v.version
                    .ancestors
                    .as_ref()
                    .is_some_and(|a| a.contains(&t.id))
            });
            if reachable.is_empty() {
                releases_first(versions, |t| t.id != id)
            } else {
                reachable
            }
        }
    };
    covering(versions, list, v)
}

/// The version `id` is compared with: its previous relevant version that compiled (a tag
/// without a number: the version before it; a revision or the working tree: see
/// [`base_for`]).
///
/// A candidate that left out a file this version has (it failed to compile there) would
/// hide that file's changes, so the nearest earlier one that compiled it is taken instead:
/// after a broken `v1.2.0`, `v2.0.0` is compared with `v1.1.1`. Files that fail on both
/// sides (an editions file protox cannot read) do not count.
pub fn previous_to_compare(versions: &[Loaded], id: VersionId) -> Option<VersionId> {
    let v = get(versions, id)?;
    match (v.version.kind, &v.version.semver) {
        (VersionKind::Tag, Some(_)) => covering(versions, candidates(versions, id, compiled), v),
        // Without numbers (a tag without one, a commit of `--commits`): history order.
        (VersionKind::Tag, None) | (VersionKind::Commit, _) => {
            covering(versions, compiled_before(versions, id, |_| true), v)
        }
        _ => base_for(versions, id, None).or_else(|| {
            // A history of commits: the newest commit before it.
            let commits = compiled_before(versions, id, |w| w.version.kind == VersionKind::Commit);
            covering(versions, commits, v)
        }),
    }
}

/// The versions before `id` that compiled and `keep` keeps, nearest first (lazily).
fn compiled_before<'a>(
    versions: &'a [Loaded],
    id: VersionId,
    keep: impl Fn(&Loaded) -> bool + 'a,
) -> impl Iterator<Item = VersionId> + 'a {
    versions[..id.index().min(versions.len())]
        .iter()
        .rev()
        .filter(move |w| compiled(w) && keep(w))
        .map(|w| w.id)
}

/// [`previous_to_compare`] of every version, in order. The tags that compiled are sorted
/// once, greatest first, and each tagged version's candidates are read from there (not
/// sorted again for each: a history of thousands of tags would be quadratic).
pub fn previous_of_each(versions: &[Loaded]) -> Vec<Option<VersionId>> {
    let mut tags: Vec<(VersionId, &semver::Version)> = versions
        .iter()
        .filter(|v| v.version.kind == VersionKind::Tag && compiled(v))
        .filter_map(|v| v.version.semver.as_ref().map(|s| (v.id, s)))
        .collect();
    // As `below` orders them.
    tags.sort_by(|a, b| b.1.cmp_precedence(a.1).then_with(|| a.0.cmp(&b.0)));
    versions
        .iter()
        .map(|v| match (v.version.kind, &v.version.semver) {
            (VersionKind::Tag, Some(cur)) => {
                let from = tags.partition_point(|(_, s)| s.cmp_precedence(cur).is_ge());
                let below = tags[from..]
                    .iter()
                    .filter(|(_, s)| s.pre.is_empty() || !cur.pre.is_empty())
                    .map(|(id, _)| *id);
                covering(versions, below, v)
            }
            _ => previous_to_compare(versions, v.id),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use super::*;
    use crate::history::Version;
    use crate::schema::{Compiled, Status};

    fn loaded(i: usize, name: &str, kind: VersionKind, status: Status, failed: &[&str]) -> Loaded {
        let version = Version {
            semver: semver::Version::parse(name.trim_start_matches('v')).ok(),
            ..Version::bare(name, kind, format!("{i:040x}"))
        };
        Loaded {
            compiled: Arc::new(Compiled {
                status,
                ..Compiled::pending()
            }),
            failed_files: Arc::new(
                failed
                    .iter()
                    .map(|f| f.to_string())
                    .collect::<BTreeSet<_>>(),
            ),
            ..Loaded::pending(VersionId::at(i), version)
        }
    }

    /// Versions of every kind, numbers out of tag order, equal precedences (build metadata),
    /// pre-releases, versions that did not compile and failed files: each version's previous
    /// one, worked out for all at once, is the one worked out for it alone.
    #[test]
    fn the_previous_of_each_is_the_previous_of_every_one() {
        let names = [
            "v0.1.0",
            "v1.0.0-rc.1",
            "v1.0.0",
            "v1.0.0+build.2",
            "v1.1.0",
            "v1.0.1",
            "nightly",
            "v2.0.0-alpha",
            "v2.0.0-beta.2",
            "v2.0.0",
            "v1.2.0",
            "v2.0.1",
            "v3.0.0-rc.1",
            "v2.1.0",
            "v1.0.0+build.1",
            "v3.0.0",
        ];
        use proptest::prelude::Rng;
        use proptest::test_runner::{RngAlgorithm, TestRng};
        let mut rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
        let mut next = |m: u64| rng.next_u64() % m;
        for round in 0..200 {
            let mut versions: Vec<Loaded> = Vec::new();
            for (i, name) in names.iter().enumerate() {
                let status = [
                    Status::Complete,
                    Status::Partial,
                    Status::Failed,
                    Status::Pending,
                ][(next(8).saturating_sub(4)) as usize];
                let failed: &[&str] =
                    [&[][..], &["a.proto"], &["b.proto"], &["a.proto", "b.proto"]]
                        [next(4) as usize];
                versions.push(loaded(i, name, VersionKind::Tag, status, failed));
            }
            // Shuffled: the order of a history is not its numbers' order.
            for i in (1..versions.len()).rev() {
                versions.swap(i, next(i as u64 + 1) as usize);
            }
            let n = versions.len();
            versions.push(loaded(n, "main", VersionKind::Rev, Status::Complete, &[]));
            versions.push(loaded(
                n + 1,
                "abc1234",
                VersionKind::Commit,
                Status::Complete,
                &[],
            ));
            for (i, v) in versions.iter_mut().enumerate() {
                v.id = VersionId::at(i);
            }
            let each = previous_of_each(&versions);
            for v in &versions {
                assert_eq!(
                    each[v.id.index()],
                    previous_to_compare(&versions, v.id),
                    "round {round}: {}",
                    v.name()
                );
            }
        }
    }
}
