//! A problem in one file, as every compiling step reports it (protox, protoc, normalizing):
//! a leaf, so that each of them names it without importing the others.

use serde::{Deserialize, Serialize};

/// A problem in one file, 1-based line and column (0 when unknown).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.file.is_empty(), self.line) {
            (true, _) => write!(f, "{}", self.message),
            (false, 0) => write!(f, "{}: {}", self.file, self.message),
            (false, _) => write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            ),
        }
    }
}
