//! The slow work the app asks a worker for: plain data, pushed to `App::outbox`.

use std::sync::Arc;

use crate::explore::Comparison;
use crate::load::{Loaded, Project, VersionId};
use crate::policy::Settings;

/// Which comparison is wanted: (old version, new version, root).
pub type CompareKey = (Option<VersionId>, VersionId, String);

/// Which proof is wanted: the pair compared, and the change (its place in the
/// comparison's changes, which the pair decides).
pub type ProveKey = (CompareKey, usize);

/// Slow work for a worker.
#[derive(Debug, Clone)]
pub enum Request {
    Compare {
        key: CompareKey,
        old: Option<Box<Loaded>>,
        new: Box<Loaded>,
        ignores: crate::judge::Ignores,
    },
    /// The analysis of every version in the settings' scope (`explore::facts::analyze`),
    /// and with `with_matrix` the policy matrix of the same scope too, from one comparer.
    Facts {
        project: Arc<Project>,
        settings: Settings,
        with_matrix: bool,
    },
    Matrix {
        project: Arc<Project>,
        settings: Settings,
    },
    Lifecycle {
        project: Arc<Project>,
        container: String,
    },
    Find {
        query: String,
        roots_only: bool,
    },
    /// Round trips of one change of the comparison (`key.1`).
    Prove {
        key: ProveKey,
        comparison: Arc<Comparison>,
    },
}
