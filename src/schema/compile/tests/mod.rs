//! Compiling file sets: sharing, errors, editions through protoc, windows of sets side by side.

use super::*;

mod edges;
mod editions;
mod memo;
mod protox_sets;
mod windows;

fn src<'a>(path: &'a str, blob: &'a str, text: &'a str) -> SourceRef<'a> {
    SourceRef {
        path,
        blob,
        text: Ok(text),
        origin: Origin::Root,
    }
}

/// A set holding a file of this name panics while it compiles (see `set::finish`).
pub(super) const PANICS: &str = "panics.proto";
