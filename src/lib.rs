//! protolapse: explore how Protocol Buffers schemas evolve across a repository's git tags.
//!
//! Layers, arrows pointing down (each may use those below it, never those above; a test,
//! `no_layer_reaches_up`, checks it). docs/architecture.md draws them.
//!
//! - `cli`, `commands` (binary side): parse arguments, one dispatch, each command from its
//!   arguments to printed text; or the terminal UI.
//! - [`ui`]: the terminal UI (the only user of `ratatui` / `crossterm`).
//! - [`explore`]: what the UI shows, computed without a terminal: a comparison as a tree
//!   with changes attached, per-version facts, the name index.
//! - [`report`]: text / json / dot / mermaid / github / sarif rendering of what the core
//!   computed. [`config`] reads `protolapse.toml` and maps it, once, to history options and
//!   judging settings.
//! - [`policy`]: judgements over a whole history — semver check, registry policies,
//!   history-wide hazards, field lifecycle, buffrs package rules, the CI gate.
//! - [`prove`]: verdicts backed by round trips — samples of a changed field written with one
//!   version's schema and read with the other's, on the wire (Google's semantics) and in
//!   ProtoJSON; observed cells beside the rule's, and contradictions.
//! - [`judge`]: one pair of versions judged — the comparison [`judge::Scope`] (whole schema
//!   or what a root reaches, resolved once), pairing, rules, ignores, not-judged marks and
//!   counts; [`judge::Comparer`] shares the pairs of one history.
//! - [`load`]: a history read from git and compiled version by version; [`load::Loaded`] is
//!   the version type (identity [`load::VersionId`], compile state, schema) and
//!   [`load::lineage`] the one place that says which version a version is compared with.
//! - [`rules`]: the rule table ([`rules::RuleId`]) and one function per rule -> changes
//!   with verdicts.
//! - [`diff`]: pair the declarations of two versions (whole schema or from a root).
//! - [`history`]: git tags -> ordered versions + the source text of their `.proto` files
//!   (the only user of `git2`).
//! - [`schema`]: compile (protox, protoc), normalize into our own model, fingerprint, type
//!   graph (the only user of `protox` / `prost-reflect`).
//! - Leaves: [`origin`], [`proto_text`], [`sanitize`], [`small_file`] (a config file of the
//!   working tree, read only if small, regular and inside it), [`limits`] (the caps on a
//!   file, a version and a history).
//!
//! Nothing below `ui` knows a terminal; nothing but `history` knows git.
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod config;
pub mod diff;
pub mod explore;
pub mod history;
pub mod judge;
pub mod limits;
pub mod load;
pub mod origin;
pub mod policy;
pub mod proto_text;
pub mod prove;
pub mod report;
pub mod rules;
pub mod sanitize;
pub mod schema;
pub mod scratch;
pub mod small_file;
pub mod ui;
