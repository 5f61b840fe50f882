//! `protolapse.toml` at the repository root. Unknown keys and bad values are errors that name
//! the key and the file. Command-line flags override what it says.

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub const FILE_NAME: &str = "protolapse.toml";

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Proto roots, relative to the repository root.
    #[serde(default)]
    pub proto_paths: Vec<String>,
    /// Tag glob (`physics/v*`).
    #[serde(default)]
    pub tags: Option<String>,
    /// Default root message or service.
    #[serde(default)]
    pub root: Option<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}\n  help: see docs/config.md for the keys protolapse.toml takes")]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
}

impl Config {
    /// Reads `protolapse.toml` in `dir`, if there is one.
    pub fn load(dir: &Path) -> Result<Option<Config>, ConfigError> {
        let path = dir.join(FILE_NAME);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(ConfigError {
                    path,
                    message: e.to_string(),
                });
            }
        };
        Self::parse(&text)
            .map(Some)
            .map_err(|message| ConfigError { path, message })
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        toml::from_str(text).map_err(|e| e.message().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_named() {
        let err = Config::parse("proto_path = [\"x\"]\n").unwrap_err();
        assert!(err.contains("proto_path"), "{err}");
        let ok = Config::parse("proto_paths = [\"proto\"]\ntags = \"physics/v*\"\n").unwrap();
        assert_eq!(ok.proto_paths, ["proto"]);
        assert_eq!(ok.tags.as_deref(), Some("physics/v*"));
    }
}
