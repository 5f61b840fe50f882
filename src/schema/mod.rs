//! Schema: compile the `.proto` text of a version with `protox`, normalize the pool into our
//! own plain model, fingerprint it, and build the type graph reached from a root.
//!
//! The only module that uses `protox` and `prost-reflect`; nothing of theirs leaves it.
//! Never sees git: it takes (path, blob id, text) triples. May import: nothing of ours.

pub mod compile;
pub mod docs;
pub mod fingerprint;
pub mod graph;
pub mod model;
mod normalize;

pub use compile::{Cache, CompileStats, Compiled, Diagnostic, SourceRef, Status};
pub use graph::{RootMatch, TypeGraph};
pub use model::{Content, Schema};
