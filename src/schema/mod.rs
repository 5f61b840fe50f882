//! Schema: compile the `.proto` text of a version with `protox` (and Google's `protoc` for
//! what protox cannot read: editions), normalize the pool into our
//! own plain model, fingerprint it, and build the type graph reached from a root.
//!
//! The only module that uses `protox` and `prost-reflect`; nothing of theirs leaves it.
//! Never sees git: it takes (path, blob id, text) triples. May import: nothing of ours but the
//! leaves `proto_text` (import statements) and `origin`.

mod canon;
pub mod compile;
pub mod decl;
mod diagnostic;
pub mod docs;
pub mod features;
pub mod fingerprint;
pub mod graph;
pub mod model;
mod model_serde;
mod normalize;
mod protoc;
pub mod store;
pub mod thirdparty;
mod wire;

pub use protoc::source as protoc_source;

pub use compile::{Cache, CompileStats, Compiled, DiskStats, HowCompiled, SourceRef, Status};
pub use diagnostic::Diagnostic;
pub use graph::{RootMatch, TypeGraph};
pub use model::{Content, Origin, Schema};
