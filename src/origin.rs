//! Where a file of a version came from: under a proto root (judged), or brought in for the
//! files that import it. One type for history (which finds the files) and schema (which
//! compiles them and marks what is judged). A leaf: imports nothing of ours.

use serde::{Deserialize, Serialize};

/// Where a file of a compiled version came from.
/// Ordered from the most judged: of two copies of one file, the smaller origin wins.
#[derive(
    Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash, Default,
)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Under one of the version's proto roots: judged.
    #[default]
    Root,
    /// Under a proto root but excluded by `buf.yaml`: compiled for its importers only.
    Excluded,
    /// Outside the proto roots, found elsewhere in the repository's tree by import path.
    Tree,
    /// Not in the repository: one of the third-party protos embedded in protolapse
    /// (googleapis, gogoproto, protoc-gen-validate, protovalidate).
    Embedded,
    /// protobuf's well-known types, supplied by the compiler.
    WellKnown,
}

impl Origin {
    /// How the origin is shown (`log`, the version detail).
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Root => "proto root",
            Origin::Excluded => "excluded by buf.yaml, imported",
            Origin::Tree => "found in the tree by import path",
            Origin::Embedded => "embedded third-party",
            Origin::WellKnown => "well-known type",
        }
    }
}
