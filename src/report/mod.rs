//! Report: text and machine-readable renderings of what the core computed, for the headless
//! commands. Repository text is sanitized here before it is printed.
//!
//! May import: `load`, `history`, `schema`, `diff`, `rules`, `policy`, `sanitize`. Knows no
//! terminal.

pub mod blame;
pub mod check;
pub mod diff;
pub mod explain;
pub mod graph;
pub mod junit;
pub mod log;
pub mod prove;
