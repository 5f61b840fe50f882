//! Explore: what the terminal UI shows, computed without a terminal, so that it can be
//! tested and benchmarked on its own and reused by other front ends.
//!
//! - [`compare`]: two versions compared from a root, laid out as a tree of paired fields
//!   (expanded lazily, cycles cut) with every change attached to the node it concerns.
//! - [`facts`]: per version, what the whole-history analysis (`policy`) says — previous
//!   relevant version, bumps, semver verdict, policy results, hazards — and the policy
//!   matrix.
//! - [`names`]: every message, enum, service, field, value and rpc name of every version,
//!   with fuzzy search, for the finders.
//!
//! May import: `load`, `schema`, `diff`, `rules` (and `policy`). Knows no terminal, no key,
//! no colour, and no git.

pub mod compare;
pub mod facts;
pub mod names;
pub mod tokens;

pub use compare::{Comparison, Node, NodeKind, Row, Sides, Step};
