//! Explore: what the terminal UI shows, computed without a terminal, so that it can be
//! tested and benchmarked on its own and reused by other front ends.
//!
//! - [`compare`]: two versions compared from a root, laid out as a tree of paired fields
//!   (expanded lazily, cycles cut) with every change attached to the node it concerns.
//! - [`facts`]: per version, its previous relevant version, bumps and semver verdict; the
//!   seam where the whole-history analysis plugs in.
//! - [`lifecycle`]: each field's (or enum value's) state in every version.
//! - [`names`]: every message, enum, service, field, value and rpc name of every version,
//!   with fuzzy search, for the finders.
//!
//! May import: `load`, `schema`, `diff`, `rules` (and `policy`). Knows no terminal, no key,
//! no colour, and no git.

pub mod compare;
pub mod decl;
pub mod facts;
pub mod lifecycle;
pub mod names;

pub use compare::{Comparison, Node, NodeKind, Row, Sides, Step};
