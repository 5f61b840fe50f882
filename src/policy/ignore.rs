//! Ignores: changes a project has decided to accept, from `protolapse.toml` (by rule id, path
//! glob, element glob, or any combination) and from inline comments on a declaration:
//!
//! ```proto
//! int64 sensor_id = 4; // protolapse:ignore FIELD_TYPE_CHANGED all readers are 64-bit now
//! ```
//!
//! An inline directive (in the leading or trailing comment) covers changes of that
//! declaration and of everything declared inside it, in the new version; a change to a
//! removed element is covered by a directive on its enclosing declaration (or the file's
//! `syntax` line). Ignored changes stay listed, marked with the reason, and count for
//! nothing.

use crate::rules::Change;
use crate::schema::Schema;
use crate::schema::model::Doc;

/// The directive word in a comment.
pub const DIRECTIVE: &str = "protolapse:ignore";

/// One configured ignore: every given condition must hold.
#[derive(Debug, Clone)]
pub struct IgnoreRule {
    /// A rule id (`FIELD_TYPE_CHANGED`).
    pub rule: Option<String>,
    /// A glob over the file's import path (`legacy/**`, `*/v1alpha/*.proto`).
    pub path: Option<glob::Pattern>,
    /// A glob over the element's full name (`physics.v1.Legacy*`).
    pub element: Option<glob::Pattern>,
    pub reason: Option<String>,
}

/// The configured ignores.
#[derive(Debug, Clone, Default)]
pub struct Ignores {
    pub rules: Vec<IgnoreRule>,
}

impl Ignores {
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Marks every change an ignore covers; `new` holds the inline directives (looked up
    /// only when `inline` says it has some).
    pub fn apply(&self, changes: &mut [Change], new: &Schema, inline_directives: bool) {
        if self.rules.is_empty() && !inline_directives {
            return;
        }
        for c in changes.iter_mut() {
            if c.ignored.is_none() {
                c.ignored = self
                    .configured(c)
                    .or_else(|| inline_directives.then(|| inline(c, new)).flatten());
            }
        }
    }

    fn configured(&self, c: &Change) -> Option<String> {
        let opts = glob::MatchOptions {
            require_literal_separator: true,
            ..Default::default()
        };
        let files = super::change_files(c);
        self.rules.iter().find_map(|r| {
            let hit = r.rule.as_deref().is_none_or(|id| id == c.rule)
                && r.element.as_ref().is_none_or(|g| g.matches(&c.element))
                && r.path
                    .as_ref()
                    .is_none_or(|g| files.iter().any(|f| g.matches_with(f, opts)));
            hit.then(|| {
                r.reason
                    .clone()
                    .unwrap_or_else(|| "ignored in protolapse.toml".to_string())
            })
        })
    }
}

/// True when a doc's comments hold a directive.
pub fn has_directive(doc: &Doc) -> bool {
    doc.comment.contains(DIRECTIVE) || doc.trailing.contains(DIRECTIVE)
}

/// The rules and reason of each directive in a comment: `protolapse:ignore ID[,ID] reason`.
/// `*` stands for every rule.
pub fn directives(comment: &str) -> Vec<(Vec<String>, String)> {
    comment
        .lines()
        .filter_map(|line| {
            let rest = &line[line.find(DIRECTIVE)? + DIRECTIVE.len()..];
            let rest = rest.trim_start();
            let (ids, reason) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let ids: Vec<String> = ids
                .split(',')
                .map(|s| s.trim().to_ascii_uppercase())
                .filter(|s| !s.is_empty())
                .collect();
            (!ids.is_empty()).then(|| (ids, reason.trim().to_string()))
        })
        .collect()
}

/// The reason of an inline directive that covers `c`, looked up on the element and its
/// enclosing declarations in the new version, then on the file.
fn inline(c: &Change, new: &Schema) -> Option<String> {
    let mut names = vec![c.element.as_str()];
    let mut rest = c.element.as_str();
    while let Some((parent, _)) = rest.rsplit_once('.') {
        names.push(parent);
        rest = parent;
    }
    let file = c
        .new_location
        .as_deref()
        .and_then(|l| l.rsplit_once(':'))
        .map(|(f, _)| f);
    let docs = names
        .into_iter()
        .filter_map(|n| new.doc(n))
        .chain(file.and_then(|f| new.doc(f)));
    for doc in docs {
        for text in [&doc.comment, &doc.trailing] {
            for (ids, reason) in directives(text) {
                if ids.iter().any(|id| id == "*" || id == c.rule) {
                    return Some(if reason.is_empty() {
                        format!("{DIRECTIVE} at {}:{}", doc.file, doc.line)
                    } else {
                        reason
                    });
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_parse() {
        assert_eq!(
            directives("protolapse:ignore FIELD_TYPE_CHANGED all readers are 64-bit"),
            vec![(
                vec!["FIELD_TYPE_CHANGED".to_string()],
                "all readers are 64-bit".to_string()
            )]
        );
        assert_eq!(
            directives("Docs.\n protolapse:ignore field_removed,FIELD_RENAMED"),
            vec![(
                vec!["FIELD_REMOVED".to_string(), "FIELD_RENAMED".to_string()],
                String::new()
            )]
        );
        assert!(directives("protolapse:ignore").is_empty());
        assert!(directives("no directive here").is_empty());
    }
}
