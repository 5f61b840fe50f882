//! The comparison scope: the whole schema, or what one root message or service reaches. A
//! root given on the command line, in `protolapse.toml` or picked in the terminal UI is
//! resolved here, once, to a full name; every layer above takes the resolved [`Scope`].

use crate::load::Loaded;
use crate::rules::Change;
use crate::schema::Status;
use crate::schema::graph::{RootMatch, resolve_root};

/// What a comparison covers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Every declaration of the repository's own files.
    #[default]
    Whole,
    /// What this message or service (a full name) reaches.
    Root(String),
}

/// Why a root could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    #[error(
        "unknown root `{root}` in {place}{hint}\n  help: a root is a message or service name, full (pkg.Msg) or short (Msg)",
        hint = closest(.close)
    )]
    Unknown {
        root: String,
        /// `v1.2.0`, or `any version`.
        place: String,
        close: Vec<String>,
    },
    #[error("root `{root}` is ambiguous in {place}: {names}\n  help: pass the full name", names = .names.join(", "))]
    Ambiguous {
        root: String,
        place: String,
        names: Vec<String>,
    },
}

fn closest(close: &[String]) -> String {
    if close.is_empty() {
        String::new()
    } else {
        format!("; closest: {}", close.join(", "))
    }
}

impl Scope {
    /// A scope from an already resolved root (None: the whole schema).
    pub fn of(root: Option<String>) -> Scope {
        root.map_or(Scope::Whole, Scope::Root)
    }

    /// The root's full name, when the scope is a root.
    pub fn root(&self) -> Option<&str> {
        match self {
            Scope::Whole => None,
            Scope::Root(r) => Some(r),
        }
    }

    /// Resolves `given` (a full or unique short name; None: the whole schema) in the first of
    /// `candidates` that has it — versions that did not compile are passed over. A short
    /// name that names several types there is an error, even where an older version has one
    /// of them only (`log` and `diff` agree on what a name means). `place` names where it
    /// was looked for, for the error.
    pub fn resolve<'a>(
        given: Option<&str>,
        candidates: impl IntoIterator<Item = &'a Loaded>,
        place: impl FnOnce() -> String,
    ) -> Result<Scope, ScopeError> {
        let Some(given) = given else {
            return Ok(Scope::Whole);
        };
        let root = crate::sanitize::line(given);
        let mut close = Vec::new();
        for v in candidates {
            let Some(schema) = v.schema() else { continue };
            match resolve_root(&schema.content, given) {
                RootMatch::Found(name) => return Ok(Scope::Root(name)),
                RootMatch::Ambiguous(names) => {
                    let place = crate::sanitize::line(v.name());
                    return Err(ScopeError::Ambiguous { root, place, names });
                }
                RootMatch::Unknown(c) => {
                    if close.is_empty() {
                        close = c;
                    }
                }
            }
        }
        let place = crate::sanitize::line(&place());
        Err(ScopeError::Unknown { root, place, close })
    }

    /// Resolves `given` in the newest version of a history that has it.
    pub fn in_history(given: Option<&str>, versions: &[Loaded]) -> Result<Scope, ScopeError> {
        Scope::resolve(given, versions.iter().rev(), || "any version".into())
    }

    /// Whether the scope reaches anything in `content`: always for the whole schema; for a
    /// root, when the root is a message or service there.
    pub fn present_in(&self, content: &crate::schema::Content) -> bool {
        match self {
            Scope::Whole => true,
            Scope::Root(r) => content.messages.contains_key(r) || content.services.contains_key(r),
        }
    }

    /// Why version `v` is not judged in this scope, if it is not — the one place that says
    /// so, for `log`, `check`, the policies and the terminal UI: a version that did not
    /// compile (or is not compiled yet); a root that is not among the files that compiled
    /// (its file may be one that did not); or `changes` (against the version it is compared
    /// with) that could not be judged because a file did not compile on one side. A version
    /// not judged is never shown as passing: a failure found in what was read still stands.
    pub fn not_judged(&self, v: &Loaded, changes: &[Change]) -> Option<String> {
        let c = &v.compiled;
        match c.status {
            Status::Pending => return Some("not compiled yet".into()),
            Status::Failed => return Some("did not compile".into()),
            Status::Complete | Status::Partial => {}
        }
        let unjudged: Vec<&str> = changes
            .iter()
            .filter_map(super::not_judged_reason)
            .collect();
        if let [first, rest @ ..] = unjudged.as_slice() {
            let more = match rest.len() {
                0 => String::new(),
                n => format!(" (+{n} more change{})", if n == 1 { "" } else { "s" }),
            };
            return Some(format!("{first}{more}"));
        }
        let root = self.root()?;
        if v.failed_files.is_empty() || v.schema().is_some_and(|s| self.present_in(&s.content)) {
            return None;
        }
        Some(format!(
            "{root} is not in the {} of {} files that compiled",
            c.files_ok, c.files_total
        ))
    }
}
