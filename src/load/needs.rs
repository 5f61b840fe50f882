//! What a command compiles: the versions its output is made of, and nothing else. `diff A B`
//! compiles A and B, `graph --at V` compiles V, `log` and `blame` every version; the terminal
//! UI compiles every version, the selected one (the newest) and the one it is compared with
//! first, so its graph is on screen before the rest of the history has compiled
//! ([`selected_first`]).
//!
//! A version a command does not need stays [`Status::Pending`]: it is not part of that
//! command's output, and nothing is said about it (never green on what was not read). The
//! caps are still decided over the whole history ([`super::compile_each`]), so a version is
//! over them or not whatever a command compiles. `PROTOLAPSE_DEBUG_LOAD` set to anything
//! makes the headless commands say on standard error which versions they compiled.

use std::time::Instant;

use crate::history::{History, VersionKind};
use crate::schema::Status;

use super::{Loaded, Project, VersionId, lineage};

/// The environment variable that makes a command report what it compiled.
pub const DEBUG_VAR: &str = "PROTOLAPSE_DEBUG_LOAD";

/// Every version of a history of `n`, in history order.
pub fn every(n: usize) -> Vec<VersionId> {
    (0..n).map(VersionId::at).collect()
}

/// A history read from git, with nothing compiled yet: every version pending, its header
/// and files known. Names can be looked up in it ([`Project::find`]) to decide what to
/// compile.
pub fn unread(history: History) -> Project {
    let s = &history.stats;
    Project {
        stats: super::LoadStats {
            git: s.elapsed,
            trees_walked: s.trees_walked,
            blobs_read: s.blobs_read,
            bytes_read: s.bytes_read,
            ..Default::default()
        },
        versions: history
            .versions
            .into_iter()
            .enumerate()
            .map(|(i, v)| Loaded::pending(VersionId::at(i), v))
            .collect(),
        repo_root: history.repo_root,
        skipped: history.skipped,
    }
}

/// Compiles the versions of `ids` that are still pending (in history order), keeping what
/// was compiled before; the earlier-content links are computed again over the whole.
pub fn compile_more(project: Project, ids: &[VersionId]) -> Project {
    let mut want: Vec<VersionId> = ids
        .iter()
        .copied()
        .filter(|&id| {
            project
                .get(id)
                .is_some_and(|v| v.status() == Status::Pending)
        })
        .collect();
    want.sort_unstable();
    want.dedup();
    if want.is_empty() {
        return project;
    }
    let Project {
        repo_root,
        mut versions,
        skipped,
        stats,
    } = project;
    let history = History {
        repo_root,
        // The files are shared, not copied.
        versions: versions.iter().map(|v| v.version.clone()).collect(),
        skipped,
        stats: crate::history::ReadStats {
            elapsed: stats.git,
            trees_walked: stats.trees_walked,
            blobs_read: stats.blobs_read,
            bytes_read: stats.bytes_read,
            commits_walked: stats.commits_walked,
        },
    };
    let started = Instant::now();
    let more = super::compile_each(history, started, &want, |_, _, _| {});
    for (old, new) in versions.iter_mut().zip(more.versions) {
        if new.status() != Status::Pending {
            *old = new;
        }
    }
    super::relink(&mut versions);
    let mut stats = stats;
    stats.compile.add(&more.stats.compile);
    stats.total += started.elapsed();
    Project {
        repo_root: more.repo_root,
        versions,
        skipped: more.skipped,
        stats,
    }
}

/// The order the terminal UI compiles in: the version `selected` is compared with (by
/// version numbers alone, as nothing is compiled yet; the version before it when it has no
/// number), then `selected`, then the rest in history order.
pub fn selected_first(versions: &[Loaded], selected: VersionId) -> Vec<VersionId> {
    let Some(v) = versions.get(selected.index()) else {
        return every(versions.len());
    };
    let previous = match v.version.kind {
        VersionKind::Tag => lineage::previous_relevant(versions, selected),
        _ => None,
    }
    .or_else(|| selected.index().checked_sub(1).map(VersionId::at));
    // The base first: compiled alone, the selected version would be shown against nothing.
    let first: Vec<VersionId> = previous.into_iter().chain([selected]).collect();
    let rest = every(versions.len())
        .into_iter()
        .filter(|id| !first.contains(id));
    first.iter().copied().chain(rest).collect()
}

/// One line for [`DEBUG_VAR`]: how many versions were compiled, and which; how many blobs
/// and bytes were read from git.
pub fn compiled_line(project: &Project) -> String {
    let names: Vec<&str> = project
        .versions
        .iter()
        .filter(|v| v.status() != Status::Pending)
        .map(Loaded::name)
        .collect();
    format!(
        "protolapse: compiled {} of {} versions: {}; read {} blobs ({} bytes)",
        names.len(),
        project.versions.len(),
        crate::sanitize::line(&names.join(", ")),
        project.stats.blobs_read,
        project.stats.bytes_read
    )
}
