//! Ignores: changes a project has decided to accept, from `protolapse.toml` (by rule id, path
//! glob, element glob, or any combination) and from inline comments on a declaration:
//!
//! ```proto
//! int64 sensor_id = 4; // protolapse:ignore FIELD_TYPE_CHANGED all readers are 64-bit now
//! ```
//!
//! An inline directive (in the leading or trailing comment) covers changes of that
//! declaration and of everything declared inside it, in the version that introduces the
//! directive: left in place, it does not cover later changes (the old side carrying the same
//! directive makes it stale). A change to a removed element is covered by a directive on its
//! enclosing declaration (or the file's `syntax` line). History-wide hazards are ignored the
//! same way, by their ids (`HAZARD_NUMBER_REUSED`, ...). Ignored changes stay listed, marked
//! with the reason, and count for nothing.

use crate::rules::Change;
use crate::schema::Schema;
use crate::schema::model::Doc;

/// The directive word in a comment.
pub const DIRECTIVE: &str = "protolapse:ignore";

/// One configured ignore (from `protolapse.toml`, or a `buf.yaml` `breaking:` section):
/// every given condition must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IgnoreRule {
    /// A rule id (`FIELD_TYPE_CHANGED`).
    pub rule: Option<String>,
    /// A glob over the file's import path (`legacy/**`, `*/v1alpha/*.proto`).
    pub path: Option<glob::Pattern>,
    /// A glob over the element's full name (`physics.v1.Legacy*`).
    pub element: Option<glob::Pattern>,
    /// Only elements of an unstable package (`v1alpha1`, `v1beta2`, `v1test`, `v1p1beta1`:
    /// buf's `ignore_unstable_packages`).
    pub unstable_package: bool,
    pub reason: Option<String>,
}

/// The configured ignores.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ignores {
    pub rules: Vec<IgnoreRule>,
}

impl Ignores {
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Marks every change an ignore covers; `new` holds the inline directives (looked up
    /// only when `inline_directives` says it has some), `old` tells which are stale.
    pub fn apply(
        &self,
        changes: &mut [Change],
        old: &Schema,
        new: &Schema,
        inline_directives: bool,
    ) {
        if self.rules.is_empty() && !inline_directives {
            return;
        }
        for c in changes.iter_mut() {
            if c.ignored.is_some() {
                continue;
            }
            let files = super::change_files(c);
            let rule = c.rule.as_str();
            c.ignored = self.configured(rule, &c.element, &files).or_else(|| {
                if !inline_directives {
                    return None;
                }
                // A removed element's file is known from the old side only.
                let file = c
                    .new_location
                    .as_deref()
                    .or(c.old_location.as_deref())
                    .and_then(|l| l.rsplit_once(':'))
                    .map(|(f, _)| f);
                inline(rule, &c.element, file, new, Some(old))
            });
        }
    }

    /// The reason a history-wide hazard (by its id, `HAZARD_NUMBER_REUSED`) on `element` is
    /// ignored, by the config or by a directive in `schema` (the version where it shows).
    pub fn hazard(&self, id: &str, element: &str, schema: &Schema) -> Option<String> {
        let file = schema.doc(element).map(|d| &*d.file);
        let files: Vec<&str> = file.into_iter().collect();
        self.configured(id, element, &files)
            .or_else(|| inline(id, element, file, schema, None))
    }

    /// The reason of the first configured ignore that covers a finding.
    fn configured(&self, rule: &str, element: &str, files: &[&str]) -> Option<String> {
        let opts = glob::MatchOptions {
            require_literal_separator: true,
            ..Default::default()
        };
        self.rules.iter().find_map(|r| {
            let hit = r.rule.as_deref().is_none_or(|id| id == rule)
                && r.element.as_ref().is_none_or(|g| g.matches(element))
                && (!r.unstable_package || in_unstable_package(element))
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

/// True when a name has an unstable version component, as buf's
/// `ignore_unstable_packages` reads a package: `vN` followed by `alpha`, `beta` or `test`
/// (`v1alpha1`, `v2beta`, `v1test_foo`), maybe after `pN` (`v1p1beta1`). The last
/// component, the element's own name, is not looked at.
pub fn in_unstable_package(element: &str) -> bool {
    let Some((package, _)) = element.rsplit_once('.') else {
        return false;
    };
    package.split('.').any(|part| {
        let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let Some(rest) = part.strip_prefix('v') else {
            return false;
        };
        let n = digits(rest);
        if n == 0 {
            return false;
        }
        let mut rest = &rest[n..];
        if rest.starts_with("test") {
            return true;
        }
        if let Some(p) = rest.strip_prefix('p') {
            let n = digits(p);
            if n == 0 {
                return false;
            }
            rest = &p[n..];
        }
        let Some(tail) = rest
            .strip_prefix("alpha")
            .or_else(|| rest.strip_prefix("beta"))
        else {
            return false;
        };
        tail.chars().all(|c| c.is_ascii_digit())
    })
}

/// True when a doc's comments hold a directive.
pub fn has_directive(doc: &Doc) -> bool {
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(DIRECTIVE));
    [&doc.comment, &doc.trailing]
        .iter()
        .any(|c| FINDER.find(c.as_bytes()).is_some())
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

/// The reason of an inline directive that covers rule `rule` on `element`, looked up on the
/// element and its enclosing declarations in `new`, then on `file`'s `syntax` line. With
/// `old`, a directive that `old` carries at the same place is stale: it covered an earlier
/// change and does not cover this one.
fn inline(
    rule: &str,
    element: &str,
    file: Option<&str>,
    new: &Schema,
    old: Option<&Schema>,
) -> Option<String> {
    let mut names = vec![element];
    let mut rest = element;
    while let Some((parent, _)) = rest.rsplit_once('.') {
        names.push(parent);
        rest = parent;
    }
    names.extend(file);
    for name in names {
        let Some(doc) = new.doc(name) else { continue };
        let stale: Vec<(Vec<String>, String)> = old
            .and_then(|o| o.doc(name))
            .map(|d| {
                [&*d.comment, &*d.trailing]
                    .iter()
                    .flat_map(|t| directives(t))
                    .collect()
            })
            .unwrap_or_default();
        for text in [&doc.comment, &doc.trailing] {
            for d in directives(text) {
                if d.0.iter().any(|id| id == "*" || id == rule) && !stale.contains(&d) {
                    return Some(if d.1.is_empty() {
                        format!("{DIRECTIVE} at {}:{}", doc.file, doc.line)
                    } else {
                        d.1
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

    #[test]
    fn unstable_packages_are_read_as_buf_reads_them() {
        for yes in [
            "foo.v1alpha1.Msg",
            "foo.v1beta.Msg.field",
            "foo.v2test.E.V",
            "foo.v1test_x.Msg",
            "foo.v1p1beta1.Msg",
            "v1alpha.Msg",
        ] {
            assert!(in_unstable_package(yes), "{yes}");
        }
        for no in [
            "foo.v1.Msg",
            "foo.valpha1.Msg",
            "foo.v1gamma.Msg",
            "foo.v1.v1alpha1",
            "foo.v1alpha1x.Msg",
            "v1alpha1",
        ] {
            assert!(!in_unstable_package(no), "{no}");
        }
    }
}
