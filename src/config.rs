//! `protolapse.toml` at the repository root. Unknown keys and bad values are errors that name
//! the key and the file. Command-line flags override what it says. See docs/config.md.

mod buf_breaking;
mod buf_rules;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::history::HistoryOptions;
use crate::judge::{IgnoreRule, Ignores};
use crate::policy::{HazardKind, Level, Policy, Pre1, Settings};

pub use buf_breaking::BufBreaking;

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
    /// Folders the schema is limited to (with what they import), like `--path`.
    #[serde(default)]
    pub path: Vec<String>,
    /// Default root message or service.
    #[serde(default)]
    pub root: Option<String>,
    /// Compatibility policy for `check` and `log` (`BACKWARD_TRANSITIVE`).
    #[serde(default)]
    pub policy: Option<String>,
    /// `wire` or `json`.
    #[serde(default)]
    pub level: Option<Level>,
    /// `hazard` and `lossy` fail instead of warning.
    #[serde(default)]
    pub strict: Option<bool>,
    /// How versions below 1.0.0 are read: `cargo` or `strict`.
    #[serde(default)]
    pub pre1: Option<Pre1>,
    /// Changes to accept.
    #[serde(default)]
    pub ignore: Vec<IgnoreEntry>,
    /// Whether the settings came from a `protolapse.toml` (not a key of it).
    #[serde(skip)]
    pub from_file: bool,
    /// The working tree's `buf.yaml` `breaking:` configuration, mapped (not a key of
    /// protolapse.toml): None without a `buf.yaml`.
    #[serde(skip)]
    pub buf: Option<BufBreaking>,
}

/// One `[[ignore]]` table: every given condition must hold.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct IgnoreEntry {
    pub rule: Option<String>,
    pub path: Option<String>,
    pub element: Option<String>,
    pub reason: Option<String>,
}

/// What the command line (or the terminal UI's options) says about what to load; each given
/// value overrides `protolapse.toml`'s.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Given {
    pub tags: Option<String>,
    pub revs: Vec<String>,
    pub proto_paths: Vec<String>,
    /// `--commits [RANGE]`: versions from commits (`HEAD` when no range is given).
    pub commits: Option<String>,
    /// `--path DIR`: the folders the schema is limited to.
    pub paths: Vec<String>,
}

impl Given {
    /// Checks the flags' values, before anything is read: `--tags` is a valid glob and each
    /// `-I` a folder inside the repository. The error names the flag.
    pub fn check(&self) -> Result<(), String> {
        if let Some(g) = &self.tags {
            check_glob(g).map_err(|e| format!("--tags: {e}"))?;
        }
        for p in &self.proto_paths {
            check_proto_path(p).map_err(|e| {
                format!("-I/--proto-path: {e}\n  help: give a folder of the repository, relative to its top (-I proto)")
            })?;
        }
        for p in &self.paths {
            check_proto_path(p).map_err(|e| {
                format!("--path: {e}\n  help: give a folder of the repository, relative to its top (--path google/pubsub/v1)")
            })?;
        }
        Ok(())
    }
}

/// A tag glob that compiles; the error shows it.
fn check_glob(glob: &str) -> Result<(), String> {
    glob::Pattern::new(glob)
        .map(|_| ())
        .map_err(|e| format!("invalid tag glob `{}`: {e}", crate::sanitize::line(glob)))
}

/// A proto path protolapse may read: relative to the repository's top and never above it
/// (`/etc` or `../x` would read files outside the repository).
pub fn check_proto_path(path: &str) -> Result<(), String> {
    let shown = crate::sanitize::line(path);
    if path.starts_with('/') {
        return Err(format!(
            "`{shown}` is an absolute path; proto paths are folders inside the repository"
        ));
    }
    let mut depth: usize = 0;
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                depth = depth.checked_sub(1).ok_or_else(|| {
                    format!("`{shown}` leads out of the repository (`..` above its top)")
                })?;
            }
            _ => depth += 1,
        }
    }
    Ok(())
}

#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}\n  help: {}", if path.ends_with(buf_breaking::FILE_NAME) {
    "see docs/check.md (Coming from buf) for the `breaking:` keys protolapse reads"
} else {
    "see docs/config.md for the keys protolapse.toml takes"
})]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
}

impl Config {
    /// Reads `protolapse.toml` in `dir` and the `breaking:` sections of its `buf.yaml` files
    /// (`buf_breaking::load`), if there are such files (None: neither is there); checks every
    /// value. A malformed `breaking:` section is an error naming the file and the key.
    pub fn load(dir: &Path) -> Result<Option<Config>, ConfigError> {
        let read = |name: &str| match crate::small_file::read(dir, name) {
            Ok(t) => Ok(Some(t)),
            Err(crate::small_file::Refused::NotFound) => Ok(None),
            Err(e) => Err(ConfigError {
                path: dir.join(name),
                message: e.to_string(),
            }),
        };
        let mut config = match read(FILE_NAME)? {
            Some(text) => Config {
                from_file: true,
                ..Self::parse(&text).map_err(|message| ConfigError {
                    path: dir.join(FILE_NAME),
                    message,
                })?
            },
            None => Config::default(),
        };
        config.buf = buf_breaking::load(dir)?;
        Ok((config.from_file || config.buf.is_some()).then_some(config))
    }

    /// Where the level and the ignores come from, in one line for the reports.
    pub fn origin(&self) -> String {
        let toml = self.from_file.then(|| {
            if self.level.is_some() {
                format!("{FILE_NAME} (level)")
            } else {
                FILE_NAME.to_string()
            }
        });
        let buf = self.buf.as_ref().map(|b| {
            if self.level.is_some() && b.level.is_some() {
                format!("{}, its level overridden", b.summary)
            } else {
                b.summary.clone()
            }
        });
        match (toml, buf) {
            (None, None) => "defaults (no protolapse.toml, no buf.yaml)".to_string(),
            (Some(t), None) => t,
            (None, Some(b)) => b,
            (Some(t), Some(b)) => format!("{t}; {b}"),
        }
    }

    /// Parses and checks the text of a config file; the error names the key.
    pub fn parse(text: &str) -> Result<Config, String> {
        let config: Config = toml::from_str(text).map_err(|e| {
            let msg = e.message().trim().to_string();
            match e.span().map(|s| line_of(text, s.start)) {
                Some(line) => format!("line {line}: {msg}"),
                None => msg,
            }
        })?;
        config.policy()?;
        config.ignores()?;
        if let Some(g) = &config.tags {
            check_glob(g).map_err(|e| format!("key `tags`: {e}"))?;
        }
        for p in &config.proto_paths {
            check_proto_path(p).map_err(|e| {
                format!(
                    "key `proto_paths`: {e}; give a folder of the repository, relative to its top"
                )
            })?;
        }
        for p in &config.path {
            check_proto_path(p).map_err(|e| {
                format!("key `path`: {e}; give a folder of the repository, relative to its top")
            })?;
        }
        Ok(config)
    }

    /// What to load: the given flags over this file's `tags` and `proto_paths`. With
    /// `worktree_always`, the working tree is a version even when it equals HEAD.
    pub fn history_options(&self, given: &Given, worktree_always: bool) -> HistoryOptions {
        HistoryOptions {
            tags: given.tags.clone().or_else(|| self.tags.clone()),
            revs: given.revs.clone(),
            proto_paths: if given.proto_paths.is_empty() {
                self.proto_paths.clone()
            } else {
                given.proto_paths.clone()
            },
            wanted: Vec::new(),
            worktree: true,
            worktree_always,
            commits: given.commits.clone(),
            paths: if given.paths.is_empty() {
                self.path.clone()
            } else {
                given.paths.clone()
            },
        }
    }

    /// How to judge, as this file says (the whole schema: a root is resolved against the
    /// loaded history, see `judge::Scope`). Errors name the file and the key.
    pub fn settings(&self) -> Result<Settings, String> {
        let at = |e: String| format!("{FILE_NAME}: {e}");
        let buf = self.buf.as_ref();
        let mut ignores = self.ignores().map_err(at)?;
        // protolapse.toml's ignores first: a change both cover shows its reason.
        ignores
            .rules
            .extend(buf.iter().flat_map(|b| b.ignores.iter().cloned()));
        Ok(Settings {
            scope: crate::judge::Scope::Whole,
            policy: self.policy().map_err(at)?,
            level: self
                .level
                .or_else(|| buf.and_then(|b| b.level))
                .unwrap_or_default(),
            strict: self.strict.unwrap_or(false),
            pre1: self.pre1.unwrap_or_default(),
            ignores,
            origin: self.origin(),
        })
    }

    /// The `policy` key, parsed.
    pub fn policy(&self) -> Result<Option<Policy>, String> {
        self.policy
            .as_deref()
            .map(|p| p.parse().map_err(|e| format!("key `policy`: {e}")))
            .transpose()
    }

    /// The `[[ignore]]` tables, checked: each names at least one condition, a known rule and
    /// valid globs.
    pub fn ignores(&self) -> Result<Ignores, String> {
        let mut rules = Vec::new();
        for (i, e) in self.ignore.iter().enumerate() {
            let at = format!("[[ignore]] #{}", i + 1);
            if e.rule.is_none() && e.path.is_none() && e.element.is_none() {
                return Err(format!(
                    "{at}: give at least one of `rule`, `path`, `element` (an empty ignore would hide every change)"
                ));
            }
            let hazards = HazardKind::IGNORABLE.map(HazardKind::id);
            if let Some(r) = &e.rule
                && crate::rules::RuleId::from_id(r).is_none()
                && !hazards.contains(&r.as_str())
            {
                let ids: Vec<&str> = crate::rules::RuleId::ALL
                    .iter()
                    .map(|r| r.as_str())
                    .chain(hazards)
                    .collect();
                let close = crate::schema::graph::closest(&ids, r, 2);
                return Err(format!(
                    "{at}: key `rule`: unknown rule `{r}`{}",
                    if close.is_empty() {
                        String::new()
                    } else {
                        format!("; did you mean {}?", close.join(", "))
                    }
                ));
            }
            let glob = |key: &str, g: &Option<String>| -> Result<Option<glob::Pattern>, String> {
                g.as_deref()
                    .map(|g| {
                        glob::Pattern::new(g)
                            .map_err(|err| format!("{at}: key `{key}`: bad glob `{g}`: {err}"))
                    })
                    .transpose()
            };
            rules.push(IgnoreRule {
                rule: e.rule.clone(),
                path: glob("path", &e.path)?,
                element: glob("element", &e.element)?,
                unstable_package: false,
                reason: e.reason.clone(),
            });
        }
        Ok(Ignores { rules })
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).map_or(0, |t| t.matches('\n').count()) + 1
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
        let scoped = Config::parse("path = [\"google/pubsub/v1\"]\n").unwrap();
        assert_eq!(scoped.path, ["google/pubsub/v1"]);
        let err = Config::parse("path = [\"../x\"]\n").unwrap_err();
        assert!(err.contains("`path`"), "{err}");
    }

    #[test]
    fn bad_values_name_their_key() {
        let err = Config::parse("level = \"wir\"\n").unwrap_err();
        assert!(err.contains("wir") && err.contains("line 1"), "{err}");
        let err = Config::parse("policy = \"BACKWARDS\"\n").unwrap_err();
        assert!(
            err.contains("`policy`") && err.contains("BACKWARDS"),
            "{err}"
        );
        let err = Config::parse("strict = \"yes\"\n").unwrap_err();
        assert!(err.contains("line 1"), "{err}");
        let err = Config::parse("[[ignore]]\nrule = \"FIELD_TYP_CHANGED\"\n").unwrap_err();
        assert!(err.contains("FIELD_TYPE_CHANGED"), "{err}");
        let err = Config::parse("[[ignore]]\nreason = \"x\"\n").unwrap_err();
        assert!(err.contains("at least one"), "{err}");
        let err = Config::parse("[[ignore]]\npath = \"[x\"\n").unwrap_err();
        assert!(err.contains("`path`"), "{err}");
        let err = Config::parse("[[ignore]]\nrules = \"X\"\n").unwrap_err();
        assert!(err.contains("rules"), "{err}");
    }

    #[test]
    fn a_full_config_reads() {
        let c = Config::parse(
            r#"
proto_paths = ["proto"]
tags = "physics/v*"
root = "physics.v1.FlightPath"
policy = "BACKWARD_TILL(physics/v1.0.0)"
level = "json"
strict = true
pre1 = "strict"

[[ignore]]
rule = "FIELD_JSON_NAME_CHANGED"
element = "physics.v1.*"
reason = "JSON clients moved to the new names in Q3"
"#,
        )
        .unwrap();
        assert_eq!(
            c.policy().unwrap(),
            Some(Policy::BackwardTill("physics/v1.0.0".into()))
        );
        assert_eq!(c.level, Some(Level::Json));
        assert_eq!(c.pre1, Some(Pre1::Strict));
        assert_eq!(c.ignores().unwrap().rules.len(), 1);
    }
}
