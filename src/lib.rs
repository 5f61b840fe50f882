//! protolapse: explore how Protocol Buffers schemas evolve across a repository's git tags.
//!
//! Layers, arrows pointing down (each may use those below it, never those above):
//!
//! - `cli` (binary side): parse arguments, run a command, print a report, or open the TUI.
//! - [`ui`]: the terminal UI (the only user of `ratatui` / `crossterm`).
//! - [`explore`]: what the UI shows, computed without a terminal: a comparison as a tree
//!   with changes attached, per-version facts, field lifecycles, the name index.
//! - [`report`]: text / json / dot / mermaid rendering of what the core computed.
//! - [`load`]: a history read from git, compiled version by version, with progress.
//! - [`history`]: git tags -> ordered versions + the source text of their `.proto` files
//!   (the only user of `git2`).
//! - [`schema`]: compile (protox), normalize into our own model, fingerprint, type graph
//!   (the only user of `protox` / `prost-reflect`).
//! - [`policy`]: judgements over a whole history — semver check, registry policies,
//!   history-wide hazards, field lifecycle, ignores, buffrs package rules.
//! - [`rules`]: the rule table and one function per rule -> changes with verdicts.
//! - [`diff`]: pair the declarations of two versions (whole schema or from a root).
//! - [`config`] reads `protolapse.toml`.
//!
//! Nothing below `ui` knows a terminal; nothing but `history` knows git.
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod config;
pub mod diff;
pub mod explore;
pub mod history;
pub mod judge;
pub mod load;
pub mod origin;
pub mod policy;
pub mod proto_text;
pub mod report;
pub mod rules;
pub mod sanitize;
pub mod schema;
pub mod ui;
