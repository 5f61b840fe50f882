//! The caps on what one history may cost, so that memory and time stay bounded by the input
//! whatever a repository holds (README, "Limits"). A file or a version over a
//! cap is reported and not compiled; the rest of the history goes on.
//!
//! With the defaults a history of small messages stays near 1 GB. Each can be raised (or lowered) for one
//! run with an environment variable, never from the repository (whose author may be the one
//! the caps protect against): `PROTOLAPSE_MAX_FILE_BYTES`, `PROTOLAPSE_MAX_VERSION_BYTES`,
//! `PROTOLAPSE_MAX_HISTORY_STATEMENTS`.

use std::sync::OnceLock;

/// The largest `.proto` file read: 16 MiB (googleapis' compute.proto, the largest we know,
/// is under 3 MiB).
pub const FILE_BYTES: usize = 16 << 20;
/// The largest version compiled: 32 MiB of `.proto` text in all.
pub const VERSION_BYTES: usize = 32 << 20;
/// The most statements (`;` and `{` outside comments) a history holds, newest first: each
/// distinct blob's once, an eighth of each distinct file set's and two per file (see
/// `load::caps`).
/// protobuf's 384 tags count about 180,000, googleapis' aiplatform (278 commit versions)
/// about 480,000.
pub const HISTORY_STATEMENTS: usize = 1_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub file_bytes: usize,
    pub version_bytes: usize,
    pub history_statements: usize,
}

pub const FILE_VAR: &str = "PROTOLAPSE_MAX_FILE_BYTES";
pub const VERSION_VAR: &str = "PROTOLAPSE_MAX_VERSION_BYTES";
pub const HISTORY_VAR: &str = "PROTOLAPSE_MAX_HISTORY_STATEMENTS";

/// The caps of this run: the defaults, each replaced by its environment variable when that
/// holds a number (read once).
pub fn get() -> Limits {
    static LIMITS: OnceLock<Limits> = OnceLock::new();
    *LIMITS.get_or_init(|| {
        let var = |name: &str, default: usize| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().replace('_', "").parse().ok())
                .unwrap_or(default)
        };
        Limits {
            file_bytes: var(FILE_VAR, FILE_BYTES),
            version_bytes: var(VERSION_VAR, VERSION_BYTES),
            history_statements: var(HISTORY_VAR, HISTORY_STATEMENTS),
        }
    })
}
